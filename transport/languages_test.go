package transport

import (
	"encoding/json"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
)

// sendIfMatch sends a POST with tok and an If-Match header.
func (e *env) sendIfMatch(tok, path, body, etag string) *httptest.ResponseRecorder {
	e.t.Helper()
	r := httptest.NewRequest(http.MethodPost, path, strings.NewReader(body))
	r.Header.Set("Content-Type", "application/json")
	r.Header.Set("Authorization", "Bearer "+tok)
	r.Header.Set("If-Match", etag)
	return e.do(r)
}

// TestLanguagesFollowAccount: a token issued before a language was added
// reads and writes the account's languages of now: it reads the new
// language's fields, posts a record read back as a Skip, writes the new
// language and gets a new record's alias in it. The ETag changes with
// the account's languages: an If-Match from before a change of the
// default language is 412 and stores nothing.
func TestLanguagesFollowAccount(t *testing.T) {
	t.Parallel()
	forEachStore(t, func(t *testing.T, e *env) {
		ctx := t.Context()
		old := e.login("otto").AccessToken // account other: de only
		if w := e.sendWith(old, http.MethodPost, "/api/bw/v2/resource", `{"id":"r-1","title":"Berg"}`); w.Code != http.StatusCreated {
			t.Fatalf("create: %d %s", w.Code, w.Body)
		}
		if _, err := e.svc.AddLanguage(ctx, "other", "en"); err != nil {
			t.Fatal(err)
		}
		read := e.readObject(old, "resource", "r-1")
		if read["urlAlias_en"] != "/berg" || read["title_en"] != "" {
			t.Errorf("read with the token from before: urlAlias_en %v, title_en %v", read["urlAlias_en"], read["title_en"])
		}
		body, _ := json.Marshal(read)
		if w := e.sendWith(old, http.MethodPost, "/api/bw/v2/resource", string(body)); w.Code != http.StatusOK {
			t.Errorf("posting back what was read: %d %s, want 200 Skip", w.Code, w.Body)
		}
		if w := e.sendWith(old, http.MethodPost, "/api/bw/v2/resource", `{"id":"r-2","title":"Tal","title_en":"Valley"}`); w.Code != http.StatusCreated {
			t.Fatalf("create with title_en: %d %s", w.Code, w.Body)
		}
		if rec := e.readObject(old, "resource", "r-2"); rec["title_en"] != "Valley" || rec["urlAlias_en"] != "/valley" {
			t.Errorf("r-2: title_en %v, urlAlias_en %v", rec["title_en"], rec["urlAlias_en"])
		}

		// A form opened before the default language changed.
		etag := e.sendWith(old, http.MethodGet, "/api/bw/v2/resource/r-1/published/*", "").Header().Get("ETag")
		if err := e.svc.SetDefaultLanguage(ctx, "other", "en"); err != nil {
			t.Fatal(err)
		}
		w := e.sendIfMatch(old, "/api/bw/v2/resource", `{"id":"r-1","title":"Berg!"}`, etag)
		if w.Code != http.StatusPreconditionFailed || w.Body.String() != `{"fail":"Precondition failed"}`+"\n" {
			t.Errorf("If-Match from before the default changed: %d %s, want 412", w.Code, w.Body)
		}
		rec := e.readObject(old, "resource", "r-1")
		if rec["title"] != "" || rec["title_de"] != "Berg" {
			t.Errorf("after the refused save: title %v, title_de %v", rec["title"], rec["title_de"])
		}
		now := e.sendWith(old, http.MethodGet, "/api/bw/v2/resource/r-1/published/*", "").Header().Get("ETag")
		if now == etag {
			t.Fatalf("ETag %s unchanged by the default language's change", etag)
		}
		w = e.sendIfMatch(old, "/api/bw/v2/resource", `{"id":"r-1","title":"Mountain"}`, now)
		if w.Code != http.StatusAccepted {
			t.Errorf("If-Match of now: %d %s", w.Code, w.Body)
		}
		if rec := e.readObject(old, "resource", "r-1"); rec["title"] != "Mountain" || rec["title_de"] != "Berg" {
			t.Errorf("saved: title %v, title_de %v", rec["title"], rec["title_de"])
		}
		if acc, _ := e.svc.Account(ctx, "other"); acc.Langs.String() != "en,de" {
			t.Errorf("account languages: %s", acc.Langs)
		}
	})
}
