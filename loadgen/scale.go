package main

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"math/rand/v2"
	"net/http"
	"strconv"
	"strings"
	"sync"
	"time"

	"github.com/bwcms/cms/internal/scale"
)

// scaleRun is the state of one run of the scale scenario.
type scaleRun struct {
	c   *client
	o   options
	set *scale.Set
	// tag makes this run's ids and revisions differ from earlier runs'.
	tag string
	// since is the updatedSince value of the window the touch opened.
	since string

	mu      sync.Mutex
	created []string // Resources the run created, for the delete op
	// bodies guards set's record builder, which the clients share.
	bodies sync.Mutex
}

// scaleOp is one measured operation: do sends one request and says
// whether its answer is the expected one (what describes it when not).
type scaleOp struct {
	name string
	do   func(ctx context.Context, k int) (status int, ok bool, what string, err error)
	// check, when set, runs once before the op and fails the run on a
	// wrong answer (a page that does not hold what the set says).
	check func(ctx context.Context) error
}

// scaleScenario fills the server with the scale data set (unless a run
// with the same prefix did), revises its last 100 Resources to open an
// updatedSince window, then runs each operation for the duration with
// every client, reads first, and prints one line per operation. The
// Resources it creates are deleted before it ends.
func scaleScenario(ctx context.Context, c *client, lang string, o options, stdout io.Writer) error {
	set, err := scale.New(o.Prefix+"-", o.Records, o.Others, lang)
	if err != nil {
		return err
	}
	r := &scaleRun{c: c, o: o, set: set, tag: strconv.FormatInt(time.Now().UnixMilli(), 36)}
	if err := r.fill(ctx, stdout); err != nil {
		return err
	}
	if err := r.touch(ctx); err != nil {
		return err
	}
	failed := 0
	var first string
	for _, op := range r.ops() {
		if op.check != nil {
			if err := op.check(ctx); err != nil {
				return fmt.Errorf("scale: %s: %w", op.name, err)
			}
		}
		t, elapsed := r.measure(ctx, op)
		if err := ctx.Err(); err != nil {
			return err
		}
		fmt.Fprintf(stdout, "scale: %-16s %6d requests in %s, %8.1f/s, %s, %d failed\n",
			op.name+":", t.count(), secs(elapsed), perSecond(t.count(), elapsed), t.latencyLine(), t.failed)
		if t.failed > 0 && first == "" {
			first = op.name + ": " + t.first
		}
		failed += t.failed
	}
	removed, err := r.removeCreated(ctx)
	if err != nil {
		return err
	}
	fmt.Fprintf(stdout, "scale: %d Resources the run created and did not delete removed\n", removed)
	if failed > 0 {
		return fmt.Errorf("scale: %d requests failed; first: %s", failed, first)
	}
	return nil
}

// fill stores the set with batches, unless its last Proposal (stored
// last) is already there.
func (r *scaleRun) fill(ctx context.Context, stdout io.Writer) error {
	set := r.set
	status, answer, err := r.c.do(ctx, "GET", "/proposal/"+set.ProposalID(set.Others()-1)+"/fields/id/published/*", nil)
	if err != nil {
		return err
	}
	if status == http.StatusOK {
		fmt.Fprintf(stdout, "scale: %d Resources with prefix %s- found, not filled again\n", set.Resources(), r.o.Prefix)
		return nil
	}
	if status != http.StatusNotFound {
		return fmt.Errorf("scale: looking for the set: %s", failure(status, answer))
	}
	t0 := time.Now()
	submit := func(kind string, body []byte) error {
		if res := submitKindAndWait(ctx, r.c, kind, body, r.o.Poll); res.status != "done" {
			return fmt.Errorf("scale: filling the %ss: %s", kind, res.problem())
		}
		return nil
	}
	if err := submit("map", set.AppendMaps(nil)); err != nil {
		return err
	}
	var body []byte
	for from := 0; from < set.Resources(); from += maxBatch {
		body = set.AppendResources(body[:0], from, min(maxBatch, set.Resources()-from))
		if err := submit("resource", body); err != nil {
			return err
		}
	}
	if err := submit("landing", set.AppendLandings(nil, 0, set.Others())); err != nil {
		return err
	}
	if err := submit("proposal", set.AppendProposals(nil, 0, set.Others())); err != nil {
		return err
	}
	fmt.Fprintf(stdout, "scale: filled %d Resources on %d Maps, %d Landings and %d Proposals in %s\n",
		set.Resources(), scale.Maps, set.Others(), set.Others(), secs(time.Since(t0)))
	return nil
}

// touch revises the last scale.Touched Resources a second after anything
// else was written, and keeps the time the server gave them as the start
// of the updatedSince window.
func (r *scaleRun) touch(ctx context.Context) error {
	// timeLastUpdate counts whole seconds: a second apart, the window
	// holds no record of the fill.
	select {
	case <-ctx.Done():
		return ctx.Err()
	case <-time.After(1100 * time.Millisecond):
	}
	if res := submitKindAndWait(ctx, r.c, "resource", r.set.AppendTouch(nil, r.tag), r.o.Poll); res.status != "done" {
		return fmt.Errorf("scale: revising the last Resources: %s", res.problem())
	}
	// The first one revised has the earliest time: a batch that crosses
	// a second gives the later records the next one.
	path := "/resource/" + r.set.ResourceID(r.set.Resources()-scale.Touched) + "/fields/timeLastUpdate"
	status, answer, err := r.c.do(ctx, "GET", path, nil)
	if err != nil {
		return err
	}
	var rec struct{ TimeLastUpdate string }
	if status != http.StatusOK || json.Unmarshal(answer, &rec) != nil || len(rec.TimeLastUpdate) != len("2006-01-02 15:04:05") {
		return fmt.Errorf("scale: GET %s: %s", path, failure(status, answer))
	}
	r.since = strings.Replace(rec.TimeLastUpdate, " ", "T", 1)
	return nil
}

// measure runs op with every client for the duration (or until it has
// nothing left to do) and returns how long that took.
func (r *scaleRun) measure(ctx context.Context, op scaleOp) (*tally, time.Duration) {
	t := newTally()
	start := time.Now()
	end := start.Add(r.o.Duration)
	var wg sync.WaitGroup
	for client := range r.o.Clients {
		wg.Go(func() {
			for k := client; time.Now().Before(end); k += r.o.Clients {
				t0 := time.Now()
				status, ok, what, err := op.do(ctx, k)
				d := time.Since(t0)
				if ctx.Err() != nil {
					return
				}
				if err != nil {
					t.add(d, 0, false, err.Error())
					return
				}
				if status == 0 {
					return // nothing left to do (delete)
				}
				t.add(d, status, ok, what)
			}
		})
	}
	wg.Wait()
	return t, time.Since(start)
}

// expect sends one request and judges its status.
func (r *scaleRun) expect(ctx context.Context, method, path string, want int) (int, bool, string, error) {
	status, answer, err := r.c.do(ctx, method, path, nil)
	return status, status == want, method + " " + path + ": " + failure(status, answer), err
}

// expectCount fails unless path answers a list of want records.
func (r *scaleRun) expectCount(ctx context.Context, path string, want int) error {
	status, answer, err := r.c.do(ctx, "GET", path+"/fields/id", nil)
	if err != nil {
		return err
	}
	var recs []json.RawMessage
	if status != http.StatusOK || json.Unmarshal(answer, &recs) != nil {
		return fmt.Errorf("GET %s: %s", path, failure(status, answer))
	}
	if len(recs) != want {
		return fmt.Errorf("GET %s: %d records, want %d", path, len(recs), want)
	}
	return nil
}

// randomIDs are k distinct random Resource ids of the set.
func (r *scaleRun) randomIDs(k int) string {
	seen := map[int]bool{}
	ids := make([]string, 0, k)
	for len(ids) < k {
		if i := rand.IntN(r.set.Resources()); !seen[i] {
			seen[i] = true
			ids = append(ids, r.set.ResourceID(i))
		}
	}
	return scale.IDs(ids)
}

// keep remembers a Resource the run created.
func (r *scaleRun) keep(id string) {
	r.mu.Lock()
	r.created = append(r.created, id)
	r.mu.Unlock()
}

// take hands out a Resource the run created, "" when none is left.
func (r *scaleRun) take() string {
	r.mu.Lock()
	defer r.mu.Unlock()
	if len(r.created) == 0 {
		return ""
	}
	id := r.created[len(r.created)-1]
	r.created = r.created[:len(r.created)-1]
	return id
}

// removeCreated deletes what the delete op left of the run's Resources,
// so the set stays as it was for the next run.
func (r *scaleRun) removeCreated(ctx context.Context) (int, error) {
	r.mu.Lock()
	ids := r.created
	r.created = nil
	r.mu.Unlock()
	for from := 0; from < len(ids); from += 1000 {
		part := ids[from:min(from+1000, len(ids))]
		status, answer, err := r.c.do(ctx, "DELETE", "/resource/"+scale.IDs(part), nil)
		if err != nil {
			return from, err
		}
		if status != http.StatusAccepted {
			return from, fmt.Errorf("scale: deleting the run's Resources: %s", failure(status, answer))
		}
	}
	return len(ids), nil
}

// ops are the measured operations, in the order of BenchmarkScale. The
// writes leave the touched Resources alone: their titles say which run
// touched them last.
func (r *scaleRun) ops() []scaleOp {
	set, n := r.set, r.set.Resources()
	untouched := n - scale.Touched
	return []scaleOp{
		{name: "read-one", do: func(ctx context.Context, k int) (int, bool, string, error) {
			return r.expect(ctx, "GET", "/resource/"+set.ResourceID(rand.IntN(n)), http.StatusOK)
		}},
		{name: "read-50", check: func(ctx context.Context) error {
			return r.expectCount(ctx, "/resource/"+r.randomIDs(50), 50)
		}, do: func(ctx context.Context, k int) (int, bool, string, error) {
			return r.expect(ctx, "GET", "/resource/"+r.randomIDs(50), http.StatusOK)
		}},
		{name: "map-page", check: func(ctx context.Context) error {
			return r.expectCount(ctx, "/resource/mapId/"+set.MapID(0)+"/limit/50", min(50, n/10))
		}, do: func(ctx context.Context, k int) (int, bool, string, error) {
			return r.expect(ctx, "GET", "/resource/mapId/"+set.MapID(k)+"/limit/50", http.StatusOK)
		}},
		{name: "bbox-page", check: func(ctx context.Context) error {
			return r.expectCount(ctx, "/resource/bbox/"+set.Box(set.Boxes()/2), scale.BoxCells*scale.BoxCells)
		}, do: func(ctx context.Context, k int) (int, bool, string, error) {
			return r.expect(ctx, "GET", "/resource/bbox/"+set.Box(rand.IntN(set.Boxes())), http.StatusOK)
		}},
		{name: "updated-page", check: func(ctx context.Context) error {
			return r.expectCount(ctx, "/resource/updatedSince/"+r.since, scale.Touched)
		}, do: func(ctx context.Context, k int) (int, bool, string, error) {
			return r.expect(ctx, "GET", "/resource/updatedSince/"+r.since, http.StatusOK)
		}},
		{name: "map-read", do: func(ctx context.Context, k int) (int, bool, string, error) {
			return r.expect(ctx, "GET", "/map/"+set.MapID(k), http.StatusOK)
		}},
		{name: "create-into-map", do: func(ctx context.Context, k int) (int, bool, string, error) {
			id := set.NewID(r.tag, k)
			r.bodies.Lock()
			body := set.AppendNew(nil, id, rand.IntN(untouched))
			r.bodies.Unlock()
			status, answer, err := r.c.do(ctx, "POST", "/resource", body)
			if status == http.StatusCreated {
				r.keep(id)
			}
			return status, status == http.StatusCreated, "POST /resource " + id + ": " + failure(status, answer), err
		}},
		{name: "update", do: func(ctx context.Context, k int) (int, bool, string, error) {
			body := fmt.Sprintf(`{"id":%q,"title":"Revised %s %d"}`, set.ResourceID(rand.IntN(untouched)), r.tag, k)
			status, answer, err := r.c.do(ctx, "POST", "/resource", []byte(body))
			return status, status == http.StatusAccepted, "POST /resource: " + failure(status, answer), err
		}},
		{name: "clone", do: func(ctx context.Context, k int) (int, bool, string, error) {
			path := "/resource/clone/" + set.ResourceID(rand.IntN(untouched)) + "/map/" + set.MapID(k)
			status, answer, err := r.c.do(ctx, "POST", path, nil)
			var clone struct{ ID string }
			if status == http.StatusCreated && json.Unmarshal(answer, &clone) == nil && clone.ID != "" {
				r.keep(clone.ID)
			}
			return status, status == http.StatusCreated, "POST " + path + ": " + failure(status, answer), err
		}},
		{name: "delete", do: func(ctx context.Context, k int) (int, bool, string, error) {
			id := r.take()
			if id == "" {
				return 0, true, "", nil
			}
			return r.expect(ctx, "DELETE", "/resource/"+id, http.StatusAccepted)
		}},
	}
}
