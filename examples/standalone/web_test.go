package main

import (
	"errors"
	"net/http"
	"net/url"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestWebSettings: --base-path, --cors-origins, --cookie-samesite and
// --cookie-domain (and their environment variables) reach the handler; a
// bad value stops the start, naming the setting, before anything is
// created; without them a preflight is refused as before.
func TestWebSettings(t *testing.T) {
	t.Parallel()
	refused(t, []refusal{
		{[]string{"--base-path", "cms"}, nil, `--base-path: transport: base path "cms"`},
		{nil, map[string]string{"CMS_BASE_PATH": "/cms/"}, `--base-path: transport: base path "/cms/"`},
		{[]string{"--cors-origins", "http://localhost:3000,*"}, nil, `--cors-origins: transport: allowed origin "*"`},
		{nil, map[string]string{"CMS_CORS_ORIGINS": "https://app.example.com/"}, `--cors-origins: transport: allowed origin "https://app.example.com/"`},
		{[]string{"--cookie-samesite", "sometimes"}, nil, `--cookie-samesite "sometimes": want strict, lax or none`},
		{[]string{"--cookie-domain", "not a domain"}, nil, `--cookie-domain "not a domain": not a domain`},
		{[]string{"--trusted-proxies", "10.0.0.0/33"}, nil, `--trusted-proxies: "10.0.0.0/33"`},
		{[]string{"--public-url", "cms.example.com"}, nil, `--public-url: transport: public URL "cms.example.com"`},
		{nil, map[string]string{"CMS_PUBLIC_URL": "https://cms.example.com/?x=1"}, `--public-url: transport: public URL`},
	})

	const frontEnd = "http://localhost:3000"
	preflight := func(s *server, path string) answer {
		req, _ := http.NewRequest(http.MethodOptions, s.url+path, nil)
		req.Header.Set("Origin", frontEnd)
		req.Header.Set("Access-Control-Request-Method", "POST")
		return s.do(t, req)
	}
	c := &cli{env: map[string]string{"CMS_ADMIN_PASSWORD": "admin password",
		"CMS_CORS_ORIGINS": "https://app.example.com, " + frontEnd, "CMS_COOKIE_DOMAIN": "localhost"}}
	s := startServer(t, c, "--db", "sqlite:"+filepath.Join(t.TempDir(), "cms.db"), "--base-path", "/cms", "--cookie-samesite", "none")
	if !strings.Contains(c.stderr.String(), "/cms/api/bw/v2/") {
		t.Errorf("the log does not give the API's address: %s", c.stderr.String())
	}
	if a := preflight(s, "/cms/api/bw/v2/auth"); a.status != 204 || a.header.Get("Access-Control-Allow-Origin") != frontEnd ||
		a.header.Get("Access-Control-Allow-Credentials") != "true" {
		t.Errorf("preflight: %d %v", a.status, a.header)
	}
	req, _ := http.NewRequest("POST", s.url+"/cms/api/bw/v2/auth", strings.NewReader(url.Values{"u": {"admin"}, "p": {"admin password"}}.Encode()))
	req.Header.Set("Content-Type", "application/x-www-form-urlencoded")
	req.Header.Set("Origin", frontEnd)
	req.Header.Set("Sec-Fetch-Site", "same-site")
	a := s.do(t, req)
	if a.status != 200 || a.header.Get("Access-Control-Allow-Origin") != frontEnd ||
		!strings.Contains(a.header.Get("Set-Cookie"), "; Path=/cms/api/bw/v2/auth; Domain=localhost; Max-Age=604800; HttpOnly; Secure; SameSite=None") {
		t.Fatalf("login from the front-end: %d %s %v", a.status, a.body, a.header)
	}
	var sess session
	jsonUnmarshal(a.body, &sess)
	if a := s.post(t, "/cms/api/bw/v2/auth/refresh", nil, sess.Refresh); a.status != 200 {
		t.Errorf("refresh under the base path: %d %s", a.status, a.body)
	}
	req.Header.Set("Origin", "https://evil.example")
	req.Header.Set("Sec-Fetch-Site", "cross-site")
	req.Body = http.NoBody
	if a := s.do(t, req); a.status != 403 || a.header.Get("Access-Control-Allow-Origin") != "" {
		t.Errorf("login from another origin: %d %v", a.status, a.header)
	}
	if a := s.get(t, "/api/bw/v1/auth", ""); a.status != 404 || a.body != "404 page not found" {
		t.Errorf("outside the API: %d %s", a.status, a.body)
	}
	if got := servedAt(t, s, "/cms/api/bw/v2/openapi.json"); got != s.url+"/cms" {
		t.Errorf("openapi.json's server under /cms: %s, want %s/cms", got, s.url)
	}
	s.shutdown(t)

	plain := startServer(t, &cli{env: map[string]string{"CMS_ADMIN_PASSWORD": "admin password"}},
		"--db", "sqlite:"+filepath.Join(t.TempDir(), "cms.db"), "--public-url", "https://cms.example.com/")
	if a := preflight(plain, "/api/bw/v2/auth"); a.status != 405 || a.header.Get("Access-Control-Allow-Origin") != "" {
		t.Errorf("preflight without --cors-origins: %d %v", a.status, a.header)
	}
	if got := servedAt(t, plain, "/api/bw/v2/openapi.json"); got != "https://cms.example.com" {
		t.Errorf("openapi.json's server with --public-url: %s", got)
	}
}

// servedAt is the servers URL of the OpenAPI document at path, fetched
// without a token.
func servedAt(t *testing.T, s *server, path string) string {
	t.Helper()
	a := s.get(t, path, "")
	var doc struct {
		Servers []struct {
			URL string `json:"url"`
		} `json:"servers"`
	}
	jsonUnmarshal(a.body, &doc)
	if a.status != 200 || len(doc.Servers) != 1 {
		t.Fatalf("GET %s: %d, servers %v", path, a.status, doc.Servers)
	}
	return doc.Servers[0].URL
}

// refusal is a start with a bad setting and the message that names it.
type refusal struct {
	args []string
	env  map[string]string
	want string
}

// refused starts the server with each bad setting: each must stop it with
// its message before the database is created.
func refused(t *testing.T, cases []refusal) {
	t.Helper()
	for _, tc := range cases {
		db := filepath.Join(t.TempDir(), "cms.db")
		c := &cli{env: tc.env}
		if code := c.run(t, append([]string{"--addr", "127.0.0.1:0", "--db", "sqlite:" + db}, tc.args...)...); code == 0 ||
			!strings.Contains(c.stderr.String(), tc.want) {
			t.Errorf("%v %v: exit %d, %q; want %q", tc.args, tc.env, code, c.stderr.String(), tc.want)
		}
		if _, err := os.Stat(db); !errors.Is(err, os.ErrNotExist) {
			t.Errorf("%v %v: the database was created (%v)", tc.args, tc.env, err)
		}
	}
}
