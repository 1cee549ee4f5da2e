//go:build browser

package browsertest_test

import (
	"bytes"
	"context"
	"fmt"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/bwcms/cms/admin/internal/browsertest"
	"github.com/chromedp/chromedp"
)

// strictCSP is the kind of policy the admin sends: nothing inline.
const strictCSP = "default-src 'self'; script-src 'self'; style-src 'self'; img-src 'self' data:; object-src 'none'; base-uri 'none'; form-action 'self'; frame-ancestors 'none'"

// trixStyleHashes allow the <style> elements Trix 2.1.19 inserts at load (the
// default CSS of trix-toolbar and trix-editor, each first empty): the admin's
// CSP needs them in style-src. A new Trix may change them; the browser log of
// TestVendoredLibrariesUnderStrictCSP then names the new ones.
const trixStyleHashes = "'sha256-47DEQpj8HBSa+/TImW+5JCeuQeRkm5NMpJWZG3hSuFU=' 'sha256-jAP18ioNeNaQBBU5RJvT96kjJnVxHvZs+s8WUNiLnvA=' 'sha256-c5Z9aB2t69CSpeI1aC8dDLr7LZYZlynV8iY/8Uc9ZFk='"

const page = `<!doctype html>
<html lang="en"><head><meta charset="utf-8"><title>%s</title>
<link rel="icon" href="/favicon.svg"><link rel="stylesheet" href="/app.css"><script src="/app.js" defer></script></head>
<body><main><h1>%s</h1>%s</main></body></html>`

// server serves the example pages, each with the strict CSP.
func server(t *testing.T) *httptest.Server {
	t.Helper()
	mux := http.NewServeMux()
	html := func(title, body string) http.HandlerFunc {
		return func(w http.ResponseWriter, r *http.Request) {
			w.Header().Set("Content-Security-Policy", strictCSP)
			w.Header().Set("Content-Type", "text/html; charset=utf-8")
			fmt.Fprintf(w, page, title, title, body)
		}
	}
	file := func(ctype, body string) http.HandlerFunc {
		return func(w http.ResponseWriter, r *http.Request) {
			w.Header().Set("Content-Type", ctype)
			fmt.Fprint(w, body)
		}
	}
	mux.HandleFunc("/favicon.svg", file("image/svg+xml", `<svg xmlns="http://www.w3.org/2000/svg" viewBox="0 0 1 1"/>`))
	mux.HandleFunc("/app.css", file("text/css", `body { font-family: sans-serif; }`))
	mux.HandleFunc("/app.js", file("text/javascript", `document.getElementById("status").textContent = "script ran";`))
	mux.HandleFunc("/throws.js", file("text/javascript", `console.error("logged on purpose"); throw new Error("boom");`))

	form := `<form method="post"><label for="title">Title</label> <input id="title" name="title"> <button type="submit">Save</button></form><p id="status">no script</p>`
	mux.HandleFunc("/good", html("Good", form))
	mux.HandleFunc("/bad", html("Bad", strings.Replace(form, `<label for="title">Title</label>`, ``, 1)))
	mux.HandleFunc("/inline", html("Inline", `<p id="status">no script</p><p id="inline">inline script blocked</p>
<script>document.getElementById("inline").textContent = "inline script ran";</script>`))
	mux.HandleFunc("/broken", html("Broken", `<p id="status">no script</p><script src="/throws.js"></script><img src="/missing.png" alt="">`))
	mux.HandleFunc("/who", func(w http.ResponseWriter, r *http.Request) {
		if v := r.URL.Query().Get("set"); v != "" {
			http.SetCookie(w, &http.Cookie{Name: "who", Value: v, Path: "/", HttpOnly: true, SameSite: http.SameSiteStrictMode})
		}
		who := "nobody"
		if c, err := r.Cookie("who"); err == nil {
			who = c.Value
		}
		if v := r.URL.Query().Get("set"); v != "" {
			who = v
		}
		html("Who", `<p id="status">no script</p><p id="who">`+who+`</p>`)(w, r)
	})
	srv := httptest.NewServer(mux)
	t.Cleanup(srv.Close)
	return srv
}

// open navigates the tab and waits for app.js to have run.
func open(t *testing.T, ctx context.Context, url string) {
	t.Helper()
	err := chromedp.Do(ctx, chromedp.Navigate(url), chromedp.WaitVisible(chromedp.ID("status")))
	if err != nil {
		t.Fatalf("open %s: %v", url, err)
	}
	if _, err := chromedp.Run(ctx, chromedp.Poll[bool](`document.getElementById("status").textContent === "script ran"`)); err != nil {
		t.Fatalf("open %s: app.js did not run: %v", url, err)
	}
}

func text(t *testing.T, ctx context.Context, id string) string {
	t.Helper()
	s, err := chromedp.Run(ctx, chromedp.Text(chromedp.ID(id)))
	if err != nil {
		t.Fatalf("text of #%s: %v", id, err)
	}
	return s
}

// recorder is a testing.TB that records failures instead of failing, to test
// the Require* functions fail when they should.
type recorder struct {
	testing.TB
	errors []string
}

func (r *recorder) Helper() {}
func (r *recorder) Errorf(format string, args ...any) {
	r.errors = append(r.errors, fmt.Sprintf(format, args...))
}

func TestGoodPageIsCleanAndScreenshotted(t *testing.T) {
	srv := server(t)
	b := browsertest.New(t)
	ctx := b.NewTab(t)
	open(t, ctx, srv.URL+"/good")

	if vs := browsertest.Axe(t, ctx); len(vs) != 0 {
		t.Errorf("axe found %d violations on a good page: %v", len(vs), vs)
	}
	browsertest.RequireNoSeriousAxe(t, ctx)

	// Screenshots go to CMS_SCREENSHOTS when set.
	dir := t.TempDir()
	t.Setenv(browsertest.EnvScreenshots, dir)
	file := browsertest.Screenshot(t, ctx, "good page")
	if want := filepath.Join(dir, "TestGoodPageIsCleanAndScreenshotted-good-page.png"); file != want {
		t.Errorf("screenshot saved as %s, want %s", file, want)
	}
	png, err := os.ReadFile(file)
	if err != nil {
		t.Fatal(err)
	}
	if !bytes.HasPrefix(png, []byte("\x89PNG\r\n\x1a\n")) || len(png) < 1000 {
		t.Errorf("%s is not a PNG of the page (%d bytes)", file, len(png))
	}

	browsertest.RequireNoErrors(t, ctx) // axe and the screenshot caused none either
}

func TestAxeFindsAnUnlabeledInput(t *testing.T) {
	srv := server(t)
	b := browsertest.New(t)
	ctx := b.NewTab(t)
	open(t, ctx, srv.URL+"/bad")

	vs := browsertest.Axe(t, ctx)
	i := slices.IndexFunc(vs, func(v browsertest.Violation) bool { return v.ID == "label" })
	if i < 0 {
		t.Fatalf("axe did not report the unlabeled input: %v", vs)
	}
	if v := vs[i]; v.Impact != "critical" || len(v.Nodes) != 1 || v.Nodes[0].Target != "#title" || v.HelpURL == "" {
		t.Errorf("label violation = %+v, want critical on #title with a help URL", v)
	}

	rec := &recorder{TB: t}
	browsertest.RequireNoSeriousAxe(rec, ctx)
	if len(rec.errors) != 1 || !strings.Contains(rec.errors[0], "critical label") || !strings.Contains(rec.errors[0], "#title") {
		t.Errorf("RequireNoSeriousAxe reported %q, want one failure naming the critical label violation on #title", rec.errors)
	}
	browsertest.RequireNoErrors(t, ctx)
}

func TestCSPViolationOfAnInlineScriptIsRecorded(t *testing.T) {
	srv := server(t)
	b := browsertest.New(t)
	ctx := b.NewTab(t)
	open(t, ctx, srv.URL+"/inline")

	if got := text(t, ctx, "inline"); got != "inline script blocked" {
		t.Errorf("#inline = %q: the inline script ran despite the CSP", got)
	}
	errs := browsertest.Errors(ctx)
	if !slices.ContainsFunc(errs, func(e browsertest.PageError) bool {
		return e.Kind == browsertest.KindCSP && e.Directive == "script-src-elem" && e.Blocked == "inline" &&
			strings.HasSuffix(e.URL, "/inline")
	}) {
		t.Errorf("no CSP violation recorded for the inline script, errors: %v", errs)
	}
	if !slices.ContainsFunc(errs, func(e browsertest.PageError) bool {
		return e.Kind == browsertest.KindLog && strings.Contains(e.Text, "Content Security Policy") && strings.Contains(e.Text, "sha256-")
	}) {
		t.Errorf("the browser log's CSP error, with the hash that would allow the script, is missing: %v", errs)
	}

	rec := &recorder{TB: t}
	browsertest.RequireNoErrors(rec, ctx)
	if len(rec.errors) != 1 || !strings.Contains(rec.errors[0], "csp: script-src-elem blocked inline") {
		t.Errorf("RequireNoErrors reported %q, want one failure listing the CSP violation", rec.errors)
	}
}

func TestExceptionsConsoleErrorsAndFailedLoadsAreRecorded(t *testing.T) {
	srv := server(t)
	b := browsertest.New(t)
	ctx := b.NewTab(t)
	open(t, ctx, srv.URL+"/broken")

	errs := browsertest.Errors(ctx)
	for _, want := range []struct{ kind, text string }{
		{browsertest.KindException, "Error: boom"},
		{browsertest.KindConsole, "console.error: logged on purpose"},
		{browsertest.KindLog, "404"},
	} {
		if !slices.ContainsFunc(errs, func(e browsertest.PageError) bool {
			return e.Kind == want.kind && strings.Contains(e.Text, want.text)
		}) {
			t.Errorf("no %s error containing %q; errors: %v", want.kind, want.text, errs)
		}
	}

	browsertest.ClearErrors(ctx)
	if errs := browsertest.Errors(ctx); len(errs) != 0 {
		t.Errorf("after ClearErrors: %v", errs)
	}
	open(t, ctx, srv.URL+"/good")
	browsertest.RequireNoErrors(t, ctx)
}

func TestTabsHaveTheirOwnCookies(t *testing.T) {
	srv := server(t)
	b := browsertest.New(t)
	alice, bob := b.NewTab(t), b.NewTab(t)

	open(t, alice, srv.URL+"/who?set=alice")
	open(t, alice, srv.URL+"/who")
	if got := text(t, alice, "who"); got != "alice" {
		t.Errorf("alice's tab after her cookie was set: %q, want alice", got)
	}
	open(t, bob, srv.URL+"/who")
	if got := text(t, bob, "who"); got != "nobody" {
		t.Errorf("bob's tab sees %q: tabs share cookies", got)
	}
	browsertest.RequireNoErrors(t, alice)
	browsertest.RequireNoErrors(t, bob)
}

// TestVendoredLibrariesUnderStrictCSP loads the admin's vendored Trix and
// SortableJS, from admin/static/vendor, as the admin would (no bundler, no
// inline code) under the strict CSP plus Trix's style hashes, and checks they
// work and nothing is blocked. A <label for> does not name a trix-editor (it
// is not a labelable element): aria-labelledby does.
func TestVendoredLibrariesUnderStrictCSP(t *testing.T) {
	mux := http.NewServeMux()
	mux.Handle("/static/", http.StripPrefix("/static/", http.FileServer(http.Dir("../../static"))))
	mux.HandleFunc("/favicon.ico", func(w http.ResponseWriter, r *http.Request) { w.WriteHeader(http.StatusNoContent) })
	mux.HandleFunc("/{$}", func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Security-Policy", strings.Replace(strictCSP, "style-src 'self'", "style-src 'self' "+trixStyleHashes, 1))
		fmt.Fprint(w, `<!doctype html><html lang="en"><head><meta charset="utf-8"><title>Editor</title>
<link rel="stylesheet" href="/static/vendor/trix@2.1.19/trix.css">
<script type="module" src="/static/vendor/trix@2.1.19/trix.esm.min.js"></script>
<script src="/static/vendor/sortablejs@1.15.7/Sortable.min.js" defer></script></head>
<body><main><h1>Editor</h1><form>
<label id="body-label" for="body-editor">Body</label><input type="hidden" id="body" name="body" value="<p>Hello</p>">
<trix-editor id="body-editor" input="body" aria-labelledby="body-label"></trix-editor>
<ol id="items"><li>one</li><li>two</li></ol></form></main></body></html>`)
	})
	srv := httptest.NewServer(mux)
	t.Cleanup(srv.Close)

	b := browsertest.New(t)
	ctx := b.NewTab(t)
	err := chromedp.Do(ctx, chromedp.Navigate(srv.URL+"/"), chromedp.WaitVisible(chromedp.CSS("trix-toolbar button")))
	if err != nil {
		t.Fatal(err)
	}
	got, err := chromedp.Run(ctx, chromedp.Poll[string](`typeof Sortable === "function" && Trix.VERSION + " " + typeof Sortable.create`))
	if err != nil || got != "2.1.19 function" {
		t.Fatalf("Trix and Sortable globals: %q, %v", got, err)
	}
	// Trix edits and writes its hidden input; Sortable attaches to a list.
	err = chromedp.Do(ctx,
		chromedp.Click(chromedp.CSS("trix-editor")),
		chromedp.KeyEvent(" world"),
		chromedp.Evaluate[chromedp.Void](`Sortable.create(document.getElementById("items")), undefined`),
	)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := chromedp.Run(ctx, chromedp.Poll[bool](`document.getElementById("body").value.includes("world")`)); err != nil {
		t.Errorf("Trix did not write what was typed to its input: %v", err)
	}
	browsertest.RequireNoSeriousAxe(t, ctx)
	browsertest.Screenshot(t, ctx, "trix")
	browsertest.RequireNoErrors(t, ctx)
}
