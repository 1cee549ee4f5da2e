package transport

import (
	"crypto/sha256"
	"encoding/json"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/bwcms/cms/cms"
)

func decodeTokens(t *testing.T, w *httptest.ResponseRecorder) tokenAnswer {
	t.Helper()
	if w.Code != 200 {
		t.Fatalf("refresh: %d %s", w.Code, w.Body)
	}
	var a tokenAnswer
	if err := json.Unmarshal(w.Body.Bytes(), &a); err != nil {
		t.Fatal(err)
	}
	return a
}

func wantInvalidGrant(t *testing.T, what string, w *httptest.ResponseRecorder) {
	t.Helper()
	if w.Code != 401 || strings.TrimSpace(w.Body.String()) != invalidGrant {
		t.Errorf("%s: %d %s, want 401 %s", what, w.Code, w.Body, invalidGrant)
	}
	if got := w.Header().Get("Cache-Control"); got != "no-store" {
		t.Errorf("%s: Cache-Control = %q", what, got)
	}
}

func storedToken(t *testing.T, e *env, token string) cms.RefreshToken {
	t.Helper()
	h := sha256.Sum256([]byte(token))
	rt, err := e.store.GetRefreshToken(t.Context(), h[:])
	if err != nil {
		t.Fatal(err)
	}
	return rt
}

func TestRefreshRotation(t *testing.T) {
	t.Parallel()
	e := newEnv(t, envOptions{})
	first := e.login("admin").RefreshToken
	e.clock.Advance(time.Minute)
	w := e.refreshWith(first)
	a := decodeTokens(t, w)
	if a.RefreshToken == first || len(a.RefreshToken) != 43 || a.TokenType != "Bearer" || a.ExpiresIn != 900 {
		t.Errorf("refresh answer: %+v", a)
	}
	var keys map[string]any
	json.Unmarshal(w.Body.Bytes(), &keys)
	if len(keys) != 4 {
		t.Errorf("refresh answer keys: %v, want access_token, refresh_token, token_type, expires_in", keys)
	}
	wantCookie := "bw_rtoken=" + a.RefreshToken + "; Path=/api/bw/v2/auth; Max-Age=604800; HttpOnly; Secure; SameSite=Strict"
	if got := w.Header().Get("Set-Cookie"); got != wantCookie {
		t.Errorf("Set-Cookie = %q", got)
	}
	if w.Header().Get("Cache-Control") != "no-store" {
		t.Error("refresh answer may be stored")
	}
	if got := e.validateWith(a.AccessToken); got.Code != 200 {
		t.Errorf("new access token: %d", got.Code)
	}
	old, next := storedToken(t, e, first), storedToken(t, e, a.RefreshToken)
	if old.Used.IsZero() || next.Family != old.Family || string(next.Parent) != string(old.Hash) {
		t.Errorf("stored: old %+v next %+v", old, next)
	}

	// Reuse of the spent token after the grace period revokes the family:
	// the newer token fails too.
	e.clock.Advance(11 * time.Second)
	wantInvalidGrant(t, "reuse", e.refreshWith(first))
	wantInvalidGrant(t, "newer token after reuse", e.refreshWith(a.RefreshToken))
	if storedToken(t, e, a.RefreshToken).Revoked.IsZero() {
		t.Error("the family's newest token is not revoked")
	}
	// Another login is a new family and works.
	decodeTokens(t, e.refreshWith(e.login("admin").RefreshToken))
}

func TestRefreshGrace(t *testing.T) {
	t.Parallel()
	e := newEnv(t, envOptions{})
	first := e.login("admin").RefreshToken
	a := decodeTokens(t, e.refreshWith(first))
	// A second tab presents the same token 5 s later: a fresh pair.
	e.clock.Advance(5 * time.Second)
	b := decodeTokens(t, e.refreshWith(first))
	if b.RefreshToken == a.RefreshToken || b.RefreshToken == first {
		t.Error("the grace answer reused a token")
	}
	decodeTokens(t, e.refreshWith(a.RefreshToken))
	decodeTokens(t, e.refreshWith(b.RefreshToken))
	// At 10 s the grace is over: reuse.
	e.clock.Advance(5 * time.Second)
	wantInvalidGrant(t, "reuse at 10 s", e.refreshWith(first))
}

// TestConcurrentRefresh: 20 refreshes with one token at once, without
// grace, give exactly one 200; the others are reuse and revoke the family,
// the winner's new token included. With the default grace all succeed.
func TestConcurrentRefresh(t *testing.T) {
	t.Parallel()
	for _, st := range stores {
		t.Run(st.name, func(t *testing.T) {
			t.Parallel()
			for _, grace := range []time.Duration{cms.NoGrace, 0} {
				e := newEnv(t, envOptions{store: st.open, svc: func(o *cms.Options) { o.RefreshGrace = grace }})
				token := e.login("admin").RefreshToken
				var wg sync.WaitGroup
				codes := make([]int, 20)
				bodies := make([]string, 20)
				for i := range codes {
					wg.Go(func() {
						w := e.refreshWith(token)
						codes[i], bodies[i] = w.Code, w.Body.String()
					})
				}
				wg.Wait()
				ok := 0
				var winner string
				for i, c := range codes {
					switch c {
					case 200:
						ok++
						var a tokenAnswer
						json.Unmarshal([]byte(bodies[i]), &a)
						winner = a.RefreshToken
					case 401:
					default:
						t.Fatalf("status %d: %s", c, bodies[i])
					}
				}
				if grace == cms.NoGrace {
					if ok != 1 {
						t.Fatalf("no grace: %d successes, want 1", ok)
					}
					wantInvalidGrant(t, "winner's token after reuse", e.refreshWith(winner))
				} else if ok != 20 {
					t.Fatalf("with grace: %d successes, want 20", ok)
				}
			}
		})
	}
}

func TestRefreshRefusals(t *testing.T) {
	t.Parallel()
	cases := []struct {
		name  string
		token func(t *testing.T, e *env) string
	}{
		{"no token", func(*testing.T, *env) string { return "" }},
		{"unknown token", func(*testing.T, *env) string { return strings.Repeat("A", 43) }},
		{"not base64url", func(*testing.T, *env) string { return strings.Repeat("*", 43) }},
		{"access token", func(_ *testing.T, e *env) string { return e.login("admin").AccessToken }},
		{"after logout", func(t *testing.T, e *env) string {
			tok := e.login("admin").RefreshToken
			r := httptest.NewRequest(http.MethodPost, "/api/bw/v2/auth/logout", nil)
			r.AddCookie(&http.Cookie{Name: RefreshCookie, Value: tok})
			if w := e.do(r); w.Code != 200 {
				t.Fatalf("logout: %d", w.Code)
			}
			return tok
		}},
		{"after a password change", func(t *testing.T, e *env) string {
			tok := e.login("writer").RefreshToken
			if err := e.svc.SetPassword(t.Context(), "writer", "a new password"); err != nil {
				t.Fatal(err)
			}
			return tok
		}},
		{"disabled user", func(t *testing.T, e *env) string {
			tok := e.login("writer").RefreshToken
			if err := e.svc.SetDisabled(t.Context(), "writer", true); err != nil {
				t.Fatal(err)
			}
			return tok
		}},
		{"disabled and enabled again: the family stays revoked", func(t *testing.T, e *env) string {
			tok := e.login("writer").RefreshToken
			if err := e.svc.SetDisabled(t.Context(), "writer", true); err != nil {
				t.Fatal(err)
			}
			if err := e.svc.SetDisabled(t.Context(), "writer", false); err != nil {
				t.Fatal(err)
			}
			return tok
		}},
		{"idle for 7 days", func(t *testing.T, e *env) string {
			tok := e.login("admin").RefreshToken
			e.clock.Advance(7 * 24 * time.Hour)
			return tok
		}},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			t.Parallel()
			e := newEnv(t, envOptions{})
			wantInvalidGrant(t, c.name, e.refreshWith(c.token(t, e)))
		})
	}
}

func TestRefreshAbsoluteLifetime(t *testing.T) {
	t.Parallel()
	e := newEnv(t, envOptions{})
	tok := e.login("admin").RefreshToken
	for day := 6; day <= 24; day += 6 {
		e.clock.Advance(6 * 24 * time.Hour)
		w := e.refreshWith(tok)
		tok = decodeTokens(t, w).RefreshToken
		// The cookie lives for the lesser of 7 days and what is left of 30.
		left := min(7*24*60*60, (30-day)*24*60*60)
		if want := "Max-Age=" + itoa(left) + ";"; !strings.Contains(w.Header().Get("Set-Cookie"), want) {
			t.Errorf("day %d: Set-Cookie %q, want %s", day, w.Header().Get("Set-Cookie"), want)
		}
	}
	e.clock.Advance(6 * 24 * time.Hour) // day 30
	wantInvalidGrant(t, "day 30", e.refreshWith(tok))
}

func itoa(n int) string { b, _ := json.Marshal(n); return string(b) }

func TestRefreshSources(t *testing.T) {
	t.Parallel()
	e := newEnv(t, envOptions{})
	// The form field works for non-browser clients.
	tok := e.login("admin").RefreshToken
	tok = decodeTokens(t, e.do(postForm("/api/bw/v2/auth/refresh", form("refresh_token", tok)))).RefreshToken
	// The cookie wins over the form field.
	r := postForm("/api/bw/v2/auth/refresh", form("refresh_token", "garbage"))
	r.AddCookie(&http.Cookie{Name: RefreshCookie, Value: tok})
	tok = decodeTokens(t, e.do(r)).RefreshToken
	// Perms changed since are in the next token.
	if err := e.svc.SetPerms(t.Context(), "admin", []string{"map:read", "resource:*"}); err != nil {
		t.Fatal(err)
	}
	a := decodeTokens(t, e.refreshWith(tok))
	var got struct {
		JWT Claims `json:"jwt"`
	}
	json.Unmarshal(e.validateWith(a.AccessToken).Body.Bytes(), &got)
	if strings.Join(got.JWT.Perms, ",") != "map:read,resource:*" {
		t.Errorf("perms after refresh: %v", got.JWT.Perms)
	}
	// A cross-site refresh is refused before the token is spent.
	r = httptest.NewRequest(http.MethodPost, "/api/bw/v2/auth/refresh", nil)
	r.Header.Set("Sec-Fetch-Site", "cross-site")
	r.AddCookie(&http.Cookie{Name: RefreshCookie, Value: a.RefreshToken})
	if w := e.do(r); w.Code != 403 || strings.TrimSpace(w.Body.String()) != `{"fail":"Forbidden"}` {
		t.Fatalf("cross-site: %d %s", w.Code, w.Body)
	}
	if !storedToken(t, e, a.RefreshToken).Used.IsZero() {
		t.Fatal("a cross-site refresh spent the token")
	}
	// A body over 64 KiB is refused even with the cookie.
	r = postForm("/api/bw/v2/auth/refresh", form("pad", strings.Repeat("x", 64<<10)))
	r.AddCookie(&http.Cookie{Name: RefreshCookie, Value: a.RefreshToken})
	if w := e.do(r); w.Code != 413 || strings.TrimSpace(w.Body.String()) != `{"fail":"Request too large"}` {
		t.Errorf("oversized: %d %s", w.Code, w.Body)
	}
	decodeTokens(t, e.refreshWith(a.RefreshToken))
}

func TestLogout(t *testing.T) {
	t.Parallel()
	e := newEnv(t, envOptions{})
	const loggedOut = `{"message":"Successfully logged out"}`
	const expired = "bw_rtoken=; Path=/api/bw/v2/auth; Max-Age=0; HttpOnly; Secure; SameSite=Strict"
	check := func(what string, r *http.Request) {
		t.Helper()
		w := e.do(r)
		if w.Code != 200 || strings.TrimSpace(w.Body.String()) != loggedOut {
			t.Errorf("%s: %d %s", what, w.Code, w.Body)
		}
		if got := w.Header().Get("Set-Cookie"); got != expired {
			t.Errorf("%s: Set-Cookie %q", what, got)
		}
	}
	check("no token at all", httptest.NewRequest(http.MethodPost, "/api/bw/v2/auth/logout", nil))
	check("unknown token", postForm("/api/bw/v2/auth/logout", form("refresh_token", "nonsense")))
	check("malformed body", postForm("/api/bw/v2/auth/logout", "%zz"))
	// A token's whole family goes: the rotated successor as well.
	first := e.login("admin").RefreshToken
	next := decodeTokens(t, e.refreshWith(first)).RefreshToken
	check("by form field", postForm("/api/bw/v2/auth/logout", form("refresh_token", next)))
	wantInvalidGrant(t, "after logout", e.refreshWith(next))
	// Cross-site: refused, nothing revoked.
	tok := e.login("admin").RefreshToken
	r := httptest.NewRequest(http.MethodPost, "/api/bw/v2/auth/logout", nil)
	r.Header.Set("Sec-Fetch-Site", "cross-site")
	r.AddCookie(&http.Cookie{Name: RefreshCookie, Value: tok})
	if w := e.do(r); w.Code != 403 {
		t.Errorf("cross-site logout: %d", w.Code)
	}
	decodeTokens(t, e.refreshWith(tok))
}
