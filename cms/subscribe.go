package cms

import (
	"context"
	"time"
)

// ChangeHandler is a host's function subscribed to changes: it is given
// the changes in order, a page at a time; an error makes it be given the
// same page again later (at least once). It is called from one goroutine
// of one instance at a time.
type ChangeHandler func(ctx context.Context, changes []FeedChange) error

// Subscription names a ChangeHandler subscribed with Subscribe.
type Subscription struct {
	// Name identifies the subscription across restarts and instances:
	// its cursor is stored under it (1 to 100 characters).
	Name string
	// Account is the account whose changes it follows.
	Account string
	// Kinds, when set, keeps the changes of these kinds.
	Kinds []Kind
	// Handle is called with each page of changes, in order.
	Handle ChangeHandler
}

// Subscribe registers sub: Run runs it, from its stored cursor (a new
// name starts at the present), on one instance at a time. Call it before
// Run. An error when the name is taken in this Service or invalid.
func (s *Service) Subscribe(sub Subscription) error { return errNotYet }

// LeaseStore hands out leases: named, time-bounded claims that one
// instance holds at a time (a subscription's runner, a webhook's
// dispatcher), and keeps small named cursors beside them.
type LeaseStore interface {
	// TakeLease gives name to owner until now+ttl when nobody else holds
	// it unexpired (or owner holds it: then it is extended), by the
	// database's clock, which every instance shares. It reports
	// whether owner holds it.
	TakeLease(ctx context.Context, name, owner string, ttl time.Duration) (bool, error)
	// ReleaseLease ends owner's lease of name, if it holds it.
	ReleaseLease(ctx context.Context, name, owner string) error
	// Cursor returns the value stored under name ("" when none).
	Cursor(ctx context.Context, name string) (string, error)
	// SetCursor stores value under name, while owner holds its lease:
	// CodeConflict when it does not.
	SetCursor(ctx context.Context, name, owner, value string) error
}
