package cms

import (
	"context"
	"fmt"
	"slices"
	"sync"
	"time"
)

// ChangeHandler is a host's function subscribed to changes: it is given
// the changes in order, a page at a time; an error makes it be given the
// same page again later (at least once). It is called from one goroutine
// of one instance at a time. Its ctx ends when Run stops or the instance
// loses the subscription's lease (the database unreachable for most of
// Options.SubscriptionLease): it should return then, since another
// instance may take the subscription over once the lease has expired.
type ChangeHandler func(ctx context.Context, changes []FeedChange) error

// Subscription names a ChangeHandler subscribed with Subscribe.
type Subscription struct {
	// Name identifies the subscription across restarts and instances:
	// its cursor is stored under it (1 to 100 characters of A-Z a-z 0-9
	// . _ -).
	Name string
	// Account is the account whose changes it follows.
	Account string
	// Kinds, when set, keeps the changes of these kinds.
	Kinds []Kind
	// Handle is called with each page of changes, in order.
	Handle ChangeHandler
}

// MaxSubscriptionName is the longest Subscription.Name.
const MaxSubscriptionName = 100

// Subscribe registers sub: Run runs it, from its stored cursor (a new
// name starts at the present), on one instance at a time. Call it before
// Run. Errors: CodeInvalid for a bad name, no account, no Handle or an
// unknown kind; CodeConflict when the name is taken in this Service or
// Run has started.
func (s *Service) Subscribe(sub Subscription) error {
	if !validSubscriptionName(sub.Name) {
		return invalid("subscription name %q: must be 1 to %d characters of A-Z a-z 0-9 . _ -", sub.Name, MaxSubscriptionName)
	}
	if sub.Account == "" {
		return invalid("subscription %s: no account", sub.Name)
	}
	if sub.Handle == nil {
		return invalid("subscription %s: no Handle", sub.Name)
	}
	for _, k := range sub.Kinds {
		if _, err := ParseKind(string(k)); err != nil {
			return invalid("subscription %s: kind %q: not a kind", sub.Name, k)
		}
	}
	sub.Kinds = slices.Clone(sub.Kinds)
	return s.subs.add(sub)
}

func validSubscriptionName(name string) bool {
	if len(name) == 0 || len(name) > MaxSubscriptionName {
		return false
	}
	for i := 0; i < len(name); i++ {
		c := name[i]
		if !('a' <= c && c <= 'z' || 'A' <= c && c <= 'Z' || '0' <= c && c <= '9' || c == '.' || c == '_' || c == '-') {
			return false
		}
	}
	return true
}

// subscriptions are a Service's subscriptions: added by Subscribe until
// Run takes them.
type subscriptions struct {
	mu      sync.Mutex
	list    []Subscription
	started bool
}

func (ss *subscriptions) add(sub Subscription) error {
	ss.mu.Lock()
	defer ss.mu.Unlock()
	if ss.started {
		return &Error{Code: CodeConflict, Message: fmt.Sprintf("subscription %s: Run has started; subscribe before it", sub.Name)}
	}
	if slices.ContainsFunc(ss.list, func(o Subscription) bool { return o.Name == sub.Name }) {
		return &Error{Code: CodeConflict, Message: fmt.Sprintf("subscription %s: the name is taken in this service", sub.Name)}
	}
	ss.list = append(ss.list, sub)
	return nil
}

// take returns the subscriptions for Run; Subscribe refuses from then on.
func (ss *subscriptions) take() []Subscription {
	ss.mu.Lock()
	defer ss.mu.Unlock()
	ss.started = true
	return slices.Clone(ss.list)
}

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
