package transport

import (
	"net/http"
	"net/http/httptest"
	"net/netip"
	"strings"
	"testing"
)

const frontEnd = "http://localhost:3000"

// withOrigins is an env whose handler allows the front-end's origin.
func withOrigins(t *testing.T, more func(*Options)) *env {
	return newEnv(t, envOptions{http: func(o *Options) {
		o.AllowedOrigins = []string{frontEnd, "https://app.example.com"}
		if more != nil {
			more(o)
		}
	}})
}

func preflight(path, origin, method, headers string) *http.Request {
	r := httptest.NewRequest(http.MethodOptions, path, nil)
	r.Header.Set("Origin", origin)
	r.Header.Set("Access-Control-Request-Method", method)
	if headers != "" {
		r.Header.Set("Access-Control-Request-Headers", headers)
	}
	return r
}

// TestCORSPreflight: a preflight from an allowed origin is answered 204
// with the policy; from another origin, or asking for a header the API
// does not read, 204 without it (the browser then refuses).
func TestCORSPreflight(t *testing.T) {
	t.Parallel()
	e := withOrigins(t, nil)
	w := e.do(preflight("/api/bw/v2/resource", frontEnd, "POST", "authorization,content-type,if-match"))
	want := map[string]string{
		"Access-Control-Allow-Origin":      frontEnd,
		"Access-Control-Allow-Credentials": "true",
		"Access-Control-Allow-Methods":     "POST",
		"Access-Control-Allow-Headers":     "authorization,content-type,if-match",
		"Access-Control-Max-Age":           "600",
	}
	if w.Code != http.StatusNoContent || w.Body.Len() != 0 {
		t.Errorf("preflight: %d %s", w.Code, w.Body)
	}
	for k, v := range want {
		if got := w.Header().Get(k); got != v {
			t.Errorf("preflight %s = %q, want %q", k, got, v)
		}
	}
	if !strings.Contains(strings.Join(w.Header().Values("Vary"), ", "), "Origin") {
		t.Errorf("preflight Vary = %q", w.Header().Values("Vary"))
	}
	for name, r := range map[string]*http.Request{
		"another origin":      preflight("/api/bw/v2/resource", "https://evil.example", "POST", "authorization"),
		"an unread header":    preflight("/api/bw/v2/resource", frontEnd, "POST", "x-secret"),
		"a method it has not": preflight("/api/bw/v2/resource", frontEnd, "PUT", ""),
	} {
		w := e.do(r)
		if w.Code != http.StatusNoContent || w.Header().Get("Access-Control-Allow-Origin") != "" {
			t.Errorf("preflight from %s: %d, Allow-Origin %q", name, w.Code, w.Header().Get("Access-Control-Allow-Origin"))
		}
	}
	// OPTIONS that is no preflight is routed like any other method.
	r := httptest.NewRequest(http.MethodOptions, "/api/bw/v2/auth", nil)
	r.Header.Set("Origin", frontEnd)
	if w := e.do(r); w.Code != http.StatusMethodNotAllowed || w.Header().Get("Allow") != "GET, POST" {
		t.Errorf("OPTIONS without Access-Control-Request-Method: %d %v", w.Code, w.Header())
	}
	// Outside the API, nothing.
	if w := e.do(preflight("/elsewhere", frontEnd, "POST", "")); w.Code != 404 || w.Header().Get("Access-Control-Allow-Origin") != "" {
		t.Errorf("preflight outside the API: %d %v", w.Code, w.Header())
	}
}

// TestCORSRequests: answers to an allowed origin carry the CORS headers,
// errors included; a login from it sets the cookie; another origin gets
// no CORS headers and its login stays refused.
func TestCORSRequests(t *testing.T) {
	t.Parallel()
	e := withOrigins(t, nil)
	tok := e.login("admin")
	cors := func(t *testing.T, w *httptest.ResponseRecorder, allowed bool) {
		t.Helper()
		got := w.Header().Get("Access-Control-Allow-Origin")
		switch {
		case allowed && (got != frontEnd || w.Header().Get("Access-Control-Allow-Credentials") != "true" ||
			w.Header().Get("Access-Control-Expose-Headers") != "Etag, Retry-After, Www-Authenticate"):
			t.Errorf("CORS headers: %v", w.Header())
		case !allowed && got != "":
			t.Errorf("CORS headers for another origin: %v", w.Header())
		}
	}
	validate := func(origin, token string) *httptest.ResponseRecorder {
		r := httptest.NewRequest(http.MethodGet, "/api/bw/v2/auth", nil)
		r.Header.Set("Origin", origin)
		r.Header.Set("Authorization", "Bearer "+token)
		return e.do(r)
	}
	if w := validate(frontEnd, tok.AccessToken); w.Code != 200 {
		t.Errorf("validate from the front-end: %d %s", w.Code, w.Body)
	} else {
		cors(t, w, true)
	}
	if w := validate(frontEnd, "nonsense"); w.Code != 401 {
		t.Errorf("a bad token from the front-end: %d", w.Code)
	} else {
		cors(t, w, true)
	}
	if w := validate("https://evil.example", tok.AccessToken); w.Code != 200 {
		t.Errorf("validate from another origin: %d", w.Code) // CORS is the browser's to enforce
	} else {
		cors(t, w, false)
	}

	login := func(origin, site string) *httptest.ResponseRecorder {
		r := postForm("/api/bw/v2/auth", form("u", "admin", "p", testPassword))
		r.Host = "localhost:8080"
		r.Header.Set("Origin", origin)
		if site != "" {
			r.Header.Set("Sec-Fetch-Site", site)
		}
		return e.do(r)
	}
	for _, site := range []string{"same-site", "cross-site", ""} {
		w := login(frontEnd, site)
		if w.Code != 200 || !strings.HasPrefix(w.Header().Get("Set-Cookie"), "bw_rtoken=") {
			t.Errorf("login from the front-end (Sec-Fetch-Site %q): %d %s", site, w.Code, w.Body)
			continue
		}
		cors(t, w, true)
		w = login("https://evil.example", site)
		if w.Code != 403 || w.Header().Get("Set-Cookie") != "" {
			t.Errorf("login from another origin (Sec-Fetch-Site %q): %d %s", site, w.Code, w.Body)
		}
		cors(t, w, false)
	}
}

// TestCORSOff: without allowed origins nothing changes: a preflight is
// 405, and a login from another origin 403.
func TestCORSOff(t *testing.T) {
	t.Parallel()
	e := newEnv(t, envOptions{})
	w := e.do(preflight("/api/bw/v2/auth", frontEnd, "POST", ""))
	if w.Code != http.StatusMethodNotAllowed || w.Header().Get("Allow") != "GET, POST" || w.Header().Get("Access-Control-Allow-Origin") != "" {
		t.Errorf("preflight without CORS: %d %v", w.Code, w.Header())
	}
	r := postForm("/api/bw/v2/auth", form("u", "admin", "p", testPassword))
	r.Header.Set("Origin", frontEnd)
	r.Header.Set("Sec-Fetch-Site", "same-site")
	if w := e.do(r); w.Code != 403 {
		t.Errorf("login from another origin without CORS: %d %s", w.Code, w.Body)
	}
}

// TestCrossOriginBehindProxy: behind a trusted proxy that rewrites Host,
// an old browser's login (Origin, no Sec-Fetch-Site) from the public
// origin passes when the proxy names the public host; from an untrusted
// peer the headers are not read.
func TestCrossOriginBehindProxy(t *testing.T) {
	t.Parallel()
	e := newEnv(t, envOptions{http: func(o *Options) {
		o.TrustedProxies = []netip.Prefix{netip.MustParsePrefix("10.0.0.0/8")}
	}})
	for _, c := range []struct {
		name, peer, header, value string
		status                    int
	}{
		{"X-Forwarded-Host from a trusted proxy", "10.0.0.5:4000", "X-Forwarded-Host", "cms.example.com", 200},
		{"the first of several", "10.0.0.5:4000", "X-Forwarded-Host", "cms.example.com, internal:8080", 200},
		{"Forwarded from a trusted proxy", "10.0.0.5:4000", "Forwarded", `for=192.0.2.7;host="cms.example.com";proto=https`, 200},
		{"another host", "10.0.0.5:4000", "X-Forwarded-Host", "other.example.com", 403},
		{"no header", "10.0.0.5:4000", "", "", 403},
		{"an untrusted peer", "192.0.2.9:4000", "X-Forwarded-Host", "cms.example.com", 403},
	} {
		r := postForm("/api/bw/v2/auth", form("u", "admin", "p", testPassword))
		r.RemoteAddr = c.peer
		r.Host = "backend:8080"
		r.Header.Set("Origin", "https://cms.example.com")
		if c.header != "" {
			r.Header.Set(c.header, c.value)
		}
		if w := e.do(r); w.Code != c.status {
			t.Errorf("%s: %d %s, want %d", c.name, w.Code, w.Body, c.status)
		}
	}
}

// TestCookieOptions: SameSite and Domain as given, the path under the base
// path, Secure and HttpOnly always; logout expires that very cookie.
func TestCookieOptions(t *testing.T) {
	t.Parallel()
	e := newEnv(t, envOptions{http: func(o *Options) {
		o.BasePath = "/cms"
		o.CookieSameSite = http.SameSiteNoneMode
		o.CookieDomain = "example.com"
	}})
	w := e.do(postForm("/cms/api/bw/v2/auth", form("u", "admin", "p", testPassword)))
	if w.Code != 200 {
		t.Fatalf("login: %d %s", w.Code, w.Body)
	}
	set := w.Header().Get("Set-Cookie")
	token, _, _ := strings.Cut(strings.TrimPrefix(set, "bw_rtoken="), ";")
	if want := "bw_rtoken=" + token + "; Path=/cms/api/bw/v2/auth; Domain=example.com; Max-Age=604800; HttpOnly; Secure; SameSite=None"; set != want {
		t.Errorf("Set-Cookie = %q\nwant         %q", set, want)
	}
	r := postForm("/cms/api/bw/v2/auth/logout", "")
	r.AddCookie(&http.Cookie{Name: RefreshCookie, Value: token})
	w = e.do(r)
	if want := "bw_rtoken=; Path=/cms/api/bw/v2/auth; Domain=example.com; Max-Age=0; HttpOnly; Secure; SameSite=None"; w.Header().Get("Set-Cookie") != want {
		t.Errorf("logout Set-Cookie = %q\nwant                %q", w.Header().Get("Set-Cookie"), want)
	}

	lax := newEnv(t, envOptions{http: func(o *Options) { o.CookieSameSite = http.SameSiteLaxMode }})
	if got := lax.do(postForm("/api/bw/v2/auth", form("u", "admin", "p", testPassword))).Header().Get("Set-Cookie"); !strings.HasSuffix(got, "; Path=/api/bw/v2/auth; Max-Age=604800; HttpOnly; Secure; SameSite=Lax") {
		t.Errorf("Lax: %q", got)
	}
}

// TestOriginOptionsChecked: NewHandler refuses origins a browser never
// sends and cookie options that are none.
func TestOriginOptionsChecked(t *testing.T) {
	t.Parallel()
	e := newEnv(t, envOptions{})
	for name, o := range map[string]Options{
		"*":                 {AllowedOrigins: []string{"*"}},
		"wildcard":          {AllowedOrigins: []string{"https://*.example.com"}},
		"trailing slash":    {AllowedOrigins: []string{"http://localhost:3000/"}},
		"path":              {AllowedOrigins: []string{"https://example.com/app"}},
		"no scheme":         {AllowedOrigins: []string{"example.com"}},
		"ftp":               {AllowedOrigins: []string{"ftp://example.com"}},
		"upper case":        {AllowedOrigins: []string{"https://App.example.com"}},
		"default port":      {AllowedOrigins: []string{"https://example.com:443"}},
		"user":              {AllowedOrigins: []string{"https://u@example.com"}},
		"SameSite":          {CookieSameSite: 9},
		"Domain":            {CookieDomain: "not a domain"},
		"an allowed origin": {AllowedOrigins: []string{frontEnd}, BasePath: "cms"},
	} {
		o.JWTSecret = testSecret
		if _, err := NewHandler(e.svc, &o); err == nil {
			t.Errorf("%s: accepted", name)
		}
	}
	o := Options{JWTSecret: testSecret, AllowedOrigins: []string{frontEnd, "https://[2001:db8::1]:8443"}, CORSMaxAge: NoCORSMaxAge}
	h, err := NewHandler(e.svc, &o)
	if err != nil {
		t.Fatal(err)
	}
	w := httptest.NewRecorder()
	h.ServeHTTP(w, preflight("/api/bw/v2/auth", frontEnd, "POST", ""))
	if w.Header().Get("Access-Control-Allow-Origin") != frontEnd || w.Header().Get("Access-Control-Max-Age") != "" {
		t.Errorf("NoCORSMaxAge: %v", w.Header())
	}
}
