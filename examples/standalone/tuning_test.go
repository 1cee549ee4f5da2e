package main

import (
	"bufio"
	"errors"
	"io"
	"net"
	"net/http"
	"net/url"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

// TestTuningSettings: each limit and timeout is a flag and an environment
// variable; a bad value stops the start with a message naming it, before
// anything is created.
func TestTuningSettings(t *testing.T) {
	t.Parallel()
	refused(t, []refusal{
		{[]string{"--read-header-timeout", "soon"}, nil, `--read-header-timeout "soon": want a duration such as 10s or 2m`},
		{[]string{"--idle-timeout", "-1s"}, nil, `--idle-timeout "-1s": want a duration`},
		{nil, map[string]string{"CMS_BODY_TIMEOUT": "10"}, `--body-timeout "10": want a duration`},
		{[]string{"--write-timeout", "x"}, nil, `--write-timeout "x": want a duration`},
		{[]string{"--refresh-grace", "-5s"}, nil, `--refresh-grace "-5s": want a duration`},
		{[]string{"--max-conns", "many"}, nil, `--max-conns "many": want a whole number`},
		{nil, map[string]string{"CMS_MAX_CONNS": "-1"}, `--max-conns "-1": want a whole number`},
	})
	c := &cli{env: map[string]string{"CMS_MAX_CONNS": "8", "CMS_IDLE_TIMEOUT": "0"}}
	s := startServer(t, c, "--db", "sqlite:"+filepath.Join(t.TempDir(), "cms.db"), "--read-header-timeout", "1m",
		"--body-timeout", "0", "--write-timeout", "1m30s", "--refresh-grace", "1s")
	if a := s.get(t, "/api/bw/v2/auth", ""); a.status != 401 {
		t.Errorf("server with every setting given: %d %s", a.status, a.body)
	}
}

// TestPortInUse: the server binds its port before it sets up the
// database, so a port in use fails before an account, a user or a
// password exists; the next start on a free port prints the password
// once.
func TestPortInUse(t *testing.T) {
	t.Parallel()
	taken, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer taken.Close()
	db := "sqlite:" + filepath.Join(t.TempDir(), "cms.db")
	c := &cli{env: map[string]string{}}
	if code := c.run(t, "--addr", taken.Addr().String(), "--db", db); code == 0 ||
		!strings.Contains(c.stderr.String(), "address already in use") {
		t.Fatalf("port in use: exit %d, %q", code, c.stderr.String())
	}
	if c.stdout.String() != "" {
		t.Errorf("a failed start printed %q", c.stdout.String())
	}
	list := &cli{env: map[string]string{}}
	if code := list.run(t, "user", "list", "--db", db); code != 0 || list.stdout.String() != "" {
		t.Errorf("users after a failed start: exit %d, %q %q", code, list.stdout.String(), list.stderr.String())
	}
	c2 := &cli{env: map[string]string{}}
	s := startServer(t, c2, "--db", db)
	if n := len(generated.FindAllString(c2.stdout.String(), -1)); n != 1 {
		t.Fatalf("password printed %d times: %q", n, c2.stdout.String())
	}
	s.login(t, "admin", generated.FindStringSubmatch(c2.stdout.String())[1])
}

// TestRefreshGraceSetting: with --refresh-grace 0 a refresh token used a
// second time at once is reuse (401 invalid_grant); by default it gets a
// fresh pair.
func TestRefreshGraceSetting(t *testing.T) {
	t.Parallel()
	const invalidGrant = `{"error":"invalid_grant","error_description":"Invalid or expired refresh token"}`
	for _, tc := range []struct {
		args   []string
		second int
	}{
		{[]string{"--refresh-grace", "0"}, 401},
		{nil, 200},
	} {
		c := &cli{env: map[string]string{"CMS_ADMIN_PASSWORD": "the admin password"}}
		s := startServer(t, c, append([]string{"--db", "sqlite:" + filepath.Join(t.TempDir(), "cms.db")}, tc.args...)...)
		sess := s.login(t, "admin", "the admin password")
		if a := s.post(t, "/api/bw/v2/auth/refresh", url.Values{"refresh_token": {sess.Refresh}}, ""); a.status != 200 {
			t.Fatalf("%v: first refresh: %d %s", tc.args, a.status, a.body)
		}
		a := s.post(t, "/api/bw/v2/auth/refresh", url.Values{"refresh_token": {sess.Refresh}}, "")
		if a.status != tc.second || (tc.second == 401 && a.body != invalidGrant) {
			t.Errorf("%v: second refresh with one token: %d %s, want %d", tc.args, a.status, a.body, tc.second)
		}
		s.shutdown(t)
	}
}

// TestConnectionCap: with --max-conns 2, a third connection is not served
// while two are open, and is served once one closes.
func TestConnectionCap(t *testing.T) {
	t.Parallel()
	c := &cli{env: map[string]string{}}
	s := startServer(t, c, "--db", "sqlite:"+filepath.Join(t.TempDir(), "cms.db"), "--max-conns", "2")
	addr := strings.TrimPrefix(s.url, "http://")
	const req = "GET /api/bw/v2/auth HTTP/1.1\r\nHost: example.test\r\n\r\n"
	ask := func(conn net.Conn, wait time.Duration) error {
		if _, err := io.WriteString(conn, req); err != nil {
			return err
		}
		conn.SetReadDeadline(time.Now().Add(wait))
		res, err := http.ReadResponse(bufio.NewReader(conn), nil)
		if err != nil {
			return err
		}
		res.Body.Close()
		if res.StatusCode != 401 {
			t.Errorf("status %d", res.StatusCode)
		}
		return nil
	}
	var open []net.Conn
	for range 3 {
		conn, err := net.Dial("tcp", addr)
		if err != nil {
			t.Fatal(err)
		}
		defer conn.Close()
		open = append(open, conn)
	}
	for i, conn := range open[:2] {
		if err := ask(conn, 10*time.Second); err != nil {
			t.Fatalf("connection %d: %v", i, err)
		}
	}
	third := make(chan error, 1)
	go func() { third <- ask(open[2], 30*time.Second) }()
	select {
	case err := <-third:
		t.Fatalf("a third connection was served while two were open (%v)", err)
	case <-time.After(500 * time.Millisecond):
	}
	open[0].Close()
	if err := <-third; err != nil {
		t.Fatalf("the third connection after one closed: %v", err)
	}
}

// TestBodyTimeoutSetting: --body-timeout reaches the handler: a body that
// stops arriving is answered 408 and its connection closed.
func TestBodyTimeoutSetting(t *testing.T) {
	t.Parallel()
	c := &cli{env: map[string]string{}}
	s := startServer(t, c, "--db", "sqlite:"+filepath.Join(t.TempDir(), "cms.db"), "--body-timeout", "300ms")
	conn, err := net.Dial("tcp", strings.TrimPrefix(s.url, "http://"))
	if err != nil {
		t.Fatal(err)
	}
	defer conn.Close()
	if _, err := io.WriteString(conn, "POST /api/bw/v2/auth HTTP/1.1\r\nHost: example.test\r\n"+
		"Content-Type: application/x-www-form-urlencoded\r\nContent-Length: 1000\r\n\r\nu=adm"); err != nil {
		t.Fatal(err)
	}
	conn.SetReadDeadline(time.Now().Add(10 * time.Second))
	got, err := io.ReadAll(conn)
	if errors.Is(err, os.ErrDeadlineExceeded) {
		t.Fatal("a stalled body still holds its connection after 10 s")
	}
	if !strings.HasPrefix(string(got), "HTTP/1.1 408 ") {
		t.Errorf("stalled body: %q", got)
	}
}
