package bunstore

import "context"

// LockAccountWrites implements cms.Store.
func (s *Store) LockAccountWrites(ctx context.Context, account string) error {
	if !s.inTx || s.opts.AccountLock == "" {
		return nil
	}
	_, err := s.exec(ctx, s.opts.AccountLock, account)
	return err
}
