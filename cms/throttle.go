package cms

import (
	"context"
	"net/netip"
	"time"
)

// knownAddressAge is how long an address a user logged in from stays
// known to the user: past Options.LoginUserCeiling, only known addresses
// may still try.
const knownAddressAge = 30 * 24 * time.Hour

// throttleAddress is the address login throttling counts a client under:
// an IPv4 address as is (IPv4-mapped IPv6 too), an IPv6 address as its
// /64 (one subscriber's network, which can hold any number of
// addresses), and "" for no address (the zero netip.Addr).
func throttleAddress(client netip.Addr) string {
	if !client.IsValid() {
		return ""
	}
	client = client.Unmap().WithZone("")
	if client.Is4() {
		return client.String()
	}
	p, _ := client.Prefix(64) // cannot fail for 64 bits of an IPv6 address
	return p.String()
}

// reserveLogin counts an attempt of username from address as a failure
// before its password is checked, or refuses it: CodeTooMany with a
// *ThrottledError when the pair has Options.LoginAttempts failures in the
// window, or when the username has Options.LoginUserCeiling over all
// addresses and this one is not known. Attempts of one username are
// decided one at a time on every instance.
func (s *Service) reserveLogin(ctx context.Context, username, address string, now time.Time) error {
	attempt := LoginAttempt{Username: username, Address: address, At: now,
		// A failure exactly one window old has left it (stores keep
		// microseconds, and count failures at or after Since).
		Since:        now.Add(-s.opts.LoginWindow + time.Microsecond),
		AddressLimit: s.opts.LoginAttempts, UserLimit: s.opts.LoginUserCeiling,
		KnownSince: now.Add(-knownAddressAge)}
	var r LoginReservation
	err := s.inTx(ctx, func(tx Store) error {
		var err error
		r, err = tx.ReserveLogin(ctx, attempt)
		return err
	})
	if err != nil || r.Allowed {
		return err
	}
	wait := r.HeldBy.Add(s.opts.LoginWindow).Sub(now)
	return &Error{Code: CodeTooMany, Message: "Too many attempts", Err: &ThrottledError{RetryAfter: max(wait, time.Second)}}
}

// releaseLogin forgets the reservation of an attempt whose password was
// not checked. Failing here leaves one failure counted too many, which
// the window forgets: logged, not returned.
func (s *Service) releaseLogin(ctx context.Context, username, address string, at time.Time) {
	if err := s.inTx(ctx, func(tx Store) error { return tx.ReleaseLogin(ctx, username, address, at) }); err != nil {
		s.log.WarnContext(ctx, "cms: releasing a login attempt", "user", username, "err", err)
	}
}

// loginSucceeded resets the failures of the pair and keeps the address as
// known to the user.
func (s *Service) loginSucceeded(ctx context.Context, username, address string, now time.Time) error {
	return s.inTx(ctx, func(tx Store) error { return tx.LoginSucceeded(ctx, username, address, now) })
}

// UnlockUser clears a user's failed logins from every address, so the
// user may log in at once from anywhere. The addresses the user is known
// from stay known. CodeNotFound when the Credentials do not know the
// user.
func (s *Service) UnlockUser(ctx context.Context, name string) error {
	if _, err := s.creds.Lookup(ctx, name); err != nil {
		return err
	}
	return s.inTx(ctx, func(tx Store) error { return tx.ResetLoginFailures(ctx, name) })
}
