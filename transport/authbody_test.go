package transport

import (
	"log/slog"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"testing"
	"time"
)

// postJSON is a POST of body with Content-Type application/json.
func postJSON(path, body string) *http.Request {
	r := httptest.NewRequest(http.MethodPost, path, strings.NewReader(body))
	r.Header.Set("Content-Type", "application/json")
	return r
}

// TestJSONLogin: with Content-Type application/json, u and p come from a
// JSON object; every body that is not one answers as a wrong password
// does, and only a login that names a user is counted.
func TestJSONLogin(t *testing.T) {
	t.Parallel()
	refused := map[string]string{"Cache-Control": "no-store", "WWW-Authenticate": challenge}
	login := func(body string) func(*env) *http.Request {
		return func(*env) *http.Request { return postJSON("/api/bw/v2/auth", body) }
	}
	scenarios := []scenario{
		{name: "right password", status: 200, req: login(`{"u":"admin","p":"` + testPassword + `"}`),
			headers: map[string]string{"Cache-Control": "no-store"},
			check: func(t *testing.T, e *env, w *httptest.ResponseRecorder) {
				a := decodeTokens(t, w)
				if a.Done != "JWT generated" || a.JWT != a.AccessToken || len(a.RefreshToken) != 43 {
					t.Errorf("answer = %+v", a)
				}
				if !strings.HasPrefix(w.Header().Get("Set-Cookie"), "bw_rtoken="+a.RefreshToken+";") {
					t.Errorf("Set-Cookie = %q", w.Header().Get("Set-Cookie"))
				}
				if w := e.validateWith(a.AccessToken); w.Code != 200 {
					t.Errorf("the access token: %d %s", w.Code, w.Body)
				}
			}},
		{name: "charset parameter and other fields", status: 200,
			req: func(*env) *http.Request {
				r := postJSON("/api/bw/v2/auth", ` {"remember":true,"p":"`+testPassword+`","u":"admin","extra":{"a":[1,null]}} `)
				r.Header.Set("Content-Type", "application/json; charset=utf-8")
				return r
			}},
		{name: "escaped characters", status: 200, req: login(`{"u":"\u0061dmin","p":"` + testPassword + `"}`)},
		{name: "wrong password", status: 401, body: unauthorized, headers: refused,
			req: login(`{"u":"admin","p":"wrong password"}`), check: wantFailures("admin", 1)},
		{name: "unknown user", status: 401, body: unauthorized, headers: refused,
			req: login(`{"u":"nobody","p":"` + testPassword + `"}`), check: wantFailures("nobody", 1)},
		{name: "disabled user", status: 401, body: unauthorized, headers: refused,
			req: login(`{"u":"off","p":"` + testPassword + `"}`)},
		{name: "no p", status: 401, body: unauthorized, headers: refused, req: login(`{"u":"admin"}`),
			check: wantFailures("admin", 0)},
		{name: "u given twice", status: 401, body: unauthorized, headers: refused,
			req: login(`{"u":"reader","u":"admin","p":"` + testPassword + `"}`)},
		{name: "p is a number", status: 401, body: unauthorized, headers: refused,
			req: login(`{"u":"admin","p":12345678}`), check: wantFailures("admin", 0)},
		{name: "p is null", status: 401, body: unauthorized, headers: refused, req: login(`{"u":"admin","p":null}`)},
		{name: "an array", status: 401, body: unauthorized, headers: refused,
			req: login(`["admin","` + testPassword + `"]`)},
		{name: "malformed", status: 401, body: unauthorized, headers: refused,
			req: login(`{"u":"admin","p":"` + testPassword)},
		{name: "data after the object", status: 401, body: unauthorized, headers: refused,
			req: login(`{"u":"admin","p":"` + testPassword + `"} {}`)},
		{name: "empty body", status: 401, body: unauthorized, headers: refused, req: login(``)},
		{name: "form body sent as JSON", status: 401, body: unauthorized, headers: refused,
			req: login(form("u", "admin", "p", testPassword))},
		{name: "another content type", status: 401, body: unauthorized, headers: refused,
			req: func(*env) *http.Request {
				r := httptest.NewRequest(http.MethodPost, "/api/bw/v2/auth", strings.NewReader(`{"u":"admin","p":"`+testPassword+`"}`))
				r.Header.Set("Content-Type", "text/plain")
				return r
			}},
		{name: "over 64 KiB", status: 413, body: `{"fail":"Request too large"}`,
			req:   login(`{"u":"admin","p":"wrong","pad":"` + strings.Repeat("x", 64<<10) + `"}`),
			check: wantFailures("admin", 0)},
		{name: "cross-site", status: 403, body: `{"fail":"Forbidden"}`,
			req: func(*env) *http.Request {
				r := postJSON("/api/bw/v2/auth", `{"u":"admin","p":"wrong"}`)
				r.Header.Set("Sec-Fetch-Site", "cross-site")
				return r
			},
			check: wantFailures("admin", 0)},
	}
	for _, sc := range scenarios {
		t.Run(sc.name, func(t *testing.T) {
			t.Parallel()
			sc.run(t, newEnv(t, envOptions{}))
		})
	}
}

// TestJSONLoginRefusalIsAFormRefusal: a JSON login with a wrong password
// gets the very answer of a form login with one.
func TestJSONLoginRefusalIsAFormRefusal(t *testing.T) {
	t.Parallel()
	e := newEnv(t, envOptions{})
	byForm := e.do(postForm("/api/bw/v2/auth", form("u", "admin", "p", "wrong password")))
	byJSON := e.do(postJSON("/api/bw/v2/auth", `{"u":"admin","p":"wrong password"}`))
	notJSON := e.do(postJSON("/api/bw/v2/auth", `{"u":"admin","p":`))
	for _, w := range []*httptest.ResponseRecorder{byForm, byJSON, notJSON} {
		w.Header().Del("Date")
	}
	for name, w := range map[string]*httptest.ResponseRecorder{"JSON": byJSON, "malformed JSON": notJSON} {
		if w.Code != byForm.Code || w.Body.String() != byForm.Body.String() || !equalHeaders(w.Header(), byForm.Header()) {
			t.Errorf("%s: %d %v %q differs from the form's %d %v %q", name, w.Code, w.Header(), w.Body,
				byForm.Code, byForm.Header(), byForm.Body)
		}
	}
}

// TestJSONLoginThrottling: JSON and form logins count in one window: five
// failures, whichever their form, hold off the sixth attempt of either.
func TestJSONLoginThrottling(t *testing.T) {
	t.Parallel()
	e := newEnv(t, envOptions{})
	for i := range 5 {
		var w *httptest.ResponseRecorder
		if i%2 == 0 {
			w = e.do(postJSON("/api/bw/v2/auth", `{"u":"admin","p":"wrong password"}`))
		} else {
			w = e.do(postForm("/api/bw/v2/auth", form("u", "admin", "p", "wrong password")))
		}
		if w.Code != 401 {
			t.Fatalf("failure %d: %d", i+1, w.Code)
		}
		e.clock.Advance(time.Minute)
	}
	if got := failures(t, e, "admin"); got != 5 {
		t.Errorf("failed logins = %d, want 5", got)
	}
	for name, r := range map[string]*http.Request{
		"JSON": postJSON("/api/bw/v2/auth", `{"u":"admin","p":"`+testPassword+`"}`),
		"form": postForm("/api/bw/v2/auth", form("u", "admin", "p", testPassword)),
	} {
		w := e.do(r)
		if w.Code != 429 || strings.TrimSpace(w.Body.String()) != `{"fail":"Too many attempts"}` || w.Header().Get("Retry-After") != "600" {
			t.Errorf("sixth attempt by %s: %d %s, Retry-After %q", name, w.Code, w.Body, w.Header().Get("Retry-After"))
		}
	}
	// When the oldest failure leaves the window, a JSON login succeeds and
	// resets the count.
	e.clock.Advance(10 * time.Minute)
	if w := e.do(postJSON("/api/bw/v2/auth", `{"u":"admin","p":"`+testPassword+`"}`)); w.Code != 200 {
		t.Fatalf("after the window: %d %s", w.Code, w.Body)
	}
	if got := failures(t, e, "admin"); got != 0 {
		t.Errorf("failed logins after a success = %d, want 0", got)
	}
}

// TestJSONRefreshAndLogout: refresh and logout read refresh_token from a
// JSON object; a body they do not understand presents no token.
func TestJSONRefreshAndLogout(t *testing.T) {
	t.Parallel()
	e := newEnv(t, envOptions{})
	first := e.login("admin").RefreshToken
	next := decodeTokens(t, e.do(postJSON("/api/bw/v2/auth/refresh", `{"refresh_token":"`+first+`"}`))).RefreshToken
	if next == first || !storedToken(t, e, first).Used.Equal(e.clock.Now()) {
		t.Fatalf("the JSON refresh did not rotate: %q then %q", first, next)
	}
	for name, body := range map[string]string{
		"empty body":         ``,
		"empty object":       `{}`,
		"token not a string": `{"refresh_token":["` + next + `"]}`,
		"malformed":          `{"refresh_token":"` + next,
		"token twice":        `{"refresh_token":"` + next + `","refresh_token":"` + next + `"}`,
	} {
		wantInvalidGrant(t, name, e.do(postJSON("/api/bw/v2/auth/refresh", body)))
	}
	if !storedToken(t, e, next).Used.IsZero() {
		t.Fatal("a refused refresh spent the token")
	}
	const loggedOut = `{"message":"Successfully logged out"}`
	for name, body := range map[string]string{"empty body": ``, "malformed": `{"refresh_token":`, "token a number": `{"refresh_token":1}`} {
		if w := e.do(postJSON("/api/bw/v2/auth/logout", body)); w.Code != 200 || strings.TrimSpace(w.Body.String()) != loggedOut {
			t.Errorf("logout, %s: %d %s", name, w.Code, w.Body)
		}
	}
	decodeTokens(t, e.do(postJSON("/api/bw/v2/auth/refresh", `{"refresh_token":"`+next+`"}`)))
	// The family is revoked by a JSON logout: the successor goes too.
	tok := e.login("admin").RefreshToken
	succ := decodeTokens(t, e.refreshWith(tok)).RefreshToken
	w := e.do(postJSON("/api/bw/v2/auth/logout", `{"refresh_token":"`+succ+`"}`))
	if w.Code != 200 || strings.TrimSpace(w.Body.String()) != loggedOut {
		t.Fatalf("JSON logout: %d %s", w.Code, w.Body)
	}
	wantInvalidGrant(t, "after a JSON logout", e.refreshWith(succ))
}

// TestAuthBodyNotLogged: the debug log says why a body was not
// understood, and never holds the body.
func TestAuthBodyNotLogged(t *testing.T) {
	t.Parallel()
	var logs strings.Builder
	var mu sync.Mutex
	debug := slog.New(slog.NewTextHandler(lockedWriter{&mu, &logs}, &slog.HandlerOptions{Level: slog.LevelDebug}))
	e := newEnv(t, envOptions{http: func(o *Options) { o.Logger = debug }})
	const secret = "s3cret%zzpassword"
	requests := []struct {
		r    *http.Request
		why  string
		code int
	}{
		{postJSON("/api/bw/v2/auth", `{"u":"admin","p":"`+secret), "malformed JSON body", 401},
		{postJSON("/api/bw/v2/auth", `{"u":"admin","p":"`+secret+`"}x`), "data after the JSON object", 401},
		{postJSON("/api/bw/v2/auth", `["`+secret+`"]`), "not an object", 401},
		{postJSON("/api/bw/v2/auth", `{"u":"admin","p":["`+secret+`"]}`), `JSON field \"p\" is not a string`, 401},
		{postForm("/api/bw/v2/auth", "u=admin&p="+secret), "malformed urlencoded form", 401},
		{postJSON("/api/bw/v2/auth/refresh", `{"refresh_token":"`+secret), "malformed JSON body", 401},
		{postJSON("/api/bw/v2/auth/logout", `{"refresh_token":"`+secret), "malformed JSON body", 200},
	}
	for _, q := range requests {
		mu.Lock()
		logs.Reset()
		mu.Unlock()
		w := e.do(q.r)
		mu.Lock()
		got := logs.String()
		mu.Unlock()
		if w.Code != q.code {
			t.Errorf("%s: %d, want %d", q.r.URL.Path, w.Code, q.code)
		}
		if !strings.Contains(got, "auth body not understood") || !strings.Contains(got, q.why) {
			t.Errorf("%s: the log does not say %q:\n%s", q.r.URL.Path, q.why, got)
		}
		if strings.Contains(got, "s3cret") || strings.Contains(got, "%zz") {
			t.Errorf("%s: the log holds the body:\n%s", q.r.URL.Path, got)
		}
	}
}
