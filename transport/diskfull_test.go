package transport

import (
	"context"
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/bwcms/cms/adapters/sqlite"
	"github.com/bwcms/cms/cms"
)

// capPages caps an SQLite store's database at its current size on its
// one write connection, so a write needing a new page fails with
// SQLITE_FULL as on a full disk; off lifts the cap.
func capPages(t testing.TB, s *sqlite.Store, on bool) {
	t.Helper()
	ctx := context.Background()
	q := "PRAGMA max_page_count = 1073741823"
	if on {
		var pages int64
		if err := s.Write().QueryRowContext(ctx, "PRAGMA page_count").Scan(&pages); err != nil {
			t.Fatal(err)
		}
		q = fmt.Sprintf("PRAGMA max_page_count = %d", pages)
	}
	if _, err := s.Write().ExecContext(ctx, q); err != nil {
		t.Fatal(err)
	}
}

// bulkyRecords is a batch body of n Resources of about 8 KB each.
func bulkyRecords(prefix string, n int) string {
	recs := make([]string, n)
	for i := range n {
		recs[i] = fmt.Sprintf(`{"id":"%s%04d","published":true,"htmlContent":"<p>%s</p>"}`, prefix, i, strings.Repeat("z", 8000))
	}
	return "[" + strings.Join(recs, ",") + "]"
}

// TestDiskFullBatchWaits (SQLite): with no room for a write (SQLITE_FULL,
// forced by capping the database's pages), a single write answers 503
// with Retry-After, and an accepted batch is not lost: its worker tries it
// again with growing waits, without using up its attempts, and applies it
// once when there is room again.
func TestDiskFullBatchWaits(t *testing.T) {
	t.Parallel()
	e := newEnv(t, envOptions{})
	st := e.store.(*sqlite.Store)
	id := submit(t, e, "resource", bulkyRecords("df", 50))
	capPages(t, st, true)
	single := `{"id":"single","htmlContent":"<p>` + strings.Repeat("y", 20000) + `</p>"}`
	w := e.send("admin", "POST", "/api/bw/v2/resource", single, nil)
	if w.Code != 503 || w.Header().Get("Retry-After") == "" || strings.TrimSpace(w.Body.String()) != `{"fail":"Service unavailable"}` {
		t.Errorf("single write with no room: %d %q %s", w.Code, w.Header().Get("Retry-After"), w.Body)
	}
	// Workers for 3 s with no room, then stopped (the logs are read
	// once they are), then again with room.
	workers := func(d time.Duration, until func() bool) {
		ctx, cancel := context.WithCancel(t.Context())
		stopped := make(chan struct{})
		go func() {
			defer close(stopped)
			e.svc.RunBatchWorkers(ctx, 1)
		}()
		deadline := time.Now().Add(d)
		for time.Now().Before(deadline) && !until() {
			time.Sleep(20 * time.Millisecond)
		}
		cancel()
		<-stopped
	}
	workers(3*time.Second, func() bool { return false })
	if got := statusOf(t, e, "resource", id); !strings.Contains(got, `"status":"processing"`) {
		t.Fatalf("batch with no room: %s", got)
	}
	// Waits of 10 ms doubling: about 9 tries in 3 s, not hundreds.
	tries := strings.Count(e.logs.String(), "trying again")
	if tries < 2 || tries > 15 {
		t.Errorf("%d tries in 3 s with no room", tries)
	}
	if b, err := e.store.GetBatch(t.Context(), "acme", cms.KindResource, id); err != nil || b.Attempts != 1 {
		t.Errorf("batch: %+v, %v; want 1 attempt", b, err)
	}
	capPages(t, st, false)
	done := func() bool { return strings.Contains(statusOf(t, e, "resource", id), `"status":"done"`) }
	workers(15*time.Second, done)
	if !done() {
		t.Fatalf("batch not applied once there is room: %s", statusOf(t, e, "resource", id))
	}
	if got := statusOf(t, e, "resource", id); !strings.Contains(got, `"created":50,"updated":0,"skipped":0`) {
		t.Errorf("status: %s", got)
	}
	if w := e.send("admin", "POST", "/api/bw/v2/resource", single, nil); w.Code != 201 {
		t.Errorf("single write once there is room: %d %s", w.Code, w.Body)
	}
	w = e.send("admin", "GET", "/api/bw/v2/resource/published/*", "", nil)
	if n := strings.Count(w.Body.String(), `"id":"df`); n != 50 {
		t.Errorf("%d records of the batch stored, want 50", n)
	}
}
