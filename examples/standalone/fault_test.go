package main

// The fault suite: real server processes killed with SIGKILL, a database
// cut off behind a proxy, concurrent writers on both sides of the
// Resource-Map assignments, login bursts and slow or oversize clients.
// Each test logs one "figures:" line per scenario; docs/reliability.md
// records them. The short form runs with every `go test`; -faults.long
// runs each scenario for minutes:
//
//	go test ./examples/standalone -run Fault -faults.long -v

import (
	"context"
	"database/sql"
	"encoding/json"
	"flag"
	"fmt"
	"math/rand/v2"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/bwcms/cms/adapters/postgres/pgtest"
	_ "github.com/mattn/go-sqlite3" // database/sql driver "sqlite3", for integrity_check
)

var faultsLong = flag.Bool("faults.long", false, "run the fault suite's scenarios longer, with more rounds and clients (minutes)")

// long is short in the short form and long with -faults.long.
func long[T any](short, long T) T {
	if *faultsLong {
		return long
	}
	return short
}

// faultDB is one database a scenario runs on.
type faultDB struct {
	db   string // the --db value
	file string // the SQLite file, for integrity_check; "" on PostgreSQL
	// files is the --files value: a folder of the test's on PostgreSQL,
	// which requires one; "" on SQLite (the default, beside the file).
	files string
}

// eachDB runs fn on a fresh SQLite file and a fresh PostgreSQL schema, in
// parallel.
func eachDB(t *testing.T, fn func(t *testing.T, d faultDB)) {
	t.Run("sqlite", func(t *testing.T) {
		t.Parallel()
		path := filepath.Join(t.TempDir(), "cms.db")
		fn(t, faultDB{db: "sqlite:" + path, file: path})
	})
	t.Run("postgres", func(t *testing.T) {
		t.Parallel()
		fn(t, faultDB{db: pgtest.DSN(t), files: sharedFiles(t)})
	})
}

// integrityCheck runs PRAGMA integrity_check on a SQLite file no process
// has open.
func integrityCheck(t *testing.T, path string) {
	t.Helper()
	db, err := sql.Open("sqlite3", "file:"+path)
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	var got string
	if err := db.QueryRow("PRAGMA integrity_check").Scan(&got); err != nil || got != "ok" {
		t.Errorf("integrity_check: %q %v", got, err)
	}
}

// ledger keeps what writers were told about each record: the title last
// acknowledged (201/202), and the titles sent after it that got no
// acknowledgement (the connection broke, or a 5xx), any of which may have
// been stored.
type ledger struct {
	mu      sync.Mutex
	acked   map[string]string
	maybe   map[string][]string
	writes  int
	acks    atomic.Int64
	status  map[int]int
	noRetry int // 503 answers without Retry-After
	broken  int // requests that got no answer
}

func newLedger() *ledger {
	return &ledger{acked: map[string]string{}, maybe: map[string][]string{}, status: map[int]int{}}
}

func (l *ledger) record(id, title string, r reply) {
	l.mu.Lock()
	defer l.mu.Unlock()
	l.writes++
	switch {
	case r.err != nil:
		l.broken++
		l.maybe[id] = append(l.maybe[id], title)
	case r.status == 201 || r.status == 202:
		l.status[r.status]++
		l.acked[id] = title
		delete(l.maybe, id)
		l.acks.Add(1)
	default:
		l.status[r.status]++
		if r.status == 503 && r.header.Get("Retry-After") == "" {
			l.noRetry++
		}
		l.maybe[id] = append(l.maybe[id], title)
	}
}

// count sums the statuses from lo to hi.
func (l *ledger) count(lo, hi int) int {
	l.mu.Lock()
	defer l.mu.Unlock()
	n := 0
	for s, k := range l.status {
		if s >= lo && s <= hi {
			n += k
		}
	}
	return n
}

// verify reads every record written through c and returns how many
// acknowledged writes are missing or overwritten by something never
// sent, failing the test for each.
func (l *ledger) verify(t *testing.T, c *client) (lost int) {
	t.Helper()
	l.mu.Lock()
	defer l.mu.Unlock()
	ids := make([]string, 0, len(l.acked)+len(l.maybe))
	for id := range l.acked {
		ids = append(ids, id)
	}
	for id := range l.maybe {
		if _, ok := l.acked[id]; !ok {
			ids = append(ids, id)
		}
	}
	slices.Sort(ids)
	got := c.records(t, "resource", ids, "id,title")
	for _, id := range ids {
		acked, isAcked := l.acked[id]
		rec, exists := got[id]
		title, _ := rec["title"].(string)
		switch {
		case isAcked && !exists:
			lost++
			t.Errorf("acknowledged %s (%q) is missing", id, acked)
		case exists && title != acked && !slices.Contains(l.maybe[id], title):
			if isAcked {
				lost++
			}
			t.Errorf("%s reads %q: acknowledged %q, unanswered %q", id, title, acked, l.maybe[id])
		}
	}
	return lost
}

// upserts writes Resources through c until ctx ends: new ones
// <prefix>-<n>, and every third write an update of one written before.
// After a failed request it waits a little, so a server that is down is
// not called in a busy loop.
func upserts(ctx context.Context, c *client, prefix string, l *ledger) {
	var own []string
	for n := 0; ctx.Err() == nil; n++ {
		id := fmt.Sprintf("%s-%d", prefix, n)
		if len(own) > 0 && n%3 == 2 {
			id = own[rand.IntN(len(own))]
		} else {
			own = append(own, id)
		}
		title := fmt.Sprintf("%s v%d", id, n)
		r := c.post(ctx, "/api/bw/v2/resource", map[string]any{"id": id, "published": true, "title": title})
		if r.err != nil && ctx.Err() != nil {
			r.err = ctx.Err() // stopped by the test: unanswered like a broken connection
		}
		l.record(id, title, r)
		if r.err != nil || r.status >= 300 {
			select {
			case <-ctx.Done():
			case <-time.After(20 * time.Millisecond):
			}
		}
	}
}

// killAfter waits until l has at least acks acknowledgements, then a
// random moment up to spread more, and kills p.
func killAfter(t *testing.T, p *proc, acks func() int64, min int64, spread time.Duration) {
	t.Helper()
	waitAcks(t, acks, min)
	time.Sleep(rand.N(spread))
	p.kill()
}

// waitAcks waits until acks gives at least min.
func waitAcks(t *testing.T, acks func() int64, min int64) {
	t.Helper()
	deadline := time.Now().Add(60 * time.Second)
	for acks() < min {
		if time.Now().After(deadline) {
			t.Fatalf("only %d acknowledgements in 60s", acks())
		}
		time.Sleep(5 * time.Millisecond)
	}
}

// TestFaultKillUpserts: a server killed with SIGKILL while clients upsert
// Resources loses none of the writes it acknowledged; the SQLite file
// passes integrity_check after each kill.
func TestFaultKillUpserts(t *testing.T) {
	t.Parallel()
	eachDB(t, func(t *testing.T, d faultDB) {
		rounds, clients := long(2, 12), long(3, 8)
		l := newLedger()
		p := startProc(t, "--db", d.db, "--files", d.files)
		for round := range rounds {
			c := newClient(t, p)
			ctx, cancel := context.WithCancel(t.Context())
			var wg sync.WaitGroup
			for k := range clients {
				wg.Go(func() { upserts(ctx, c, fmt.Sprintf("k%d-c%d", round, k), l) })
			}
			killAfter(t, p, func() int64 { return l.acks.Load() }, l.acks.Load()+20, long(500*time.Millisecond, 3*time.Second))
			cancel()
			wg.Wait()
			if d.file != "" {
				integrityCheck(t, d.file)
			}
			p = p.restart()
		}
		lost := l.verify(t, newClient(t, p))
		if n := l.count(500, 599); n > 0 {
			t.Errorf("%d answers were 5xx: %v", n, l.status)
		}
		if n := l.count(300, 499); n > 0 {
			t.Errorf("%d answers were neither 201 nor 202: %v", n, l.status)
		}
		t.Logf("figures: kill -9 during upserts: kills=%d clients=%d writes=%d acknowledged=%d lost=%d unanswered=%d 5xx=%d",
			rounds, clients, l.writes, l.acks.Load(), lost, l.broken, l.count(500, 599))
	})
}

// submitted is a batch acknowledged with 201.
type submitted struct {
	id    string
	ids   []string
	title string
}

// TestFaultKillBatch: a server killed with SIGKILL while clients submit
// batches and its worker applies them: after the restart every batch
// acknowledged with 201 ends done, applied exactly once (created = count:
// a second application would find its records and count them updated or
// skipped), its records and their Map assignments there once each.
func TestFaultKillBatch(t *testing.T) {
	t.Parallel()
	eachDB(t, func(t *testing.T, d faultDB) {
		rounds, clients, size, each := long(2, 8), long(2, 3), long(300, 500), long(3, 5)
		p := startProc(t, "--db", d.db, "--files", d.files, "--batch-lease", "2s")
		var acked []submitted
		var writes, fiveXX, unanswered, lostBatches, lostRecords, killedProcessing int
		for round := range rounds {
			c := newClient(t, p)
			mapID := fmt.Sprintf("fault-map-%d", round)
			if r := c.post(t.Context(), "/api/bw/v2/map", map[string]any{"id": mapID}); r.status != 201 {
				t.Fatalf("map: %d %s %v", r.status, r.body, r.err)
			}
			ctx, cancel := context.WithCancel(t.Context())
			var mu sync.Mutex
			var these, unknown []submitted
			var acks atomic.Int64
			var wg sync.WaitGroup
			for k := range clients {
				wg.Go(func() {
					for n := 0; n < each && ctx.Err() == nil; n++ {
						b := submitted{title: fmt.Sprintf("batch %s-%d-%d", mapID, k, n)}
						var body []map[string]any
						for i := range size {
							id := fmt.Sprintf("b%d-%d-%d-%d", round, k, n, i)
							b.ids = append(b.ids, id)
							body = append(body, map[string]any{"id": id, "published": true, "title": b.title, "mapIdsAdd": []string{mapID}})
						}
						r := c.post(ctx, "/api/bw/v2/resource/batch", body)
						mu.Lock()
						writes++
						switch {
						case r.err != nil:
							unanswered++
							unknown = append(unknown, b) // stored or not: the answer was lost
						case r.status == 201:
							var ans struct {
								BatchID string `json:"batchId"`
								Count   int    `json:"count"`
							}
							json.Unmarshal(r.body, &ans)
							if ans.Count != size {
								t.Errorf("batch %s: count %d, want %d", ans.BatchID, ans.Count, size)
							}
							b.id = ans.BatchID
							these = append(these, b)
							acks.Add(1)
						case r.status >= 500:
							fiveXX++
							t.Errorf("batch submit: %d %s", r.status, r.body)
						default:
							t.Errorf("batch submit: %d %s", r.status, r.body)
						}
						mu.Unlock()
						if r.err != nil {
							return
						}
						time.Sleep(rand.N(100 * time.Millisecond))
					}
				})
			}
			// Even rounds kill the server while its worker applies a
			// batch, odd ones at a random moment of the submissions.
			if round%2 == 0 && waitProcessing(t, c, func() []submitted { mu.Lock(); defer mu.Unlock(); return slices.Clone(these) }) {
				time.Sleep(rand.N(50 * time.Millisecond))
				p.kill()
				killedProcessing++
			} else {
				killAfter(t, p, acks.Load, 1+rand.Int64N(int64(clients*each)), 300*time.Millisecond)
			}
			cancel()
			wg.Wait()
			if d.file != "" {
				integrityCheck(t, d.file)
			}
			p = p.restart()
			c = newClient(t, p)
			var inMap []string
			for _, b := range these {
				st := c.awaitBatch(t, "resource", b.id, 2*time.Minute)
				if st.Status != "done" || st.Count != size || st.Created != size || st.Updated != 0 || st.Skipped != 0 {
					lostBatches++
					t.Errorf("batch %s after the kill: %+v, want done with created=%d", b.id, st, size)
				}
				got := c.records(t, "resource", b.ids, "id,title,mapIds")
				for _, id := range b.ids {
					if rec, ok := got[id]; !ok || rec["title"] != b.title || !slices.Equal(stringList(rec["mapIds"]), []string{mapID}) {
						lostRecords++
						t.Errorf("record %s of batch %s: %v", id, b.id, rec)
					}
				}
				inMap = append(inMap, b.ids...)
			}
			// A batch whose answer was lost may have been stored: then it
			// is applied whole, once, like the others.
			for _, b := range unknown {
				got := c.records(t, "resource", b.ids, "id")
				if len(got) == len(b.ids) {
					inMap = append(inMap, b.ids...)
				} else if len(got) > 0 {
					t.Errorf("unanswered batch %s applied in part: %d of %d records", b.title, len(got), len(b.ids))
				}
			}
			m := c.records(t, "map", []string{mapID}, "id,resourceIds")[mapID]
			list := stringList(m["resourceIds"])
			if slices.Sort(list); !slices.Equal(list, sorted(inMap)) {
				t.Errorf("%s lists %d Resources, want the %d of its applied batches, once each", mapID, len(list), len(inMap))
			}
			acked = append(acked, these...)
		}
		t.Logf("figures: kill -9 during batches: kills=%d batches=%d acknowledged=%d records=%d killed-while-applying=%d applied-once=%d lost-batches=%d lost-records=%d unanswered=%d 5xx=%d",
			rounds, writes, len(acked), len(acked)*size, killedProcessing, len(acked)-lostBatches, lostBatches, lostRecords, unanswered, fiveXX)
	})
}

// waitProcessing polls the batches acknowledged so far until one is
// being applied (true), or gives up after 30 s.
func waitProcessing(t *testing.T, c *client, acked func() []submitted) bool {
	t.Helper()
	deadline := time.Now().Add(30 * time.Second)
	for time.Now().Before(deadline) {
		for _, b := range acked() {
			if r := c.get(t.Context(), "/api/bw/v2/resource/batch/"+b.id); strings.Contains(string(r.body), `"status":"processing"`) {
				return true
			}
		}
		time.Sleep(2 * time.Millisecond)
	}
	return false
}

func sorted(s []string) []string {
	s = slices.Clone(s)
	slices.Sort(s)
	return s
}
