package cms

import (
	"context"
	"errors"
	"fmt"
	"sync"
	"time"
)

// The pace of subscriptions: an idle subscription reads the feed every
// subscriptionPoll; a failing handler (or feed) waits from
// subscriptionPoll, doubling, up to subscriptionBackoff.
const (
	subscriptionPoll    = 500 * time.Millisecond
	subscriptionBackoff = time.Minute
	// subscriptionStopWait bounds what a stopping runner still does
	// after Run's context ended: store the cursor of the page it handled,
	// release the lease.
	subscriptionStopWait = 5 * time.Second
)

// errLeaseLost ends a holder's turn: its lease could not be renewed.
var errLeaseLost = errors.New("cms: subscription lease lost")

// runSubscriptions runs every subscription until ctx ends.
func (s *Service) runSubscriptions(ctx context.Context) {
	subs := s.subs.take()
	if len(subs) == 0 {
		return
	}
	s.log.InfoContext(ctx, "cms: running subscriptions", "subscriptions", len(subs),
		"lease", s.opts.SubscriptionLease.String())
	var wg sync.WaitGroup
	for _, sub := range subs {
		wg.Go(func() { s.runSubscription(ctx, sub) })
	}
	wg.Wait()
}

// subscriber runs one subscription in this instance.
type subscriber struct {
	s     *Service
	sub   Subscription
	owner string // this runner's name in the lease
	name  string // of the lease and the cursor: "sub:<name>"
	ttl   time.Duration
}

// runSubscription takes the subscription's lease whenever it is free and
// follows the feed while it holds it, until ctx ends.
func (s *Service) runSubscription(ctx context.Context, sub Subscription) {
	owner, err := s.randomHex(16)
	if err != nil {
		s.log.ErrorContext(ctx, "cms: subscription not run", "subscription", sub.Name, "err", err)
		return
	}
	r := &subscriber{s: s, sub: sub, owner: owner, name: "sub:" + sub.Name, ttl: s.opts.SubscriptionLease}
	// Another instance's lease is tried every third of the lease: one
	// that died is taken over soon after it expires.
	wait := min(subscriptionPoll, r.ttl/3)
	for ctx.Err() == nil {
		taken := time.Now()
		held, err := s.store.TakeLease(ctx, r.name, r.owner, r.ttl)
		switch {
		case err != nil:
			if ctx.Err() == nil {
				s.log.WarnContext(ctx, "cms: subscription lease not taken", "subscription", sub.Name, "err", err)
			}
		case held:
			if err := r.hold(ctx, taken); err != nil && ctx.Err() == nil {
				s.log.WarnContext(ctx, "cms: subscription paused", "subscription", sub.Name, "err", err)
			}
			wait = min(subscriptionPoll, r.ttl/3)
		default:
			wait = r.ttl / 3
		}
		if sleepCtx(ctx, wait) != nil {
			return
		}
	}
}

// hold follows the feed while it renews the lease taken at taken, and
// releases it when it stops (the handler has returned by then).
func (r *subscriber) hold(ctx context.Context, taken time.Time) error {
	hctx, cancel := context.WithCancelCause(ctx)
	defer cancel(nil)
	var wg sync.WaitGroup
	wg.Go(func() { r.renew(hctx, cancel, taken) })
	err := r.follow(hctx)
	cancel(nil)
	wg.Wait()
	rctx, done := context.WithTimeout(context.WithoutCancel(ctx), subscriptionStopWait)
	defer done()
	if rerr := r.s.store.ReleaseLease(rctx, r.name, r.owner); rerr != nil {
		r.s.log.WarnContext(ctx, "cms: subscription lease not released", "subscription", r.sub.Name, "err", rerr)
	}
	if cause := context.Cause(hctx); errors.Is(cause, errLeaseLost) {
		return cause
	}
	return err
}

// renew extends the lease every third of its length until ctx ends. It
// ends the holder's turn (lost) when another owner holds the lease, or
// when it could not renew it for half of its length: the lease may
// expire before the next attempt.
func (r *subscriber) renew(ctx context.Context, lost context.CancelCauseFunc, renewed time.Time) {
	for sleepCtx(ctx, r.ttl/3) == nil {
		start := time.Now()
		held, err := r.s.store.TakeLease(ctx, r.name, r.owner, r.ttl)
		switch {
		case ctx.Err() != nil:
			return
		case err == nil && held:
			renewed = start
		case err == nil:
			lost(fmt.Errorf("%w: another instance holds it", errLeaseLost))
			return
		case time.Since(renewed) >= r.ttl/2:
			lost(fmt.Errorf("%w: not renewed: %w", errLeaseLost, err))
			return
		default:
			r.s.log.WarnContext(ctx, "cms: subscription lease not renewed", "subscription", r.sub.Name, "err", err)
		}
	}
}

// follow reads the feed from the stored cursor and hands each page to
// the handler, storing the cursor after it, until ctx ends or the lease
// is lost. A handler's error gives it the same page again after a
// backoff.
func (r *subscriber) follow(ctx context.Context) error {
	s, sub := r.s, r.sub
	cursor, err := s.store.Cursor(ctx, r.name)
	if err != nil {
		return err
	}
	if cursor == "" {
		// A new subscription starts at the present, stored at once so
		// that what commits from now on is handled after a restart too.
		page, err := s.AccountChanges(ctx, sub.Account, ChangesParams{After: "now"})
		if err != nil {
			return err
		}
		if err := s.store.SetCursor(ctx, r.name, r.owner, page.Next); err != nil {
			return err
		}
		cursor = page.Next
		s.log.InfoContext(ctx, "cms: subscription starts at the present", "subscription", sub.Name, "cursor", cursor)
	}
	after := cursor
	backoff := time.Duration(0)
	var page ChangesPage
	for ctx.Err() == nil {
		if page.Changes == nil {
			page, err = s.AccountChanges(ctx, sub.Account, ChangesParams{After: after, Kinds: sub.Kinds})
			if ErrorCode(err) == CodeGone {
				// Changes were purged before they were handled: follow
				// from the oldest kept, rather than stop for good.
				s.log.ErrorContext(ctx, "cms: subscription cursor expired: changes were missed; it goes on from the oldest kept",
					"subscription", sub.Name, "cursor", after)
				after = ""
				continue
			}
			if err != nil {
				if ctx.Err() != nil {
					return nil
				}
				backoff = nextBackoff(backoff)
				s.log.WarnContext(ctx, "cms: subscription cannot read the changes", "subscription", sub.Name, "err", err, "wait", backoff)
				sleepCtx(ctx, backoff)
				continue
			}
			if len(page.Changes) == 0 {
				// Idle: keep the cursor up with the feed's present, so
				// it does not expire while nothing of its kinds changes.
				if page.Next != cursor {
					if err := s.store.SetCursor(ctx, r.name, r.owner, page.Next); err != nil {
						return err
					}
					cursor = page.Next
				}
				after, page = page.Next, ChangesPage{}
				sleepCtx(ctx, min(subscriptionPoll, r.ttl/3))
				continue
			}
		}
		if err := r.handle(ctx, page.Changes); err != nil {
			if ctx.Err() != nil {
				return nil
			}
			backoff = nextBackoff(backoff)
			s.log.WarnContext(ctx, "cms: subscription handler failed; the same changes again later", "subscription", sub.Name,
				"changes", len(page.Changes), "from", page.Changes[0].Seq, "err", err, "wait", backoff)
			sleepCtx(ctx, backoff)
			continue // the same page
		}
		backoff = 0
		// Handled: stored even when Run is stopping, so a restart does
		// not give the page again; refused once another instance holds
		// the lease.
		sctx, done := context.WithTimeout(context.WithoutCancel(ctx), subscriptionStopWait)
		err := s.store.SetCursor(sctx, r.name, r.owner, page.Next)
		done()
		if err != nil {
			return err
		}
		cursor, after, page = page.Next, page.Next, ChangesPage{}
	}
	return nil
}

// handle calls the handler; its panic is an error, as a failure is.
func (r *subscriber) handle(ctx context.Context, changes []FeedChange) (err error) {
	defer func() {
		if p := recover(); p != nil {
			err = fmt.Errorf("handler panicked: %v", p)
		}
	}()
	return r.sub.Handle(ctx, changes)
}

// nextBackoff is the wait after one more failure in a row.
func nextBackoff(d time.Duration) time.Duration {
	if d == 0 {
		return subscriptionPoll
	}
	return min(2*d, subscriptionBackoff)
}
