package main

import (
	"context"
	"crypto/rand"
	"database/sql"
	"encoding/json"
	"fmt"
	mrand "math/rand/v2"
	"net/url"
	"slices"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	"github.com/bwcms/cms/adapters/postgres/pgtest"
)

// The limits the frozen and partition scenarios give their servers, and
// the longest a request may then wait for its answer (a loaded machine,
// the race detector).
const (
	frozenLockTimeout = time.Second
	frozenIdleInTx    = 3 * time.Second
	answerBound       = 8 * time.Second
)

// timedWrites is what the writers of a scenario were answered, with the
// slowest answer.
type timedWrites struct {
	*ledger
	mu      sync.Mutex
	slowest time.Duration
	late    int // answers slower than answerBound, or none within it
}

// run upserts Resources on c until ctx ends, each assigned to mapID
// when set (a write of several records: it takes the account's write
// lock), each request given answerBound and a margin.
func (w *timedWrites) run(ctx context.Context, c *client, prefix, mapID string) {
	for n := 0; ctx.Err() == nil; n++ {
		id := fmt.Sprintf("%s-%d", prefix, n)
		title := id + " v1"
		doc := map[string]any{"id": id, "published": true, "title": title}
		if mapID != "" {
			doc["mapIdsAdd"] = []string{mapID}
		}
		rctx, cancel := context.WithTimeout(context.WithoutCancel(ctx), 2*answerBound)
		start := time.Now()
		r := c.post(rctx, "/api/bw/v2/resource", doc)
		took := time.Since(start)
		cancel()
		w.record(id, title, r)
		w.mu.Lock()
		w.slowest = max(w.slowest, took)
		if r.err != nil || took > answerBound {
			w.late++
		}
		w.mu.Unlock()
		if r.err != nil || r.status >= 300 {
			time.Sleep(20 * time.Millisecond)
		}
	}
}

// check fails the test for an answer that was late, a 5xx other than
// 503, a 503 without Retry-After, or a 4xx.
func (w *timedWrites) check(t *testing.T) {
	t.Helper()
	if w.late > 0 {
		t.Errorf("%d writes answered later than %v or not at all (slowest %v): %v", w.late, answerBound, w.slowest, w.status)
	}
	if n, u := w.count(500, 599), w.count(503, 503); n != u {
		t.Errorf("5xx other than 503: %v", w.status)
	}
	if n := w.count(300, 499); n > 0 {
		t.Errorf("%d answers neither 201/202 nor 503: %v", n, w.status)
	}
	if w.noRetry > 0 {
		t.Errorf("%d answers 503 without Retry-After", w.noRetry)
	}
}

// TestFaultFrozenInstance: a PostgreSQL instance stopped (SIGSTOP) while
// it applies a batch. Another instance keeps answering writes that need
// the locks the frozen one holds within a bounded wait (503 with
// Retry-After at worst, until the server ends the frozen session), takes
// the batch over after its lease and applies it once; when the frozen
// one wakes (SIGCONT) its work is refused (its transaction ended with its
// session, its lease lost): the batch is done once, with created = count,
// and every record and Map assignment is there once.
func TestFaultFrozenInstance(t *testing.T) {
	t.Parallel()
	db := pgtest.DSN(t)
	// The frozen instance's sessions carry a name of their own, so the
	// test sees when its batch's transaction holds its locks.
	u, err := url.Parse(db)
	if err != nil {
		t.Fatal(err)
	}
	q := u.Query()
	q.Set("application_name", "frozen-"+rand.Text()[:8])
	u.RawQuery = q.Encode()
	frozenApp := q.Get("application_name")
	admin, err := sql.Open("pgx", db)
	if err != nil {
		t.Fatal(err)
	}
	defer admin.Close()
	args := []string{"--db", db, "--files", sharedFiles(t), "--batch-lease", "2s", "--pg-lock-timeout", frozenLockTimeout.String(),
		"--pg-idle-in-tx-timeout", frozenIdleInTx.String()}
	rounds, size, clients := long(2, 6), long(3000, 5000), long(3, 6)
	w := &timedWrites{ledger: newLedger()}
	frozenApplying, refused := 0, 0
	var slowestTakeover time.Duration
	for round := range rounds {
		a := startProc(t, append(slices.Clone(args), "--db", u.String())...)
		ca := newClient(t, a)
		mapID := fmt.Sprintf("frozen-map-%d", round)
		if r := ca.post(t.Context(), "/api/bw/v2/map", map[string]any{"id": mapID}); r.status != 201 {
			t.Fatalf("map: %d %s %v", r.status, r.body, r.err)
		}
		var ids []string
		var body []map[string]any
		title := fmt.Sprintf("frozen batch %d", round)
		for i := range size {
			id := fmt.Sprintf("f%d-%05d", round, i)
			ids = append(ids, id)
			body = append(body, map[string]any{"id": id, "published": true, "title": title, "mapIdsAdd": []string{mapID}})
		}
		r := ca.post(t.Context(), "/api/bw/v2/resource/batch", body)
		var ans struct {
			BatchID string `json:"batchId"`
		}
		if json.Unmarshal(r.body, &ans); r.status != 201 {
			t.Fatalf("batch: %d %s %v", r.status, r.body, r.err)
		}
		// Frozen while its batch's transaction holds the account's and the
		// kind's locks (advisory), at a random moment of the apply.
		deadline := time.Now().Add(30 * time.Second)
		for {
			var n int
			if err := admin.QueryRow("SELECT count(*) FROM pg_locks l JOIN pg_stat_activity a ON a.pid = l.pid "+
				"WHERE a.application_name = $1 AND l.locktype = 'advisory' AND l.granted", frozenApp).Scan(&n); err != nil {
				t.Fatal(err)
			}
			if n > 0 {
				break
			}
			if time.Now().After(deadline) {
				t.Fatalf("batch %s never applied", ans.BatchID)
			}
			time.Sleep(time.Millisecond)
		}
		time.Sleep(mrand.N(100 * time.Millisecond))
		a.cmd.Process.Signal(syscall.SIGSTOP)
		frozen := time.Now()

		b := startProc(t, args...)
		cb := newClient(t, b)
		if r := cb.get(t.Context(), "/api/bw/v2/resource/batch/"+ans.BatchID); strings.Contains(string(r.body), `"status":"processing"`) {
			frozenApplying++
		}
		ctx, cancel := context.WithCancel(t.Context())
		var wg sync.WaitGroup
		for k := range clients {
			wg.Go(func() { w.run(ctx, cb, fmt.Sprintf("fw%d-c%d", round, k), mapID) })
		}
		st := cb.awaitBatch(t, "resource", ans.BatchID, time.Minute)
		slowestTakeover = max(slowestTakeover, time.Since(frozen))
		time.Sleep(500 * time.Millisecond) // writes after the takeover too
		cancel()
		wg.Wait()
		if st.Status != "done" || st.Created != size || st.Updated != 0 || st.Skipped != 0 {
			t.Errorf("round %d: batch taken over: %+v, want done with created=%d", round, st, size)
		}

		a.cmd.Process.Signal(syscall.SIGCONT)
		// The woken worker finds its lease lost and leaves the batch.
		deadline = time.Now().Add(20 * time.Second)
		for !strings.Contains(a.stderr.String(), "batch lease lost") && time.Now().Before(deadline) {
			time.Sleep(50 * time.Millisecond)
		}
		if strings.Contains(a.stderr.String(), "batch lease lost") {
			refused++
		} else if st.Status == "done" {
			t.Errorf("round %d: the woken instance did not report its lease lost:\n%s", round, a.stderr.String())
		}
		// The woken instance serves again.
		woke := false
		for range 20 {
			if r := ca.post(t.Context(), "/api/bw/v2/resource", map[string]any{"id": fmt.Sprintf("woken-%d", round)}); r.status == 201 || r.status == 202 {
				woke = true
				break
			}
			time.Sleep(200 * time.Millisecond)
		}
		if !woke {
			t.Errorf("round %d: the woken instance does not accept writes", round)
		}
		// Once: the batch's status and counts as the taker left them, its
		// records and assignments once each.
		if again := cb.awaitBatch(t, "resource", ans.BatchID, time.Second); again != st {
			t.Errorf("round %d: batch after the wake: %+v, was %+v", round, again, st)
		}
		got := cb.records(t, "resource", ids, "id,title,mapIds")
		missing := 0
		for _, id := range ids {
			if rec, ok := got[id]; !ok || rec["title"] != title || !slices.Equal(stringList(rec["mapIds"]), []string{mapID}) {
				if missing++; missing <= 3 {
					t.Errorf("round %d: record %s: %v", round, id, rec)
				}
			}
		}
		list := stringList(cb.records(t, "map", []string{mapID}, "id,resourceIds")[mapID]["resourceIds"])
		if dup := len(list) - len(compact(list)); dup > 0 || missing > 0 {
			t.Errorf("round %d: %d records missing or wrong, %s lists %d ids twice", round, missing, mapID, dup)
		}
		for _, id := range ids {
			if !slices.Contains(list, id) {
				t.Errorf("round %d: %s does not list %s", round, mapID, id)
				break
			}
		}
		a.kill()
		b.kill()
	}
	w.check(t)
	if frozenApplying == 0 {
		t.Errorf("no round froze the instance before its batch committed")
	}
	t.Logf("figures: frozen instance (SIGSTOP while applying a batch, lease 2s, lock timeout %v, idle-in-transaction timeout %v): rounds=%d frozen-while-applying=%d records=%d taken-over-and-done-once=%d woken-work-refused=%d slowest-takeover=%v writes-on-the-other=%d acknowledged=%d 503=%d slowest-answer=%v",
		frozenLockTimeout, frozenIdleInTx, rounds, frozenApplying, rounds*size, rounds, refused, slowestTakeover.Round(time.Millisecond),
		w.writes, w.acks.Load(), w.count(503, 503), w.slowest.Round(time.Millisecond))
}

// compact is s sorted without repeats.
func compact(s []string) []string {
	s = sorted(s)
	return slices.Compact(s)
}

// TestFaultPartition: the network to PostgreSQL goes silent (the test's
// proxy forwards nothing and closes nothing) under load. Requests answer
// 503 with Retry-After within a bounded time (the statement timeout and
// the network timeout), never hang; once the partition heals the same
// process recovers with no restart, and no acknowledged write is lost.
func TestFaultPartition(t *testing.T) {
	t.Parallel()
	px, dsn := pgtest.NewProxy(t, pgtest.DSN(t))
	p := startProc(t, "--db", dsn, "--files", sharedFiles(t), "--pg-statement-timeout", "1s", "--pg-network-timeout", "1s")
	c := newClient(t, p)
	cycles, clients, down := long(1, 5), long(3, 8), long(4*time.Second, 15*time.Second)
	w := &timedWrites{ledger: newLedger()}
	ctx, cancel := context.WithCancel(t.Context())
	defer cancel()
	var wg sync.WaitGroup
	for k := range clients {
		wg.Go(func() { w.run(ctx, c, fmt.Sprintf("p-c%d", k), "") })
	}
	// A reader too: reads answer 503 within the bound as well.
	var readMu sync.Mutex
	reads := map[int]int{}
	var slowRead time.Duration
	wg.Go(func() {
		for ctx.Err() == nil {
			rctx, rcancel := context.WithTimeout(context.WithoutCancel(ctx), 2*answerBound)
			start := time.Now()
			r := c.get(rctx, "/api/bw/v2/resource/p-c0-0")
			rcancel()
			readMu.Lock()
			reads[r.status]++
			slowRead = max(slowRead, time.Since(start))
			readMu.Unlock()
			time.Sleep(50 * time.Millisecond)
		}
	})
	worst := storeCutCycles(t, w.ledger, cycles, time.Second, down, 30*time.Second, "partition", px.Partition, px.Heal)
	time.Sleep(500 * time.Millisecond)
	cancel()
	wg.Wait()
	if !p.running() {
		t.Fatal("the server exited")
	}
	w.check(t)
	if slowRead > answerBound {
		t.Errorf("a read answered after %v", slowRead)
	}
	for s := range reads {
		if s != 200 && s != 404 && s != 503 {
			t.Errorf("reads answered %v", reads)
		}
	}
	lost := w.verify(t, c)
	t.Logf("figures: silent partition under load (statement timeout 1s, network timeout 1s): partitions=%dx%v clients=%d writes=%d acknowledged=%d lost=%d 503=%d unanswered=%d slowest-answer=%v reads=%v slowest-read=%v slowest-recovery=%v",
		cycles, down, clients, w.writes, w.acks.Load(), lost, w.count(503, 503), w.broken, w.slowest.Round(time.Millisecond),
		reads, slowRead.Round(time.Millisecond), worst.Round(time.Millisecond))
}
