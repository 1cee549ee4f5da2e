package cms

import (
	"testing"
	"time"
)

// TestBatchBackoff: the waits between a batch's apply attempts grow from
// milliseconds to their ceiling (5 s after a race, 30 s during an
// outage), and an idle worker whose claims fail waits longer each time,
// up to 30 s.
func TestBatchBackoff(t *testing.T) {
	t.Parallel()
	prev := time.Duration(0)
	for attempt := 1; attempt <= 40; attempt++ {
		d := batchBackoff(attempt, maxOutageWait)
		if d > maxOutageWait || d < min(10*time.Millisecond<<attempt, maxOutageWait)/2 {
			t.Errorf("outage attempt %d: wait %v", attempt, d)
		}
		if r := batchBackoff(attempt, maxRaceWait); r > maxRaceWait {
			t.Errorf("race attempt %d: wait %v", attempt, r)
		}
		prev = max(prev, d)
	}
	if prev < maxOutageWait/2 {
		t.Errorf("outage waits never grew past %v", prev)
	}
	want := []time.Duration{time.Second, time.Second, 2 * time.Second, 4 * time.Second, 8 * time.Second,
		16 * time.Second, 30 * time.Second, 30 * time.Second}
	for failures, w := range want {
		if got := pollWait(time.Second, failures); got != w {
			t.Errorf("pollWait after %d failures: %v, want %v", failures, got, w)
		}
	}
	if got := pollWait(time.Minute, 3); got != time.Minute {
		t.Errorf("a poll longer than the ceiling: %v", got)
	}
}
