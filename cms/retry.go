package cms

import (
	"context"
	"math/rand/v2"
	"time"
)

// inTx runs fn in one transaction of the store, and runs it again, in a
// new transaction, when it failed on a race with another writer (a
// deadlock, a serialization failure, a unique key taken meanwhile): up to
// Options.TxAttempts attempts in all, each after a short jittered wait
// that grows, so writers that met once do not meet again. fn must do
// nothing outside the transaction that a new attempt would repeat. The
// records the transaction changes get their change records at its end
// (withChanges).
func (s *Service) inTx(ctx context.Context, fn func(tx Store) error) error {
	var err error
	for attempt := 1; ; attempt++ {
		err = s.store.WithTx(ctx, func(tx Store) error { return s.withChanges(ctx, tx, fn) })
		if err == nil || !IsRace(err) || attempt >= s.opts.TxAttempts {
			return err
		}
		s.log.DebugContext(ctx, "cms: transaction met another writer; trying again", "attempt", attempt, "err", err)
		if werr := sleepCtx(ctx, raceBackoff(attempt)); werr != nil {
			return err
		}
	}
}

// raceBackoff is the wait before attempt+1: random in [0, 2^attempt ms],
// at most 100 ms ("full jitter").
func raceBackoff(attempt int) time.Duration {
	ceiling := min(time.Duration(1<<min(attempt, 7))*time.Millisecond, 100*time.Millisecond)
	return rand.N(ceiling) + time.Millisecond
}

// sleepCtx waits d, or less when ctx ends first (then its error).
func sleepCtx(ctx context.Context, d time.Duration) error {
	t := time.NewTimer(d)
	defer t.Stop()
	select {
	case <-ctx.Done():
		return ctx.Err()
	case <-t.C:
		return nil
	}
}
