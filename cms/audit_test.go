package cms_test

import (
	"slices"
	"strings"
	"sync"
	"testing"

	"github.com/bwcms/cms/cms"
)

// auditLine is an entry as a test compares it: who, what, to what, how.
type auditLine struct{ user, action, target, detail string }

func (e *people) auditAll(t *testing.T, as string) []cms.AuditEntry {
	t.Helper()
	page, err := e.svc.Audit(e.as(t, as), cms.AuditParams{Limit: cms.MaxAuditLimit})
	if err != nil || page.Next != 0 {
		t.Fatalf("audit as %s: next %d, %v", as, page.Next, err)
	}
	return page.Entries
}

func lines(entries []cms.AuditEntry) []auditLine {
	out := make([]auditLine, len(entries))
	for i, a := range entries {
		out[i] = auditLine{a.User, a.Action, a.Target, a.Detail}
	}
	return out
}

// TestAuditOfUserManagement: every change to users, perms and languages,
// through the API or by an operator's command, leaves one entry, newest
// first, naming who (the caller, "" for the operator), what and how,
// and never a password or its hash; a refused change leaves none.
func TestAuditOfUserManagement(t *testing.T) {
	forEachDatabase(t, func(t *testing.T, e *people) {
		ctx := t.Context()
		// The fixture's users were made by an operator's command.
		fixture := e.auditAll(t, "viewer")
		if len(fixture) != 7 {
			t.Fatalf("fixture: %d entries, want the 7 users of acme: %+v", len(fixture), fixture)
		}
		if got, want := fixture[0], (auditLine{"", "user.create", "hooker", "perms webhook:*"}); lines(fixture[:1])[0] != want ||
			fixture[0].Account != "acme" || fixture[0].Time.IsZero() {
			t.Errorf("newest fixture entry %+v, want %+v in acme", got, want)
		}

		manager, root := e.as(t, "manager"), e.as(t, "root")
		if _, err := e.svc.CreateAccountUser(manager, cms.NewAccountUser{Name: "nina", Password: "long enough",
			Perms: []string{"resource:read"}}); err != nil {
			t.Fatal(err)
		}
		if err := e.svc.SetAccountUserPerms(manager, "nina", []string{"resource:*", "map:read"}); err != nil {
			t.Fatal(err)
		}
		generated, err := e.svc.ResetAccountUserPassword(manager, "nina", cms.PasswordReset{Generate: true})
		if err != nil {
			t.Fatal(err)
		}
		hash := e.user(t, "nina").PasswordHash
		for _, disabled := range []bool{true, false} {
			if err := e.svc.SetAccountUserDisabled(manager, "nina", disabled); err != nil {
				t.Fatal(err)
			}
		}
		if err := e.svc.DeleteAccountUser(manager, "nina"); err != nil {
			t.Fatal(err)
		}
		if _, err := e.svc.AddAccountLanguage(root, "fr"); err != nil {
			t.Fatal(err)
		}
		if err := e.svc.SetAccountDefaultLanguage(root, "it"); err != nil {
			t.Fatal(err)
		}
		// Operators' commands.
		if err := e.svc.SetPerms(ctx, "writer", []string{}); err != nil {
			t.Fatal(err)
		}
		if err := e.svc.SetPassword(ctx, "writer", "another long one"); err != nil {
			t.Fatal(err)
		}
		if _, err := e.svc.AddLanguage(ctx, "acme", "de"); err != nil {
			t.Fatal(err)
		}
		// Changes that change nothing record nothing.
		if _, err := e.svc.AddLanguage(ctx, "acme", "de"); err != nil {
			t.Fatal(err)
		}
		if err := e.svc.SetDefaultLanguage(ctx, "acme", "it"); err != nil {
			t.Fatal(err)
		}

		all := e.auditAll(t, "viewer")
		want := []auditLine{
			{"", "language.add", "de", "languages it, en, fr -> it, en, fr, de"},
			{"", "user.password", "writer", "password replaced, sessions ended"},
			{"", "user.update", "writer", "perms resource:read, resource:write -> (none)"},
			{"root", "language.default", "it", "default en -> it"},
			{"root", "language.add", "fr", "languages en, it -> en, it, fr"},
			{"manager", "user.delete", "nina", "perms resource:*, map:read"},
			{"manager", "user.enable", "nina", "enabled"},
			{"manager", "user.disable", "nina", "disabled, sessions ended"},
			{"manager", "user.password", "nina", "password replaced, sessions ended"},
			{"manager", "user.update", "nina", "perms resource:read -> resource:*, map:read"},
			{"manager", "user.create", "nina", "perms resource:read"},
		}
		if got := lines(all[:len(all)-len(fixture)]); !slices.Equal(got, want) {
			t.Errorf("audit list:\n got %q\nwant %q", got, want)
		}
		for i, a := range all {
			if a.Account != "acme" || i > 0 && a.ID >= all[i-1].ID {
				t.Errorf("entry %d: %+v: want acme's, newest first", i, a)
			}
			if strings.Contains(a.Detail, generated) || strings.Contains(a.Detail, hash) ||
				strings.Contains(a.Detail, "another long one") {
				t.Errorf("entry %d tells a password: %q", i, a.Detail)
			}
		}
		// The other account sees its own.
		if got := lines(e.auditAll(t, "otto")); !slices.Equal(got, []auditLine{{"", "user.create", "otto", "perms *"}}) {
			t.Errorf("other's audit list %q", got)
		}
	})
}

// TestAuditOfRefusedChanges: a change refused leaves the users and the
// audit list as they were.
func TestAuditOfRefusedChanges(t *testing.T) {
	forEachDatabase(t, func(t *testing.T, e *people) {
		manager, clerk := e.as(t, "manager"), e.as(t, "clerk")
		before := e.auditAll(t, "viewer")
		for _, c := range []refused{
			{"perms of a user holding more", func() error { return e.svc.SetAccountUserPerms(manager, "root", nil) },
				cms.CodeForbidden, "holds *"},
			{"a perm the caller lacks", func() error {
				return e.svc.SetAccountUserPerms(clerk, "writer", []string{"resource:write"})
			}, cms.CodeForbidden, "resource:write"},
			{"own user perms", func() error { return e.svc.SetAccountUserPerms(manager, "manager", []string{"resource:*"}) },
				cms.CodeConflict, "your own"},
			{"disable oneself", func() error { return e.svc.SetAccountUserDisabled(manager, "manager", true) },
				cms.CodeConflict, "yourself"},
			{"delete another account's user", func() error { return e.svc.DeleteAccountUser(manager, "otto") },
				cms.CodeNotFound, "no such user"},
			{"a name taken", func() error {
				_, err := e.svc.CreateAccountUser(manager, cms.NewAccountUser{Name: "writer", Password: "long enough"})
				return err
			}, cms.CodeConflict, "taken"},
			{"a password too short", func() error {
				_, err := e.svc.ResetAccountUserPassword(manager, "writer", cms.PasswordReset{Password: "short"})
				return err
			}, cms.CodeInvalid, "at least"},
			{"a bad language", func() error { _, err := e.svc.AddAccountLanguage(manager, "FR"); return err },
				cms.CodeInvalid, "two lowercase"},
			{"a default not configured", func() error { return e.svc.SetAccountDefaultLanguage(manager, "fr") },
				cms.CodeInvalid, "add it first"},
		} {
			users := e.snapshot(t)
			if err := c.do(); cms.ErrorCode(err) != c.code || !strings.Contains(err.Error(), c.text) {
				t.Errorf("%s: %v, want %s containing %q", c.name, err, c.code, c.text)
			}
			e.unchanged(t, users, c.name)
			if after := e.auditAll(t, "viewer"); !slices.Equal(lines(after), lines(before)) {
				t.Errorf("%s added to the audit list: %q", c.name, lines(after[:len(after)-len(before)]))
			}
		}
	})
}

// TestAuditListing: user:read reads the caller's account's list, a page
// at a time following Next; a bad limit is malformed; no user:read is
// forbidden, no principal unauthorized.
func TestAuditListing(t *testing.T) {
	forEachDatabase(t, func(t *testing.T, e *people) {
		ctx := t.Context()
		for i := range 6 {
			if err := e.svc.SetPerms(ctx, "writer", []string{[]string{"map:read", "file:read"}[i%2]}); err != nil {
				t.Fatal(err)
			}
		}
		all := e.auditAll(t, "viewer")
		if len(all) != 13 {
			t.Fatalf("%d entries, want 7 creates and 6 updates", len(all))
		}
		viewer := e.as(t, "viewer")
		var paged []cms.AuditEntry
		params := cms.AuditParams{Limit: 4}
		for range 10 {
			page, err := e.svc.Audit(viewer, params)
			if err != nil {
				t.Fatal(err)
			}
			if len(page.Entries) > 4 || page.Next != 0 && len(page.Entries) != 4 {
				t.Fatalf("page of %d entries, next %d", len(page.Entries), page.Next)
			}
			paged = append(paged, page.Entries...)
			if page.Next == 0 {
				break
			}
			params.Before = page.Next
		}
		if !slices.EqualFunc(paged, all, func(a, b cms.AuditEntry) bool { return a.ID == b.ID }) {
			t.Errorf("pages gave %d entries, want the %d of one page in order", len(paged), len(all))
		}
		// A last page exactly full says it is the last.
		if page, err := e.svc.Audit(viewer, cms.AuditParams{Limit: 13}); err != nil || len(page.Entries) != 13 || page.Next != 0 {
			t.Errorf("limit 13: %d entries, next %d, %v", len(page.Entries), page.Next, err)
		}
		if page, err := e.svc.Audit(viewer, cms.AuditParams{}); err != nil || len(page.Entries) != 13 {
			t.Errorf("default limit: %d entries, %v", len(page.Entries), err)
		}
		for _, c := range []struct {
			name string
			do   func() error
			code cms.Code
		}{
			{"limit above 1000", func() error { _, err := e.svc.Audit(viewer, cms.AuditParams{Limit: 1001}); return err }, cms.CodeMalformed},
			{"negative limit", func() error { _, err := e.svc.Audit(viewer, cms.AuditParams{Limit: -1}); return err }, cms.CodeMalformed},
			{"negative before", func() error { _, err := e.svc.Audit(viewer, cms.AuditParams{Before: -1}); return err }, cms.CodeMalformed},
			{"no user:read", func() error { _, err := e.svc.Audit(e.as(t, "writer"), cms.AuditParams{}); return err }, cms.CodeForbidden},
			{"*:* is not user:read", func() error { _, err := e.svc.Audit(e.as(t, "kinds"), cms.AuditParams{}); return err }, cms.CodeForbidden},
			{"no principal", func() error { _, err := e.svc.Audit(ctx, cms.AuditParams{}); return err }, cms.CodeUnauthorized},
		} {
			if err := c.do(); cms.ErrorCode(err) != c.code {
				t.Errorf("%s: %v, want %s", c.name, err, c.code)
			}
		}
	})
}

// TestAuditOfConcurrentManagers: two managers changing users at once
// each leave every entry of theirs.
func TestAuditOfConcurrentManagers(t *testing.T) {
	forEachDatabase(t, func(t *testing.T, e *people) {
		before := len(e.auditAll(t, "viewer"))
		const rounds = 5
		var wg sync.WaitGroup
		for _, w := range []struct{ as, user string }{{"manager", "writer"}, {"root", "clerk"}} {
			ctx := e.as(t, w.as)
			wg.Go(func() {
				for i := range rounds {
					perms := []string{"resource:read"}
					if i%2 == 0 {
						perms = append(perms, "map:read")
					}
					if w.user == "clerk" {
						perms = append(perms, "user:read", "user:write")
					}
					if err := e.svc.SetAccountUserPerms(ctx, w.user, perms); err != nil {
						t.Error(err)
						return
					}
				}
			})
		}
		wg.Wait()
		all := e.auditAll(t, "viewer")
		count := map[string]int{}
		for _, a := range all[:len(all)-before] {
			if a.Action != "user.update" {
				t.Errorf("unexpected entry %+v", a)
			}
			count[a.User+" "+a.Target]++
		}
		if count["manager writer"] != rounds || count["root clerk"] != rounds {
			t.Errorf("entries by manager and root: %v, want %d each", count, rounds)
		}
	})
}
