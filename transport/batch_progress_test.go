package transport

import (
	"context"
	"encoding/json"
	"fmt"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/bwcms/cms/cms"
)

// wantNothingStored fails unless the store holds no batch and none of ids
// as a Resource of acme.
func wantNothingStored(t *testing.T, e *env, ids ...string) {
	t.Helper()
	q, err := e.store.BatchQueue(t.Context())
	if err != nil || q.Waiting != 0 || q.Processing != 0 {
		t.Errorf("batch queue after a dry run: %+v, %v; want empty", q, err)
	}
	if did, err := e.svc.ProcessBatch(t.Context(), "test-worker"); did || err != nil {
		t.Errorf("a dry run queued a batch: %v, %v", did, err)
	}
	for _, id := range ids {
		if _, err := e.store.GetRecord(t.Context(), "acme", cms.KindResource, id); cms.ErrorCode(err) != cms.CodeNotFound {
			t.Errorf("Resource %s after a dry run: %v, want none", id, err)
		}
	}
}

// TestBatchDryRun: ?dryRun=1 answers as a submit would (409, 400, 413,
// 403) or 200 with the count, and stores nothing either way.
func TestBatchDryRun(t *testing.T) {
	t.Parallel()
	for _, st := range stores {
		t.Run(st.name, func(t *testing.T) {
			t.Parallel()
			e := newEnv(t, envOptions{store: st.open, svc: func(o *cms.Options) { o.MaxBatchRecords = 3 }})
			const path = "/api/bw/v2/resource/batch?dryRun=1"
			runFlow(t, e, []step{
				{name: "problems", user: "admin", method: "POST", path: path, status: 409,
					body: `[{"id":"dry1","title":"One"},{"id":"dry2","poiResourceIds":["dry1","nowhere"]},{"id":"dry3","mapIds":["no-map"]}]`,
					want: `{"fail":"Resource dry2: poiResourceIds[1]: Resource nowhere does not exist\nResource dry3: mapIds[0]: Map no-map does not exist"}`},
				{name: "malformed", user: "admin", method: "POST", path: path, body: `{"id":"dry1"}`, status: 400,
					want: `{"fail":"Wrong request"}`},
				{name: "too many", user: "admin", method: "POST", path: path, status: 413,
					body: `[{"id":"dry1"},{"id":"dry2"},{"id":"dry3"},{"id":"dry4"}]`},
				{name: "no write permission", user: "reader", method: "POST", path: path, body: `[{"id":"dry1"}]`, status: 403,
					want: `{"fail":"Forbidden"}`},
				{name: "bad value", user: "admin", method: "POST", path: "/api/bw/v2/resource/batch?dryRun=yes",
					body: `[{"id":"dry1"}]`, status: 400, want: `{"fail":"Wrong request"}`},
				{name: "twice", user: "admin", method: "POST", path: "/api/bw/v2/resource/batch?dryRun=1&dryRun=1",
					body: `[{"id":"dry1"}]`, status: 400, want: `{"fail":"Wrong request"}`},
				{name: "good", user: "admin", method: "POST", path: path, status: 200,
					body: `[{"id":"dry1","title":"One"},{"id":"dry2","poiResourceIds":["dry1"]},{"id":"dry3"}]`,
					want: `{"done":"Batch checked","count":3}`},
				{name: "true", user: "admin", method: "POST", path: "/api/bw/v2/resource/batch?dryRun=true&_=1",
					body: `[{"id":"dry1"}]`, status: 200, want: `{"done":"Batch checked","count":1}`},
			})
			wantNothingStored(t, e, "dry1", "dry2", "dry3")
			// dryRun=0 submits.
			runFlow(t, e, []step{{user: "admin", method: "POST", path: "/api/bw/v2/resource/batch?dryRun=0",
				body: `[{"id":"dry1"}]`, status: 201}})
			process(t, e)
			if _, err := e.store.GetRecord(t.Context(), "acme", cms.KindResource, "dry1"); err != nil {
				t.Errorf("dryRun=0 did not submit: %v", err)
			}
		})
	}
}

// statusBody is a batch status answer.
type statusBody struct {
	Status    string `json:"status"`
	Count     int    `json:"count"`
	Created   *int   `json:"created"`
	Processed *int   `json:"processed"`
	Attempt   *int   `json:"attempt"`
}

// progressRecorder keeps the status answers a test reads while a worker
// applies a batch (from the store's write, on the worker's goroutines).
type progressRecorder struct {
	mu    sync.Mutex
	seen  []statusBody
	fails []string
}

func (p *progressRecorder) record(e *env, kind, id string) {
	w := e.send("admin", "GET", "/api/bw/v2/"+kind+"/batch/"+id, "", nil)
	var b statusBody
	err := json.Unmarshal(w.Body.Bytes(), &b)
	p.mu.Lock()
	defer p.mu.Unlock()
	if w.Code != 200 || err != nil {
		p.fails = append(p.fails, fmt.Sprintf("%d %s", w.Code, w.Body))
		return
	}
	p.seen = append(p.seen, b)
}

// check fails unless every answer seen was processing, at attempt, with
// processed never decreasing, within [0, count], and moving.
func (p *progressRecorder) check(t *testing.T, attempt, count int) []int {
	t.Helper()
	p.mu.Lock()
	defer p.mu.Unlock()
	if len(p.fails) > 0 {
		t.Fatalf("status answers: %v", p.fails)
	}
	var processed []int
	for _, b := range p.seen {
		if b.Status != "processing" || b.Processed == nil || b.Attempt == nil || *b.Attempt != attempt || b.Created != nil {
			t.Fatalf("status while applying: %+v; want processing with processed and attempt %d", b, attempt)
		}
		processed = append(processed, *b.Processed)
	}
	if len(processed) < 3 || !slices.IsSorted(processed) || processed[0] < 0 || processed[len(processed)-1] > count ||
		processed[len(processed)-1] == processed[0] {
		t.Errorf("processed while applying: %v; want a rising sequence within 0..%d", processed, count)
	}
	return processed
}

func resourceBatch(prefix string, n int) string {
	recs := make([]string, n)
	for i := range recs {
		recs[i] = fmt.Sprintf(`{"id":"%s%05d","title":"Place %d"}`, prefix, i, i)
	}
	return "[" + strings.Join(recs, ",") + "]"
}

// TestBatchProgress: while a batch of 3,000 applies, its status shows
// processed rising, never falling, and the status once done has the
// count created. Where the progress is shared (PostgreSQL) the heartbeat
// writes it to the store, where any instance reads it.
func TestBatchProgress(t *testing.T) {
	t.Parallel()
	for _, st := range stores {
		t.Run(st.name, func(t *testing.T) {
			t.Parallel()
			e, f := faultEnv(t, st.open, nil)
			const n = 3000
			id := submit(t, e, "resource", resourceBatch("pr", n))
			var rec progressRecorder
			var shared sync.Once
			chunks := 0
			overview := -1
			f.put = func() { // each chunk's write, in the batch's transaction
				rec.record(e, "resource", id)
				if chunks++; chunks == 5 && e.store.Features().SharedBatchProgress {
					shared.Do(func() { waitStoredProgress(t, e, id) })
				}
				if chunks == 3 { // the overview's list shows the same progress
					admin := cms.WithPrincipal(t.Context(), cms.Principal{Account: "acme", User: "admin", Perms: []string{"*"}})
					if running, err := e.svc.RunningBatches(admin); err == nil && len(running) == 1 && running[0].ID == id {
						overview = running[0].Processed
					}
				}
			}
			process(t, e)
			f.put = nil
			if overview < 512 {
				t.Errorf("RunningBatches while the third chunk is written: processed %d, want at least 512", overview)
			}
			seen := rec.check(t, 1, n)
			t.Logf("%s: processed seen while applying: %v", st.name, seen)
			var done statusBody
			if err := json.Unmarshal([]byte(statusOf(t, e, "resource", id)), &done); err != nil || done.Status != "done" ||
				done.Created == nil || *done.Created != n || done.Processed != nil || done.Attempt != nil {
				t.Errorf("status once done: %+v, %v; want done, created %d, no progress", done, err, n)
			}
		})
	}
}

// waitStoredProgress waits until the store holds progress of batch id
// written by its worker's heartbeat (at most 10 s: it beats every second
// while the count moves).
func waitStoredProgress(t *testing.T, e *env, id string) {
	deadline := time.Now().Add(10 * time.Second)
	for {
		b, err := e.store.GetBatch(t.Context(), "acme", cms.KindResource, id)
		if err == nil && b.Processed > 0 {
			return
		}
		if time.Now().After(deadline) {
			t.Errorf("no progress stored by the heartbeat in 10 s: %+v, %v", b, err)
			return
		}
		time.Sleep(20 * time.Millisecond)
	}
}

// TestBatchProgressRestart: a batch whose worker stopped after applying
// part of it (its lease ran out) is taken up by another worker; its
// status shows attempt 2 with processed started again from 0, then done.
func TestBatchProgressRestart(t *testing.T) {
	t.Parallel()
	for _, st := range stores {
		t.Run(st.name, func(t *testing.T) {
			t.Parallel()
			e, f := faultEnv(t, st.open, nil)
			const n = 1000
			id := submit(t, e, "resource", resourceBatch("rs", n))
			now := e.clock.Now()
			if b, err := e.store.ClaimBatch(t.Context(), "stopped-worker", now, now.Add(time.Minute)); err != nil || b.ID != id {
				t.Fatalf("claim: %v %v", b, err)
			}
			if err := e.store.HeartbeatBatch(t.Context(), id, "stopped-worker", now.Add(time.Minute), 600); err != nil {
				t.Fatal(err)
			}
			var before statusBody
			if err := json.Unmarshal([]byte(statusOf(t, e, "resource", id)), &before); err != nil || before.Status != "processing" ||
				before.Processed == nil || *before.Processed != 600 || before.Attempt == nil || *before.Attempt != 1 {
				t.Fatalf("status of the first attempt: %+v, %v; want processing, processed 600, attempt 1", before, err)
			}
			e.clock.Advance(61 * time.Second)
			var rec progressRecorder
			f.put = func() { rec.record(e, "resource", id) }
			process(t, e)
			f.put = nil
			seen := rec.check(t, 2, n)
			if seen[0] >= 600 {
				t.Errorf("processed of the second attempt: %v; want it to start below the first attempt's 600", seen)
			}
			if got := statusOf(t, e, "resource", id); !strings.Contains(got, `"status":"done"`) || !strings.Contains(got, `"created":1000,`) {
				t.Errorf("after the second attempt: %s", got)
			}
		})
	}
}

// TestBatchOutcomes: once done, BatchOutcomes lists what the batch did to
// each record in its order; before, nothing; with the read permission of
// the kind and the account's batches only.
func TestBatchOutcomes(t *testing.T) {
	t.Parallel()
	forEachStore(t, func(t *testing.T, e *env) {
		runFlow(t, e, []step{
			{user: "admin", method: "POST", path: "/api/bw/v2/resource", body: `{"id":"oc-old","title":"Old"}`, status: 201},
			{user: "admin", method: "POST", path: "/api/bw/v2/resource", body: `{"id":"oc-same","title":"Same"}`, status: 201},
			{user: "admin", method: "POST", path: "/api/bw/v2/resource", body: `{"id":"oc-doomed"}`, status: 201},
		})
		id := submit(t, e, "resource", `[{"id":"oc-new","title":"New"},{"id":"oc-old","title":"Changed"},`+
			`{"id":"oc-same","title":"Same"},{"id":"oc-doomed","deleteElementIrreversibly":true},`+
			`{"id":"oc-never","deleteElementIrreversibly":true},{"id":"oc-new","title":"Newer"}]`)
		admin := cms.WithPrincipal(t.Context(), cms.Principal{Account: "acme", User: "admin", Perms: []string{"*"}})
		if got, err := e.svc.BatchOutcomes(admin, cms.KindResource, id); err != nil || len(got) != 0 {
			t.Errorf("outcomes of a waiting batch: %v, %v; want none", got, err)
		}
		process(t, e)
		want := []cms.RecordOutcome{{ID: "oc-new", Outcome: cms.Created}, {ID: "oc-old", Outcome: cms.Updated},
			{ID: "oc-same", Outcome: cms.Skipped}, {ID: "oc-doomed", Outcome: cms.Deleted},
			{ID: "oc-never", Outcome: cms.Skipped}, {ID: "oc-new", Outcome: cms.Updated}}
		got, err := e.svc.BatchOutcomes(admin, cms.KindResource, id)
		if err != nil || !slices.Equal(got, want) {
			t.Errorf("outcomes:\n got %v, %v\nwant %v", got, err, want)
		}
		if s := statusOf(t, e, "resource", id); !strings.Contains(s, `"created":1,"updated":3,"skipped":2`) {
			t.Errorf("status: %s; want the counts of the outcomes (a delete counts as updated)", s)
		}
		reader := cms.WithPrincipal(t.Context(), cms.Principal{Account: "acme", User: "reader", Perms: []string{"resource:read"}})
		if got, err := e.svc.BatchOutcomes(reader, cms.KindResource, id); err != nil || len(got) != len(want) {
			t.Errorf("outcomes with resource:read: %d, %v", len(got), err)
		}
		mapsOnly := cms.WithPrincipal(t.Context(), cms.Principal{Account: "acme", User: "m", Perms: []string{"map:*"}})
		if _, err := e.svc.BatchOutcomes(mapsOnly, cms.KindResource, id); cms.ErrorCode(err) != cms.CodeForbidden {
			t.Errorf("outcomes without resource:read: %v, want forbidden", err)
		}
		otto := cms.WithPrincipal(t.Context(), cms.Principal{Account: "other", User: "otto", Perms: []string{"*"}})
		for _, c := range []struct {
			ctx  context.Context
			kind cms.Kind
			id   string
		}{{otto, cms.KindResource, id}, {admin, cms.KindMap, id}, {admin, cms.KindResource, "no-such-batch"}} {
			_, err := e.svc.BatchOutcomes(c.ctx, c.kind, c.id)
			if cms.ErrorCode(err) != cms.CodeNotFound {
				t.Errorf("outcomes of %s %s: %v, want not found", c.kind, c.id, err)
			}
		}
	})
}
