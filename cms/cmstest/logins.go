package cmstest

import (
	"fmt"
	"sync"
	"testing"
	"time"

	"github.com/bwcms/cms/cms"
)

// loginWindow is the throttling window of the suite's attempts.
const loginWindow = 15 * time.Minute

// loginAttempt is an attempt of name from address at at, with a window
// of 15 minutes, 3 failures per address, 5 per user over all addresses
// and addresses known for 30 days.
func loginAttempt(name, address string, at time.Time) cms.LoginAttempt {
	return cms.LoginAttempt{Username: name, Address: address, At: at, Since: at.Add(-loginWindow + time.Microsecond),
		AddressLimit: 3, UserLimit: 5, KnownSince: at.Add(-30 * 24 * time.Hour)}
}

// wantReserve reserves a and checks the verdict: allowed, or refused and
// held by the failure at heldBy.
func wantReserve(tb testing.TB, s cms.Store, a cms.LoginAttempt, allowed bool, heldBy time.Time, what string) {
	tb.Helper()
	r, err := s.ReserveLogin(tb.Context(), a)
	if err != nil {
		tb.Fatalf("%s: %v", what, err)
	}
	if r.Allowed != allowed || !sameTime(r.HeldBy, heldBy) {
		tb.Errorf("%s: %+v, want allowed %v held by %v", what, r, allowed, heldBy)
	}
}

// wantFailures checks LoginFailures of name over the whole time line.
func wantFailures(tb testing.TB, s cms.Store, name string, want int, what string) {
	tb.Helper()
	if n, _, err := s.LoginFailures(tb.Context(), name, time.Time{}); err != nil || n != want {
		tb.Errorf("%s: %s has %d failures, %v; want %d", what, name, n, err, want)
	}
}

func testLogins(t *testing.T, open func(t *testing.T) cms.Store) {
	t.Parallel()
	t.Run("PerAddress", func(t *testing.T) {
		t.Parallel()
		s := open(t)
		ctx := t.Context()
		minute := func(n int) time.Time { return t0.Add(time.Duration(n) * time.Minute) }
		for i := range 3 {
			wantReserve(t, s, loginAttempt("zoe", "a", minute(i)), true, time.Time{}, fmt.Sprintf("zoe's attempt %d from a", i+1))
		}
		// The fourth is refused until the oldest leaves the window, and
		// is not stored.
		wantReserve(t, s, loginAttempt("zoe", "a", minute(3)), false, t0, "zoe's fourth attempt from a")
		if n, oldest, err := s.LoginFailures(ctx, "zoe", t0.Add(-loginWindow)); err != nil || n != 3 || !oldest.Equal(t0) {
			t.Errorf("LoginFailures(zoe): %d since %v, %v; want 3 since %v", n, oldest, err, t0)
		}
		if n, oldest, err := s.LoginFailures(ctx, "zoe", t0.Add(90*time.Second)); err != nil || n != 1 || !oldest.Equal(minute(2)) {
			t.Errorf("LoginFailures(zoe) in a later window: %d since %v, %v; want 1 since %v", n, oldest, err, minute(2))
		}
		if n, _, err := s.LoginFailures(ctx, "nobody", time.Time{}); err != nil || n != 0 {
			t.Errorf("LoginFailures of a name without failures: %d, %v", n, err)
		}
		// Other addresses and other names count apart, known to the store
		// or not.
		wantReserve(t, s, loginAttempt("zoe", "b", minute(3)), true, time.Time{}, "zoe from b")
		wantReserve(t, s, loginAttempt("bob", "a", minute(3)), true, time.Time{}, "bob from a")
		wantReserve(t, s, loginAttempt("zoe", "", minute(3)), true, time.Time{}, `zoe from ""`)
		// A failure exactly one window old has left it.
		wantReserve(t, s, loginAttempt("zoe", "a", t0.Add(loginWindow)), true, time.Time{}, "zoe from a a window later")
		wantReserve(t, s, loginAttempt("zoe", "a", t0.Add(loginWindow)), false, minute(1), "zoe from a again")
		// Past the limit (a lower one), the failure that must go is the
		// one that brings the count below it.
		lower := loginAttempt("zoe", "a", t0.Add(loginWindow))
		lower.AddressLimit = 2
		wantReserve(t, s, lower, false, minute(2), "zoe from a with a limit of 2")

		// A success forgets the pair's failures only.
		must(t, s.LoginSucceeded(ctx, "zoe", "a", t0.Add(loginWindow)))
		wantFailures(t, s, "zoe", 2, "after zoe's success from a") // from b and ""
		wantReserve(t, s, loginAttempt("zoe", "a", t0.Add(loginWindow)), true, time.Time{}, "zoe from a after the success")
		wantFailures(t, s, "bob", 1, "zoe's success")

		// A released attempt is forgotten, the pair's others stay.
		wantReserve(t, s, loginAttempt("bob", "r", minute(4)), true, time.Time{}, "bob from r")
		wantReserve(t, s, loginAttempt("bob", "r", minute(5)), true, time.Time{}, "bob from r again")
		must(t, s.ReleaseLogin(ctx, "bob", "r", minute(5)))
		wantFailures(t, s, "bob", 2, "after releasing one of bob's attempts from r") // from a, and r at minute 4
		must(t, s.ReleaseLogin(ctx, "bob", "r", minute(5)))
		wantFailures(t, s, "bob", 2, "after releasing it again")

		// A reset forgets every failure of the name.
		must(t, s.ResetLoginFailures(ctx, "zoe"))
		wantFailures(t, s, "zoe", 0, "after ResetLoginFailures")
		wantFailures(t, s, "bob", 2, "ResetLoginFailures(zoe)")
		must(t, s.ResetLoginFailures(ctx, "nobody"))
	})

	t.Run("PerUser", func(t *testing.T) {
		t.Parallel()
		s := open(t)
		ctx := t.Context()
		must(t, s.LoginSucceeded(ctx, "zoe", "home", t0.Add(-29*24*time.Hour)))
		must(t, s.LoginSucceeded(ctx, "zoe", "old", t0.Add(-31*24*time.Hour)))
		must(t, s.LoginSucceeded(ctx, "bob", "x1", t0))
		// An address without failures is never refused below the limit.
		for i := range 5 {
			at := t0.Add(time.Duration(i) * time.Second)
			wantReserve(t, s, loginAttempt("zoe", fmt.Sprintf("x%d", i+1), at), true, time.Time{}, fmt.Sprintf("zoe from x%d", i+1))
		}
		// At it, unknown addresses are refused, those with failures and
		// without alike, and those known too long ago or to another user.
		now := t0.Add(time.Minute)
		for _, addr := range []string{"x1", "x6", "old"} {
			wantReserve(t, s, loginAttempt("zoe", addr, now), false, t0, "zoe at the limit from "+addr)
		}
		// A known address may still try, and its failures count.
		wantReserve(t, s, loginAttempt("zoe", "home", now), true, time.Time{}, "zoe from her known address")
		wantFailures(t, s, "zoe", 6, "after the known address's attempt")
		// Past the limit, the failure that must go is the one that brings
		// the count below it.
		wantReserve(t, s, loginAttempt("zoe", "x6", now), false, t0.Add(time.Second), "zoe past the limit")
		// A success makes an address known, at once.
		must(t, s.LoginSucceeded(ctx, "zoe", "old", now))
		wantReserve(t, s, loginAttempt("zoe", "old", now), true, time.Time{}, "zoe from an address known again")
		// Others are not held by zoe's count.
		wantReserve(t, s, loginAttempt("bob", "x6", now), true, time.Time{}, "bob")
	})

	t.Run("Concurrent", func(t *testing.T) {
		t.Parallel()
		s := open(t)
		const n = 24
		// n reservations at once for one name and address allow exactly
		// the address's limit; from n addresses, exactly the user's.
		for _, c := range []struct {
			name    string
			address func(i int) string
			want    int
		}{
			{"zoe", func(int) string { return "a" }, 3},
			{"bob", func(i int) string { return fmt.Sprintf("x%d", i) }, 5},
		} {
			var wg sync.WaitGroup
			var mu sync.Mutex
			allowed := 0
			start := make(chan struct{})
			for i := range n {
				wg.Go(func() {
					<-start
					r, err := s.ReserveLogin(t.Context(), loginAttempt(c.name, c.address(i), t0))
					if err != nil {
						t.Errorf("ReserveLogin: %v", err)
						return
					}
					if r.Allowed {
						mu.Lock()
						allowed++
						mu.Unlock()
					}
				})
			}
			close(start)
			wg.Wait()
			if allowed != c.want {
				t.Errorf("%d concurrent reservations of %s: %d allowed, want %d", n, c.name, allowed, c.want)
			}
			wantFailures(t, s, c.name, c.want, "the concurrent reservations")
		}
	})

	t.Run("Purge", func(t *testing.T) {
		t.Parallel()
		s := open(t)
		ctx := t.Context()
		wantReserve(t, s, loginAttempt("zoe", "a", t0), true, time.Time{}, "zoe's first")
		wantReserve(t, s, loginAttempt("bob", "a", t0.Add(time.Minute)), true, time.Time{}, "bob's first")
		wantReserve(t, s, loginAttempt("bob", "b", t0.Add(2*time.Minute)), true, time.Time{}, "bob's second")
		// Purging forgets failures older than the instant, of every name.
		if n, err := s.PurgeLoginFailures(ctx, t0.Add(90*time.Second)); err != nil || n != 2 {
			t.Errorf("PurgeLoginFailures: %d, %v; want 2", n, err)
		}
		wantFailures(t, s, "zoe", 0, "after the purge")
		wantFailures(t, s, "bob", 1, "after the purge")

		must(t, s.LoginSucceeded(ctx, "zoe", "old", t0.Add(-24*time.Hour)))
		must(t, s.LoginSucceeded(ctx, "zoe", "new", t0))
		if n, err := s.PurgeKnownAddresses(ctx, t0.Add(-time.Hour)); err != nil || n != 1 {
			t.Errorf("PurgeKnownAddresses: %d, %v; want 1", n, err)
		}
		// At zoe's limit, the purged address is no longer known.
		for i := range 5 {
			wantReserve(t, s, loginAttempt("zoe", fmt.Sprintf("x%d", i), t0), true, time.Time{}, "zoe's failure")
		}
		past := loginAttempt("zoe", "old", t0)
		past.KnownSince = time.Time{}
		wantReserve(t, s, past, false, t0, "zoe from the purged address")
		wantReserve(t, s, loginAttempt("zoe", "new", t0), true, time.Time{}, "zoe from the address kept")
	})
}
