package admin

import (
	"net/http"
	"net/netip"
	"net/url"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/PuerkitoBio/goquery"
	"golang.org/x/text/language"

	"github.com/bwcms/cms/cms"
	"github.com/bwcms/cms/internal/testenv"
)

// addUser stores a user of acme with the fixtures' password.
func (e *env) addUser(name string, perms ...string) {
	e.t.Helper()
	if err := e.svc.CreateUser(e.t.Context(), cms.NewUser{Name: name, Account: "acme", Password: testenv.Password, Perms: perms}); err != nil {
		e.t.Fatal(err)
	}
}

// users are every stored user, for "nothing changed" checks.
func (e *env) users() []cms.User {
	e.t.Helper()
	us, err := e.store.ListUsers(e.t.Context(), "")
	if err != nil {
		e.t.Fatal(err)
	}
	return us
}

func (e *env) usersUnchanged(before []cms.User, what string) {
	e.t.Helper()
	after := e.users()
	if len(after) != len(before) {
		e.t.Fatalf("%s: %d users, want %d", what, len(after), len(before))
	}
	for i, b := range before {
		a := after[i]
		if a.Name != b.Name || a.PasswordHash != b.PasswordHash || !slices.Equal(a.Perms, b.Perms) || a.Disabled != b.Disabled {
			e.t.Errorf("%s changed %s: %+v, was %+v", what, b.Name, a, b)
		}
	}
}

func (e *env) langs() string {
	e.t.Helper()
	a, err := e.svc.Account(e.t.Context(), "acme")
	if err != nil {
		e.t.Fatal(err)
	}
	return a.Langs.String()
}

func (e *env) canLogIn(user, password string) bool {
	_, err := e.svc.Login(e.t.Context(), user, password, netip.Addr{})
	return err == nil
}

func texts(s *goquery.Selection) []string {
	var out []string
	s.Each(func(_ int, x *goquery.Selection) { out = append(out, strings.TrimSpace(x.Text())) })
	return out
}

func attr(s *goquery.Selection, name string) string {
	v, _ := s.Attr(name)
	return v
}

func TestUsersListsTheAccountsUsers(t *testing.T) {
	e := newEnv(t, envOptions{prefix: "/admin"})
	c := e.signIn("admin")
	doc := e.page(e.get(c, "/users/"), http.StatusOK)
	if got := texts(doc.Find("table.users tbody td:first-child a")); !slices.Equal(got, []string{"admin", "editor", "reader"}) {
		t.Errorf("users listed %v (otto is another account's)", got)
	}
	if href := attr(doc.Find(`table.users a:contains("editor")`), "href"); href != "/admin/users/editor" {
		t.Errorf("editor's link %q", href)
	}
	rows := map[string]string{}
	doc.Find("table.users tbody tr").Each(func(_ int, tr *goquery.Selection) {
		rows[strings.TrimSpace(tr.Find("td").First().Text())] = strings.TrimSpace(tr.Find("td.perms").Text())
	})
	want := map[string]string{
		"admin":  "Everything",
		"editor": "Resources: read, write, delete; Maps: read, write, delete",
		"reader": "Resources: read; Maps: read; Landings: read; Proposals: read; Files: read",
	}
	for n, w := range want {
		if rows[n] != w {
			t.Errorf("%s's permissions read %q, want %q", n, rows[n], w)
		}
	}
	if href := attr(doc.Find(`a.button:contains("Add user")`), "href"); href != "/admin/users/new" {
		t.Errorf("Add user link %q", href)
	}
	if cur := attr(doc.Find(`nav a[aria-current="page"]`), "href"); cur != "/admin/users/" {
		t.Errorf("current section %q", cur)
	}
}

func TestPeoplePagesNeedUserRead(t *testing.T) {
	e := newEnv(t, envOptions{prefix: "/admin"})
	for _, user := range []string{"reader", "editor"} {
		c := e.signIn(user)
		nav := texts(e.page(e.get(c, "/"), http.StatusOK).Find("header nav a"))
		if slices.Contains(nav, "Users") || slices.Contains(nav, "Account") {
			t.Errorf("%s's menu %v", user, nav)
		}
		for _, path := range []string{"/users/", "/users/new", "/users/admin", "/users/admin/delete", "/account"} {
			doc := e.page(e.get(c, path), http.StatusForbidden)
			if doc.Find("main form").Length() != 0 || doc.Find("table").Length() != 0 {
				t.Errorf("%s %s: the 403 page shows a form or a table", user, path)
			}
		}
	}
}

// A user with user:read sees the users and the account but no form, and
// a forged request of each form is refused by the service.
func TestUserReadSeesNoFormsAndForgedPostsAreRefused(t *testing.T) {
	e := newEnv(t, envOptions{prefix: "/admin"})
	e.addUser("watcher", "user:read", "*:read")
	c := e.signIn("watcher")
	nav := texts(e.page(e.get(c, "/"), http.StatusOK).Find("header nav a"))
	if !slices.Contains(nav, "Users") || !slices.Contains(nav, "Account") {
		t.Errorf("watcher's menu %v", nav)
	}
	doc := e.page(e.get(c, "/users/"), http.StatusOK)
	if doc.Find(`a:contains("Add user")`).Length() != 0 || doc.Find("table.users tbody tr").Length() != 4 {
		t.Errorf("watcher's list: add link %d, rows %d", doc.Find(`a:contains("Add user")`).Length(), doc.Find("table.users tbody tr").Length())
	}
	for _, path := range []string{"/users/editor", "/account"} {
		doc := e.page(e.get(c, path), http.StatusOK)
		if n := doc.Find("main form").Length(); n != 0 {
			t.Errorf("%s: %d forms for a user without user:write", path, n)
		}
		if n := doc.Find(`main a[href$="/delete"]`).Length(); n != 0 {
			t.Errorf("%s: a delete link", path)
		}
	}
	if li := texts(e.page(e.get(c, "/users/editor"), http.StatusOK).Find("dl.facts ul li")); !slices.Equal(li, []string{"Resources: read, write, delete", "Maps: read, write, delete"}) {
		t.Errorf("editor's permissions read %v", li)
	}
	e.page(e.get(c, "/users/new"), http.StatusForbidden)
	before, langs := e.users(), e.langs()
	for path, form := range map[string]url.Values{
		"/users/new":             {"name": {"mallory"}, "password": {"long enough"}, "perm": {"resource:read"}},
		"/users/editor/perms":    {"perm": {"resource:read"}},
		"/users/editor/password": {},
		"/users/editor/disabled": {"disabled": {"true"}},
		"/users/editor/delete":   {},
		"/account/languages":     {"lang": {"fr"}},
		"/account/default":       {"default": {"it"}},
	} {
		doc := e.page(e.post(c, path, form), http.StatusForbidden)
		if got := strings.TrimSpace(doc.Find("main p").First().Text()); got != "Your permissions do not allow this." {
			t.Errorf("POST %s: %q", path, got)
		}
	}
	e.usersUnchanged(before, "forged posts")
	if got := e.langs(); got != langs {
		t.Errorf("forged posts changed the languages: %s", got)
	}
}

func TestAddUserWithAGeneratedPassword(t *testing.T) {
	e := newEnv(t, envOptions{prefix: "/admin"})
	c := e.signIn("admin")
	form := e.page(e.get(c, "/users/new"), http.StatusOK).Find("main form")
	if attr(form, "action") != "/admin/users/new" || attr(form, "method") != "post" {
		t.Fatalf("form %q %q", attr(form, "action"), attr(form, "method"))
	}
	for _, id := range []string{"name", "generate", "password", "perm-all", "perm-resource-read", "perm-user-delete", "perm-webhook-write"} {
		in := form.Find("#" + id)
		if in.Length() != 1 || form.Find(`label[for="`+id+`"]`).Length() != 1 {
			t.Errorf("control %s: %d, labelled %d", id, in.Length(), form.Find(`label[for="`+id+`"]`).Length())
		}
		if _, off := in.Attr("disabled"); off {
			t.Errorf("%s disabled for admin (*)", id)
		}
	}
	res := e.post(c, "/users/new", url.Values{"name": {"nina"}, "generate": {"1"}, "password": {"ignored"},
		"perm": {"resource:read", "resource:write", "map:read"}})
	doc := e.page(res, http.StatusCreated)
	pw := attr(doc.Find("input#new-password"), "value")
	if len(pw) != cms.GeneratedPasswordLength {
		t.Fatalf("generated password shown %q", pw)
	}
	if !e.canLogIn("nina", pw) {
		t.Error("nina cannot sign in with the password shown")
	}
	u, err := e.store.GetUser(t.Context(), "nina")
	if err != nil || u.Account != "acme" || strings.Join(u.Perms, ",") != "resource:read,resource:write,map:read" {
		t.Errorf("nina stored as %+v, %v", u, err)
	}
	if href := attr(doc.Find(`main a:contains("Go to the page of nina")`), "href"); href != "/admin/users/nina" {
		t.Errorf("link to nina %q", href)
	}
	// Shown once: nina's page does not have it.
	if e.page(e.get(c, "/users/nina"), http.StatusOK).Find("#new-password").Length() != 0 {
		t.Error("the password is shown again")
	}
}

func TestAddUserWithAPassword(t *testing.T) {
	e := newEnv(t, envOptions{prefix: "/admin"})
	c := e.signIn("admin")
	res := e.post(c, "/users/new", url.Values{"name": {"olaf"}, "password": {"long enough"},
		"perm": {"user:read", "file:read", "file:write", "file:delete"}})
	if res.StatusCode != http.StatusSeeOther || res.Header.Get("Location") != "/admin/users/olaf?done=created" {
		t.Fatalf("status %d location %q", res.StatusCode, res.Header.Get("Location"))
	}
	if !e.canLogIn("olaf", "long enough") {
		t.Error("olaf cannot sign in")
	}
	if u, _ := e.store.GetUser(t.Context(), "olaf"); strings.Join(u.Perms, ",") != "file:*,user:read" {
		t.Errorf("olaf's perms %v", u.Perms)
	}
	doc := e.page(e.get(c, "/users/olaf?done=created"), http.StatusOK)
	if got := strings.TrimSpace(doc.Find(".notice.ok").Text()); got != "The user was added." {
		t.Errorf("notice %q", got)
	}
}

// Refusals of the new-user form: the summary links to the field, the
// field says it beside itself, what was typed stays, nothing is stored.
func TestAddUserRefusalsBesideTheirField(t *testing.T) {
	e := newEnv(t, envOptions{prefix: "/admin"})
	c := e.signIn("admin")
	before := e.users()
	for _, tc := range []struct {
		name   string
		form   url.Values
		status int
		field  string // the control the summary links to
		errID  string
		text   string
	}{
		{"taken here", url.Values{"name": {"editor"}, "password": {"long enough"}}, http.StatusConflict, "name", "name-error", "taken"},
		{"taken in another account", url.Values{"name": {"otto"}, "password": {"long enough"}}, http.StatusConflict, "name", "name-error", "taken"},
		{"bad name", url.Values{"name": {"a b"}, "password": {"long enough"}}, http.StatusConflict, "name", "name-error", "username"},
		{"short password", url.Values{"name": {"bob"}, "password": {"short"}}, http.StatusConflict, "password", "password-error", "at least 8"},
		{"no password", url.Values{"name": {"bob"}}, http.StatusConflict, "password", "password-error", "at least 8"},
		{"forged permission", url.Values{"name": {"bob"}, "password": {"long enough"}, "perm": {"map:fly"}}, http.StatusConflict, "perm-all", "perms-error", "map:fly"},
	} {
		doc := e.page(e.post(c, "/users/new", tc.form), tc.status)
		link := doc.Find(".error-summary a")
		if attr(link, "href") != "#"+tc.field || !strings.Contains(link.Text(), tc.text) {
			t.Errorf("%s: summary links %q with %q", tc.name, attr(link, "href"), link.Text())
		}
		if got := doc.Find("#" + tc.errID).Text(); !strings.Contains(got, tc.text) {
			t.Errorf("%s: beside the field %q", tc.name, got)
		}
		if tc.field != "perm-all" && attr(doc.Find("#"+tc.field), "aria-invalid") != "true" {
			t.Errorf("%s: #%s not marked invalid", tc.name, tc.field)
		}
		if got := attr(doc.Find("#name"), "value"); got != tc.form.Get("name") {
			t.Errorf("%s: name kept as %q", tc.name, got)
		}
		if attr(doc.Find("#password"), "value") != "" {
			t.Errorf("%s: the password is sent back", tc.name)
		}
	}
	e.usersUnchanged(before, "refused new users")
}

// Only the boxes the caller may grant can be ticked; the service refuses
// a forged grant and the management of a user above the caller.
func TestPermissionGridFollowsTheCaller(t *testing.T) {
	e := newEnv(t, envOptions{prefix: "/admin"})
	e.addUser("boss", "user:*", "resource:*")
	c := e.signIn("boss")
	form := e.page(e.get(c, "/users/new"), http.StatusOK).Find("main form")
	for id, enabled := range map[string]bool{"perm-all": false, "perm-resource-read": true, "perm-resource-delete": true,
		"perm-user-write": true, "perm-map-read": false, "perm-file-read": false, "perm-webhook-read": false} {
		_, off := form.Find("#" + id).Attr("disabled")
		if off == enabled {
			t.Errorf("%s enabled %v, want %v", id, !off, enabled)
		}
	}
	before := e.users()
	doc := e.page(e.post(c, "/users/new", url.Values{"name": {"bob"}, "password": {"long enough"}, "perm": {"resource:read", "map:read"}}), http.StatusForbidden)
	if got := doc.Find("#perms-error").Text(); !strings.Contains(got, "map:read") {
		t.Errorf("forged grant: beside the grid %q", got)
	}
	if attr(doc.Find(".error-summary a"), "href") != "#perm-resource-read" {
		t.Errorf("summary links %q", attr(doc.Find(".error-summary a"), "href"))
	}
	if _, on := doc.Find("#perm-resource-read").Attr("checked"); !on {
		t.Error("the boxes sent are not kept")
	}
	// editor holds map:*, which boss does not: no forms, and no change.
	doc = e.page(e.get(c, "/users/editor"), http.StatusOK)
	if doc.Find("main form").Length() != 0 || !strings.Contains(doc.Find(".notice.warn").Text(), "map:read") {
		t.Errorf("a user above: %d forms, notice %q", doc.Find("main form").Length(), doc.Find(".notice.warn").Text())
	}
	for path, form := range map[string]url.Values{
		"/users/editor/perms":    {"perm": {"resource:read"}},
		"/users/editor/password": {},
		"/users/editor/disabled": {"disabled": {"true"}},
		"/users/editor/delete":   {},
	} {
		doc := e.page(e.post(c, path, form), http.StatusForbidden)
		if got := doc.Find(".error-summary").Text(); !strings.Contains(got, "holds map:") {
			t.Errorf("POST %s: summary %q", path, got)
		}
	}
	e.usersUnchanged(before, "refused by boss")
	// Below boss: changeable.
	res := e.post(c, "/users/reader/perms", url.Values{"perm": {"resource:read"}})
	if res.StatusCode != http.StatusForbidden {
		t.Errorf("reader holds *:read, above boss: status %d", res.StatusCode)
	}
	e.addUser("temp", "resource:read")
	if res := e.post(c, "/users/temp/perms", url.Values{"perm": {"resource:read", "resource:write"}}); res.StatusCode != http.StatusSeeOther {
		t.Errorf("boss changes temp: %d", res.StatusCode)
	}
}

func TestChangePermissionsFromTheGrid(t *testing.T) {
	e := newEnv(t, envOptions{prefix: "/admin"})
	c := e.signIn("admin")
	doc := e.page(e.get(c, "/users/editor"), http.StatusOK)
	form := doc.Find(`main form[action="/admin/users/editor/perms"]`)
	if form.Length() != 1 {
		t.Fatal("no permissions form")
	}
	var ticked []string
	form.Find("input[name=perm][checked]").Each(func(_ int, s *goquery.Selection) { ticked = append(ticked, attr(s, "value")) })
	if want := []string{"resource:read", "resource:write", "resource:delete", "map:read", "map:write", "map:delete"}; !slices.Equal(ticked, want) {
		t.Errorf("ticked %v, want %v", ticked, want)
	}
	for _, tc := range []struct {
		sent []string
		want string
	}{
		{[]string{"resource:read", "resource:write", "resource:delete", "map:read"}, "resource:*,map:read"},
		{[]string{"resource:read", "map:read", "landing:read", "proposal:read", "file:read", "user:read"}, "*:read,user:read"},
		{[]string{"*", "resource:read"}, "*"},
		{nil, ""},
	} {
		res := e.post(c, "/users/editor/perms", url.Values{"perm": tc.sent})
		if res.StatusCode != http.StatusSeeOther || res.Header.Get("Location") != "/admin/users/editor?done=perms" {
			t.Fatalf("%v: status %d location %q", tc.sent, res.StatusCode, res.Header.Get("Location"))
		}
		if u, _ := e.store.GetUser(t.Context(), "editor"); strings.Join(u.Perms, ",") != tc.want {
			t.Errorf("sent %v: stored %v, want %s", tc.sent, u.Perms, tc.want)
		}
	}
	doc = e.page(e.get(c, "/users/editor?done=perms"), http.StatusOK)
	if !strings.Contains(doc.Find(".notice.ok").Text(), "Permissions saved") {
		t.Errorf("notice %q", doc.Find(".notice.ok").Text())
	}
	if doc.Find("input[name=perm][checked]").Length() != 0 || texts(doc.Find("dl.facts ul li"))[0] != "No permissions" {
		t.Error("editor without permissions still shows some")
	}
}

func TestFormPermsWritesThemShort(t *testing.T) {
	for _, tc := range []struct {
		in   []string
		want string
	}{
		{nil, ""},
		{[]string{"resource:read"}, "resource:read"},
		{[]string{"resource:read", "resource:write", "resource:delete"}, "resource:*"},
		{[]string{"webhook:read", "webhook:write", "webhook:delete", "user:read"}, "webhook:*,user:read"},
		{[]string{"resource:write", "map:write", "landing:write", "proposal:write", "file:write", "resource:read"}, "*:write,resource:read"},
		{[]string{"*"}, "*"},
		{[]string{"map:fly", "resource:read"}, "map:fly,resource:read"},
	} {
		if got := strings.Join(formPerms(tc.in), ","); got != tc.want {
			t.Errorf("formPerms(%v) = %s, want %s", tc.in, got, tc.want)
		}
	}
	// Every box ticked is everything; the kinds' and files' rows are *:*.
	all := slices.Collect(func(yield func(string) bool) {
		for v := range allows([]string{"*"}) {
			if !yield(v) {
				return
			}
		}
	})
	if got := strings.Join(formPerms(all), ","); got != "*" {
		t.Errorf("every box: %s", got)
	}
	var kinds []string
	for _, v := range all {
		if !strings.HasPrefix(v, "webhook:") && !strings.HasPrefix(v, "user:") {
			kinds = append(kinds, v)
		}
	}
	if got := strings.Join(formPerms(kinds), ","); got != "*:*" {
		t.Errorf("every kind and files: %s", got)
	}
	// What the short form allows is what was ticked.
	for _, in := range [][]string{kinds, {"map:read", "file:delete", "user:write"}} {
		if got, want := allows(formPerms(in)), allows(in); len(got) != len(want) {
			t.Errorf("%v: allows %v, want %v", in, got, want)
		}
	}
}

func TestResetPasswordShowsTheNewOneOnce(t *testing.T) {
	e := newEnv(t, envOptions{prefix: "/admin"})
	c := e.signIn("admin")
	editor := e.signIn("editor")
	doc := e.page(e.post(c, "/users/editor/password", nil), http.StatusOK)
	pw := attr(doc.Find("input#new-password"), "value")
	if len(pw) != cms.GeneratedPasswordLength || doc.Find(`label[for="new-password"]`).Length() != 1 {
		t.Fatalf("new password shown %q", pw)
	}
	if !e.canLogIn("editor", pw) || e.canLogIn("editor", testenv.Password) {
		t.Error("the password shown is not the one in force")
	}
	// editor's session ended with its refresh token; once the access
	// token is gone, the admin sends editor to sign in.
	e.clock.Advance(16 * time.Minute)
	if res := e.get(editor, "/"); res.StatusCode != http.StatusSeeOther {
		t.Errorf("editor's session after the reset: %d", res.StatusCode)
	}
	if e.page(e.get(c, "/users/editor"), http.StatusOK).Find("#new-password").Length() != 0 {
		t.Error("shown again")
	}
}

func TestDisableAndEnableAUser(t *testing.T) {
	e := newEnv(t, envOptions{prefix: "/admin"})
	c := e.signIn("admin")
	editor := e.signIn("editor")
	form := e.page(e.get(c, "/users/editor"), http.StatusOK).Find(`form[action="/admin/users/editor/disabled"]`)
	if attr(form.Find(`input[name=disabled]`), "value") != "true" || !strings.Contains(form.Find("button").Text(), "Disable editor") {
		t.Fatalf("disable form: %q", form.Text())
	}
	res := e.post(c, "/users/editor/disabled", url.Values{"disabled": {"true"}})
	if res.StatusCode != http.StatusSeeOther || res.Header.Get("Location") != "/admin/users/editor?done=disabled" {
		t.Fatalf("disable: %d %q", res.StatusCode, res.Header.Get("Location"))
	}
	if u, _ := e.store.GetUser(t.Context(), "editor"); !u.Disabled {
		t.Error("editor not disabled")
	}
	if res := e.get(editor, "/"); res.StatusCode != http.StatusSeeOther {
		t.Errorf("disabled editor's session goes on: %d", res.StatusCode)
	}
	doc := e.page(e.get(c, "/users/editor?done=disabled"), http.StatusOK)
	if doc.Find("h1 .badge.off").Length() != 1 || !strings.Contains(doc.Find(`form[action$="/disabled"] button`).Text(), "Enable editor") {
		t.Error("the page does not show editor disabled")
	}
	if got := texts(e.page(e.get(c, "/users/"), http.StatusOK).Find(`table.users tr:contains("editor") .badge`)); !slices.Equal(got, []string{"disabled"}) {
		t.Errorf("list shows %v", got)
	}
	if res := e.post(c, "/users/editor/disabled", url.Values{"disabled": {"false"}}); res.StatusCode != http.StatusSeeOther {
		t.Fatalf("enable: %d", res.StatusCode)
	}
	if !e.canLogIn("editor", testenv.Password) {
		t.Error("enabled editor cannot sign in")
	}
}

// Callers cannot disable or delete themselves, nor take away their own
// user permissions: the page offers none of it, and a forged request is
// a 409 that says why.
func TestNoOneLocksThemselvesOut(t *testing.T) {
	e := newEnv(t, envOptions{prefix: "/admin"})
	c := e.signIn("admin")
	doc := e.page(e.get(c, "/users/admin"), http.StatusOK)
	if doc.Find("#status").Length() != 0 || doc.Find("#delete").Length() != 0 || doc.Find(`a[href$="/delete"]`).Length() != 0 {
		t.Error("admin is offered to disable or delete themselves")
	}
	if !strings.Contains(doc.Find("main p.hint").Text(), "cannot disable or delete yourself") {
		t.Error("no word on why")
	}
	before := e.users()
	for _, tc := range []struct {
		path string
		form url.Values
		text string
	}{
		{"/users/admin/disabled", url.Values{"disabled": {"true"}}, "you cannot disable yourself"},
		{"/users/admin/delete", nil, "you cannot delete yourself"},
		{"/users/admin/perms", url.Values{"perm": {"resource:read", "resource:write", "resource:delete"}}, "your own permission user:read"},
	} {
		doc := e.page(e.post(c, tc.path, tc.form), http.StatusConflict)
		if got := doc.Find(".error-summary").Text(); !strings.Contains(got, tc.text) {
			t.Errorf("POST %s: %q", tc.path, got)
		}
	}
	if got := doc.Find("#perms-error").Text(); got != "" {
		t.Errorf("stale error %q", got)
	}
	doc = e.page(e.post(c, "/users/admin/perms", url.Values{"perm": {"resource:read"}}), http.StatusConflict)
	if got := doc.Find("#perms-error").Text(); !strings.Contains(got, "your own permission") {
		t.Errorf("beside the grid: %q", got)
	}
	e.usersUnchanged(before, "self-protection")
}

func TestDeleteAUserAfterConfirming(t *testing.T) {
	e := newEnv(t, envOptions{prefix: "/admin"})
	c := e.signIn("admin")
	editor := e.signIn("editor")
	link := e.page(e.get(c, "/users/editor"), http.StatusOK).Find(`#delete a`)
	if attr(link, "href") != "/admin/users/editor/delete" {
		t.Fatalf("delete link %q", attr(link, "href"))
	}
	doc := e.page(e.get(c, "/users/editor/delete"), http.StatusOK)
	form := doc.Find("main form")
	if attr(form, "action") != "/admin/users/editor/delete" || attr(form, "method") != "post" || attr(doc.Find(`main a:contains("Cancel")`), "href") != "/admin/users/editor" {
		t.Fatalf("confirmation: form %q, cancel %q", attr(form, "action"), attr(doc.Find(`main a:contains("Cancel")`), "href"))
	}
	if _, err := e.store.GetUser(t.Context(), "editor"); err != nil {
		t.Fatal("the confirmation page deleted editor")
	}
	res := e.post(c, "/users/editor/delete", nil)
	if res.StatusCode != http.StatusSeeOther || res.Header.Get("Location") != "/admin/users/?deleted=editor" {
		t.Fatalf("delete: %d %q", res.StatusCode, res.Header.Get("Location"))
	}
	if _, err := e.store.GetUser(t.Context(), "editor"); cms.ErrorCode(err) != cms.CodeNotFound {
		t.Errorf("editor still stored: %v", err)
	}
	doc = e.page(e.get(c, "/users/?deleted=editor"), http.StatusOK)
	if !strings.Contains(doc.Find(".notice.ok").Text(), "editor was deleted") || doc.Find(`table.users a:contains("editor")`).Length() != 0 {
		t.Error("the list after the deletion")
	}
	if res := e.get(editor, "/"); res.StatusCode != http.StatusSeeOther {
		t.Errorf("deleted editor's session goes on: %d", res.StatusCode)
	}
	// Without user:delete: no link, no confirmation, a refused POST.
	e.addUser("clerk", "user:read", "user:write", "*:read")
	clerk := e.signIn("clerk")
	if e.page(e.get(clerk, "/users/reader"), http.StatusOK).Find(`a[href$="/delete"]`).Length() != 0 {
		t.Error("a delete link without user:delete")
	}
	e.page(e.get(clerk, "/users/reader/delete"), http.StatusForbidden)
	e.page(e.post(clerk, "/users/reader/delete", nil), http.StatusForbidden)
	if _, err := e.store.GetUser(t.Context(), "reader"); err != nil {
		t.Errorf("reader deleted by clerk: %v", err)
	}
}

func TestAnotherAccountsUserIsMissing(t *testing.T) {
	e := newEnv(t, envOptions{prefix: "/admin"})
	c := e.signIn("admin")
	before := e.users()
	e.page(e.get(c, "/users/otto"), http.StatusNotFound)
	e.page(e.get(c, "/users/nobody"), http.StatusNotFound)
	e.page(e.get(c, "/users/otto/delete"), http.StatusNotFound)
	for path, form := range map[string]url.Values{
		"/users/otto/perms":    {"perm": {"resource:read"}},
		"/users/otto/password": {},
		"/users/otto/disabled": {"disabled": {"true"}},
		"/users/otto/delete":   {},
	} {
		e.page(e.post(c, path, form), http.StatusNotFound)
	}
	e.usersUnchanged(before, "another account's user")
}

// Usernames that cannot be a path segment of their own have addresses
// all the same.
func TestAwkwardUsernamesHaveAddresses(t *testing.T) {
	e := newEnv(t, envOptions{prefix: "/admin"})
	for _, n := range []string{"new", "..", ".", "a@b.example"} {
		e.addUser(n, "resource:read")
	}
	c := e.signIn("admin")
	doc := e.page(e.get(c, "/users/"), http.StatusOK)
	for name, href := range map[string]string{"new": "/admin/users/~new", "..": "/admin/users/~..", ".": "/admin/users/~.", "a@b.example": "/admin/users/a@b.example"} {
		var got string
		doc.Find("table.users tbody td:first-child a").Each(func(_ int, a *goquery.Selection) {
			if a.Text() == name {
				got = attr(a, "href")
			}
		})
		if got != href {
			t.Errorf("%s: link %q, want %q", name, got, href)
			continue
		}
		page := e.page(e.get(c, strings.TrimPrefix(href, "/admin")), http.StatusOK)
		if h1 := strings.TrimSpace(page.Find("h1").Text()); h1 != "User "+name {
			t.Errorf("%s: page %q", name, h1)
		}
		if act := attr(page.Find(`form[action$="/disabled"]`), "action"); act != href+"/disabled" {
			t.Errorf("%s: disable form %q", name, act)
		}
	}
	if res := e.post(c, "/users/~../disabled", url.Values{"disabled": {"true"}}); res.StatusCode != http.StatusSeeOther {
		t.Errorf("disable ..: %d", res.StatusCode)
	}
	if u, _ := e.store.GetUser(t.Context(), ".."); !u.Disabled {
		t.Error(".. not disabled")
	}
	if h1 := e.page(e.get(c, "/users/new"), http.StatusOK).Find("h1").Text(); h1 != "Add a user" {
		t.Errorf("/users/new is %q", h1)
	}
}

func TestAccountLanguages(t *testing.T) {
	e := newEnv(t, envOptions{prefix: "/admin"})
	c := e.signIn("admin")
	p, err := e.svc.AccountLanguages(t.Context(), cms.Principal{Account: "acme", User: "admin", Perms: []string{"*"}})
	if err != nil {
		t.Fatal(err)
	}
	if _, err := e.svc.Upsert(cms.WithPrincipal(t.Context(), p), cms.KindResource, []byte(`{"id":"r-1","title":"Mountain"}`), nil); err != nil {
		t.Fatal(err)
	}
	doc := e.page(e.get(c, "/account"), http.StatusOK)
	if got := texts(doc.Find("table.langs tbody td:first-child")); !slices.Equal(got, []string{"en", "it", "de"}) {
		t.Errorf("languages %v", got)
	}
	if got := texts(doc.Find("table.langs tbody tr.default td:nth-child(2)")); !slices.Equal(got, []string{"English"}) {
		t.Errorf("default marked on %v", got)
	}
	opts := doc.Find(`select#lang option[value!=""]`)
	if opts.Length() != len(isoLanguages)-3 || doc.Find(`select#lang option[value="it"]`).Length() != 0 {
		t.Errorf("%d languages to add, it among them: %d", opts.Length(), doc.Find(`select#lang option[value="it"]`).Length())
	}
	if got := strings.TrimSpace(doc.Find(`select#lang option[value="fr"]`).Text()); got != "French (fr)" {
		t.Errorf("fr reads %q", got)
	}
	if doc.Find(`label[for="lang"]`).Length() != 1 || doc.Find(`label[for="default"]`).Length() != 1 {
		t.Error("unlabelled select")
	}

	res := e.post(c, "/account/languages", url.Values{"lang": {"fr"}})
	if res.StatusCode != http.StatusSeeOther {
		t.Fatalf("add fr: %d", res.StatusCode)
	}
	if got := e.langs(); got != "en,it,de,fr" {
		t.Errorf("languages after adding fr: %s", got)
	}
	doc = e.page(e.get(c, strings.TrimPrefix(res.Header.Get("Location"), "/admin")), http.StatusOK)
	if got := doc.Find(".notice.ok").Text(); !strings.Contains(got, "French (fr) was added. 1 record got an address (urlAlias) in it") {
		t.Errorf("notice %q", got)
	}
	if got := texts(doc.Find("table.langs tbody td:first-child")); !slices.Equal(got, []string{"en", "it", "de", "fr"}) {
		t.Errorf("languages shown %v", got)
	}

	res = e.post(c, "/account/default", url.Values{"default": {"it"}})
	if res.StatusCode != http.StatusSeeOther {
		t.Fatalf("default it: %d", res.StatusCode)
	}
	if got := e.langs(); got != "it,en,de,fr" {
		t.Errorf("languages after the default changed: %s", got)
	}
	doc = e.page(e.get(c, strings.TrimPrefix(res.Header.Get("Location"), "/admin")), http.StatusOK)
	if got := texts(doc.Find("table.langs tbody tr.default td:nth-child(2)")); !slices.Equal(got, []string{"Italian"}) {
		t.Errorf("default marked on %v", got)
	}
	if !strings.Contains(doc.Find(".notice.ok").Text(), "Italian (it) is the default language now") {
		t.Errorf("notice %q", doc.Find(".notice.ok").Text())
	}

	// Refusals beside their field; nothing changes.
	for _, tc := range []struct {
		path, field, value, text string
	}{
		{"/account/languages", "lang", "FR", "two lowercase letters"},
		{"/account/languages", "lang", "", "two lowercase letters"},
		{"/account/default", "default", "es", "add it first"},
	} {
		doc := e.page(e.post(c, tc.path, url.Values{tc.field: {tc.value}}), http.StatusConflict)
		if attr(doc.Find(".error-summary a"), "href") != "#"+tc.field || !strings.Contains(doc.Find("#"+tc.field+"-error").Text(), tc.text) {
			t.Errorf("%s: summary %q, beside %q", tc.path, attr(doc.Find(".error-summary a"), "href"), doc.Find("#"+tc.field+"-error").Text())
		}
		if attr(doc.Find("#"+tc.field), "aria-invalid") != "true" {
			t.Errorf("%s: not marked invalid", tc.field)
		}
	}
	if got := e.langs(); got != "it,en,de,fr" {
		t.Errorf("refusals changed the languages: %s", got)
	}
}

func TestLanguageListIsISO6391(t *testing.T) {
	if len(isoLanguages) != 183 {
		t.Errorf("%d languages, want 183", len(isoLanguages))
	}
	for i, l := range isoLanguages {
		if i > 0 && isoLanguages[i-1].Code >= l.Code {
			t.Errorf("%s after %s", l.Code, isoLanguages[i-1].Code)
		}
		if b, err := language.ParseBase(l.Code); err != nil || b.String() != l.Code || l.Name == "" {
			t.Errorf("%s (%s): %v", l.Code, l.Name, err)
		}
	}
	if languageName("it") != "Italian" || languageName("qq") != "qq" {
		t.Error("languageName")
	}
}

// TestMissingUserPageShowsNoTextFromTheAddress: the page of a user that
// does not exist names a username only; other text a link put in the
// address is not shown.
func TestMissingUserPageShowsNoTextFromTheAddress(t *testing.T) {
	e := newEnv(t, envOptions{prefix: "/admin"})
	c := e.signIn("admin")
	doc := e.page(e.get(c, "/users/"+url.PathEscape("Your password expired, call 555-0100")), http.StatusNotFound)
	if got := strings.Join(strings.Fields(doc.Find("main").Text()), " "); strings.Contains(got, "555-0100") {
		t.Errorf("page says %q", got)
	}
	doc = e.page(e.get(c, "/users/nobody"), http.StatusNotFound)
	if got := strings.Join(strings.Fields(doc.Find("main").Text()), " "); !strings.Contains(got, `"nobody"`) {
		t.Errorf("page says %q", got)
	}
}
