package cms

// WebhookStore keeps webhooks and their deliveries.
type WebhookStore interface{}
