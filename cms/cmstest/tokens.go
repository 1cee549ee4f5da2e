package cmstest

import (
	"bytes"
	"crypto/sha256"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/bwcms/cms/cms"
)

func tokenHash(value string) []byte {
	h := sha256.Sum256([]byte(value))
	return h[:]
}

// token is a fresh token of family for user, issued at t0.
func token(value, family, user string) cms.RefreshToken {
	return cms.RefreshToken{Hash: tokenHash(value), Family: family, User: user, Account: "a",
		Issued: t0, Expires: t0.Add(7 * 24 * time.Hour), FamilyExpires: t0.Add(30 * 24 * time.Hour)}
}

// sameToken compares tokens: times as instants, no parent as an empty one.
func sameToken(got, want cms.RefreshToken) bool {
	return bytes.Equal(got.Hash, want.Hash) && got.Family == want.Family && bytes.Equal(got.Parent, want.Parent) &&
		got.User == want.User && got.Account == want.Account && got.Issued.Equal(want.Issued) &&
		got.Expires.Equal(want.Expires) && got.FamilyExpires.Equal(want.FamilyExpires) &&
		sameTime(got.Used, want.Used) && sameTime(got.Revoked, want.Revoked)
}

func getToken(tb testing.TB, s cms.Store, hash []byte) cms.RefreshToken {
	tb.Helper()
	tok, err := s.GetRefreshToken(tb.Context(), hash)
	if err != nil {
		tb.Fatalf("GetRefreshToken(%x): %v", hash[:4], err)
	}
	return tok
}

func testTokens(t *testing.T, open func(t *testing.T) cms.Store) {
	t.Parallel()
	t.Run("CreateAndGet", func(t *testing.T) {
		t.Parallel()
		s := open(t)
		ctx := t.Context()
		first := token("one", "fam-1", "zoe")
		first.Issued = time.Date(2026, 11, 22, 11, 0, 0, 123456000, cet)
		must(t, s.CreateRefreshToken(ctx, first))
		child := token("two", "fam-1", "zoe")
		child.Parent, child.Issued = first.Hash, t0.Add(time.Minute)
		must(t, s.CreateRefreshToken(ctx, child))
		for _, want := range []cms.RefreshToken{first, child} {
			if got := getToken(t, s, want.Hash); !sameToken(got, want) {
				t.Errorf("GetRefreshToken:\n got %+v\nwant %+v", got, want)
			}
		}
		dup := token("one", "fam-2", "bob")
		wantCode(t, s.CreateRefreshToken(ctx, dup), cms.CodeConflict, "CreateRefreshToken of an existing hash")
		if got := getToken(t, s, first.Hash); !sameToken(got, first) {
			t.Errorf("the conflicting CreateRefreshToken changed the token: %+v", got)
		}
		_, err := s.GetRefreshToken(ctx, tokenHash("none"))
		wantCode(t, err, cms.CodeNotFound, "GetRefreshToken of an unknown hash")
	})

	t.Run("Spend", func(t *testing.T) {
		t.Parallel()
		s := open(t)
		ctx := t.Context()
		tok := token("one", "fam-1", "zoe")
		must(t, s.CreateRefreshToken(ctx, tok))
		if ok, err := s.SpendRefreshToken(ctx, tok.Hash, t0.Add(time.Minute)); !ok || err != nil {
			t.Fatalf("first spend: %v, %v; want true", ok, err)
		}
		if ok, err := s.SpendRefreshToken(ctx, tok.Hash, t0.Add(2*time.Minute)); ok || err != nil {
			t.Errorf("second spend: %v, %v; want false", ok, err)
		}
		want := tok
		want.Used = t0.Add(time.Minute)
		if got := getToken(t, s, tok.Hash); !sameToken(got, want) {
			t.Errorf("spent token:\n got %+v\nwant %+v", got, want)
		}
		if ok, err := s.SpendRefreshToken(ctx, tokenHash("none"), t0); ok || err != nil {
			t.Errorf("spend of an unknown token: %v, %v; want false", ok, err)
		}

		// Of concurrent spends exactly one wins.
		race := token("race", "fam-2", "zoe")
		must(t, s.CreateRefreshToken(ctx, race))
		var wins atomic.Int32
		var wg sync.WaitGroup
		for i := range 20 {
			wg.Go(func() {
				ok, err := s.SpendRefreshToken(ctx, race.Hash, t0.Add(time.Duration(i+1)*time.Second))
				if err != nil {
					t.Errorf("concurrent spend: %v", err)
				}
				if ok {
					wins.Add(1)
				}
			})
		}
		wg.Wait()
		if n := wins.Load(); n != 1 {
			t.Fatalf("%d of 20 concurrent spends won, want exactly 1", n)
		}
		if got := getToken(t, s, race.Hash); got.Used.IsZero() {
			t.Errorf("the winning spend left the token unused: %+v", got)
		}

		// A revoked token cannot be spent.
		revoked := token("revoked", "fam-3", "zoe")
		must(t, s.CreateRefreshToken(ctx, revoked))
		must(t, s.RevokeFamily(ctx, "fam-3", t0.Add(time.Minute)))
		if ok, err := s.SpendRefreshToken(ctx, revoked.Hash, t0.Add(2*time.Minute)); ok || err != nil {
			t.Errorf("spend of a revoked token: %v, %v; want false", ok, err)
		}
		if got := getToken(t, s, revoked.Hash); !got.Used.IsZero() {
			t.Errorf("a refused spend marked the token used: %+v", got)
		}
	})

	t.Run("Revoke", func(t *testing.T) {
		t.Parallel()
		s := open(t)
		ctx := t.Context()
		z1, z2 := token("z1", "fam-z1", "zoe"), token("z2", "fam-z1", "zoe")
		z3, b1 := token("z3", "fam-z2", "zoe"), token("b1", "fam-b", "bob")
		for _, tok := range []cms.RefreshToken{z1, z2, z3, b1} {
			must(t, s.CreateRefreshToken(ctx, tok))
		}
		spent, err := s.SpendRefreshToken(ctx, z1.Hash, t0.Add(time.Minute))
		if !spent || err != nil {
			t.Fatalf("spend: %v, %v", spent, err)
		}

		must(t, s.RevokeFamily(ctx, "fam-z1", t0.Add(time.Hour)))
		for _, tok := range []cms.RefreshToken{z1, z2} {
			if got := getToken(t, s, tok.Hash); !got.Revoked.Equal(t0.Add(time.Hour)) {
				t.Errorf("RevokeFamily: token %x revoked at %v", tok.Hash[:4], got.Revoked)
			}
		}
		if got := getToken(t, s, z1.Hash); !got.Used.Equal(t0.Add(time.Minute)) {
			t.Errorf("RevokeFamily changed Used: %v", got.Used)
		}
		for _, tok := range []cms.RefreshToken{z3, b1} {
			if got := getToken(t, s, tok.Hash); !got.Revoked.IsZero() {
				t.Errorf("RevokeFamily(fam-z1) revoked a token of %s", got.Family)
			}
		}

		// Every token of the user; those revoked before keep their time.
		must(t, s.RevokeUserTokens(ctx, "zoe", t0.Add(2*time.Hour)))
		for _, tt := range []struct {
			tok  cms.RefreshToken
			want time.Time
		}{{z1, t0.Add(time.Hour)}, {z2, t0.Add(time.Hour)}, {z3, t0.Add(2 * time.Hour)}, {b1, time.Time{}}} {
			if got := getToken(t, s, tt.tok.Hash); !sameTime(got.Revoked, tt.want) {
				t.Errorf("after RevokeUserTokens(zoe): token %s of %s revoked at %v, want %v", tt.tok.Family, tt.tok.User, got.Revoked, tt.want)
			}
		}
		must(t, s.RevokeFamily(ctx, "fam-z2", t0.Add(3*time.Hour)))
		if got := getToken(t, s, z3.Hash); !got.Revoked.Equal(t0.Add(2 * time.Hour)) {
			t.Errorf("a second revocation changed the first one's time: %v", got.Revoked)
		}
		must(t, s.RevokeFamily(ctx, "fam-none", t0))
		must(t, s.RevokeUserTokens(ctx, "nobody", t0))
	})

	t.Run("Live", func(t *testing.T) {
		t.Parallel()
		s := open(t)
		ctx := t.Context()
		parent := token("p", "fam-1", "zoe")
		kids := []cms.RefreshToken{token("k1", "fam-1", "zoe"), token("k2", "fam-1", "zoe"), token("k3", "fam-1", "zoe")}
		other := token("o", "fam-2", "zoe")
		for i := range kids {
			kids[i].Parent = parent.Hash
		}
		for _, tok := range append([]cms.RefreshToken{parent, other}, kids...) {
			must(t, s.CreateRefreshToken(ctx, tok))
		}
		if ok, err := s.SpendRefreshToken(ctx, parent.Hash, t0.Add(time.Minute)); !ok || err != nil {
			t.Fatalf("spend: %v, %v", ok, err)
		}
		live, err := s.LiveRefreshTokens(ctx, "fam-1")
		must(t, err)
		if len(live) != 3 {
			t.Fatalf("LiveRefreshTokens: %d tokens, want the 3 unspent", len(live))
		}
		for _, tok := range live {
			if !bytes.Equal(tok.Parent, parent.Hash) || !tok.Used.IsZero() {
				t.Errorf("LiveRefreshTokens gave %+v", tok)
			}
		}
		if ok, err := s.SpendRefreshToken(ctx, kids[0].Hash, t0.Add(2*time.Minute)); !ok || err != nil {
			t.Fatalf("spend: %v, %v", ok, err)
		}
		must(t, s.SpendLiveRefreshTokens(ctx, "fam-1", t0.Add(3*time.Minute)))
		for _, tt := range []struct {
			tok  cms.RefreshToken
			used time.Time
		}{{parent, t0.Add(time.Minute)}, {kids[0], t0.Add(2 * time.Minute)}, {kids[1], t0.Add(3 * time.Minute)},
			{kids[2], t0.Add(3 * time.Minute)}, {other, time.Time{}}} {
			if got := getToken(t, s, tt.tok.Hash); !sameTime(got.Used, tt.used) || !got.Revoked.IsZero() {
				t.Errorf("after SpendLiveRefreshTokens: token %x used %v revoked %v, want used %v", tt.tok.Hash[:4], got.Used, got.Revoked, tt.used)
			}
		}
		if live, err := s.LiveRefreshTokens(ctx, "fam-1"); err != nil || len(live) != 0 {
			t.Errorf("LiveRefreshTokens after spending them: %d, %v", len(live), err)
		}
		// Revoked tokens are not live, nor spent by it.
		must(t, s.RevokeFamily(ctx, "fam-2", t0.Add(4*time.Minute)))
		must(t, s.SpendLiveRefreshTokens(ctx, "fam-2", t0.Add(5*time.Minute)))
		if got := getToken(t, s, other.Hash); !got.Used.IsZero() {
			t.Errorf("SpendLiveRefreshTokens spent a revoked token: %+v", got)
		}
		if live, err := s.LiveRefreshTokens(ctx, "fam-2"); err != nil || len(live) != 0 {
			t.Errorf("LiveRefreshTokens of a revoked family: %d, %v", len(live), err)
		}
	})

	// LockUserTokens in a transaction waits for another transaction
	// holding the user's tokens, then sees what that one committed.
	t.Run("LockUserTokens", func(t *testing.T) {
		t.Parallel()
		s := open(t)
		ctx := t.Context()
		tok := token("one", "fam-1", "zoe")
		must(t, s.CreateRefreshToken(ctx, tok))
		must(t, s.LockUserTokens(ctx, "zoe")) // outside a transaction: nothing
		locked := make(chan struct{})
		first := make(chan error, 1)
		go func() {
			var once sync.Once
			defer once.Do(func() { close(locked) })
			first <- s.WithTx(ctx, func(tx cms.Store) error {
				if err := tx.LockUserTokens(ctx, "zoe"); err != nil {
					return err
				}
				if _, err := tx.SpendRefreshToken(ctx, tok.Hash, t0.Add(time.Minute)); err != nil {
					return err
				}
				once.Do(func() { close(locked) })
				time.Sleep(100 * time.Millisecond) // the second asks meanwhile
				return tx.CreateRefreshToken(ctx, token("two", "fam-1", "zoe"))
			})
		}()
		<-locked
		// Another user's lock is free.
		must(t, s.WithTx(ctx, func(tx cms.Store) error { return tx.LockUserTokens(ctx, "bob") }))
		must(t, s.WithTx(ctx, func(tx cms.Store) error {
			if err := tx.LockUserTokens(ctx, "zoe"); err != nil {
				return err
			}
			return tx.RevokeUserTokens(ctx, "zoe", t0.Add(time.Hour))
		}))
		must(t, <-first)
		if got := getToken(t, s, tokenHash("two")); got.Revoked.IsZero() {
			t.Error("the revocation after LockUserTokens missed the token the transaction holding it made")
		}
	})

	t.Run("Purge", func(t *testing.T) {
		t.Parallel()
		s := open(t)
		ctx := t.Context()
		cut := t0.Add(24 * time.Hour)
		old1, old2 := token("old1", "fam-old", "zoe"), token("old2", "fam-old", "zoe")
		old1.FamilyExpires, old2.FamilyExpires = cut.Add(-time.Second), cut.Add(-time.Second)
		old2.Expires = cut.Add(time.Hour) // the idle expiry does not count
		live := token("live", "fam-live", "zoe")
		live.FamilyExpires, live.Expires = cut.Add(time.Second), cut.Add(-time.Hour)
		for _, tok := range []cms.RefreshToken{old1, old2, live} {
			must(t, s.CreateRefreshToken(ctx, tok))
		}
		if n, err := s.PurgeRefreshTokens(ctx, cut); err != nil || n != 2 {
			t.Errorf("PurgeRefreshTokens: %d, %v; want 2", n, err)
		}
		for _, tok := range []cms.RefreshToken{old1, old2} {
			_, err := s.GetRefreshToken(ctx, tok.Hash)
			wantCode(t, err, cms.CodeNotFound, "a purged token")
		}
		getToken(t, s, live.Hash)
		if n, err := s.PurgeRefreshTokens(ctx, cut); err != nil || n != 0 {
			t.Errorf("second PurgeRefreshTokens: %d, %v; want 0", n, err)
		}
	})
}
