//go:build browser

package admin

import (
	"context"
	"testing"

	"github.com/chromedp/cdproto/page"
	"github.com/chromedp/chromedp"

	"github.com/bwcms/cms/admin/internal/browsertest"
	"github.com/bwcms/cms/cms"
)

// The record form's scripts (drafts.js, picker.js, htmleditor.js,
// reorder.js): helpers of their browser tests, and the check of every
// kind's form with them active.

// openForm opens an admin page holding the record form and waits for its
// scripts: module scripts run before the load Navigate waits for; the
// HTML editors start a moment later.
func openForm(t *testing.T, e *env, tab context.Context, path string) {
	t.Helper()
	err := chromedp.Do(tab,
		chromedp.Navigate(e.url(path)),
		chromedp.WaitVisible(chromedp.CSS(`#record-form`)),
		waitEditors,
	)
	if err != nil {
		t.Fatalf("open %s: %v", path, err)
	}
}

// waitEditors waits until every HTML editor of the page has started.
var waitEditors = chromedp.Poll[chromedp.Void](`[...document.querySelectorAll("trix-editor")].every((e) => e.editor && e.toolbarElement)`)

// submit clicks the button sel, which submits a form, and waits for the
// page it leads to.
func submit(t *testing.T, tab context.Context, sel string) {
	t.Helper()
	_, err := chromedp.Run(tab, chromedp.WaitEvent(page.LoadEventFired, nil, chromedp.Click(chromedp.CSS(sel))))
	if err != nil {
		t.Fatalf("press %s: %v", sel, err)
	}
}

// js evaluates expr in the tab.
func js[T any](t *testing.T, tab context.Context, expr string) T {
	t.Helper()
	v, err := chromedp.Run(tab, chromedp.Evaluate[T](expr))
	if err != nil {
		t.Fatalf("evaluate %s: %v", expr, err)
	}
	return v
}

// TestBrowserFormWidgetsEveryKind opens the form of a full record of each
// kind, and a new one, with the widgets active (editors and their
// toolbars, pickers, drag handles): axe finds nothing serious, nothing is
// blocked or thrown.
func TestBrowserFormWidgetsEveryKind(t *testing.T) {
	e := newEnv(t, envOptions{prefix: "/admin"})
	seedFull(e)
	b := browsertest.New(t)
	tab := b.NewTab(t)
	signInBrowser(t, e, tab, "admin")
	for _, kind := range cms.Kinds() {
		for _, path := range []string{editPath(kind, oneID[kind]), "/" + string(kind) + "/new"} {
			openForm(t, e, tab, path)
			got := js[[]int](t, tab, `[document.querySelectorAll("textarea[data-html]").length, document.querySelectorAll("trix-editor").length,
				document.querySelectorAll(".idlist").length, document.querySelectorAll(".picker input[role=combobox]").length]`)
			if got[0] != 0 || got[2] != got[3] {
				t.Errorf("%s: %d HTML textareas left, %d editors; %d id lists, %d pickers", path, got[0], got[1], got[2], got[3])
			}
			browsertest.RequireNoSeriousAxe(t, tab)
			browsertest.Screenshot(t, tab, string(kind)+map[bool]string{true: "-new", false: ""}[path[len(path)-4:] == "/new"])
		}
	}
	browsertest.RequireNoErrors(t, tab)
}
