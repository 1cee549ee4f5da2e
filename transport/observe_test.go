package transport

import (
	"encoding/json"
	"io"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/uptrace/bun"
)

// seen records what an Observer hears.
type seen struct {
	mu   sync.Mutex
	reqs []string // "route status"
}

func (s *seen) Request(route string, status int, took time.Duration) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if took <= 0 {
		route += " (no duration)"
	}
	s.reqs = append(s.reqs, route+" "+http.StatusText(status))
}

// TestObserverAndAccessLog: every answered request reaches the Observer
// with its route's name and status, and the access log with its method,
// path, status and client; a path outside the API reaches neither.
func TestObserverAndAccessLog(t *testing.T) {
	t.Parallel()
	obs := &seen{}
	logs := &lockedBuffer{}
	e := newEnv(t, envOptions{http: func(o *Options) {
		o.Observer = obs
		o.AccessLog = slog.New(slog.NewJSONHandler(logs, nil))
	}})
	e.send("admin", "POST", "/api/bw/v2/resource", `{"id":"obs-1","title":"Observed"}`, nil)
	e.send("admin", "GET", "/api/bw/v2/resource/obs-1/published/*", "", nil)
	e.send("admin", "GET", "/api/bw/v2/map/batch/0123456789abcdef0123456789abcdef", "", nil)
	e.send("admin", "GET", "/api/bw/v2/nothing/here/at/all", "", nil)
	e.send("admin", "GET", "/api/bw/v2/resource/x", "", nil)
	e.send("", "DELETE", "/api/bw/v2/auth/refresh", "", nil)
	e.do(httptest.NewRequest("GET", "/elsewhere", nil))
	want := []string{
		"auth OK", // the login of e.send's token
		"resource upsert Created",
		"resource read OK",
		"map batch status Not Found",
		"unknown Not Found",
		"resource bad path Bad Request",
		"auth/refresh Method Not Allowed",
	}
	obs.mu.Lock()
	got := strings.Join(obs.reqs, "\n")
	obs.mu.Unlock()
	if got != strings.Join(want, "\n") {
		t.Errorf("observed:\n%s\nwant:\n%s", got, strings.Join(want, "\n"))
	}
	var lines []map[string]any
	dec := json.NewDecoder(strings.NewReader(logs.String()))
	for {
		var l map[string]any
		if err := dec.Decode(&l); err == io.EOF {
			break
		} else if err != nil {
			t.Fatal(err)
		}
		lines = append(lines, l)
	}
	if len(lines) != len(want) {
		t.Fatalf("access log: %d lines, want %d: %s", len(lines), len(want), logs.String())
	}
	read := lines[2]
	if read["msg"] != "request" || read["method"] != "GET" || read["path"] != "/api/bw/v2/resource/obs-1/published/*" ||
		read["route"] != "resource read" || read["status"] != float64(200) || read["bytes"].(float64) <= 0 ||
		read["client"] != "192.0.2.1" {
		t.Errorf("access log line of the read: %v", read)
	}
}

// TestLivenessReadiness: liveness asks nothing of the store; readiness
// follows the store's schema and reachability, with a reason that names
// no database text.
func TestLivenessReadiness(t *testing.T) {
	t.Parallel()
	e := newEnv(t, envOptions{})
	probe := func(h http.Handler, method string) (int, string, http.Header) {
		w := httptest.NewRecorder()
		h.ServeHTTP(w, httptest.NewRequest(method, "/probe", nil))
		return w.Code, strings.TrimSpace(w.Body.String()), w.Header()
	}
	live, ready := Liveness(), Readiness(e.svc)
	if code, body, _ := probe(live, "GET"); code != 200 || body != `{"status":"ok"}` {
		t.Errorf("liveness: %d %s", code, body)
	}
	if code, _, h := probe(live, "POST"); code != 405 || h.Get("Allow") != "GET, HEAD" {
		t.Errorf("liveness POST: %d, Allow %q", code, h.Get("Allow"))
	}
	if code, body, _ := probe(ready, "GET"); code != 200 || body != `{"status":"ready"}` {
		t.Errorf("readiness: %d %s", code, body)
	}
	db := e.store.(interface{ Write() *bun.DB }).Write()
	if _, err := db.ExecContext(t.Context(), "INSERT INTO cms_migrations (name, group_id, migrated_at) VALUES ('29991231000001', 99, CURRENT_TIMESTAMP)"); err != nil {
		t.Fatal(err)
	}
	if code, body, h := probe(ready, "GET"); code != 503 || h.Get("Retry-After") != "5" ||
		body != `{"reason":"the database has migration 29991231000001 of a newer version","status":"unavailable"}` {
		t.Errorf("readiness with a newer schema: %d %s", code, body)
	}
	e.store.(io.Closer).Close()
	if code, body, _ := probe(ready, "GET"); code != 503 || body != `{"reason":"the database cannot be reached","status":"unavailable"}` {
		t.Errorf("readiness with the store closed: %d %s", code, body)
	}
	if code, _, _ := probe(live, "GET"); code != 200 {
		t.Errorf("liveness with the store closed: %d", code)
	}
}
