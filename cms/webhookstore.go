package cms

import (
	"context"
	"time"
)

// StoredWebhook is a webhook as the store keeps it: besides what callers
// see, its secrets and where its deliveries stand in the changes feed.
type StoredWebhook struct {
	Webhook
	// Secret signs the webhook's messages ("whsec_" + base64);
	// PreviousSecret, the one a change of secret replaced, signs beside
	// it until PreviousUntil.
	Secret         string
	PreviousSecret string
	PreviousUntil  time.Time
	// Cursor is the position of the account's changes feed
	// (ChangeCursor.String) up to which deliveries were made.
	Cursor string
}

// ClaimedDelivery is a delivery ClaimDeliveries gave a sender.
type ClaimedDelivery struct {
	Delivery
	// GiveUp is when a failed attempt no longer gets another (the
	// delivery then fails), as the first attempt set it; zero before.
	GiveUp time.Time
}

// DeliveryOutcome is what an attempt made of a claimed delivery, for
// FinishAttempt.
type DeliveryOutcome struct {
	// ID and WebhookID name the delivery; Owner is who claimed it.
	ID, WebhookID, Owner string
	// Status is pending (another attempt at NextAttempt), delivered or
	// failed (then Finished is set).
	Status      DeliveryStatus
	NextAttempt time.Time
	// GiveUp is when a failed attempt no longer gets another.
	GiveUp     time.Time
	Finished   time.Time
	LastStatus int
	LastError  string
	Response   string
}

// DeliveryQuery selects a page of a webhook's deliveries, newest (the
// highest change cursor) first.
type DeliveryQuery struct {
	WebhookID string
	// Before, when set, keeps the deliveries of changes before it.
	Before *ChangeCursor
	// Status, when set, keeps the deliveries in it.
	Status DeliveryStatus
	// Limit is the most deliveries answered (above 0).
	Limit int
}

// WebhookStore keeps webhooks and their deliveries. A delivery is one
// change of the feed (its Change.Seq a ChangeCursor) to one webhook;
// the store orders a webhook's deliveries by that cursor.
type WebhookStore interface {
	// CreateWebhook stores a new webhook. CodeConflict when its id exists.
	CreateWebhook(ctx context.Context, w StoredWebhook) error
	// GetWebhook returns a webhook. Inside WithTx it holds the webhook
	// until the transaction ends: GetWebhook of it in another
	// transaction waits (a compare-and-set of its cursor, a count of its
	// failures). CodeNotFound when there is none.
	GetWebhook(ctx context.Context, id string) (StoredWebhook, error)
	// ListWebhooks returns account's webhooks ("" every account's),
	// oldest first; enabledOnly keeps the enabled ones.
	ListWebhooks(ctx context.Context, account string, enabledOnly bool) ([]StoredWebhook, error)
	// UpdateWebhook replaces what a webhook holds but its id, account
	// and creation time. CodeNotFound when there is none.
	UpdateWebhook(ctx context.Context, w StoredWebhook) error
	// DeleteWebhook removes a webhook and its deliveries. CodeNotFound
	// when there is none.
	DeleteWebhook(ctx context.Context, id string) error

	// AddDeliveries stores pending deliveries, each due at its
	// NextAttempt, without attempts. One whose webhook already has a
	// delivery of its change (the same Change.Seq) is left out, so a
	// change materialized twice makes one delivery. It returns how many
	// it stored.
	AddDeliveries(ctx context.Context, ds []Delivery) (int, error)
	// ClaimDeliveries gives owner, until until, at most limit deliveries
	// that are due: pending, NextAttempt at or before now, not claimed
	// or claimed until before now, of an enabled webhook, and with no
	// earlier pending delivery of the same webhook and record (in order
	// per record). Each one's Attempts counts this one. With
	// Features.ConcurrentBatchClaims several instances claim at once,
	// never the same delivery.
	ClaimDeliveries(ctx context.Context, owner string, now, until time.Time, limit int) ([]ClaimedDelivery, error)
	// FinishAttempt records the outcome of an attempt of a delivery
	// o.Owner claimed and ends the claim. CodeConflict when o.Owner no
	// longer holds it (its claim was taken over, or it is gone).
	FinishAttempt(ctx context.Context, o DeliveryOutcome) error
	// ReleaseDelivery ends owner's claim of a delivery without an
	// attempt (its sender stopped), its Attempts as before the claim.
	ReleaseDelivery(ctx context.Context, webhookID, id, owner string) error
	// GetDelivery returns one delivery of a webhook. CodeNotFound when
	// the webhook has none of that id.
	GetDelivery(ctx context.Context, webhookID, id string) (Delivery, error)
	// ListDeliveries returns the deliveries q selects, newest first.
	ListDeliveries(ctx context.Context, q DeliveryQuery) ([]Delivery, error)
	// RetryDelivery makes a delivery that was delivered or failed
	// pending again, due at at, without attempts or GiveUp; a pending
	// one is only made due at at (its attempts and claim stay).
	// CodeNotFound when the webhook has none of that id.
	RetryDelivery(ctx context.Context, webhookID, id string, at time.Time) (Delivery, error)
	// FailPendingDeliveries sets the pending deliveries of a webhook
	// failed at at, with reason as their last error (a disabled webhook
	// gives them up), and returns how many.
	FailPendingDeliveries(ctx context.Context, webhookID string, at time.Time, reason string) (int, error)
	// PurgeDeliveries removes at most limit deliveries that were
	// delivered or failed before before, and returns how many.
	PurgeDeliveries(ctx context.Context, before time.Time, limit int) (int, error)
}
