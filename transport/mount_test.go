package transport

import (
	"encoding/json"
	"io"
	"net/http"
	"net/http/cookiejar"
	"net/http/httptest"
	"net/url"
	"strings"
	"testing"

	"github.com/go-chi/chi/v5"
	"github.com/gorilla/mux"
)

// hostHello is a host application's own route.
func hostHello(w http.ResponseWriter, _ *http.Request) { io.WriteString(w, "hello from the host") }

// TestMount mounts the API on each router, at the root and under a
// prefix, beside a host route, and goes through it over TLS with a
// cookie jar, as a browser would: log in, refresh with the cookie alone
// (the jar sends it only when its path covers the refresh path), create
// and read a record, an unknown API path and a wrong method, and the
// host's route.
func TestMount(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		name  string
		base  string
		mount func(api *Handler) http.Handler
	}{
		{"ServeMux at the root", "", func(api *Handler) http.Handler {
			m := http.NewServeMux()
			m.HandleFunc("GET /hello", hostHello)
			m.Handle(api.Path(), api)
			return m
		}},
		{"ServeMux under a prefix", "/cms", func(api *Handler) http.Handler {
			m := http.NewServeMux()
			m.HandleFunc("GET /hello", hostHello)
			m.Handle("/cms/api/bw/v2/", api)
			return m
		}},
		{"ServeMux and StripPrefix", "/cms", func(api *Handler) http.Handler {
			m := http.NewServeMux()
			m.HandleFunc("GET /hello", hostHello)
			m.Handle("/cms/", http.StripPrefix("/cms", api))
			return m
		}},
		{"gorilla at the root", "", func(api *Handler) http.Handler {
			r := mux.NewRouter()
			r.HandleFunc("/hello", hostHello).Methods(http.MethodGet)
			r.PathPrefix(api.Path()).Handler(api)
			return r
		}},
		{"gorilla under a prefix", "/cms", func(api *Handler) http.Handler {
			r := mux.NewRouter()
			r.HandleFunc("/hello", hostHello).Methods(http.MethodGet)
			r.PathPrefix(api.Path()).Handler(api)
			return r
		}},
		{"gorilla subrouter", "/cms", func(api *Handler) http.Handler {
			r := mux.NewRouter()
			r.PathPrefix("/cms").Subrouter().PathPrefix(Prefix).Handler(api)
			r.HandleFunc("/hello", hostHello).Methods(http.MethodGet)
			return r
		}},
		{"gorilla Register on a subrouter", "/cms", func(api *Handler) http.Handler {
			r := mux.NewRouter()
			api.Register(r.PathPrefix("/cms").Subrouter())
			r.HandleFunc("/hello", hostHello).Methods(http.MethodGet)
			return r
		}},
		{"gorilla Register at the root", "", func(api *Handler) http.Handler {
			r := mux.NewRouter()
			api.Register(r)
			r.HandleFunc("/hello", hostHello).Methods(http.MethodGet)
			return r
		}},
		{"chi Mount", "/cms", func(api *Handler) http.Handler {
			r := chi.NewRouter()
			r.Get("/hello", hostHello)
			r.Mount("/cms", api)
			return r
		}},
		{"chi Handle", "/cms", func(api *Handler) http.Handler {
			r := chi.NewRouter()
			r.Get("/hello", hostHello)
			r.Handle(api.Path()+"*", api)
			return r
		}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			e := newEnv(t, envOptions{http: func(o *Options) { o.BasePath = tc.base }})
			if want := tc.base + "/api/bw/v2/"; e.h.Path() != want {
				t.Errorf("Path() = %q, want %q", e.h.Path(), want)
			}
			mountFlow(t, tc.mount(e.h), tc.base)
		})
	}
}

// mountFlow goes through a host application app with the API under base.
func mountFlow(t *testing.T, app http.Handler, base string) {
	t.Helper()
	srv := httptest.NewTLSServer(app)
	defer srv.Close()
	c := srv.Client()
	c.Jar, _ = cookiejar.New(nil)
	api := srv.URL + base + "/api/bw/v2"
	send := func(method, url, token, contentType, body string) (*http.Response, string) {
		t.Helper()
		req, err := http.NewRequest(method, url, strings.NewReader(body))
		if err != nil {
			t.Fatal(err)
		}
		if contentType != "" {
			req.Header.Set("Content-Type", contentType)
		}
		if token != "" {
			req.Header.Set("Authorization", "Bearer "+token)
		}
		res, err := c.Do(req)
		if err != nil {
			t.Fatal(err)
		}
		defer res.Body.Close()
		b, _ := io.ReadAll(res.Body)
		return res, strings.TrimSpace(string(b))
	}

	if res, body := send("GET", srv.URL+"/hello", "", "", ""); res.StatusCode != 200 || body != "hello from the host" {
		t.Errorf("host route: %d %q", res.StatusCode, body)
	}

	res, body := send("POST", api+"/auth", "", "application/x-www-form-urlencoded", form("u", "admin", "p", testPassword))
	if res.StatusCode != 200 {
		t.Fatalf("login: %d %s", res.StatusCode, body)
	}
	cookies := res.Cookies()
	if len(cookies) != 1 || cookies[0].Path != base+"/api/bw/v2/auth" || !cookies[0].Secure || !cookies[0].HttpOnly {
		t.Fatalf("login cookie: %v", res.Header.Values("Set-Cookie"))
	}
	if got := c.Jar.Cookies(mustURL(t, srv.URL+"/hello")); len(got) != 0 {
		t.Errorf("the refresh cookie goes with the host's routes: %v", got)
	}

	// No form field: the token comes from the jar, or nowhere (401).
	res, body = send("POST", api+"/auth/refresh", "", "", "")
	var tok tokenAnswer
	json.Unmarshal([]byte(body), &tok)
	if res.StatusCode != 200 || tok.AccessToken == "" {
		t.Fatalf("refresh with the cookie the jar keeps: %d %s", res.StatusCode, body)
	}

	if res, body := send("POST", api+"/resource", tok.AccessToken, "application/json", `{"id":"m-1","title":"Hill","title_it":"Colle"}`); res.StatusCode != 201 {
		t.Fatalf("create: %d %s", res.StatusCode, body)
	}
	if res, body := send("GET", api+"/resource/m-1/published/*/fields/title_it", tok.AccessToken, "", ""); res.StatusCode != 200 || body != `{"id":"m-1","title_it":"Colle"}` {
		t.Errorf("read: %d %s", res.StatusCode, body)
	}
	if res, body := send("GET", api+"/nothing", tok.AccessToken, "", ""); res.StatusCode != 404 || body != `{"fail":"Not found"}` ||
		res.Header.Get("Content-Type") != "application/json; charset=utf-8" {
		t.Errorf("unknown API path: %d %s", res.StatusCode, body)
	}
	if res, body := send("PUT", api+"/auth", "", "", ""); res.StatusCode != 405 || body != `{"fail":"Method not allowed"}` {
		t.Errorf("wrong method: %d %s", res.StatusCode, body)
	}

	res, body = send("POST", api+"/auth/logout", "", "", "")
	if res.StatusCode != 200 || len(res.Cookies()) != 1 || res.Cookies()[0].Path != base+"/api/bw/v2/auth" {
		t.Errorf("logout: %d %s %v", res.StatusCode, body, res.Header.Values("Set-Cookie"))
	}
	if got := c.Jar.Cookies(mustURL(t, api+"/auth/refresh")); len(got) != 0 {
		t.Errorf("the cookie outlives the logout: %v", got)
	}
}

func mustURL(t *testing.T, s string) *url.URL {
	t.Helper()
	u, err := url.Parse(s)
	if err != nil {
		t.Fatal(err)
	}
	return u
}

// TestOutsideTheAPI: the handler answers the paths under its root with
// the API's JSON 404, with or without the base path before it, and any
// other path it is given (a host that mounts it at "/") with a plain 404.
func TestOutsideTheAPI(t *testing.T) {
	t.Parallel()
	e := newEnv(t, envOptions{http: func(o *Options) { o.BasePath = "/sites/cms" }})
	for _, c := range []struct {
		path string
		api  bool
	}{
		{"/sites/cms/api/bw/v2", true},
		{"/sites/cms/api/bw/v2/", true},
		{"/sites/cms/api/bw/v2/nothing", true},
		{"/api/bw/v2/nothing", true}, // the base path stripped by the host
		{"/", false},
		{"/sites/cms", false},
		{"/sites/cms/other", false},
		{"/sites/cms/api/bw/v1/auth", false},
		{"/sites/cms/api/bw/v2x", false},
		{"/sites/cmsx/api/bw/v2/auth", false},
		{"/other/api/bw/v2x", false},
	} {
		w := e.do(httptest.NewRequest(http.MethodGet, c.path, nil))
		body := strings.TrimSpace(w.Body.String())
		switch {
		case w.Code != 404:
			t.Errorf("%s: %d %s", c.path, w.Code, body)
		case c.api && body != `{"fail":"Not found"}`:
			t.Errorf("%s: %s, want the API's 404", c.path, body)
		case !c.api && (body != "404 page not found" || !strings.HasPrefix(w.Header().Get("Content-Type"), "text/plain")):
			t.Errorf("%s: %s (%s), want a plain 404", c.path, body, w.Header().Get("Content-Type"))
		}
	}
}

// TestBasePathChecked: NewHandler refuses a base path that is not one.
func TestBasePathChecked(t *testing.T) {
	t.Parallel()
	e := newEnv(t, envOptions{})
	for _, p := range []string{"cms", "/", "/cms/", "//cms", "/a//b", "/a/../b", "/./a", "/c m", "/c%20m", "/cms?x", "/é"} {
		if _, err := NewHandler(e.svc, &Options{JWTSecret: testSecret, BasePath: p}); err == nil {
			t.Errorf("base path %q accepted", p)
		}
	}
	for _, p := range []string{"", "/cms", "/sites/shop-1/cms", "/v1.2/~x_y"} {
		if err := CheckBasePath(p); err != nil {
			t.Errorf("base path %q refused: %v", p, err)
		}
	}
}
