package cms_test

import (
	"context"
	"net/netip"
	"slices"
	"strings"
	"testing"

	"github.com/bwcms/cms/cms"
	"github.com/bwcms/cms/internal/testenv"
)

// people is the fixture of the user-management tests: account acme (en,
// it) with users at several levels, account other (de) with otto.
type people struct {
	svc   *cms.Service
	store cms.Store
}

var peopleAccounts = []testenv.Account{
	{Name: "acme", Langs: testenv.Langs("en", "it"), Users: []testenv.User{
		{Name: "root", Perms: []string{"*"}},
		{Name: "manager", Perms: []string{"user:*", "resource:*", "map:read"}},
		{Name: "viewer", Perms: []string{"user:read", "*:read"}},
		{Name: "clerk", Perms: []string{"user:read", "user:write", "resource:read"}},
		{Name: "kinds", Perms: []string{"*:*"}},
		{Name: "writer", Perms: []string{"resource:read", "resource:write"}},
		{Name: "hooker", Perms: []string{"webhook:*"}},
	}},
	{Name: "other", Langs: testenv.Langs("de"), Users: []testenv.User{{Name: "otto", Perms: []string{"*"}}}},
}

// forEachDatabase runs test on SQLite and on PostgreSQL (skipped without
// CMS_TEST_POSTGRES_DSN).
func forEachDatabase(t *testing.T, test func(t *testing.T, e *people)) {
	for _, db := range []testenv.Database{{Name: "sqlite", Open: testenv.OpenSQLiteMemory}, {Name: "postgres", Open: testenv.OpenPostgres}} {
		t.Run(db.Name, func(t *testing.T) {
			t.Parallel()
			st := db.Open(t)
			test(t, &people{svc: testenv.NewService(t, st, testenv.NewClock(), nil, peopleAccounts...), store: st})
		})
	}
}

// as is a context acting as user, with the perms and languages of a
// login.
func (e *people) as(t *testing.T, user string) context.Context {
	t.Helper()
	sess, err := e.svc.Login(t.Context(), user, testenv.Password, netip.Addr{})
	if err != nil {
		t.Fatalf("login %s: %v", user, err)
	}
	return cms.WithPrincipal(t.Context(), sess.Principal)
}

// user is a user as stored.
func (e *people) user(t *testing.T, name string) cms.User {
	t.Helper()
	u, err := e.store.GetUser(t.Context(), name)
	if err != nil {
		t.Fatalf("user %s: %v", name, err)
	}
	return u
}

// snapshot is every stored user, for "nothing changed" checks.
func (e *people) snapshot(t *testing.T) []cms.User {
	t.Helper()
	users, err := e.store.ListUsers(t.Context(), "")
	if err != nil {
		t.Fatal(err)
	}
	return users
}

func (e *people) unchanged(t *testing.T, before []cms.User, what string) {
	t.Helper()
	after := e.snapshot(t)
	if len(after) != len(before) {
		t.Fatalf("%s: %d users, want %d", what, len(after), len(before))
	}
	for i := range before {
		b, a := before[i], after[i]
		if a.Name != b.Name || a.Account != b.Account || a.PasswordHash != b.PasswordHash ||
			!slices.Equal(a.Perms, b.Perms) || a.Disabled != b.Disabled || !a.Changed.Equal(b.Changed) {
			t.Errorf("%s changed %s: %+v, was %+v", what, b.Name, a, b)
		}
	}
}

// refused is one call that must fail with code, its message containing
// text.
type refused struct {
	name string
	do   func() error
	code cms.Code
	text string
}

func (e *people) expectRefused(t *testing.T, cases []refused) {
	t.Helper()
	for _, c := range cases {
		before := e.snapshot(t)
		err := c.do()
		if cms.ErrorCode(err) != c.code || err == nil || !strings.Contains(err.Error(), c.text) {
			t.Errorf("%s: %v, want %s containing %q", c.name, err, c.code, c.text)
		}
		e.unchanged(t, before, c.name)
	}
}

func names(users []cms.UserInfo) []string {
	var n []string
	for _, u := range users {
		n = append(n, u.Name)
	}
	return n
}

func TestAccountUsersAreTheCallersAccountOnly(t *testing.T) {
	forEachDatabase(t, func(t *testing.T, e *people) {
		viewer := e.as(t, "viewer")
		users, err := e.svc.AccountUsers(viewer)
		if err != nil {
			t.Fatal(err)
		}
		want := []string{"clerk", "hooker", "kinds", "manager", "root", "viewer", "writer"}
		if !slices.Equal(names(users), want) {
			t.Errorf("users %v, want %v", names(users), want)
		}
		for _, u := range users {
			if u.Name == "manager" && (strings.Join(u.Perms, ",") != "user:*,resource:*,map:read" || u.Disabled || u.Created.IsZero()) {
				t.Errorf("manager listed as %+v", u)
			}
		}
		if u, err := e.svc.AccountUser(viewer, "writer"); err != nil || strings.Join(u.Perms, ",") != "resource:read,resource:write" {
			t.Errorf("AccountUser writer: %+v, %v", u, err)
		}
		// Another account's user is answered as a missing one, word for word.
		_, missing := e.svc.AccountUser(viewer, "nobody")
		_, foreign := e.svc.AccountUser(viewer, "otto")
		if cms.ErrorCode(foreign) != cms.CodeNotFound || strings.ReplaceAll(foreign.Error(), "otto", "X") != strings.ReplaceAll(missing.Error(), "nobody", "X") {
			t.Errorf("otto: %v; nobody: %v", foreign, missing)
		}
		if users, err := e.svc.AccountUsers(e.as(t, "otto")); err != nil || !slices.Equal(names(users), []string{"otto"}) {
			t.Errorf("otto's account: %v, %v", names(users), err)
		}
		// Without user:read: no list. *:* does not cover users.
		for _, who := range []string{"writer", "kinds"} {
			if _, err := e.svc.AccountUsers(e.as(t, who)); cms.ErrorCode(err) != cms.CodeForbidden {
				t.Errorf("%s lists users: %v", who, err)
			}
			if _, err := e.svc.AccountUser(e.as(t, who), "writer"); cms.ErrorCode(err) != cms.CodeForbidden {
				t.Errorf("%s reads a user: %v", who, err)
			}
		}
		if _, err := e.svc.AccountUsers(t.Context()); cms.ErrorCode(err) != cms.CodeUnauthorized {
			t.Errorf("no caller: %v", err)
		}
	})
}

func TestCreateAccountUser(t *testing.T) {
	forEachDatabase(t, func(t *testing.T, e *people) {
		ctx := t.Context()
		manager := e.as(t, "manager")
		if pw, err := e.svc.CreateAccountUser(manager, cms.NewAccountUser{Name: "nina", Password: "long enough",
			Perms: []string{"resource:write", "map:read", "user:read"}}); err != nil || pw != "" {
			t.Fatalf("create nina: %q, %v", pw, err)
		}
		nina := e.user(t, "nina")
		if nina.Account != "acme" || strings.Join(nina.Perms, ",") != "resource:write,map:read,user:read" || nina.Disabled {
			t.Errorf("nina stored as %+v", nina)
		}
		if sess, err := e.svc.Login(ctx, "nina", "long enough", netip.Addr{}); err != nil || sess.Principal.Account != "acme" {
			t.Errorf("nina logs in: %+v, %v", sess, err)
		}
		pw, err := e.svc.CreateAccountUser(manager, cms.NewAccountUser{Name: "gen", GeneratePassword: true})
		if err != nil || len(pw) != cms.GeneratedPasswordLength {
			t.Fatalf("generated: %q, %v", pw, err)
		}
		if _, err := e.svc.Login(ctx, "gen", pw, netip.Addr{}); err != nil {
			t.Errorf("gen logs in with the generated password: %v", err)
		}
		if u := e.user(t, "gen"); u.Perms == nil || len(u.Perms) != 0 {
			t.Errorf("gen's perms %#v, want none", u.Perms)
		}
		e.expectRefused(t, []refused{
			{"bad name", func() error {
				_, err := e.svc.CreateAccountUser(manager, cms.NewAccountUser{Name: "a b", Password: "long enough"})
				return err
			}, cms.CodeInvalid, "username"},
			{"short password", func() error {
				_, err := e.svc.CreateAccountUser(manager, cms.NewAccountUser{Name: "bob", Password: "short"})
				return err
			}, cms.CodeInvalid, "at least 8"},
			{"no password", func() error {
				_, err := e.svc.CreateAccountUser(manager, cms.NewAccountUser{Name: "bob"})
				return err
			}, cms.CodeInvalid, "password"},
			{"a password and generate", func() error {
				_, err := e.svc.CreateAccountUser(manager, cms.NewAccountUser{Name: "bob", Password: "long enough", GeneratePassword: true})
				return err
			}, cms.CodeInvalid, "not both"},
			{"bad perm", func() error {
				_, err := e.svc.CreateAccountUser(manager, cms.NewAccountUser{Name: "bob", Password: "long enough", Perms: []string{"map:fly"}})
				return err
			}, cms.CodeInvalid, `permission "map:fly"`},
			{"a perm the caller lacks", func() error {
				_, err := e.svc.CreateAccountUser(manager, cms.NewAccountUser{Name: "bob", Password: "long enough", Perms: []string{"resource:read", "map:write"}})
				return err
			}, cms.CodeForbidden, "map:write"},
			{"webhooks", func() error {
				_, err := e.svc.CreateAccountUser(manager, cms.NewAccountUser{Name: "bob", Password: "long enough", Perms: []string{"webhook:read"}})
				return err
			}, cms.CodeForbidden, "webhook:read"},
			{"everything", func() error {
				_, err := e.svc.CreateAccountUser(manager, cms.NewAccountUser{Name: "bob", Password: "long enough", Perms: []string{"*"}})
				return err
			}, cms.CodeForbidden, "permission *"},
			{"read of every kind", func() error {
				_, err := e.svc.CreateAccountUser(manager, cms.NewAccountUser{Name: "bob", Password: "long enough", Perms: []string{"*:read"}})
				return err
			}, cms.CodeForbidden, "*:read"},
			{"a name taken here", func() error {
				_, err := e.svc.CreateAccountUser(manager, cms.NewAccountUser{Name: "writer", Password: "long enough"})
				return err
			}, cms.CodeConflict, "taken"},
			{"a name taken in another account", func() error {
				_, err := e.svc.CreateAccountUser(manager, cms.NewAccountUser{Name: "otto", Password: "long enough"})
				return err
			}, cms.CodeConflict, "taken"},
			{"no user:write", func() error {
				_, err := e.svc.CreateAccountUser(e.as(t, "viewer"), cms.NewAccountUser{Name: "bob", Password: "long enough"})
				return err
			}, cms.CodeForbidden, "Forbidden"},
			{"*:* is not user:write", func() error {
				_, err := e.svc.CreateAccountUser(e.as(t, "kinds"), cms.NewAccountUser{Name: "bob", Password: "long enough"})
				return err
			}, cms.CodeForbidden, "Forbidden"},
		})
		// "*" may grant anything; *:read covers one kind's read.
		if _, err := e.svc.CreateAccountUser(e.as(t, "root"), cms.NewAccountUser{Name: "deputy", Password: "long enough", Perms: []string{"*", "webhook:write"}}); err != nil {
			t.Errorf("root grants *: %v", err)
		}
		if _, err := e.svc.CreateAccountUser(e.as(t, "viewer"), cms.NewAccountUser{Name: "x", Password: "long enough"}); cms.ErrorCode(err) != cms.CodeForbidden {
			t.Errorf("viewer creates: %v", err)
		}
	})
}

func TestSetAccountUserPerms(t *testing.T) {
	forEachDatabase(t, func(t *testing.T, e *people) {
		ctx := t.Context()
		manager := e.as(t, "manager")
		if err := e.svc.SetAccountUserPerms(manager, "writer", []string{"resource:*", "map:read"}); err != nil {
			t.Fatal(err)
		}
		if got := e.user(t, "writer").Perms; strings.Join(got, ",") != "resource:*,map:read" {
			t.Errorf("writer's perms %v", got)
		}
		sess, _ := e.svc.Login(ctx, "writer", testenv.Password, netip.Addr{})
		if !sess.Principal.Can(cms.KindResource, cms.ActionDelete) {
			t.Errorf("writer's new token: %v", sess.Principal.Perms)
		}
		// Removing what the caller holds is fine; so is adding to oneself.
		if err := e.svc.SetAccountUserPerms(manager, "writer", nil); err != nil {
			t.Fatal(err)
		}
		if got := e.user(t, "writer").Perms; got == nil || len(got) != 0 {
			t.Errorf("writer's perms %#v, want none", got)
		}
		if err := e.svc.SetAccountUserPerms(manager, "manager", []string{"user:*", "resource:*", "map:read", "resource:read"}); err != nil {
			t.Errorf("manager keeps user:*: %v", err)
		}
		e.expectRefused(t, []refused{
			{"bad perm", func() error { return e.svc.SetAccountUserPerms(manager, "writer", []string{"all"}) }, cms.CodeInvalid, `permission "all"`},
			{"grant a perm the caller lacks", func() error {
				return e.svc.SetAccountUserPerms(manager, "writer", []string{"resource:read", "landing:read"})
			}, cms.CodeForbidden, "landing:read"},
			{"change a user above the caller", func() error {
				return e.svc.SetAccountUserPerms(manager, "hooker", []string{})
			}, cms.CodeForbidden, "webhook:*"},
			{"remove a perm the caller lacks", func() error {
				return e.svc.SetAccountUserPerms(manager, "viewer", []string{"user:read"})
			}, cms.CodeForbidden, "*:read"},
			{"another account's user", func() error { return e.svc.SetAccountUserPerms(manager, "otto", nil) }, cms.CodeNotFound, "no such user"},
			{"nobody", func() error { return e.svc.SetAccountUserPerms(manager, "nobody", nil) }, cms.CodeNotFound, "no such user"},
			{"own user:*", func() error {
				return e.svc.SetAccountUserPerms(manager, "manager", []string{"resource:*", "map:read"})
			}, cms.CodeConflict, "your own permission user:read"},
			{"own user:delete", func() error {
				return e.svc.SetAccountUserPerms(manager, "manager", []string{"user:read", "user:write", "resource:*"})
			}, cms.CodeConflict, "user:delete"},
			{"no user:write", func() error { return e.svc.SetAccountUserPerms(e.as(t, "viewer"), "writer", nil) }, cms.CodeForbidden, "Forbidden"},
		})
		// A token from before a permission was taken away cannot hand it
		// out, not even back to its user.
		if err := e.svc.SetPerms(ctx, "manager", []string{"user:*"}); err != nil {
			t.Fatal(err)
		}
		e.expectRefused(t, []refused{
			{"grant with a stale token", func() error {
				return e.svc.SetAccountUserPerms(manager, "writer", []string{"resource:read"})
			}, cms.CodeForbidden, "resource:read"},
			{"give oneself back", func() error {
				return e.svc.SetAccountUserPerms(manager, "manager", []string{"user:*", "resource:*"})
			}, cms.CodeForbidden, "resource:*"},
		})
	})
}

func TestResetAccountUserPassword(t *testing.T) {
	forEachDatabase(t, func(t *testing.T, e *people) {
		ctx := t.Context()
		manager := e.as(t, "manager")
		old, err := e.svc.Login(ctx, "writer", testenv.Password, netip.Addr{})
		if err != nil {
			t.Fatal(err)
		}
		pw, err := e.svc.ResetAccountUserPassword(manager, "writer", cms.PasswordReset{Generate: true})
		if err != nil || len(pw) != cms.GeneratedPasswordLength {
			t.Fatalf("reset: %q, %v", pw, err)
		}
		if _, err := e.svc.Login(ctx, "writer", testenv.Password, netip.Addr{}); cms.ErrorCode(err) != cms.CodeUnauthorized {
			t.Errorf("old password still works: %v", err)
		}
		if _, err := e.svc.Login(ctx, "writer", pw, netip.Addr{}); err != nil {
			t.Errorf("generated password: %v", err)
		}
		if _, err := e.svc.Refresh(ctx, old.RefreshToken); cms.ErrorCode(err) != cms.CodeUnauthorized {
			t.Errorf("a session from before the reset lives on: %v", err)
		}
		if pw, err := e.svc.ResetAccountUserPassword(manager, "writer", cms.PasswordReset{Password: "a chosen one"}); err != nil || pw != "" {
			t.Fatalf("reset to a given password: %q, %v", pw, err)
		}
		if _, err := e.svc.Login(ctx, "writer", "a chosen one", netip.Addr{}); err != nil {
			t.Errorf("given password: %v", err)
		}
		e.expectRefused(t, []refused{
			{"short", func() error {
				_, err := e.svc.ResetAccountUserPassword(manager, "writer", cms.PasswordReset{Password: "short"})
				return err
			}, cms.CodeInvalid, "at least 8"},
			{"a user above the caller", func() error {
				// Else a manager could sign in as anyone.
				_, err := e.svc.ResetAccountUserPassword(manager, "root", cms.PasswordReset{Generate: true})
				return err
			}, cms.CodeForbidden, "holds *"},
			{"another account's user", func() error {
				_, err := e.svc.ResetAccountUserPassword(manager, "otto", cms.PasswordReset{Generate: true})
				return err
			}, cms.CodeNotFound, "no such user"},
			{"no user:write", func() error {
				_, err := e.svc.ResetAccountUserPassword(e.as(t, "viewer"), "writer", cms.PasswordReset{Generate: true})
				return err
			}, cms.CodeForbidden, "Forbidden"},
		})
		if _, err := e.svc.Login(ctx, "root", testenv.Password, netip.Addr{}); err != nil {
			t.Errorf("root's password changed: %v", err)
		}
	})
}

func TestDisableAndDeleteAccountUser(t *testing.T) {
	forEachDatabase(t, func(t *testing.T, e *people) {
		ctx := t.Context()
		manager := e.as(t, "manager")
		sess, err := e.svc.Login(ctx, "writer", testenv.Password, netip.Addr{})
		if err != nil {
			t.Fatal(err)
		}
		if err := e.svc.SetAccountUserDisabled(manager, "writer", true); err != nil {
			t.Fatal(err)
		}
		if !e.user(t, "writer").Disabled {
			t.Error("writer not disabled")
		}
		if _, err := e.svc.Refresh(ctx, sess.RefreshToken); cms.ErrorCode(err) != cms.CodeUnauthorized {
			t.Errorf("disabled writer's session lives on: %v", err)
		}
		if err := e.svc.CheckPrincipal(ctx, sess.Principal); cms.ErrorCode(err) != cms.CodeUnauthorized {
			t.Errorf("disabled writer's access token works: %v", err)
		}
		if err := e.svc.SetAccountUserDisabled(manager, "writer", false); err != nil {
			t.Fatal(err)
		}
		sess, err = e.svc.Login(ctx, "writer", testenv.Password, netip.Addr{})
		if err != nil {
			t.Fatalf("enabled writer cannot log in: %v", err)
		}
		e.expectRefused(t, []refused{
			{"disable oneself", func() error { return e.svc.SetAccountUserDisabled(manager, "manager", true) }, cms.CodeConflict, "yourself"},
			{"delete oneself", func() error { return e.svc.DeleteAccountUser(manager, "manager") }, cms.CodeConflict, "yourself"},
			{"disable a user above", func() error { return e.svc.SetAccountUserDisabled(manager, "hooker", true) }, cms.CodeForbidden, "webhook:*"},
			{"delete a user above", func() error { return e.svc.DeleteAccountUser(manager, "root") }, cms.CodeForbidden, "holds *"},
			{"disable another account's", func() error { return e.svc.SetAccountUserDisabled(manager, "otto", true) }, cms.CodeNotFound, "no such user"},
			{"delete another account's", func() error { return e.svc.DeleteAccountUser(manager, "otto") }, cms.CodeNotFound, "no such user"},
			{"delete nobody", func() error { return e.svc.DeleteAccountUser(manager, "nobody") }, cms.CodeNotFound, "no such user"},
			{"delete without user:delete", func() error { return e.svc.DeleteAccountUser(e.as(t, "clerk"), "writer") }, cms.CodeForbidden, "Forbidden"},
			{"disable without user:write", func() error { return e.svc.SetAccountUserDisabled(e.as(t, "viewer"), "writer", true) }, cms.CodeForbidden, "Forbidden"},
		})
		if err := e.svc.DeleteAccountUser(manager, "writer"); err != nil {
			t.Fatal(err)
		}
		if _, err := e.store.GetUser(ctx, "writer"); cms.ErrorCode(err) != cms.CodeNotFound {
			t.Errorf("writer still stored: %v", err)
		}
		if _, err := e.svc.Refresh(ctx, sess.RefreshToken); cms.ErrorCode(err) != cms.CodeUnauthorized {
			t.Errorf("deleted writer's session lives on: %v", err)
		}
		if err := e.svc.CheckPrincipal(ctx, sess.Principal); cms.ErrorCode(err) != cms.CodeUnauthorized {
			t.Errorf("deleted writer's access token works: %v", err)
		}
	})
}

func TestAccountLanguagesByTheirManager(t *testing.T) {
	forEachDatabase(t, func(t *testing.T, e *people) {
		ctx := t.Context()
		root := e.as(t, "root")
		for _, body := range []string{`{"id":"r-1","title":"Mountain"}`, `{"id":"r-2","title":"Valley"}`} {
			if _, err := e.svc.Upsert(root, cms.KindResource, []byte(body), nil); err != nil {
				t.Fatal(err)
			}
		}
		manager := e.as(t, "manager")
		account := func(id string) string {
			a, err := e.svc.Account(ctx, id)
			if err != nil {
				t.Fatal(err)
			}
			return a.Langs.String()
		}
		for _, c := range []refused{
			{"bad code", func() error { _, err := e.svc.AddAccountLanguage(manager, "FR"); return err }, cms.CodeInvalid, "two lowercase"},
			{"no user:write", func() error { _, err := e.svc.AddAccountLanguage(e.as(t, "viewer"), "fr"); return err }, cms.CodeForbidden, "Forbidden"},
			{"*:* is not user:write", func() error { _, err := e.svc.AddAccountLanguage(e.as(t, "kinds"), "fr"); return err }, cms.CodeForbidden, "Forbidden"},
			{"default not configured", func() error { return e.svc.SetAccountDefaultLanguage(manager, "fr") }, cms.CodeInvalid, "add it first"},
			{"default without user:write", func() error { return e.svc.SetAccountDefaultLanguage(e.as(t, "viewer"), "it") }, cms.CodeForbidden, "Forbidden"},
		} {
			if err := c.do(); cms.ErrorCode(err) != c.code || !strings.Contains(err.Error(), c.text) {
				t.Errorf("%s: %v, want %s containing %q", c.name, err, c.code, c.text)
			}
			if got := account("acme"); got != "en,it" {
				t.Fatalf("%s changed the languages: %s", c.name, got)
			}
		}
		made, err := e.svc.AddAccountLanguage(manager, "fr")
		if err != nil || made != 2 {
			t.Fatalf("add fr: %d, %v; want 2 records", made, err)
		}
		if err := e.svc.SetAccountDefaultLanguage(manager, "it"); err != nil {
			t.Fatal(err)
		}
		if got := account("acme"); got != "it,en,fr" {
			t.Errorf("acme's languages %s", got)
		}
		if got := account("other"); got != "de" {
			t.Errorf("other account changed: %s", got)
		}
	})
}
