package admin

import (
	"net/http"
	"net/url"
	"strings"
	"testing"
)

func TestAccountShowsTheAudit(t *testing.T) {
	t.Parallel()
	e := newEnv(t, envOptions{prefix: "/admin"})
	c := e.signIn("admin")
	e.page(e.post(c, "/users/new", url.Values{"name": {"newbie"}, "generate": {"1"}, "perm": {"resource:read"}}), http.StatusCreated)
	res := e.post(c, "/users/newbie/perms", url.Values{"perm": {"resource:read", "map:read"}})
	if res.StatusCode != http.StatusSeeOther {
		t.Fatalf("perms: status %d", res.StatusCode)
	}
	doc := e.open(c, "/account")
	rows := doc.Find("table.audit tbody tr")
	if rows.Length() < 2 {
		t.Fatalf("audit rows: %s", text(doc.Find("table.audit")))
	}
	first, second := rows.Eq(0), rows.Eq(1)
	if got := text(first.Find("td").Eq(2)); got != "User changed newbie" {
		t.Errorf("newest entry %q, want the change of newbie", got)
	}
	if got := text(first.Find("td").Eq(1)); got != "admin" {
		t.Errorf("who %q", got)
	}
	if got := text(first.Find("td").Eq(0)); !strings.HasSuffix(got, "UTC") {
		t.Errorf("when %q", got)
	}
	if got := text(second.Find("td").Eq(2)); got != "User added newbie" {
		t.Errorf("second entry %q", got)
	}
	// Audit details never carry passwords.
	if strings.Contains(doc.Text(), "argon2") {
		t.Error("the audit shows a password hash")
	}
}

func TestAuditPages(t *testing.T) {
	t.Parallel()
	e := newEnv(t, envOptions{prefix: "/admin"})
	ctx := e.acme()
	for i := range auditPageSize + 5 {
		perms := []string{"resource:read"}
		if i%2 == 1 {
			perms = []string{"map:read"}
		}
		if i == 0 {
			e.addUser("flip", perms...)
			continue
		}
		if err := e.svc.SetAccountUserPerms(ctx, "flip", perms); err != nil {
			t.Fatal(err)
		}
	}
	c := e.signIn("admin")
	doc := e.open(c, "/account")
	if n := doc.Find("table.audit tbody tr").Length(); n != auditPageSize {
		t.Fatalf("%d entries on the first page, want %d", n, auditPageSize)
	}
	next := doc.Find(`nav.pager a[rel="next"]`).AttrOr("href", "")
	if next == "" {
		t.Fatal("no link to older entries")
	}
	doc = e.open(c, strings.TrimPrefix(strings.TrimSuffix(next, "#h-audit"), e.prefix))
	if n := doc.Find("table.audit tbody tr").Length(); n < 1 {
		t.Error("the second page is empty")
	}
	// The account page itself stays for user:read only.
	e.page(e.get(e.signIn("editor"), "/account"), http.StatusForbidden)
}
