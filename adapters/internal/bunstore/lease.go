package bunstore

import (
	"context"
	"time"
)

// TakeLease implements cms.Store in one statement: the row is inserted,
// or taken over where it has expired or owner holds it, all by the
// database's clock (Options.ClockMicros); a row changed means owner holds
// the lease. Two takers at once are ordered by the row's lock: the second
// sees the first's lease unexpired and changes nothing.
func (s *Store) TakeLease(ctx context.Context, name, owner string, ttl time.Duration) (bool, error) {
	now := s.opts.ClockMicros
	n, err := s.exec(ctx, "INSERT INTO leases (name, owner, expires) VALUES (?, ?, "+now+" + ?) "+
		"ON CONFLICT (name) DO UPDATE SET owner = excluded.owner, expires = excluded.expires "+
		"WHERE leases.expires <= "+now+" OR leases.owner = excluded.owner",
		name, owner, ttl.Microseconds())
	return n == 1, err
}

// ReleaseLease implements cms.Store.
func (s *Store) ReleaseLease(ctx context.Context, name, owner string) error {
	_, err := s.exec(ctx, "DELETE FROM leases WHERE name = ? AND owner = ?", name, owner)
	return err
}

// Cursor implements cms.Store.
func (s *Store) Cursor(ctx context.Context, name string) (string, error) {
	var values []string
	if err := s.scan(ctx, s.read, &values, "SELECT value FROM cursors WHERE name = ?", name); err != nil {
		return "", err
	}
	if len(values) == 0 {
		return "", nil
	}
	return values[0], nil
}

// SetCursor implements cms.Store in one statement that writes only while
// owner holds name's lease unexpired. On PostgreSQL the lease's row is
// held shared (Options.ShareLock) until the statement ends, so a
// takeover waits for it, or it for the takeover, and then sees the new
// owner.
func (s *Store) SetCursor(ctx context.Context, name, owner, value string) error {
	held := "SELECT 1 FROM leases WHERE name = ? AND owner = ? AND expires > " + s.opts.ClockMicros
	if s.opts.ShareLock != "" {
		held += " " + s.opts.ShareLock
	}
	n, err := s.exec(ctx, "INSERT INTO cursors (name, value) SELECT ?, ? WHERE EXISTS ("+held+") "+
		"ON CONFLICT (name) DO UPDATE SET value = excluded.value", name, value, name, owner)
	if err == nil && n == 0 {
		err = conflict("lease " + name + " is not held by " + owner)
	}
	return err
}
