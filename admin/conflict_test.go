package admin

import (
	"net/http"
	"net/url"
	"strings"
	"testing"

	"github.com/PuerkitoBio/goquery"

	"github.com/bwcms/cms/cms"
)

// clashOf finds the conflict view's fieldset of a property.
func clashOf(doc *goquery.Document, wire string) *goquery.Selection {
	return doc.Find(`fieldset.clash[data-field="` + wire + `"]`)
}

// TestTwoEditorsConflict: two editors open one record; A saves; B's save
// shows theirs and mine per differing field and overwrites nothing; B's
// choices are then saved, a mix of both.
func TestTwoEditorsConflict(t *testing.T) {
	t.Parallel()
	e := newEnv(t, envOptions{prefix: "/admin"})
	e.put(cms.KindResource, `{"id":"r-1","title":"Start","title_it":"Inizio","shortDescription":"Short","locationZoom":5}`)
	a, b := e.signIn("admin"), e.signIn("editor")
	path := editPath(cms.KindResource, "r-1")
	docA, docB := e.open(a, path), e.open(b, path)

	e.clock.Advance(1e9)
	e.follow(a, e.press(a, docA, path, "save", func(v url.Values) {
		v.Set("title", "A's title")
		v.Set("shortDescription", "A's short")
	}), path)
	saved := e.storedJSON(cms.KindResource, "r-1")

	res := e.press(b, docB, path, "save", func(v url.Values) {
		v.Set("title", "B's title")
		v.Set("title_it", "B's italiano")
		v.Set("locationZoom", "7")
	})
	doc := e.page(res, http.StatusConflict)
	sameJSON(t, "after B's first save", e.storedJSON(cms.KindResource, "r-1"), saved)
	want := map[string]struct{ who, choice, theirs, mine string }{
		"title":            {"you and them", "", "A's title", "B's title"},
		"shortDescription": {"them", "theirs", "A's short", "Short"},
	}
	if n := doc.Find("fieldset.clash").Length(); n != len(want) {
		t.Errorf("%d clashes, want %d: %s", n, len(want), text(doc.Find("form.conflict")))
	}
	for wire, w := range want {
		fs := clashOf(doc, wire)
		if got := text(fs.Find(`[data-side="theirs"]`)); got != w.theirs {
			t.Errorf("%s: theirs %q, want %q", wire, got, w.theirs)
		}
		if got := text(fs.Find(`[data-side="mine"]`)); got != w.mine {
			t.Errorf("%s: mine %q, want %q", wire, got, w.mine)
		}
		if got := text(fs.Find("legend .badge")); got != "changed by "+w.who {
			t.Errorf("%s: badge %q, want changed by %s", wire, got, w.who)
		}
		checked := fs.Find("input[type=radio][checked]").AttrOr("value", "")
		if checked != w.choice {
			t.Errorf("%s: %q chosen at first, want %q", wire, checked, w.choice)
		}
		fs.Find("input[type=radio]").Each(func(_ int, r *goquery.Selection) {
			if doc.Find(`label[for="`+r.AttrOr("id", "")+`"]`).Length() != 1 {
				t.Errorf("%s: radio %s has no label", wire, r.AttrOr("value", ""))
			}
		})
	}
	if clashOf(doc, "title_de").Length() != 0 || clashOf(doc, "title_it").Length() != 0 {
		t.Error("a field they did not change is asked about")
	}
	if got := text(doc.Find("form.conflict")); !strings.Contains(got, "kept (no one else changed them): Title (it), Location zoom.") {
		t.Errorf("the kept changes are not named: %s", got)
	}

	// Saving without choosing for title: asked again, nothing stored.
	vals := formValues(t, doc, "#conflict-form")
	vals.Set("_action", "resolve")
	doc = e.page(e.post(b, path, vals), http.StatusConflict)
	if doc.Find(`.error-summary a[href="#f-_take-title-mine"]`).Length() != 1 {
		t.Errorf("no summary link to the missing choice: %s", text(doc.Find(".error-summary")))
	}
	sameJSON(t, "after a save without a choice", e.storedJSON(cms.KindResource, "r-1"), saved)

	// Theirs for title; shortDescription as preselected (theirs); the
	// editor's own changes kept.
	vals = formValues(t, doc, "#conflict-form")
	vals.Set("_take.title", "theirs")
	vals.Set("_action", "resolve")
	e.follow(b, e.post(b, path, vals), path)
	got := e.stored(cms.KindResource, "r-1")
	for k, v := range map[string]any{"title": "A's title", "title_it": "B's italiano", "shortDescription": "A's short", "locationZoom": 7.0} {
		if got[k] != v {
			t.Errorf("stored %s %v, want %v", k, got[k], v)
		}
	}
}

// TestConflictBackToTheForm: "back to the form" puts the choices in the
// form on the new version, saving nothing; saving it then works.
func TestConflictBackToTheForm(t *testing.T) {
	t.Parallel()
	e := newEnv(t, envOptions{})
	e.put(cms.KindLanding, `{"id":"l-1","title":"Start","landingBlocks":[{"title":"One"}]}`)
	a, b := e.signIn("admin"), e.signIn("admin")
	path := editPath(cms.KindLanding, "l-1")
	docA, docB := e.open(a, path), e.open(b, path)
	e.clock.Advance(1e9)
	e.follow(a, e.press(a, docA, path, "save", func(v url.Values) { v.Set("landingBlocks[0].title", "A's block") }), path)
	saved := e.storedJSON(cms.KindLanding, "l-1")

	doc := e.page(e.press(b, docB, path, "save", func(v url.Values) { v.Set("landingBlocks[0].title", "B's block") }), http.StatusConflict)
	fs := clashOf(doc, "landingBlocks")
	if !strings.Contains(text(fs.Find(`[data-side="theirs"]`)), "A's block") || !strings.Contains(text(fs.Find(`[data-side="mine"]`)), "B's block") {
		t.Fatalf("the nested list's clash: %s", text(fs))
	}
	vals := formValues(t, doc, "#conflict-form")
	vals.Set("_take.landingBlocks", "mine")
	vals.Set("_action", "apply")
	doc = e.page(e.post(b, path, vals), http.StatusOK)
	sameJSON(t, "after apply", e.storedJSON(cms.KindLanding, "l-1"), saved)
	if got := valueOf(doc, "landingBlocks[0].title"); got != "B's block" {
		t.Errorf("the form holds %q", got)
	}
	e.follow(b, e.press(b, doc, path, "save", nil), path)
	blocks := e.stored(cms.KindLanding, "l-1")["landingBlocks"].([]any)
	if got := blocks[0].(map[string]any)["title"]; got != "B's block" {
		t.Errorf("stored block title %v", got)
	}
}

// TestSaveWithoutVersionNeverOverwrites: a posted form without _etag
// meets the conflict view, not an overwrite.
func TestSaveWithoutVersionNeverOverwrites(t *testing.T) {
	t.Parallel()
	e := newEnv(t, envOptions{})
	e.put(cms.KindResource, `{"id":"r-1","title":"Stored"}`)
	before := e.storedJSON(cms.KindResource, "r-1")
	c := e.signIn("admin")
	res := e.post(c, editPath(cms.KindResource, "r-1"), url.Values{"_action": {"save"}, "_fields": {"title"}, "title": {"Blind"}})
	doc := e.page(res, http.StatusConflict)
	if clashOf(doc, "title").Length() != 1 {
		t.Errorf("no clash for title: %s", text(doc.Find("main")))
	}
	sameJSON(t, "r-1", e.storedJSON(cms.KindResource, "r-1"), before)
}

// TestLanguageAddedWhileEditing: the ETag changes with the account's
// languages; a save from before is refused, nothing differs within the
// form, so the form comes back on the new version and saves the second
// time.
func TestLanguageAddedWhileEditing(t *testing.T) {
	t.Parallel()
	e := newEnv(t, envOptions{prefix: "/admin"})
	e.put(cms.KindResource, `{"id":"r-1","title":"Lake"}`)
	c := e.signIn("admin")
	path := editPath(cms.KindResource, "r-1")
	doc := e.open(c, path)
	if _, err := e.svc.AddLanguage(t.Context(), "acme", "fr"); err != nil {
		t.Fatal(err)
	}
	before := e.storedJSON(cms.KindResource, "r-1")
	doc = e.page(e.press(c, doc, path, "save", func(v url.Values) { v.Set("title", "Lake, edited") }), http.StatusConflict)
	sameJSON(t, "r-1", e.storedJSON(cms.KindResource, "r-1"), before)
	if !strings.Contains(notices(doc), "not in the fields you see here") || valueOf(doc, "title") != "Lake, edited" {
		t.Errorf("notice %q, title %q", notices(doc), valueOf(doc, "title"))
	}
	if got := text(doc.Find(".langpick")); !strings.Contains(got, "fr") {
		t.Errorf("the picker does not offer the new language: %s", got)
	}
	e.follow(c, e.press(c, doc, path, "save", nil), path)
	if got := e.stored(cms.KindResource, "r-1"); got["title"] != "Lake, edited" || got["urlAlias_fr"] != "/lake" {
		t.Errorf("stored %v, %v", got["title"], got["urlAlias_fr"])
	}
}

// TestDefaultLanguageChangedWhileEditing: the bare field names address
// the default language, so a form opened before the default changed
// (en to it) posts "title" meaning English. The form says which language
// its bare names meant, and its values reach their own languages: the
// English text never lands in the Italian title, the Italian change is
// not dropped, and the editor sees both before saving again.
func TestDefaultLanguageChangedWhileEditing(t *testing.T) {
	t.Parallel()
	e := newEnv(t, envOptions{prefix: "/admin"})
	e.put(cms.KindResource, `{"id":"r-1","title":"Lake","title_it":"Lago","title_de":"See"}`)
	e.put(cms.KindLanding, `{"id":"l-1","title":"Landing","landingBlocks":[{"title":"Block","title_it":"Blocco"}]}`)
	c := e.signIn("admin")
	path := editPath(cms.KindResource, "r-1")
	doc := e.open(c, path)
	newDoc := e.open(c, "/resource/new")
	landingPath := editPath(cms.KindLanding, "l-1")
	landingDoc := e.open(c, landingPath)
	if err := e.svc.SetDefaultLanguage(t.Context(), "acme", "it"); err != nil {
		t.Fatal(err)
	}
	before := e.storedJSON(cms.KindResource, "r-1")
	res := e.press(c, doc, path, "save", func(v url.Values) { v.Set("title", "Lake, edited"); v.Set("title_it", "Lago, modificato") })
	if res.StatusCode == http.StatusSeeOther {
		t.Fatalf("saved at once: stored %v", e.stored(cms.KindResource, "r-1"))
	}
	doc = e.page(res, http.StatusConflict)
	sameJSON(t, "r-1", e.storedJSON(cms.KindResource, "r-1"), before)
	// The bare name is Italian now: the form shows each text in its own
	// language.
	if got, want := valueOf(doc, "title"), "Lago, modificato"; got != want {
		t.Errorf("title (it, the default now) holds %q, want %q", got, want)
	}
	if got, want := valueOf(doc, "title_en"), "Lake, edited"; got != want {
		t.Errorf("title_en holds %q, want %q", got, want)
	}
	e.follow(c, e.press(c, doc, path, "save", nil), path)
	got := e.stored(cms.KindResource, "r-1")
	for k, want := range map[string]any{"title": "Lago, modificato", "title_en": "Lake, edited", "title_de": "See"} {
		if got[k] != want {
			t.Errorf("stored %s %v, want %v", k, got[k], want)
		}
	}

	// A new record's form: its texts reach their languages too.
	res = e.press(c, newDoc, "/resource/new", "save", func(v url.Values) {
		v.Set("id", "r-2")
		v.Set("title", "Hello")
		v.Set("title_it", "Ciao")
	})
	if res.StatusCode != http.StatusSeeOther {
		t.Fatalf("new record: status %d", res.StatusCode)
	}
	if got := e.stored(cms.KindResource, "r-2"); got["title"] != "Ciao" || got["title_en"] != "Hello" {
		t.Errorf("new record stored title %v, title_en %v", got["title"], got["title_en"])
	}

	// Nested items: their names follow too. (The list as opened is known
	// by a hash of its old names only, so the conflict view asks about it,
	// showing the editor's values in their languages.)
	doc = e.page(e.press(c, landingDoc, landingPath, "save", func(v url.Values) {
		v.Set("landingBlocks[0].title", "Block, edited")
	}), http.StatusConflict)
	mine := text(doc.Find(`[data-field="landingBlocks"] [data-side="mine"]`))
	if !strings.Contains(mine, `"title_en": "Block, edited"`) || !strings.Contains(mine, `"title": "Blocco"`) {
		t.Errorf("the conflict view shows mine as %s", mine)
	}
	vals := formValues(t, doc, "#conflict-form")
	vals.Set("_take.landingBlocks", "mine")
	vals.Set("_action", "resolve")
	e.follow(c, e.post(c, landingPath, vals), landingPath)
	blocks, _ := e.stored(cms.KindLanding, "l-1")["landingBlocks"].([]any)
	if b, _ := blocks[0].(map[string]any); b["title"] != "Blocco" || b["title_en"] != "Block, edited" {
		t.Errorf("stored block %v", blocks)
	}
}
