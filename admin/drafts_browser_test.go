//go:build browser

package admin

import (
	"context"
	"strings"
	"sync/atomic"
	"testing"

	"github.com/chromedp/cdproto/cdp"
	"github.com/chromedp/cdproto/page"
	"github.com/chromedp/chromedp"
	"github.com/chromedp/chromedp/kb"

	"github.com/bwcms/cms/admin/internal/browsertest"
	"github.com/bwcms/cms/cms"
)

// leaveDialogs accepts every "leave this page?" dialog of the tab (a
// navigation waits for it) and counts them.
func leaveDialogs(t *testing.T, tab context.Context) *atomic.Int32 {
	t.Helper()
	var n atomic.Int32
	err := chromedp.Listen(tab, func(ev any) {
		if d, ok := ev.(*page.EventJavascriptDialogOpening); ok && d.Type == page.DialogTypeBeforeunload {
			n.Add(1)
			go func() {
				_ = chromedp.Do(tab, chromedp.Func(func(ctx context.Context, tgt *chromedp.Target) error {
					_, err := cdp.Call(ctx, tgt, page.HandleJavaScriptDialog, page.HandleJavaScriptDialogParams{Accept: true})
					return err
				}))
			}()
		}
	})
	if err != nil {
		t.Fatal(err)
	}
	return &n
}

// draftOf is the draft kept in the tab for admin under name
// ("resource:r-1"), as JSON; "" when there is none.
func draftOf(t *testing.T, tab context.Context, name string) string {
	t.Helper()
	return js[string](t, tab, `localStorage.getItem("bwcms-admin:/admin:admin:draft:`+name+`") || ""`)
}

// waitDraft waits until the draft name holds text.
func waitDraft(t *testing.T, tab context.Context, name, text string) {
	t.Helper()
	err := chromedp.Do(tab, chromedp.Poll[chromedp.Void](`(localStorage.getItem("bwcms-admin:/admin:admin:draft:`+name+`") || "").includes(`+jsString(text)+`)`))
	if err != nil {
		t.Fatalf("no draft %s holding %q: %v (it holds %s)", name, text, err, draftOf(t, tab, name))
	}
}

// typeAtEnd types text at the end of the value of the text input sel.
func typeAtEnd(sel, text string) chromedp.Action[chromedp.Void] {
	return chromedp.Steps(chromedp.Focus(chromedp.CSS(sel)), chromedp.KeyEvent(kb.End), chromedp.KeyEvent(text))
}

func jsString(s string) string {
	var b strings.Builder
	b.WriteByte('"')
	for _, r := range s {
		switch r {
		case '"', '\\':
			b.WriteByte('\\')
			b.WriteRune(r)
		case '\n':
			b.WriteString(`\n`)
		default:
			b.WriteRune(r)
		}
	}
	b.WriteByte('"')
	return b.String()
}

// TestBrowserDraftRestore: what an editor types is kept in the browser;
// the form opened again offers it (focused, keyboard reachable, axe
// clean); restoring shows it without saving; the save stores it and
// forgets the draft. A draft discarded is forgotten and the stored values
// stay. A new record's draft works the same, forgotten once created.
func TestBrowserDraftRestore(t *testing.T) {
	e := newEnv(t, envOptions{prefix: "/admin"})
	e.put(cms.KindResource, `{"id":"r-1","title":"Lake","title_it":"Lago"}`)
	b := browsertest.New(t)
	tab := b.NewTab(t)
	leaveDialogs(t, tab)
	signInBrowser(t, e, tab, "admin")
	path := "/resource/r-1/edit"
	openForm(t, e, tab, path)
	if draftOf(t, tab, "resource:r-1") != "" {
		t.Fatal("a draft before any change")
	}
	if err := chromedp.Do(tab, typeAtEnd(`#f-title_it`, " Maggiore")); err != nil {
		t.Fatal(err)
	}
	waitDraft(t, tab, "resource:r-1", "Lago Maggiore")

	openForm(t, e, tab, path)
	offer := js[string](t, tab, `(() => { const o = document.querySelector(".draft-offer");
		return [o === document.activeElement, o.textContent.replace(/\s+/g, " ").trim(), document.getElementById("f-title_it").value,
			o.querySelector(".draft-stale") !== null].join("|") })()`)
	if !strings.HasPrefix(offer, "true|You have unsaved changes from ") || !strings.HasSuffix(offer, "|Lago|false") ||
		!strings.Contains(offer, "Restore your unsaved changes") || !strings.Contains(offer, "Discard them") {
		t.Errorf("the offer: %s", offer)
	}
	browsertest.RequireNoSeriousAxe(t, tab)
	browsertest.Screenshot(t, tab, "offer")
	// By keyboard: Tab from the offer reaches Restore.
	err := chromedp.Do(tab, chromedp.KeyEvent("\t"))
	if err != nil {
		t.Fatal(err)
	}
	if got := js[string](t, tab, `document.activeElement.textContent`); got != "Restore your unsaved changes" {
		t.Fatalf("Tab from the offer reaches %q", got)
	}
	if _, err := chromedp.Run(tab, chromedp.WaitEvent(page.LoadEventFired, nil, chromedp.KeyEvent("\r"))); err != nil {
		t.Fatal(err)
	}
	if err := chromedp.Do(tab, chromedp.WaitVisible(chromedp.CSS(`#record-form`)), waitEditors); err != nil {
		t.Fatal(err)
	}
	restored := js[string](t, tab, `[document.getElementById("f-title_it").value, document.querySelector("#record-form").hasAttribute("data-unsaved"),
		document.querySelectorAll(".draft-offer").length, document.querySelector(".notice.ok").textContent.trim()].join("|")`)
	if restored != "Lago Maggiore|true|0|Your unsaved changes are back in the form. Nothing is saved until you save." {
		t.Errorf("restored: %s", restored)
	}
	if got := e.stored(cms.KindResource, "r-1")["title_it"]; got != "Lago" {
		t.Errorf("restoring saved %v", got)
	}
	save(t, tab)
	if got := e.stored(cms.KindResource, "r-1")["title_it"]; got != "Lago Maggiore" {
		t.Errorf("stored %v after saving the draft", got)
	}
	if d := draftOf(t, tab, "resource:r-1"); d != "" {
		t.Errorf("the draft is kept after the save: %s", d)
	}

	// Discard: forgotten, the stored values stay.
	if err := chromedp.Do(tab, typeAtEnd(`#f-title`, " shore")); err != nil {
		t.Fatal(err)
	}
	waitDraft(t, tab, "resource:r-1", "Lake shore")
	openForm(t, e, tab, path)
	if err := chromedp.Do(tab, chromedp.Click(chromedp.CSS(`.draft-offer .draft-discard`))); err != nil {
		t.Fatal(err)
	}
	if got := js[string](t, tab, `document.querySelectorAll(".draft-offer").length + "|" + document.getElementById("f-title").value`); got != "0|Lake" {
		t.Errorf("after Discard: %s", got)
	}
	if d := draftOf(t, tab, "resource:r-1"); d != "" {
		t.Errorf("the draft is kept after Discard: %s", d)
	}
	openForm(t, e, tab, path)
	if n := js[int](t, tab, `document.querySelectorAll(".draft-offer").length`); n != 0 {
		t.Error("a discarded draft is offered again")
	}

	// A new record.
	openForm(t, e, tab, "/resource/new")
	err = chromedp.Do(tab,
		chromedp.SendKeys(chromedp.CSS(`#f-id`), "fresh"),
		typeAtEnd(`#f-title`, "Fresh"),
	)
	if err != nil {
		t.Fatal(err)
	}
	waitDraft(t, tab, "resource:new", "Fresh")
	openForm(t, e, tab, "/resource/new")
	submit(t, tab, `.draft-offer .draft-restore`)
	if got := js[string](t, tab, `document.getElementById("f-id").value + "|" + document.getElementById("f-title").value`); got != "fresh|Fresh" {
		t.Fatalf("restored new record: %s", got)
	}
	save(t, tab)
	if got := js[string](t, tab, `location.pathname + "|" + document.querySelector("#record-form").dataset.saved`); got != "/admin/resource/fresh/edit|created" {
		t.Errorf("after creating: %s", got)
	}
	if e.stored(cms.KindResource, "fresh")["title"] != "Fresh" {
		t.Error("the new record is not stored")
	}
	if d := draftOf(t, tab, "resource:new"); d != "" {
		t.Errorf("the new record's draft is kept after it was created: %s", d)
	}
	browsertest.RequireNoErrors(t, tab)
}

// TestBrowserDraftOfAnOlderVersion: someone else saved after the draft
// was made: it is still offered, saying so; restored it keeps the
// version it was made from, so the save shows the conflict view and
// overwrites nothing. A draft's markup, restored, runs nothing.
func TestBrowserDraftOfAnOlderVersion(t *testing.T) {
	e := newEnv(t, envOptions{prefix: "/admin"})
	e.put(cms.KindResource, `{"id":"r-1","title":"Lake","shortDescription":"Blue"}`)
	b := browsertest.New(t)
	tab := b.NewTab(t)
	leaveDialogs(t, tab)
	signInBrowser(t, e, tab, "admin")
	path := "/resource/r-1/edit"
	openForm(t, e, tab, path)
	markup := `<img src=x onerror="window.__ran=1"><script>window.__ran=2</script>`
	err := chromedp.Do(tab,
		chromedp.SendKeys(chromedp.CSS(`#f-title_de`), markup),
		typeAtEnd(`#f-shortDescription`, " sky"),
	)
	if err != nil {
		t.Fatal(err)
	}
	waitDraft(t, tab, "resource:r-1", "Blue sky")

	e.clock.Advance(1e9)
	e.put(cms.KindResource, `{"id":"r-1","title":"Lake","shortDescription":"Green"}`)
	before := e.storedJSON(cms.KindResource, "r-1")
	openForm(t, e, tab, path)
	if got := js[string](t, tab, `document.getElementById("f-shortDescription").value + "|" + (document.querySelector(".draft-offer .draft-stale") || {}).textContent`); !strings.HasPrefix(got, "Green|Someone saved this record after you made them.") {
		t.Errorf("the offer of an older version: %s", got)
	}
	browsertest.Screenshot(t, tab, "stale-offer")
	submit(t, tab, `.draft-offer .draft-restore`)
	got := js[string](t, tab, `[document.getElementById("f-title_de").value, document.getElementById("f-shortDescription").value,
		window.__ran === undefined, document.querySelector("main img, main script:not([src])") === null].join("|")`)
	if got != markup+"|Blue sky|true|true" {
		t.Errorf("restored: %s", got)
	}
	browsertest.Screenshot(t, tab, "restored")
	submit(t, tab, `#record-form .form-bar button[value=save]`)
	if n := js[int](t, tab, `document.querySelectorAll("form.conflict").length`); n != 1 {
		t.Fatalf("saving a draft of an older version shows no conflict view: %s", js[string](t, tab, `document.querySelector("main").textContent.replace(/\s+/g, " ")`))
	}
	sameJSON(t, "r-1", e.storedJSON(cms.KindResource, "r-1"), before)
	if js[bool](t, tab, `window.__ran !== undefined`) {
		t.Error("the draft's markup ran")
	}
	browsertest.Screenshot(t, tab, "conflict")
	browsertest.ClearErrors(tab) // the 409 of the conflict view
	browsertest.RequireNoErrors(t, tab)
}

// TestBrowserLeaveGuard: leaving the form with changes not saved asks
// first; a change undone, a save, or a page with nothing changed does
// not ask; a page the server rendered with changes not saved (an item
// added) asks. Signing out with a draft asks, then removes the draft.
func TestBrowserLeaveGuard(t *testing.T) {
	e := newEnv(t, envOptions{prefix: "/admin"})
	e.put(cms.KindResource, `{"id":"r-1","title":"Lake"}`)
	e.put(cms.KindLanding, `{"id":"l-1","title":"Landing"}`)
	b := browsertest.New(t)
	tab := b.NewTab(t)
	asked := leaveDialogs(t, tab)
	signInBrowser(t, e, tab, "admin")
	path := "/resource/r-1/edit"
	leave := func(want int32, what string) {
		t.Helper()
		before := asked.Load()
		err := chromedp.Do(tab,
			chromedp.Click(chromedp.CSS(`.record-head a`)),
			chromedp.WaitVisible(chromedp.CSS(`table`)),
		)
		if err != nil {
			t.Fatalf("%s: leaving: %v", what, err)
		}
		if got := asked.Load() - before; got != want {
			t.Errorf("%s: asked %d times before leaving, want %d", what, got, want)
		}
	}

	openForm(t, e, tab, path)
	if err := chromedp.Do(tab, typeAtEnd(`#f-title`, "x"), chromedp.KeyEvent("\b")); err != nil {
		t.Fatal(err)
	}
	leave(0, "a change undone")

	openForm(t, e, tab, path)
	if err := chromedp.Do(tab, typeAtEnd(`#f-title`, " shore")); err != nil {
		t.Fatal(err)
	}
	leave(1, "a change")
	if got := e.stored(cms.KindResource, "r-1")["title"]; got != "Lake" {
		t.Fatalf("leaving saved %v", got)
	}

	openForm(t, e, tab, path)
	if err := chromedp.Do(tab, chromedp.Click(chromedp.CSS(`.draft-offer .draft-discard`)), typeAtEnd(`#f-title`, " side")); err != nil {
		t.Fatal(err)
	}
	before := asked.Load()
	save(t, tab)
	if asked.Load() != before {
		t.Error("saving asks before leaving")
	}
	leave(0, "after a save")

	// An item added by the server's button after a change: the page
	// holds both, not saved yet, and offers no draft.
	openForm(t, e, tab, "/landing/l-1/edit")
	if err := chromedp.Do(tab, typeAtEnd(`#f-title`, " page")); err != nil {
		t.Fatal(err)
	}
	submit(t, tab, `fieldset.items[data-path=landingBlocks] > button[value^="add:"]`)
	if got := js[string](t, tab, `document.querySelectorAll(".draft-offer").length + "|" + document.getElementById("f-title").value + "|" +
		document.querySelectorAll("fieldset.items[data-path=landingBlocks] > fieldset.item").length`); got != "0|Landing page|1" {
		t.Errorf("after adding a block: %s", got)
	}
	leave(1, "an item added")
	// Opened again, the draft offered holds the block too.
	openForm(t, e, tab, "/landing/l-1/edit")
	submit(t, tab, `.draft-offer .draft-restore`)
	if got := js[string](t, tab, `document.querySelectorAll(".draft-offer").length + "|" + document.getElementById("f-title").value + "|" +
		document.querySelectorAll("fieldset.items[data-path=landingBlocks] > fieldset.item").length`); got != "0|Landing page|1" {
		t.Errorf("the draft restored: %s", got)
	}
	if got := e.stored(cms.KindLanding, "l-1")["title"]; got != "Landing" {
		t.Errorf("stored title %v", got)
	}

	// Sign out with a draft: asked, then the draft is gone.
	openForm(t, e, tab, path)
	if err := chromedp.Do(tab, typeAtEnd(`#f-title`, " again")); err != nil {
		t.Fatal(err)
	}
	waitDraft(t, tab, "resource:r-1", "again")
	before = asked.Load()
	err := chromedp.Do(tab,
		chromedp.Click(chromedp.CSS(`.signout button`)),
		chromedp.WaitVisible(chromedp.CSS(`[data-signed-out]`)),
	)
	if err != nil {
		t.Fatal(err)
	}
	if asked.Load() != before+1 {
		t.Error("signing out with changes not saved does not ask")
	}
	if left := js[string](t, tab, `Object.keys(localStorage).filter((k) => k.startsWith("bwcms-admin:")).join(",")`); left != "" {
		t.Errorf("after sign-out the browser keeps %s", left)
	}
	browsertest.RequireNoErrors(t, tab)
}
