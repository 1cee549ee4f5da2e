package cms

import (
	"cmp"
	"context"
	"errors"
	"fmt"
	"math"
	"math/rand/v2"
	"runtime/debug"
	"sync"
	"sync/atomic"
	"time"
)

// RunBatchWorkers applies waiting batches with n workers until ctx ends,
// then returns once they have stopped. A batch running when ctx ends is
// rolled back and its lease ended, so any instance (this one after a
// restart) takes it up again at once.
// n = 0 runs none (another process applies the batches).
func (s *Service) RunBatchWorkers(ctx context.Context, n int) {
	s.workers.Add(int32(n))
	defer s.workers.Add(-int32(n))
	s.runWorkers(ctx, n)
}

// runWorkers runs n workers, already counted in s.workers, until ctx ends.
func (s *Service) runWorkers(ctx context.Context, n int) {
	var wg sync.WaitGroup
	for range n {
		owner, err := s.randomHex(8)
		if err != nil {
			s.log.ErrorContext(ctx, "cms: batch worker id", "err", err)
			continue
		}
		wg.Go(func() {
			failures := 0 // in a row: the wait grows while the store is out
			for ctx.Err() == nil {
				did, err := s.ProcessBatch(ctx, "worker-"+owner)
				switch {
				case err == nil || ctx.Err() != nil:
					failures = 0
				case ErrorCode(err) == CodeUnavailable: // passes by itself
					failures++
					s.log.WarnContext(ctx, "cms: batch worker", "err", err, "failures", failures)
				default:
					failures++
					s.log.ErrorContext(ctx, "cms: batch worker", "err", err)
				}
				if !did || err != nil {
					select {
					case <-ctx.Done():
					case <-s.handoff.wake:
					case <-time.After(pollWait(s.opts.BatchPoll, failures)):
					}
				}
			}
		})
	}
	wg.Wait()
}

// ProcessBatch claims the oldest waiting batch (or one whose lease ran out)
// for owner, applies it with its lease renewed meanwhile, and records the
// outcome: done in the transaction that applies the records, error apart.
// It reports whether there was a batch. An apply that meets a concurrent
// writer or an unreachable store is run again after a wait, as long as it
// takes, without counting as an attempt. When ctx ends first, or the apply
// fails for a reason of the store's (CodeInternal) before the last of
// Options.BatchMaxAttempts, the batch is rolled back and its lease ended,
// to be taken up again by the next claim; when the lease passed to
// another worker, it is left to that one.
func (s *Service) ProcessBatch(ctx context.Context, owner string) (bool, error) {
	now := s.Now()
	b, err := s.store.ClaimBatch(ctx, owner, now, now.Add(s.opts.BatchLease))
	if ErrorCode(err) == CodeNotFound {
		return false, nil
	}
	if err != nil {
		return false, err
	}
	handed := s.handoff.take(b.ID)
	if b.Attempts > s.opts.BatchMaxAttempts {
		s.log.ErrorContext(ctx, "cms: batch given up", "batch", b.ID, "attempts", b.Attempts-1)
		fail := BatchResult{Error: fmt.Sprintf("Batch process given up after %d attempts", b.Attempts-1)}
		if err := s.store.FinishBatch(ctx, b.ID, owner, BatchError, fail, s.Now()); err != nil {
			return true, fmt.Errorf("cms: finishing batch %s: %w", b.ID, err)
		}
		s.opts.Observer.BatchFinished(b.Kind, BatchError, fail, 0)
		return true, nil
	}
	started := time.Now()
	handedOver := true
	if b.Payload = handed.payload; b.Payload == nil {
		handedOver = false
		if b.Payload, err = s.store.BatchPayload(ctx, b.ID); err != nil {
			return true, fmt.Errorf("cms: reading batch %s: %w", b.ID, err) // its lease brings it back
		}
	}
	run := s.runs.start(b, owner)
	defer s.runs.end(b.ID, run)
	applyCtx, cancel := context.WithCancel(ctx)
	defer cancel()
	var leaseLost atomic.Bool
	beats := make(chan struct{})
	go func() {
		defer close(beats)
		// The lease is renewed every third of it; the progress, while it
		// moves, as often as batchProgressEvery.
		renew := s.opts.BatchLease / 3
		t := time.NewTicker(min(renew, batchProgressEvery))
		defer t.Stop()
		written, beat := int64(0), time.Now()
		for {
			select {
			case <-applyCtx.Done():
				return
			case <-t.C:
				processed := run.processed.Load()
				if processed == written && time.Since(beat) < renew {
					continue
				}
				err := s.store.HeartbeatBatch(applyCtx, b.ID, owner, s.Now().Add(s.opts.BatchLease), int(processed))
				switch {
				case err == nil:
					written, beat = processed, time.Now()
				case ErrorCode(err) == CodeConflict: // another worker holds it now
					leaseLost.Store(true)
					cancel()
					return
				case applyCtx.Err() == nil:
					// Two thirds of the lease are left: the next beat may do.
					s.log.WarnContext(ctx, "cms: batch heartbeat failed", "batch", b.ID, "err", err)
				}
			}
		}
	}()
	res, applyErr := s.applyBatchSettled(applyCtx, b, owner, run, &handed)
	cancel()
	<-beats
	switch {
	case applyErr == nil: // done, recorded in the batch's own transaction
		s.log.InfoContext(ctx, "cms: batch applied", "batch", b.ID, "account", b.Account, "kind", string(b.Kind),
			"records", b.Count, "created", res.Created, "updated", res.Updated, "skipped", res.Skipped,
			"attempt", b.Attempts, "handed_over", handedOver, "records_handed_over", handed.decoded, "duration", time.Since(started))
		s.opts.Observer.BatchFinished(b.Kind, BatchDone, res, time.Since(started))
		return true, nil
	case leaseLost.Load() || errors.Is(applyErr, errBatchNotHeld):
		s.log.WarnContext(ctx, "cms: batch lease lost; left to its holder", "batch", b.ID, "err", applyErr)
		return true, nil
	case ctx.Err() != nil:
		// Stopping, rolled back: the next claim, here after a restart or
		// elsewhere, takes the batch up at once.
		s.endLease(ctx, b.ID, owner)
		return true, ctx.Err()
	case ErrorCode(applyErr) == CodeUnavailable:
		// A race or an outage is never the batch's fault; it is only
		// left here when the apply was cut short: taken up again.
		s.log.WarnContext(ctx, "cms: batch interrupted; to be tried again", "batch", b.ID, "err", applyErr)
		s.endLease(ctx, b.ID, owner)
		return true, nil
	case ErrorCode(applyErr) == CodeInternal && b.Attempts < s.opts.BatchMaxAttempts:
		// Not the records' doing (a write failed):
		// rolled back, tried again by the next claim, until the last
		// attempt records the error.
		s.log.WarnContext(ctx, "cms: batch failed; to be tried again", "batch", b.ID, "attempt", b.Attempts, "err", applyErr)
		s.endLease(ctx, b.ID, owner)
		return true, nil
	}
	// The batch cannot be applied: its status says why. Recorded even
	// when ctx ends meanwhile, or the lease would apply it again.
	s.log.WarnContext(ctx, "cms: batch failed", "batch", b.ID, "err", applyErr)
	fail := BatchResult{Error: batchErrorText(applyErr)}
	if err := s.store.FinishBatch(context.WithoutCancel(ctx), b.ID, owner, BatchError, fail, s.Now()); err != nil {
		return true, fmt.Errorf("cms: finishing batch %s: %w", b.ID, err)
	}
	s.opts.Observer.BatchFinished(b.Kind, BatchError, fail, time.Since(started))
	return true, nil
}

// endLease ends the lease of a batch owner leaves, rolled back, so the
// next claim takes it up at once (claims take leases that ended before
// their instant), even while ctx ends.
func (s *Service) endLease(ctx context.Context, id, owner string) {
	rctx, done := context.WithTimeout(context.WithoutCancel(ctx), 5*time.Second)
	defer done()
	// Processed 0 changes nothing: the next claim starts it again from 0.
	if err := s.store.HeartbeatBatch(rctx, id, owner, s.Now().Add(-time.Microsecond), 0); err != nil {
		s.log.WarnContext(ctx, "cms: ending a batch's lease", "batch", id, "err", err)
	}
}

// applyBatchSafely is applyBatch with a panic of its goroutine turned into
// an error (the transaction rolled back): the batch ends in error instead
// of taking the process down after every lease.
func (s *Service) applyBatchSafely(ctx context.Context, b *Batch, owner string, run *batchRun, handed *handoffEntry) (res BatchResult, err error) {
	defer func() {
		if v := recover(); v != nil {
			err = panicError(v)
		}
	}()
	return s.applyBatch(ctx, b, owner, run, handed)
}

// applyBatchSettled applies a batch, and applies it again, after a wait
// that grows, while it fails for a reason that passes: a clash with a
// concurrent writer (a deadlock, a serialization failure, a key taken
// meanwhile) or a store that cannot be reached. Neither uses up one of
// Options.BatchMaxAttempts, and neither ends the batch in error: it is
// tried until it applies, fails for a reason of its own, or ctx ends (the
// service stops, or the lease passed to another worker).
func (s *Service) applyBatchSettled(ctx context.Context, b *Batch, owner string, run *batchRun, handed *handoffEntry) (BatchResult, error) {
	races := 0
	for attempt := 1; ; attempt++ {
		res, err := s.applyBatchSafely(ctx, b, owner, run, handed)
		if err == nil || ErrorCode(err) != CodeUnavailable || errors.Is(err, errBatchNotHeld) || ctx.Err() != nil {
			return res, err
		}
		if IsRace(err) {
			if races++; races >= s.opts.BatchRaceRetries {
				// No clash with other writers lasts this long: the batch
				// meets itself (a fault of ours), so it takes the path of
				// other store failures and uses up an attempt.
				return res, &Error{Code: CodeInternal, Message: "batch kept meeting a write race", Err: err}
			}
		}
		wait := batchBackoff(attempt, maxOutageWait)
		if IsRace(err) {
			wait = batchBackoff(attempt, maxRaceWait)
		}
		s.log.WarnContext(ctx, "cms: batch met another writer or an unreachable store; trying again",
			"batch", b.ID, "attempt", attempt, "race", IsRace(err), "wait", wait, "err", err)
		if sleepCtx(ctx, wait) != nil {
			return res, err
		}
	}
}

// The longest waits between a batch's apply attempts: after a race, and
// while the store is out (unreachable, its disk full), when each attempt
// decodes the batch again for nothing.
const (
	maxRaceWait   = 5 * time.Second
	maxOutageWait = 30 * time.Second
)

// batchBackoff is the wait before a batch's apply attempt+1: jittered,
// growing from a few milliseconds to at most ceiling.
func batchBackoff(attempt int, ceiling time.Duration) time.Duration {
	ceiling = min(10*time.Millisecond<<min(attempt, 12), ceiling)
	return ceiling/2 + rand.N(ceiling/2)
}

// pollWait is how long an idle worker waits after failures claims or
// applies in a row failed: poll at first, doubling to at most 30 s.
func pollWait(poll time.Duration, failures int) time.Duration {
	if failures == 0 {
		return poll
	}
	return min(poll<<min(failures-1, 6), max(poll, maxOutageWait))
}

// panicError is a recovered panic as an internal error, with the stack
// for the log (never for a client).
func panicError(v any) error {
	return &Error{Code: CodeInternal, Message: "Internal error", Err: fmt.Errorf("panic: %v\n%s", v, debug.Stack())}
}

// errBatchNotHeld marks an apply rolled back because its worker no longer
// held the batch when it was to commit.
var errBatchNotHeld = errors.New("cms: batch no longer held by this worker")

// batchErrorText is the reason a status answer shows: the problems of a
// record, or a general text (the cause goes to the log only).
func batchErrorText(err error) string {
	if e, ok := errors.AsType[*Error](err); ok && e.Code != CodeInternal {
		if len(e.Problems) > 0 {
			return e.ProblemText()
		}
		return e.Message
	}
	return "Internal error"
}

// applyBatch upserts every record of a batch in one transaction, which
// also marks the batch done for owner: all or none. Applying it twice
// gives the same records as once. Records go
// through upsertIn, the rules of single upserts, chunk by chunk over a
// bulkTx, so each chunk is read and written in a few statements. Each
// chunk written advances run; the result lists every record's outcome.
// The records are those the submit decoded when handed kept them for the
// account's languages (the first apply only), else decoded from the
// payload.
func (s *Service) applyBatch(ctx context.Context, b *Batch, owner string, run *batchRun, handed *handoffEntry) (BatchResult, error) {
	acc, err := s.store.GetAccount(ctx, b.Account)
	if err != nil {
		return BatchResult{}, err
	}
	p := Principal{Account: acc.ID, User: "batch " + b.ID, Perms: []string{"*"}, Langs: acc.Langs}
	codec, err := s.codec(acc.Langs)
	if err != nil {
		return BatchResult{}, err
	}
	kept := handed.records(codec)
	var res BatchResult
	// A batch's transaction gets a batch's limits, not a request's.
	ctx = withChangeAuthor(ctx, p.User)
	err = s.store.WithTx(WithBatchWork(ctx), func(tx Store) error {
		return s.withChanges(ctx, tx, func(tx Store) error {
			res = BatchResult{Outcomes: make([]RecordOutcome, 0, b.Count)}
			// Its records' assignments and deletes touch other records: first
			// the account's writes of several records, then the kind.
			if err := tx.LockAccountWrites(ctx, acc.ID); err != nil {
				return err
			}
			if err := tx.LockKind(ctx, acc.ID, b.Kind); err != nil {
				return err
			}
			bulk := newBulkTx(tx, s.doc, acc.ID, b.Kind)
			defer bulk.settle() // a write in flight ends before the transaction does
			decodeCtx, stop := context.WithCancel(ctx)
			defer stop()
			windows, err := s.batchWindows(decodeCtx, b, codec, kept)
			if err != nil {
				return err
			}
			kept = nil // upserted, they change: a transaction run again decodes
			done := 0
			for w := range windows {
				if err := cmp.Or(append(w.errs, w.err)...); err != nil {
					return err
				}
				chunk := w.items
				if err := bulk.beginChunk(ctx, s, acc.Langs, chunk); err != nil {
					return err
				}
				for i, rec := range chunk {
					if rec.Common().DeleteIrreversibly.Value {
						if err := s.applyBatchDelete(ctx, bulk, p, rec, &res); err != nil {
							return err
						}
						if err := bulk.prefetch(ctx, s, acc.Langs, chunk[i+1:]); err != nil {
							return err
						}
						continue
					}
					r, err := s.upsertIn(ctx, bulk, p, codec, rec, nil, UpsertOptions{})
					if err != nil {
						return err
					}
					switch r.Outcome {
					case Created:
						res.Created++
					case Updated:
						res.Updated++
					default:
						res.Skipped++
					}
					res.Outcomes = append(res.Outcomes, RecordOutcome{ID: rec.RecordID(), Outcome: r.Outcome})
				}
				if err := bulk.endChunk(); err != nil {
					return err
				}
				done += len(chunk)
				run.advance(done)
			}
			if err := bulk.flush(ctx); err != nil {
				return err
			}
			// The decoder also stops when ctx ends: that is no end of batch.
			if err := ctx.Err(); err != nil {
				return err
			}
			if done != b.Count {
				return fmt.Errorf("cms: batch %s holds %d records, not %d", b.ID, done, b.Count)
			}
			// Done in the records' own transaction: a worker that no longer
			// holds the batch commits nothing, and a crash after the commit
			// leaves no applied batch to be applied again over later writes.
			err = tx.FinishBatch(ctx, b.ID, owner, BatchDone, res, s.Now())
			if ErrorCode(err) == CodeConflict {
				return fmt.Errorf("%w: %w", errBatchNotHeld, err)
			}
			return err
		})
	})
	return res, err
}

// batchWindows are the records of a batch in windows of bulkChunk: kept,
// when not nil, else decoded from its payload a window ahead of the
// caller, so decoding and storing share the cores.
func (s *Service) batchWindows(ctx context.Context, b *Batch, codec *Codec, kept [][]Record) (<-chan decodedWindow[Record], error) {
	if kept != nil {
		out := make(chan decodedWindow[Record], len(kept))
		for _, w := range kept {
			out <- decodedWindow[Record]{items: w}
		}
		close(out)
		return out, nil
	}
	split, err := newRecordSplitter(b.Payload)
	if err != nil {
		return nil, err
	}
	decode := func(raw []byte) (Record, error) {
		rec := NewRecord(b.Kind)
		err := codec.decodeBytes(raw, rec, false)
		s.sanitize(b.Account, rec)
		return rec, err
	}
	return decodedWindows(ctx, split, math.MaxInt, decode), nil
}

// applyBatchDelete applies deleteElementIrreversibly of a batch record on
// the store itself, after the writes kept so far.
func (s *Service) applyBatchDelete(ctx context.Context, bulk *bulkTx, p Principal, rec Record, res *BatchResult) error {
	if err := bulk.flush(ctx); err != nil {
		return err
	}
	_, err := s.deleteRecords(ctx, bulk.tx, p, rec.Kind(), []string{rec.RecordID()}, "")
	outcome := Deleted
	defer func() { res.Outcomes = append(res.Outcomes, RecordOutcome{ID: rec.RecordID(), Outcome: outcome}) }()
	switch {
	case ErrorCode(err) == CodeNotFound: // already gone: the same as once
		res.Skipped++
		outcome = Skipped
	case ErrorCode(err) == CodeConflict:
		// Named since the submit judged it: the status says by whom.
		refs, rerr := bulk.tx.Referrers(ctx, p.Account, ReferenceTargets(rec.Kind()), rec.RecordID())
		if probs := singleReferrers(refs, rec.Kind(), rec.RecordID(), nil); rerr == nil && len(probs) > 0 {
			return problemError(rec, true, probs)
		}
		return err
	case err != nil:
		return err
	default:
		res.Updated++
	}
	return nil
}
