package transport

import (
	"errors"
	"strings"
	"sync/atomic"
	"testing"

	"github.com/bwcms/cms/cms"
)

// TestBatchRacesAndOutages: a batch whose apply meets concurrent writers
// (deadlocks) more often than Options.BatchMaxAttempts, then a store that
// cannot be reached, is applied again by its worker until it succeeds: it
// ends done, after one claim, with its records stored once.
func TestBatchRacesAndOutages(t *testing.T) {
	t.Parallel()
	for _, st := range stores {
		t.Run(st.name, func(t *testing.T) {
			t.Parallel()
			e, f := faultEnv(t, st.open, func(o *cms.Options) { o.BatchMaxAttempts = 2 })
			id := submit(t, e, "resource", `[{"id":"ra1","title":"Raced"},{"id":"ra2","title":"Raced too"}]`)
			var commits atomic.Int32
			f.finish = func(inTx bool) error {
				if !inTx {
					return nil
				}
				switch n := commits.Add(1); {
				case n <= 3:
					return cms.Race(errors.New("deadlock detected (SQLSTATE 40P01)"))
				case n <= 5:
					return cms.Unavailable(errOutage)
				}
				return nil
			}
			process(t, e)
			f.finish = nil
			got := statusOf(t, e, "resource", id)
			if !strings.Contains(got, `"status":"done"`) || !strings.Contains(got, `"created":2`) {
				t.Fatalf("status: %s", got)
			}
			b, err := e.store.GetBatch(t.Context(), "acme", cms.KindResource, id)
			if err != nil || b.Attempts != 1 {
				t.Errorf("batch claimed %d times (%v), want once", b.Attempts, err)
			}
			if n := commits.Load(); n != 6 {
				t.Errorf("%d applies, want 6", n)
			}
			for _, rec := range []string{"ra1", "ra2"} {
				if w := e.send("admin", "GET", "/api/bw/v2/resource/"+rec+"/published/*", "", nil); w.Code != 200 {
					t.Errorf("%s: %d %s", rec, w.Code, w.Body)
				}
			}
		})
	}
}

// TestBatchEndlessRace: a clash that every apply meets, past
// Options.BatchRaceRetries, is no longer taken for another writer's: it
// uses up attempts like any failure of the store's, and the last one ends
// the batch in error, nothing applied.
func TestBatchEndlessRace(t *testing.T) {
	t.Parallel()
	e, f := faultEnv(t, openSQLite, func(o *cms.Options) { o.BatchMaxAttempts = 2; o.BatchRaceRetries = 3 })
	id := submit(t, e, "resource", `[{"id":"er1","title":"Never"}]`)
	var applies atomic.Int32
	f.finish = func(inTx bool) error {
		if inTx {
			applies.Add(1)
			return cms.Race(errors.New("duplicate key value violates unique constraint (SQLSTATE 23505)"))
		}
		return nil
	}
	process(t, e)
	if got := statusOf(t, e, "resource", id); !strings.Contains(got, `"status":"processing"`) {
		t.Fatalf("after the first claim: %s", got)
	}
	process(t, e)
	got := statusOf(t, e, "resource", id)
	if !strings.Contains(got, `"status":"error"`) || !strings.Contains(got, `"error":"Internal error"`) {
		t.Fatalf("after the last attempt: %s", got)
	}
	if n := applies.Load(); n != 6 {
		t.Errorf("%d applies, want 3 a claim", n)
	}
	if w := e.send("admin", "GET", "/api/bw/v2/resource/er1/published/*", "", nil); w.Code != 404 {
		t.Errorf("applied: %d", w.Code)
	}
}
