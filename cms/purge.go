package cms

import (
	"context"
	"time"
)

// Purge deletes what has expired: refresh-token families past their
// absolute lifetime, login failures older than the throttling window,
// addresses a user last logged in from more than 30 days ago, and finished batches older
// than Options.BatchRetention; files' bytes that have no row (an upload
// stopped before its row committed) and, with Options.UnusedFileAge, the
// files no record uses; change records older than Options.HistoryKeep
// (each record keeps its newest).
// Hosts call it now and then (the standalone server hourly); nothing
// depends on it for correctness, only the tables' size.
func (s *Service) Purge(ctx context.Context) error {
	now := s.Now()
	if _, err := s.store.PurgeRefreshTokens(ctx, now); err != nil {
		return err
	}
	if _, err := s.store.PurgeLoginFailures(ctx, now.Add(-s.opts.LoginWindow)); err != nil {
		return err
	}
	if _, err := s.store.PurgeKnownAddresses(ctx, now.Add(-knownAddressAge)); err != nil {
		return err
	}
	if _, err := s.store.PurgeBatches(ctx, now.Add(-s.opts.BatchRetention)); err != nil {
		return err
	}
	if err := s.purgeChanges(ctx, now); err != nil {
		return err
	}
	return s.purgeFiles(ctx)
}

// purgeChangesChunk is how many change records one statement of the
// purge removes: a purge never holds a long transaction.
const purgeChangesChunk = 1000

// purgeChanges removes the change records older than
// Options.HistoryKeep (each record keeps its newest).
func (s *Service) purgeChanges(ctx context.Context, now time.Time) error {
	if s.opts.HistoryKeep <= 0 {
		return nil
	}
	for {
		n, err := s.store.PurgeChanges(ctx, now.Add(-s.opts.HistoryKeep), purgeChangesChunk)
		if err != nil || n < purgeChangesChunk {
			return err
		}
	}
}
