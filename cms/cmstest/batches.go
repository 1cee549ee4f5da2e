package cmstest

import (
	"context"
	"fmt"
	"slices"
	"sync"
	"testing"
	"time"

	"github.com/bwcms/cms/cms"
)

// batch is a waiting batch of one Resource, requested at at.
func batch(id string, at time.Time) *cms.Batch {
	return &cms.Batch{ID: id, Account: "a", Kind: cms.KindResource, Payload: []byte(`[{"id":"r-` + id + `"}]`),
		Count: 1, Status: cms.BatchWaiting, Requested: at, StatusAt: at}
}

func enqueue(tb testing.TB, s cms.Store, b *cms.Batch) {
	tb.Helper()
	if err := s.EnqueueBatch(tb.Context(), b); err != nil {
		tb.Fatalf("EnqueueBatch(%s): %v", b.ID, err)
	}
}

func getBatch(tb testing.TB, s cms.Store, id string) *cms.Batch {
	tb.Helper()
	b, err := s.GetBatch(tb.Context(), "a", cms.KindResource, id)
	if err != nil {
		tb.Fatalf("GetBatch(%s): %v", id, err)
	}
	return b
}

// claim claims a batch that must be there.
func claim(tb testing.TB, s cms.Store, owner string, now, leaseUntil time.Time) *cms.Batch {
	tb.Helper()
	b, err := s.ClaimBatch(tb.Context(), owner, now, leaseUntil)
	if err != nil {
		tb.Fatalf("ClaimBatch(%s, %v): %v", owner, now, err)
	}
	if len(b.Payload) != 0 {
		tb.Errorf("ClaimBatch(%s) gave the payload %q; BatchPayload reads it", owner, b.Payload)
	}
	return b
}

// payloadOf reads the payload of a batch that must have one.
func payloadOf(tb testing.TB, s cms.Store, id string) string {
	tb.Helper()
	p, err := s.BatchPayload(tb.Context(), id)
	if err != nil {
		tb.Fatalf("BatchPayload(%s): %v", id, err)
	}
	return string(p)
}

func wantNoClaim(tb testing.TB, s cms.Store, now time.Time, what string) {
	tb.Helper()
	b, err := s.ClaimBatch(tb.Context(), "w-none", now, now.Add(time.Minute))
	if err == nil {
		tb.Errorf("%s: claimed %s, want none", what, b.ID)
		return
	}
	wantCode(tb, err, cms.CodeNotFound, what)
}

// resultCounts is a BatchResult without its outcomes, to compare.
type resultCounts struct {
	created, updated, skipped int
	err                       string
}

func countsOf(r cms.BatchResult) resultCounts {
	return resultCounts{r.Created, r.Updated, r.Skipped, r.Error}
}

func testBatches(t *testing.T, open func(t *testing.T) cms.Store) {
	t.Parallel()
	t.Run("Outcomes", func(t *testing.T) {
		t.Parallel()
		s := open(t)
		ctx := t.Context()
		for i, id := range []string{"b-1", "b-2", "b-3"} {
			enqueue(t, s, batch(id, t0.Add(time.Duration(i)*time.Second)))
		}
		now := t0.Add(time.Minute)
		// Every outcome, ids of every character an id may hold, the same
		// id twice, in batch order; and a large batch's.
		want := []cms.RecordOutcome{{ID: "r-new", Outcome: cms.Created}, {ID: "r.Old_1~x:y@z", Outcome: cms.Updated},
			{ID: "r-same", Outcome: cms.Skipped}, {ID: "r-gone", Outcome: cms.Deleted}, {ID: "r-new", Outcome: cms.Updated}}
		large := make([]cms.RecordOutcome, 10000)
		for i := range large {
			large[i] = cms.RecordOutcome{ID: fmt.Sprintf("resource-%06d", i), Outcome: cms.Outcome(i % 4)}
		}
		for _, f := range []struct {
			id       string
			outcomes []cms.RecordOutcome
		}{{"b-1", want}, {"b-2", large}} {
			claim(t, s, "w-"+f.id, now, now.Add(time.Minute))
			gotOutcomes, err := s.BatchOutcomes(ctx, "a", cms.KindResource, f.id)
			if err != nil || len(gotOutcomes) != 0 {
				t.Errorf("BatchOutcomes of a processing batch: %v, %v; want none", gotOutcomes, err)
			}
			must(t, s.FinishBatch(ctx, f.id, "w-"+f.id, cms.BatchDone, cms.BatchResult{Created: 1, Outcomes: f.outcomes}, now))
			gotOutcomes, err = s.BatchOutcomes(ctx, "a", cms.KindResource, f.id)
			if err != nil || !slices.Equal(gotOutcomes, f.outcomes) {
				t.Errorf("BatchOutcomes(%s): %d outcomes, %v; want %d (first %v)", f.id, len(gotOutcomes), err, len(f.outcomes), f.outcomes[0])
			}
			if got := getBatch(t, s, f.id); got.Result.Outcomes != nil || got.Result.Created != 1 {
				t.Errorf("GetBatch(%s) result %+v: want the counts without outcomes", f.id, countsOf(got.Result))
			}
		}
		// An error batch applied nothing: no outcomes.
		claim(t, s, "w-3", now, now.Add(time.Minute))
		must(t, s.FinishBatch(ctx, "b-3", "w-3", cms.BatchError, cms.BatchResult{Error: "x", Outcomes: want}, now))
		if got, err := s.BatchOutcomes(ctx, "a", cms.KindResource, "b-3"); err != nil || len(got) != 0 {
			t.Errorf("BatchOutcomes of an error batch: %v, %v; want none", got, err)
		}
		_, err := s.BatchOutcomes(ctx, "b", cms.KindResource, "b-1")
		wantCode(t, err, cms.CodeNotFound, "BatchOutcomes of another account")
		_, err = s.BatchOutcomes(ctx, "a", cms.KindMap, "b-1")
		wantCode(t, err, cms.CodeNotFound, "BatchOutcomes of another kind")
		_, err = s.BatchOutcomes(ctx, "a", cms.KindResource, "b-9")
		wantCode(t, err, cms.CodeNotFound, "BatchOutcomes of an unknown id")
	})
	t.Run("EnqueueAndGet", func(t *testing.T) {
		t.Parallel()
		s := open(t)
		ctx := t.Context()
		want := batch("b-1", time.Date(2026, 11, 22, 11, 0, 0, 654321000, cet))
		want.Count, want.Kind = 3, cms.KindMap
		must(t, s.EnqueueBatch(ctx, want))
		other := batch("b-1", t0)
		wantCode(t, s.EnqueueBatch(ctx, other), cms.CodeConflict, "EnqueueBatch of an existing id")
		other.Account = "b"
		wantCode(t, s.EnqueueBatch(ctx, other), cms.CodeConflict, "EnqueueBatch of an existing id in another account")

		got, err := s.GetBatch(ctx, "a", cms.KindMap, "b-1")
		if err != nil {
			t.Fatalf("GetBatch: %v", err)
		}
		if got.ID != "b-1" || got.Account != "a" || got.Kind != cms.KindMap || len(got.Payload) != 0 || got.Count != 3 ||
			got.Status != cms.BatchWaiting || !got.Requested.Equal(want.Requested) || !got.StatusAt.Equal(want.Requested) ||
			got.Owner != "" || !got.LeaseUntil.IsZero() || got.Attempts != 0 || got.Processed != 0 || countsOf(got.Result) != (resultCounts{}) {
			t.Errorf("GetBatch:\n got %+v\nwant %+v without its payload", got, want)
		}
		_, err = s.GetBatch(ctx, "b", cms.KindMap, "b-1")
		wantCode(t, err, cms.CodeNotFound, "GetBatch of another account")
		_, err = s.GetBatch(ctx, "a", cms.KindResource, "b-1")
		wantCode(t, err, cms.CodeNotFound, "GetBatch of another kind")
		_, err = s.GetBatch(ctx, "a", cms.KindMap, "b-2")
		wantCode(t, err, cms.CodeNotFound, "GetBatch of an unknown id")
	})

	t.Run("LargePayload", func(t *testing.T) {
		t.Parallel()
		s := open(t)
		// Larger than any part an adapter stores it in, and not a multiple.
		large := make([]byte, 2<<20+12345)
		for i := range large {
			large[i] = byte('a' + i%26)
		}
		b := batch("large", t0)
		b.Payload = large
		enqueue(t, s, b)
		empty := batch("empty", t0.Add(time.Second))
		empty.Payload = []byte{}
		enqueue(t, s, empty)
		if got := payloadOf(t, s, "large"); got != string(large) {
			t.Errorf("large payload read back: %d bytes, differs from the %d stored", len(got), len(large))
		}
		if got := payloadOf(t, s, "empty"); got != "" {
			t.Errorf("empty payload read back as %q", got)
		}
	})

	t.Run("ClaimOldestFirst", func(t *testing.T) {
		t.Parallel()
		s := open(t)
		wantNoClaim(t, s, t0, "claim from an empty queue")
		// Neither the order of enqueueing nor the ids decide: the oldest
		// request does.
		enqueue(t, s, batch("q-z", t0))
		enqueue(t, s, batch("q-a", t0.Add(time.Second)))
		enqueue(t, s, batch("q-m", t0.Add(-time.Second)))
		now := t0.Add(time.Minute)
		concurrent := s.Features().ConcurrentBatchClaims
		for i, want := range []string{"q-m", "q-z", "q-a"} {
			lease := now.Add(time.Duration(i+1) * time.Minute)
			got := claim(t, s, fmt.Sprintf("w-%d", i), now, lease)
			if got.ID != want || got.Status != cms.BatchProcessing || got.Attempts != 1 || got.Owner != fmt.Sprintf("w-%d", i) ||
				!got.LeaseUntil.Equal(lease) || !got.StatusAt.Equal(now) || payloadOf(t, s, want) != `[{"id":"r-`+want+`"}]` ||
				got.Count != 1 || got.Account != "a" || got.Kind != cms.KindResource {
				t.Errorf("claim %d:\n got %+v\nwant %s, processing by w-%d until %v, attempt 1, with its payload", i+1, got, want, i, lease)
			}
			stored := getBatch(t, s, want)
			if stored.Status != cms.BatchProcessing || stored.Owner != got.Owner || stored.Attempts != 1 || !stored.LeaseUntil.Equal(lease) {
				t.Errorf("GetBatch after claim %d: %+v", i+1, stored)
			}
			if !concurrent {
				// In order: the next waits until this one is finished.
				wantNoClaim(t, s, now, "claim while an older batch is processing")
				must(t, s.FinishBatch(t.Context(), want, got.Owner, cms.BatchDone, cms.BatchResult{}, now))
			}
		}
		wantNoClaim(t, s, now.Add(30*time.Second), "claim while every lease holds")
	})

	t.Run("Leases", func(t *testing.T) {
		t.Parallel()
		s := open(t)
		ctx := t.Context()
		enqueue(t, s, batch("b-1", t0))
		enqueue(t, s, batch("b-2", t0.Add(time.Second)))
		now := t0.Add(time.Minute)
		first := claim(t, s, "w-1", now, now.Add(time.Minute)) // b-1
		if first.ID != "b-1" {
			t.Fatalf("claimed %s, want b-1", first.ID)
		}

		// A heartbeat by the owner extends the lease; by another is refused.
		wantCode(t, s.HeartbeatBatch(ctx, "b-1", "w-2", now.Add(time.Hour), 1), cms.CodeConflict, "HeartbeatBatch by another worker")
		wantCode(t, s.HeartbeatBatch(ctx, "b-9", "w-1", now.Add(time.Hour), 1), cms.CodeConflict, "HeartbeatBatch of an unknown batch")
		must(t, s.HeartbeatBatch(ctx, "b-1", "w-1", now.Add(5*time.Minute), 0))
		if got := getBatch(t, s, "b-1"); !got.LeaseUntil.Equal(now.Add(5*time.Minute)) || got.Owner != "w-1" || got.Processed != 0 {
			t.Errorf("after the heartbeat: %+v", got)
		}
		// The heartbeat carries the progress, which never decreases
		// within a claim; a refused heartbeat changes nothing.
		must(t, s.HeartbeatBatch(ctx, "b-1", "w-1", now.Add(5*time.Minute), 40))
		must(t, s.HeartbeatBatch(ctx, "b-1", "w-1", now.Add(5*time.Minute), 30))
		wantCode(t, s.HeartbeatBatch(ctx, "b-1", "w-2", now.Add(time.Hour), 90), cms.CodeConflict, "HeartbeatBatch by another worker")
		if got := getBatch(t, s, "b-1"); got.Processed != 40 || !got.LeaseUntil.Equal(now.Add(5*time.Minute)) {
			t.Errorf("after heartbeats with 40, 30, and 90 by another: processed %d, lease %v", got.Processed, got.LeaseUntil)
		}

		if !s.Features().ConcurrentBatchClaims {
			// In order: b-2 waits while b-1 is processing, even after
			// b-1's lease; then b-1 is taken up again first.
			wantNoClaim(t, s, now.Add(2*time.Minute), "claim of b-2 while b-1 is processing")
			muchLater := now.Add(6 * time.Minute)
			retaken := claim(t, s, "w-3", muchLater, muchLater.Add(time.Minute))
			if retaken.ID != "b-1" || retaken.Attempts != 2 || retaken.Owner != "w-3" || retaken.Processed != 0 ||
				payloadOf(t, s, "b-1") != `[{"id":"r-b-1"}]` {
				t.Errorf("claim after b-1's lease:\n got %+v\nwant b-1 by w-3, attempt 2, processed 0", retaken)
			}
			if got := getBatch(t, s, "b-1"); got.Processed != 0 || got.Attempts != 2 {
				t.Errorf("b-1 taken up again: processed %d, attempts %d; want 0, 2", got.Processed, got.Attempts)
			}
			wantCode(t, s.FinishBatch(ctx, "b-1", "w-1", cms.BatchDone, cms.BatchResult{Created: 1}, muchLater), cms.CodeConflict,
				"FinishBatch by the former owner")
			must(t, s.FinishBatch(ctx, "b-1", "w-3", cms.BatchDone, cms.BatchResult{Created: 1}, muchLater))
			if got := claim(t, s, "w-4", muchLater, muchLater.Add(time.Minute)); got.ID != "b-2" || got.Attempts != 1 {
				t.Errorf("claim after b-1 finished: %+v", got)
			}
			return
		}
		second := claim(t, s, "w-2", now, now.Add(time.Minute))
		if second.ID != "b-2" {
			t.Fatalf("claimed %s beside b-1, want b-2", second.ID)
		}

		// b-2's lease ends: another worker takes it up; b-1's still holds.
		later := now.Add(2 * time.Minute)
		retaken := claim(t, s, "w-3", later, later.Add(time.Minute))
		if retaken.ID != "b-2" || retaken.Attempts != 2 || retaken.Owner != "w-3" || retaken.Status != cms.BatchProcessing ||
			!retaken.LeaseUntil.Equal(later.Add(time.Minute)) || payloadOf(t, s, "b-2") != `[{"id":"r-b-2"}]` {
			t.Errorf("claim after the lease ended:\n got %+v\nwant b-2 by w-3, attempt 2", retaken)
		}
		wantNoClaim(t, s, later, "claim while b-1's extended lease holds")
		wantCode(t, s.HeartbeatBatch(ctx, "b-2", "w-2", later.Add(time.Hour), 1), cms.CodeConflict, "HeartbeatBatch by the former owner")
		wantCode(t, s.FinishBatch(ctx, "b-2", "w-2", cms.BatchDone, cms.BatchResult{Created: 1}, later), cms.CodeConflict,
			"FinishBatch by the former owner")
		if got := getBatch(t, s, "b-2"); got.Status != cms.BatchProcessing || got.Owner != "w-3" || countsOf(got.Result) != (resultCounts{}) {
			t.Errorf("the refused finish changed the batch: %+v", got)
		}

		// After the extended lease, b-1 can be claimed again, its
		// progress from 0.
		muchLater := now.Add(6 * time.Minute)
		if got := claim(t, s, "w-4", muchLater, muchLater.Add(time.Minute)); got.ID != "b-1" || got.Attempts != 2 || got.Owner != "w-4" ||
			got.Processed != 0 {
			t.Errorf("claim after the extended lease: %+v", got)
		}
		if got := getBatch(t, s, "b-1"); got.Processed != 0 {
			t.Errorf("b-1 taken up again: processed %d, want 0", got.Processed)
		}
	})

	t.Run("Finish", func(t *testing.T) {
		t.Parallel()
		s := open(t)
		ctx := t.Context()
		enqueue(t, s, batch("b-1", t0))
		enqueue(t, s, batch("b-2", t0.Add(time.Second)))
		now := t0.Add(time.Minute)
		claim(t, s, "w-1", now, now.Add(time.Minute))
		done := cms.BatchResult{Created: 3, Updated: 2, Skipped: 1}
		failed := cms.BatchResult{Error: "Resource r-1: mapIds[0]: no Map m-9"}
		wantCode(t, s.FinishBatch(ctx, "b-1", "w-2", cms.BatchDone, done, now), cms.CodeConflict, "FinishBatch by another worker")
		must(t, s.FinishBatch(ctx, "b-1", "w-1", cms.BatchDone, done, now.Add(10*time.Second)))
		claim(t, s, "w-2", now, now.Add(time.Minute))
		must(t, s.FinishBatch(ctx, "b-2", "w-2", cms.BatchError, failed, now.Add(20*time.Second)))
		for _, want := range []struct {
			id     string
			status cms.BatchStatus
			result cms.BatchResult
			at     time.Time
		}{{"b-1", cms.BatchDone, done, now.Add(10 * time.Second)}, {"b-2", cms.BatchError, failed, now.Add(20 * time.Second)}} {
			got := getBatch(t, s, want.id)
			if got.Status != want.status || countsOf(got.Result) != countsOf(want.result) || len(got.Result.Outcomes) != 0 ||
				!got.StatusAt.Equal(want.at) || !got.Requested.Before(now) {
				t.Errorf("finished %s:\n got %+v\nwant %s with %+v at %v", want.id, got, want.status, want.result, want.at)
			}
		}
		wantCode(t, s.FinishBatch(ctx, "b-1", "w-1", cms.BatchError, failed, now.Add(time.Minute)), cms.CodeConflict, "FinishBatch of a finished batch")
		wantCode(t, s.HeartbeatBatch(ctx, "b-1", "w-1", now.Add(time.Hour), 1), cms.CodeConflict, "HeartbeatBatch of a finished batch")
		if got := getBatch(t, s, "b-1"); got.Status != cms.BatchDone || countsOf(got.Result) != countsOf(done) {
			t.Errorf("a refused call changed the finished batch: %+v", got)
		}
		wantNoClaim(t, s, now.Add(time.Hour), "finished batches are never claimed")
		for _, id := range []string{"b-1", "b-2", "b-9"} {
			_, err := s.BatchPayload(ctx, id)
			wantCode(t, err, cms.CodeNotFound, "BatchPayload of a finished or unknown batch")
		}
	})

	t.Run("Queue", func(t *testing.T) {
		t.Parallel()
		s := open(t)
		ctx := t.Context()
		queue := func(what string, want cms.BatchQueue) {
			t.Helper()
			got, err := s.BatchQueue(ctx)
			if err != nil || got.Waiting != want.Waiting || got.Processing != want.Processing || !got.OldestWaiting.Equal(want.OldestWaiting) {
				t.Errorf("%s: BatchQueue %+v, %v; want %+v", what, got, err, want)
			}
		}
		queue("empty", cms.BatchQueue{})
		enqueue(t, s, batch("b-1", t0))
		enqueue(t, s, batch("b-2", t0.Add(time.Second)))
		enqueue(t, s, batch("b-3", t0.Add(2*time.Second)))
		queue("three waiting", cms.BatchQueue{Waiting: 3, OldestWaiting: t0})
		now := t0.Add(time.Minute)
		claim(t, s, "w-1", now, now.Add(time.Minute))
		queue("one claimed", cms.BatchQueue{Waiting: 2, Processing: 1, OldestWaiting: t0.Add(time.Second)})
		must(t, s.FinishBatch(ctx, "b-1", "w-1", cms.BatchDone, cms.BatchResult{Created: 1}, now))
		claim(t, s, "w-1", now, now.Add(time.Minute))
		must(t, s.FinishBatch(ctx, "b-2", "w-1", cms.BatchError, cms.BatchResult{Error: "x"}, now))
		queue("two finished", cms.BatchQueue{Waiting: 1, OldestWaiting: t0.Add(2 * time.Second)})
	})

	t.Run("Purge", func(t *testing.T) {
		t.Parallel()
		s := open(t)
		ctx := t.Context()
		for i, id := range []string{"done-old", "error-old", "done-new", "processing-old", "waiting-old"} {
			enqueue(t, s, batch(id, t0.Add(time.Duration(i)*time.Second)))
		}
		now := t0.Add(time.Minute)
		for _, f := range []struct {
			id     string
			status cms.BatchStatus
			at     time.Time
		}{{"done-old", cms.BatchDone, now}, {"error-old", cms.BatchError, now.Add(time.Second)}, {"done-new", cms.BatchDone, now.Add(time.Hour)}} {
			if b := claim(t, s, "w-"+f.id, now, now.Add(time.Minute)); b.ID != f.id {
				t.Fatalf("claimed %s, want %s", b.ID, f.id)
			}
			must(t, s.FinishBatch(ctx, f.id, "w-"+f.id, f.status, cms.BatchResult{}, f.at))
		}
		claim(t, s, "w-p", now, now.Add(time.Minute)) // processing-old
		cut := now.Add(time.Minute)
		if n, err := s.PurgeBatches(ctx, cut); err != nil || n != 2 {
			t.Errorf("PurgeBatches: %d, %v; want 2 (done-old, error-old)", n, err)
		}
		for _, id := range []string{"done-old", "error-old"} {
			_, err := s.GetBatch(ctx, "a", cms.KindResource, id)
			wantCode(t, err, cms.CodeNotFound, "a purged batch")
		}
		for _, id := range []string{"done-new", "processing-old", "waiting-old"} {
			getBatch(t, s, id)
		}
		if n, err := s.PurgeBatches(ctx, cut); err != nil || n != 0 {
			t.Errorf("second PurgeBatches: %d, %v; want 0", n, err)
		}
	})

	t.Run("ConcurrentClaims", func(t *testing.T) {
		t.Parallel()
		s := open(t)
		ctx := t.Context()
		// Whatever Features says, two claimers never get the same batch.
		var want []string
		for i := range 10 {
			id := fmt.Sprintf("b-%02d", i)
			want = append(want, id)
			enqueue(t, s, batch(id, t0.Add(time.Duration(i)*time.Second)))
		}
		var mu sync.Mutex
		var got []string
		var wg sync.WaitGroup
		for w := range 8 {
			wg.Go(func() {
				for {
					b, err := s.ClaimBatch(ctx, fmt.Sprintf("w-%d", w), t0.Add(time.Hour), t0.Add(2*time.Hour))
					if cms.ErrorCode(err) == cms.CodeNotFound {
						return
					}
					if err != nil {
						t.Errorf("concurrent claim: %v", err)
						return
					}
					mu.Lock()
					got = append(got, b.ID)
					mu.Unlock()
					// Finished, so a store that claims in order goes on.
					if err := s.FinishBatch(ctx, b.ID, b.Owner, cms.BatchDone, cms.BatchResult{}, t0.Add(time.Hour)); err != nil {
						t.Errorf("finish %s: %v", b.ID, err)
						return
					}
				}
			})
		}
		wg.Wait()
		slices.Sort(got)
		if !slices.Equal(got, want) {
			t.Fatalf("claimed %v: want each of the 10 batches exactly once", got)
		}
	})

	t.Run("SharedProgress", func(t *testing.T) {
		t.Parallel()
		s := open(t)
		if !s.Features().SharedBatchProgress {
			t.Skip("Features.SharedBatchProgress is false: only the applying process knows a batch's progress")
		}
		ctx := t.Context()
		enqueue(t, s, batch("b-1", t0))
		b := claim(t, s, "w-1", t0, t0.Add(time.Hour))
		// The batch's transaction has written records and not ended: the
		// heartbeat beside it lands, and every reader sees the progress.
		err := s.WithTx(ctx, func(tx cms.Store) error {
			if err := tx.PutRecord(ctx, entry("a", record(cms.KindResource, "r-b-1", nil), t0)); err != nil {
				return err
			}
			octx, cancel := context.WithTimeout(ctx, 30*time.Second)
			defer cancel()
			if err := s.HeartbeatBatch(octx, b.ID, "w-1", t0.Add(2*time.Hour), 1); err != nil {
				return err
			}
			got, err := s.GetBatch(octx, "a", cms.KindResource, b.ID)
			if err == nil && (got.Processed != 1 || !got.LeaseUntil.Equal(t0.Add(2*time.Hour))) {
				err = fmt.Errorf("beside the open transaction: processed %d, lease %v", got.Processed, got.LeaseUntil)
			}
			return err
		})
		if err != nil {
			t.Fatalf("heartbeat beside a batch's open transaction: %v", err)
		}
	})

	t.Run("ClaimsDoNotWait", func(t *testing.T) {
		t.Parallel()
		s := open(t)
		if !s.Features().ConcurrentBatchClaims {
			t.Skip("Features.ConcurrentBatchClaims is false: one process claims batches")
		}
		ctx := t.Context()
		enqueue(t, s, batch("b-1", t0))
		enqueue(t, s, batch("b-2", t0.Add(time.Second)))
		// A claim in a transaction that has not ended yet holds b-1; a
		// claimer elsewhere takes b-2 meanwhile instead of waiting.
		var outside *cms.Batch
		err := s.WithTx(ctx, func(tx cms.Store) error {
			inside, err := tx.ClaimBatch(ctx, "w-1", t0.Add(time.Hour), t0.Add(2*time.Hour))
			if err != nil {
				return err
			}
			if inside.ID != "b-1" {
				return fmt.Errorf("claimed %s in the transaction, want b-1", inside.ID)
			}
			octx, cancel := context.WithTimeout(ctx, 30*time.Second)
			defer cancel()
			outside, err = s.ClaimBatch(octx, "w-2", t0.Add(time.Hour), t0.Add(2*time.Hour))
			return err
		})
		if err != nil {
			t.Fatalf("claim beside an open transaction: %v", err)
		}
		if outside.ID != "b-2" || outside.Owner != "w-2" {
			t.Fatalf("the claim beside the transaction got %+v, want b-2", outside)
		}
		if got := getBatch(t, s, "b-1"); got.Owner != "w-1" || got.Attempts != 1 {
			t.Errorf("b-1 after the transaction: %+v", got)
		}
	})
}
