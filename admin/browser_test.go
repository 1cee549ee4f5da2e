//go:build browser

package admin

import (
	"context"
	"testing"
	"time"

	"github.com/chromedp/chromedp"

	"github.com/bwcms/cms/admin/internal/browsertest"
	"github.com/bwcms/cms/internal/testenv"
)

// signInBrowser signs user in through the sign-in page, by keyboard as an
// editor would, and waits for the overview.
func signInBrowser(t *testing.T, e *env, tab context.Context, user string) {
	t.Helper()
	err := chromedp.Do(tab,
		chromedp.Navigate(e.url("/login")),
		chromedp.WaitVisible(chromedp.CSS(`#u`)),
		chromedp.SendKeys(chromedp.CSS(`#u`), user),
		chromedp.SendKeys(chromedp.CSS(`#p`), testenv.Password+"\r"),
		chromedp.WaitVisible(chromedp.CSS(`header .who`)),
	)
	if err != nil {
		t.Fatalf("sign in as %s: %v", user, err)
	}
}

// TestBrowserSignIn: the sign-in page and the overview pass axe, run no
// inline code, and signing out removes the user's drafts.
func TestBrowserSignIn(t *testing.T) {
	e := newEnv(t, envOptions{prefix: "/admin"})
	b := browsertest.New(t)
	tab := b.NewTab(t)
	if err := chromedp.Do(tab, chromedp.Navigate(e.url("/login")), chromedp.WaitVisible(chromedp.CSS(`#u`))); err != nil {
		t.Fatal(err)
	}
	browsertest.RequireNoSeriousAxe(t, tab)
	browsertest.Screenshot(t, tab, "login")

	// A wrong password: the message is announced and focused.
	// RunResponse waits for the answer to the submit: the sign-in page
	// shown before it has the same controls.
	_, err := chromedp.RunResponse(tab,
		chromedp.SendKeys(chromedp.CSS(`#u`), "admin"),
		chromedp.SendKeys(chromedp.CSS(`#p`), "wrong\r"),
	)
	if err == nil {
		err = chromedp.Do(tab, chromedp.WaitVisible(chromedp.CSS(`.error-summary`)))
	}
	if err != nil {
		t.Fatal(err)
	}
	focused, err := chromedp.Run(tab, chromedp.Evaluate[string](`document.activeElement.className`))
	if err != nil {
		t.Fatal(err)
	}
	if focused != "error-summary" {
		t.Errorf("focus after a wrong password is on %q", focused)
	}
	browsertest.ClearErrors(tab) // the 401 of the wrong password

	if err := chromedp.Do(tab, chromedp.Navigate(e.url("/login"))); err != nil {
		t.Fatal(err)
	}
	signInBrowser(t, e, tab, "admin")
	browsertest.RequireNoSeriousAxe(t, tab)
	browsertest.Screenshot(t, tab, "overview")

	// Something kept for admin and for another user in this browser.
	err = chromedp.Do(tab,
		chromedp.Evaluate[chromedp.Void](`localStorage.setItem("bwcms-admin:/admin:admin:draft:resource:x", "1");
			localStorage.setItem("bwcms-admin:/admin:reader:draft:resource:x", "1"), undefined`),
		chromedp.Click(chromedp.CSS(`.signout button`)),
		chromedp.WaitVisible(chromedp.CSS(`[data-signed-out]`)),
		// The page's script clears the drafts after the page shows: wait
		// for it (a loaded machine runs it late), then read what is left.
		chromedp.Poll[chromedp.Void](`!localStorage.getItem("bwcms-admin:/admin:admin:draft:resource:x")`, chromedp.WithPollingTimeout(10*time.Second)),
	)
	if err != nil {
		t.Fatal(err)
	}
	left, err := chromedp.Run(tab, chromedp.Evaluate[string](`Object.keys(localStorage).filter(k => k.startsWith("bwcms-admin:")).sort().join(",")`))
	if err != nil {
		t.Fatal(err)
	}
	if left != "bwcms-admin:/admin:reader:draft:resource:x" {
		t.Errorf("after sign-out the browser keeps %q", left)
	}
	browsertest.RequireNoErrors(t, tab)
}
