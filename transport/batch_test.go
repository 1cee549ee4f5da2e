package transport

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"log/slog"
	"net/http/httptest"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/bwcms/cms/adapters/postgres"
	"github.com/bwcms/cms/adapters/postgres/pgtest"
	"github.com/bwcms/cms/cms"
	"github.com/bwcms/cms/internal/testenv"
)

// submit posts a batch and returns its id.
func submit(t *testing.T, e *env, kind, body string) string {
	t.Helper()
	w := e.send("admin", "POST", "/api/bw/v2/"+kind+"/batch", body, nil)
	if w.Code != 201 {
		t.Fatalf("batch: %d %s", w.Code, w.Body)
	}
	id, _ := field(t, w, "batchId").(string)
	if want := `{"done":"Batch process created","batchId":"` + id + `","count":`; !strings.HasPrefix(w.Body.String(), want) || len(id) != 32 {
		t.Errorf("batch answer: %s", w.Body)
	}
	return id
}

// process runs one worker step and fails unless it found a batch.
func process(t *testing.T, e *env) {
	t.Helper()
	did, err := e.svc.ProcessBatch(t.Context(), "test-worker")
	if err != nil || !did {
		t.Fatalf("ProcessBatch: %v, %v", did, err)
	}
}

// submitLandingsAndWait submits n one-Landing batches (ids prefix0, prefix1, ...)
// and waits up to 10 s for each to be done, which the env's workers must
// see to.
func submitLandingsAndWait(t *testing.T, e *env, prefix string, n int) {
	t.Helper()
	ids := make([]string, n)
	for i := range ids {
		ids[i] = submit(t, e, "landing", fmt.Sprintf(`[{"id":"%s%d"}]`, prefix, i))
	}
	deadline := time.Now().Add(10 * time.Second)
	for _, id := range ids {
		for !strings.Contains(statusOf(t, e, "landing", id), `"status":"done"`) {
			if time.Now().After(deadline) {
				t.Fatalf("batch %s not done: %s", id, statusOf(t, e, "landing", id))
			}
			time.Sleep(10 * time.Millisecond)
		}
	}
}

func statusOf(t *testing.T, e *env, kind, id string) string {
	t.Helper()
	w := e.send("admin", "GET", "/api/bw/v2/"+kind+"/batch/"+id, "", nil)
	if w.Code != 200 {
		t.Fatalf("status: %d %s", w.Code, w.Body)
	}
	return strings.TrimSpace(w.Body.String())
}

func TestBatchLifecycle(t *testing.T) {
	t.Parallel()
	forEachStore(t, func(t *testing.T, e *env) {
		body := `[{"id":"bat1","title":"One","published":true},{"id":"bat2","poiResourceIds":["bat1"],"published":true}]`
		id := submit(t, e, "resource", body)
		if got, want := statusOf(t, e, "resource", id),
			`{"done":"Batch process status","status":"waiting","dateStatus":"2026-11-22 11:00:00","dateRequest":"2026-11-22 11:00:00","count":2}`; got != want {
			t.Errorf("waiting:\n%s\nwant\n%s", got, want)
		}
		if w := e.send("admin", "GET", "/api/bw/v2/resource/bat1", "", nil); w.Code != 404 {
			t.Errorf("applied before a worker ran: %d", w.Code)
		}
		e.clock.Advance(time.Minute)
		process(t, e)
		if got, want := statusOf(t, e, "resource", id),
			`{"done":"Batch process status","status":"done","dateStatus":"2026-11-22 11:01:00","dateRequest":"2026-11-22 11:00:00","count":2,"created":2,"updated":0,"skipped":0}`; got != want {
			t.Errorf("done:\n%s\nwant\n%s", got, want)
		}
		runFlow(t, e, []step{
			{user: "admin", method: "GET", path: "/api/bw/v2/resource/bat2/fields/poiResourceIds", status: 200,
				want: `{"id":"bat2","poiResourceIds":["bat1"]}`},
		})
		// The same batch again is the same records: all skipped.
		id2 := submit(t, e, "resource", body)
		process(t, e)
		if got := statusOf(t, e, "resource", id2); !strings.Contains(got, `"created":0,"updated":0,"skipped":2`) {
			t.Errorf("applied twice: %s", got)
		}
		if did, err := e.svc.ProcessBatch(t.Context(), "test-worker"); did || err != nil {
			t.Errorf("a third batch appeared: %v %v", did, err)
		}
		// Status of other kinds and accounts, and of unknown ids.
		runFlow(t, e, []step{
			{user: "admin", method: "GET", path: "/api/bw/v2/map/batch/" + id, status: 404,
				want: `{"fail":"There is no Map ` + id + ` to clone"}`},
			{user: "otto", method: "GET", path: "/api/bw/v2/resource/batch/" + id, status: 404},
			{user: "reader", method: "GET", path: "/api/bw/v2/resource/batch/" + id, status: 200},
			{user: "reader", method: "POST", path: "/api/bw/v2/resource/batch", body: `[]`, status: 403, want: `{"fail":"Forbidden"}`},
			{method: "GET", path: "/api/bw/v2/resource/batch/" + id, status: 401},
		})
	})
}

func TestBatchRefusals(t *testing.T) {
	t.Parallel()
	e := newEnv(t, envOptions{svc: func(o *cms.Options) { o.MaxBatchRecords = 3 },
		http: func(o *Options) { o.MaxBatchBody = 2048 }})
	if err := e.svc.CreateUser(t.Context(), cms.NewUser{Name: "editor", Account: "acme", Password: testPassword,
		Perms: []string{"resource:write", "resource:read"}}); err != nil {
		t.Fatal(err)
	}
	runFlow(t, e, []step{
		{name: "every problem of every record", user: "admin", method: "POST", path: "/api/bw/v2/resource/batch", status: 409,
			body: `[{"id":"ok1"},{"id":"bad2","locationZoom":99},{"id":"bad3","mapIds":["nomap"],"poiResourceIds":["ok1","bad3","later"]}]`,
			want: `{"fail":"Resource bad2: locationZoom: must be an integer between 2 and 25\nResource bad3: mapIds[0]: Map nomap does not exist\nResource bad3: poiResourceIds[2]: Resource later does not exist"}`},
		{name: "rules of the merged records", user: "admin", method: "POST", path: "/api/bw/v2/resource/batch", status: 409,
			body: `[{"id":"trk","trackDifficulty":2},{"id":"al1","urlAlias":"/dup"},{"id":"al2","urlAlias":"/dup","poiResourceIds":["none"]}]`,
			want: `{"fail":"Resource trk: trackDifficulty: allowed only when resourceType is TRACK\nResource al2: poiResourceIds[0]: Resource none does not exist\nResource al2: urlAlias: /dup is already used by Resource al1"}`},
		{name: "not an array", user: "admin", method: "POST", path: "/api/bw/v2/resource/batch", body: `{"id":"abc"}`, status: 400, want: `{"fail":"Wrong request"}`},
		{name: "not objects", user: "admin", method: "POST", path: "/api/bw/v2/resource/batch", body: `[1]`, status: 400},
		{name: "trailing data", user: "admin", method: "POST", path: "/api/bw/v2/resource/batch", body: `[] []`, status: 400},
		{name: "duplicate keys", user: "admin", method: "POST", path: "/api/bw/v2/resource/batch", body: `[{"id":"abc","id":"abd"}]`, status: 400},
		{name: "invalid UTF-8 in a record", user: "admin", method: "POST", path: "/api/bw/v2/resource/batch",
			body: "[{\"id\":\"abc\"},{\"id\":\"abd\",\"title\":\"\xff\"}]", status: 400, want: `{"fail":"Wrong request"}`},
		{name: "a record nested deeper than 32 within the array", user: "admin", method: "POST", path: "/api/bw/v2/resource/batch",
			body: `[{"id":"abc","x":` + strings.Repeat("[", 31) + strings.Repeat("]", 31) + `}]`, status: 400, want: `{"fail":"Wrong request"}`},
		{name: "a record 32 deep within the array is read", user: "admin", method: "POST", path: "/api/bw/v2/resource/batch",
			body: `[{"id":"abc","x":` + strings.Repeat("[", 30) + strings.Repeat("]", 30) + `}]`, status: 409, want: `{"fail":"Resource abc: x: unknown field"}`},
		{name: "missing comma between records", user: "admin", method: "POST", path: "/api/bw/v2/resource/batch",
			body: `[{"id":"abc"} {"id":"abd"}]`, status: 400, want: `{"fail":"Wrong request"}`},
		{name: "too many records", user: "admin", method: "POST", path: "/api/bw/v2/resource/batch", status: 413,
			body: `[{"id":"aaa"},{"id":"bbb"},{"id":"ccc"},{"id":"ddd"}]`, want: `{"fail":"Request too large"}`},
		{name: "too many bytes", user: "admin", method: "POST", path: "/api/bw/v2/resource/batch", status: 413,
			body: `[{"id":"aaa","title":"` + strings.Repeat("x", 3000) + `"}]`},
		{name: "delete needs delete", user: "editor", method: "POST", path: "/api/bw/v2/resource/batch", status: 403,
			body: `[{"id":"aaa","deleteElementIrreversibly":true}]`},
		{name: "problems first, as a single upsert judges them", user: "editor", method: "POST", path: "/api/bw/v2/resource/batch", status: 409,
			body: `[{"id":"aaa","deleteElementIrreversibly":true,"locationZoom":99}]`,
			want: `{"fail":"Resource aaa: locationZoom: must be an integer between 2 and 25"}`},
		{name: "the same body singly", user: "editor", method: "POST", path: "/api/bw/v2/resource", status: 409,
			body: `{"id":"aaa","deleteElementIrreversibly":true,"locationZoom":99}`,
			want: `{"fail":"Resource aaa: locationZoom: must be an integer between 2 and 25"}`},
	})
	// Nothing was queued.
	if did, err := e.svc.ProcessBatch(t.Context(), "w"); did || err != nil {
		t.Errorf("a refused batch was queued: %v %v", did, err)
	}
	// As many records as allowed are taken.
	runFlow(t, e, []step{{name: "as many records as allowed", user: "admin", method: "POST", path: "/api/bw/v2/resource/batch",
		status: 201, body: `[{"id":"aaa"},{"id":"bbb"},{"id":"ccc"}]`},
		{name: "the raw array sent as a form (curl -d)", user: "admin", method: "POST", path: "/api/bw/v2/resource/batch",
			status: 201, body: `[{"id":"ddd","title":"a&json=b"}]`, header: map[string]string{"Content-Type": "application/x-www-form-urlencoded"},
			check: func(t *testing.T, _ *env, w *httptest.ResponseRecorder) {
				if n, _ := field(t, w, "count").(float64); n != 1 {
					t.Errorf("count %v, want 1", n)
				}
			}}})
}

// TestBatchFailsWhole: a record the batch names is deleted before the
// batch runs; the batch applies nothing and says why.
func TestBatchFailsWhole(t *testing.T) {
	t.Parallel()
	forEachStore(t, func(t *testing.T, e *env) {
		runFlow(t, e, []step{{user: "admin", method: "POST", path: "/api/bw/v2/map", body: `{"id":"map1"}`, status: 201}})
		id := submit(t, e, "resource", `[{"id":"first"},{"id":"second","mapIds":["map1"]}]`)
		runFlow(t, e, []step{{user: "admin", method: "DELETE", path: "/api/bw/v2/map/map1", status: 202}})
		process(t, e)
		if got, want := statusOf(t, e, "resource", id),
			`{"done":"Batch process status","status":"error","dateStatus":"2026-11-22 11:00:00","dateRequest":"2026-11-22 11:00:00","count":2,"error":"Resource second: mapIds[0]: Map map1 does not exist"}`; got != want {
			t.Errorf("status:\n%s\nwant\n%s", got, want)
		}
		if w := e.send("admin", "GET", "/api/bw/v2/resource/first/published/*", "", nil); w.Code != 404 {
			t.Errorf("part of a failed batch was applied: %d", w.Code)
		}
	})
}

// TestBatchLease: a worker that stopped mid-batch leaves it processing; a
// second one takes it up after the lease, and the first cannot finish it.
func TestBatchLease(t *testing.T) {
	t.Parallel()
	forEachStore(t, func(t *testing.T, e *env) {
		id := submit(t, e, "resource", `[{"id":"leased"}]`)
		now := e.clock.Now()
		b, err := e.store.ClaimBatch(t.Context(), "stopped-worker", now, now.Add(time.Minute))
		if err != nil || b.ID != id {
			t.Fatalf("claim: %v %v", b, err)
		}
		if !strings.Contains(statusOf(t, e, "resource", id), `"status":"processing"`) {
			t.Error("a claimed batch is not processing")
		}
		if did, _ := e.svc.ProcessBatch(t.Context(), "second"); did {
			t.Fatal("a batch under lease was taken")
		}
		e.clock.Advance(61 * time.Second)
		process(t, e)
		if got := statusOf(t, e, "resource", id); !strings.Contains(got, `"status":"done"`) || !strings.Contains(got, `"created":1`) {
			t.Errorf("after takeover: %s", got)
		}
		if err := e.store.FinishBatch(t.Context(), id, "stopped-worker", cms.BatchDone, cms.BatchResult{}, e.clock.Now()); cms.ErrorCode(err) != cms.CodeConflict {
			t.Errorf("the stopped worker finished a batch it lost: %v", err)
		}
	})
}

// TestBatchWorkersStop: a running worker pool stops with its context and
// applies what is waiting before.
func TestBatchWorkers(t *testing.T) {
	t.Parallel()
	e := newEnv(t, envOptions{svc: func(o *cms.Options) { o.BatchPoll = 10 * time.Millisecond }})
	ctx, cancel := context.WithCancel(t.Context())
	done := make(chan struct{})
	go func() {
		defer close(done)
		e.svc.RunBatchWorkers(ctx, 2)
	}()
	submitLandingsAndWait(t, e, "land", 5)
	cancel()
	select {
	case <-done:
	case <-time.After(10 * time.Second):
		t.Fatal("workers did not stop")
	}
}

// TestBatchInstances: two instances on one PostgreSQL database share 50
// batches; each is applied exactly once. Half are submitted while the
// workers run: the first instance's take its records from their submit,
// the second's read them from the store.
func TestBatchInstances(t *testing.T) {
	t.Parallel()
	open := testenv.PostgresAt(pgtest.DSN(t), &postgres.Options{})
	first := open(t)
	e := newEnv(t, envOptions{store: func(testing.TB) cms.Store { return first }})
	ids := make([]string, 50)
	submitAll := func(ids []string, from int) {
		for i := range ids {
			ids[i] = submit(t, e, "resource", fmt.Sprintf(`[{"id":"inst%02d"}]`, from+i))
		}
	}
	submitAll(ids[:25], 0)
	second, err := cms.NewService(open(t), &cms.Options{Now: e.clock.Now, BatchPoll: 5 * time.Millisecond})
	if err != nil {
		t.Fatal(err)
	}
	var wg sync.WaitGroup
	ctx, cancel := context.WithCancel(t.Context())
	wg.Go(func() { e.svc.RunBatchWorkers(ctx, 2) })
	wg.Go(func() { second.RunBatchWorkers(ctx, 2) })
	submitAll(ids[25:], 25)
	deadline := time.Now().Add(60 * time.Second)
	for _, id := range ids {
		for {
			b, err := first.GetBatch(t.Context(), "acme", cms.KindResource, id)
			if err != nil {
				t.Fatal(err)
			}
			if b.Status == cms.BatchDone {
				if b.Attempts != 1 || b.Result.Created != 1 {
					t.Errorf("batch %s: %d claims, %+v", id, b.Attempts, b.Result)
				}
				break
			}
			if time.Now().After(deadline) {
				t.Fatalf("batch %s still %s", id, b.Status)
			}
			time.Sleep(10 * time.Millisecond)
		}
	}
	cancel()
	wg.Wait()
	w := e.send("admin", "GET", "/api/bw/v2/resource/published/*/fields/id", "", nil)
	var list []map[string]any
	json.Unmarshal(w.Body.Bytes(), &list)
	if len(list) != 50 {
		t.Errorf("%d records, want 50", len(list))
	}
}

// TestBatchTouchesAssignedMaps: a batch assigning many Resources to a Map
// gives the Map the batch's instant as timeLastUpdate, as single upserts
// would, though it is stored once.
func TestBatchTouchesAssignedMaps(t *testing.T) {
	t.Parallel()
	forEachStore(t, func(t *testing.T, e *env) {
		for _, id := range []string{"map1", "map2"} {
			if w := e.send("admin", "POST", "/api/bw/v2/map", `{"id":"`+id+`","published":true}`, nil); w.Code != 201 {
				t.Fatalf("map %s: %d %s", id, w.Code, w.Body)
			}
		}
		var recs []string
		for i := range 300 {
			recs = append(recs, fmt.Sprintf(`{"id":"tr%03d","mapIds":["map1"],"published":true}`, i))
		}
		id := submit(t, e, "resource", "["+strings.Join(recs, ",")+"]")
		e.clock.Advance(5 * time.Minute)
		process(t, e)
		if got := statusOf(t, e, "resource", id); !strings.Contains(got, `"status":"done"`) {
			t.Fatalf("status: %s", got)
		}
		for mapID, want := range map[string]string{"map1": e.svc.Timestamp(e.clock.Now()), "map2": "2026-11-22 11:00:00"} {
			w := e.send("admin", "GET", "/api/bw/v2/map/"+mapID, "", nil)
			if got := field(t, w, "timeLastUpdate"); got != want {
				t.Errorf("%s timeLastUpdate %v, want %s", mapID, got, want)
			}
			if mapID == "map1" {
				if ids, _ := field(t, w, "resourceIds").([]any); len(ids) != 300 || ids[0] != "tr000" || ids[299] != "tr299" {
					t.Errorf("map1 resourceIds: %d, want tr000..tr299 in order", len(ids))
				}
			}
		}
	})
}

// failingWrites is a store whose transactions fail the set write of
// records after some succeed: a write that fails on the goroutine storing
// a chunk while the next one is upserted.
type failingWrites struct {
	cms.Store
	left *atomic.Int32
}

func (f failingWrites) WithTx(ctx context.Context, fn func(tx cms.Store) error) error {
	return f.Store.WithTx(ctx, func(tx cms.Store) error { return fn(failingWrites{tx, f.left}) })
}

func (f failingWrites) PutRecords(ctx context.Context, entries []*cms.Entry) error {
	if f.left.Add(-1) < 0 {
		return errors.New("disk full")
	}
	return f.Store.PutRecords(ctx, entries)
}

// publishedRecords is a batch body of n published Resources with ids
// <prefix>0000, <prefix>0001, ...
func publishedRecords(prefix string, n int) string {
	recs := make([]string, n)
	for i := range n {
		recs[i] = fmt.Sprintf(`{"id":"%s%04d","published":true}`, prefix, i)
	}
	return "[" + strings.Join(recs, ",") + "]"
}

// TestBatchWriteFailure: a chunk write failing after others were written
// leaves nothing of the batch; it is tried again at once, and when every
// attempt fails the status says error without the cause.
func TestBatchWriteFailure(t *testing.T) {
	t.Parallel()
	for _, st := range stores {
		t.Run(st.name, func(t *testing.T) {
			t.Parallel()
			left := new(atomic.Int32)
			e := newEnv(t, envOptions{store: func(tb testing.TB) cms.Store { return failingWrites{st.open(tb), left} }})
			id := submit(t, e, "resource", publishedRecords("wf", 1000))
			left.Store(2) // the third chunk's write fails, then every write
			for attempt := 1; attempt < 5; attempt++ {
				process(t, e) // rolled back, tried again at once
				if got := statusOf(t, e, "resource", id); !strings.Contains(got, `"status":"processing"`) {
					t.Fatalf("after attempt %d: %s", attempt, got)
				}
			}
			process(t, e) // the last attempt records the error
			if got := statusOf(t, e, "resource", id); !strings.Contains(got, `"status":"error"`) || !strings.Contains(got, `"error":"Internal error"`) {
				t.Errorf("status: %s", got)
			}
			if w := e.send("admin", "GET", "/api/bw/v2/resource/published/*", "", nil); strings.TrimSpace(w.Body.String()) != "[]" {
				t.Errorf("records of a failed batch: %.200s", w.Body)
			}
			if !strings.Contains(e.logs.String(), "disk full") {
				t.Errorf("the cause is not logged: %s", e.logs)
			}
		})
	}
}

// TestBatchRetriedAfterFailure: a write failing once (the store's fault,
// not the records') is tried again at once and the batch applied.
func TestBatchRetriedAfterFailure(t *testing.T) {
	t.Parallel()
	for _, st := range stores {
		t.Run(st.name, func(t *testing.T) {
			t.Parallel()
			left := new(atomic.Int32)
			left.Store(1 << 20)
			e := newEnv(t, envOptions{store: func(tb testing.TB) cms.Store { return failingWrites{st.open(tb), left} }})
			id := submit(t, e, "resource", publishedRecords("rt", 600))
			left.Store(1) // the second chunk's write fails
			process(t, e)
			left.Store(1 << 20)
			process(t, e)
			if got := statusOf(t, e, "resource", id); !strings.Contains(got, `"status":"done"`) || !strings.Contains(got, `"created":600`) {
				t.Errorf("status: %s", got)
			}
			if b, err := e.store.GetBatch(t.Context(), "acme", cms.KindResource, id); err != nil || b.Attempts != 2 {
				t.Errorf("batch: %+v, %v; want 2 attempts", b, err)
			}
			if !strings.Contains(e.logs.String(), "to be tried again") {
				t.Errorf("the retry is not logged: %.500s", e.logs)
			}
		})
	}
}

// TestBatchEveryKind applies a batch of each kind, naming records of the
// kinds before it, and reads every record back.
func TestBatchEveryKind(t *testing.T) {
	t.Parallel()
	forEachStore(t, func(t *testing.T, e *env) {
		batches := []struct{ kind, body string }{
			{"resource", `[{"id":"res1","title":"Mill","published":true},{"id":"res2","poiResourceIds":["res1"],"published":true}]`},
			{"map", `[{"id":"map1","resourceIds":["res1"],"secondaryResourceIds":["res2"],"trackResourceId":"res1","published":true}]`},
			{"landing", `[{"id":"lan1","mapId":"map1","landingBlocks":[{"resourceIds":["map1"]}],"published":true}]`},
			{"proposal", `[{"id":"pro1","mapId":"map1","title":"Offer","published":true}]`},
		}
		for _, b := range batches {
			id := submit(t, e, b.kind, b.body)
			process(t, e)
			if got := statusOf(t, e, b.kind, id); !strings.Contains(got, `"status":"done"`) || !strings.Contains(got, `"created":`+fmt.Sprint(strings.Count(b.body, `"id"`))) {
				t.Errorf("%s batch: %s", b.kind, got)
			}
		}
		for path, want := range map[string]string{
			"resource/res2": `"poiResourceIds":["res1"]`,
			"resource/res1": `"mapIds":["map1"]`,
			"map/map1":      `"resourceIds":["res1"]`,
			"landing/lan1":  `"mapId":"map1"`,
			"proposal/pro1": `"mapId":"map1"`,
		} {
			if w := e.send("admin", "GET", "/api/bw/v2/"+path, "", nil); w.Code != 200 || !strings.Contains(w.Body.String(), want) {
				t.Errorf("%s: %d %.300s; want %s", path, w.Code, w.Body, want)
			}
		}
		// The Map a Landing and a Proposal name cannot be deleted now.
		if w := e.send("admin", "DELETE", "/api/bw/v2/map/map1", "", nil); w.Code == 202 {
			t.Errorf("a Map named by a Landing was deleted: %s", w.Body)
		}
	})
}

// TestBatchAndSingleCreate: a single create of an id a running batch also
// creates loses nothing. Whichever comes first, the other merges onto it:
// the record holds the fields of both, and exactly one of them created it.
func TestBatchAndSingleCreate(t *testing.T) {
	t.Parallel()
	forEachStore(t, func(t *testing.T, e *env) {
		var recs []string
		for i := range 4000 {
			recs = append(recs, fmt.Sprintf(`{"id":"bs%04d","published":true}`, i))
		}
		// In the first chunk: written long before the batch commits.
		recs[5] = `{"id":"shared","title":"from the batch","published":true}`
		id := submit(t, e, "resource", "["+strings.Join(recs, ",")+"]")
		e.token("admin") // cached before two goroutines read the cache
		var wg sync.WaitGroup
		wg.Go(func() { process(t, e) })
		var single int
		wg.Go(func() {
			time.Sleep(150 * time.Millisecond) // most often while the batch runs
			single = e.send("admin", "POST", "/api/bw/v2/resource", `{"id":"shared","contactPhone":"+39 06 1234"}`, nil).Code
		})
		wg.Wait()
		status := statusOf(t, e, "resource", id)
		batchCreated := strings.Contains(status, `"created":4000`)
		if !strings.Contains(status, `"status":"done"`) || batchCreated == (single == 201) || (single != 201 && single != 202) {
			t.Errorf("exactly one create: single %d, batch %s", single, status)
		}
		w := e.send("admin", "GET", "/api/bw/v2/resource/shared", "", nil)
		if !strings.Contains(w.Body.String(), `"title":"from the batch"`) || !strings.Contains(w.Body.String(), `"contactPhone":"+39 06 1234"`) {
			t.Errorf("a write was lost: %.400s", w.Body)
		}
	})
}

// payloadReads counts the batch payloads read back from the store.
type payloadReads struct {
	cms.Store
	n *atomic.Int32
}

func (p payloadReads) BatchPayload(ctx context.Context, id string) ([]byte, error) {
	p.n.Add(1)
	return p.Store.BatchPayload(ctx, id)
}

// TestBatchHandoff: the workers of the instance that stored a batch are
// woken at once and apply it from memory, without reading it back; a body
// over the handoff's bound is read from the store. The records are the
// same either way.
func TestBatchHandoff(t *testing.T) {
	t.Parallel()
	reads := new(atomic.Int32)
	var log lockedBuffer
	e := newEnv(t, envOptions{
		store: func(tb testing.TB) cms.Store { return payloadReads{openSQLite(tb), reads} },
		// An hour's poll: only the wake can start the worker in time.
		svc: func(o *cms.Options) {
			o.BatchPoll, o.BatchHandoff = time.Hour, 4096
			o.Logger = slog.New(slog.NewTextHandler(&log, nil))
		},
	})
	ctx, cancel := context.WithCancel(t.Context())
	stopped := make(chan struct{})
	go func() {
		defer close(stopped)
		e.svc.RunBatchWorkers(ctx, 1)
	}()
	defer func() { cancel(); <-stopped }()
	waitDone := func(id string) {
		t.Helper()
		deadline := time.Now().Add(10 * time.Second)
		for !strings.Contains(statusOf(t, e, "resource", id), `"status":"done"`) {
			if time.Now().After(deadline) {
				t.Fatalf("batch %s not done: %s", id, statusOf(t, e, "resource", id))
			}
			time.Sleep(5 * time.Millisecond)
		}
	}
	// The first batch may come before the worker is up: it finds it when
	// it starts, from the store or from memory.
	waitDone(submit(t, e, "resource", `[{"id":"ho0","title":"warm"}]`))

	reads.Store(0)
	waitDone(submit(t, e, "resource", `[{"id":"ho1","title":"from memory"},{"id":"ho2","title":"also"}]`))
	if n := reads.Load(); n != 0 {
		t.Errorf("a batch of this instance read back %d times", n)
	}
	big := fmt.Sprintf(`[{"id":"ho3","title":"from the store","htmlContent":"<p>%s</p>"}]`, strings.Repeat("x", 5000))
	waitDone(submit(t, e, "resource", big))
	if n := reads.Load(); n != 1 {
		t.Errorf("a body over the bound read %d times, want 1", n)
	}
	for id, want := range map[string]string{"ho1": "from memory", "ho2": "also", "ho3": "from the store"} {
		if got := field(t, e.send("admin", "GET", "/api/bw/v2/resource/"+id+"/published/*", "", nil), "title"); got != want {
			t.Errorf("%s title %v, want %q", id, got, want)
		}
	}
	// Each batch applied is logged with its counts and how it came, once
	// its worker is done with it: a moment after its status reads done.
	for _, want := range []string{"records=2 created=2 updated=0 skipped=0 attempt=1 handed_over=true",
		"records=1 created=1 updated=0 skipped=0 attempt=1 handed_over=false"} {
		logged := func() bool {
			return strings.Contains(log.String(), `msg="cms: batch applied" batch=`) && strings.Contains(log.String(), want)
		}
		for deadline := time.Now().Add(10 * time.Second); !logged() && time.Now().Before(deadline); {
			time.Sleep(5 * time.Millisecond)
		}
		if !logged() {
			t.Errorf("no log line with %q in:\n%s", want, log.String())
		}
	}
}

// gatedClaims is a store whose batch claims wait until gate is closed;
// asked is closed at the first claim asked (a worker runs).
type gatedClaims struct {
	cms.Store
	gate, asked chan struct{}
	once        *sync.Once
}

func (g gatedClaims) ClaimBatch(ctx context.Context, owner string, now, leaseUntil time.Time) (*cms.Batch, error) {
	g.once.Do(func() { close(g.asked) })
	select {
	case <-g.gate:
	case <-ctx.Done():
		return nil, ctx.Err()
	}
	return g.Store.ClaimBatch(ctx, owner, now, leaseUntil)
}

// gatedWorker is an env over open's store whose batch worker runs and
// has asked for its first batch, which it gets once gate is closed; log
// holds the service's log.
func gatedWorker(t *testing.T, open func(testing.TB) cms.Store) (e *env, log *lockedBuffer, gate chan struct{}) {
	t.Helper()
	gate, asked := make(chan struct{}), make(chan struct{})
	log = new(lockedBuffer)
	e = newEnv(t, envOptions{
		store: func(tb testing.TB) cms.Store { return gatedClaims{open(tb), gate, asked, new(sync.Once)} },
		svc:   func(o *cms.Options) { o.Logger = slog.New(slog.NewTextHandler(log, nil)) },
	})
	ctx, cancel := context.WithCancel(t.Context())
	stopped := make(chan struct{})
	go func() {
		defer close(stopped)
		e.svc.RunBatchWorkers(ctx, 1)
	}()
	t.Cleanup(func() { cancel(); <-stopped })
	<-asked
	return e, log, gate
}

// TestBatchHandedOverChangedBeforeApply: the records a submit decoded and
// hands over to its worker are applied as the body asks, judged against
// the records stored when the batch runs: a record new at submit, made
// by another client before the batch runs, is updated (a language given
// "" removed, an alias kept), as single upserts in that order would.
func TestBatchHandedOverChangedBeforeApply(t *testing.T) {
	t.Parallel()
	for _, st := range stores {
		t.Run(st.name, func(t *testing.T) {
			t.Parallel()
			const (
				between = `{"id":"late","title":"Before","title_it":"Prima","shortDescription_de":"Vorher","urlAlias":"/before"}`
				early   = `{"id":"early","title":"Early","title_it":""}`
				late    = `{"id":"late","title":"Late","title_it":"","shortDescription_de":"","htmlContent":"<p onclick=\"x()\">Late</p>"}`
			)
			e, log, gate := gatedWorker(t, st.open)
			id := submit(t, e, "resource", "["+early+","+late+"]")
			if w := e.send("admin", "POST", "/api/bw/v2/resource", between, nil); w.Code != 201 {
				t.Fatalf("upsert between submit and apply: %d %s", w.Code, w.Body)
			}
			close(gate)
			if got := waitBatch(t, e, "resource", id); got.Status != "done" || got.Created != 1 || got.Updated != 1 {
				t.Fatalf("batch: %+v; want done, 1 created, 1 updated", got)
			}
			waitLogged(t, log, " records=2 created=1 updated=1 skipped=0 attempt=1 handed_over=true records_handed_over=true ")

			singly := newEnv(t, envOptions{store: st.open})
			for _, body := range []string{between, early, late} {
				if w := singly.send("admin", "POST", "/api/bw/v2/resource", body, nil); w.Code > 202 {
					t.Fatalf("single upsert %s: %d %s", body, w.Code, w.Body)
				}
			}
			sameRecords(t, "batch handed over vs single upserts", dumpAll(t, e), dumpAll(t, singly))
			w := e.send("admin", "GET", "/api/bw/v2/resource/late", "", nil)
			for _, gone := range []string{"Prima", "Vorher", "onclick"} {
				if strings.Contains(w.Body.String(), gone) {
					t.Errorf("late still holds %q: %s", gone, w.Body)
				}
			}
		})
	}
}

// TestBatchHandedOverLanguageAdded: records a submit decoded are not
// handed over once the account's languages changed: the worker decodes
// the body in the languages the account has when the batch runs.
func TestBatchHandedOverLanguageAdded(t *testing.T) {
	t.Parallel()
	e, log, gate := gatedWorker(t, openSQLite)
	id := submit(t, e, "resource", `[{"id":"lang1","title":"Lingua"}]`)
	if _, err := e.svc.AddLanguage(t.Context(), "acme", "fr"); err != nil {
		t.Fatal(err)
	}
	close(gate)
	if got := waitBatch(t, e, "resource", id); got.Status != "done" || got.Created != 1 {
		t.Fatalf("batch: %+v; want done, 1 created", got)
	}
	waitLogged(t, log, " records=1 created=1 updated=0 skipped=0 attempt=1 handed_over=true records_handed_over=false ")
	if got := field(t, e.send("admin", "GET", "/api/bw/v2/resource/lang1/published/*", "", nil), "title"); got != "Lingua" {
		t.Errorf("title %v, want Lingua", got)
	}
}

// lockedBuffer is a log destination that goroutines share.
type lockedBuffer struct {
	mu  sync.Mutex
	buf bytes.Buffer
}

func (b *lockedBuffer) Write(p []byte) (int, error) {
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.buf.Write(p)
}

func (b *lockedBuffer) String() string {
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.buf.String()
}

// singleLookups counts the one-record look-ups a transaction makes.
type singleLookups struct {
	cms.Store
	n *atomic.Int32
}

func (s singleLookups) WithTx(ctx context.Context, fn func(tx cms.Store) error) error {
	return s.Store.WithTx(ctx, func(tx cms.Store) error { return fn(singleLookups{tx, s.n}) })
}

func (s singleLookups) AliasHolder(ctx context.Context, account string, kind cms.Kind, lang, alias string) (string, error) {
	s.n.Add(1)
	return s.Store.AliasHolder(ctx, account, kind, lang, alias)
}

func (s singleLookups) GetRecord(ctx context.Context, account string, kind cms.Kind, id string) (*cms.Entry, error) {
	s.n.Add(1)
	return s.Store.GetRecord(ctx, account, kind, id)
}

// TestBatchLooksUpInSets: applying new records that leave aliases to be
// made (no title in some languages: the alias comes from the default
// language's) and refer to stored records asks the store in sets, a chunk
// at a time, never one record at a time.
func TestBatchLooksUpInSets(t *testing.T) {
	t.Parallel()
	n := new(atomic.Int32)
	e := newEnv(t, envOptions{store: func(tb testing.TB) cms.Store { return singleLookups{openSQLite(tb), n} }})
	e.send("admin", "POST", "/api/bw/v2/map", `{"id":"sets-map"}`, nil)
	var recs []string
	for i := range 600 {
		switch i % 3 {
		case 0:
			recs = append(recs, fmt.Sprintf(`{"id":"set%03d","title":"Set %d","mapIds":["sets-map"]}`, i, i))
		case 1:
			recs = append(recs, fmt.Sprintf(`{"id":"set%03d","title":"Set %d","title_it":"Insieme %d","poiResourceIds":["set%03d"]}`, i, i, i, i-1))
		default:
			recs = append(recs, fmt.Sprintf(`{"id":"set%03d","urlAlias":"/set-given-%d"}`, i, i))
		}
	}
	id := submit(t, e, "resource", "["+strings.Join(recs, ",")+"]")
	n.Store(0)
	process(t, e)
	if got := statusOf(t, e, "resource", id); !strings.Contains(got, `"status":"done"`) || !strings.Contains(got, `"created":600`) {
		t.Fatalf("status: %s", got)
	}
	if got := n.Load(); got != 0 {
		t.Errorf("%d single look-ups for 600 records", got)
	}
	w := e.send("admin", "GET", "/api/bw/v2/resource/set000/published/*", "", nil)
	if got := field(t, w, "urlAlias_de"); got != "/set-0" {
		t.Errorf("set000 urlAlias_de %v, want /set-0 (the default language's)", got)
	}
}
