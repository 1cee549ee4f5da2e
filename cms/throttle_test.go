package cms_test

import (
	"context"
	"errors"
	"net/netip"
	"testing"
	"time"

	"github.com/bwcms/cms/cms"
)

// TestLoginThrottling: failures count per username and address (an IPv4
// address, an IPv6 /64), an unlock and a password change clear them, and
// past the username's ceiling only known addresses may try.
func TestLoginThrottling(t *testing.T) {
	t.Parallel()
	ctx := t.Context()
	now := time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)
	_, st := openService(t, cheap, nil)
	svc, err := cms.NewService(st, &cms.Options{Passwords: cheap, Now: func() time.Time { return now },
		LoginAttempts: 2, LoginUserCeiling: 7})
	if err != nil {
		t.Fatal(err)
	}
	en, _ := cms.NewLanguages("en")
	if err := svc.CreateAccount(ctx, "acme", en); err != nil {
		t.Fatal(err)
	}
	if err := svc.CreateUser(ctx, cms.NewUser{Name: "ann", Account: "acme", Password: "long enough"}); err != nil {
		t.Fatal(err)
	}
	login := func(addr, password string) error {
		t.Helper()
		var a netip.Addr
		if addr != "" {
			a = netip.MustParseAddr(addr)
		}
		_, err := svc.Login(ctx, "ann", password, a)
		return err
	}
	fail := func(addr string, want cms.Code) {
		t.Helper()
		if err := login(addr, "wrong password"); cms.ErrorCode(err) != want {
			t.Fatalf("a wrong password from %q: %v, want %s", addr, err, want)
		}
	}
	wantThrottled := func(addr string, wait time.Duration) {
		t.Helper()
		err := login(addr, "long enough")
		if got, ok := cms.IsThrottled(err); !ok || got != wait {
			t.Fatalf("the right password from %q: %v (wait %v), want throttled for %v", addr, err, got, wait)
		}
	}

	// One IPv6 /64 is one address; the zero address is one too; an
	// IPv4-mapped address is the IPv4 address.
	for _, pair := range [][2]string{{"2001:db8:1:2::1", "2001:db8:1:2:ffff::9"}, {"", ""}, {"192.0.2.7", "::ffff:192.0.2.7"}} {
		fail(pair[0], cms.CodeUnauthorized)
		now = now.Add(time.Minute)
		fail(pair[1], cms.CodeUnauthorized)
		wantThrottled(pair[0], 14*time.Minute)
	}
	// Another /64 counts apart, and the right password logs in from it.
	if err := login("2001:db8:1:3::1", "long enough"); err != nil {
		t.Fatalf("another /64: %v", err)
	}
	// An unlock clears every address's count.
	if err := svc.UnlockUser(ctx, "ann"); err != nil {
		t.Fatal(err)
	}
	if err := login("192.0.2.7", "long enough"); err != nil {
		t.Fatalf("after the unlock: %v", err)
	}
	if err := svc.UnlockUser(ctx, "ghost"); cms.ErrorCode(err) != cms.CodeNotFound {
		t.Errorf("UnlockUser of an unknown user: %v", err)
	}
	// So does a password change.
	fail("198.51.100.1", cms.CodeUnauthorized)
	fail("198.51.100.1", cms.CodeUnauthorized)
	wantThrottled("198.51.100.1", 15*time.Minute)
	if err := svc.SetPassword(ctx, "ann", "long enough"); err != nil {
		t.Fatal(err)
	}
	if err := login("198.51.100.1", "long enough"); err != nil {
		t.Fatalf("after the password change: %v", err)
	}

	// Past the ceiling (7 failures over all addresses), an unknown
	// address is refused before its password is checked, until the
	// oldest failure leaves the window; known ones still log in.
	for i := range 7 {
		fail(netip.AddrFrom4([4]byte{203, 0, 113, byte(i)}).String(), cms.CodeUnauthorized)
		now = now.Add(time.Second)
	}
	wantThrottled("203.0.113.200", 15*time.Minute-7*time.Second)
	for _, known := range []string{"192.0.2.7", "2001:db8:1:3::2", "198.51.100.1"} {
		if err := login(known, "long enough"); err != nil {
			t.Errorf("a known address past the ceiling (%s): %v", known, err)
		}
	}
	now = now.Add(15*time.Minute - 7*time.Second)
	if err := login("203.0.113.200", "long enough"); err != nil {
		t.Errorf("once a failure left the window: %v", err)
	}
}

// brokenCredentials fails every check for a reason of the system's.
type brokenCredentials struct{}

func (brokenCredentials) Authenticate(context.Context, string, string) (cms.Identity, error) {
	return cms.Identity{}, cms.Unavailable(errors.New("user directory unreachable"))
}

func (brokenCredentials) Lookup(context.Context, string) (cms.Identity, error) {
	return cms.Identity{}, cms.Unavailable(errors.New("user directory unreachable"))
}

// TestLoginNotJudgedCountsNothing: an attempt whose password could not be
// checked (the credential check failed for a reason of the system's) is
// no failure: retried past the limit, it is never throttled.
func TestLoginNotJudgedCountsNothing(t *testing.T) {
	t.Parallel()
	_, st := openService(t, cheap, nil)
	svc, err := cms.NewService(st, &cms.Options{Passwords: cheap, LoginAttempts: 2, Credentials: brokenCredentials{}})
	if err != nil {
		t.Fatal(err)
	}
	client := netip.MustParseAddr("192.0.2.7")
	for i := range 5 {
		if _, err := svc.Login(t.Context(), "ann", "long enough", client); cms.ErrorCode(err) != cms.CodeUnavailable {
			t.Fatalf("attempt %d: %v, want CodeUnavailable", i+1, err)
		}
	}
	if n, _, err := st.LoginFailures(t.Context(), "ann", time.Time{}); err != nil || n != 0 {
		t.Errorf("failures counted: %d, %v; want 0", n, err)
	}
}
