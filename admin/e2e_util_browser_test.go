//go:build browser

package admin

// Helpers of the end-to-end browser tests (e2e_*_browser_test.go): a tab
// driven as an editor would drive it, by keyboard where a test says so,
// waiting for the page each step loads. They rely only on the
// server-rendered pages (admin/form.go documents the form's DOM), so they
// pass with or without the form's scripts. Their names start with e2e to
// stay out of the way of the package's other tests.

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"image"
	"image/png"
	"os"
	"strings"
	"testing"
	"time"

	"github.com/chromedp/cdproto/cdp"
	"github.com/chromedp/cdproto/input"
	"github.com/chromedp/cdproto/page"
	"github.com/chromedp/chromedp"

	"github.com/bwcms/cms/admin/internal/browsertest"
)

// e2eWait bounds a wait for a page to load: long enough for a slow
// machine, short enough that a step that loads nothing fails the test
// instead of hanging it. It is no assertion on speed.
const e2eWait = 60 * time.Second

// e2eTab is a browser tab (its own cookies and storage: one editor) on
// the admin of a test env.
type e2eTab struct {
	t   *testing.T
	e   *env
	ctx context.Context
}

// e2eNewTab opens a tab. It accepts the dialogs pages open (the form's
// scripts may ask before leaving a changed form), so that a test never
// hangs on one.
func e2eNewTab(t *testing.T, e *env, b *browsertest.Browser) *e2eTab {
	t.Helper()
	ctx := b.NewTab(t)
	if err := chromedp.Listen(ctx, func(ev any) {
		if _, ok := ev.(*page.EventJavascriptDialogOpening); ok {
			go chromedp.Call(ctx, page.HandleJavaScriptDialog, page.HandleJavaScriptDialogParams{Accept: true})
		}
	}); err != nil {
		t.Fatal(err)
	}
	return &e2eTab{t: t, e: e, ctx: ctx}
}

// e2eEditor opens a tab signed in as user.
func e2eEditor(t *testing.T, e *env, b *browsertest.Browser, user string) *e2eTab {
	t.Helper()
	x := e2eNewTab(t, e, b)
	signInBrowser(t, e, x.ctx, user)
	return x
}

// load runs steps that make the tab load a page (a link followed, a form
// submitted, an address opened), waits for it, and returns its HTTP
// status (after redirects).
func (x *e2eTab) load(what string, steps ...chromedp.Action[chromedp.Void]) int64 {
	x.t.Helper()
	ctx, cancel := context.WithTimeout(x.ctx, e2eWait)
	defer cancel()
	res, err := chromedp.RunResponse(ctx, steps...)
	if err != nil {
		x.t.Fatalf("%s: %v", what, err)
	}
	if res == nil {
		x.t.Fatalf("%s: no page was loaded", what)
	}
	return res.Status
}

// open loads the admin path and fails unless it answers want.
func (x *e2eTab) open(path string, want int64) {
	x.t.Helper()
	if got := x.load("GET "+path, chromedp.Navigate(x.e.url(path))); got != want {
		x.t.Fatalf("GET %s: status %d, want %d; the page says %q", path, got, want, x.mainText())
	}
}

// click clicks sel (as a mouse user does) and returns the status of the
// page it loads.
func (x *e2eTab) click(sel string) int64 {
	x.t.Helper()
	return x.load("pressing "+sel, chromedp.Click(chromedp.CSS(sel)))
}

// tap clicks sel, a control that loads no page (a box, a radio).
func (x *e2eTab) tap(sel string) {
	x.t.Helper()
	if err := chromedp.Do(x.ctx, chromedp.Click(chromedp.CSS(sel))); err != nil {
		x.t.Fatalf("click %s: %v", sel, err)
	}
}

// poll waits until the script is true in the page, for what the page does
// without loading another (a focus moved).
func (x *e2eTab) poll(script string) error {
	return chromedp.Do(x.ctx, chromedp.Poll[chromedp.Void](script, chromedp.WithPollingTimeout(e2eWait)))
}

// enter presses Enter where the focus is and returns the status of the
// page it loads.
func (x *e2eTab) enter(what string) int64 {
	x.t.Helper()
	return x.load(what, e2eEnter)
}

// e2eEnter presses Enter as a keyboard does: one key-down event with its
// text, then the key-up. (chromedp.KeyEvent sends the character as an
// event of its own, which the page receives even when the key-down
// already acted: Enter on a link to a field would also submit the form
// the field moved the focus to.)
var e2eEnter = chromedp.Func(func(ctx context.Context, tgt *chromedp.Target) error {
	down := input.DispatchKeyEventParams{Type: input.DispatchKeyEventTypeKeyDown, Key: "Enter", Code: "Enter",
		Text: "\r", UnmodifiedText: "\r", WindowsVirtualKeyCode: 13, NativeVirtualKeyCode: 13}
	if _, err := cdp.Call(ctx, tgt, input.DispatchKeyEvent, down); err != nil {
		return err
	}
	up := down
	up.Type, up.Text, up.UnmodifiedText = input.DispatchKeyEventTypeKeyUp, "", ""
	_, err := cdp.Call(ctx, tgt, input.DispatchKeyEvent, up)
	return err
})

// pressEnter presses Enter where the focus is, for what loads no page.
func (x *e2eTab) pressEnter() {
	x.t.Helper()
	if err := chromedp.Do(x.ctx, e2eEnter); err != nil {
		x.t.Fatalf("Enter: %v", err)
	}
}

// e2eEval runs a script in the tab's page and returns its value.
func e2eEval[T any](x *e2eTab, script string) T {
	x.t.Helper()
	v, err := chromedp.Run(x.ctx, chromedp.Evaluate[T](script))
	if err != nil {
		x.t.Fatalf("%s: %v", script, err)
	}
	return v
}

// e2eJS is s as a JavaScript string literal.
func e2eJS(s string) string {
	b, _ := json.Marshal(s)
	return string(b)
}

// e2eCtl is the CSS selector of the form control of a wire name
// ("landingBlocks[0].title_it").
func e2eCtl(name string) string { return "#" + controlID(name) }

// mainText is the text of the page's <main>, spaces collapsed.
func (x *e2eTab) mainText() string {
	x.t.Helper()
	return e2eEval[string](x, `(document.querySelector("main") || document.body).innerText.replace(/\s+/g, " ").trim()`)
}

// text is the text of the first element sel finds, spaces collapsed; ""
// when there is none.
func (x *e2eTab) text(sel string) string {
	x.t.Helper()
	return e2eEval[string](x, `(() => { const el = document.querySelector(`+e2eJS(sel)+`);
		return el ? el.textContent.replace(/\s+/g, " ").trim() : ""; })()`)
}

// count is how many elements sel finds.
func (x *e2eTab) count(sel string) int {
	x.t.Helper()
	return e2eEval[int](x, `document.querySelectorAll(`+e2eJS(sel)+`).length`)
}

// attr is the attribute name of the first element sel finds.
func (x *e2eTab) attr(sel, name string) string {
	x.t.Helper()
	return e2eEval[string](x, `(() => { const el = document.querySelector(`+e2eJS(sel)+`);
		return el ? (el.getAttribute(`+e2eJS(name)+`) || "") : "(no element)"; })()`)
}

// value is the value of the control sel.
func (x *e2eTab) value(sel string) string {
	x.t.Helper()
	return e2eEval[string](x, `(() => { const el = document.querySelector(`+e2eJS(sel)+`); return el ? el.value : "(no element)"; })()`)
}

// focused describes the focused element: #id, else its tag and classes.
func (x *e2eTab) focused() string {
	x.t.Helper()
	return e2eEval[string](x, `(() => { const a = document.activeElement;
		return !a ? "" : a.id ? "#" + a.id : a.tagName.toLowerCase() + (a.className ? "." + String(a.className).split(" ").join(".") : ""); })()`)
}

// key presses keys (kb's names: "\t" Tab, "\r" Enter, "\b" Backspace)
// where the focus is.
func (x *e2eTab) key(keys string, opts ...chromedp.KeyOption) {
	x.t.Helper()
	if err := chromedp.Do(x.ctx, chromedp.KeyEvent(keys, opts...)); err != nil {
		x.t.Fatalf("keys %q: %v", keys, err)
	}
}

// tabTo presses Tab until the focus is on sel, as an editor moves by
// keyboard, checking that every control it passes shows its focus; it
// fails when sel is not reached within limit presses.
func (x *e2eTab) tabTo(sel string, limit int) {
	x.t.Helper()
	is := `!!document.activeElement && document.activeElement.matches(` + e2eJS(sel) + `)`
	for i := 0; !e2eEval[bool](x, is); i++ {
		if i == limit {
			x.t.Fatalf("%s is not reached by %d presses of Tab (the focus is on %s)", sel, limit, x.focused())
		}
		x.key("\t")
		x.visibleFocus()
	}
}

// visibleFocus fails the test unless the focused element matches
// :focus-visible and has an outline drawn.
func (x *e2eTab) visibleFocus() {
	x.t.Helper()
	got := e2eEval[string](x, `(() => { const a = document.activeElement;
		if (!a || a === document.body) return "ok"; // Tab left the page's last control
		if (!a.matches(":focus-visible")) return "it does not match :focus-visible";
		const s = getComputedStyle(a);
		if (s.outlineStyle === "none" || parseFloat(s.outlineWidth) === 0) return "its outline is " + s.outlineStyle + " " + s.outlineWidth;
		return "ok"; })()`)
	if got != "ok" {
		x.t.Errorf("the focus on %s is not visible: %s", x.focused(), got)
	}
}

// typeOver replaces the text of the focused field by keyboard: Ctrl+A,
// then the text typed.
func (x *e2eTab) typeOver(text string) {
	x.t.Helper()
	x.key("a", chromedp.KeyModifiers(chromedp.ModifierCtrl), func(p *input.DispatchKeyEventParams) {
		if p.Type == input.DispatchKeyEventTypeKeyDown {
			p.Commands = []string{"selectAll"}
		}
	})
	if text == "" {
		x.key("\b")
		return
	}
	x.key(text)
}

// fill focuses the control sel and replaces its text by typing.
func (x *e2eTab) fill(sel, text string) {
	x.t.Helper()
	if err := chromedp.Do(x.ctx, chromedp.Focus(chromedp.CSS(sel))); err != nil {
		x.t.Fatalf("focus %s: %v", sel, err)
	}
	x.typeOver(text)
	if got := x.value(sel); got != text {
		x.t.Fatalf("%s holds %q after typing %q", sel, got, text)
	}
}

// saved fails the test unless the page (of status) is a record's form
// just saved.
func (x *e2eTab) saved(status int64, what string) {
	x.t.Helper()
	if status != 200 {
		x.t.Fatalf("%s: status %d; the page says %q", what, status, x.mainText())
	}
	if got := x.text(".notice.ok"); !strings.HasPrefix(got, "Saved") && !strings.Contains(got, "created") {
		x.t.Fatalf("%s: notice %q, want Saved; the page says %q", what, got, x.mainText())
	}
}

// clean fails the test when something went wrong in the tab's pages so
// far (an exception, a console error, a failed load, a CSP violation),
// except the browser's log line of a status the test expects (a 409
// page is an answer it asked for); then it forgets them.
func (x *e2eTab) clean(statuses ...int) {
	x.t.Helper()
	var bad []string
	for _, pe := range browsertest.Errors(x.ctx) {
		expected := false
		for _, s := range statuses {
			if pe.Kind == browsertest.KindLog && strings.Contains(pe.Text, fmt.Sprintf("status of %d", s)) {
				expected = true
			}
		}
		if !expected {
			bad = append(bad, pe.String())
		}
	}
	if len(bad) > 0 {
		x.t.Errorf("%d error(s) in the page:\n  %s", len(bad), strings.Join(bad, "\n  "))
	}
	browsertest.ClearErrors(x.ctx)
}

// audit checks the page shown: axe finds nothing serious or critical,
// and nothing went wrong (statuses: as for clean).
func (x *e2eTab) audit(statuses ...int) {
	x.t.Helper()
	browsertest.RequireNoSeriousAxe(x.t, x.ctx)
	x.clean(statuses...)
}

// shot saves a screenshot of the page (see browsertest.Screenshot), cut
// to its first maxHeight pixels when maxHeight > 0: a long form's top is
// what a reader of the docs needs, at a modest size.
func (x *e2eTab) shot(name string, maxHeight int) {
	x.t.Helper()
	file := browsertest.Screenshot(x.t, x.ctx, name)
	if maxHeight <= 0 {
		return
	}
	if err := e2eCrop(file, maxHeight); err != nil {
		x.t.Fatalf("screenshot %s: %v", name, err)
	}
}

// e2eCrop cuts the PNG file to its first maxHeight rows.
func e2eCrop(file string, maxHeight int) error {
	raw, err := os.ReadFile(file)
	if err != nil {
		return err
	}
	img, err := png.Decode(bytes.NewReader(raw))
	if err != nil {
		return err
	}
	b := img.Bounds()
	if b.Dy() <= maxHeight {
		return nil
	}
	sub, ok := img.(interface {
		SubImage(r image.Rectangle) image.Image
	})
	if !ok {
		return fmt.Errorf("a %T cannot be cut", img)
	}
	var out bytes.Buffer
	enc := png.Encoder{CompressionLevel: png.BestCompression}
	if err := enc.Encode(&out, sub.SubImage(image.Rect(b.Min.X, b.Min.Y, b.Max.X, b.Min.Y+maxHeight))); err != nil {
		return err
	}
	return os.WriteFile(file, out.Bytes(), 0o644)
}

// nothingRan fails the test when record text ran as code or became
// markup: window.__ran set by a planted handler, or any <img> (the
// admin's pages have none of their own).
func (x *e2eTab) nothingRan(where string) {
	x.t.Helper()
	got := e2eEval[string](x, `(() => {
		if (window.__ran !== undefined) return "window.__ran is " + window.__ran;
		const imgs = document.querySelectorAll("img");
		if (imgs.length) return imgs.length + " img element(s): " + imgs[0].outerHTML;
		return ""; })()`)
	if got != "" {
		x.t.Errorf("%s: record text ran or rendered: %s", where, got)
	}
}
