package admin

import (
	"net/http"
	"net/url"
	"strconv"
	"strings"
	"testing"

	"github.com/PuerkitoBio/goquery"

	"github.com/bwcms/cms/cms"
)

// itemTitles are the default-language titles of a nested list's items on
// the page, in order.
func itemTitles(doc *goquery.Document, list string) []string {
	var out []string
	doc.Find(`fieldset.items[data-path="` + list + `"] > fieldset.item`).Each(func(i int, s *goquery.Selection) {
		out = append(out, s.Find(`input[name="`+list+`[`+strconv.Itoa(i)+`].title"]`).AttrOr("value", "?"))
	})
	return out
}

// TestCopyFromTheDefaultLanguage: the copy button of an empty language
// fills it in the form and saves nothing; a language with a value is
// left alone.
func TestCopyFromTheDefaultLanguage(t *testing.T) {
	t.Parallel()
	e := newEnv(t, envOptions{prefix: "/admin"})
	e.put(cms.KindResource, `{"id":"r-1","title":"Lake","title_it":"Lago","shortDescription":"Blue"}`)
	before := e.storedJSON(cms.KindResource, "r-1")
	c := e.signIn("admin")
	path := editPath(cms.KindResource, "r-1")
	doc := e.open(c, path)
	col := doc.Find(`.ml[data-field="title"] .ml-col[data-lang="de"]`)
	if !col.HasClass("missing") || col.Find(`button[value="copy:title:en:de"]`).Length() != 1 {
		t.Fatalf("de title: not marked missing with a copy button: %s", text(col))
	}
	if doc.Find(`.ml[data-field="title"] .ml-col[data-lang="it"]`).HasClass("missing") {
		t.Error("it title is marked missing")
	}
	if doc.Find(`.ml[data-field="shortDescription"] .ml-col.missing`).Length() != 2 {
		t.Error("shortDescription: it and de are not marked missing")
	}
	doc = e.page(e.press(c, doc, path, "copy:title:en:de", func(v url.Values) { v.Set("title", "Lake (edited)") }), http.StatusOK)
	if got := valueOf(doc, "title_de"); got != "Lake (edited)" {
		t.Errorf("title_de %q after the copy", got)
	}
	if got := valueOf(doc, "title"); got != "Lake (edited)" {
		t.Errorf("the editor's title %q is lost", got)
	}
	doc = e.page(e.press(c, doc, path, "copy:title:en:it", nil), http.StatusOK)
	if got := valueOf(doc, "title_it"); got != "Lago" {
		t.Errorf("title_it %q: a value was overwritten", got)
	}
	sameJSON(t, "r-1", e.storedJSON(cms.KindResource, "r-1"), before)
	e.follow(c, e.press(c, doc, path, "save", nil), path)
	if got := e.stored(cms.KindResource, "r-1"); got["title_de"] != "Lake (edited)" || got["title_it"] != "Lago" {
		t.Errorf("stored %v / %v", got["title_de"], got["title_it"])
	}
}

// TestNestedItemsAddMoveRemove: the item buttons change the form only;
// the save stores the list as shown, each item with every language,
// those not shown too.
func TestNestedItemsAddMoveRemove(t *testing.T) {
	t.Parallel()
	e := newEnv(t, envOptions{prefix: "/admin"})
	seedFull(e)
	before := e.storedJSON(cms.KindLanding, "l-1")
	c := e.signIn("admin")
	path := editPath(cms.KindLanding, "l-1")
	doc := e.open(c, path+"?langs=it") // de not shown: "Zweite" travels hidden
	if got := itemTitles(doc, "landingBlocks"); strings.Join(got, "|") != "Block|Second" {
		t.Fatalf("items %v", got)
	}
	if got := text(doc.Find(`fieldset.item[data-index="0"] > legend`).First()); got != "Block 1" {
		t.Errorf("legend %q", got)
	}
	if doc.Find(`[name="landingBlocks[1].title_de"]`).AttrOr("type", "") != "hidden" {
		t.Fatal("the hidden language of an item is not carried")
	}
	doc = e.page(e.press(c, doc, path, "copy:landingBlocks[0].title:en:it", nil), http.StatusOK)
	if got := valueOf(doc, "landingBlocks[0].title_it"); got != "Block" {
		t.Errorf("an item's copy gave %q", got)
	}
	doc = e.page(e.press(c, doc, path, "add:landingBlocks", nil), http.StatusOK)
	if got := itemTitles(doc, "landingBlocks"); strings.Join(got, "|") != "Block|Second|" {
		t.Fatalf("after add: %v", got)
	}
	doc = e.page(e.press(c, doc, path, "down:landingBlocks[0]", func(v url.Values) { v.Set("landingBlocks[2].title", "Third") }), http.StatusOK)
	if got := itemTitles(doc, "landingBlocks"); strings.Join(got, "|") != "Second|Block|Third" {
		t.Fatalf("after down: %v", got)
	}
	if got := doc.Find(`[name="landingBlocks[0].title_de"]`).AttrOr("value", ""); got != "Zweite" {
		t.Errorf("the moved item's hidden language is %q", got)
	}
	doc = e.page(e.press(c, doc, path, "up:landingBlocks[2]", nil), http.StatusOK)
	doc = e.page(e.press(c, doc, path, "remove:landingBlocks[2]", nil), http.StatusOK)
	if got := itemTitles(doc, "landingBlocks"); strings.Join(got, "|") != "Second|Third" {
		t.Fatalf("after up and remove: %v", got)
	}
	sameJSON(t, "l-1 before the save", e.storedJSON(cms.KindLanding, "l-1"), before)
	e.follow(c, e.press(c, doc, path, "save", nil), path)
	blocks, _ := e.stored(cms.KindLanding, "l-1")["landingBlocks"].([]any)
	if len(blocks) != 2 {
		t.Fatalf("stored %d blocks", len(blocks))
	}
	first, second := blocks[0].(map[string]any), blocks[1].(map[string]any)
	if first["title"] != "Second" || first["title_de"] != "Zweite" || second["title"] != "Third" {
		t.Errorf("stored blocks %v", blocks)
	}
	if doc := e.open(c, path); doc.Find(`button[value="up:landingBlocks[0]"], button[value="down:landingBlocks[1]"]`).Length() != 0 {
		t.Error("the first item moves up or the last down")
	}
}

// TestIDLists: ids are added by typing, moved and removed with buttons,
// shown with their records' titles; an unknown id is a problem of the
// list; the save keeps the order.
func TestIDLists(t *testing.T) {
	t.Parallel()
	e := newEnv(t, envOptions{prefix: "/admin"})
	seedFull(e)
	before := e.storedJSON(cms.KindMap, "m-1")
	c := e.signIn("editor")
	path := editPath(cms.KindMap, "m-1")
	doc := e.open(c, path)
	list := doc.Find(`.idlist[data-field="resourceIds"]`)
	if list.AttrOr("data-kind", "") != "resource" || text(list.Find(`li[data-id="r-0"] .idlist-title`)) != "Base resource" {
		t.Fatalf("resourceIds list: %s", text(list))
	}
	doc = e.page(e.press(c, doc, path, "addid:resourceIds", func(v url.Values) { v.Add("resourceIds", " r-1 ") }), http.StatusOK)
	ids := func() string {
		var out []string
		doc.Find(`.idlist[data-field="resourceIds"] li`).Each(func(_ int, s *goquery.Selection) {
			out = append(out, s.AttrOr("data-id", "")+"="+text(s.Find(".idlist-title")))
		})
		return strings.Join(out, "|")
	}
	if got := ids(); got != "r-0=Base resource|r-1=Resource one" {
		t.Fatalf("after add: %s", got)
	}
	if got := valueOf(doc, "resourceIds"); got != "r-0" {
		t.Errorf("first hidden value %q", got)
	}
	doc = e.page(e.press(c, doc, path, "up:resourceIds[1]", nil), http.StatusOK)
	if got := ids(); got != "r-1=Resource one|r-0=Base resource" {
		t.Errorf("after up: %s", got)
	}
	doc = e.page(e.press(c, doc, path, "addid:resourceIds", func(v url.Values) { v.Add("resourceIds", "ghost") }), http.StatusOK)
	if doc.Find(`.idlist[data-field="resourceIds"] li[data-id="ghost"] .badge.missing`).Length() != 1 {
		t.Error("an unknown id is not marked")
	}
	sameJSON(t, "m-1 before the save", e.storedJSON(cms.KindMap, "m-1"), before)
	doc = e.page(e.press(c, doc, path, "save", nil), http.StatusConflict)
	if doc.Find(`.error-summary a[href="#f-resourceIds"]`).Length() != 1 || doc.Find("#f-resourceIds-error").Length() != 1 {
		t.Errorf("the unknown id's problem: %s", text(doc.Find(".error-summary")))
	}
	doc = e.page(e.press(c, doc, path, "remove:resourceIds[2]", nil), http.StatusOK)
	doc = e.page(e.press(c, doc, path, "remove:resourceIds[1]", nil), http.StatusOK)
	e.follow(c, e.press(c, doc, path, "save", nil), path)
	if got := mustJSON(e.stored(cms.KindMap, "m-1")["resourceIds"]); got != `["r-1"]` {
		t.Errorf("stored resourceIds %s", got)
	}
}

// TestUnknownButton: a button the page does not have is a 400, nothing
// saved.
func TestUnknownButton(t *testing.T) {
	t.Parallel()
	e := newEnv(t, envOptions{})
	e.put(cms.KindResource, `{"id":"r-1","title":"Lake"}`)
	before := e.storedJSON(cms.KindResource, "r-1")
	c := e.signIn("admin")
	path := editPath(cms.KindResource, "r-1")
	doc := e.open(c, path)
	for _, action := range []string{"explode", "add:title", "remove:poiResourceIds[5]", "copy:title:en:xx", "copy:shortDescription:en:id", "up:timeLastUpdate[0]"} {
		e.page(e.press(c, doc, path, action, func(v url.Values) { v.Set("title", "not saved") }), http.StatusBadRequest)
	}
	sameJSON(t, "r-1", e.storedJSON(cms.KindResource, "r-1"), before)
}

// TestListOfMoreItemsThanAFormHolds: a record whose nested list holds
// more items than a form edits (the API allows any number) is never
// saved cut short: the form warns, and a save is refused on the list
// with nothing changed.
func TestListOfMoreItemsThanAFormHolds(t *testing.T) {
	t.Parallel()
	e := newEnv(t, envOptions{prefix: "/admin"})
	var b strings.Builder
	b.WriteString(`{"id":"l-1","title":"Many blocks","landingBlocks":[`)
	for i := range maxItems + 1 {
		if i > 0 {
			b.WriteString(",")
		}
		b.WriteString(`{"title":"B` + strconv.Itoa(i) + `"}`)
	}
	b.WriteString(`]}`)
	e.put(cms.KindLanding, b.String())
	before := e.storedJSON(cms.KindLanding, "l-1")
	c := e.signIn("admin")
	path := editPath(cms.KindLanding, "l-1")
	doc := e.open(c, path)
	if got := notices(doc); !strings.Contains(got, "1001") {
		t.Errorf("no warning of the long list: %q", got)
	}
	doc = e.page(e.press(c, doc, path, "save", func(v url.Values) { v.Set("title", "Changed") }), http.StatusConflict)
	if got := text(doc.Find(".error-summary")); !strings.Contains(got, "1001") {
		t.Errorf("summary %q", got)
	}
	if got := valueOf(doc, "title"); got != "Changed" {
		t.Errorf("the editor's title was lost: %q", got)
	}
	sameJSON(t, "l-1", e.storedJSON(cms.KindLanding, "l-1"), before)
}
