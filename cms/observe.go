package cms

import (
	"context"
	"time"
)

// Observer hears what the service does, for metrics: Options.Observer.
// Its methods are called on the request's or the worker's goroutine, so
// they must be quick and safe for concurrent use. The package metrics
// implements it on Prometheus; cms itself knows no metrics library.
type Observer interface {
	// BatchFinished reports a batch that ended, done or error, with what
	// applying it did and how long the worker took from its claim.
	BatchFinished(kind Kind, status BatchStatus, r BatchResult, took time.Duration)
	// LoginRefused reports a login refused for its credentials (throttled
	// false) or held back by the throttling (throttled true).
	LoginRefused(throttled bool)
}

// noObserver is the Observer of a service given none.
type noObserver struct{}

func (noObserver) BatchFinished(Kind, BatchStatus, BatchResult, time.Duration) {}
func (noObserver) LoginRefused(bool)                                           {}

// BatchQueue is the state of the batch queue over every account.
type BatchQueue struct {
	// Waiting and Processing count the batches not finished.
	Waiting, Processing int
	// OldestWaiting is when the oldest waiting batch was submitted (zero
	// when none waits).
	OldestWaiting time.Time
}

// WriteStats counts what a store's group commit did since it opened
// (SQLite): Commits the groups run (one transaction each), Transactions
// the write transactions they held (Transactions/Commits is the mean
// group), Queued the write transactions waiting now.
type WriteStats struct {
	Commits, Transactions uint64
	Queued                int
}

// WriteStatser is a Store that counts its group commits.
type WriteStatser interface {
	// WriteStats reports the counts, and false when the store commits
	// each write on its own.
	WriteStats() (WriteStats, bool)
}

// WriteStats reports the store's group commits since it opened, and
// false when it has none (PostgreSQL, or SQLite with NoGroupCommit).
func (s *Service) WriteStats() (WriteStats, bool) {
	if w, ok := s.store.(WriteStatser); ok {
		return w.WriteStats()
	}
	return WriteStats{}, false
}

// BatchQueue reads the state of the batch queue of every account, for
// metrics and operators.
func (s *Service) BatchQueue(ctx context.Context) (BatchQueue, error) {
	return s.store.BatchQueue(ctx)
}

// Ready tells whether the service can serve requests: its store answers
// and holds the schema this build expects (readiness probes).
// CodeUnavailable when not.
func (s *Service) Ready(ctx context.Context) error {
	return s.store.Ready(ctx)
}

// FileObserver is an Observer that also hears uploads: the Service calls
// it when its Options.Observer implements it.
type FileObserver interface {
	// FileUploaded reports an upload answered with f: stored, or found
	// already stored (existing).
	FileUploaded(f File, existing bool)
	// UploadRefused reports an upload refused for its content: code is
	// CodeConflict (not an accepted type, unreadable) or CodeTooLarge.
	UploadRefused(code Code)
}

// WebhookObserver is an Observer that also hears webhook deliveries: the
// Service calls it when its Options.Observer implements it.
type WebhookObserver interface {
	// DeliveryAttempted reports an attempt of a delivery, ok when it was
	// answered 2xx, lag the time from its change to the attempt.
	DeliveryAttempted(ok bool, lag time.Duration)
	// DeliveryFailed reports a delivery given up: retried past
	// Options.WebhookRetryFor.
	DeliveryFailed()
}
