package bunstore

import (
	"context"
	"errors"
	"time"
)

var errLeaseNotYet = errors.New("bunstore: leases not built yet")

// TakeLease implements cms.Store.
func (s *Store) TakeLease(ctx context.Context, name, owner string, ttl time.Duration) (bool, error) {
	return false, errLeaseNotYet
}

// ReleaseLease implements cms.Store.
func (s *Store) ReleaseLease(ctx context.Context, name, owner string) error { return errLeaseNotYet }

// Cursor implements cms.Store.
func (s *Store) Cursor(ctx context.Context, name string) (string, error) { return "", errLeaseNotYet }

// SetCursor implements cms.Store.
func (s *Store) SetCursor(ctx context.Context, name, owner, value string) error {
	return errLeaseNotYet
}
