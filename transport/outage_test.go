package transport

import (
	"net/http/httptest"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/bwcms/cms/adapters/postgres"
	"github.com/bwcms/cms/adapters/postgres/pgtest"
	"github.com/bwcms/cms/cms"
	"github.com/bwcms/cms/internal/testenv"
)

// TestOutage: while the PostgreSQL server cannot be reached (a proxy
// between the store and the server is cut), reads, writes and batch
// submissions answer 503 {"fail":"Service unavailable"} with
// Retry-After; a batch whose apply loses its connection is applied again
// once the server is back. Afterwards the same handler answers 200 and
// 201 again, and every write acknowledged before the outage is there.
func TestOutage(t *testing.T) {
	t.Parallel()
	proxy, dsn := pgtest.NewProxy(t, pgtest.DSN(t))
	e, f := faultEnv(t, testenv.PostgresAt(dsn, &postgres.Options{MaxConns: 4}), nil)
	runFlow(t, e, []step{
		{name: "before", user: "admin", method: "POST", path: "/api/bw/v2/resource", body: `{"id":"before","title":"Before"}`, status: 201},
	})
	batchID := submit(t, e, "resource", `[{"id":"batched-1"},{"id":"batched-2","mapIds":[]}]`)

	proxy.Cut()
	unavailable := func(t *testing.T, _ *env, w *httptest.ResponseRecorder) {
		t.Helper()
		if got := w.Header().Get("Retry-After"); got != "5" {
			t.Errorf("Retry-After %q, want 5", got)
		}
	}
	runFlow(t, e, []step{
		{name: "write", user: "admin", method: "POST", path: "/api/bw/v2/resource", body: `{"id":"during"}`,
			status: 503, want: `{"fail":"Service unavailable"}`, check: unavailable},
		{name: "read", user: "admin", method: "GET", path: "/api/bw/v2/resource/before/published/*",
			status: 503, want: `{"fail":"Service unavailable"}`, check: unavailable},
		{name: "batch", user: "admin", method: "POST", path: "/api/bw/v2/resource/batch", body: `[{"id":"during-batch"}]`,
			status: 503, want: `{"fail":"Service unavailable"}`, check: unavailable},
		{name: "batch status", user: "admin", method: "GET", path: "/api/bw/v2/resource/batch/" + batchID,
			status: 503, want: `{"fail":"Service unavailable"}`, check: unavailable},
	})
	if w := e.do(postForm("/api/bw/v2/auth", form("u", "admin", "p", testPassword))); w.Code != 503 {
		t.Errorf("login during the outage: %d %s, want 503", w.Code, w.Body)
	}
	if did, err := e.svc.ProcessBatch(t.Context(), "w"); did || cms.ErrorCode(err) != cms.CodeUnavailable {
		t.Errorf("ProcessBatch during the outage: %v, %v; want nothing claimed, CodeUnavailable", did, err)
	}
	proxy.Restore()

	// The batch's commit loses its connection; the server comes back a
	// little later, and the worker applies the batch again.
	var once sync.Once
	f.finish = func(inTx bool) error {
		if inTx {
			once.Do(func() {
				proxy.Cut()
				go func() {
					time.Sleep(200 * time.Millisecond)
					proxy.Restore()
				}()
			})
		}
		return nil
	}
	process(t, e)
	f.finish = nil
	if got := statusOf(t, e, "resource", batchID); !strings.Contains(got, `"status":"done"`) || !strings.Contains(got, `"created":2`) {
		t.Errorf("batch after the outage: %s", got)
	}
	runFlow(t, e, []step{
		{name: "write after", user: "admin", method: "POST", path: "/api/bw/v2/resource", body: `{"id":"during"}`, status: 201},
		{name: "read after", user: "admin", method: "GET", path: "/api/bw/v2/resource/before/published/*", status: 200,
			check: wantField("title", "Before")},
		{name: "batched", user: "admin", method: "GET", path: "/api/bw/v2/resource/batched-1/published/*", status: 200},
		{name: "batched too", user: "admin", method: "GET", path: "/api/bw/v2/resource/batched-2/published/*", status: 200},
		{name: "refused batch", user: "admin", method: "GET", path: "/api/bw/v2/resource/during-batch/published/*", status: 404},
	})
}
