package cms

import (
	"context"
	"crypto/sha256"
	"encoding/base64"
	"errors"
	"fmt"
	"io"
	"net/netip"
	"slices"
	"time"
)

// Session is what a login or a refresh gives: the principal for the access
// token and a new refresh token.
type Session struct {
	// Principal is the user the access token is for.
	Principal Principal
	// RefreshToken is the opaque value for the client; only its SHA-256 is
	// stored.
	RefreshToken string
	// RefreshExpires is when it stops working unused: the idle expiry or
	// the family's absolute expiry, whichever comes first.
	RefreshExpires time.Time
	// RefreshIssued is when it was made: RefreshExpires - RefreshIssued is
	// its lifetime, whatever time the answer takes to leave.
	RefreshIssued time.Time
}

// ThrottledError is the cause of a CodeTooMany login refusal.
type ThrottledError struct {
	// RetryAfter is how long until the username may try again from the
	// address.
	RetryAfter time.Duration
}

// Error says that logins are throttled and for how long.
func (e *ThrottledError) Error() string {
	return fmt.Sprintf("too many failed logins; retry after %s", e.RetryAfter)
}

// errUnauthorized is a new 401 each time: an error handed to a caller is
// theirs to change.
func errUnauthorized() error { return &Error{Code: CodeUnauthorized, Message: "Unauthorized"} }

// refreshTokenBytes is 256 bits, base64url without padding: 43 characters.
const (
	refreshTokenBytes  = 32
	refreshTokenLength = 43
)

// Login checks a username and password from a client address and starts
// a refresh family. CodeUnauthorized for an unknown user, a wrong
// password or a disabled user, all alike.
//
// Each attempt counts as a failed login of the username from the client's
// address before its password is checked, and a success clears that
// pair's failures. An address is an IPv4 address or an IPv6 /64; the
// zero netip.Addr is one address like any other. CodeTooMany, with a
// *ThrottledError cause, after Options.LoginAttempts failures of the pair
// within Options.LoginWindow, or, from an address the user has not logged
// in from in the last 30 days, after Options.LoginUserCeiling failures of
// the username over all addresses.
func (s *Service) Login(ctx context.Context, username, password string, client netip.Addr) (*Session, error) {
	sess, err := s.login(ctx, username, password, client)
	if _, throttled := IsThrottled(err); throttled || ErrorCode(err) == CodeUnauthorized {
		s.opts.Observer.LoginRefused(throttled)
	}
	return sess, err
}

func (s *Service) login(ctx context.Context, username, password string, client netip.Addr) (*Session, error) {
	if !ValidUsername(username) || len(password) > MaxPasswordLength {
		// No such user can exist; spend the same time anyway.
		if err := s.hasher.burn(ctx, password[:min(len(password), MaxPasswordLength)]); err != nil {
			return nil, err
		}
		return nil, errUnauthorized()
	}
	now := s.Now()
	address := throttleAddress(client)
	if err := s.reserveLogin(ctx, username, address, now); err != nil {
		return nil, err
	}
	id, err := s.creds.Authenticate(ctx, username, password)
	if err == nil && id.Disabled {
		err = errUnauthorized()
	}
	if ErrorCode(err) == CodeUnauthorized {
		return nil, errUnauthorized() // the reservation stays, as the failure
	}
	if err != nil {
		// The password was not judged (the store unreachable, the caller
		// gone while waiting to hash): no failure to count against the
		// user, who retries.
		s.releaseLogin(context.WithoutCancel(ctx), username, address, now)
		return nil, err
	}
	if err := s.loginSucceeded(ctx, username, address, now); err != nil {
		return nil, err
	}
	p, err := s.principal(ctx, username, id)
	if err != nil {
		return nil, err
	}
	family, err := s.randomHex(16)
	if err != nil {
		return nil, err
	}
	token, rt, err := s.newRefreshToken(family, nil, p, now, now.Add(s.opts.RefreshLifetime))
	if err != nil {
		return nil, err
	}
	if err := s.openFamily(ctx, username, id, rt); err != nil {
		return nil, err
	}
	return &Session{Principal: p, RefreshToken: token, RefreshExpires: rt.Expires, RefreshIssued: rt.Issued}, nil
}

// openFamily stores a login's first refresh token. For a user kept in the
// Store it does so under the user's token lock and only while the
// password hash the login checked is still the user's and the user is not
// disabled: a password change, disable or delete that commits while the
// login runs either is seen here (401) or revokes the new family when it
// takes the lock after it.
func (s *Service) openFamily(ctx context.Context, username string, id Identity, rt RefreshToken) error {
	if id.verified == "" {
		return s.store.CreateRefreshToken(ctx, rt)
	}
	return s.inTx(ctx, func(tx Store) error {
		if err := tx.LockUserTokens(ctx, username); err != nil {
			return err
		}
		u, err := tx.GetUser(ctx, username)
		switch {
		case ErrorCode(err) == CodeNotFound:
			return errUnauthorized()
		case err != nil:
			return err
		case u.PasswordHash != id.verified || u.Disabled:
			return errUnauthorized()
		}
		return tx.CreateRefreshToken(ctx, rt)
	})
}

// Refresh spends a refresh token and gives a new one of the same family
// with the user's current permissions. Presenting a spent token again
// revokes the whole family, unless it was spent less than
// Options.RefreshGrace ago. CodeUnauthorized for any token that does not
// work, and for a user who is gone or disabled.
//
// A rotation spends the token's siblings with it (the tokens handed to
// replays within the grace), so a family has one chain of live tokens.
// Rotations and revocations of a user's tokens take the user's token lock
// (Store.LockUserTokens) first: a logout or a password change never
// misses the successor of a rotation in flight, on any database.
func (s *Service) Refresh(ctx context.Context, token string) (*Session, error) {
	hash, ok := refreshHash(token)
	if !ok {
		return nil, errUnauthorized()
	}
	rt, err := s.store.GetRefreshToken(ctx, hash)
	if ErrorCode(err) == CodeNotFound {
		return nil, errUnauthorized()
	}
	if err != nil {
		return nil, err
	}
	now := s.Now()
	if !rt.Revoked.IsZero() || !now.Before(rt.Expires) || !now.Before(rt.FamilyExpires) {
		return nil, errUnauthorized()
	}
	id, err := s.creds.Lookup(ctx, rt.User)
	if ErrorCode(err) == CodeNotFound || err == nil && (id.Disabled || id.Account != rt.Account) {
		return nil, s.revoke(ctx, rt, now)
	}
	if err != nil {
		return nil, err
	}
	p, err := s.principal(ctx, rt.User, id)
	if err != nil {
		return nil, err
	}
	if !rt.Used.IsZero() {
		return s.refreshSpent(ctx, rt, p, now)
	}
	var sess *Session
	err = s.inTx(ctx, func(tx Store) error {
		sess = nil
		if err := tx.LockUserTokens(ctx, rt.User); err != nil {
			return err
		}
		// Conditional: a revocation committed before the lock was had
		// leaves nothing to spend.
		spent, err := tx.SpendRefreshToken(ctx, hash, now)
		if err != nil || !spent {
			return err
		}
		if err := tx.SpendLiveRefreshTokens(ctx, rt.Family, now); err != nil {
			return err
		}
		sess, err = s.issue(ctx, tx, rt, rt.Hash, p, now)
		return err
	})
	if err != nil {
		return nil, err
	}
	if sess == nil { // spent (or revoked) by another call first
		if rt, err = s.store.GetRefreshToken(ctx, hash); err != nil {
			return nil, err
		}
		return s.refreshSpent(ctx, rt, p, now)
	}
	return sess, nil
}

// refreshSpent answers a token already spent: inside the grace period, a
// fresh token of the family; otherwise reuse, which revokes the family.
//
// The fresh token joins the family's live tokens as their sibling (the
// same parent), whichever generation they are: rotating any one of them
// spends the rest, so replays never fork the family into chains.
func (s *Service) refreshSpent(ctx context.Context, rt RefreshToken, p Principal, now time.Time) (*Session, error) {
	if !rt.Revoked.IsZero() || s.opts.RefreshGrace <= 0 || now.Sub(rt.Used) >= s.opts.RefreshGrace {
		s.log.WarnContext(ctx, "cms: refresh token reused; family revoked", "user", rt.User, "family", rt.Family)
		return nil, s.revoke(ctx, rt, now)
	}
	var sess *Session
	err := s.inTx(ctx, func(tx Store) error {
		sess = nil
		if err := tx.LockUserTokens(ctx, rt.User); err != nil {
			return err
		}
		// Read again under the lock: a revocation that ran since is seen.
		cur, err := tx.GetRefreshToken(ctx, rt.Hash)
		if err != nil || !cur.Revoked.IsZero() {
			return err
		}
		live, err := tx.LiveRefreshTokens(ctx, rt.Family)
		if err != nil {
			return err
		}
		parent := rt.Hash
		if len(live) > 0 && live[0].Parent != nil {
			parent = live[0].Parent
		}
		sess, err = s.issue(ctx, tx, rt, parent, p, now)
		return err
	})
	if err != nil {
		return nil, err
	}
	if sess == nil { // the family was revoked meanwhile
		return nil, errUnauthorized()
	}
	return sess, nil
}

// issue stores a new token of rt's family, child of parent.
func (s *Service) issue(ctx context.Context, st Store, rt RefreshToken, parent []byte, p Principal, now time.Time) (*Session, error) {
	token, next, err := s.newRefreshToken(rt.Family, parent, p, now, rt.FamilyExpires)
	if err != nil {
		return nil, err
	}
	if err := st.CreateRefreshToken(ctx, next); err != nil {
		return nil, err
	}
	return &Session{Principal: p, RefreshToken: token, RefreshExpires: next.Expires, RefreshIssued: next.Issued}, nil
}

// revoke revokes rt's family and returns the refusal to give.
func (s *Service) revoke(ctx context.Context, rt RefreshToken, now time.Time) error {
	if err := s.revokeFamily(ctx, rt, now); err != nil {
		return err
	}
	return errUnauthorized()
}

// revokeFamily revokes rt's family under its user's token lock, so that
// a rotation in flight either commits first (and its successor is
// revoked here) or finds the family revoked.
func (s *Service) revokeFamily(ctx context.Context, rt RefreshToken, now time.Time) error {
	return s.inTx(ctx, func(tx Store) error {
		if err := tx.LockUserTokens(ctx, rt.User); err != nil {
			return err
		}
		return tx.RevokeFamily(ctx, rt.Family, now)
	})
}

// Logout revokes the family of a refresh token. An empty, unknown or
// spent token is no error: logging out always succeeds.
func (s *Service) Logout(ctx context.Context, token string) error {
	hash, ok := refreshHash(token)
	if !ok {
		return nil
	}
	rt, err := s.store.GetRefreshToken(ctx, hash)
	if ErrorCode(err) == CodeNotFound {
		return nil
	}
	if err != nil {
		return err
	}
	return s.revokeFamily(ctx, rt, s.Now())
}

// CheckPrincipal confirms that the user of an access token may still act:
// it exists, belongs to the token's account and is not disabled. The
// answer is remembered for Options.UserRecheck. CodeUnauthorized when it
// may not.
func (s *Service) CheckPrincipal(ctx context.Context, p Principal) error {
	now := s.Now()
	st, ok := s.users.get(p.User, now)
	if !ok {
		id, err := s.creds.Lookup(ctx, p.User)
		switch {
		case ErrorCode(err) == CodeNotFound:
			st = userState{}
		case err != nil:
			return err
		default:
			st = userState{account: id.Account, ok: !id.Disabled, since: id.Since}
		}
		st.at = now
		s.users.put(p.User, st)
	}
	if !st.ok || st.account != p.Account {
		return errUnauthorized()
	}
	// iat has whole seconds, and instances' clocks differ a little: a
	// token issued up to sinceSkew before the user was made is taken as
	// the user's (no former user's token can be that young in practice).
	if !p.Issued.IsZero() && p.Issued.Before(st.since.Add(-sinceSkew).Truncate(time.Second)) {
		return errUnauthorized() // a former user's of the same name
	}
	return nil
}

// sinceSkew is how much earlier than its user's creation a token may say
// it was issued and still be the user's: the clocks of instances on one
// database differ by that much at most.
const sinceSkew = 5 * time.Second

// principal builds the principal of a user from its identity and its
// account's languages.
func (s *Service) principal(ctx context.Context, username string, id Identity) (Principal, error) {
	acc, err := s.store.GetAccount(ctx, id.Account)
	if err != nil {
		return Principal{}, fmt.Errorf("cms: account %q of user %s: %w", id.Account, username, err)
	}
	perms := id.Perms
	if perms == nil {
		perms = []string{}
	}
	return Principal{Account: acc.ID, User: username, Perms: slices.Clone(perms), Langs: acc.Langs}, nil
}

func (s *Service) newRefreshToken(family string, parent []byte, p Principal, now, familyExpires time.Time) (string, RefreshToken, error) {
	raw := make([]byte, refreshTokenBytes)
	if _, err := io.ReadFull(s.opts.Rand, raw); err != nil {
		return "", RefreshToken{}, fmt.Errorf("cms: refresh token: %w", err)
	}
	token := base64.RawURLEncoding.EncodeToString(raw)
	hash := sha256.Sum256([]byte(token))
	expires := now.Add(s.opts.RefreshIdle)
	if familyExpires.Before(expires) {
		expires = familyExpires
	}
	return token, RefreshToken{Hash: hash[:], Family: family, Parent: parent, User: p.User, Account: p.Account,
		Issued: now, Expires: expires, FamilyExpires: familyExpires}, nil
}

// refreshHash returns the stored form of a presented token; ok is false
// for anything that cannot be one of ours.
func refreshHash(token string) ([]byte, bool) {
	if len(token) != refreshTokenLength {
		return nil, false
	}
	if _, err := base64.RawURLEncoding.DecodeString(token); err != nil {
		return nil, false
	}
	h := sha256.Sum256([]byte(token))
	return h[:], true
}

// IsThrottled returns the wait of a CodeTooMany login refusal.
func IsThrottled(err error) (time.Duration, bool) {
	if t, ok := errors.AsType[*ThrottledError](err); ok {
		return t.RetryAfter, true
	}
	return 0, false
}
