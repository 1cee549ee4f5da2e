package transport_test

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"net/url"
	"strings"
	"time"

	"github.com/bwcms/cms/adapters/sqlite"
	"github.com/bwcms/cms/cms"
	"github.com/bwcms/cms/transport"
)

// A host program mounts the whole API under its own prefix on a
// net/http.ServeMux, beside its own routes, with the batch workers
// running; a client logs in, writes a record and a batch, and reads them.
func Example() {
	ctx, stop := context.WithCancel(context.Background())
	defer stop()
	store, err := sqlite.Open(ctx, sqlite.Memory, nil) // or a file, or postgres.Open(ctx, dsn, nil)
	if err != nil {
		panic(err)
	}
	defer store.Close()
	svc, err := cms.NewService(store, nil)
	if err != nil {
		panic(err)
	}
	api, err := transport.NewHandler(svc, &transport.Options{BasePath: "/cms", JWTSecret: []byte(strings.Repeat("s", 32))})
	if err != nil {
		panic(err)
	}
	mux := http.NewServeMux()
	mux.Handle(api.Path(), api) // /cms/api/bw/v2/
	mux.HandleFunc("GET /hello", func(w http.ResponseWriter, _ *http.Request) { fmt.Fprintln(w, "the host's own route") })
	langs, _ := cms.NewLanguages("en", "en", "it")
	svc.CreateAccount(ctx, "shop", langs)
	svc.CreateUser(ctx, cms.NewUser{Name: "editor", Account: "shop", Password: "a long password", Perms: []string{"*"}})
	go svc.Run(ctx) // batch workers and the purge, until ctx ends
	srv := httptest.NewServer(mux)
	defer srv.Close()

	// A client of the API.
	res, _ := http.PostForm(srv.URL+"/cms/api/bw/v2/auth", url.Values{"u": {"editor"}, "p": {"a long password"}})
	var login struct {
		AccessToken string `json:"access_token"`
	}
	json.NewDecoder(res.Body).Decode(&login)
	res.Body.Close()
	call := func(method, path, body string) string {
		req, _ := http.NewRequest(method, srv.URL+"/cms/api/bw/v2/"+path, strings.NewReader(body))
		req.Header.Set("Authorization", "Bearer "+login.AccessToken)
		res, err := http.DefaultClient.Do(req)
		if err != nil {
			panic(err)
		}
		defer res.Body.Close()
		b, _ := io.ReadAll(res.Body)
		return fmt.Sprint(res.StatusCode, " ", strings.TrimSpace(string(b)))
	}
	fmt.Println(call("POST", "resource", `{"id":"lake-walk","title":"Lake walk","title_it":"Giro del lago","published":true}`))
	fmt.Println(call("GET", "resource/lake-walk/fields/title,title_it", ""))
	answer := call("POST", "map/batch", `[{"id":"lakes","title":"Lakes","published":true,"resourceIds":["lake-walk"]}]`)
	var receipt struct {
		BatchID string `json:"batchId"`
	}
	json.Unmarshal([]byte(strings.TrimPrefix(answer, "201 ")), &receipt)
	for !strings.Contains(call("GET", "map/batch/"+receipt.BatchID, ""), `"status":"done"`) {
		time.Sleep(10 * time.Millisecond)
	}
	fmt.Println(call("GET", "resource/lake-walk/fields/mapIds", ""))
	hello, _ := http.Get(srv.URL + "/hello")
	b, _ := io.ReadAll(hello.Body)
	hello.Body.Close()
	fmt.Print(string(b))
	// Output:
	// 201 {"done":"Create Resource lake-walk","id":"lake-walk","new":true,"update":true}
	// 200 {"id":"lake-walk","title":"Lake walk","title_it":"Giro del lago"}
	// 200 {"id":"lake-walk","mapIds":["lakes"]}
	// the host's own route
}
