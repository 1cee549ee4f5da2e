package main

import (
	"encoding/json"
	"io"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"net/url"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

// TestEmbed runs the host application with the API mounted beside its own
// routes: both answer, the host's middleware wraps the API, and a record
// goes in and comes out.
func TestEmbed(t *testing.T) {
	t.Parallel()
	app, closeApp, err := newApp(t.Context(), filepath.Join(t.TempDir(), "embed.db"), slog.New(slog.DiscardHandler))
	if err != nil {
		t.Fatal(err)
	}
	defer closeApp()
	srv := httptest.NewServer(app)
	defer srv.Close()

	res, err := http.Get(srv.URL + "/hello")
	if err != nil {
		t.Fatal(err)
	}
	body, _ := io.ReadAll(res.Body)
	res.Body.Close()
	if strings.TrimSpace(string(body)) != "hello from the host" {
		t.Errorf("host route: %q", body)
	}

	res, err = http.PostForm(srv.URL+"/api/bw/v2/auth", url.Values{"u": {"editor"}, "p": {"editor password"}})
	if err != nil {
		t.Fatal(err)
	}
	var login struct {
		AccessToken string `json:"access_token"`
	}
	json.NewDecoder(res.Body).Decode(&login)
	res.Body.Close()
	if res.StatusCode != 200 || login.AccessToken == "" || res.Header.Get("X-Request-Id") == "" {
		t.Fatalf("login through the host: %d, middleware header %q", res.StatusCode, res.Header.Get("X-Request-Id"))
	}
	do := func(method, path, body string) (int, string) {
		req, _ := http.NewRequest(method, srv.URL+path, strings.NewReader(body))
		req.Header.Set("Authorization", "Bearer "+login.AccessToken)
		res, err := http.DefaultClient.Do(req)
		if err != nil {
			t.Fatal(err)
		}
		defer res.Body.Close()
		b, _ := io.ReadAll(res.Body)
		return res.StatusCode, strings.TrimSpace(string(b))
	}
	if code, body := do("POST", "/api/bw/v2/resource", `{"id":"shop-1","title":"Shop","title_it":"Negozio","published":true}`); code != 201 {
		t.Fatalf("create: %d %s", code, body)
	}
	if code, body := do("GET", "/api/bw/v2/resource/shop-1/fields/title_it", ""); code != 200 || body != `{"id":"shop-1","title_it":"Negozio"}` {
		t.Errorf("read: %d %s", code, body)
	}
	if code, body := do("GET", "/api/bw/v2/nothing", ""); code != 404 || body != `{"fail":"Not found"}` {
		t.Errorf("unknown API path: %d %s", code, body)
	}

	// A batch is applied by the workers the host started with the app.
	code, answer := do("POST", "/api/bw/v2/resource/batch", `[{"id":"shop-2","title":"Two"},{"id":"shop-3","title":"Three"}]`)
	if code != 201 {
		t.Fatalf("batch: %d %s", code, answer)
	}
	var receipt struct {
		BatchID string `json:"batchId"`
	}
	json.Unmarshal([]byte(answer), &receipt)
	deadline := time.Now().Add(10 * time.Second)
	for {
		code, answer = do("GET", "/api/bw/v2/resource/batch/"+receipt.BatchID, "")
		if code == 200 && strings.Contains(answer, `"status":"done"`) {
			break
		}
		if time.Now().After(deadline) {
			t.Fatalf("batch not done: %d %s", code, answer)
		}
		time.Sleep(10 * time.Millisecond)
	}
	if code, body := do("GET", "/api/bw/v2/resource/shop-3/published/*/fields/title", ""); code != 200 || body != `{"id":"shop-3","title":"Three"}` {
		t.Errorf("a record of the batch: %d %s", code, body)
	}
}
