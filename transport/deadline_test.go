package transport

import (
	"bufio"
	"errors"
	"fmt"
	"io"
	"net"
	"net/http"
	"net/http/httptest"
	"os"
	"strings"
	"testing"
	"time"
)

// serveReal serves e's handler through a real http.Server, as a host
// would, and returns its address.
func serveReal(t *testing.T, e *env) string {
	t.Helper()
	srv := httptest.NewServer(e.h)
	t.Cleanup(srv.Close)
	return srv.Listener.Addr().String()
}

// dial opens a raw client connection.
func dial(t *testing.T, addr string) net.Conn {
	t.Helper()
	c, err := net.Dial("tcp", addr)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { c.Close() })
	return c
}

// head is a request's header block with a declared body length.
func head(method, path string, length int, header map[string]string) string {
	var b strings.Builder
	fmt.Fprintf(&b, "%s %s HTTP/1.1\r\nHost: example.test\r\nContent-Length: %d\r\n", method, path, length)
	for k, v := range header {
		fmt.Fprintf(&b, "%s: %s\r\n", k, v)
	}
	b.WriteString("\r\n")
	return b.String()
}

// closedWithin reads c until the server closes it and returns what came;
// it fails the test when the connection is still open after limit.
func closedWithin(t *testing.T, c net.Conn, limit time.Duration) string {
	t.Helper()
	c.SetReadDeadline(time.Now().Add(limit))
	got, err := io.ReadAll(c)
	if errors.Is(err, os.ErrDeadlineExceeded) {
		t.Fatalf("connection still open after %v; read %q", limit, got)
	}
	return string(got) // EOF, or a reset when the server closed with unread data
}

// trickle writes body to c one byte every gap, until it is all sent or
// the server closes the connection; done is closed then.
func trickle(c net.Conn, body string, gap time.Duration) (done chan struct{}) {
	done = make(chan struct{})
	go func() {
		defer close(done)
		for i := range len(body) {
			if _, err := c.Write([]byte{body[i]}); err != nil {
				return
			}
			time.Sleep(gap)
		}
	}()
	return done
}

// TestSlowBodyIsCut: a body that does not deliver BodyReadChunk bytes
// within BodyReadTimeout is cut and its connection closed, with or
// without credentials, and nothing of it is stored.
func TestSlowBodyIsCut(t *testing.T) {
	t.Parallel()
	e := newEnv(t, envOptions{http: func(o *Options) {
		o.BodyReadTimeout = 300 * time.Millisecond
		o.BodyReadChunk = 1024
	}})
	addr := serveReal(t, e)
	record := `{"id":"slow1","title":"Slow"` + strings.Repeat(" ", 4000) + `}`
	for _, tc := range []struct {
		name, path, body string
		header           map[string]string
	}{
		{"login without credentials", "/api/bw/v2/auth", form("u", "admin", "p", strings.Repeat("x", 4000)),
			map[string]string{"Content-Type": "application/x-www-form-urlencoded"}},
		{"record with a token", "/api/bw/v2/resource", record,
			map[string]string{"Content-Type": "application/json", "Authorization": "Bearer " + e.token("admin")}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			c := dial(t, addr)
			if _, err := io.WriteString(c, head("POST", tc.path, len(tc.body), tc.header)); err != nil {
				t.Fatal(err)
			}
			sent := trickle(c, tc.body, 50*time.Millisecond)
			got := closedWithin(t, c, 10*time.Second)
			if got != "" && !strings.HasPrefix(got, "HTTP/1.1 408 ") {
				t.Errorf("answer to a slow body: %q", got)
			}
			if got != "" && !strings.Contains(got, `{"fail":"Request timeout"}`) {
				t.Errorf("408 body: %q", got)
			}
			c.Close()
			<-sent
		})
	}
	if w := e.send("admin", "GET", "/api/bw/v2/resource/slow1/published/*", "", nil); w.Code != http.StatusNotFound {
		t.Errorf("the cut record was stored: %d %s", w.Code, w.Body)
	}
}

// TestSteadyBodyPasses: a body that keeps arriving faster than the
// minimum rate passes, though it takes longer than one BodyReadTimeout.
func TestSteadyBodyPasses(t *testing.T) {
	t.Parallel()
	e := newEnv(t, envOptions{http: func(o *Options) {
		o.BodyReadTimeout = time.Second
		o.BodyReadChunk = 1024
	}})
	addr := serveReal(t, e)
	body := `{"id":"steady1","title":"Steady"` + strings.Repeat(" ", 16<<10) + `}`
	c := dial(t, addr)
	start := time.Now()
	if _, err := io.WriteString(c, head("POST", "/api/bw/v2/resource", len(body), map[string]string{
		"Content-Type": "application/json", "Authorization": "Bearer " + e.token("admin")})); err != nil {
		t.Fatal(err)
	}
	for rest := body; rest != ""; {
		n := min(len(rest), 1024)
		if _, err := io.WriteString(c, rest[:n]); err != nil {
			t.Fatal(err)
		}
		rest = rest[n:]
		time.Sleep(100 * time.Millisecond)
	}
	c.SetReadDeadline(time.Now().Add(30 * time.Second))
	res, err := http.ReadResponse(bufio.NewReader(c), nil)
	if err != nil {
		t.Fatal(err)
	}
	b, _ := io.ReadAll(res.Body)
	if res.StatusCode != http.StatusCreated {
		t.Fatalf("steady body: %d %s", res.StatusCode, b)
	}
	if took := time.Since(start); took < time.Second {
		t.Fatalf("the body took %v, not longer than one timeout: the test proves nothing", took)
	}
	if w := e.send("admin", "GET", "/api/bw/v2/resource/steady1/published/*", "", nil); w.Code != http.StatusOK {
		t.Errorf("steady record: %d %s", w.Code, w.Body)
	}
}

// TestDeclaredLengthOverLimit: a Content-Length over the route's limit is
// refused with 413 before any of the body is read, so a client that
// never sends it gets its answer (and no 100 Continue); routing, 401 and
// 403 come first.
func TestDeclaredLengthOverLimit(t *testing.T) {
	t.Parallel()
	e := newEnv(t, envOptions{http: func(o *Options) {
		o.MaxBody = 4096
		o.MaxBatchBody = 8192
	}})
	addr := serveReal(t, e)
	form := map[string]string{"Content-Type": "application/x-www-form-urlencoded"}
	json := func(user string) map[string]string {
		h := map[string]string{"Content-Type": "application/json"}
		if user != "" {
			h["Authorization"] = "Bearer " + e.token(user)
		}
		return h
	}
	with := func(h map[string]string, k, v string) map[string]string {
		out := map[string]string{k: v}
		for hk, hv := range h {
			out[hk] = hv
		}
		return out
	}
	const tooLarge = `{"fail":"Request too large"}`
	for _, tc := range []struct {
		name, path string
		length     int
		header     map[string]string
		status     int
		body       string
	}{
		{"login", "/api/bw/v2/auth", MaxAuthBody + 1, form, 413, tooLarge},
		{"login, not a form", "/api/bw/v2/auth", MaxAuthBody + 1, nil, 413, tooLarge},
		{"refresh", "/api/bw/v2/auth/refresh", MaxAuthBody + 1, form, 413, tooLarge},
		{"refresh with a cookie", "/api/bw/v2/auth/refresh", MaxAuthBody + 1, with(form, "Cookie", RefreshCookie+"=abc"), 413, tooLarge},
		{"logout", "/api/bw/v2/auth/logout", MaxAuthBody + 1, form, 413, tooLarge},
		{"create", "/api/bw/v2/resource", 4097, json("admin"), 413, tooLarge},
		{"batch", "/api/bw/v2/map/batch", 8193, json("admin"), 413, tooLarge},
		{"a gigabyte", "/api/bw/v2/resource/batch", 1 << 30, json("admin"), 413, tooLarge},
		{"unknown path first", "/api/bw/v2/nothing", 1 << 30, json("admin"), 404, `{"fail":"Not found"}`},
		{"no token first", "/api/bw/v2/resource", 1 << 30, json(""), 401, `{"fail":"Unauthorized"}`},
		{"no permission first", "/api/bw/v2/resource", 1 << 30, json("reader"), 403, `{"fail":"Forbidden"}`},
		{"cross-site first", "/api/bw/v2/auth", 1 << 30, with(form, "Sec-Fetch-Site", "cross-site"), 403, `{"fail":"Forbidden"}`},
	} {
		for _, expect := range []bool{false, true} {
			t.Run(fmt.Sprintf("%s/expect=%v", tc.name, expect), func(t *testing.T) {
				h := tc.header
				if expect {
					h = with(h, "Expect", "100-continue")
				}
				c := dial(t, addr)
				if _, err := io.WriteString(c, head("POST", tc.path, tc.length, h)); err != nil {
					t.Fatal(err)
				}
				c.SetReadDeadline(time.Now().Add(10 * time.Second))
				res, err := http.ReadResponse(bufio.NewReader(c), nil)
				if err != nil {
					t.Fatalf("no answer before the body: %v", err)
				}
				b, _ := io.ReadAll(res.Body)
				if res.StatusCode != tc.status || strings.TrimSpace(string(b)) != tc.body {
					t.Fatalf("answer %d %s, want %d %s", res.StatusCode, b, tc.status, tc.body)
				}
				if tc.status == 413 {
					closedWithin(t, c, 10*time.Second)
				}
			})
		}
	}
}

// smallBuffers shrinks the send buffer of every accepted connection, so
// a client that stops reading blocks the server's writes soon.
type smallBuffers struct{ net.Listener }

func (l smallBuffers) Accept() (net.Conn, error) {
	c, err := l.Listener.Accept()
	if tc, ok := c.(*net.TCPConn); ok {
		tc.SetWriteBuffer(4096)
	}
	return c, err
}

// TestStalledReaderIsCut: a client that stops reading a long streamed
// list has its connection closed after WriteTimeout, and the handler
// returns instead of waiting for it for ever.
func TestStalledReaderIsCut(t *testing.T) {
	t.Parallel()
	e := newEnv(t, envOptions{http: func(o *Options) { o.WriteTimeout = 300 * time.Millisecond }})
	html := `"<p>` + strings.Repeat("x", 31000) + `</p>"`
	for i := range 20 {
		body := fmt.Sprintf(`{"id":"big%02d","title":"Big","published":true,"htmlContent":%s,"htmlContent_it":%s,"htmlContent_de":%s}`, i, html, html, html)
		if w := e.send("admin", "POST", "/api/bw/v2/resource", body, nil); w.Code != http.StatusCreated {
			t.Fatalf("seed %d: %d %s", i, w.Code, w.Body)
		}
	}
	returned := make(chan struct{}, 1)
	closed := make(chan struct{}, 1)
	srv := httptest.NewUnstartedServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		e.h.ServeHTTP(w, r)
		returned <- struct{}{}
	}))
	srv.Listener = smallBuffers{srv.Listener}
	srv.Config.ConnState = func(_ net.Conn, s http.ConnState) {
		if s == http.StateClosed {
			closed <- struct{}{}
		}
	}
	srv.Start()
	t.Cleanup(srv.Close)
	c := dial(t, srv.Listener.Addr().String())
	c.(*net.TCPConn).SetReadBuffer(4096)
	req := "GET /api/bw/v2/resource HTTP/1.1\r\nHost: example.test\r\nAuthorization: Bearer " + e.token("admin") + "\r\n\r\n"
	if _, err := io.WriteString(c, req); err != nil {
		t.Fatal(err)
	}
	for name, ch := range map[string]chan struct{}{"the handler returned": returned, "the connection closed": closed} {
		select {
		case <-ch:
		case <-time.After(20 * time.Second):
			t.Fatalf("a client that stopped reading: not %s after 20 s", name)
		}
	}
	// What did arrive is the start of the list, never taken for a whole one.
	got := closedWithin(t, c, 10*time.Second)
	if !strings.HasPrefix(got, "HTTP/1.1 200 ") || strings.HasSuffix(got, "\r\n0\r\n\r\n") {
		t.Errorf("stalled list: %d bytes, starting %.40q", len(got), got)
	}
}

// TestEagerClientSeesTooLarge: a client that sends its whole oversized
// body without waiting still reads the 413, not a reset connection.
func TestEagerClientSeesTooLarge(t *testing.T) {
	t.Parallel()
	e := newEnv(t, envOptions{http: func(o *Options) { o.MaxBody = 4096 }})
	srv := httptest.NewServer(e.h)
	t.Cleanup(srv.Close)
	for _, size := range []int{MaxAuthBody + 1, 200 << 10, 4 << 20} {
		for _, path := range []string{"/api/bw/v2/auth", "/api/bw/v2/resource"} {
			for i := range 6 {
				var body io.Reader = strings.NewReader(strings.Repeat("x", size))
				if i%2 == 1 {
					body = io.MultiReader(body) // no declared length: chunked
				}
				req, _ := http.NewRequest("POST", srv.URL+path, body)
				req.Header.Set("Content-Type", "application/x-www-form-urlencoded")
				req.Header.Set("Authorization", "Bearer "+e.token("admin"))
				res, err := srv.Client().Do(req)
				if err != nil {
					t.Fatalf("%s, %d bytes: %v", path, size, err)
				}
				b, _ := io.ReadAll(res.Body)
				res.Body.Close()
				if res.StatusCode != 413 || strings.TrimSpace(string(b)) != `{"fail":"Request too large"}` {
					t.Fatalf("%s, %d bytes: %d %s", path, size, res.StatusCode, b)
				}
			}
		}
	}
}
