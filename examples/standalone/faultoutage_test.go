package main

import (
	"context"
	"fmt"
	"sync"
	"testing"
	"time"

	"github.com/bwcms/cms/adapters/postgres/pgtest"
)

// TestFaultStoreOutage: PostgreSQL cut off under load (through the test's
// own proxy, every connection closed and new ones refused). While it is
// down, writes get 503 with Retry-After and nothing else of the 5xx kind;
// once it is back the same process recovers, with no restart, and no
// acknowledged write is lost.
func TestFaultStoreOutage(t *testing.T) {
	t.Parallel()
	px, dsn := pgtest.NewProxy(t, pgtest.DSN(t))
	p := startProc(t, "--db", dsn, "--files", sharedFiles(t))
	c := newClient(t, p)
	cycles, clients, down := long(1, 6), long(3, 8), long(2*time.Second, 10*time.Second)
	l := newLedger()
	ctx, cancel := context.WithCancel(t.Context())
	defer cancel()
	var wg sync.WaitGroup
	for k := range clients {
		wg.Go(func() { upserts(ctx, c, fmt.Sprintf("o-c%d", k), l) })
	}
	worst := storeCutCycles(t, l, cycles, 500*time.Millisecond, down, 60*time.Second, "outage", px.Cut, px.Restore)
	time.Sleep(500 * time.Millisecond)
	cancel()
	wg.Wait()
	if !p.running() {
		t.Fatal("the server exited")
	}
	lost := l.verify(t, c)
	fiveXX, unavailable := l.count(500, 599), l.count(503, 503)
	if fiveXX != unavailable {
		t.Errorf("5xx other than 503: %v", l.status)
	}
	if l.noRetry > 0 {
		t.Errorf("%d answers 503 without Retry-After", l.noRetry)
	}
	t.Logf("figures: store unreachable under load: outages=%dx%v clients=%d writes=%d acknowledged=%d lost=%d 503=%d other-5xx=%d unanswered=%d slowest-recovery=%v",
		cycles, down, clients, l.writes, l.acks.Load(), lost, unavailable, fiveXX-unavailable, l.broken, worst.Round(time.Millisecond))
}

// storeCutCycles cuts the store off cycles times under the load l
// records, each time after settle and for down: every cycle must see a
// 503 while cut, and a write acknowledged within recoverIn once restored.
// It returns the slowest recovery.
func storeCutCycles(t *testing.T, l *ledger, cycles int, settle, down, recoverIn time.Duration, what string, cut, restore func()) time.Duration {
	t.Helper()
	var worst time.Duration
	for range cycles {
		time.Sleep(settle)
		before := l.count(503, 503)
		cut()
		time.Sleep(down)
		if l.count(503, 503) == before {
			t.Errorf("no 503 in %v of %s: %v", down, what, l.status)
		}
		acks := l.acks.Load()
		restore()
		back := time.Now()
		for l.acks.Load() == acks {
			if time.Since(back) > recoverIn {
				t.Fatalf("no write acknowledged %v after the %s ended: %v", recoverIn, what, l.status)
			}
			time.Sleep(5 * time.Millisecond)
		}
		worst = max(worst, time.Since(back))
	}
	return worst
}
