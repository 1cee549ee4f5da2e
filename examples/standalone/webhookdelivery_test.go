package main

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"math/rand/v2"
	"net/http"
	"net/http/httptest"
	"net/url"
	"path/filepath"
	"slices"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/bwcms/cms/adapters/postgres/pgtest"
	"github.com/bwcms/cms/webhook"
)

// changeKey names one change: what the feed, the webhook messages and the
// history agree on.
type changeKey struct {
	Kind, ID, Op string
	Rev          int64
}

func (k changeKey) String() string { return fmt.Sprintf("%s %s rev %d %s", k.Kind, k.ID, k.Rev, k.Op) }

// record is a changeKey's record.
func (k changeKey) record() string { return k.Kind + " " + k.ID }

// receiver is a webhook receiver on 127.0.0.1: it verifies every
// message's signature with webhook.Verify and keeps the first accepted
// arrival of each webhook-id. The first attempt of every failEvery-th new
// message is answered 500, so retries (and the order of a record's
// messages across them) are part of the run; each message takes slow
// before it is taken, so a kill is likely to find messages in flight.
type receiver struct {
	srv       *httptest.Server
	failEvery int
	slow      time.Duration
	// gate holds messages, once read, while it is locked; inflight counts
	// the messages read and not yet answered.
	gate     sync.RWMutex
	inflight atomic.Int64

	mu       sync.Mutex
	secret   string
	byID     map[string]changeKey // webhook-id -> its change, first accepted arrival
	order    []string             // webhook-ids by first accepted arrival
	arrivals int                  // every accepted message, repeats included
	tried    map[string]bool      // webhook-ids seen, answered or not
	failed   int                  // first attempts answered 500
	refused  []string             // why messages failed verification or parsing
}

func newReceiver(t *testing.T, failEvery int, slow time.Duration) *receiver {
	r := &receiver{failEvery: failEvery, slow: slow, byID: map[string]changeKey{}, tried: map[string]bool{}}
	r.srv = httptest.NewServer(http.HandlerFunc(r.serve))
	t.Cleanup(r.srv.Close)
	return r
}

// message is the body of a webhook's message: the Standard Webhooks
// shape, the change's metadata in data.
type message struct {
	Type string `json:"type"`
	Data struct {
		Seq, Kind, ID, Op string
		Rev               int64
	} `json:"data"`
}

func (r *receiver) serve(w http.ResponseWriter, req *http.Request) {
	body, err := io.ReadAll(io.LimitReader(req.Body, 1<<20))
	if err != nil {
		http.Error(w, "read", http.StatusBadRequest)
		return
	}
	r.inflight.Add(1)
	defer r.inflight.Add(-1)
	r.gate.RLock()
	r.gate.RUnlock()
	time.Sleep(r.slow)
	r.mu.Lock()
	defer r.mu.Unlock()
	if r.secret == "" {
		// The webhook is made before any write; a message before its
		// secret is known here is retried.
		http.Error(w, "not ready", http.StatusServiceUnavailable)
		return
	}
	id := req.Header.Get(webhook.HeaderID)
	if err := webhook.Verify([]string{r.secret}, req.Header, body, time.Now(), 0); err != nil {
		r.refused = append(r.refused, fmt.Sprintf("%s: %v", id, err))
		http.Error(w, "bad signature", http.StatusUnauthorized)
		return
	}
	var m message
	if err := json.Unmarshal(body, &m); err != nil || m.Data.Kind == "" || m.Data.ID == "" || m.Data.Rev < 1 ||
		m.Type != m.Data.Kind+"."+m.Data.Op || req.Method != http.MethodPost {
		r.refused = append(r.refused, fmt.Sprintf("%s %s: not a change's message: %s", req.Method, id, body))
		http.Error(w, "bad body", http.StatusBadRequest)
		return
	}
	if !r.tried[id] {
		r.tried[id] = true
		if r.failEvery > 0 && len(r.tried)%r.failEvery == 0 {
			r.failed++
			http.Error(w, "try again", http.StatusInternalServerError)
			return
		}
	}
	r.arrivals++
	k := changeKey{m.Data.Kind, m.Data.ID, m.Data.Op, m.Data.Rev}
	if prev, ok := r.byID[id]; ok {
		if prev != k {
			r.refused = append(r.refused, fmt.Sprintf("%s came again with another change: %v, then %v", id, prev, k))
		}
	} else {
		r.byID[id] = k
		r.order = append(r.order, id)
	}
	w.WriteHeader(http.StatusNoContent)
}

func (r *receiver) setSecret(s string) {
	r.mu.Lock()
	r.secret = s
	r.mu.Unlock()
}

// distinct is how many different messages were accepted.
func (r *receiver) distinct() int {
	r.mu.Lock()
	defer r.mu.Unlock()
	return len(r.byID)
}

// follower follows the changes feed with next, as a client would, and
// counts every change it is given.
type follower struct {
	after string
	seen  map[changeKey]int
	last  map[string]int64 // record -> the last rev seen
	// disorder lists changes a record's feed gave after a later one.
	disorder []string
	pages    int
	// misses counts requests that got no page (an instance killed).
	misses int
	errs   []string
}

func newFollower() *follower {
	return &follower{seen: map[changeKey]int{}, last: map[string]int64{}}
}

// feedPage is an answer of GET changes.
type feedPage struct {
	Changes []struct {
		Seq, Kind, ID, Op, Time string
		Rev                     int64
	} `json:"changes"`
	Next string `json:"next"`
}

// readFeed reads one page of the feed after cursor ("" from the start).
func readFeed(ctx context.Context, c *client, after string, limit int) (feedPage, reply) {
	path := fmt.Sprintf("/api/bw/v2/changes?limit=%d", limit)
	if after != "" {
		path += "&after=" + url.QueryEscape(after)
	}
	r := c.get(ctx, path)
	var p feedPage
	if r.err == nil && r.status == 200 {
		if err := json.Unmarshal(r.body, &p); err != nil || p.Next == "" {
			r.status, r.body = 0, []byte(fmt.Sprintf("not a page (%v): %s", err, r.body))
		}
	}
	return p, r
}

// step reads the next page through c and returns how many changes it
// held (-1: no page).
func (f *follower) step(ctx context.Context, c *client) int {
	p, r := readFeed(ctx, c, f.after, 200)
	switch {
	case r.err != nil:
		f.misses++
		return -1
	case r.status != 200:
		f.errs = append(f.errs, fmt.Sprintf("GET changes after %q: %d %s", f.after, r.status, r.body))
		return -1
	}
	f.pages++
	for _, ch := range p.Changes {
		k := changeKey{ch.Kind, ch.ID, ch.Op, ch.Rev}
		f.seen[k]++
		if ch.Rev <= f.last[k.record()] {
			f.disorder = append(f.disorder, fmt.Sprintf("%v after rev %d", k, f.last[k.record()]))
		}
		f.last[k.record()] = max(f.last[k.record()], ch.Rev)
	}
	f.after = p.Next
	return len(p.Changes)
}

// wholeFeed reads the feed from its start to the present through c.
func wholeFeed(t *testing.T, c *client) []changeKey {
	t.Helper()
	var all []changeKey
	after := ""
	for {
		p, r := readFeed(t.Context(), c, after, 1000)
		if r.err != nil || r.status != 200 {
			t.Fatalf("GET changes after %q: %d %s %v", after, r.status, r.body, r.err)
		}
		for _, ch := range p.Changes {
			all = append(all, changeKey{ch.Kind, ch.ID, ch.Op, ch.Rev})
		}
		if len(p.Changes) < 1000 {
			return all
		}
		after = p.Next
	}
}

// writeLedger is what writers were acknowledged.
type writeLedger struct {
	mu      sync.Mutex
	upserts map[string]bool // "kind id" of acknowledged upserts
	deletes map[string]bool // "kind id" of acknowledged deletes
	acks    atomic.Int64
	bad     []string
}

func (l *writeLedger) ack(op, record string, r reply, want ...int) {
	l.mu.Lock()
	defer l.mu.Unlock()
	switch {
	case r.err != nil:
		// The connection broke (the instance was killed): stored or not.
	case slices.Contains(want, r.status):
		l.acks.Add(1)
		if op == "delete" {
			l.deletes[record] = true
		} else {
			l.upserts[record] = true
		}
	case r.status == 503:
		// A database hiccup answered as such: retried by a client.
	default:
		l.bad = append(l.bad, fmt.Sprintf("%s %s: %d %s", op, record, r.status, r.body))
	}
}

// writeChanges writes through c until ctx ends or a request gets no
// answer: maps, Resources assigned to them (each assignment changes the
// Map too), updates and deletes.
func writeChanges(ctx context.Context, c *client, prefix string, l *writeLedger) {
	var maps, resources []string
	for n := 0; ctx.Err() == nil; n++ {
		var r reply
		switch {
		case n%10 == 0 || len(maps) == 0:
			id := fmt.Sprintf("%s-m%d", prefix, n)
			r = c.post(ctx, "/api/bw/v2/map", map[string]any{"id": id, "title": "Map " + id})
			l.ack("upsert", "map "+id, r, 201)
			if r.status == 201 {
				maps = append(maps, id)
			}
		case n%7 == 0 && len(resources) > 2:
			i := rand.IntN(len(resources))
			id := resources[i]
			r = c.do(ctx, "DELETE", "/api/bw/v2/resource/"+id, "", nil, nil)
			l.ack("delete", "resource "+id, r, 202)
			if r.status == 202 {
				resources = slices.Delete(resources, i, i+1)
			}
		case n%3 == 0 && len(resources) > 0:
			id := resources[rand.IntN(len(resources))]
			r = c.post(ctx, "/api/bw/v2/resource", map[string]any{"id": id, "title": fmt.Sprintf("%s v%d", id, n),
				"mapIds": []string{maps[rand.IntN(len(maps))]}})
			l.ack("upsert", "resource "+id, r, 202)
		default:
			id := fmt.Sprintf("%s-r%d", prefix, n)
			r = c.post(ctx, "/api/bw/v2/resource", map[string]any{"id": id, "published": true, "title": id,
				"mapIds": []string{maps[len(maps)-1]}})
			l.ack("upsert", "resource "+id, r, 201)
			if r.status == 201 {
				resources = append(resources, id)
			}
		}
		if r.err != nil {
			// The instance went away: the caller starts again with the
			// client of the process in its place.
			select {
			case <-ctx.Done():
			case <-time.After(20 * time.Millisecond):
			}
			return
		}
	}
}

// TestWebhookDeliveryKill is the delivery proof of the changes feed and
// webhooks: two server processes on one PostgreSQL database (one on
// SQLite, killed and started again) write maps, Resources assigned to
// them, updates, deletes and a batch of 300 Resources; one process is
// killed with SIGKILL in the middle of the run and writing goes on. Then:
//   - after dropping repeats by webhook-id, the receiver holds exactly one
//     message per change of the feed read from its start, every one signed
//     (webhook.Verify), and each record's messages arrived in rev order;
//   - a follower of the feed, reading each page from either instance in
//     turn during the whole run, saw every change exactly once and each
//     record's in rev order, deletions included;
//   - every acknowledged write is in the feed.
//
// The claim of a delivery by the killed process holds for 60 s before the
// other takes it over, so the PostgreSQL run (whose receiver is slow, so
// the kill finds messages in flight) lasts over a minute; the SQLite one
// usually a few seconds. -faults.long writes for longer, with more
// writers.
func TestWebhookDeliveryKill(t *testing.T) {
	t.Parallel()
	t.Run("postgres", func(t *testing.T) {
		t.Parallel()
		proveDelivery(t, pgtest.DSN(t), sharedFiles(t), 2, 5*time.Millisecond)
	})
	t.Run("sqlite", func(t *testing.T) {
		t.Parallel()
		proveDelivery(t, "sqlite:"+filepath.Join(t.TempDir(), "cms.db"), "", 1, 0)
	})
}

// proveDelivery runs the proof on db with instances processes; the
// receiver takes slow per message.
func proveDelivery(t *testing.T, db, files string, instances int, slow time.Duration) {
	start := time.Now()
	rcv := newReceiver(t, 40, slow)
	args := []string{"--db", db, "--webhook-allow-private", "--batch-lease", "2s"}
	if files != "" {
		args = append(args, "--files", files)
	}
	procs := make([]*proc, instances)
	for i := range procs {
		procs[i] = startProc(t, args...)
	}

	add := &cli{env: map[string]string{"CMS_DB": db, "CMS_WEBHOOK_ALLOW_PRIVATE": "true"}}
	if code := add.run(t, "webhook", "add", rcv.srv.URL+"/hook", "--user", "admin"); code != 0 {
		t.Fatalf("webhook add: %d %s", code, add.stderr.String())
	}
	secret := secretLine.FindStringSubmatch(add.stdout.String())
	if secret == nil {
		t.Fatalf("webhook add printed no secret: %q", add.stdout.String())
	}
	rcv.setSecret(secret[1])

	// clients[i] calls procs[i]; a process started again gets a new one.
	var cmu sync.Mutex
	clients := make([]*client, instances)
	for i, p := range procs {
		clients[i] = newClient(t, p)
	}
	clientOf := func(i int) *client {
		cmu.Lock()
		defer cmu.Unlock()
		return clients[i%instances]
	}

	ctx, stopFollower := context.WithCancel(t.Context())
	f := newFollower()
	followed := make(chan struct{})
	go func() {
		defer close(followed)
		for i := 0; ctx.Err() == nil; i++ {
			if n := f.step(ctx, clientOf(i)); n < 200 {
				time.Sleep(10 * time.Millisecond)
			}
		}
	}()

	l := &writeLedger{upserts: map[string]bool{}, deletes: map[string]bool{}}
	wctx, stopWriters := context.WithCancel(t.Context())
	var writers sync.WaitGroup
	perInstance := long(2, 4)
	for i := range instances {
		for k := range perInstance {
			writers.Go(func() {
				for gen := 0; wctx.Err() == nil; gen++ {
					writeChanges(wctx, clientOf(i), fmt.Sprintf("w%d%d-%d", i, k, gen), l)
				}
			})
		}
	}

	// The batch: 300 Resources assigned to one map, through the last
	// instance (the one that stays).
	last := clientOf(instances - 1)
	if r := last.post(t.Context(), "/api/bw/v2/map", map[string]any{"id": "batch-map"}); r.status != 201 {
		t.Fatalf("batch map: %d %s %v", r.status, r.body, r.err)
	}
	l.ack("upsert", "map batch-map", reply{status: 201}, 201)
	var batch []map[string]any
	for i := range 300 {
		batch = append(batch, map[string]any{"id": fmt.Sprintf("batch-%d", i), "published": true, "title": "batched", "mapIdsAdd": []string{"batch-map"}})
	}
	r := last.post(t.Context(), "/api/bw/v2/resource/batch", batch)
	var submitted struct {
		BatchID string `json:"batchId"`
	}
	if r.status != 201 || json.Unmarshal(r.body, &submitted) != nil {
		t.Fatalf("batch: %d %s %v", r.status, r.body, r.err)
	}

	// The kill, in the middle of the writes. With two processes, while the
	// receiver holds the messages it got: once more are held than one
	// process sends at a time (4), the one killed had some in flight, and
	// the receiver takes them after the kill, as if the answer were lost.
	// On SQLite the one process is started again.
	inFlight := int64(0)
	if instances > 1 {
		waitAcks(t, l.acks.Load, l.acks.Load()+long(int64(150), 400))
		rcv.gate.Lock()
		for deadline := time.Now().Add(10 * time.Second); rcv.inflight.Load() <= 4 && time.Now().Before(deadline); {
			time.Sleep(5 * time.Millisecond)
		}
		inFlight = rcv.inflight.Load()
		procs[0].kill()
		rcv.gate.Unlock()
	} else {
		killAfter(t, procs[0], l.acks.Load, l.acks.Load()+long(int64(150), 1000), long(time.Second, 5*time.Second))
	}
	killedAt := time.Now()
	if instances == 1 {
		procs[0] = procs[0].restart()
		c := newClient(t, procs[0])
		cmu.Lock()
		clients[0] = c
		cmu.Unlock()
	}
	last = clientOf(instances - 1)
	time.Sleep(long(2*time.Second, 30*time.Second))
	stopWriters()
	writers.Wait()
	if st := last.awaitBatch(t, "resource", submitted.BatchID, 2*time.Minute); st.Status != "done" || st.Created != 300 {
		t.Errorf("batch: %+v", st)
	}
	for i := range 300 {
		l.ack("upsert", fmt.Sprintf("resource batch-%d", i), reply{status: 201}, 201)
	}
	writesEnded := time.Now()

	// Deliveries settle: the receiver holds one message per change of
	// the feed. A claim of the killed process holds for its lease (60 s).
	var feed []changeKey
	deadline := time.Now().Add(4 * time.Minute)
	for {
		feed = wholeFeed(t, last)
		if rcv.distinct() >= len(feed) {
			break
		}
		if time.Now().After(deadline) {
			t.Errorf("deliveries did not settle in 4 minutes: %d distinct messages, %d changes", rcv.distinct(), len(feed))
			break
		}
		time.Sleep(250 * time.Millisecond)
	}
	settled := time.Now()
	// A little longer: anything more that comes would be a message too
	// many.
	time.Sleep(time.Second)
	stopFollower()
	<-followed
	for f.step(t.Context(), last) > 0 {
	}

	// The feed: each record's revisions 1, 2, ... with no gap and no
	// repeat, and every acknowledged write in it.
	inFeed := map[changeKey]int{}
	revs := map[string][]int64{}
	ops := map[string]map[string]bool{}
	deletes := 0
	for _, k := range feed {
		inFeed[k]++
		revs[k.record()] = append(revs[k.record()], k.Rev)
		if ops[k.record()] == nil {
			ops[k.record()] = map[string]bool{}
		}
		ops[k.record()][k.Op] = true
		if k.Op == "delete" {
			deletes++
		}
	}
	for rec, rs := range revs {
		for i, rev := range rs {
			if rev != int64(i+1) {
				t.Errorf("%s: the feed's revisions are %v, want 1..%d in order", rec, rs, len(rs))
				break
			}
		}
	}
	for rec := range l.upserts {
		if !ops[rec]["upsert"] {
			t.Errorf("acknowledged upsert of %s is not in the feed", rec)
		}
	}
	for rec := range l.deletes {
		if !ops[rec]["delete"] {
			t.Errorf("acknowledged delete of %s is not in the feed", rec)
		}
	}
	if deletes == 0 || len(l.deletes) == 0 {
		t.Errorf("the run made no deletion (%d in the feed, %d acknowledged)", deletes, len(l.deletes))
	}
	for _, b := range l.bad {
		t.Error(b)
	}

	// The receiver: exactly one message per change, signed, each record's
	// in rev order of first arrival.
	rcv.mu.Lock()
	defer rcv.mu.Unlock()
	for _, why := range rcv.refused {
		t.Errorf("receiver: %s", why)
	}
	got := map[changeKey]int{}
	lastRev := map[string]int64{}
	disorder := 0
	for _, id := range rcv.order {
		k := rcv.byID[id]
		got[k]++
		if k.Rev <= lastRev[k.record()] {
			if disorder++; disorder <= 10 {
				t.Errorf("receiver: %v arrived after rev %d of the record", k, lastRev[k.record()])
			}
		}
		lastRev[k.record()] = max(lastRev[k.record()], k.Rev)
	}
	compare(t, "receiver (one message per change, repeats by webhook-id dropped)", got, inFeed)

	// The follower: every change exactly once, each record's in order.
	compare(t, "feed follower", f.seen, inFeed)
	for i, d := range f.disorder {
		if i < 10 {
			t.Errorf("follower: %s", d)
		}
	}
	for _, e := range f.errs {
		t.Errorf("follower: %s", e)
	}

	t.Logf("figures: webhook delivery, %s, %d instance(s), kill -9 of one (%d messages in flight): changes=%d (deletes=%d) acknowledged writes=%d "+
		"messages accepted=%d distinct=%d repeats=%d first attempts refused=%d; follower pages=%d (misses %d); "+
		"settled %.1fs after the writes ended (kill %.1fs before), run %.1fs",
		db[:min(len(db), 8)], instances, inFlight, len(feed), deletes, l.acks.Load(), rcv.arrivals, len(rcv.byID), rcv.arrivals-len(rcv.byID),
		rcv.failed, f.pages, f.misses, settled.Sub(writesEnded).Seconds(), writesEnded.Sub(killedAt).Seconds(), time.Since(start).Seconds())
}

// compare fails the test for each change got holds other than once when
// want holds it, or that want does not hold (at most 10 of each).
func compare(t *testing.T, who string, got, want map[changeKey]int) {
	t.Helper()
	var missing, repeated, extra int
	for k := range want {
		switch n := got[k]; {
		case n == 0:
			if missing++; missing <= 10 {
				t.Errorf("%s: %v is missing", who, k)
			}
		case n > 1:
			if repeated++; repeated <= 10 {
				t.Errorf("%s: %v came %d times", who, k, n)
			}
		}
	}
	for k := range got {
		if want[k] == 0 {
			if extra++; extra <= 10 {
				t.Errorf("%s: %v is not a change of the feed", who, k)
			}
		}
	}
	if missing+repeated+extra > 0 {
		t.Errorf("%s: %d missing, %d repeated, %d not in the feed, of %d changes", who, missing, repeated, extra, len(want))
	}
}
