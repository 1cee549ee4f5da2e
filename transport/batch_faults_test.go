package transport

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/bwcms/cms/cms"
)

// faultStore is a store whose batch calls can be made to misbehave, in a
// transaction or outside one. The tests set the hooks before the worker
// runs and clear them after.
type faultStore struct {
	cms.Store
	f    *faults
	inTx bool
}

type faults struct {
	// finish runs before FinishBatch; an error fails it.
	finish func(inTx bool) error
	// heartbeat runs before HeartbeatBatch; an error fails it.
	heartbeat func() error
	// put runs before PutRecords in a transaction.
	put func()
}

func (s faultStore) WithTx(ctx context.Context, fn func(cms.Store) error) error {
	return s.Store.WithTx(ctx, func(tx cms.Store) error { return fn(faultStore{tx, s.f, true}) })
}

func (s faultStore) FinishBatch(ctx context.Context, id, owner string, status cms.BatchStatus, r cms.BatchResult, at time.Time) error {
	if s.f.finish != nil {
		if err := s.f.finish(s.inTx); err != nil {
			return err
		}
	}
	return s.Store.FinishBatch(ctx, id, owner, status, r, at)
}

func (s faultStore) HeartbeatBatch(ctx context.Context, id, owner string, leaseUntil time.Time, processed int) error {
	if s.f.heartbeat != nil {
		if err := s.f.heartbeat(); err != nil {
			return err
		}
	}
	return s.Store.HeartbeatBatch(ctx, id, owner, leaseUntil, processed)
}

func (s faultStore) PutRecords(ctx context.Context, entries []*cms.Entry) error {
	if s.inTx && s.f.put != nil {
		s.f.put()
	}
	return s.Store.PutRecords(ctx, entries)
}

func faultEnv(t *testing.T, open func(testing.TB) cms.Store, svc func(*cms.Options)) (*env, *faults) {
	f := &faults{}
	e := newEnv(t, envOptions{svc: svc, store: func(tb testing.TB) cms.Store { return faultStore{Store: open(tb), f: f} }})
	return e, f
}

// TestBatchStoppedAtCommit: a worker stopped just before its batch's
// commit leaves nothing applied and the batch processing with its lease
// ended; the next claim applies it once, its records counted as created.
func TestBatchStoppedAtCommit(t *testing.T) {
	t.Parallel()
	for _, st := range stores {
		t.Run(st.name, func(t *testing.T) {
			t.Parallel()
			e, f := faultEnv(t, st.open, nil)
			id := submit(t, e, "resource", `[{"id":"sc1","title":"From the batch","published":true}]`)
			ctx, stop := context.WithCancel(t.Context())
			f.finish = func(inTx bool) error {
				if inTx {
					stop() // the process stops here
					return context.Canceled
				}
				return nil
			}
			if did, err := e.svc.ProcessBatch(ctx, "stopped"); !did || !errors.Is(err, context.Canceled) {
				t.Fatalf("ProcessBatch: %v, %v; want the stop", did, err)
			}
			if w := e.send("admin", "GET", "/api/bw/v2/resource/sc1", "", nil); w.Code != 404 {
				t.Errorf("a batch stopped before its commit left its record: %d %s", w.Code, w.Body)
			}
			if got := statusOf(t, e, "resource", id); !strings.Contains(got, `"status":"processing"`) {
				t.Errorf("status after the stop: %s", got)
			}
			f.finish = nil
			// The stop ended the lease: taken up again at once.
			process(t, e)
			if got := statusOf(t, e, "resource", id); !strings.Contains(got, `"status":"done"`) || !strings.Contains(got, `"created":1,"updated":0`) {
				t.Errorf("after the stop: %s", got)
			}
		})
	}
}

// TestBatchLeaseLostBeforeCommit: while a worker applies a batch its
// lease runs out and another worker claims it (PostgreSQL: claims do not
// wait for the applying transaction). The first worker commits nothing;
// the batch is applied once, by a later claim.
func TestBatchLeaseLostBeforeCommit(t *testing.T) {
	t.Parallel()
	e, f := faultEnv(t, openPostgres, nil)
	if !e.store.Features().ConcurrentBatchClaims {
		t.Skip("claims wait for the applying transaction")
	}
	id := submit(t, e, "resource", `[{"id":"ll1","title":"Once","published":true}]`)
	var once sync.Once
	f.put = func() {
		once.Do(func() {
			e.clock.Advance(61 * time.Second)
			b, err := e.store.ClaimBatch(context.Background(), "thief", e.clock.Now(), e.clock.Now().Add(time.Minute))
			if err != nil || b.ID != id {
				t.Errorf("the thief's claim: %v, %v", b, err)
			}
		})
	}
	if did, err := e.svc.ProcessBatch(t.Context(), "first"); !did || err != nil {
		t.Fatalf("ProcessBatch: %v, %v", did, err)
	}
	if !strings.Contains(e.logs.String(), "batch lease lost") {
		t.Errorf("the lost lease is not logged: %s", e.logs)
	}
	if w := e.send("admin", "GET", "/api/bw/v2/resource/ll1", "", nil); w.Code != 404 {
		t.Errorf("a worker that lost the batch committed it: %d", w.Code)
	}
	if b, err := e.store.GetBatch(t.Context(), "acme", cms.KindResource, id); err != nil || b.Owner != "thief" || b.Status != cms.BatchProcessing {
		t.Errorf("batch after the lost lease: %+v, %v", b, err)
	}
	f.put = nil
	e.clock.Advance(61 * time.Second)
	process(t, e)
	if got := statusOf(t, e, "resource", id); !strings.Contains(got, `"status":"done"`) || !strings.Contains(got, `"created":1,"updated":0`) {
		t.Errorf("after the thief's lease: %s", got)
	}
}

// TestBatchHeartbeatHiccup: a heartbeat failing for a moment (a dropped
// connection) does not stop a batch whose lease still runs.
func TestBatchHeartbeatHiccup(t *testing.T) {
	t.Parallel()
	for _, st := range stores {
		t.Run(st.name, func(t *testing.T) {
			t.Parallel()
			e, f := faultEnv(t, st.open, func(o *cms.Options) { o.BatchLease = 300 * time.Millisecond })
			var recs []string
			for i := range 600 { // three chunks
				recs = append(recs, fmt.Sprintf(`{"id":"hb%04d"}`, i))
			}
			id := submit(t, e, "resource", "["+strings.Join(recs, ",")+"]")
			failed := make(chan struct{})
			var once sync.Once
			f.heartbeat = func() error {
				err := errors.New("connection reset by peer")
				once.Do(func() { close(failed) })
				return err
			}
			f.put = func() {
				select { // each chunk waits until a heartbeat has failed
				case <-failed:
				case <-time.After(5 * time.Second):
					t.Error("no heartbeat in 5 s")
				}
			}
			process(t, e)
			if got := statusOf(t, e, "resource", id); !strings.Contains(got, `"status":"done"`) || !strings.Contains(got, `"created":600`) {
				t.Errorf("after a failed heartbeat: %s", got)
			}
			if !strings.Contains(e.logs.String(), "batch heartbeat failed") {
				t.Errorf("the failed heartbeat is not logged: %s", e.logs)
			}
		})
	}
}

// TestBatchOrderAfterStop: on a store that claims in order (SQLite), a
// newer batch waits while an older one is left processing by a stopped
// worker, so the older one's values never land over the newer's.
func TestBatchOrderAfterStop(t *testing.T) {
	t.Parallel()
	e := newEnv(t, envOptions{})
	if e.store.Features().ConcurrentBatchClaims {
		t.Skip("batches are claimed concurrently")
	}
	older := submit(t, e, "resource", `[{"id":"ord1","title":"Older batch"}]`)
	now := e.clock.Now()
	if b, err := e.store.ClaimBatch(t.Context(), "stopped-worker", now, now.Add(time.Minute)); err != nil || b.ID != older {
		t.Fatalf("claim: %v %v", b, err)
	}
	e.clock.Advance(time.Second)
	newer := submit(t, e, "resource", `[{"id":"ord1","title":"Newer batch"}]`)
	if did, err := e.svc.ProcessBatch(t.Context(), "w"); did || err != nil {
		t.Fatalf("the newer batch was taken while the older one is processing: %v %v", did, err)
	}
	e.clock.Advance(61 * time.Second)
	process(t, e) // the older one, after its lease
	process(t, e)
	for _, id := range []string{older, newer} {
		if got := statusOf(t, e, "resource", id); !strings.Contains(got, `"status":"done"`) {
			t.Errorf("batch %s: %s", id, got)
		}
	}
	runFlow(t, e, []step{{user: "admin", method: "GET", path: "/api/bw/v2/resource/ord1/fields/title/published/*", status: 200,
		want: `{"id":"ord1","title":"Newer batch"}`}})
}

// TestBatchGivenUp: a batch claimed BatchMaxAttempts times without an
// outcome (its process crashed each time) is given up: status error, none
// of it applied.
func TestBatchGivenUp(t *testing.T) {
	t.Parallel()
	forEachStore(t, func(t *testing.T, e *env) {
		id := submit(t, e, "resource", `[{"id":"gu1","title":"Never"}]`)
		for i := range 5 {
			now := e.clock.Now()
			if b, err := e.store.ClaimBatch(t.Context(), fmt.Sprintf("crashed-%d", i), now, now.Add(time.Minute)); err != nil || b.ID != id {
				t.Fatalf("claim %d: %v %v", i, b, err)
			}
			e.clock.Advance(61 * time.Second)
		}
		process(t, e)
		if got := statusOf(t, e, "resource", id); !strings.Contains(got, `"status":"error"`) ||
			!strings.Contains(got, `"error":"Batch process given up after 5 attempts"`) {
			t.Errorf("status: %s", got)
		}
		if w := e.send("admin", "GET", "/api/bw/v2/resource/gu1", "", nil); w.Code != 404 {
			t.Errorf("a given-up batch was applied: %d", w.Code)
		}
	})
}

// TestBatchApplyPanics: a panic while a batch is applied, on the writing
// goroutine (a chunk written while the next is upserted) or on the
// worker's own (the last chunk), rolls the batch back; the process goes
// on, and the last attempt marks the batch error.
func TestBatchApplyPanics(t *testing.T) {
	t.Parallel()
	for _, st := range stores {
		for _, n := range []int{1, 600} {
			t.Run(fmt.Sprintf("%s/%d", st.name, n), func(t *testing.T) {
				t.Parallel()
				e, f := faultEnv(t, st.open, nil)
				id := submit(t, e, "resource", publishedRecords("pa", n))
				f.put = func() { panic("a bug") }
				for range 5 { // a panic is tried again, as a failed write
					process(t, e)
				}
				if got := statusOf(t, e, "resource", id); !strings.Contains(got, `"status":"error"`) || !strings.Contains(got, `"error":"Internal error"`) {
					t.Errorf("status: %s", got)
				}
				if w := e.send("admin", "GET", "/api/bw/v2/resource/published/*", "", nil); strings.TrimSpace(w.Body.String()) != "[]" {
					t.Errorf("records of a batch that panicked: %.200s", w.Body)
				}
				if !strings.Contains(e.logs.String(), "panic: a bug") {
					t.Errorf("the panic is not logged: %.500s", e.logs)
				}
			})
		}
	}
}

// TestBatchDeletesWhatIsGone: a batch record deleting a record that does
// not exist counts as skipped (a single upsert answers 404): applying a
// batch again after a crash must give the result of once.
func TestBatchDeletesWhatIsGone(t *testing.T) {
	t.Parallel()
	forEachStore(t, func(t *testing.T, e *env) {
		runFlow(t, e, []step{{user: "admin", method: "POST", path: "/api/bw/v2/resource", body: `{"id":"del1"}`, status: 201}})
		id := submit(t, e, "resource", `[{"id":"del1","deleteElementIrreversibly":true},{"id":"gone","deleteElementIrreversibly":true}]`)
		process(t, e)
		if got := statusOf(t, e, "resource", id); !strings.Contains(got, `"status":"done"`) || !strings.Contains(got, `"created":0,"updated":1,"skipped":1`) {
			t.Errorf("status: %s", got)
		}
		runFlow(t, e, []step{{user: "admin", method: "GET", path: "/api/bw/v2/resource/del1/published/*", status: 404}})
	})
}
