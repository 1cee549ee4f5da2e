package admin

import (
	"encoding/json"
	"fmt"
	"net/http"
	"net/url"
	"strconv"
	"strings"
	"testing"

	"github.com/PuerkitoBio/goquery"

	"github.com/bwcms/cms/cms"
)

// fullRecords are a record of each kind with values of every shape: both
// languages, HTML with line ends, numbers, booleans, lists, nested items
// and ids (r-0 and m-0 are stored first).
var fullRecords = map[cms.Kind]string{
	cms.KindResource: `{"id":"r-1","published":true,"title":"Resource one","title_it":"Risorsa uno","shortDescription":"Short",
		"htmlContent":"<p>Para\nline</p>","locationLat":45.07,"locationLon":7.68,"locationZoom":12,
		"multimedia":["https://x.test/a.jpg","https://x.test/b.png"],"resourceCategories":["c1","c2"],"ctaOnMap":true,
		"hideInList":true,"mapIds":["m-0"],"poiResourceIds":["r-0"],"resourceType":"TRACK","trackDifficulty":3,"trackCircular":false,
		"openingTimes":"Mon\nTue","contactEmail":"a@b.test"}`,
	cms.KindMap: `{"id":"m-1","title":"Map one","routePlannerWidth":2.5,"resourceIds":["r-0"],"mapClusterize":false,
		"tourMultiday":[{"dayLabels":["D1","D2"],"title":"Day one","title_it":"Giorno uno","resourceIds":["r-0"]}],
		"trackResourceId":"r-0"}`,
	cms.KindLanding: `{"id":"l-1","title":"Landing one","mapId":"m-0","proposal":true,
		"landingBlocks":[{"title":"Block","resourceIds":["m-0"],"htmlContent":"<p>b</p>"},{"title":"Second","title_de":"Zweite"}],
		"landingHotels":[{"title":"Hotels","resourceIds":["r-0"]}]}`,
	cms.KindProposal: `{"id":"p-1","title":"Proposal one","expireDate":"2027-01-31","customerId":"cust-1","pricing":"<b>100</b>",
		"relatedContents":[{"title":"Related"}],"hotels":[{"title":"Hotel","resourceIds":["r-0"]}]}`,
}

func seedFull(e *env) {
	e.t.Helper()
	e.put(cms.KindResource, `{"id":"r-0","title":"Base resource"}`)
	e.put(cms.KindMap, `{"id":"m-0","title":"Base map"}`)
	for _, kind := range cms.Kinds() {
		e.put(kind, fullRecords[kind])
	}
}

func editPath(kind cms.Kind, id string) string { return "/" + string(kind) + "/" + id + "/edit" }

// TestUntouchedSaveChangesNothing: opening a record and saving it at once
// is a Skip for every kind: the form holds every value as stored.
func TestUntouchedSaveChangesNothing(t *testing.T) {
	t.Parallel()
	e := newEnv(t, envOptions{prefix: "/admin"})
	seedFull(e)
	c := e.signIn("admin")
	for _, kind := range cms.Kinds() {
		id := oneID[kind]
		before := e.storedJSON(kind, id)
		e.clock.Advance(1e9)
		path := editPath(kind, id)
		doc := e.follow(c, e.press(c, e.open(c, path), path, "save", nil), path)
		if got := notices(doc); !strings.Contains(got, "nothing had changed") {
			t.Errorf("%s: notice %q, want a Skip", kind, got)
		}
		sameJSON(t, string(kind)+" "+id, e.storedJSON(kind, id), before)
	}
}

// TestEditEveryKindInTwoLanguages changes the title in two languages of
// each kind: both stored, nothing else changed, a Saved notice.
func TestEditEveryKindInTwoLanguages(t *testing.T) {
	t.Parallel()
	e := newEnv(t, envOptions{prefix: "/admin"})
	seedFull(e)
	c := e.signIn("editor") // resource:* and map:*
	admin := e.signIn("admin")
	for _, kind := range cms.Kinds() {
		id := oneID[kind]
		browser := c
		if kind == cms.KindLanding || kind == cms.KindProposal {
			browser = admin
		}
		before := e.stored(kind, id)
		path := editPath(kind, id)
		doc := e.open(browser, path)
		if got := valueOf(doc, "title"); got != before["title"] {
			t.Errorf("%s: title shows %q, stored %q", kind, got, before["title"])
		}
		doc = e.follow(browser, e.press(browser, doc, path, "save", func(v url.Values) {
			v.Set("title", "Changed "+string(kind))
			v.Set("title_it", "Cambiato ÀÈ")
		}), path)
		if got := notices(doc); got != "Saved." {
			t.Errorf("%s: notice %q", kind, got)
		}
		if got := valueOf(doc, "title_it"); got != "Cambiato ÀÈ" {
			t.Errorf("%s: the form after saving shows title_it %q", kind, got)
		}
		after := e.stored(kind, id)
		if after["title"] != "Changed "+string(kind) || after["title_it"] != "Cambiato ÀÈ" {
			t.Errorf("%s: stored title %q, title_it %q", kind, after["title"], after["title_it"])
		}
		for k, v := range before {
			if k == "title" || k == "title_it" || k == "timeLastUpdate" {
				continue
			}
			if a, _ := json.Marshal(after[k]); string(a) != mustJSON(v) {
				t.Errorf("%s: %s changed from %s to %s", kind, k, mustJSON(v), a)
			}
		}
	}
}

func mustJSON(v any) string {
	b, _ := json.Marshal(v)
	return string(b)
}

// TestClearingSendsNull: emptying a nullable text, number or list, and
// "not set" on a nullable yes/no, store null; an unchecked box stores
// false.
func TestClearingSendsNull(t *testing.T) {
	t.Parallel()
	e := newEnv(t, envOptions{prefix: "/admin"})
	seedFull(e)
	c := e.signIn("admin")
	path := editPath(cms.KindResource, "r-1")
	e.follow(c, e.press(c, e.open(c, path), path, "save", func(v url.Values) {
		v.Set("shortDescription", "")
		v.Set("locationZoom", "")
		v.Set("multimedia", "")
		v.Set("ctaOnMap", "")
		v.Del("hideInList") // unchecked
		v.Del("mapIds")     // every id removed
		v.Set("mapIds", "")
	}), path)
	got := e.stored(cms.KindResource, "r-1")
	for _, k := range []string{"shortDescription", "locationZoom", "multimedia", "ctaOnMap", "mapIds"} {
		if got[k] != nil {
			t.Errorf("%s stored %v, want null", k, got[k])
		}
	}
	if got["hideInList"] != false {
		t.Errorf("hideInList stored %v, want false", got["hideInList"])
	}
	if got["locationLat"] != 45.07 || got["title_it"] != "Risorsa uno" {
		t.Errorf("other fields changed: %v %v", got["locationLat"], got["title_it"])
	}
	// The Map no longer lists it: the assignment went with the list.
	if m := e.stored(cms.KindMap, "m-0"); m["resourceIds"] != nil {
		t.Errorf("m-0 still lists %v", m["resourceIds"])
	}
}

// TestProblemsShownOnTheirFields: a refused save is a 409 with the
// editor's values kept, each problem beside its control and a summary
// linking to it; nothing is stored.
func TestProblemsShownOnTheirFields(t *testing.T) {
	t.Parallel()
	e := newEnv(t, envOptions{prefix: "/admin"})
	seedFull(e)
	c := e.signIn("admin")
	before := e.storedJSON(cms.KindResource, "r-1")
	path := editPath(cms.KindResource, "r-1")
	long := strings.Repeat("x", 101)
	res := e.press(c, e.open(c, path), path, "save", func(v url.Values) {
		v.Set("title", "Kept while refused")
		v.Set("title_it", long)
		v.Set("locationLat", "95")
		v.Set("multimedia", "https://x.test/a.jpg\r\nnot a url")
	})
	doc := e.page(res, http.StatusConflict)
	sameJSON(t, "r-1", e.storedJSON(cms.KindResource, "r-1"), before)
	if got := valueOf(doc, "title"); got != "Kept while refused" {
		t.Errorf("title shows %q, want the editor's value", got)
	}
	for _, name := range []string{"title_it", "locationLat", "multimedia"} {
		id := controlID(name)
		ctl := doc.Find("#" + id)
		if ctl.AttrOr("aria-invalid", "") != "true" {
			t.Errorf("%s: not aria-invalid", name)
		}
		errText := text(doc.Find("#" + id + "-error"))
		if errText == "" || !strings.Contains(ctl.AttrOr("aria-describedby", ""), id+"-error") {
			t.Errorf("%s: error %q, aria-describedby %q", name, errText, ctl.AttrOr("aria-describedby", ""))
		}
		if doc.Find(`.error-summary a[href="#`+id+`"]`).Length() != 1 {
			t.Errorf("%s: no summary link", name)
		}
	}
	var order []string
	doc.Find(".error-summary a").Each(func(_ int, s *goquery.Selection) { order = append(order, s.AttrOr("href", "")) })
	if strings.Join(order, " ") != "#f-title_it #f-multimedia #f-locationLat" {
		t.Errorf("summary order %v, want the page's", order)
	}
	if !strings.Contains(text(doc.Find("#f-title_it-error")), "100") {
		t.Errorf("title_it error %q does not give the limit", text(doc.Find("#f-title_it-error")))
	}
	if !strings.HasPrefix(doc.Find("title").Text(), "Error:") {
		t.Errorf("page title %q", doc.Find("title").Text())
	}
	// The form is still the editor's: fixing and saving works.
	res = e.press(c, doc, path, "save", func(v url.Values) {
		v.Set("title_it", "Corto")
		v.Set("locationLat", "45,5") // a decimal comma
		v.Set("multimedia", "https://x.test/a.jpg")
	})
	e.follow(c, res, path)
	got := e.stored(cms.KindResource, "r-1")
	if got["title"] != "Kept while refused" || got["title_it"] != "Corto" || got["locationLat"] != 45.5 {
		t.Errorf("stored %v %v %v", got["title"], got["title_it"], got["locationLat"])
	}
}

// TestRecordTextIsOnlyText: markup in a record's text reaches the page as
// text, in the form and in an id list's titles.
func TestRecordTextIsOnlyText(t *testing.T) {
	t.Parallel()
	e := newEnv(t, envOptions{prefix: "/admin"})
	evil := `<img src=x onerror=alert(1)>`
	e.put(cms.KindResource, `{"id":"r-0","title":"`+strings.ReplaceAll(evil, `"`, `\"`)+`"}`,
		`{"id":"r-1","title":"`+strings.ReplaceAll(evil, `"`, `\"`)+`","poiResourceIds":["r-0"]}`)
	c := e.signIn("admin")
	doc := e.open(c, editPath(cms.KindResource, "r-1"))
	if n := doc.Find("main img").Length(); n != 0 {
		t.Errorf("%d img elements on the page", n)
	}
	if got := valueOf(doc, "title"); got != evil {
		t.Errorf("title value %q", got)
	}
	if got := text(doc.Find(`.idlist[data-field="poiResourceIds"] .idlist-title`)); got != evil {
		t.Errorf("id list title %q", got)
	}
}

// TestNewRecord: a blank form creates a record and opens it; an id that
// exists is refused on the id field, the stored record untouched.
func TestNewRecord(t *testing.T) {
	t.Parallel()
	e := newEnv(t, envOptions{prefix: "/admin"})
	e.put(cms.KindResource, `{"id":"taken","title":"Taken"}`)
	before := e.storedJSON(cms.KindResource, "taken")
	c := e.signIn("editor")
	doc := e.open(c, "/resource/new")
	if _, ro := doc.Find("#f-id").Attr("readonly"); ro {
		t.Error("the id of a new record is read-only")
	}
	res := e.press(c, doc, "/resource/new", "save", func(v url.Values) {
		v.Set("id", "taken")
		v.Set("title", "Overwrite?")
	})
	doc = e.page(res, http.StatusConflict)
	if doc.Find(`.error-summary a[href="#f-id"]`).Length() != 1 || doc.Find("#f-id").AttrOr("aria-invalid", "") != "true" {
		t.Error("the existing id is not shown as a problem of the id field")
	}
	sameJSON(t, "taken", e.storedJSON(cms.KindResource, "taken"), before)

	res = e.press(c, doc, "/resource/new", "save", func(v url.Values) {
		v.Set("id", "fresh-1")
		v.Set("title", "Caffè Nero")
	})
	doc = e.follow(c, res, editPath(cms.KindResource, "fresh-1"))
	if !strings.Contains(notices(doc), "created") {
		t.Errorf("notice %q", notices(doc))
	}
	got := e.stored(cms.KindResource, "fresh-1")
	if got["title"] != "Caffè Nero" || got["urlAlias"] != "/caffe-nero" || got["published"] != false || got["hideInList"] != false {
		t.Errorf("created %v", got)
	}
	// A Map's defaults at creation hold when the form leaves them empty.
	res = e.press(c, e.open(c, "/map/new"), "/map/new", "save", func(v url.Values) { v.Set("id", "new-map") })
	e.follow(c, res, editPath(cms.KindMap, "new-map"))
	if m := e.stored(cms.KindMap, "new-map"); m["routePlannerColor"] != "#3388ff" {
		t.Errorf("new map's colour %v", m["routePlannerColor"])
	}
	// A reader gets no blank form.
	if res := e.get(e.signIn("reader"), "/resource/new"); res.StatusCode != http.StatusForbidden {
		t.Errorf("reader's new form: status %d", res.StatusCode)
	}
}

// TestRecordCalledNew has its own edit address.
func TestRecordCalledNew(t *testing.T) {
	t.Parallel()
	e := newEnv(t, envOptions{})
	e.put(cms.KindMap, `{"id":"new","title":"A map called new"}`)
	c := e.signIn("admin")
	doc := e.open(c, "/map/new/edit")
	if got := valueOf(doc, "title"); got != "A map called new" {
		t.Errorf("title %q", got)
	}
	if got := doc.Find("#record-form").AttrOr("action", ""); got != "/map/new/edit" {
		t.Errorf("action %q", got)
	}
}

// TestMissingRecords: a missing id, another account's record and an
// unknown kind are 404 pages.
func TestMissingRecords(t *testing.T) {
	t.Parallel()
	e := newEnv(t, envOptions{prefix: "/admin"})
	other := cms.WithPrincipal(t.Context(), cms.Principal{Account: "other", User: "otto", Perms: []string{"*"}, Langs: cms.Languages{Default: "de", All: []string{"de"}}})
	if _, err := e.svc.Upsert(other, cms.KindResource, []byte(`{"id":"theirs","title":"Not acme's"}`), nil); err != nil {
		t.Fatal(err)
	}
	c := e.signIn("admin")
	for _, path := range []string{"/resource/nobody/edit", "/resource/theirs/edit", "/thing/x/edit"} {
		doc := e.page(e.get(c, path), http.StatusNotFound)
		if strings.Contains(text(doc.Find("main")), "Not acme's") {
			t.Errorf("%s shows the other account's record", path)
		}
	}
	res := e.post(c, "/resource/theirs/edit", url.Values{"_action": {"save"}, "_fields": {"title"}, "title": {"mine now"}})
	e.page(res, http.StatusNotFound)
}

// TestProposalFormIsNotAVisit: opening and saving a Proposal's form leaves
// its access counters alone.
func TestProposalFormIsNotAVisit(t *testing.T) {
	t.Parallel()
	e := newEnv(t, envOptions{prefix: "/admin"})
	seedFull(e)
	c := e.signIn("admin")
	path := editPath(cms.KindProposal, "p-1")
	doc := e.open(c, path)
	e.follow(c, e.press(c, doc, path, "save", func(v url.Values) { v.Set("title", "Seen") }), path)
	if got := e.stored(cms.KindProposal, "p-1"); got["statsAccess"] != 0.0 || got["statsLastAccess"] != nil {
		t.Errorf("statsAccess %v, statsLastAccess %v", got["statsAccess"], got["statsLastAccess"])
	}
	if got := text(doc.Find("#f-statsAccess")); got != "0" {
		t.Errorf("statsAccess shows %q", got)
	}
}

// BenchmarkEditForm opens a Resource's form (the schema read, the record,
// its ids' titles, the page rendered).
func BenchmarkEditForm(b *testing.B) {
	e := newEnv(b, envOptions{prefix: "/admin"})
	seedFull(e)
	c := e.signIn("admin")
	path := editPath(cms.KindResource, "r-1")
	b.ReportAllocs()
	for b.Loop() {
		res := e.get(c, path)
		if res.StatusCode != http.StatusOK {
			b.Fatal(res.Status)
		}
		res.Body.Close()
	}
}

// TestEveryKind runs the form's paths on each kind: clearing a nullable
// field stores null; a 409 is shown on its field with a summary link;
// markup in the title stays text; two editors meet the conflict view;
// clone; a delete of a changed record is refused.
func TestEveryKind(t *testing.T) {
	t.Parallel()
	for _, kind := range cms.Kinds() {
		t.Run(string(kind), func(t *testing.T) {
			t.Parallel()
			e := newEnv(t, envOptions{prefix: "/admin"})
			seedFull(e)
			id := oneID[kind]
			path := editPath(kind, id)
			a, b := e.signIn("admin"), e.signIn("admin")

			// Clearing a nullable field.
			e.put(kind, `{"id":"`+id+`","shortDescription_it":"Breve"}`)
			e.follow(a, e.press(a, e.open(a, path), path, "save", func(v url.Values) { v.Set("shortDescription_it", "") }), path)
			if got := e.stored(kind, id); got["shortDescription_it"] != nil {
				t.Errorf("shortDescription_it stored %v, want null", got["shortDescription_it"])
			}

			// A 409 on its field.
			before := e.storedJSON(kind, id)
			doc := e.page(e.press(a, e.open(a, path), path, "save", func(v url.Values) { v.Set("title_it", strings.Repeat("é", 101)) }), http.StatusConflict)
			if doc.Find(`#f-title_it[aria-invalid="true"]`).Length() != 1 || doc.Find(`.error-summary a[href="#f-title_it"]`).Length() != 1 {
				t.Errorf("the 409 is not on title_it: %s", text(doc.Find(".error-summary")))
			}
			sameJSON(t, "after the 409", e.storedJSON(kind, id), before)

			// Markup in the title.
			e.put(kind, `{"id":"`+id+`","title":"<img src=x onerror=alert(1)>"}`)
			doc = e.open(a, path)
			if doc.Find("main img").Length() != 0 || valueOf(doc, "title") != "<img src=x onerror=alert(1)>" {
				t.Error("the title's markup reached the page")
			}

			// Two editors.
			docA, docB := e.open(a, path), e.open(b, path)
			e.clock.Advance(1e9)
			e.follow(a, e.press(a, docA, path, "save", func(v url.Values) { v.Set("title", "A") }), path)
			saved := e.storedJSON(kind, id)
			doc = e.page(e.press(b, docB, path, "save", func(v url.Values) { v.Set("title", "B") }), http.StatusConflict)
			if clashOf(doc, "title").Length() != 1 {
				t.Fatalf("no conflict on title: %s", text(doc.Find("main")))
			}
			sameJSON(t, "after B's save", e.storedJSON(kind, id), saved)
			vals := formValues(t, doc, "#conflict-form")
			vals.Set("_take.title", "mine")
			vals.Set("_action", "resolve")
			e.follow(b, e.post(b, path, vals), path)
			if got := e.stored(kind, id)["title"]; got != "B" {
				t.Errorf("after resolving: title %v", got)
			}

			// Clone.
			e.follow(a, e.press(a, e.open(a, path), path, "clone", nil), editPath(kind, id+"-copy"))
			if got := e.stored(kind, id+"-copy"); got == nil || got["title"] != "B" {
				t.Errorf("clone %v", got)
			}

			// A delete of a record changed since it was opened.
			doc = e.page(e.press(a, e.open(a, path), path, "delete", nil), http.StatusOK)
			e.clock.Advance(1e9)
			e.put(kind, `{"id":"`+id+`","title":"Changed again"}`)
			vals = formValues(t, doc, "section.delete-confirm form")
			vals.Set("_action", "delete-confirm")
			e.page(e.post(a, path, vals), http.StatusPreconditionFailed)
			if e.stored(kind, id) == nil {
				t.Error("deleted with a stale version")
			}
		})
	}
}

// TestLargeForms: a form of more than 10,000 fields (a Map listing
// thousands of Resources) is read; one over the size limit is a 413.
func TestLargeForms(t *testing.T) {
	t.Parallel()
	e := newEnv(t, envOptions{})
	e.put(cms.KindResource, `{"id":"r-1","title":"Lake"}`)
	c := e.signIn("admin")
	path := editPath(cms.KindResource, "r-1")
	res := e.press(c, e.open(c, path), path, "save", func(v url.Values) {
		v.Set("title", "Many fields")
		for i := range 12000 {
			v.Add("resourceCategories", "c"+strconv.Itoa(i%50))
		}
	})
	doc := e.page(res, http.StatusConflict) // 12,000 categories: more than 100
	if doc.Find("#f-resourceCategories-error").Length() != 1 {
		t.Errorf("no problem on resourceCategories: %s", text(doc.Find(".error-summary")))
	}
	big := url.Values{"_action": {"save"}, "_fields": {"title"}, "title": {strings.Repeat("x", maxFormBody)}}
	e.page(e.post(c, path, big), http.StatusRequestEntityTooLarge)
	if got := e.stored(cms.KindResource, "r-1")["title"]; got != "Lake" {
		t.Errorf("stored title %v", got)
	}
}

// TestIntegerFieldsTakeNoSeparators: "1,000" or "1.000" in a field of
// whole numbers is a thousand to some editors and one to others: it is
// refused on its field, never stored as 1. Decimal commas stay accepted
// in fields of decimals.
func TestIntegerFieldsTakeNoSeparators(t *testing.T) {
	t.Parallel()
	e := newEnv(t, envOptions{prefix: "/admin"})
	e.put(cms.KindResource, `{"id":"r-1","title":"Track","resourceType":"TRACK","trackTravelDistance":500}`)
	c := e.signIn("editor")
	path := editPath(cms.KindResource, "r-1")
	for _, typed := range []string{"1,000", "1.000", "12,5"} {
		before := e.storedJSON(cms.KindResource, "r-1")
		doc := e.page(e.press(c, e.open(c, path), path, "save", func(v url.Values) { v.Set("trackTravelDistance", typed) }), http.StatusConflict)
		if got := text(doc.Find("#f-trackTravelDistance-error")); !strings.Contains(got, "integer") {
			t.Errorf("%q: the field says %q", typed, got)
		}
		if got := valueOf(doc, "trackTravelDistance"); got != typed {
			t.Errorf("%q: the field holds %q", typed, got)
		}
		sameJSON(t, typed, e.storedJSON(cms.KindResource, "r-1"), before)
	}
	// Written plainly, or as 1e3, it is saved.
	for typed, want := range map[string]float64{"1000": 1000, "2e3": 2000} {
		e.follow(c, e.press(c, e.open(c, path), path, "save", func(v url.Values) { v.Set("trackTravelDistance", typed) }), path)
		if got := e.stored(cms.KindResource, "r-1")["trackTravelDistance"]; got != want {
			t.Errorf("%q: stored %v", typed, got)
		}
	}
	e.follow(c, e.press(c, e.open(c, path), path, "save", func(v url.Values) { v.Set("locationLat", "45,07"); v.Set("locationLon", "9,5") }), path)
	if got := e.stored(cms.KindResource, "r-1"); got["locationLat"] != 45.07 || got["locationLon"] != 9.5 {
		t.Errorf("decimal commas: stored %v, %v", got["locationLat"], got["locationLon"])
	}
}

// TestUntouchedSaveKeepsLineEndsAndSpaces: text stored through the API
// with Windows line ends (CRLF), and list items with spaces around them,
// come back from a browser as LF and trimmed: a form that changes none of
// them saves them as stored (a Skip), and a change elsewhere leaves them
// alone.
func TestUntouchedSaveKeepsLineEndsAndSpaces(t *testing.T) {
	t.Parallel()
	e := newEnv(t, envOptions{prefix: "/admin"})
	e.put(cms.KindMap, `{"id":"m-1","title":"Lines","shortDescription":"one\r\ntwo\r\n","mapCategories":[" spaced ","plain"],`+
		`"tourMultiday":[{"dayLabels":["D1"],"shortDescription":"day\r\none"}]}`)
	e.put(cms.KindLanding, `{"id":"l-1","title":"Lines","landingBlocks":[{"title":"B","shortDescription":"block\r\ntext"}]}`)
	c := e.signIn("admin")
	for _, rec := range []struct {
		kind cms.Kind
		id   string
	}{{cms.KindMap, "m-1"}, {cms.KindLanding, "l-1"}} {
		before := e.storedJSON(rec.kind, rec.id)
		if !strings.Contains(before, `\r\n`) {
			t.Fatalf("%s: the fixture lost its CRLF: %s", rec.id, before)
		}
		e.clock.Advance(1e9)
		path := editPath(rec.kind, rec.id)
		doc := e.follow(c, e.press(c, e.open(c, path), path, "save", nil), path)
		if got := notices(doc); !strings.Contains(got, "nothing had changed") {
			t.Errorf("%s: notice %q, want a Skip", rec.id, got)
		}
		sameJSON(t, rec.id, e.storedJSON(rec.kind, rec.id), before)
	}
	// A change of the title alone keeps the others as stored.
	path := editPath(cms.KindMap, "m-1")
	e.follow(c, e.press(c, e.open(c, path), path, "save", func(v url.Values) { v.Set("title", "Lines, edited") }), path)
	got := e.stored(cms.KindMap, "m-1")
	if got["title"] != "Lines, edited" || got["shortDescription"] != "one\r\ntwo\r\n" || fmt.Sprint(got["mapCategories"]) != "[ spaced  plain]" {
		t.Errorf("after a title change: %q %q %v", got["title"], got["shortDescription"], got["mapCategories"])
	}
	// A real change of the text is saved as the browser sent it.
	doc := e.open(c, path)
	e.follow(c, e.press(c, doc, path, "save", func(v url.Values) { v.Set("shortDescription", "one\r\nthree") }), path)
	if got := e.stored(cms.KindMap, "m-1")["shortDescription"]; got != "one\nthree" {
		t.Errorf("changed text stored as %q", got)
	}
}
