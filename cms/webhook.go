package cms

import (
	"context"
	"time"
)

// Webhook is an account's subscription of an address to its changes
// (DECISIONS §18). Its secret is never read back: it is answered once,
// by CreateWebhook (when the service made it) and by nothing else.
type Webhook struct {
	ID      string
	Account string
	URL     string
	// Events are "<kind>.<op>" names ("resource.upsert", "map.delete") or
	// "*" for every change the webhook's user may read.
	Events []string
	// User is the user the webhook acts for: it carries only the kinds
	// that user may read, checked at every delivery. A webhook whose
	// user is deleted or disabled is disabled.
	User    string
	Enabled bool
	// Disabled says why the webhook was disabled by the service ("5
	// failed deliveries in a row", "user disabled"); empty when enabled
	// or disabled by a user.
	Disabled string
	// FailedInRow counts the deliveries that failed since the last one
	// delivered.
	FailedInRow int
	Created     time.Time
	Updated     time.Time
}

// WebhookInput is what CreateWebhook and UpdateWebhook are given: a nil
// field is left as it is (at creation: URL is required, Events default
// to "*", Secret is made by the service, Enabled is true).
type WebhookInput struct {
	URL     *string
	Events  []string
	Secret  *string
	Enabled *bool
}

// DeliveryStatus is the state of one delivery.
type DeliveryStatus string

// The states of a delivery: pending (waiting for its turn or for its
// next attempt), delivered (a 2xx answer), failed (retried past
// WebhookRetryFor, or given up by the webhook's deletion or disabling).
const (
	DeliveryPending   DeliveryStatus = "pending"
	DeliveryDelivered DeliveryStatus = "delivered"
	DeliveryFailed    DeliveryStatus = "failed"
)

// Delivery is the message of one change to one webhook and what became
// of it.
type Delivery struct {
	// ID is the message's id, the webhook-id header: the same at every
	// attempt, so receivers drop repeats by it.
	ID        string
	WebhookID string
	Change    FeedChange
	Status    DeliveryStatus
	Attempts  int
	// NextAttempt is when a pending delivery is tried next.
	NextAttempt time.Time
	// LastStatus is the HTTP status of the last attempt (0: no answer),
	// LastError what went wrong without one, Response at most
	// MaxDeliveryResponse bytes of the last answer's body.
	LastStatus int
	LastError  string
	Response   string
	Created    time.Time
	// Finished is when it was delivered or failed.
	Finished time.Time
}

// MaxDeliveryResponse is how much of an answer's body the delivery log
// keeps.
const MaxDeliveryResponse = 4 << 10

// WebhookMessage is one attempt of a delivery, for a WebhookSender.
type WebhookMessage struct {
	// ID is the webhook-id; Timestamp the webhook-timestamp.
	ID        string
	Timestamp time.Time
	URL       string
	// Body is the JSON message: the change's metadata.
	Body []byte
	// Secrets sign the message ("whsec_" + base64), the current first;
	// after a change of secret the previous one too, for 24 hours.
	Secrets []string
}

// WebhookAttempt is what one attempt gave.
type WebhookAttempt struct {
	// Status is the answer's HTTP status, 0 when none came.
	Status int
	// Response is the start of the answer's body, at most
	// MaxDeliveryResponse bytes.
	Response []byte
	// Err says why no answer came (refused address, timeout, ...).
	Err error
}

// WebhookSender sends the messages of webhooks: package webhook's Sender
// does it over HTTP, signed as Standard Webhooks, with the address rules
// of DECISIONS §18. cms knows no HTTP; Options.WebhookSender plugs it in.
type WebhookSender interface {
	Send(ctx context.Context, m WebhookMessage) WebhookAttempt
}

// WebhookStore keeps webhooks and their deliveries. (Its methods are
// declared where they are implemented: webhookstore.go.)
