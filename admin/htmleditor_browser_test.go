//go:build browser

package admin

import (
	"context"
	"strings"
	"testing"

	"github.com/chromedp/cdproto/cdp"
	"github.com/chromedp/cdproto/emulation"
	"github.com/chromedp/chromedp"

	"github.com/bwcms/cms/admin/internal/browsertest"
	"github.com/bwcms/cms/cms"
)

// TestBrowserHTMLEditor: each HTML field of the form is a Trix editor
// named by its label, with the textarea's id and description, no attach
// button, files refused; an editor never touched sends the stored HTML as
// it is (an untouched save is a Skip), one typed in sends what was typed;
// without scripts the textarea stays.
func TestBrowserHTMLEditor(t *testing.T) {
	e := newEnv(t, envOptions{prefix: "/admin"})
	stored := "<p>Para\nline with <b>bold</b></p><ul><li>one</li></ul>"
	e.put(cms.KindResource, `{"id":"r-1","title":"Lake","htmlContent":"<p>Para\nline with <b>bold</b></p><ul><li>one</li></ul>"}`)
	if got := e.stored(cms.KindResource, "r-1")["htmlContent"]; got != stored {
		t.Fatalf("stored HTML %q", got)
	}
	b := browsertest.New(t)
	tab := b.NewTab(t)
	signInBrowser(t, e, tab, "admin")
	path := "/resource/r-1/edit"
	openForm(t, e, tab, path)

	got := js[string](t, tab, `(() => {
		const ed = document.getElementById("f-htmlContent_it");
		const label = document.getElementById(ed.getAttribute("aria-labelledby"));
		const attach = ed.toolbarElement.querySelector("[data-trix-action=attachFiles]");
		return [ed.tagName, label.htmlFor, label.textContent.trim().replace(/\s+/g, " "), ed.getAttribute("aria-describedby"), ed.getAttribute("lang"),
			attach.getClientRects().length === 0 ? "hidden" : "shown", document.querySelectorAll("textarea[data-html]").length,
			document.querySelector('input[type=hidden][name="htmlContent"]').value].join("|") })()`)
	want := "TRIX-EDITOR|f-htmlContent_it|HTML content, it missing|f-htmlContent-rowhint|it|hidden|0|" + stored
	if got != want {
		t.Errorf("the Italian editor:\n got %s\nwant %s", got, want)
	}
	refused := js[bool](t, tab, `(() => { const ev = new CustomEvent("trix-file-accept", {bubbles: true, cancelable: true, detail: {}});
		document.getElementById("f-htmlContent").dispatchEvent(ev); return ev.defaultPrevented })()`)
	if !refused {
		t.Error("a file offered to the editor is not refused")
	}
	browsertest.RequireNoSeriousAxe(t, tab)

	// Untouched: the save changes nothing.
	save(t, tab)
	if got := js[string](t, tab, `document.querySelector(".notice.ok").textContent`); !strings.Contains(got, "nothing had changed") {
		t.Errorf("untouched save says %q", got)
	}

	// The label focuses its editor; what is typed is sent.
	err := chromedp.Do(tab,
		chromedp.Click(chromedp.CSS(`label[for="f-htmlContent_it"]`)),
		chromedp.Poll[chromedp.Void](`document.activeElement.id === "f-htmlContent_it"`),
		chromedp.KeyEvent("Ciao lago"),
		chromedp.Poll[chromedp.Void](`document.querySelector('input[type=hidden][name="htmlContent_it"]').value.includes("Ciao lago")`),
	)
	if err != nil {
		t.Fatal(err)
	}
	browsertest.Screenshot(t, tab, "typed")
	save(t, tab)
	rec := e.stored(cms.KindResource, "r-1")
	if it, _ := rec["htmlContent_it"].(string); !strings.Contains(it, "Ciao lago") {
		t.Errorf("stored Italian HTML %q", it)
	}
	if rec["htmlContent"] != stored {
		t.Errorf("the English HTML, never touched, is now %q", rec["htmlContent"])
	}
	browsertest.RequireNoErrors(t, tab)

	// Without scripts: the textarea, labelled, and no widgets.
	off := b.NewTab(t)
	err = chromedp.Do(off, chromedp.Func(func(ctx context.Context, tgt *chromedp.Target) error {
		_, err := cdp.Call(ctx, tgt, emulation.SetScriptExecutionDisabled, emulation.SetScriptExecutionDisabledParams{Value: true})
		return err
	}))
	if err != nil {
		t.Fatal(err)
	}
	signInBrowser(t, e, off, "admin")
	if err := chromedp.Do(off, chromedp.Navigate(e.url(path)), chromedp.WaitVisible(chromedp.CSS(`#record-form`))); err != nil {
		t.Fatal(err)
	}
	plain := js[string](t, off, `[document.querySelectorAll("textarea[data-html]").length > 2, document.querySelectorAll("trix-editor, .picker, .drag-handle").length,
		document.getElementById("f-htmlContent").tagName, document.querySelector('label[for="f-htmlContent"]') !== null].join(",")`)
	if plain != "true,0,TEXTAREA,true" {
		t.Errorf("without scripts: %s", plain)
	}
}
