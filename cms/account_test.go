package cms_test

import (
	"net/netip"
	"strings"
	"testing"
	"time"

	"github.com/bwcms/cms/cms"
	"github.com/bwcms/cms/internal/testenv"
)

var cheap = testenv.CheapPasswords

func openService(t *testing.T, params cms.PasswordParams, st cms.Store) (*cms.Service, cms.Store) {
	t.Helper()
	if st == nil {
		st = testenv.OpenSQLite(t)
	}
	svc, err := cms.NewService(st, &cms.Options{Passwords: params})
	if err != nil {
		t.Fatal(err)
	}
	return svc, st
}

func TestAccountsAndUsers(t *testing.T) {
	t.Parallel()
	ctx := t.Context()
	svc, st := openService(t, cheap, nil)
	en, _ := cms.NewLanguages("en", "en", "it")
	if err := svc.CreateAccount(ctx, "acme", en); err != nil {
		t.Fatal(err)
	}
	if err := svc.CreateUser(ctx, cms.NewUser{Name: "ann", Account: "acme", Password: "long enough", Perms: []string{"map:read"}}); err != nil {
		t.Fatal(err)
	}
	refused := []struct {
		name string
		do   func() error
		code cms.Code
		text string
	}{
		{"account id too short", func() error { return svc.CreateAccount(ctx, "ab", en) }, cms.CodeInvalid, "account id"},
		{"account id with a slash", func() error { return svc.CreateAccount(ctx, "a/b/c", en) }, cms.CodeInvalid, "account id"},
		{"account twice", func() error { return svc.CreateAccount(ctx, "acme", en) }, cms.CodeConflict, "exists"},
		{"bad languages", func() error { return svc.CreateAccount(ctx, "beta", cms.Languages{Default: "english"}) }, cms.CodeInvalid, "language"},
		{"user twice", func() error {
			return svc.CreateUser(ctx, cms.NewUser{Name: "ann", Account: "acme", Password: "long enough"})
		}, cms.CodeConflict, ""},
		{"username with a space", func() error {
			return svc.CreateUser(ctx, cms.NewUser{Name: "a b", Account: "acme", Password: "long enough"})
		}, cms.CodeInvalid, "username"},
		{"username of 81 characters", func() error {
			return svc.CreateUser(ctx, cms.NewUser{Name: strings.Repeat("a", 81), Account: "acme", Password: "long enough"})
		}, cms.CodeInvalid, "username"},
		{"short password", func() error {
			return svc.CreateUser(ctx, cms.NewUser{Name: "bob", Account: "acme", Password: "short"})
		}, cms.CodeInvalid, "at least 8"},
		{"password over 1024 bytes", func() error {
			return svc.CreateUser(ctx, cms.NewUser{Name: "bob", Account: "acme", Password: strings.Repeat("p", 1025)})
		}, cms.CodeInvalid, "at most 1024"},
		{"bad perm", func() error {
			return svc.CreateUser(ctx, cms.NewUser{Name: "bob", Account: "acme", Password: "long enough", Perms: []string{"all"}})
		}, cms.CodeInvalid, "permission"},
		{"unknown account", func() error {
			return svc.CreateUser(ctx, cms.NewUser{Name: "bob", Account: "nowhere", Password: "long enough"})
		}, cms.CodeNotFound, ""},
		{"password of nobody", func() error { return svc.SetPassword(ctx, "nobody", "long enough") }, cms.CodeNotFound, ""},
		{"short new password", func() error { return svc.SetPassword(ctx, "ann", "short") }, cms.CodeInvalid, ""},
		{"perms of nobody", func() error { return svc.SetPerms(ctx, "nobody", nil) }, cms.CodeNotFound, ""},
		{"bad new perms", func() error { return svc.SetPerms(ctx, "ann", []string{"map:fly"}) }, cms.CodeInvalid, ""},
		{"disable nobody", func() error { return svc.SetDisabled(ctx, "nobody", true) }, cms.CodeNotFound, ""},
	}
	for _, c := range refused {
		err := c.do()
		if cms.ErrorCode(err) != c.code || !strings.Contains(err.Error(), c.text) {
			t.Errorf("%s: %v, want %s containing %q", c.name, err, c.code, c.text)
		}
	}
	// Languages with an empty list mean the default alone.
	if err := svc.CreateAccount(ctx, "solo", cms.Languages{Default: "fr"}); err != nil {
		t.Fatal(err)
	}
	if a, err := svc.Account(ctx, "solo"); err != nil || a.Langs.String() != "fr" {
		t.Errorf("solo = %+v, %v", a, err)
	}
	// Nothing refused was stored, and ann is unchanged.
	users, err := svc.Users(ctx, "")
	if err != nil || len(users) != 1 || users[0].Name != "ann" || strings.Join(users[0].Perms, ",") != "map:read" || users[0].Disabled {
		t.Errorf("users = %+v, %v", users, err)
	}
	if accounts, err := svc.Accounts(ctx); len(accounts) != 2 || err != nil {
		t.Errorf("accounts = %+v, %v", accounts, err)
	}
	if _, err := svc.Login(ctx, "ann", "long enough", netip.Addr{}); err != nil {
		t.Errorf("ann cannot log in: %v", err)
	}
	// Changes that work.
	if err := svc.SetPerms(ctx, "ann", nil); err != nil {
		t.Fatal(err)
	}
	sess, err := svc.Login(ctx, "ann", "long enough", netip.Addr{})
	if err != nil || len(sess.Principal.Perms) != 0 || sess.Principal.Perms == nil {
		t.Errorf("perms none: %+v %v", sess, err)
	}
	if err := svc.SetPassword(ctx, "ann", "another long one"); err != nil {
		t.Fatal(err)
	}
	if _, err := svc.Refresh(ctx, sess.RefreshToken); cms.ErrorCode(err) != cms.CodeUnauthorized {
		t.Errorf("refresh after password change: %v", err)
	}
	if _, err := svc.Login(ctx, "ann", "long enough", netip.Addr{}); cms.ErrorCode(err) != cms.CodeUnauthorized {
		t.Errorf("old password: %v", err)
	}
	u, _ := st.GetUser(ctx, "ann")
	if !strings.HasPrefix(u.PasswordHash, "$argon2id$") || strings.Contains(u.PasswordHash, "another") {
		t.Errorf("stored hash = %q", u.PasswordHash)
	}
}

// TestRehashOnLogin: a user whose hash has old parameters gets a new hash
// at the next successful login, and still logs in.
func TestRehashOnLogin(t *testing.T) {
	t.Parallel()
	ctx := t.Context()
	old, st := openService(t, cheap, nil)
	en, _ := cms.NewLanguages("en")
	if err := old.CreateAccount(ctx, "acme", en); err != nil {
		t.Fatal(err)
	}
	if err := old.CreateUser(ctx, cms.NewUser{Name: "ann", Account: "acme", Password: "long enough"}); err != nil {
		t.Fatal(err)
	}
	before, _ := st.GetUser(ctx, "ann")
	svc, _ := openService(t, cms.PasswordParams{Memory: 128, Time: 1, Threads: 1}, st)
	if _, err := svc.Login(ctx, "ann", "long enough", netip.Addr{}); err != nil {
		t.Fatal(err)
	}
	after, _ := st.GetUser(ctx, "ann")
	if after.PasswordHash == before.PasswordHash || !strings.Contains(after.PasswordHash, "m=128,t=1,p=1") {
		t.Errorf("hash not remade: %s -> %s", before.PasswordHash, after.PasswordHash)
	}
	if !after.Changed.Equal(before.Changed) {
		t.Error("a rehash counts as a password change")
	}
	if _, err := svc.Login(ctx, "ann", "long enough", netip.Addr{}); err != nil {
		t.Errorf("login after rehash: %v", err)
	}
}

func TestServiceOptions(t *testing.T) {
	t.Parallel()
	_, st := openService(t, cheap, nil)
	if _, err := cms.NewService(nil, nil); err == nil {
		t.Error("NewService without a store")
	}
	if _, err := cms.NewService(st, &cms.Options{RefreshIdle: -time.Second}); err == nil {
		t.Error("negative RefreshIdle accepted")
	}
	if _, err := cms.NewService(st, &cms.Options{LoginUserCeiling: -1}); err == nil {
		t.Error("negative LoginUserCeiling accepted")
	}
}

// TestPurge: expired refresh families and old login failures go; fresh
// ones stay.
func TestPurge(t *testing.T) {
	t.Parallel()
	ctx := t.Context()
	now := time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)
	svc, st := clockService(t, &now)
	en, _ := cms.NewLanguages("en")
	if err := svc.CreateAccount(ctx, "acme", en); err != nil {
		t.Fatal(err)
	}
	if err := svc.CreateUser(ctx, cms.NewUser{Name: "ann", Account: "acme", Password: "long enough"}); err != nil {
		t.Fatal(err)
	}
	old, err := svc.Login(ctx, "ann", "long enough", netip.MustParseAddr("192.0.2.1"))
	if err != nil {
		t.Fatal(err)
	}
	svc.Login(ctx, "ghost", "whatever pass", netip.Addr{})
	now = now.Add(31 * 24 * time.Hour)
	fresh, err := svc.Login(ctx, "ann", "long enough", netip.MustParseAddr("192.0.2.2"))
	if err != nil {
		t.Fatal(err)
	}
	svc.Login(ctx, "ghost2", "whatever pass", netip.Addr{})
	if err := svc.Purge(ctx); err != nil {
		t.Fatal(err)
	}
	count := func(name string) int {
		n, _, err := st.LoginFailures(ctx, name, time.Time{})
		if err != nil {
			t.Fatal(err)
		}
		return n
	}
	if count("ghost") != 0 || count("ghost2") != 1 {
		t.Errorf("failures after purge: ghost %d, ghost2 %d; want 0 and 1", count("ghost"), count("ghost2"))
	}
	// ann's first address is no longer known; her second one is.
	if n, err := st.PurgeKnownAddresses(ctx, now.Add(time.Hour)); err != nil || n != 1 {
		t.Errorf("known addresses left after purge: %d, %v; want 1", n, err)
	}
	if _, err := svc.Refresh(ctx, fresh.RefreshToken); err != nil {
		t.Errorf("a fresh family was purged: %v", err)
	}
	if _, err := svc.Refresh(ctx, old.RefreshToken); cms.ErrorCode(err) != cms.CodeUnauthorized {
		t.Errorf("the expired family: %v", err)
	}
}

// TestPurgeBatches: finished batches go after the retention; waiting ones
// stay whatever their age.
func TestPurgeBatches(t *testing.T) {
	t.Parallel()
	now := time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)
	svc, _ := clockService(t, &now)
	en, _ := cms.NewLanguages("en")
	if err := svc.CreateAccount(t.Context(), "acme", en); err != nil {
		t.Fatal(err)
	}
	ctx := cms.WithPrincipal(t.Context(), cms.Principal{Account: "acme", User: "ann", Perms: []string{"*"}, Langs: en})
	done, err := svc.SubmitBatch(ctx, cms.KindMap, []byte(`[{"id":"map1"}]`))
	if err != nil {
		t.Fatal(err)
	}
	if did, err := svc.ProcessBatch(ctx, "w"); !did || err != nil {
		t.Fatal(did, err)
	}
	waiting, err := svc.SubmitBatch(ctx, cms.KindMap, []byte(`[{"id":"map2"}]`))
	if err != nil {
		t.Fatal(err)
	}
	now = now.Add(8 * 24 * time.Hour)
	if err := svc.Purge(ctx); err != nil {
		t.Fatal(err)
	}
	if _, err := svc.BatchStatus(ctx, cms.KindMap, done.ID); cms.ErrorCode(err) != cms.CodeNotFound {
		t.Errorf("finished batch after the retention: %v", err)
	}
	if b, err := svc.BatchStatus(ctx, cms.KindMap, waiting.ID); err != nil || b.Status != cms.BatchWaiting {
		t.Errorf("waiting batch: %+v, %v", b, err)
	}
}

// clockService is a service on a fresh SQLite store whose clock reads *now.
func clockService(t *testing.T, now *time.Time) (*cms.Service, cms.Store) {
	t.Helper()
	_, st := openService(t, cheap, nil)
	svc, err := cms.NewService(st, &cms.Options{Passwords: cheap, Now: func() time.Time { return *now }})
	if err != nil {
		t.Fatal(err)
	}
	return svc, st
}
