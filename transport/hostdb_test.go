package transport

import (
	"context"
	"database/sql"
	"encoding/json"
	"io"
	"net/http"
	"net/http/httptest"
	"net/url"
	"strings"
	"testing"
	"time"

	"github.com/bwcms/cms/adapters/postgres"
	"github.com/bwcms/cms/adapters/postgres/pgtest"
	"github.com/bwcms/cms/cms"
	"github.com/go-chi/chi/v5"
	_ "github.com/jackc/pgx/v5/stdlib"
)

// TestHostDatabase: a host whose own PostgreSQL database already holds
// tables named users, records and settings mounts the API under /cms on
// chi; every kind of endpoint works there, batches included, the host's
// tables keep their rows and columns, and the API's tables are all in
// the schema of its own.
func TestHostDatabase(t *testing.T) {
	t.Parallel()
	ctx := t.Context()
	dsn := pgtest.Database(t)
	host, err := sql.Open("pgx", dsn)
	if err != nil {
		t.Fatal(err)
	}
	defer host.Close()
	for _, q := range []string{
		"CREATE TABLE users (id int PRIMARY KEY, email text)",
		"CREATE TABLE records (x int)",
		"CREATE TABLE settings (k text)",
		"INSERT INTO users VALUES (1, 'host@example.com')",
		"INSERT INTO records VALUES (42)",
	} {
		if _, err := host.ExecContext(ctx, q); err != nil {
			t.Fatal(err)
		}
	}
	store, err := postgres.Open(ctx, dsn, nil)
	if err != nil {
		t.Fatal(err)
	}
	defer store.Close()
	svc, err := cms.NewService(store, &cms.Options{Passwords: cheapPasswords, BatchPoll: 10 * time.Millisecond})
	if err != nil {
		t.Fatal(err)
	}
	api, err := NewHandler(svc, &Options{BasePath: "/cms", JWTSecret: testSecret})
	if err != nil {
		t.Fatal(err)
	}
	r := chi.NewRouter()
	r.Get("/hello", hostHello)
	r.Mount("/cms", api)
	langs, _ := cms.NewLanguages("en")
	must := func(err error) {
		t.Helper()
		if err != nil {
			t.Fatal(err)
		}
	}
	must(svc.CreateAccount(ctx, "shop", langs))
	must(svc.CreateUser(ctx, cms.NewUser{Name: "editor", Account: "shop", Password: testPassword, Perms: []string{"*"}}))
	runCtx, stopRun := context.WithCancel(ctx)
	running := make(chan error, 1)
	go func() { running <- svc.Run(runCtx) }()
	defer func() { stopRun(); <-running }()
	srv := httptest.NewServer(r)
	defer srv.Close()

	res, err := http.PostForm(srv.URL+"/cms/api/bw/v2/auth", url.Values{"u": {"editor"}, "p": {testPassword}})
	if err != nil {
		t.Fatal(err)
	}
	var login tokenAnswer
	json.NewDecoder(res.Body).Decode(&login)
	res.Body.Close()
	if res.StatusCode != 200 {
		t.Fatalf("login: %d", res.StatusCode)
	}
	call := func(method, path, body string) (int, string) {
		t.Helper()
		req, _ := http.NewRequest(method, srv.URL+"/cms/api/bw/v2/"+path, strings.NewReader(body))
		req.Header.Set("Authorization", "Bearer "+login.AccessToken)
		res, err := http.DefaultClient.Do(req)
		if err != nil {
			t.Fatal(err)
		}
		defer res.Body.Close()
		b, _ := io.ReadAll(res.Body)
		return res.StatusCode, strings.TrimSpace(string(b))
	}
	for _, s := range []struct {
		method, path, body string
		status             int
		contains           string
	}{
		{"GET", "auth", "", 200, `"done"`},
		{"POST", "map", `{"id":"lakes","title":"Lakes","published":true}`, 201, `"Create Map lakes"`},
		{"POST", "resource", `{"id":"walk","title":"Walk","published":true,"mapIds":["lakes"]}`, 201, `"Create Resource walk"`},
		{"GET", "resource/walk/fields/mapIds", "", 200, `{"id":"walk","mapIds":["lakes"]}`},
		{"GET", "map/lakes/fields/resourceIds", "", 200, `{"id":"lakes","resourceIds":["walk"]}`},
		{"GET", "resource/mapId/lakes/limit/10/fields/id", "", 200, `[{"id":"walk"}]`},
		{"POST", "resource/clone/walk/map/lakes", "", 201, `"Cloned Resource walk to Resource walk-copy"`},
		{"GET", "resource/schema.json", "", 200, `"$schema"`},
		{"DELETE", "resource/walk", "", 202, `"done"`},
		{"GET", "resource/walk", "", 404, `"fail"`},
	} {
		if code, body := call(s.method, s.path, s.body); code != s.status || !strings.Contains(body, s.contains) {
			t.Fatalf("%s %s: %d %s; want %d with %s", s.method, s.path, code, body, s.status, s.contains)
		}
	}
	code, body := call("POST", "resource/batch", `[{"id":"b-1","title":"One","published":true},{"id":"b-2","title":"Two","published":true}]`)
	if code != 201 {
		t.Fatalf("batch: %d %s", code, body)
	}
	var receipt struct {
		BatchID string `json:"batchId"`
	}
	json.Unmarshal([]byte(body), &receipt)
	deadline := time.Now().Add(20 * time.Second)
	for {
		_, status := call("GET", "resource/batch/"+receipt.BatchID, "")
		if strings.Contains(status, `"status":"done"`) {
			break
		}
		if time.Now().After(deadline) {
			t.Fatalf("batch not done: %s", status)
		}
		time.Sleep(20 * time.Millisecond)
	}
	if code, body := call("GET", "resource/b-1,b-2/fields/title", ""); body != `[{"id":"b-1","title":"One"},{"id":"b-2","title":"Two"}]` {
		t.Errorf("batch records: %d %s", code, body)
	}
	if res, err := http.Get(srv.URL + "/hello"); err != nil || res.StatusCode != 200 {
		t.Errorf("host route: %v %v", res, err)
	}

	// The host's tables as they were; ours in bwcms alone.
	var email string
	var x int
	must(host.QueryRowContext(ctx, "SELECT email FROM public.users WHERE id = 1").Scan(&email))
	must(host.QueryRowContext(ctx, "SELECT x FROM public.records").Scan(&x))
	if email != "host@example.com" || x != 42 {
		t.Errorf("host rows changed: %q %d", email, x)
	}
	var cols, publicTables int
	must(host.QueryRowContext(ctx, "SELECT count(*) FROM information_schema.columns WHERE table_schema = 'public' AND table_name = 'users'").Scan(&cols))
	must(host.QueryRowContext(ctx, "SELECT count(*) FROM information_schema.tables WHERE table_schema = 'public'").Scan(&publicTables))
	if cols != 2 || publicTables != 3 {
		t.Errorf("public: users has %d columns, %d tables in all; want the host's 2 and 3", cols, publicTables)
	}
	var ours int
	must(host.QueryRowContext(ctx, "SELECT count(*) FROM information_schema.tables WHERE table_schema = 'bwcms' AND table_name IN ('users', 'records', 'settings', 'batches')").Scan(&ours))
	if ours != 4 {
		t.Errorf("bwcms holds %d of users, records, settings, batches", ours)
	}
}
