//go:build browser

package admin

import (
	"strings"
	"testing"

	"github.com/bwcms/cms/admin/internal/browsertest"
	"github.com/bwcms/cms/cms"
)

// TestE2EProblemsOnTheirFields: a save with an Italian title over its
// 100 characters and an external URL that is no URL answers 409: the page
// says so in its title and in an error summary that has the focus; each
// problem is beside its field (aria-invalid, described by its error);
// following a summary link by keyboard puts the focus in the field; what
// was typed is still there; nothing stored changed.
func TestE2EProblemsOnTheirFields(t *testing.T) {
	e := newEnv(t, envOptions{prefix: "/admin"})
	e.put(cms.KindResource, `{"id":"lago","title":"Lake","title_it":"Lago","externalUrl":"https://lake.example/"}`)
	before := e.storedJSON(cms.KindResource, "lago")
	x := e2eEditor(t, e, browsertest.New(t), "admin")
	x.open(editPath(cms.KindResource, "lago"), 200)
	long := strings.Repeat("Lago di Garda ", 8) // 112 characters
	x.fill(e2eCtl("title"), "Lake Garda")
	x.fill(e2eCtl("title_it"), long)
	x.fill(e2eCtl("externalUrl"), "not a url")

	if got := x.click(`.form-bar button[name="_action"][value="save"]`); got != 409 {
		t.Fatalf("save: status %d, want 409; the page says %q", got, x.mainText())
	}
	if title := e2eEval[string](x, `document.title`); !strings.HasPrefix(title, "Error: ") {
		t.Errorf("the page's title %q does not say there is a problem", title)
	}
	if got := x.text(".error-summary h2"); got != "There is a problem: nothing was saved" {
		t.Errorf("summary heading %q", got)
	}
	if got := x.focused(); got != "div.error-summary" {
		t.Errorf("the focus is on %s, want the error summary", got)
	}
	for _, name := range []string{"title_it", "externalUrl"} {
		sel := e2eCtl(name)
		if got := x.attr(sel, "aria-invalid"); got != "true" {
			t.Errorf("%s: aria-invalid %q", name, got)
		}
		errID := controlID(name) + "-error"
		if got := x.attr(sel, "aria-describedby"); !strings.Contains(" "+got+" ", " "+errID+" ") {
			t.Errorf("%s: aria-describedby %q lacks its error", name, got)
		}
		if x.text("#"+errID) == "" {
			t.Errorf("%s: no error beside it", name)
		}
		if x.count(`.error-summary a[href="`+sel+`"]`) != 1 {
			t.Errorf("%s: the summary does not link to it", name)
		}
	}
	if got := x.text("#" + controlID("title_it") + "-error"); !strings.Contains(got, "100") {
		t.Errorf("the Italian title's error %q does not give the limit", got)
	}
	if got := x.attr(e2eCtl("title"), "aria-invalid"); got != "" {
		t.Errorf("the English title, which is fine, is aria-invalid %q", got)
	}
	if got := x.value(e2eCtl("title_it")); got != long {
		t.Errorf("the Italian title holds %q, want what was typed", got)
	}
	if got := x.value(e2eCtl("title")); got != "Lake Garda" {
		t.Errorf("the English title holds %q, want what was typed", got)
	}
	x.shot("problems", 1050)
	x.audit(409)

	// The summary's link, by keyboard: the focus moves to the field.
	x.tabTo(`.error-summary a[href="`+e2eCtl("externalUrl")+`"]`, 10)
	x.pressEnter()
	if err := x.poll(`document.activeElement.matches(` + e2eJS(e2eCtl("externalUrl")) + `)`); err != nil {
		t.Errorf("after following the summary's link the focus is on %s: %v", x.focused(), err)
	}
	sameJSON(t, "lago after the refused save", e.storedJSON(cms.KindResource, "lago"), before)

	// Fixed, it saves.
	x.fill(e2eCtl("title_it"), "Lago di Garda")
	x.fill(e2eCtl("externalUrl"), "https://garda.example/")
	x.saved(x.click(`.form-bar button[name="_action"][value="save"]`), "the fixed save")
	if got := e.stored(cms.KindResource, "lago"); got["title_it"] != "Lago di Garda" || got["externalUrl"] != "https://garda.example/" || got["title"] != "Lake Garda" {
		t.Errorf("stored %s", mustJSON(got))
	}
	x.clean()
}

// TestE2ETwoEditorsConflict: two editors (two tabs, separate sessions)
// open one Resource; A saves; B saves other changes over the version B
// opened and sees the conflict view, theirs and mine per field, with
// nothing of B's saved; B chooses (mine for the title, theirs for the
// short description A changed) and saves: the store has that mix, and
// B's change that A did not touch.
func TestE2ETwoEditorsConflict(t *testing.T) {
	e := newEnv(t, envOptions{prefix: "/admin"})
	e.put(cms.KindResource, `{"id":"r-1","title":"Start","title_it":"Inizio","shortDescription":"Short"}`)
	b := browsertest.New(t)
	a, bee := e2eEditor(t, e, b, "admin"), e2eEditor(t, e, b, "editor")
	path := editPath(cms.KindResource, "r-1")
	a.open(path, 200)
	bee.open(path, 200)

	e.clock.Advance(1e9)
	a.fill(e2eCtl("title"), "A's title")
	a.fill(e2eCtl("shortDescription"), "A's short")
	a.saved(a.click(`.form-bar button[name="_action"][value="save"]`), "A's save")
	saved := e.storedJSON(cms.KindResource, "r-1")

	bee.fill(e2eCtl("title"), "B's title")
	bee.fill(e2eCtl("title_it"), "Titolo di B")
	if got := bee.click(`.form-bar button[name="_action"][value="save"]`); got != 409 {
		t.Fatalf("B's save: status %d, want 409 and the conflict view; the page says %q", got, bee.mainText())
	}
	sameJSON(t, "after B's save", e.storedJSON(cms.KindResource, "r-1"), saved)
	if bee.count("form#conflict-form") != 1 {
		t.Fatalf("B does not see the conflict view: %q", bee.mainText())
	}
	want := map[string][2]string{"title": {"A's title", "B's title"}, "shortDescription": {"A's short", "Short"}}
	if got := bee.count("fieldset.clash"); got != len(want) {
		t.Errorf("%d fields asked about, want %d: %q", got, len(want), bee.mainText())
	}
	for wire, w := range want {
		fs := `fieldset.clash[data-field="` + wire + `"] `
		if got := bee.text(fs + `[data-side="theirs"]`); got != w[0] {
			t.Errorf("%s: theirs %q, want %q", wire, got, w[0])
		}
		if got := bee.text(fs + `[data-side="mine"]`); got != w[1] {
			t.Errorf("%s: mine %q, want %q", wire, got, w[1])
		}
	}
	if !strings.Contains(bee.mainText(), "kept (no one else changed them): Title (it)") {
		t.Errorf("B's own change is not named as kept: %q", bee.mainText())
	}
	bee.shot("conflict", 0)
	bee.audit(409)

	bee.tap(`input[name="_take.title"][value="mine"]`)
	if !e2eEval[bool](bee, `document.querySelector('input[name="_take.shortDescription"][value="theirs"]').checked`) {
		t.Error("theirs is not chosen at first for a field only they changed")
	}
	bee.saved(bee.click(`button[name="_action"][value="resolve"]`), "B's save with choices")
	got := e.stored(cms.KindResource, "r-1")
	for k, v := range map[string]string{"title": "B's title", "title_it": "Titolo di B", "shortDescription": "A's short"} {
		if got[k] != v {
			t.Errorf("stored %s %q, want %q", k, got[k], v)
		}
	}
	bee.clean()
	a.clean()
}
