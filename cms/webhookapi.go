package cms

import (
	"context"
	"fmt"
	"net/url"
	"slices"
	"strings"
	"time"
)

// secretOverlap is how long a replaced secret keeps signing beside the
// new one (DECISIONS §18), so receivers can switch without a gap.
const secretOverlap = 24 * time.Hour

// CreateWebhook makes a webhook of the caller's account acting for the
// caller (webhook:write): in.URL required (http or https, at most 2,000
// characters, no user or password; an address on a private network is
// refused unless Options.WebhookAllowPrivate), in.Events known event
// names or "*" (default "*"), each naming a kind the caller may read. It
// answers the webhook and, when in.Secret was nil, the secret the service
// made ("whsec_" + base64 of 32 random bytes), once. Errors:
// CodeUnauthorized, CodeForbidden, CodeInvalid (Problems name the field).
func (s *Service) CreateWebhook(ctx context.Context, in WebhookInput) (Webhook, string, error) {
	p, err := s.caller(ctx, AreaWebhook, ActionWrite)
	if err != nil {
		return Webhook{}, "", err
	}
	return s.createWebhook(ctx, p, in)
}

// CreateWebhookFor is CreateWebhook for host code acting as the user
// named (the standalone server's "webhook add"): the webhook acts for
// that user, in that user's account. CodeNotFound when there is no such
// user.
func (s *Service) CreateWebhookFor(ctx context.Context, user string, in WebhookInput) (Webhook, string, error) {
	id, err := s.creds.Lookup(ctx, user)
	if err != nil {
		return Webhook{}, "", err
	}
	if id.Disabled {
		return Webhook{}, "", &Error{Code: CodeConflict, Message: fmt.Sprintf("user %q is disabled", user)}
	}
	return s.createWebhook(ctx, Principal{Account: id.Account, User: user, Perms: id.Perms}, in)
}

// MaxWebhooks is how many webhooks an account may hold: every instance
// reads each enabled one's changes every second.
const MaxWebhooks = 25

func (s *Service) createWebhook(ctx context.Context, p Principal, in WebhookInput) (Webhook, string, error) {
	var problems webhookProblems
	url := ""
	if in.URL != nil {
		url = *in.URL
	}
	checkWebhookURL(&problems, url, s.opts.WebhookAllowPrivate)
	events := []string{"*"}
	if in.Events != nil {
		events = checkWebhookEvents(&problems, in.Events, p)
	}
	var secret, made string
	if in.Secret != nil {
		secret = *in.Secret
		checkWebhookSecret(&problems, secret)
	}
	if err := problems.err(); err != nil {
		return Webhook{}, "", err
	}
	if in.Secret == nil {
		var err error
		if secret, err = newWebhookSecret(s.opts.Rand); err != nil {
			return Webhook{}, "", err
		}
		made = secret
	}
	id, err := s.randomHex(12)
	if err != nil {
		return Webhook{}, "", err
	}
	// The webhook's deliveries start at the present of the feed: read
	// before the webhook is stored, so no change after it is missed.
	present, err := s.AccountChanges(ctx, p.Account, ChangesParams{After: "now", Limit: 1})
	if err != nil {
		return Webhook{}, "", fmt.Errorf("cms: the changes feed's present: %w", err)
	}
	now := s.Now()
	w := StoredWebhook{Webhook: Webhook{ID: "wh_" + id, Account: p.Account, URL: url, Events: events, User: p.User,
		Enabled: in.Enabled == nil || *in.Enabled, Created: now, Updated: now}, Secret: secret, Cursor: present.Next}
	err = s.inTx(ctx, func(tx Store) error {
		have, err := tx.ListWebhooks(ctx, w.Account, false)
		if err != nil {
			return err
		}
		if len(have) >= MaxWebhooks {
			return &Error{Code: CodeConflict, Message: fmt.Sprintf("An account holds at most %d webhooks", MaxWebhooks)}
		}
		if err := tx.CreateWebhook(ctx, w); err != nil {
			return err
		}
		return s.audit(ctx, tx, w.Account, "webhook.create", w.ID, webhookDetail(w.Webhook))
	})
	if err != nil {
		return Webhook{}, "", err
	}
	return w.Webhook, made, nil
}

// auditURL is a webhook's url as the audit list shows it: its scheme and
// host, the rest elided, since receivers' paths and queries often carry
// tokens and the audit is read by every user with user:read.
func auditURL(raw string) string {
	u, err := url.Parse(raw)
	if err != nil || u.Host == "" {
		return "(an address)"
	}
	shown := u.Scheme + "://" + u.Host
	if u.Path != "" && u.Path != "/" || u.RawQuery != "" {
		shown += "/…"
	}
	return shown
}

// webhookDetail describes a webhook for the audit list (never its
// secret).
func webhookDetail(w Webhook) string {
	d := "url " + auditURL(w.URL) + ", events " + strings.Join(w.Events, " ") + ", user " + w.User
	if !w.Enabled {
		d += ", disabled"
	}
	return d
}

// Webhooks lists the caller's account's webhooks (webhook:read), oldest
// first.
func (s *Service) Webhooks(ctx context.Context) ([]Webhook, error) {
	p, err := s.caller(ctx, AreaWebhook, ActionRead)
	if err != nil {
		return nil, err
	}
	return s.AccountWebhooks(ctx, p.Account)
}

// AccountWebhooks lists account's webhooks ("" every account's) for host
// code.
func (s *Service) AccountWebhooks(ctx context.Context, account string) ([]Webhook, error) {
	stored, err := s.store.ListWebhooks(ctx, account, false)
	if err != nil {
		return nil, err
	}
	hooks := make([]Webhook, len(stored))
	for i, w := range stored {
		hooks[i] = w.Webhook
	}
	return hooks, nil
}

// GetWebhook answers one webhook of the caller's account (webhook:read).
// CodeNotFound when there is none.
func (s *Service) GetWebhook(ctx context.Context, id string) (Webhook, error) {
	p, err := s.caller(ctx, AreaWebhook, ActionRead)
	if err != nil {
		return Webhook{}, err
	}
	w, err := ownWebhook(ctx, s.store, p.Account, id)
	return w.Webhook, err
}

// ownWebhook reads webhook id of account (held, in a transaction): a
// webhook of another account is CodeNotFound, as a missing one.
func ownWebhook(ctx context.Context, st Store, account, id string) (StoredWebhook, error) {
	w, err := st.GetWebhook(ctx, id)
	if err == nil && account != "" && w.Account != account {
		err = noSuchWebhook(id)
	}
	if ErrorCode(err) == CodeNotFound {
		err = noSuchWebhook(id)
	}
	return w, err
}

func noSuchWebhook(id string) error {
	return &Error{Code: CodeNotFound, Message: fmt.Sprintf("webhook %q: there is no such webhook in your account", id)}
}

// UpdateWebhook changes a webhook of the caller's account (webhook:write):
// what in sets. A new secret keeps the old one signing beside it for 24
// hours. A change of url, events or secret by another user than the one
// the webhook acts for makes it act for the caller (it never carries
// what the caller may not read). Enabling a webhook clears its failures. Errors as CreateWebhook,
// and CodeNotFound.
func (s *Service) UpdateWebhook(ctx context.Context, id string, in WebhookInput) (Webhook, error) {
	p, err := s.caller(ctx, AreaWebhook, ActionWrite)
	if err != nil {
		return Webhook{}, err
	}
	var w StoredWebhook
	err = s.inTx(ctx, func(tx Store) error {
		var err error
		if w, err = ownWebhook(ctx, tx, p.Account, id); err != nil {
			return err
		}
		before := w
		problems := webhookProblems{id: id}
		if in.URL != nil {
			w.URL = *in.URL
			checkWebhookURL(&problems, w.URL, s.opts.WebhookAllowPrivate)
		}
		if in.Events != nil {
			w.Events = checkWebhookEvents(&problems, in.Events, p)
		}
		if in.Secret != nil {
			checkWebhookSecret(&problems, *in.Secret)
		}
		if err := problems.err(); err != nil {
			return err
		}
		now := s.Now()
		var changed []string
		if w.URL != before.URL {
			changed = append(changed, "url "+auditURL(before.URL)+" -> "+auditURL(w.URL))
		}
		if !slices.Equal(w.Events, before.Events) {
			changed = append(changed, "events "+strings.Join(before.Events, " ")+" -> "+strings.Join(w.Events, " "))
		}
		if in.Secret != nil && *in.Secret != w.Secret {
			w.PreviousSecret, w.PreviousUntil, w.Secret = w.Secret, now.Add(secretOverlap), *in.Secret
			changed = append(changed, "secret changed")
		}
		// Whoever points a webhook elsewhere, or changes what it carries
		// or its secret, becomes the user it acts for: it then carries
		// only what that user may read, never what its former user could.
		if len(changed) > 0 && w.User != p.User {
			changed = append(changed, "user "+w.User+" -> "+p.User)
			w.User = p.User
		}
		disabling := false
		if in.Enabled != nil && *in.Enabled != w.Enabled {
			w.Enabled = *in.Enabled
			if w.Enabled {
				w.Disabled, w.FailedInRow = "", 0
				changed = append(changed, "enabled")
			} else {
				disabling = true
				changed = append(changed, "disabled")
			}
		}
		if len(changed) == 0 {
			return nil
		}
		w.Updated = now
		if err := tx.UpdateWebhook(ctx, w); err != nil {
			return err
		}
		if disabling {
			if _, err := tx.FailPendingDeliveries(ctx, w.ID, now, "the webhook was disabled"); err != nil {
				return err
			}
		}
		return s.audit(ctx, tx, w.Account, "webhook.update", w.ID, strings.Join(changed, "; "))
	})
	return w.Webhook, err
}

// DeleteWebhook removes a webhook and its deliveries (webhook:delete).
// CodeNotFound when there is none.
func (s *Service) DeleteWebhook(ctx context.Context, id string) error {
	p, err := s.caller(ctx, AreaWebhook, ActionDelete)
	if err != nil {
		return err
	}
	return s.deleteWebhook(ctx, p.Account, id)
}

// DeleteWebhookByID removes a webhook of any account, for host code
// (the standalone server's "webhook remove"). CodeNotFound.
func (s *Service) DeleteWebhookByID(ctx context.Context, id string) error {
	return s.deleteWebhook(ctx, "", id)
}

// deleteWebhook removes webhook id of account ("" any account's).
func (s *Service) deleteWebhook(ctx context.Context, account, id string) error {
	return s.inTx(ctx, func(tx Store) error {
		w, err := ownWebhook(ctx, tx, account, id)
		if err != nil {
			return err
		}
		if err := tx.DeleteWebhook(ctx, id); err != nil {
			return err
		}
		return s.audit(ctx, tx, w.Account, "webhook.delete", w.ID, webhookDetail(w.Webhook))
	})
}

// DeliveriesParams select a page of a webhook's delivery log, newest
// first.
type DeliveriesParams struct {
	// After is the Next of the page before ("" the newest).
	After string
	// Limit: 1..1000, default 50.
	Limit int
	// Status, when set, keeps the deliveries in it.
	Status DeliveryStatus
}

// DeliveriesPage is a page of the delivery log.
type DeliveriesPage struct {
	Deliveries []Delivery
	Next       string
}

// The page sizes of the delivery log.
const (
	defaultDeliveriesLimit = 50
	maxDeliveriesLimit     = 1000
)

// WebhookDeliveries reads a webhook's delivery log (webhook:read).
// CodeNotFound when there is no such webhook.
func (s *Service) WebhookDeliveries(ctx context.Context, id string, p DeliveriesParams) (DeliveriesPage, error) {
	pr, err := s.caller(ctx, AreaWebhook, ActionRead)
	if err != nil {
		return DeliveriesPage{}, err
	}
	q := DeliveryQuery{WebhookID: id, Status: p.Status, Limit: p.Limit}
	switch {
	case q.Limit == 0:
		q.Limit = defaultDeliveriesLimit
	case q.Limit < 0 || q.Limit > maxDeliveriesLimit:
		return DeliveriesPage{}, &Error{Code: CodeMalformed, Message: fmt.Sprintf("limit must be 1 to %d", maxDeliveriesLimit)}
	}
	switch p.Status {
	case "", DeliveryPending, DeliveryDelivered, DeliveryFailed:
	default:
		return DeliveriesPage{}, &Error{Code: CodeMalformed, Message: "status must be pending, delivered or failed"}
	}
	if p.After != "" {
		c, err := ParseChangeCursor(p.After)
		if err != nil {
			return DeliveriesPage{}, err
		}
		q.Before = &c
	}
	if _, err := ownWebhook(ctx, s.store, pr.Account, id); err != nil {
		return DeliveriesPage{}, err
	}
	want := q.Limit
	q.Limit++ // one more tells whether a page follows
	ds, err := s.store.ListDeliveries(ctx, q)
	if err != nil {
		return DeliveriesPage{}, err
	}
	page := DeliveriesPage{Deliveries: ds}
	if len(ds) > want {
		page.Deliveries = ds[:want]
		page.Next = ds[want-1].Change.Seq
	}
	return page, nil
}

// RetryDelivery sends a delivery again (webhook:write): a failed one
// becomes pending with its attempts counted again from 0, due now; a
// delivered one is sent once more (receivers drop it by its id if they
// had it). CodeNotFound when the webhook has no such delivery. A
// pending one is made due now; a disabled webhook sends nothing
// (CodeConflict: enable it first).
func (s *Service) RetryDelivery(ctx context.Context, webhookID, deliveryID string) (Delivery, error) {
	p, err := s.caller(ctx, AreaWebhook, ActionWrite)
	if err != nil {
		return Delivery{}, err
	}
	w, err := ownWebhook(ctx, s.store, p.Account, webhookID)
	if err != nil {
		return Delivery{}, err
	}
	if !w.Enabled {
		return Delivery{}, &Error{Code: CodeConflict, Message: "the webhook is disabled: enable it first"}
	}
	d, err := s.store.RetryDelivery(ctx, webhookID, deliveryID, s.Now())
	if ErrorCode(err) == CodeNotFound {
		err = &Error{Code: CodeNotFound, Message: fmt.Sprintf("delivery %q: the webhook has no such delivery", deliveryID)}
	}
	return d, err
}
