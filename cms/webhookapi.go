package cms

import "context"

// CreateWebhook makes a webhook of the caller's account acting for the
// caller (webhook:write): in.URL required (http or https, at most 2,000
// characters, no user or password; an address on a private network is
// refused unless Options.WebhookAllowPrivate), in.Events known event
// names or "*" (default "*"), each naming a kind the caller may read. It
// answers the webhook and, when in.Secret was nil, the secret the service
// made ("whsec_" + base64 of 32 random bytes), once. Errors:
// CodeUnauthorized, CodeForbidden, CodeInvalid (Problems name the field).
func (s *Service) CreateWebhook(ctx context.Context, in WebhookInput) (Webhook, string, error) {
	return Webhook{}, "", errNotYet
}

// CreateWebhookFor is CreateWebhook for host code acting as the user
// named (the standalone server's "webhook add"): the webhook acts for
// that user, in that user's account. CodeNotFound when there is no such
// user.
func (s *Service) CreateWebhookFor(ctx context.Context, user string, in WebhookInput) (Webhook, string, error) {
	return Webhook{}, "", errNotYet
}

// Webhooks lists the caller's account's webhooks (webhook:read), oldest
// first.
func (s *Service) Webhooks(ctx context.Context) ([]Webhook, error) { return nil, errNotYet }

// AccountWebhooks lists account's webhooks ("" every account's) for host
// code.
func (s *Service) AccountWebhooks(ctx context.Context, account string) ([]Webhook, error) {
	return nil, errNotYet
}

// GetWebhook answers one webhook of the caller's account (webhook:read).
// CodeNotFound when there is none.
func (s *Service) GetWebhook(ctx context.Context, id string) (Webhook, error) {
	return Webhook{}, errNotYet
}

// UpdateWebhook changes a webhook of the caller's account (webhook:write):
// what in sets. A new secret keeps the old one signing beside it for 24
// hours. Enabling a webhook clears its failures. Errors as CreateWebhook,
// and CodeNotFound.
func (s *Service) UpdateWebhook(ctx context.Context, id string, in WebhookInput) (Webhook, error) {
	return Webhook{}, errNotYet
}

// DeleteWebhook removes a webhook and its deliveries (webhook:delete).
// CodeNotFound when there is none.
func (s *Service) DeleteWebhook(ctx context.Context, id string) error { return errNotYet }

// DeleteWebhookByID removes a webhook of any account, for host code
// (the standalone server's "webhook remove"). CodeNotFound.
func (s *Service) DeleteWebhookByID(ctx context.Context, id string) error { return errNotYet }

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

// WebhookDeliveries reads a webhook's delivery log (webhook:read).
// CodeNotFound when there is no such webhook.
func (s *Service) WebhookDeliveries(ctx context.Context, id string, p DeliveriesParams) (DeliveriesPage, error) {
	return DeliveriesPage{}, errNotYet
}

// RetryDelivery sends a delivery again (webhook:write): a failed one
// becomes pending with its attempts counted again from 0, due now; a
// delivered one is sent once more (receivers drop it by its id if they
// had it). CodeNotFound when the webhook has no such delivery.
func (s *Service) RetryDelivery(ctx context.Context, webhookID, deliveryID string) (Delivery, error) {
	return Delivery{}, errNotYet
}
