package main

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"net/url"
	"os"
	"os/exec"
	"regexp"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"
)

// faultServerEnv, set in a child's environment, makes the test binary run
// as the standalone server instead of running tests: the fault suite kills
// and restarts real processes without building a second binary (and under
// -race the server is checked for races too).
const faultServerEnv = "CMS_FAULT_SERVER"

func TestMain(m *testing.M) {
	if os.Getenv(faultServerEnv) != "" {
		main() // exits
	}
	release := holdDefaultPort()
	code := m.Run()
	release()
	os.Exit(code)
}

// The password and signing secret of every server process the suite
// starts: a restart keeps the tokens of the run before.
const (
	faultPassword = "fault admin password"
	faultSecret   = "fault-suite-signing-secret-of-32-bytes-or-more"
)

// proc is a standalone server running as a process of its own.
type proc struct {
	tb     testing.TB
	args   []string
	env    []string // added to the child's environment
	cmd    *exec.Cmd
	url    string // http://HOST:PORT
	stderr *watchedOutput
	exited chan struct{}
}

// listening is the server's log line that gives its address.
var listening = regexp.MustCompile(`msg=listening addr=http://([^/\s]+)/api/bw/v2`)

// startProc starts a server process on a free port with the suite's admin
// password and secret, args added, and waits until it listens. The process
// is killed when the test ends, if still running.
func startProc(tb testing.TB, args ...string) *proc {
	tb.Helper()
	return startProcEnv(tb, nil, args...)
}

// startProcEnv is startProc with env (KEY=value) added to the process's
// environment.
func startProcEnv(tb testing.TB, env []string, args ...string) *proc {
	tb.Helper()
	exe, err := os.Executable()
	if err != nil {
		tb.Fatal(err)
	}
	p := &proc{tb: tb, args: args, env: env, stderr: &watchedOutput{found: make(chan string, 1)}, exited: make(chan struct{})}
	all := append([]string{"--addr", "127.0.0.1:0", "--admin-password", faultPassword, "--jwt-secret", faultSecret}, args...)
	p.cmd = exec.Command(exe, all...)
	p.cmd.Env = append(append(childEnv(), env...), faultServerEnv+"=1")
	p.cmd.Stderr = p.stderr
	p.cmd.Stdout = io.Discard
	if err := p.cmd.Start(); err != nil {
		tb.Fatal(err)
	}
	go func() {
		p.cmd.Wait()
		close(p.exited)
	}()
	tb.Cleanup(func() {
		p.kill()
		p.checkLog()
	})
	select {
	case addr := <-p.stderr.found:
		p.url = "http://" + addr
	case <-p.exited:
		tb.Fatalf("server exited at start: %s", p.stderr.String())
	case <-time.After(60 * time.Second):
		p.kill()
		tb.Fatalf("server did not start: %s", p.stderr.String())
	}
	return p
}

// childEnv is the test's environment without the server's settings, so a
// developer's CMS_* variables do not change what the suite starts.
func childEnv() []string {
	var env []string
	for _, kv := range os.Environ() {
		if !strings.HasPrefix(kv, "CMS_") {
			env = append(env, kv)
		}
	}
	return env
}

// kill ends the process with SIGKILL (no shutdown of any kind) and waits.
func (p *proc) kill() {
	select {
	case <-p.exited:
		return
	default:
	}
	p.cmd.Process.Kill()
	<-p.exited
}

// stop ends the process with SIGTERM, as an operator would, and waits.
func (p *proc) stop() {
	p.tb.Helper()
	p.cmd.Process.Signal(syscall.SIGTERM)
	select {
	case <-p.exited:
	case <-time.After(30 * time.Second):
		p.kill()
		p.tb.Errorf("server did not stop on SIGTERM: %s", p.stderr.String())
	}
}

// restart starts a new process with the same arguments and environment
// (on a new port).
func (p *proc) restart() *proc {
	p.tb.Helper()
	return startProcEnv(p.tb, p.env, p.args...)
}

// running reports whether the process has not exited.
func (p *proc) running() bool {
	select {
	case <-p.exited:
		return false
	default:
		return true
	}
}

// checkLog fails the test when the server reported a data race or a
// panic.
func (p *proc) checkLog() {
	log := p.stderr.String()
	for _, bad := range []string{"WARNING: DATA RACE", "panic:", "level=ERROR msg=\"http: panic"} {
		if strings.Contains(log, bad) {
			p.tb.Errorf("server log has %q:\n%s", bad, log)
			return
		}
	}
}

// watchedOutput keeps a process's output and reports its listening
// address once.
type watchedOutput struct {
	mu    sync.Mutex
	b     bytes.Buffer
	found chan string
	sent  bool
}

func (w *watchedOutput) Write(p []byte) (int, error) {
	w.mu.Lock()
	defer w.mu.Unlock()
	w.b.Write(p)
	if !w.sent {
		if m := listening.FindSubmatch(w.b.Bytes()); m != nil {
			w.sent = true
			w.found <- string(m[1])
		}
	}
	return len(p), nil
}

func (w *watchedOutput) String() string {
	w.mu.Lock()
	defer w.mu.Unlock()
	return w.b.String()
}

// client calls one server's API as the admin.
type client struct {
	base  string
	token string
	hc    *http.Client
}

// newClient logs in to p as the admin.
func newClient(tb testing.TB, p *proc) *client {
	tb.Helper()
	return loginAt(tb, p.url, faultPassword)
}

// loginAt logs in to the server at base (http://HOST:PORT) as the admin
// with password.
func loginAt(tb testing.TB, base, password string) *client {
	tb.Helper()
	c := &client{base: base, hc: &http.Client{Timeout: 60 * time.Second,
		Transport: &http.Transport{MaxIdleConnsPerHost: 16}}}
	tb.Cleanup(c.hc.CloseIdleConnections)
	r := c.do(context.Background(), "POST", "/api/bw/v2/auth", "application/x-www-form-urlencoded",
		[]byte(url.Values{"u": {"admin"}, "p": {password}}.Encode()), nil)
	if r.err != nil || r.status != 200 {
		tb.Fatalf("login: %d %s %v", r.status, r.body, r.err)
	}
	var s session
	json.Unmarshal(r.body, &s)
	c.token = s.Access
	return c
}

// reply is one answer, or the error that stopped the request.
type reply struct {
	status int
	body   []byte
	header http.Header
	err    error
}

func (c *client) do(ctx context.Context, method, path, ctype string, body []byte, header http.Header) reply {
	req, err := http.NewRequestWithContext(ctx, method, c.base+path, bytes.NewReader(body))
	if err != nil {
		return reply{err: err}
	}
	for k, v := range header {
		req.Header[k] = v
	}
	if ctype != "" {
		req.Header.Set("Content-Type", ctype)
	}
	if c.token != "" {
		req.Header.Set("Authorization", "Bearer "+c.token)
	}
	res, err := c.hc.Do(req)
	if err != nil {
		return reply{err: err}
	}
	defer res.Body.Close()
	b, err := io.ReadAll(res.Body)
	return reply{status: res.StatusCode, body: b, header: res.Header, err: err}
}

// post sends one JSON document (a record or a batch) to path.
func (c *client) post(ctx context.Context, path string, doc any) reply {
	b, err := json.Marshal(doc)
	if err != nil {
		return reply{err: err}
	}
	return c.do(ctx, "POST", path, "application/json", b, nil)
}

func (c *client) get(ctx context.Context, path string) reply {
	return c.do(ctx, "GET", path, "", nil, nil)
}

// records reads the records of kind named by ids (any published state)
// with the given fields, 500 ids a request, keyed by id.
func (c *client) records(tb testing.TB, kind string, ids []string, fields string) map[string]map[string]any {
	tb.Helper()
	out := make(map[string]map[string]any, len(ids))
	for len(ids) > 0 {
		n := min(len(ids), 500)
		r := c.get(context.Background(), "/api/bw/v2/"+kind+"/"+strings.Join(ids[:n], ",")+"/published/*/fields/"+fields)
		ids = ids[n:]
		if r.err != nil || (r.status != 200 && r.status != 404) {
			tb.Fatalf("read %s: %d %s %v", kind, r.status, r.body, r.err)
		}
		if r.status == 404 {
			continue
		}
		var many []map[string]any
		if bytes.HasPrefix(r.body, []byte("[")) {
			if err := json.Unmarshal(r.body, &many); err != nil {
				tb.Fatalf("read %s: %v: %s", kind, err, r.body)
			}
		} else {
			var one map[string]any
			if err := json.Unmarshal(r.body, &one); err != nil {
				tb.Fatalf("read %s: %v: %s", kind, err, r.body)
			}
			many = append(many, one)
		}
		for _, rec := range many {
			out[fmt.Sprint(rec["id"])] = rec
		}
	}
	return out
}

// batchStatus is a batch's status answer.
type batchStatus struct {
	Status  string `json:"status"`
	Count   int    `json:"count"`
	Created int    `json:"created"`
	Updated int    `json:"updated"`
	Skipped int    `json:"skipped"`
	Error   string `json:"error"`
}

// awaitBatch polls a batch's status until it is done or error.
func (c *client) awaitBatch(tb testing.TB, kind, id string, within time.Duration) batchStatus {
	tb.Helper()
	deadline := time.Now().Add(within)
	for {
		r := c.get(context.Background(), "/api/bw/v2/"+kind+"/batch/"+id)
		var st batchStatus
		if r.err == nil && r.status == 200 {
			json.Unmarshal(r.body, &st)
			if st.Status == "done" || st.Status == "error" {
				return st
			}
		}
		if time.Now().After(deadline) {
			tb.Fatalf("batch %s not finished after %v: %d %s %v", id, within, r.status, r.body, r.err)
		}
		time.Sleep(50 * time.Millisecond)
	}
}

// strings reads a JSON list of strings (null and absent read as none).
func stringList(v any) []string {
	l, _ := v.([]any)
	out := make([]string, 0, len(l))
	for _, s := range l {
		out = append(out, fmt.Sprint(s))
	}
	return out
}
