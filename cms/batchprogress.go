package cms

import (
	"context"
	"sync"
	"sync/atomic"
	"time"
)

// batchProgressEvery is how often, at most, a worker writes its batch's
// progress with the lease's heartbeat while the count moves (the lease
// alone is renewed every third of it).
const batchProgressEvery = time.Second

// batchRun is the progress of a batch one of this service's workers
// applies under one claim. On SQLite the apply's transaction holds the one
// write connection, so no heartbeat lands before it ends: this process's
// BatchStatus reads the progress here. On PostgreSQL the heartbeat writes
// it for every instance.
type batchRun struct {
	owner   string
	attempt int
	// processed never decreases: an apply run again within the claim (after
	// a write race or an outage) holds it until it passes that mark.
	processed atomic.Int64
}

// advance records that the run's current apply has taken done records.
func (r *batchRun) advance(done int) {
	for {
		old := r.processed.Load()
		if int64(done) <= old || r.processed.CompareAndSwap(old, int64(done)) {
			return
		}
	}
}

// batchRuns are the batches this service's workers apply now, by id.
type batchRuns struct {
	mu   sync.Mutex
	runs map[string]*batchRun
}

// start registers the run of b, just claimed by owner.
func (rs *batchRuns) start(b *Batch, owner string) *batchRun {
	r := &batchRun{owner: owner, attempt: b.Attempts}
	rs.mu.Lock()
	defer rs.mu.Unlock()
	if rs.runs == nil {
		rs.runs = make(map[string]*batchRun)
	}
	rs.runs[b.ID] = r
	return r
}

// end forgets r (unless another claim of this service replaced it).
func (rs *batchRuns) end(id string, r *batchRun) {
	rs.mu.Lock()
	defer rs.mu.Unlock()
	if rs.runs[id] == r {
		delete(rs.runs, id)
	}
}

// fill raises b.Processed to what this service's worker has applied, when
// one of them holds b under the claim the store reports.
func (rs *batchRuns) fill(b *Batch) {
	if b.Status != BatchProcessing {
		return
	}
	rs.mu.Lock()
	r := rs.runs[b.ID]
	rs.mu.Unlock()
	if r != nil && r.owner == b.Owner && r.attempt == b.Attempts {
		b.Processed = max(b.Processed, int(r.processed.Load()))
	}
}

// BatchOutcomes returns what a done batch of kind did to each of its
// records, in batch order, for the principal in ctx (read permission):
// nothing for a batch not done (waiting, processing, or error, which
// applied nothing). CodeNotFound ("There is no <Kind> <id> to clone") as
// BatchStatus.
func (s *Service) BatchOutcomes(ctx context.Context, kind Kind, id string) ([]RecordOutcome, error) {
	p, err := s.caller(ctx, kind, ActionRead)
	if err != nil {
		return nil, err
	}
	outcomes, err := s.store.BatchOutcomes(ctx, p.Account, kind, id)
	if ErrorCode(err) == CodeNotFound {
		return nil, errNoneToClone(kind, id)
	}
	return outcomes, err
}
