package bunstore

import (
	"context"
	"time"

	"github.com/bwcms/cms/cms"
)

type tokenRow struct {
	Hash          []byte `bun:"hash"`
	Family        string `bun:"family"`
	Parent        []byte `bun:"parent"`
	Username      string `bun:"username"`
	Account       string `bun:"account"`
	Issued        int64  `bun:"issued"`
	Expires       int64  `bun:"expires"`
	FamilyExpires int64  `bun:"family_expires"`
	UsedAt        *int64 `bun:"used_at"`
	RevokedAt     *int64 `bun:"revoked_at"`
}

// CreateRefreshToken implements cms.Store.
func (s *Store) CreateRefreshToken(ctx context.Context, t cms.RefreshToken) error {
	n, err := s.exec(ctx, "INSERT INTO refresh_tokens (hash, family, parent, username, account, issued, expires, "+
		"family_expires, used_at, revoked_at) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?) ON CONFLICT (hash) DO NOTHING",
		t.Hash, t.Family, t.Parent, t.User, t.Account, micros(t.Issued), micros(t.Expires), micros(t.FamilyExpires),
		nullMicros(t.Used), nullMicros(t.Revoked))
	if err == nil && n == 0 {
		err = conflict("refresh token exists")
	}
	return err
}

// GetRefreshToken implements cms.Store.
func (s *Store) GetRefreshToken(ctx context.Context, hash []byte) (cms.RefreshToken, error) {
	var rows []tokenRow
	err := s.scan(ctx, s.read, &rows, "SELECT "+tokenColumns+" FROM refresh_tokens WHERE hash = ?", hash)
	if err != nil {
		return cms.RefreshToken{}, s.fail(err)
	}
	if len(rows) == 0 {
		return cms.RefreshToken{}, notFound("refresh token")
	}
	return rows[0].token(), nil
}

const tokenColumns = "hash, family, parent, username, account, issued, expires, family_expires, used_at, revoked_at"

func (r tokenRow) token() cms.RefreshToken {
	return cms.RefreshToken{Hash: r.Hash, Family: r.Family, Parent: r.Parent, User: r.Username, Account: r.Account,
		Issued: fromMicros(r.Issued), Expires: fromMicros(r.Expires), FamilyExpires: fromMicros(r.FamilyExpires),
		Used: fromNullMicros(r.UsedAt), Revoked: fromNullMicros(r.RevokedAt)}
}

// SpendRefreshToken implements cms.Store: one conditional update, so of
// concurrent calls exactly one changes the row.
func (s *Store) SpendRefreshToken(ctx context.Context, hash []byte, at time.Time) (bool, error) {
	n, err := s.exec(ctx, "UPDATE refresh_tokens SET used_at = ? WHERE hash = ? AND used_at IS NULL AND revoked_at IS NULL",
		micros(at), hash)
	return n == 1, err
}

// SpendLiveRefreshTokens implements cms.Store.
func (s *Store) SpendLiveRefreshTokens(ctx context.Context, family string, at time.Time) error {
	_, err := s.exec(ctx, "UPDATE refresh_tokens SET used_at = ? WHERE family = ? AND used_at IS NULL AND revoked_at IS NULL",
		micros(at), family)
	return err
}

// LiveRefreshTokens implements cms.Store.
func (s *Store) LiveRefreshTokens(ctx context.Context, family string) ([]cms.RefreshToken, error) {
	var rows []tokenRow
	err := s.scan(ctx, s.read, &rows, "SELECT "+tokenColumns+" FROM refresh_tokens "+
		"WHERE family = ? AND used_at IS NULL AND revoked_at IS NULL", family)
	if err != nil {
		return nil, s.fail(err)
	}
	out := make([]cms.RefreshToken, len(rows))
	for i, r := range rows {
		out[i] = r.token()
	}
	return out, nil
}

// LockUserTokens implements cms.Store.
func (s *Store) LockUserTokens(ctx context.Context, user string) error {
	if !s.inTx || s.opts.TokenLock == "" {
		return nil
	}
	_, err := s.exec(ctx, s.opts.TokenLock, user)
	return err
}

// RevokeFamily implements cms.Store.
func (s *Store) RevokeFamily(ctx context.Context, family string, at time.Time) error {
	_, err := s.exec(ctx, "UPDATE refresh_tokens SET revoked_at = ? WHERE family = ? AND revoked_at IS NULL", micros(at), family)
	return err
}

// RevokeUserTokens implements cms.Store.
func (s *Store) RevokeUserTokens(ctx context.Context, user string, at time.Time) error {
	_, err := s.exec(ctx, "UPDATE refresh_tokens SET revoked_at = ? WHERE username = ? AND revoked_at IS NULL", micros(at), user)
	return err
}

// PurgeRefreshTokens implements cms.Store.
func (s *Store) PurgeRefreshTokens(ctx context.Context, before time.Time) (int, error) {
	n, err := s.exec(ctx, "DELETE FROM refresh_tokens WHERE family_expires < ?", micros(before))
	return int(n), err
}
