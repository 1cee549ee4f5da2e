package main

import (
	"fmt"
	"math"
	"slices"
	"sync"
	"time"
)

// tally collects the outcome of requests from several goroutines.
type tally struct {
	mu        sync.Mutex
	latencies []time.Duration
	statuses  map[int]int // 0: no answer
	failed    int
	first     string // the first failure
}

func newTally() *tally { return &tally{statuses: map[int]int{}} }

// add records one request: ok says whether its answer was one the
// scenario expects; what describes it when not.
func (t *tally) add(d time.Duration, status int, ok bool, what string) {
	t.mu.Lock()
	defer t.mu.Unlock()
	t.latencies = append(t.latencies, d)
	t.statuses[status]++
	if !ok {
		t.failed++
		if t.first == "" {
			t.first = what
		}
	}
}

// count is the number of requests recorded.
func (t *tally) count() int {
	t.mu.Lock()
	defer t.mu.Unlock()
	return len(t.latencies)
}

// latencyLine gives the percentiles of the recorded latencies.
func (t *tally) latencyLine() string {
	t.mu.Lock()
	defer t.mu.Unlock()
	p := percentiles(t.latencies, 0.5, 0.9, 0.99, 1)
	return fmt.Sprintf("latency p50 %s, p90 %s, p99 %s, max %s", ms(p[0]), ms(p[1]), ms(p[2]), ms(p[3]))
}

// percentiles returns the nearest-rank percentiles ps (0 < p <= 1) of ds,
// which it sorts; all zero when ds is empty.
func percentiles(ds []time.Duration, ps ...float64) []time.Duration {
	out := make([]time.Duration, len(ps))
	if len(ds) == 0 {
		return out
	}
	slices.Sort(ds)
	for i, p := range ps {
		rank := int(math.Ceil(p*float64(len(ds)))) - 1
		out[i] = ds[min(max(rank, 0), len(ds)-1)]
	}
	return out
}

// perSecond is n events over d.
func perSecond(n int, d time.Duration) float64 {
	if d <= 0 {
		return 0
	}
	return float64(n) / d.Seconds()
}

// ms formats a latency in milliseconds.
func ms(d time.Duration) string { return fmt.Sprintf("%.2f ms", float64(d)/float64(time.Millisecond)) }

// secs formats a longer time in seconds.
func secs(d time.Duration) string { return fmt.Sprintf("%.2fs", d.Seconds()) }
