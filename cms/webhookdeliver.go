package cms

import (
	"context"
	"encoding/json"
	"fmt"
	"math/rand/v2"
	"strings"
	"sync"
	"time"
	"unicode/utf8"
)

// How webhooks are delivered (DECISIONS §18). A materializer turns the
// changes of each enabled webhook's account after its cursor into
// deliveries, one per change, and moves the cursor in the same
// transaction; senders claim the due deliveries and send them. Both run
// on every instance: the cursor's compare-and-set and the claims share
// the work without sending a change twice on purpose.
const (
	// webhookPoll is how often an idle materializer or sender looks again.
	webhookPoll = time.Second
	// webhookLease is how long a claim holds a delivery: far longer than
	// an attempt (the sender's 10 s), so only a stopped instance's claims
	// are taken over.
	webhookLease = 60 * time.Second
	// webhookAttemptLimit bounds an attempt whatever the sender does,
	// well within the lease.
	webhookAttemptLimit = 30 * time.Second
	// webhookPage is how many changes the materializer reads at once,
	// webhookPages how many pages of a webhook a round reads at most
	// before it turns to the next webhook.
	webhookPage  = 200
	webhookPages = 10
	// webhookFirstRetry is the wait after the first failed attempt,
	// doubled after each one up to webhookMaxRetry.
	webhookFirstRetry = 5 * time.Second
	webhookMaxRetry   = time.Hour
	// webhookFailedInRow is how many failed deliveries in a row disable
	// a webhook.
	webhookFailedInRow = 5
	// maxDeliveryError bounds the error text kept of an attempt.
	maxDeliveryError = 1000
	// deliveryPurgeChunk is how many finished deliveries a purge
	// statement removes.
	deliveryPurgeChunk = 1000
)

// runWebhooks materializes and sends webhooks' deliveries until ctx
// ends (Run starts it when Options.WebhookSender is set).
func (s *Service) runWebhooks(ctx context.Context) {
	id, err := s.randomHex(8)
	if err != nil {
		s.log.ErrorContext(ctx, "cms: webhook sender id", "err", err)
		return
	}
	var wg sync.WaitGroup
	wg.Go(func() { s.materializeEvery(ctx) })
	for i := range s.opts.WebhookWorkers {
		owner := fmt.Sprintf("webhooks-%s-%d", id, i)
		wg.Go(func() { s.sendEvery(ctx, owner) })
	}
	wg.Wait()
}

// materializeEvery materializes every webhook's deliveries every
// webhookPoll, and purges the delivery log every Options.PurgeEvery.
func (s *Service) materializeEvery(ctx context.Context) {
	lastPurge := time.Now()
	for {
		if err := s.materializeWebhooks(ctx); err != nil && ctx.Err() == nil {
			s.log.WarnContext(ctx, "cms: webhook deliveries", "err", err)
		}
		if time.Since(lastPurge) >= s.opts.PurgeEvery {
			lastPurge = time.Now()
			if err := s.purgeDeliveries(ctx); err != nil && ctx.Err() == nil {
				s.log.WarnContext(ctx, "cms: webhook delivery log purge", "err", err)
			}
		}
		if sleepCtx(ctx, webhookPoll) != nil {
			return
		}
	}
}

// purgeDeliveries removes the finished deliveries older than
// Options.HistoryKeep (the changes they were of are gone too).
func (s *Service) purgeDeliveries(ctx context.Context) error {
	if s.opts.HistoryKeep <= 0 {
		return nil
	}
	before := s.Now().Add(-s.opts.HistoryKeep)
	for ctx.Err() == nil {
		n, err := s.store.PurgeDeliveries(ctx, before, deliveryPurgeChunk)
		if err != nil || n < deliveryPurgeChunk {
			return err
		}
	}
	return nil
}

// materializeWebhooks makes the deliveries of every enabled webhook's
// new changes.
func (s *Service) materializeWebhooks(ctx context.Context) error {
	hooks, err := s.store.ListWebhooks(ctx, "", true)
	if err != nil {
		return err
	}
	var errs []error
	for _, w := range hooks {
		if err := s.materialize(ctx, w); err != nil {
			if ctx.Err() != nil {
				return err
			}
			errs = append(errs, fmt.Errorf("webhook %s: %w", w.ID, err))
		}
	}
	if len(errs) > 0 {
		return errs[0]
	}
	return nil
}

// materialize makes the deliveries of w's changes after its cursor, a
// page at a time. The page is read outside any transaction (the feed
// waits for writers in flight); then, in one transaction holding the
// webhook, the cursor is compared and set with the page's deliveries:
// when another instance moved it meanwhile, this one drops its page.
func (s *Service) materialize(ctx context.Context, w StoredWebhook) error {
	for range webhookPages {
		page, err := s.AccountChanges(ctx, w.Account, ChangesParams{After: w.Cursor, Limit: webhookPage,
			Kinds: webhookKinds(w.Events)})
		if ErrorCode(err) == CodeGone {
			// Deliveries waited past what the feed keeps (a webhook
			// disabled for long): the oldest change kept is next.
			s.log.WarnContext(ctx, "cms: webhook missed changes no longer kept; going on from the oldest kept",
				"webhook", w.ID, "account", w.Account)
			page, err = s.AccountChanges(ctx, w.Account, ChangesParams{Limit: webhookPage, Kinds: webhookKinds(w.Events)})
		}
		if err != nil {
			return err
		}
		if page.Next == w.Cursor && len(page.Changes) == 0 {
			return nil
		}
		var user Identity
		userErr := error(nil)
		if len(page.Changes) > 0 {
			user, userErr = s.creds.Lookup(ctx, w.User)
			if userErr != nil && ErrorCode(userErr) != CodeNotFound {
				return userErr
			}
		}
		gone := ""
		switch {
		case len(page.Changes) == 0:
		case userErr != nil, user.Account != w.Account, user.Since.After(w.Created):
			gone = "user " + w.User + " deleted"
		case user.Disabled:
			gone = "user " + w.User + " disabled"
		}
		dropped := false
		err = s.inTx(ctx, func(tx Store) error {
			cur, err := tx.GetWebhook(ctx, w.ID)
			if ErrorCode(err) == CodeNotFound || err == nil && (cur.Cursor != w.Cursor || !cur.Enabled) {
				dropped = true
				return nil
			}
			if err != nil {
				return err
			}
			if gone != "" {
				return s.disableWebhook(ctx, tx, &cur, gone)
			}
			if ds := s.deliveriesOf(cur, user, page.Changes); len(ds) > 0 {
				if _, err := tx.AddDeliveries(ctx, ds); err != nil {
					return err
				}
			}
			cur.Cursor = page.Next
			return tx.UpdateWebhook(ctx, cur)
		})
		if err != nil {
			return err
		}
		if gone != "" && !dropped {
			s.log.WarnContext(ctx, "cms: webhook disabled", "webhook", w.ID, "account", w.Account, "reason", gone)
		}
		if dropped || gone != "" || len(page.Changes) < webhookPage {
			return nil
		}
		w.Cursor = page.Next
	}
	return nil
}

// deliveriesOf makes w's deliveries of changes: those its events select,
// of kinds its user may read now.
func (s *Service) deliveriesOf(w StoredWebhook, user Identity, changes []FeedChange) []Delivery {
	now := s.Now()
	var ds []Delivery
	for _, c := range changes {
		if !webhookMatches(w.Events, c.Kind, c.Op) || !Allowed(user.Perms, c.Kind, ActionRead) {
			continue
		}
		id, err := s.randomHex(16)
		if err != nil {
			// crypto/rand does not fail; a broken Options.Rand is the
			// host's bug, and a delivery without an id cannot be made.
			s.log.Error("cms: webhook message id", "err", err)
			continue
		}
		ds = append(ds, Delivery{ID: "msg_" + id, WebhookID: w.ID, Change: c, Status: DeliveryPending,
			NextAttempt: now, Created: now})
	}
	return ds
}

// disableWebhook disables w in tx for reason: its pending deliveries
// fail, and the audit list tells who did it (the service).
func (s *Service) disableWebhook(ctx context.Context, tx Store, w *StoredWebhook, reason string) error {
	now := s.Now()
	w.Enabled, w.Disabled, w.Updated = false, reason, now
	if err := tx.UpdateWebhook(ctx, *w); err != nil {
		return err
	}
	if _, err := tx.FailPendingDeliveries(ctx, w.ID, now, "the webhook was disabled: "+reason); err != nil {
		return err
	}
	return s.audit(ctx, tx, w.Account, "webhook.disable", w.ID, reason)
}

// sendEvery claims and sends due deliveries, one at a time, until ctx
// ends; idle, it looks again every webhookPoll.
func (s *Service) sendEvery(ctx context.Context, owner string) {
	failures := 0
	for ctx.Err() == nil {
		did, err := s.sendOne(ctx, owner)
		switch {
		case err == nil || ctx.Err() != nil:
			failures = 0
		default:
			failures++
			s.log.WarnContext(ctx, "cms: webhook sender", "err", err, "failures", failures)
		}
		if !did || err != nil {
			if sleepCtx(ctx, pollWait(webhookPoll, failures)) != nil {
				return
			}
		}
	}
}

// sendOne claims one due delivery and attempts it; it reports whether
// there was one.
func (s *Service) sendOne(ctx context.Context, owner string) (bool, error) {
	now := s.Now()
	claimed, err := s.store.ClaimDeliveries(ctx, owner, now, now.Add(webhookLease), 1)
	if err != nil || len(claimed) == 0 {
		return false, err
	}
	return true, s.attempt(ctx, owner, claimed[0])
}

// webhookBody is the message of a change: the Standard Webhooks shape,
// the change's metadata as data.
type webhookBody struct {
	Type      string      `json:"type"`
	Timestamp string      `json:"timestamp"`
	Data      webhookData `json:"data"`
}

type webhookData struct {
	Seq  string   `json:"seq"`
	Kind Kind     `json:"kind"`
	ID   string   `json:"id"`
	Op   ChangeOp `json:"op"`
	Rev  int64    `json:"rev"`
	Time string   `json:"time"`
}

// webhookMessage is the body of a change's message: the same at every
// attempt (timestamp is the change's time).
func (s *Service) webhookMessage(c FeedChange) ([]byte, error) {
	return json.Marshal(webhookBody{Type: string(c.Kind) + "." + string(c.Op), Timestamp: c.Time.UTC().Format(time.RFC3339),
		Data: webhookData{Seq: c.Seq, Kind: c.Kind, ID: c.ID, Op: c.Op, Rev: c.Rev, Time: s.Timestamp(c.Time)}})
}

// attempt sends a claimed delivery and records what came of it.
func (s *Service) attempt(ctx context.Context, owner string, d ClaimedDelivery) error {
	w, err := s.store.GetWebhook(ctx, d.WebhookID)
	if ErrorCode(err) == CodeNotFound {
		return nil // deleted with its deliveries meanwhile
	}
	if err != nil {
		return s.release(ctx, owner, d, err)
	}
	// Its user is checked again at every attempt (DECISIONS §1): a
	// delivery made before the user lost the kind, or was disabled, is
	// not sent. The webhook itself is disabled at its next change.
	if why, err := s.deliveryRefused(ctx, w, d.Change.Kind); err != nil || why != "" {
		if err != nil {
			return s.release(ctx, owner, d, err)
		}
		o := DeliveryOutcome{ID: d.ID, WebhookID: d.WebhookID, Owner: owner, Status: DeliveryFailed,
			Finished: s.Now(), NextAttempt: d.NextAttempt, GiveUp: d.GiveUp, LastError: why}
		err := s.inTx(ctx, func(tx Store) error { return tx.FinishAttempt(ctx, o) })
		if ErrorCode(err) == CodeConflict || ErrorCode(err) == CodeNotFound {
			return nil // no longer this sender's
		}
		return err
	}
	body, err := s.webhookMessage(d.Change)
	if err != nil {
		return s.release(ctx, owner, d, err)
	}
	now := s.Now()
	lag := now.Sub(d.Change.Time)
	giveUp := d.GiveUp
	if d.Attempts <= 1 || giveUp.IsZero() {
		// A delivery is retried for WebhookRetryFor from its first
		// attempt, not from its making: one that waited behind an
		// earlier delivery of its record gets its full retries.
		giveUp = now.Add(s.opts.WebhookRetryFor)
	}
	secrets := []string{w.Secret}
	if w.PreviousSecret != "" && now.Before(w.PreviousUntil) {
		secrets = append(secrets, w.PreviousSecret)
	}
	sendCtx, cancel := context.WithTimeout(ctx, webhookAttemptLimit)
	a := s.opts.WebhookSender.Send(sendCtx, WebhookMessage{ID: d.ID, Timestamp: now, URL: w.URL, Body: body, Secrets: secrets})
	cancel()
	if ctx.Err() != nil {
		// Stopped mid-attempt: another claim (here after a restart, or
		// on another instance) sends it again at once.
		return s.release(ctx, owner, d, nil)
	}
	now = s.Now()
	ok := a.Err == nil && a.Status >= 200 && a.Status < 300
	o := DeliveryOutcome{ID: d.ID, WebhookID: d.WebhookID, Owner: owner, LastStatus: a.Status, GiveUp: giveUp,
		Response: storableText(a.Response, MaxDeliveryResponse)}
	switch {
	case ok:
		o.Status, o.Finished, o.NextAttempt = DeliveryDelivered, now, d.NextAttempt
	case !now.Before(giveUp):
		o.Status, o.Finished, o.NextAttempt = DeliveryFailed, now, d.NextAttempt
	default:
		o.Status, o.NextAttempt = DeliveryPending, minTime(now.Add(retryWait(d.Attempts)), giveUp)
	}
	switch {
	case a.Err != nil:
		o.LastError = storableText([]byte(a.Err.Error()), maxDeliveryError)
	case !ok:
		o.LastError = fmt.Sprintf("answered HTTP %d", a.Status)
	}
	if obs, has := s.opts.Observer.(WebhookObserver); has {
		obs.DeliveryAttempted(ok, lag)
		if o.Status == DeliveryFailed {
			obs.DeliveryFailed()
		}
	}
	disabled := false
	err = s.inTx(ctx, func(tx Store) error {
		disabled = false
		if o.Status == DeliveryPending {
			return tx.FinishAttempt(ctx, o)
		}
		// The webhook first: every transaction that holds a webhook and
		// its deliveries takes them in that order, so none waits for
		// another in a circle.
		cur, err := tx.GetWebhook(ctx, d.WebhookID)
		if err != nil {
			return err
		}
		if err := tx.FinishAttempt(ctx, o); err != nil {
			return err
		}
		switch {
		case o.Status == DeliveryDelivered && cur.FailedInRow == 0:
			return nil
		case o.Status == DeliveryDelivered:
			cur.FailedInRow = 0
		default:
			cur.FailedInRow++
			if cur.Enabled && cur.FailedInRow >= webhookFailedInRow {
				disabled = true
				return s.disableWebhook(ctx, tx, &cur, fmt.Sprintf("%d failed deliveries in a row", cur.FailedInRow))
			}
		}
		return tx.UpdateWebhook(ctx, cur)
	})
	if ErrorCode(err) == CodeConflict || ErrorCode(err) == CodeNotFound {
		// The claim was taken over (this instance was too slow), the
		// delivery given up or the webhook deleted meanwhile: the outcome
		// is no longer this sender's to record.
		s.log.InfoContext(ctx, "cms: webhook attempt outcome dropped", "delivery", d.ID, "err", err)
		return nil
	}
	if err == nil && disabled {
		s.log.WarnContext(ctx, "cms: webhook disabled", "webhook", w.ID, "account", w.Account,
			"reason", fmt.Sprintf("%d failed deliveries in a row", webhookFailedInRow))
	}
	return err
}

// deliveryRefused says why w's user may not receive a change of kind
// now ("" when it may).
func (s *Service) deliveryRefused(ctx context.Context, w StoredWebhook, kind Kind) (string, error) {
	user, err := s.creds.Lookup(ctx, w.User)
	switch {
	case ErrorCode(err) == CodeNotFound, err == nil && (user.Account != w.Account || user.Since.After(w.Created)):
		return "user " + w.User + " deleted", nil
	case err != nil:
		return "", err
	case user.Disabled:
		return "user " + w.User + " disabled", nil
	case !Allowed(user.Perms, kind, ActionRead):
		return "user " + w.User + " may not read " + kind.Plural(), nil
	}
	return "", nil
}

// release gives a claimed delivery up without an attempt, and returns
// cause.
func (s *Service) release(ctx context.Context, owner string, d ClaimedDelivery, cause error) error {
	if err := s.store.ReleaseDelivery(context.WithoutCancel(ctx), d.WebhookID, d.ID, owner); err != nil && cause == nil {
		cause = err
	}
	return cause
}

// retryWait is the wait after the attempts-th failed attempt:
// webhookFirstRetry doubled each time up to webhookMaxRetry, less up to
// a fifth at random, so that deliveries failing together spread.
func retryWait(attempts int) time.Duration {
	d := webhookMaxRetry
	if attempts >= 1 && attempts <= 20 {
		d = min(webhookFirstRetry<<(attempts-1), webhookMaxRetry)
	}
	return d - rand.N(d/5)
}

func minTime(a, b time.Time) time.Time {
	if b.Before(a) {
		return b
	}
	return a
}

// storableText is at most limit bytes of b as text any database stores:
// valid UTF-8, no NUL.
func storableText(b []byte, limit int) string {
	if len(b) > limit {
		b = b[:limit]
	}
	t := strings.ReplaceAll(strings.ToValidUTF8(string(b), "\uFFFD"), "\x00", "")
	for len(t) > limit { // replacement characters are longer than the bytes they replace
		_, size := utf8.DecodeLastRuneInString(t)
		t = t[:len(t)-size]
	}
	return t
}
