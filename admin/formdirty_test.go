package admin

import (
	"net/http"
	"net/url"
	"testing"

	"github.com/PuerkitoBio/goquery"

	"github.com/bwcms/cms/cms"
)

func unsavedMark(doc *goquery.Document) bool {
	_, ok := doc.Find("#record-form").Attr("data-unsaved")
	return ok
}

// TestFormSaysWhetherItHoldsUnsavedChanges: the form is marked
// data-unsaved exactly when a posted form's values differ from those
// opened, for every kind: not when opened, not after showing another
// language, but after an edit carried by a button and after adding an
// item; a blank new form is not marked until something is typed.
func TestFormSaysWhetherItHoldsUnsavedChanges(t *testing.T) {
	t.Parallel()
	e := newEnv(t, envOptions{prefix: "/admin"})
	seedFull(e)
	c := e.signIn("admin")
	for _, kind := range cms.Kinds() {
		path := editPath(kind, oneID[kind])
		doc := e.open(c, path)
		if unsavedMark(doc) {
			t.Errorf("%s: opened form marked unsaved", kind)
		}
		same := e.page(e.press(c, doc, path, "langs", func(v url.Values) { v["_langs"] = []string{"de"} }), http.StatusOK)
		if unsavedMark(same) {
			t.Errorf("%s: showing another language marks the form unsaved", kind)
		}
		edited := e.page(e.press(c, same, path, "langs", func(v url.Values) {
			v["_langs"] = []string{"it", "de"}
			v.Set("title_de", "Neu")
		}), http.StatusOK)
		if !unsavedMark(edited) || valueOf(edited, "title_de") != "Neu" {
			t.Errorf("%s: an edit carried by a button is not marked unsaved (title_de %q)", kind, valueOf(edited, "title_de"))
		}
		// Back to the opened value: nothing unsaved.
		back := e.page(e.press(c, edited, path, "show:it", func(v url.Values) { v.Set("title_de", valueOf(doc, "title_de")) }), http.StatusOK)
		if unsavedMark(back) {
			t.Errorf("%s: the opened values again are marked unsaved", kind)
		}
	}
	path := editPath(cms.KindLanding, "l-1")
	added := e.page(e.press(c, e.open(c, path), path, "add:landingBlocks", nil), http.StatusOK)
	if !unsavedMark(added) {
		t.Error("an item added is not marked unsaved")
	}

	for _, kind := range cms.Kinds() {
		path := "/" + string(kind) + "/new"
		blank := e.open(c, path)
		shown := e.page(e.press(c, blank, path, "langs", func(v url.Values) { v["_langs"] = []string{"it"} }), http.StatusOK)
		if unsavedMark(shown) {
			t.Errorf("new %s: a blank form is marked unsaved", kind)
		}
		typed := e.page(e.press(c, shown, path, "langs", func(v url.Values) { v.Set("title", "Fresh") }), http.StatusOK)
		if !unsavedMark(typed) {
			t.Errorf("new %s: a title typed is not marked unsaved", kind)
		}
	}
}

// TestFormSaysASaveHappened: the page a save leads to says so
// (data-saved, which makes the drafts script drop its draft) with the
// outcome; a reload of it, or any other page, does not.
func TestFormSaysASaveHappened(t *testing.T) {
	t.Parallel()
	e := newEnv(t, envOptions{prefix: "/admin"})
	e.put(cms.KindResource, `{"id":"r-1","title":"Lake"}`)
	c := e.signIn("admin")
	path := editPath(cms.KindResource, "r-1")
	doc := e.open(c, path)
	if v, ok := doc.Find("#record-form").Attr("data-saved"); ok {
		t.Errorf("opened form has data-saved=%q", v)
	}
	saved := e.follow(c, e.press(c, doc, path, "save", func(v url.Values) { v.Set("title", "Lake 2") }), path)
	if got := saved.Find("#record-form").AttrOr("data-saved", ""); got != "updated" {
		t.Errorf("after a save data-saved=%q, want updated", got)
	}
	skipped := e.follow(c, e.press(c, saved, path, "save", nil), path)
	if got := skipped.Find("#record-form").AttrOr("data-saved", ""); got != "skipped" {
		t.Errorf("after an unchanged save data-saved=%q, want skipped", got)
	}
	if _, ok := e.open(c, path).Find("#record-form").Attr("data-saved"); ok {
		t.Error("a reload still says saved")
	}
	created := e.follow(c, e.press(c, e.open(c, "/resource/new"), "/resource/new", "save", func(v url.Values) {
		v.Set("id", "r-2")
		v.Set("title", "Two")
	}), editPath(cms.KindResource, "r-2"))
	if got := created.Find("#record-form").AttrOr("data-saved", ""); got != "created" {
		t.Errorf("after a create data-saved=%q, want created", got)
	}
	if got := e.stored(cms.KindResource, "r-1")["title"]; got != "Lake 2" {
		t.Errorf("stored title %v", got)
	}
}

// TestRestoreShowsADraftAndSavesNothing: the drafts script's restore
// posts a draft kept in the browser: the form shows its values with the
// version it was made from, nothing is stored, and a save of it after
// someone else saved meets the conflict view instead of overwriting.
func TestRestoreShowsADraftAndSavesNothing(t *testing.T) {
	t.Parallel()
	e := newEnv(t, envOptions{prefix: "/admin"})
	e.put(cms.KindResource, `{"id":"r-1","title":"Lake","shortDescription":"Blue"}`)
	c := e.signIn("admin")
	path := editPath(cms.KindResource, "r-1")
	opened := e.open(c, path)
	draft := formValues(t, opened, "#record-form")
	draft.Set("title_it", "Lago <img src=x onerror=alert(1)>")

	// Someone else saves meanwhile.
	e.put(cms.KindResource, `{"id":"r-1","title":"Lake","shortDescription":"Green"}`)
	before := e.storedJSON(cms.KindResource, "r-1")

	draft.Set("_action", "restore")
	doc := e.page(e.post(c, path, draft), http.StatusOK)
	sameJSON(t, "r-1 after restore", e.storedJSON(cms.KindResource, "r-1"), before)
	if got := valueOf(doc, "title_it"); got != "Lago <img src=x onerror=alert(1)>" {
		t.Errorf("restored title_it %q", got)
	}
	if got := valueOf(doc, "shortDescription"); got != "Blue" {
		t.Errorf("restored shortDescription %q, want the draft's Blue", got)
	}
	if doc.Find("main img").Length() != 0 {
		t.Error("the draft's markup became an element")
	}
	if got, want := doc.Find("#record-form").AttrOr("data-etag", ""), opened.Find("#record-form").AttrOr("data-etag", "?"); got != want {
		t.Errorf("restored form carries ETag %s, want the draft's %s", got, want)
	}
	if !unsavedMark(doc) || notices(doc) == "" {
		t.Errorf("restored form: unsaved mark %v, notice %q", unsavedMark(doc), notices(doc))
	}
	res := e.press(c, doc, path, "save", nil)
	conflict := e.page(res, http.StatusConflict)
	if conflict.Find("form.conflict").Length() != 1 {
		t.Fatalf("saving a draft of an older version: no conflict view: %s", text(conflict.Find("main")))
	}
	sameJSON(t, "r-1 after the save of the draft", e.storedJSON(cms.KindResource, "r-1"), before)
}
