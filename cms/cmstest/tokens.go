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
