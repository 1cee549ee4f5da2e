package cms

import "testing"

// TestBatchRunProgress: a run's progress never decreases (an apply run
// again within the claim holds it until it passes), and BatchStatus's
// fill takes it only for the claim the store reports, never lowering
// what the heartbeat stored.
func TestBatchRunProgress(t *testing.T) {
	t.Parallel()
	var runs batchRuns
	claimed := &Batch{ID: "b-1", Status: BatchProcessing, Owner: "w-1", Attempts: 2}
	r := runs.start(claimed, "w-1")
	for _, done := range []int{256, 512, 256, 768} { // 256 again: the apply started over after a race
		r.advance(done)
	}
	if got := r.processed.Load(); got != 768 {
		t.Errorf("processed after 256, 512, then 256 and 768 again: %d, want 768", got)
	}
	for _, c := range []struct {
		name string
		b    Batch
		want int
	}{
		{"this claim", Batch{ID: "b-1", Status: BatchProcessing, Owner: "w-1", Attempts: 2}, 768},
		{"heartbeat ahead", Batch{ID: "b-1", Status: BatchProcessing, Owner: "w-1", Attempts: 2, Processed: 900}, 900},
		{"taken by another worker", Batch{ID: "b-1", Status: BatchProcessing, Owner: "w-2", Attempts: 3, Processed: 10}, 10},
		{"a later claim of the same owner", Batch{ID: "b-1", Status: BatchProcessing, Owner: "w-1", Attempts: 3}, 0},
		{"done", Batch{ID: "b-1", Status: BatchDone, Owner: "w-1", Attempts: 2}, 0},
		{"another batch", Batch{ID: "b-2", Status: BatchProcessing, Owner: "w-1", Attempts: 2}, 0},
	} {
		b := c.b
		runs.fill(&b)
		if b.Processed != c.want {
			t.Errorf("%s: processed %d, want %d", c.name, b.Processed, c.want)
		}
	}
	runs.end("b-1", r)
	b := Batch{ID: "b-1", Status: BatchProcessing, Owner: "w-1", Attempts: 2}
	if runs.fill(&b); b.Processed != 0 {
		t.Errorf("after the run ended: processed %d, want the store's 0", b.Processed)
	}
}
