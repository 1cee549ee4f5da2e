//go:build browser

package admin

import (
	"strings"
	"testing"
	"time"

	"github.com/chromedp/chromedp"

	"github.com/bwcms/cms/admin/internal/browsertest"
)

// TestBrowserPeople: the users' pages and the account page pass axe and
// run no inline code; a user is added by keyboard with a generated
// password, a refusal is announced beside its field, a language is added.
func TestBrowserPeople(t *testing.T) {
	e := newEnv(t, envOptions{prefix: "/admin"})
	b := browsertest.New(t)
	tab := b.NewTab(t)
	signInBrowser(t, e, tab, "admin")

	visit := func(path, shot string) {
		t.Helper()
		if err := chromedp.Do(tab, chromedp.Navigate(e.url(path)), chromedp.WaitVisible(chromedp.CSS(`main h1`))); err != nil {
			t.Fatalf("%s: %v", path, err)
		}
		browsertest.RequireNoSeriousAxe(t, tab)
		browsertest.Screenshot(t, tab, shot)
	}
	visit("/users/", "users")
	visit("/users/editor", "user")
	visit("/users/editor/delete", "delete")
	visit("/account", "account")
	visit("/users/new", "new-user")

	// A name taken: the summary is focused and the field says why.
	err := chromedp.Do(tab,
		chromedp.SendKeys(chromedp.CSS(`#name`), "editor"),
		chromedp.Click(chromedp.CSS(`main form button[type=submit]`)),
		chromedp.WaitVisible(chromedp.CSS(`#name-error`)),
		// The page's script moves the focus after the page shows.
		chromedp.Poll[chromedp.Void](`document.activeElement.className === "error-summary"`, chromedp.WithPollingTimeout(10*time.Second)),
	)
	if err != nil {
		t.Fatal(err)
	}
	focused, err := chromedp.Run(tab, chromedp.Evaluate[string](`document.activeElement.className`))
	if err != nil || focused != "error-summary" {
		t.Errorf("focus after a refusal on %q (%v)", focused, err)
	}
	browsertest.RequireNoSeriousAxe(t, tab)
	browsertest.Screenshot(t, tab, "new-user-refused")
	browsertest.ClearErrors(tab) // the 409

	// By keyboard: a name, two boxes ticked with the space bar, Enter.
	err = chromedp.Do(tab,
		chromedp.Clear(chromedp.CSS(`#name`)),
		chromedp.SendKeys(chromedp.CSS(`#name`), "nina"),
		chromedp.Focus(chromedp.CSS(`#perm-resource-read`)),
		chromedp.KeyEvent(" "),
		chromedp.Focus(chromedp.CSS(`#perm-map-read`)),
		chromedp.KeyEvent(" "),
		chromedp.Focus(chromedp.CSS(`#name`)),
		chromedp.KeyEvent("\r"),
		chromedp.WaitVisible(chromedp.CSS(`#new-password`)),
	)
	if err != nil {
		t.Fatal(err)
	}
	pw, err := chromedp.Run(tab, chromedp.Evaluate[string](`document.querySelector("#new-password").value`))
	if err != nil || !e.canLogIn("nina", pw) {
		t.Errorf("nina cannot sign in with the password shown %q (%v)", pw, err)
	}
	if u, _ := e.store.GetUser(t.Context(), "nina"); strings.Join(u.Perms, ",") != "resource:read,map:read" {
		t.Errorf("nina's perms %v", u.Perms)
	}
	browsertest.RequireNoSeriousAxe(t, tab)
	browsertest.Screenshot(t, tab, "new-user-added")

	// A language added from the account page.
	err = chromedp.Do(tab,
		chromedp.Navigate(e.url("/account")),
		chromedp.WaitVisible(chromedp.CSS(`#lang`)),
		chromedp.SetValue(chromedp.CSS(`#lang`), "fr"),
		chromedp.Click(chromedp.CSS(`section[aria-labelledby=h-add] button`)),
		chromedp.WaitVisible(chromedp.CSS(`.notice.ok`)),
	)
	if err != nil {
		t.Fatal(err)
	}
	if got := e.langs(); got != "en,it,de,fr" {
		t.Errorf("languages %s", got)
	}
	browsertest.Screenshot(t, tab, "language-added")
	browsertest.RequireNoErrors(t, tab)
}
