package cms

import "context"

// Purge deletes what has expired: refresh-token families past their
// absolute lifetime, login failures older than the throttling window,
// addresses a user last logged in from more than 30 days ago, and finished batches older
// than Options.BatchRetention.
// Hosts call it now and then (the standalone server hourly); nothing
// depends on it for correctness, only the tables' size.
func (s *Service) Purge(ctx context.Context) error {
	now := s.Now()
	if _, err := s.store.PurgeRefreshTokens(ctx, now); err != nil {
		return err
	}
	if _, err := s.store.PurgeLoginFailures(ctx, now.Add(-s.opts.LoginWindow)); err != nil {
		return err
	}
	if _, err := s.store.PurgeKnownAddresses(ctx, now.Add(-knownAddressAge)); err != nil {
		return err
	}
	_, err := s.store.PurgeBatches(ctx, now.Add(-s.opts.BatchRetention))
	return err
}
