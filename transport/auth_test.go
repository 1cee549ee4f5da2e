package transport

import (
	"bytes"
	"encoding/json"
	"mime/multipart"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
	"time"
)

// scenario is one request through the real handler and what a client
// sees: status, exact body, exact headers; after checks what is stored.
type scenario struct {
	name    string
	req     func(e *env) *http.Request
	status  int
	body    string            // exact, when set
	headers map[string]string // exact values
	check   func(t *testing.T, e *env, w *httptest.ResponseRecorder)
}

func (sc scenario) run(t *testing.T, e *env) {
	t.Helper()
	w := e.do(sc.req(e))
	if w.Code != sc.status {
		t.Fatalf("status = %d, want %d; body %s", w.Code, sc.status, w.Body)
	}
	if sc.body != "" {
		if got := strings.TrimSuffix(w.Body.String(), "\n"); got != sc.body {
			t.Errorf("body = %s\nwant   %s", got, sc.body)
		}
	}
	for k, want := range sc.headers {
		if got := strings.Join(w.Header().Values(k), " | "); got != want {
			t.Errorf("header %s = %q, want %q", k, got, want)
		}
	}
	if w.Header().Get("Content-Type") != "application/json; charset=utf-8" {
		t.Errorf("Content-Type = %q", w.Header().Get("Content-Type"))
	}
	if sc.check != nil {
		sc.check(t, e, w)
	}
}

const (
	unauthorized     = `{"fail":"Unauthorized"}`
	invalidGrant     = `{"error":"invalid_grant","error_description":"Invalid or expired refresh token"}`
	challenge        = `Bearer realm="api/bw/v2"`
	invalidChallenge = `Bearer realm="api/bw/v2", error="invalid_token"`
)

// failures returns the failed logins of user in the current window.
func failures(t *testing.T, e *env, user string) int {
	t.Helper()
	n, _, err := e.store.LoginFailures(t.Context(), user, e.clock.Now().Add(-15*time.Minute))
	if err != nil {
		t.Fatal(err)
	}
	return n
}

func wantFailures(user string, want int) func(*testing.T, *env, *httptest.ResponseRecorder) {
	return func(t *testing.T, e *env, _ *httptest.ResponseRecorder) {
		t.Helper()
		if got := failures(t, e, user); got != want {
			t.Errorf("failed logins of %s = %d, want %d", user, got, want)
		}
	}
}

func multipartLogin(u, p string) *http.Request {
	var buf bytes.Buffer
	mw := multipart.NewWriter(&buf)
	mw.WriteField("u", u)
	mw.WriteField("p", p)
	mw.Close()
	r := httptest.NewRequest(http.MethodPost, "/api/bw/v2/auth", &buf)
	r.Header.Set("Content-Type", mw.FormDataContentType())
	return r
}

func TestLogin(t *testing.T) {
	t.Parallel()
	noStore := map[string]string{"Cache-Control": "no-store"}
	refused := map[string]string{"Cache-Control": "no-store", "WWW-Authenticate": challenge}
	scenarios := []scenario{
		{name: "right password", status: 200,
			req: func(*env) *http.Request {
				return postForm("/api/bw/v2/auth", form("u", "admin", "p", testPassword))
			},
			headers: noStore,
			check: func(t *testing.T, e *env, w *httptest.ResponseRecorder) {
				var a tokenAnswer
				if err := json.Unmarshal(w.Body.Bytes(), &a); err != nil {
					t.Fatal(err)
				}
				if a.Done != "JWT generated" || a.JWT != a.AccessToken || a.TokenType != "Bearer" || a.ExpiresIn != 900 ||
					len(a.RefreshToken) != 43 {
					t.Errorf("answer = %+v", a)
				}
				wantCookie := "bw_rtoken=" + a.RefreshToken + "; Path=/api/bw/v2/auth; Max-Age=604800; HttpOnly; Secure; SameSite=Strict"
				if got := w.Header().Get("Set-Cookie"); got != wantCookie {
					t.Errorf("Set-Cookie = %q\nwant         %q", got, wantCookie)
				}
				var keys map[string]json.RawMessage
				json.Unmarshal(w.Body.Bytes(), &keys)
				if len(keys) != 6 {
					t.Errorf("login answer has keys %v, want done, jwt, access_token, refresh_token, token_type, expires_in", keys)
				}
			}},
		{name: "multipart form", status: 200,
			req: func(*env) *http.Request { return multipartLogin("admin", testPassword) }},
		{name: "wrong password", status: 401, body: unauthorized, headers: refused,
			req: func(*env) *http.Request {
				return postForm("/api/bw/v2/auth", form("u", "admin", "p", "wrong password"))
			},
			check: wantFailures("admin", 1)},
		{name: "unknown user", status: 401, body: unauthorized, headers: refused,
			req: func(*env) *http.Request {
				return postForm("/api/bw/v2/auth", form("u", "nobody", "p", testPassword))
			},
			check: wantFailures("nobody", 1)},
		{name: "disabled user with the right password", status: 401, body: unauthorized, headers: refused,
			req: func(*env) *http.Request {
				return postForm("/api/bw/v2/auth", form("u", "off", "p", testPassword))
			}},
		{name: "no password field", status: 401, body: unauthorized,
			req: func(*env) *http.Request { return postForm("/api/bw/v2/auth", form("u", "admin")) }},
		{name: "u given twice", status: 401, body: unauthorized,
			req: func(*env) *http.Request {
				return postForm("/api/bw/v2/auth", form("u", "admin", "u", "reader", "p", testPassword))
			}},
		{name: "no body", status: 401, body: unauthorized,
			req: func(*env) *http.Request { return httptest.NewRequest(http.MethodPost, "/api/bw/v2/auth", nil) }},
		{name: "JSON body without its Content-Type is not guessed", status: 401, body: unauthorized,
			req: func(*env) *http.Request {
				return httptest.NewRequest(http.MethodPost, "/api/bw/v2/auth", strings.NewReader(`{"u":"admin","p":"`+testPassword+`"}`))
			},
			check: wantFailures("admin", 0)},
		{name: "credentials in the query string are not read", status: 401, body: unauthorized,
			req: func(*env) *http.Request {
				return postForm("/api/bw/v2/auth?"+form("u", "admin", "p", testPassword), "")
			}},
		{name: "malformed urlencoding", status: 401, body: unauthorized,
			req: func(*env) *http.Request { return postForm("/api/bw/v2/auth", "u=admin&p=%zz") }},
		{name: "malformed multipart", status: 401, body: unauthorized,
			req: func(*env) *http.Request {
				r := httptest.NewRequest(http.MethodPost, "/api/bw/v2/auth", strings.NewReader("--x\r\nbroken"))
				r.Header.Set("Content-Type", "multipart/form-data; boundary=x")
				return r
			}},
		{name: "body over 64 KiB", status: 413, body: `{"fail":"Request too large"}`, headers: noStore,
			req: func(*env) *http.Request {
				return postForm("/api/bw/v2/auth", form("u", "admin", "p", testPassword, "pad", strings.Repeat("x", 64<<10)))
			},
			check: wantFailures("admin", 0)},
		{name: "password over 1024 bytes", status: 401, body: unauthorized,
			req: func(*env) *http.Request {
				return postForm("/api/bw/v2/auth", form("u", "admin", "p", strings.Repeat("p", 1025)))
			}},
		{name: "cross-site POST is refused before the password is checked", status: 403, body: `{"fail":"Forbidden"}`,
			req: func(*env) *http.Request {
				r := postForm("/api/bw/v2/auth", form("u", "admin", "p", "wrong password"))
				r.Header.Set("Sec-Fetch-Site", "cross-site")
				return r
			},
			check: wantFailures("admin", 0)},
		{name: "cross-origin Origin header is refused", status: 403, body: `{"fail":"Forbidden"}`,
			req: func(*env) *http.Request {
				r := postForm("/api/bw/v2/auth", form("u", "admin", "p", testPassword))
				r.Header.Set("Origin", "https://evil.example")
				return r
			}},
		{name: "same-origin browser POST", status: 200,
			req: func(*env) *http.Request {
				r := postForm("/api/bw/v2/auth", form("u", "admin", "p", testPassword))
				r.Header.Set("Sec-Fetch-Site", "same-origin")
				return r
			}},
	}
	for _, sc := range scenarios {
		t.Run(sc.name, func(t *testing.T) {
			t.Parallel()
			sc.run(t, newEnv(t, envOptions{}))
		})
	}
}

// TestLoginRefusalsAreAlike: an unknown user, a wrong password and a
// disabled user give byte-identical answers.
func TestLoginRefusalsAreAlike(t *testing.T) {
	t.Parallel()
	e := newEnv(t, envOptions{})
	var first *httptest.ResponseRecorder
	for _, c := range [][2]string{{"nobody", testPassword}, {"admin", "wrong password"}, {"off", testPassword}} {
		w := e.do(postForm("/api/bw/v2/auth", form("u", c[0], "p", c[1])))
		w.Header().Del("Date")
		if first == nil {
			first = w
			continue
		}
		if w.Code != first.Code || w.Body.String() != first.Body.String() || !equalHeaders(w.Header(), first.Header()) {
			t.Errorf("%s: %d %v %q differs from %d %v %q", c[0], w.Code, w.Header(), w.Body, first.Code, first.Header(), first.Body)
		}
	}
}

func equalHeaders(a, b http.Header) bool {
	if len(a) != len(b) {
		return false
	}
	for k := range a {
		if strings.Join(a[k], "\n") != strings.Join(b[k], "\n") {
			return false
		}
	}
	return true
}

// TestLoginThrottling: failures of one username from one client address
// (every request here comes from httptest's 192.0.2.1) are held to 5 in
// 15 minutes, with Retry-After until the oldest leaves the window.
func TestLoginThrottling(t *testing.T) {
	t.Parallel()
	e := newEnv(t, envOptions{})
	wrong := func() *httptest.ResponseRecorder {
		return e.do(postForm("/api/bw/v2/auth", form("u", "admin", "p", "wrong password")))
	}
	right := func() *httptest.ResponseRecorder {
		return e.do(postForm("/api/bw/v2/auth", form("u", "admin", "p", testPassword)))
	}
	for i := range 5 {
		if w := wrong(); w.Code != 401 {
			t.Fatalf("failure %d: %d", i+1, w.Code)
		}
		e.clock.Advance(time.Minute)
	}
	// The sixth attempt is refused even with the right password.
	w := right()
	if w.Code != 429 || strings.TrimSpace(w.Body.String()) != `{"fail":"Too many attempts"}` {
		t.Fatalf("sixth attempt: %d %s", w.Code, w.Body)
	}
	// The oldest failure is 5 minutes old: it leaves the window in 10.
	if got := w.Header().Get("Retry-After"); got != "600" {
		t.Errorf("Retry-After = %q, want 600", got)
	}
	if got := w.Header().Get("Cache-Control"); got != "no-store" {
		t.Errorf("Cache-Control = %q", got)
	}
	// Another username is not throttled.
	if w := e.do(postForm("/api/bw/v2/auth", form("u", "reader", "p", testPassword))); w.Code != 200 {
		t.Errorf("other user: %d", w.Code)
	}
	// When the oldest failure leaves the window, one attempt is allowed.
	e.clock.Advance(10 * time.Minute)
	if w := right(); w.Code != 200 {
		t.Fatalf("after the window: %d %s", w.Code, w.Body)
	}
	// A success resets the count: four more failures are not throttled.
	for i := range 4 {
		if w := wrong(); w.Code != 401 {
			t.Fatalf("failure %d after reset: %d", i+1, w.Code)
		}
	}
	if w := right(); w.Code != 200 {
		t.Errorf("right password after 4 failures: %d", w.Code)
	}
}

func TestValidate(t *testing.T) {
	t.Parallel()
	e := newEnv(t, envOptions{})
	a := e.login("admin")
	for _, header := range []string{"Authorization", "Authorization-Bearer"} {
		r := httptest.NewRequest(http.MethodGet, "/api/bw/v2/auth", nil)
		if header == "Authorization" {
			r.Header.Set(header, "Bearer "+a.AccessToken)
		} else {
			r.Header.Set(header, a.AccessToken)
		}
		w := e.do(r)
		if w.Code != 200 {
			t.Fatalf("%s: %d %s", header, w.Code, w.Body)
		}
		var got struct {
			Done string          `json:"done"`
			JWT  json.RawMessage `json:"jwt"`
		}
		json.Unmarshal(w.Body.Bytes(), &got)
		var claims Claims
		dec := json.NewDecoder(bytes.NewReader(got.JWT))
		dec.DisallowUnknownFields()
		if err := dec.Decode(&claims); err != nil {
			t.Fatal(err)
		}
		now := e.clock.Now().Unix()
		want := Claims{Iss: "bw", Sub: "admin", Aud: "api/bw/v2", Exp: now + 900, Iat: now, Jti: claims.Jti,
			Type: "access", Perms: []string{"*"}, Lang: "en", Langs: []string{"en", "it", "de"}, Acc: "acme"}
		if got.Done != "JWT verified" || !equalClaims(claims, want) || len(claims.Jti) != 22 {
			t.Errorf("%s: %s\nclaims %+v\nwant   %+v", header, w.Body, claims, want)
		}
		if !strings.Contains(string(got.JWT), `"aud":"api/bw/v2"`) {
			t.Errorf("aud is not the plain string: %s", got.JWT)
		}
	}
	// Each token has its own jti.
	if b := e.login("admin"); b.AccessToken == a.AccessToken {
		t.Error("two logins gave the same access token")
	}
	// The other account's user gets its own languages.
	var claims Claims
	w := e.validateWith(e.login("otto").AccessToken)
	json.Unmarshal(w.Body.Bytes(), &struct {
		JWT *Claims `json:"jwt"`
	}{&claims})
	if claims.Acc != "other" || claims.Lang != "de" || strings.Join(claims.Langs, ",") != "de" {
		t.Errorf("otto's claims: %+v", claims)
	}
}

func equalClaims(a, b Claims) bool {
	ja, _ := json.Marshal(a)
	jb, _ := json.Marshal(b)
	return string(ja) == string(jb)
}

func TestValidateRefusals(t *testing.T) {
	t.Parallel()
	scenarios := []scenario{
		{name: "no token", status: 401, body: unauthorized,
			headers: map[string]string{"WWW-Authenticate": challenge},
			req:     func(*env) *http.Request { return httptest.NewRequest(http.MethodGet, "/api/bw/v2/auth", nil) }},
		{name: "Basic scheme", status: 401, body: unauthorized,
			headers: map[string]string{"WWW-Authenticate": invalidChallenge},
			req: func(*env) *http.Request {
				r := httptest.NewRequest(http.MethodGet, "/api/bw/v2/auth", nil)
				r.SetBasicAuth("admin", testPassword)
				return r
			}},
		{name: "garbage bearer", status: 401, body: unauthorized,
			headers: map[string]string{"WWW-Authenticate": invalidChallenge},
			req: func(*env) *http.Request {
				r := httptest.NewRequest(http.MethodGet, "/api/bw/v2/auth", nil)
				r.Header.Set("Authorization-Bearer", "not.a.token")
				return r
			}},
		{name: "two Authorization headers", status: 401, body: unauthorized,
			req: func(e *env) *http.Request {
				tok := e.login("admin").AccessToken
				r := httptest.NewRequest(http.MethodGet, "/api/bw/v2/auth", nil)
				r.Header.Add("Authorization", "Bearer "+tok)
				r.Header.Add("Authorization", "Bearer "+tok)
				return r
			}},
	}
	for _, sc := range scenarios {
		t.Run(sc.name, func(t *testing.T) {
			t.Parallel()
			sc.run(t, newEnv(t, envOptions{}))
		})
	}
}
