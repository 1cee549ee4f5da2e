package transport

import (
	"encoding/json"
	"fmt"
	"net/http"
	"net/http/httptest"
	"reflect"
	"strings"
	"testing"
	"time"

	"github.com/bwcms/cms/cms"
)

// sendWith sends a request with the access token tok (cached tokens
// aside: a test that holds tokens from before and after a change).
func (e *env) sendWith(tok, method, path, body string) *httptest.ResponseRecorder {
	e.t.Helper()
	r := httptest.NewRequest(method, path, strings.NewReader(body))
	if body != "" {
		r.Header.Set("Content-Type", "application/json")
	}
	r.Header.Set("Authorization", "Bearer "+tok)
	return e.do(r)
}

// readObject reads one record with tok and returns its fields.
func (e *env) readObject(tok, kind, id string) map[string]any {
	e.t.Helper()
	w := e.sendWith(tok, http.MethodGet, "/api/bw/v2/"+kind+"/"+id+"/published/*", "")
	if w.Code != http.StatusOK {
		e.t.Fatalf("read %s %s: %d %s", kind, id, w.Code, w.Body)
	}
	var rec map[string]any
	if err := json.Unmarshal(w.Body.Bytes(), &rec); err != nil {
		e.t.Fatal(err)
	}
	return rec
}

// A language added to an account: every record gets an alias in it, unique
// in the language, and tokens issued before read and write it at once;
// the schema follows at once; adding it again changes nothing.
func TestAddLanguage(t *testing.T) {
	forEachStore(t, func(t *testing.T, e *env) {
		ctx := t.Context()
		old := e.login("otto").AccessToken // account other: de only
		for _, body := range []string{
			`{"id":"r-1","title":"Berg"}`,
			`{"id":"r-2","title":"Berg"}`,
			`{"id":"r-3","title":"Tal","urlAlias":"/eigen"}`,
		} {
			if w := e.sendWith(old, http.MethodPost, "/api/bw/v2/resource", body); w.Code != http.StatusCreated {
				t.Fatalf("create %s: %d %s", body, w.Code, w.Body)
			}
		}
		if w := e.sendWith(old, http.MethodPost, "/api/bw/v2/map", `{"id":"m-1","title":"Karte"}`); w.Code != http.StatusCreated {
			t.Fatalf("create map: %d %s", w.Code, w.Body)
		}
		before := e.readObject(old, "resource", "r-1")

		// Refused: nothing changes.
		_, err := e.svc.AddLanguage(ctx, "other", "EN")
		if cms.ErrorCode(err) != cms.CodeInvalid {
			t.Fatalf("AddLanguage EN: %v, want invalid", err)
		}
		if _, err := e.svc.AddLanguage(ctx, "nope", "en"); cms.ErrorCode(err) != cms.CodeNotFound {
			t.Fatalf("AddLanguage to no account: %v, want not found", err)
		}
		if acc, _ := e.svc.Account(ctx, "other"); acc.Langs.String() != "de" {
			t.Fatalf("refused AddLanguage changed the account: %s", acc.Langs)
		}

		e.clock.Advance(time.Minute)
		made, err := e.svc.AddLanguage(ctx, "other", "en")
		if err != nil || made != 4 {
			t.Fatalf("AddLanguage en: %d, %v; want 4 records", made, err)
		}
		if acc, _ := e.svc.Account(ctx, "other"); acc.Langs.String() != "de,en" {
			t.Fatalf("account languages after AddLanguage: %s", acc.Langs)
		}
		fresh := e.login("otto").AccessToken
		wantAliases := map[string]string{"r-1": "/berg", "r-2": "/berg-2", "r-3": "/eigen"}
		for id, want := range wantAliases {
			rec := e.readObject(fresh, "resource", id)
			if rec["urlAlias_en"] != want {
				t.Errorf("%s urlAlias_en = %v, want %s (from the default language's alias)", id, rec["urlAlias_en"], want)
			}
			if v, ok := rec["title_en"]; !ok || v != "" {
				t.Errorf("%s title_en = %q (present %v), want \"\" as a record made without one", id, v, ok)
			}
		}
		if m := e.readObject(fresh, "map", "m-1"); m["urlAlias_en"] != "/karte" {
			t.Errorf("map urlAlias_en = %v", m["urlAlias_en"])
		}
		after := e.readObject(fresh, "resource", "r-1")
		if after["timeLastUpdate"] == before["timeLastUpdate"] {
			t.Errorf("a record given an alias kept its timeLastUpdate %v", after["timeLastUpdate"])
		}

		// A token from before reads and writes the account's languages of
		// now (TestLanguagesFollowAccount).
		if rec := e.readObject(old, "resource", "r-1"); rec["urlAlias_en"] != "/berg" {
			t.Errorf("a token from before reads urlAlias_en %v, want /berg", rec["urlAlias_en"])
		}
		// The schema follows the account at once, whatever the token.
		w := e.sendWith(old, http.MethodGet, "/api/bw/v2/resource/schema.json", "")
		if w.Code != http.StatusOK || !strings.Contains(w.Body.String(), `"title_en"`) {
			t.Errorf("schema with a token from before: %d, has title_en: %v", w.Code, strings.Contains(w.Body.String(), `"title_en"`))
		}

		// A record made meanwhile with the old token gets its alias in en
		// at once; adding the language again changes nothing.
		if w := e.sendWith(old, http.MethodPost, "/api/bw/v2/resource", `{"id":"r-4","title":"Berg"}`); w.Code != http.StatusCreated {
			t.Fatalf("create r-4: %d %s", w.Code, w.Body)
		}
		if rec := e.readObject(fresh, "resource", "r-4"); rec["urlAlias_en"] != "/berg-3" {
			t.Errorf("r-4 urlAlias_en = %v, want /berg-3", rec["urlAlias_en"])
		}
		etag := e.sendWith(fresh, http.MethodGet, "/api/bw/v2/resource/r-1/published/*", "").Header().Get("ETag")
		made, err = e.svc.AddLanguage(ctx, "other", "en")
		if err != nil || made != 0 {
			t.Fatalf("AddLanguage en again: %d, %v; want 0", made, err)
		}
		if got := e.sendWith(fresh, http.MethodGet, "/api/bw/v2/resource/r-1/published/*", "").Header().Get("ETag"); got != etag {
			t.Errorf("AddLanguage again changed r-1 (ETag %s -> %s)", etag, got)
		}
		if acc, _ := e.svc.Account(ctx, "other"); acc.Langs.String() != "de,en" {
			t.Errorf("account languages after the second AddLanguage: %s", acc.Langs)
		}
		// The aliases are unique in their language: a new record titled
		// Berg in en is numbered after them.
		if w := e.sendWith(fresh, http.MethodPost, "/api/bw/v2/resource", `{"id":"r-5","title":"Berg","title_en":"Berg"}`); w.Code != http.StatusCreated {
			t.Fatalf("create r-5: %d %s", w.Code, w.Body)
		}
		if rec := e.readObject(fresh, "resource", "r-5"); rec["urlAlias_en"] != "/berg-4" {
			t.Errorf("r-5 urlAlias_en = %v, want /berg-4", rec["urlAlias_en"])
		}
	})
}

// The default language changes what the bare names address; stored values
// stay with their language.
func TestSetDefaultLanguage(t *testing.T) {
	forEachStore(t, func(t *testing.T, e *env) {
		ctx := t.Context()
		w := e.send("admin", http.MethodPost, "/api/bw/v2/resource", `{"id":"r-1","title":"Hill","title_it":"Colle"}`, nil)
		if w.Code != http.StatusCreated {
			t.Fatalf("create: %d %s", w.Code, w.Body)
		}
		if err := e.svc.SetDefaultLanguage(ctx, "acme", "fr"); cms.ErrorCode(err) != cms.CodeInvalid {
			t.Fatalf("SetDefaultLanguage fr (not configured): %v, want invalid", err)
		}
		if err := e.svc.SetDefaultLanguage(ctx, "nope", "en"); cms.ErrorCode(err) != cms.CodeNotFound {
			t.Fatalf("SetDefaultLanguage of no account: %v, want not found", err)
		}
		if acc, _ := e.svc.Account(ctx, "acme"); acc.Langs.String() != "en,it,de" {
			t.Fatalf("refused SetDefaultLanguage changed the account: %s", acc.Langs)
		}
		if err := e.svc.SetDefaultLanguage(ctx, "acme", "it"); err != nil {
			t.Fatal(err)
		}
		if acc, _ := e.svc.Account(ctx, "acme"); acc.Langs.String() != "it,en,de" {
			t.Fatalf("after SetDefaultLanguage it: %s", acc.Langs)
		}
		tok := e.login("admin").AccessToken
		rec := e.readObject(tok, "resource", "r-1")
		want := map[string]any{"title": "Colle", "title_en": "Hill", "urlAlias": "/colle", "urlAlias_en": "/hill"}
		got := map[string]any{}
		for k := range want {
			got[k] = rec[k]
		}
		if _, ok := rec["title_it"]; ok {
			t.Errorf("title_it is still a field with it the default: %v", rec)
		}
		if !reflect.DeepEqual(got, want) {
			t.Errorf("read after the change: %v, want %v", got, want)
		}
	})
}

// A deleted user can no longer log in, refresh or use its access token;
// others are untouched; the name can be used again.
func TestDeleteUser(t *testing.T) {
	forEachStore(t, func(t *testing.T, e *env) {
		ctx := t.Context()
		a := e.login("writer")
		if err := e.svc.DeleteUser(ctx, "writer"); err != nil {
			t.Fatal(err)
		}
		if w := e.validateWith(a.AccessToken); w.Code != http.StatusUnauthorized {
			t.Errorf("access token of a deleted user: %d %s", w.Code, w.Body)
		}
		if w := e.refreshWith(a.RefreshToken); w.Code != http.StatusUnauthorized {
			t.Errorf("refresh of a deleted user: %d %s", w.Code, w.Body)
		}
		if w := e.do(postForm("/api/bw/v2/auth", form("u", "writer", "p", testPassword))); w.Code != http.StatusUnauthorized {
			t.Errorf("login of a deleted user: %d %s", w.Code, w.Body)
		}
		if err := e.svc.DeleteUser(ctx, "writer"); cms.ErrorCode(err) != cms.CodeNotFound {
			t.Errorf("DeleteUser again: %v, want not found", err)
		}
		if w := e.validateWith(e.login("reader").AccessToken); w.Code != http.StatusOK {
			t.Errorf("another user after the delete: %d", w.Code)
		}
		users, err := e.svc.Users(ctx, "acme")
		if err != nil {
			t.Fatal(err)
		}
		for _, u := range users {
			if u.Name == "writer" {
				t.Errorf("Users still lists writer")
			}
		}
		e.clock.Advance(time.Minute) // the name given again a minute later
		if err := e.svc.CreateUser(ctx, cms.NewUser{Name: "writer", Account: "acme", Password: testPassword, Perms: []string{"map:read"}}); err != nil {
			t.Fatal(err)
		}
		if w := e.refreshWith(a.RefreshToken); w.Code != http.StatusUnauthorized {
			t.Errorf("the old refresh token works for the new writer: %d", w.Code)
		}
		if w := e.validateWith(a.AccessToken); w.Code != http.StatusUnauthorized {
			t.Errorf("the deleted writer's access token works for the new writer: %d %s", w.Code, w.Body)
		}
		if w := e.validateWith(e.login("writer").AccessToken); w.Code != http.StatusOK {
			t.Errorf("the new writer's own token: %d %s", w.Code, w.Body)
		}
	})
}

// Adding a language to an account with more records than one transaction
// takes: every record gets an alias, each unique, none twice.
func TestAddLanguageInChunks(t *testing.T) {
	forEachStore(t, func(t *testing.T, e *env) {
		tok := e.login("otto").AccessToken
		const n = 600 // more than two chunks
		for i := range n {
			body := fmt.Sprintf(`{"id":"r-%03d","title":"Gleich"}`, i)
			if w := e.sendWith(tok, http.MethodPost, "/api/bw/v2/resource", body); w.Code != http.StatusCreated {
				t.Fatalf("create %d: %d %s", i, w.Code, w.Body)
			}
		}
		made, err := e.svc.AddLanguage(t.Context(), "other", "en")
		if err != nil || made != n {
			t.Fatalf("AddLanguage: %d, %v; want %d", made, err, n)
		}
		fresh := e.login("otto").AccessToken
		w := e.sendWith(fresh, http.MethodGet, "/api/bw/v2/resource/published/*", "")
		var recs []map[string]any
		if err := json.Unmarshal(w.Body.Bytes(), &recs); err != nil || len(recs) != n {
			t.Fatalf("list: %d records, %v", len(recs), err)
		}
		seen := map[any]string{}
		for _, r := range recs {
			alias := r["urlAlias_en"]
			if alias == nil || alias == "" {
				t.Fatalf("%v has no urlAlias_en", r["id"])
			}
			if other, ok := seen[alias]; ok {
				t.Fatalf("%v and %v share urlAlias_en %v", other, r["id"], alias)
			}
			seen[alias] = r["id"].(string)
			if alias != r["urlAlias"] {
				t.Errorf("%v: urlAlias_en %v, want its default alias %v (same stem, same numbering)", r["id"], alias, r["urlAlias"])
			}
		}
	})
}
