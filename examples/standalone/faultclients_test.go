package main

import (
	"bufio"
	"context"
	"fmt"
	"io"
	"net"
	"net/http"
	"net/url"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"
)

// TestFaultLoginBurst: bursts of simultaneous wrong passwords for one
// username from one address (X-Forwarded-For through a trusted proxy):
// at most 5 are evaluated (401), the rest get 429 with Retry-After; the
// right password from that address is refused too, while the user logs in
// from an address of its own.
func TestFaultLoginBurst(t *testing.T) {
	t.Parallel()
	p := startProc(t, "--db", "sqlite:"+filepath.Join(t.TempDir(), "cms.db"), "--trusted-proxies", "127.0.0.1")
	c := newClient(t, p)
	c.token = ""
	bursts, size := long(1, 5), long(20, 100)
	login := func(password, from string) reply {
		return c.do(context.Background(), "POST", "/api/bw/v2/auth", "application/x-www-form-urlencoded",
			[]byte(url.Values{"u": {"admin"}, "p": {password}}.Encode()), http.Header{"X-Forwarded-For": {from}})
	}
	var attempts, evaluated, refused int
	for b := range bursts {
		attacker, user := fmt.Sprintf("203.0.113.%d", 10+b), fmt.Sprintf("198.51.100.%d", 10+b)
		var mu sync.Mutex
		status := map[int]int{}
		var wg sync.WaitGroup
		for i := range size {
			wg.Go(func() {
				r := login(fmt.Sprintf("wrong %d", i), attacker)
				mu.Lock()
				defer mu.Unlock()
				status[r.status]++
				if r.status == 429 && (strings.TrimSpace(string(r.body)) != `{"fail":"Too many attempts"}` || r.header.Get("Retry-After") == "") {
					t.Errorf("429: %s, Retry-After %q", r.body, r.header.Get("Retry-After"))
				}
			})
		}
		wg.Wait()
		attempts += size
		evaluated += status[401]
		refused += status[429]
		if status[401] > 5 || status[401]+status[429] != size {
			t.Errorf("burst %d of %d wrong passwords: %v, want at most 5 401 and the rest 429", b, size, status)
		}
		if r := login(faultPassword, attacker); r.status != 429 {
			t.Errorf("right password from the throttled address: %d %s", r.status, r.body)
		}
		if r := login(faultPassword, user); r.status != 200 {
			t.Errorf("right password from the user's address: %d %s", r.status, r.body)
		}
	}
	t.Logf("figures: login bursts: bursts=%d attempts=%d evaluated=%d refused-429=%d", bursts, attempts, evaluated, refused)
}

// The timeouts the slow-client test gives the server, and how late a
// close may come (a loaded machine, the race detector).
const (
	slowTimeout = time.Second
	slowMargin  = 3 * time.Second
)

// TestFaultSlowClients: connections that send headers or a body too
// slowly, or stall, are closed on time; a declared body over the limit is
// answered 413 before any of it is read, without 100 Continue.
func TestFaultSlowClients(t *testing.T) {
	t.Parallel()
	p := startProc(t, "--db", "sqlite:"+filepath.Join(t.TempDir(), "cms.db"),
		"--read-header-timeout", slowTimeout.String(), "--body-timeout", slowTimeout.String())
	token := newClient(t, p).token
	addr := strings.TrimPrefix(p.url, "http://")
	post := func(path string, length int64, extra string) string {
		return fmt.Sprintf("POST %s HTTP/1.1\r\nHost: %s\r\nAuthorization: Bearer %s\r\nContent-Type: application/json\r\nContent-Length: %d\r\n%s\r\n",
			path, addr, token, length, extra)
	}
	t.Run("slow headers", func(t *testing.T) {
		t.Parallel()
		d := closedAfter(t, addr, "GET /api/bw/v2/auth HTTP/1.1\r\nHost: "+addr+"\r\nX-Slow: ", "a", 100*time.Millisecond)
		t.Logf("figures: slow headers (one byte per 100ms, --read-header-timeout %v): closed after %v", slowTimeout, d.Round(time.Millisecond))
	})
	t.Run("slow body", func(t *testing.T) {
		t.Parallel()
		d := closedAfter(t, addr, post("/api/bw/v2/resource", 100000, "")+`{"id":"slow","title":"`, "a", 100*time.Millisecond)
		t.Logf("figures: slow body (one byte per 100ms, --body-timeout %v): closed after %v", slowTimeout, d.Round(time.Millisecond))
	})
	t.Run("stalled body", func(t *testing.T) {
		t.Parallel()
		d := closedAfter(t, addr, post("/api/bw/v2/resource/batch", 100000, "")+`[{"id":"stalled"`, "", 0)
		t.Logf("figures: stalled body (--body-timeout %v): closed after %v", slowTimeout, d.Round(time.Millisecond))
	})
	for _, tc := range []struct {
		name, path string
		limit      int64
	}{
		{"login", "/api/bw/v2/auth", 64 << 10},
		{"record", "/api/bw/v2/resource", 8 << 20},
		{"batch", "/api/bw/v2/resource/batch", 64 << 20},
	} {
		for _, expect := range []string{"", "Expect: 100-continue\r\n"} {
			t.Run("oversize "+tc.name+" "+strings.TrimSpace(expect), func(t *testing.T) {
				t.Parallel()
				conn, err := net.Dial("tcp", addr)
				if err != nil {
					t.Fatal(err)
				}
				defer conn.Close()
				start := time.Now()
				io.WriteString(conn, post(tc.path, tc.limit+1, expect)) // and not one byte of the body
				conn.SetReadDeadline(time.Now().Add(slowTimeout + slowMargin))
				res, err := http.ReadResponse(bufio.NewReader(conn), nil)
				if err != nil {
					t.Fatalf("no answer before the body: %v", err)
				}
				body, _ := io.ReadAll(io.LimitReader(res.Body, 1<<10))
				if res.StatusCode != 413 || strings.TrimSpace(string(body)) != `{"fail":"Request too large"}` {
					t.Errorf("Content-Length %d: %d %s, want 413 before the body (and no 100 Continue)", tc.limit+1, res.StatusCode, body)
				}
				if time.Since(start) > slowTimeout {
					t.Errorf("413 after %v: the server waited for the body", time.Since(start))
				}
			})
		}
	}
}

// closedAfter opens a connection to addr, writes head, then one byte of
// trickle every period ("": nothing more), and returns how long the server
// took to close the connection; the test fails when it took longer than
// slowTimeout and slowMargin.
func closedAfter(t *testing.T, addr, head, trickle string, period time.Duration) time.Duration {
	t.Helper()
	conn, err := net.Dial("tcp", addr)
	if err != nil {
		t.Fatal(err)
	}
	defer conn.Close()
	start := time.Now()
	if _, err := io.WriteString(conn, head); err != nil {
		t.Fatal(err)
	}
	closed := make(chan time.Duration, 1)
	go func() {
		io.Copy(io.Discard, conn) // an answer, if any, then the close
		closed <- time.Since(start)
	}()
	limit := time.NewTimer(slowTimeout + slowMargin)
	defer limit.Stop()
	var tick <-chan time.Time
	if trickle != "" {
		tk := time.NewTicker(period)
		defer tk.Stop()
		tick = tk.C
	}
	for {
		select {
		case d := <-closed:
			return d
		case <-tick:
			io.WriteString(conn, trickle)
		case <-limit.C:
			t.Errorf("connection still open after %v", slowTimeout+slowMargin)
			return slowTimeout + slowMargin
		}
	}
}
