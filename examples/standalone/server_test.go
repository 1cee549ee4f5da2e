package main

import (
	"bytes"
	"context"
	"encoding/json"
	"io"
	"net/http"
	"net/url"
	"path/filepath"
	"regexp"
	"strings"
	"sync"
	"testing"
	"time"
)

// buffer is a goroutine-safe output.
type buffer struct {
	mu sync.Mutex
	b  bytes.Buffer
}

func (b *buffer) Write(p []byte) (int, error) {
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.b.Write(p)
}

func (b *buffer) String() string {
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.b.String()
}

// cli runs one command line in process.
type cli struct {
	env    map[string]string
	stdin  string
	stdout buffer
	stderr buffer
}

func (c *cli) env0() env {
	return env{getenv: func(k string) string { return c.env[k] }, stdin: strings.NewReader(c.stdin),
		stdout: &c.stdout, stderr: &c.stderr}
}

func (c *cli) run(t *testing.T, args ...string) int {
	t.Helper()
	return run(t.Context(), args, c.env0())
}

// server is a running standalone server.
type server struct {
	url    string
	stop   context.CancelFunc
	done   chan int
	stdout *buffer
	stderr *buffer
}

func startServer(t *testing.T, c *cli, args ...string) *server {
	t.Helper()
	ctx, cancel := context.WithCancel(context.Background())
	ready := make(chan string, 1)
	e := c.env0()
	e.ready = func(addr string) { ready <- addr }
	s := &server{stop: cancel, done: make(chan int, 1), stdout: &c.stdout, stderr: &c.stderr}
	go func() { s.done <- run(ctx, append([]string{"--addr", "127.0.0.1:0"}, args...), e) }()
	select {
	case addr := <-ready:
		s.url = "http://" + addr
	case code := <-s.done:
		cancel()
		t.Fatalf("server exited with %d: %s", code, c.stderr.String())
	case <-time.After(30 * time.Second):
		t.Fatal("server did not start")
	}
	t.Cleanup(func() { s.shutdown(t) })
	return s
}

func (s *server) shutdown(t *testing.T) {
	t.Helper()
	if s.stop == nil {
		return
	}
	s.stop()
	s.stop = nil
	if code := <-s.done; code != 0 {
		t.Errorf("server exit code %d: %s", code, s.stderr.String())
	}
}

type answer struct {
	status int
	body   string
	header http.Header
}

func (s *server) post(t *testing.T, path string, form url.Values, cookie string) answer {
	t.Helper()
	req, _ := http.NewRequest("POST", s.url+path, strings.NewReader(form.Encode()))
	req.Header.Set("Content-Type", "application/x-www-form-urlencoded")
	if cookie != "" {
		req.AddCookie(&http.Cookie{Name: "bw_rtoken", Value: cookie})
	}
	return s.do(t, req)
}

func (s *server) get(t *testing.T, path, token string) answer {
	t.Helper()
	req, _ := http.NewRequest("GET", s.url+path, nil)
	if token != "" {
		req.Header.Set("Authorization", "Bearer "+token)
	}
	return s.do(t, req)
}

func (s *server) do(t *testing.T, req *http.Request) answer {
	t.Helper()
	res, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	defer res.Body.Close()
	b, _ := io.ReadAll(res.Body)
	return answer{res.StatusCode, strings.TrimSpace(string(b)), res.Header}
}

type session struct {
	Access  string `json:"access_token"`
	Refresh string `json:"refresh_token"`
}

func (s *server) login(t *testing.T, user, password string) session {
	t.Helper()
	a := s.post(t, "/api/bw/v2/auth", url.Values{"u": {user}, "p": {password}}, "")
	if a.status != 200 {
		t.Fatalf("login %s: %d %s", user, a.status, a.body)
	}
	var sess session
	json.Unmarshal([]byte(a.body), &sess)
	return sess
}

type claims struct {
	Sub   string   `json:"sub"`
	Acc   string   `json:"acc"`
	Perms []string `json:"perms"`
	Lang  string   `json:"lang"`
	Langs []string `json:"langs"`
}

func (s *server) claims(t *testing.T, token string) claims {
	t.Helper()
	a := s.get(t, "/api/bw/v2/auth", token)
	if a.status != 200 {
		t.Fatalf("validate: %d %s", a.status, a.body)
	}
	var v struct {
		JWT claims `json:"jwt"`
	}
	json.Unmarshal([]byte(a.body), &v)
	return v.JWT
}

var generated = regexp.MustCompile(`admin user "admin" created with password (\S+) \(shown once\)`)

// startNewcomer starts the server on a new database at db as a newcomer
// does, with the password it prints for the admin.
func startNewcomer(t *testing.T, db string) (*server, string) {
	t.Helper()
	c := &cli{env: map[string]string{}}
	s := startServer(t, c, "--db", db)
	m := generated.FindStringSubmatch(c.stdout.String())
	if m == nil {
		t.Fatalf("no generated password printed: %q", c.stdout.String())
	}
	return s, m[1]
}

// TestNewcomer is the README's path: start, log in with the printed
// password, validate, refresh with the cookie, log out; a restart keeps
// the password and the signing secret.
func TestNewcomer(t *testing.T) {
	t.Parallel()
	db := "sqlite:" + filepath.Join(t.TempDir(), "cms.db")
	s, password := startNewcomer(t, db)
	sess := s.login(t, "admin", password)
	cl := s.claims(t, sess.Access)
	if cl.Sub != "admin" || cl.Acc != "default" || cl.Lang != "en" || strings.Join(cl.Langs, ",") != "en" || strings.Join(cl.Perms, ",") != "*" {
		t.Errorf("claims: %+v", cl)
	}
	a := s.post(t, "/api/bw/v2/auth/refresh", nil, sess.Refresh)
	if a.status != 200 || !strings.Contains(a.body, `"token_type":"Bearer","expires_in":900`) ||
		!strings.Contains(a.header.Get("Set-Cookie"), "HttpOnly; Secure; SameSite=Strict") {
		t.Errorf("refresh: %d %s %v", a.status, a.body, a.header)
	}
	var next session
	json.Unmarshal([]byte(a.body), &next)
	if a := s.post(t, "/api/bw/v2/auth/logout", nil, next.Refresh); a.status != 200 || a.body != `{"message":"Successfully logged out"}` {
		t.Errorf("logout: %d %s", a.status, a.body)
	}
	if a := s.post(t, "/api/bw/v2/auth/refresh", nil, next.Refresh); a.status != 401 ||
		a.body != `{"error":"invalid_grant","error_description":"Invalid or expired refresh token"}` {
		t.Errorf("refresh after logout: %d %s", a.status, a.body)
	}
	s.shutdown(t)

	// A restart prints no password; the old one and the old token work.
	c2 := &cli{env: map[string]string{}}
	s2 := startServer(t, c2, "--db", db)
	if strings.Contains(c2.stdout.String(), "password") {
		t.Errorf("restart printed: %q", c2.stdout.String())
	}
	if s2.claims(t, sess.Access).Sub != "admin" {
		t.Error("the access token of the first run is refused after the restart")
	}
	s2.login(t, "admin", password)
}

// TestSettings: flags beat environment variables; the bootstrap account
// takes --langs; a short secret stops the start.
func TestSettings(t *testing.T) {
	t.Parallel()
	db := "sqlite:" + filepath.Join(t.TempDir(), "cms.db")
	c := &cli{env: map[string]string{"CMS_ADMIN_PASSWORD": "from the environment", "CMS_LANGS": "de", "CMS_ADMIN_USER": "boss"}}
	s := startServer(t, c, "--db", db, "--langs", "it,en")
	if strings.Contains(c.stdout.String(), "password") {
		t.Errorf("a given password was printed: %q", c.stdout.String())
	}
	cl := s.claims(t, s.login(t, "boss", "from the environment").Access)
	if cl.Lang != "it" || strings.Join(cl.Langs, ",") != "it,en" {
		t.Errorf("claims: %+v", cl)
	}
	s.shutdown(t)

	bad := &cli{env: map[string]string{"CMS_DB": db}}
	if code := bad.run(t, "--addr", "127.0.0.1:0", "--jwt-secret", "too short"); code == 0 ||
		!strings.Contains(bad.stderr.String(), "--jwt-secret: want at least 32 bytes (it has 9)") {
		t.Errorf("short secret: exit %d, %q", code, bad.stderr.String())
	}
	if code := bad.run(t, "--db", "mysql://x"); code == 0 || !strings.Contains(bad.stderr.String(), "want sqlite:PATH or postgres://") {
		t.Errorf("bad --db: exit %d, %q", code, bad.stderr.String())
	}
}

func jsonUnmarshal(s string, v any) { json.Unmarshal([]byte(s), v) }

// TestLangsWarning: a restart without --langs says nothing of the
// account's languages; one with a --langs that differs warns once; an
// account whose languages changed through the commands keeps them.
func TestLangsWarning(t *testing.T) {
	t.Parallel()
	db := "sqlite:" + filepath.Join(t.TempDir(), "cms.db")
	const warning = "--langs applies at creation only"
	first := &cli{env: map[string]string{"CMS_ADMIN_PASSWORD": "admin password"}}
	startServer(t, first, "--db", db, "--langs", "en,it").shutdown(t)
	if strings.Contains(first.stderr.String(), warning) {
		t.Errorf("the first start warned: %s", first.stderr.String())
	}
	for _, c := range []struct {
		args []string
		env  map[string]string
		warn bool
	}{
		{args: nil, warn: false},
		{args: []string{"--langs", "en,it"}, warn: false},
		{args: []string{"--langs", "de"}, warn: true},
		{env: map[string]string{"CMS_LANGS": "fr"}, warn: true},
	} {
		cl := &cli{env: map[string]string{"CMS_ADMIN_PASSWORD": "admin password"}}
		for k, v := range c.env {
			cl.env[k] = v
		}
		startServer(t, cl, append([]string{"--db", db}, c.args...)...).shutdown(t)
		if got := strings.Contains(cl.stderr.String(), warning); got != c.warn {
			t.Errorf("start with %v %v: warned %v, want %v: %s", c.args, c.env, got, c.warn, cl.stderr.String())
		}
	}
	adm := &cli{env: map[string]string{"CMS_DB": db}}
	if code := adm.run(t, "account", "add-lang", "default", "de"); code != 0 {
		t.Fatalf("add-lang: %d %s", code, adm.stderr.String())
	}
	cl := &cli{env: map[string]string{"CMS_ADMIN_PASSWORD": "admin password"}}
	s := startServer(t, cl, "--db", db)
	if claims := s.claims(t, s.login(t, "admin", "admin password").Access); strings.Join(claims.Langs, ",") != "en,it,de" {
		t.Errorf("langs after add-lang and a restart: %v", claims.Langs)
	}
}

// TestHealthAndMetrics: /healthz, /readyz and /metrics on --addr by
// default, the API's requests counted there; --metrics-addr moves
// /metrics to a listener of its own; --access-log on logs each request.
func TestHealthAndMetrics(t *testing.T) {
	t.Parallel()
	db := "sqlite:" + filepath.Join(t.TempDir(), "cms.db")
	c := &cli{env: map[string]string{"CMS_ADMIN_PASSWORD": "admin password"}}
	s := startServer(t, c, "--db", db)
	if a := s.get(t, "/healthz", ""); a.status != 200 || strings.TrimSpace(a.body) != `{"status":"ok"}` {
		t.Errorf("/healthz: %d %s", a.status, a.body)
	}
	if a := s.get(t, "/readyz", ""); a.status != 200 || strings.TrimSpace(a.body) != `{"status":"ready"}` {
		t.Errorf("/readyz: %d %s", a.status, a.body)
	}
	tok := s.login(t, "admin", "admin password").Access
	if a := s.get(t, "/api/bw/v2/resource", tok); a.status != 200 {
		t.Fatalf("list: %d %s", a.status, a.body)
	}
	a := s.get(t, "/metrics", "")
	for _, want := range []string{`bwcms_http_requests_total{code="200",route="resource read"} 1`,
		`bwcms_http_requests_total{code="200",route="auth"} 1`, "bwcms_batch_queue_waiting 0", "bwcms_write_queued 0",
		"bwcms_write_groups_total ", "go_goroutines "} {
		if a.status != 200 || !strings.Contains(a.body, want) {
			t.Errorf("/metrics: %d, no %q in\n%s", a.status, want, a.body)
		}
	}
	if strings.Contains(c.stderr.String(), `msg=request`) {
		t.Errorf("an access log without --access-log: %s", c.stderr.String())
	}
	s.shutdown(t)

	c = &cli{env: map[string]string{"CMS_ADMIN_PASSWORD": "admin password", "CMS_ACCESS_LOG": "on"}}
	s = startServer(t, c, "--db", db, "--metrics-addr", "127.0.0.1:0")
	if a := s.get(t, "/metrics", ""); a.status != 404 {
		t.Errorf("/metrics on --addr with --metrics-addr: %d", a.status)
	}
	m := regexp.MustCompile(`msg=metrics addr=(http://[0-9.:]+/metrics)`).FindStringSubmatch(c.stderr.String())
	if m == nil {
		t.Fatalf("no metrics address logged: %s", c.stderr.String())
	}
	res, err := http.Get(m[1])
	if err != nil {
		t.Fatal(err)
	}
	body, _ := io.ReadAll(res.Body)
	res.Body.Close()
	if res.StatusCode != 200 || !strings.Contains(string(body), "bwcms_login_refusals_total") {
		t.Errorf("%s: %d %.200s", m[1], res.StatusCode, body)
	}
	s.get(t, "/api/bw/v2/resource/xyz", "")
	if !strings.Contains(c.stderr.String(), `msg=request method=GET path=/api/bw/v2/resource/xyz route="resource read" status=401`) {
		t.Errorf("no access log line of the read: %s", c.stderr.String())
	}
	bad := &cli{env: map[string]string{"CMS_DB": db}}
	if code := bad.run(t, "--access-log", "maybe"); code == 0 || !strings.Contains(bad.stderr.String(), "--access-log") {
		t.Errorf("--access-log maybe: exit %d, %q", code, bad.stderr.String())
	}
}
