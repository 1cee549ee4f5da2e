package cms

import "context"

// The steps of webhook delivery, for the tests of package cms_test to
// run one at a time under their clock instead of Run's polling.

// MaterializeWebhooks makes the deliveries of every enabled webhook's new
// changes, once.
func (s *Service) MaterializeWebhooks(ctx context.Context) error { return s.materializeWebhooks(ctx) }

// SendWebhooks sends the due deliveries as owner, one at a time, until
// none is due, and returns how many it attempted.
func (s *Service) SendWebhooks(ctx context.Context, owner string) (int, error) {
	n := 0
	for {
		did, err := s.sendOne(ctx, owner)
		if err != nil || !did {
			return n, err
		}
		n++
	}
}

// ClaimWebhookDeliveries claims at most n due deliveries for owner, as a
// sender does, and does nothing with them (an instance killed after its
// claim).
func (s *Service) ClaimWebhookDeliveries(ctx context.Context, owner string, n int) ([]ClaimedDelivery, error) {
	now := s.Now()
	return s.store.ClaimDeliveries(ctx, owner, now, now.Add(webhookLease), n)
}

// WebhookLease is how long a claim holds a delivery.
const WebhookLease = webhookLease
