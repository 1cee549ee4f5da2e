package admin

import (
	"net/http"
	"net/url"
	"slices"
	"strings"
	"testing"

	"github.com/PuerkitoBio/goquery"

	"github.com/bwcms/cms/cms"
)

func historyPath(kind cms.Kind, id string) string { return "/" + string(kind) + "/" + id + "/history" }

// twoRevisions stores Resource r-1 and changes its title: revision 1
// "Old", revision 2 "New".
func twoRevisions(e *env) {
	e.t.Helper()
	e.put(cms.KindResource, `{"id":"r-1","title":"Old","title_it":"Vecchio","shortDescription":"Same"}`)
	e.clock.Advance(1e9)
	e.put(cms.KindResource, `{"id":"r-1","title":"New","title_it":"Vecchio","shortDescription":"Same"}`)
}

func TestHistoryListsRevisionsNewestFirst(t *testing.T) {
	t.Parallel()
	e := newEnv(t, envOptions{prefix: "/admin"})
	twoRevisions(e)
	c := e.signIn("reader")
	edit := e.open(c, editPath(cms.KindResource, "r-1"))
	if got := edit.Find("a.history-link").AttrOr("href", ""); got != e.prefix+historyPath(cms.KindResource, "r-1") {
		t.Errorf("the form links to history %q", got)
	}
	doc := e.open(c, historyPath(cms.KindResource, "r-1"))
	rows := doc.Find("table.history tbody tr")
	if got := texts(rows.Find("th")); !slices.Equal(got, []string{"Revision 2", "Revision 1"}) {
		t.Fatalf("revisions %v, want 2 then 1", got)
	}
	first := rows.First()
	if got := text(first.Find("td").Eq(1)); got != "admin" {
		t.Errorf("who %q, want admin", got)
	}
	if got := text(first.Find("td").Eq(0)); !strings.HasSuffix(got, "UTC") {
		t.Errorf("when %q is not in the admin's format", got)
	}
	if got := texts(first.Find("ul.changed li")); !slices.Contains(got, "Title (en)") {
		t.Errorf("changed %v, want Title (en)", got)
	}
	if got := first.Find("th a").AttrOr("href", ""); got != e.prefix+historyPath(cms.KindResource, "r-1")+"/2" {
		t.Errorf("revision link %q", got)
	}
}

func TestHistoryPages(t *testing.T) {
	t.Parallel()
	e := newEnv(t, envOptions{prefix: "/admin"})
	for i := range historyPageSize + 2 {
		e.clock.Advance(1e9)
		e.put(cms.KindResource, `{"id":"r-1","title":"T`+strings.Repeat("x", i)+`"}`)
	}
	c := e.signIn("admin")
	doc := e.open(c, historyPath(cms.KindResource, "r-1"))
	if n := doc.Find("table.history tbody tr").Length(); n != historyPageSize {
		t.Fatalf("%d rows on the first page, want %d", n, historyPageSize)
	}
	next := doc.Find(`nav.pager a[rel="next"]`).AttrOr("href", "")
	if next == "" {
		t.Fatal("no link to older revisions")
	}
	doc = e.open(c, strings.TrimPrefix(next, e.prefix))
	if got := texts(doc.Find("table.history tbody th")); !slices.Equal(got, []string{"Revision 2", "Revision 1"}) {
		t.Errorf("second page %v", got)
	}
	if doc.Find(`nav.pager a[rel="next"]`).Length() != 0 {
		t.Error("the last page links further")
	}
	doc = e.page(e.get(c, historyPath(cms.KindResource, "r-1")+"?after=x"), http.StatusBadRequest)
	if got := text(doc.Find("main")); !strings.Contains(got, "does not exist") {
		t.Errorf("a bad page says %q", got)
	}
}

func TestRevisionBesideNow(t *testing.T) {
	t.Parallel()
	e := newEnv(t, envOptions{prefix: "/admin"})
	twoRevisions(e)
	c := e.signIn("admin")
	doc := e.open(c, historyPath(cms.KindResource, "r-1")+"/1")
	row := doc.Find(`table.revision-diff tr[data-field="title"]`)
	if !row.HasClass("differs") || text(row.Find(`[data-side="then"]`)) != "Old" || text(row.Find(`[data-side="now"]`)) != "New" {
		t.Errorf("title row: %s (class %q)", text(row), row.AttrOr("class", ""))
	}
	same := doc.Find(`table.revision-diff tr[data-field="title_it"]`)
	if same.HasClass("differs") || text(same.Find(`[data-side="then"]`)) != "Vecchio" {
		t.Errorf("title_it row: %s", text(same))
	}
	if got := same.Find("td").AttrOr("lang", ""); got != "it" {
		t.Errorf("the Italian value has lang %q", got)
	}
	if got := doc.Find("a.button.primary").AttrOr("href", ""); got != e.prefix+historyPath(cms.KindResource, "r-1")+"/1/restore" {
		t.Errorf("restore link %q", got)
	}
	// A reader sees the revision, without Restore.
	doc = e.open(e.signIn("reader"), historyPath(cms.KindResource, "r-1")+"/1")
	if doc.Find(`a[href$="/restore"]`).Length() != 0 {
		t.Error("a reader is offered Restore")
	}
	// No such revision, record or kind.
	for _, p := range []string{historyPath(cms.KindResource, "r-1") + "/9", historyPath(cms.KindResource, "nope"), historyPath(cms.KindResource, "r-1") + "/x"} {
		doc := e.page(e.get(c, p), http.StatusNotFound)
		if got := text(doc.Find("main")); !strings.Contains(got, "no such record or revision") {
			t.Errorf("GET %s says %q", p, got)
		}
	}
}

// restoreForm opens the restore confirmation of rev and returns its
// values as a browser posts them.
func (e *env) restoreForm(c *http.Client, kind cms.Kind, id, rev string) (*goquery.Document, url.Values) {
	e.t.Helper()
	doc := e.open(c, historyPath(kind, id)+"/"+rev+"/restore")
	return doc, formValues(e.t, doc, "form.restore")
}

func TestRestoreShowsWhatChangesThenSaves(t *testing.T) {
	t.Parallel()
	e := newEnv(t, envOptions{prefix: "/admin"})
	twoRevisions(e)
	c := e.signIn("editor")
	path := historyPath(cms.KindResource, "r-1") + "/1/restore"
	doc, vals := e.restoreForm(c, cms.KindResource, "r-1", "1")
	if got := texts(doc.Find("table.revision-diff tbody th")); !slices.Equal(got, []string{"Title (en)"}) {
		t.Errorf("the confirmation lists %v, want only Title", got)
	}
	row := doc.Find(`tr[data-field="title"]`)
	if text(row.Find(`[data-side="now"]`)) != "New" || text(row.Find(`[data-side="then"]`)) != "Old" {
		t.Errorf("title row %s", text(row))
	}
	e.clock.Advance(1e9)
	edit := e.follow(c, e.post(c, path, vals), editPath(cms.KindResource, "r-1"))
	if got := notices(edit); !strings.Contains(got, "Restored revision 1") {
		t.Errorf("the form says %q", got)
	}
	got := e.stored(cms.KindResource, "r-1")
	if got["title"] != "Old" || got["title_it"] != "Vecchio" || got["shortDescription"] != "Same" {
		t.Errorf("after the restore: %v", got)
	}
	h, err := e.svc.History(e.acme(), cms.KindResource, "r-1", cms.HistoryParams{})
	if err != nil {
		t.Fatal(err)
	}
	if len(h.Revisions) != 3 || h.Revisions[0].User != "editor" {
		t.Errorf("history after the restore: %+v, want a third revision by editor", h.Revisions)
	}
}

func TestRestoreLeavesAssignmentsUnlessAsked(t *testing.T) {
	t.Parallel()
	e := newEnv(t, envOptions{prefix: "/admin"})
	e.put(cms.KindMap, `{"id":"m-1","title":"Map"}`)
	e.put(cms.KindResource, `{"id":"r-1","title":"Old","mapIds":["m-1"]}`)
	e.clock.Advance(1e9)
	e.put(cms.KindResource, `{"id":"r-1","title":"New","mapIds":[]}`)
	c := e.signIn("admin")
	path := historyPath(cms.KindResource, "r-1") + "/1/restore"
	doc, vals := e.restoreForm(c, cms.KindResource, "r-1", "1")
	if doc.Find(`fieldset.restore-assign tr[data-field="mapIds"]`).Length() != 1 {
		t.Fatalf("the assignments are not listed apart: %s", text(doc.Find("form.restore")))
	}
	if vals.Get(ctlAssign) != "" {
		t.Fatal("the assignments box is ticked at first")
	}
	e.follow(c, e.post(c, path, vals), editPath(cms.KindResource, "r-1"))
	got := e.stored(cms.KindResource, "r-1")
	if got["title"] != "Old" || got["mapIds"] != nil {
		t.Errorf("without the box: title %v, mapIds %v; want Old and none", got["title"], got["mapIds"])
	}
	// Now only the assignment differs: without the box, nothing to do.
	doc, vals = e.restoreForm(c, cms.KindResource, "r-1", "1")
	before := e.storedJSON(cms.KindResource, "r-1")
	doc = e.page(e.post(c, path, vals), http.StatusConflict)
	if got := text(doc.Find(".error-summary")); !strings.Contains(got, "box to restore them is not ticked") {
		t.Errorf("refusal %q", got)
	}
	sameJSON(t, "after a restore of nothing", e.storedJSON(cms.KindResource, "r-1"), before)
	vals.Set(ctlAssign, "yes")
	e.follow(c, e.post(c, path, vals), editPath(cms.KindResource, "r-1"))
	if got := e.stored(cms.KindResource, "r-1")["mapIds"]; !slices.Equal(anyStrings(got), []string{"m-1"}) {
		t.Errorf("with the box: mapIds %v, want [m-1]", got)
	}
}

func anyStrings(v any) []string {
	list, _ := v.([]any)
	var out []string
	for _, x := range list {
		s, _ := x.(string)
		out = append(out, s)
	}
	return out
}

func TestRestoreRefusals(t *testing.T) {
	t.Parallel()
	e := newEnv(t, envOptions{prefix: "/admin"})
	twoRevisions(e)
	path := historyPath(cms.KindResource, "r-1") + "/1/restore"
	_, vals := e.restoreForm(e.signIn("admin"), cms.KindResource, "r-1", "1")
	before := e.storedJSON(cms.KindResource, "r-1")

	reader := e.signIn("reader")
	e.page(e.get(reader, path), http.StatusForbidden)
	doc := e.page(e.post(reader, path, vals), http.StatusForbidden)
	if got := text(doc.Find("main")); !strings.Contains(got, "Your permissions do not allow this.") {
		t.Errorf("a reader's restore says %q", got)
	}
	sameJSON(t, "after a reader's restore", e.storedJSON(cms.KindResource, "r-1"), before)

	// From another site: refused before anything is read.
	admin := e.signIn("admin")
	req, _ := http.NewRequest(http.MethodPost, e.url(path), strings.NewReader(vals.Encode()))
	req.Header.Set("Content-Type", "application/x-www-form-urlencoded")
	req.Header.Set("Origin", "https://evil.example")
	req.Header.Set("Sec-Fetch-Site", "cross-site")
	e.page(e.do(admin, req), http.StatusForbidden)
	sameJSON(t, "after a cross-site restore", e.storedJSON(cms.KindResource, "r-1"), before)

	// Another account's record is not found.
	otto := e.signIn("otto")
	e.page(e.post(otto, path, vals), http.StatusNotFound)
	sameJSON(t, "after another account's restore", e.storedJSON(cms.KindResource, "r-1"), before)
}

func TestRestoreAfterAnotherSaveShowsTheConflict(t *testing.T) {
	t.Parallel()
	e := newEnv(t, envOptions{prefix: "/admin"})
	twoRevisions(e)
	c := e.signIn("admin")
	path := historyPath(cms.KindResource, "r-1") + "/1/restore"
	_, vals := e.restoreForm(c, cms.KindResource, "r-1", "1")
	e.clock.Advance(1e9)
	e.put(cms.KindResource, `{"id":"r-1","title":"Theirs"}`)
	saved := e.storedJSON(cms.KindResource, "r-1")
	doc := e.page(e.post(c, path, vals), http.StatusConflict)
	fs := clashOf(doc, "title")
	if text(fs.Find(`[data-side="theirs"]`)) != "Theirs" || text(fs.Find(`[data-side="mine"]`)) != "Old" {
		t.Errorf("conflict on title: %s", text(fs))
	}
	sameJSON(t, "after a restore onto a newer version", e.storedJSON(cms.KindResource, "r-1"), saved)
	// Keeping the restored value saves it.
	vals = formValues(t, doc, "#conflict-form")
	vals.Set("_take.title", "mine")
	vals.Set("_action", "resolve")
	e.follow(c, e.post(c, editPath(cms.KindResource, "r-1"), vals), editPath(cms.KindResource, "r-1"))
	if got := e.stored(cms.KindResource, "r-1")["title"]; got != "Old" {
		t.Errorf("title %v after choosing the restored one", got)
	}
}

func TestDeletedRecordsHistory(t *testing.T) {
	t.Parallel()
	e := newEnv(t, envOptions{prefix: "/admin"})
	twoRevisions(e)
	e.clock.Advance(1e9)
	if _, err := e.svc.Delete(e.acme(), cms.KindResource, []string{"r-1"}, nil); err != nil {
		t.Fatal(err)
	}
	c := e.signIn("admin")
	doc := e.open(c, historyPath(cms.KindResource, "r-1"))
	first := doc.Find("table.history tbody tr").First()
	if !first.HasClass("deleted") || !strings.HasPrefix(text(first.Find("td").Eq(2)), "Deleted by admin at ") {
		t.Errorf("the tombstone row: %s", text(first))
	}
	if first.Find("a").Length() != 0 {
		t.Error("the tombstone links to a revision")
	}
	doc = e.open(c, historyPath(cms.KindResource, "r-1")+"/1")
	if got := text(doc.Find(".tombstone")); !strings.Contains(got, "deleted by admin at") {
		t.Errorf("an earlier revision of a deleted record says %q", got)
	}
	e.page(e.get(c, historyPath(cms.KindResource, "r-1")+"/1/restore"), http.StatusNotFound)
}
