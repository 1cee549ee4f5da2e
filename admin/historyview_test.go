package admin

import (
	"context"
	"net/http"
	"net/http/httptest"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/PuerkitoBio/goquery"

	"github.com/bwcms/cms/cms"
)

// The view tests render the history, webhook and audit pages from
// answers made here, as the service gives them: the templates and the
// comparisons are checked whatever the service's state of build.

// renderAs renders page name with data as user, and parses it.
func (e *env) renderAs(user, name, title string, data any) *goquery.Document {
	e.t.Helper()
	p, err := e.svc.AccountLanguages(context.Background(), cms.Principal{Account: "acme", User: user, Perms: e.permsOf(user)})
	if err != nil {
		e.t.Fatal(err)
	}
	r := httptest.NewRequest(http.MethodGet, "/", nil)
	w := httptest.NewRecorder()
	e.h.render(w, r, http.StatusOK, name, &view{Title: title, Session: &session{P: p}, Page: data})
	if w.Code != http.StatusOK {
		e.t.Fatalf("render %s: status %d: %s", name, w.Code, w.Body)
	}
	doc, err := goquery.NewDocumentFromReader(w.Body)
	if err != nil {
		e.t.Fatal(err)
	}
	return doc
}

func (e *env) permsOf(user string) []string {
	e.t.Helper()
	u, err := e.svc.User(e.t.Context(), user)
	if err != nil {
		e.t.Fatal(err)
	}
	return u.Perms
}

// revisionOf is a revision made of record obj as stored now (kind, id):
// then read from the store before a change, now after it.
func (e *env) revisionOf(kind cms.Kind, id string, change string) *revisionCtx {
	e.t.Helper()
	ed := &editor{Handler: e.h}
	ctx := e.acme()
	p, _ := cms.PrincipalFrom(ctx)
	ks, err := ed.schema(kind, p.Langs)
	if err != nil {
		e.t.Fatal(err)
	}
	then, err := ed.readRecord(ctx, ks, kind, id)
	if err != nil {
		e.t.Fatal(err)
	}
	e.clock.Advance(time.Second)
	e.put(kind, change)
	now, err := ed.readRecord(ctx, ks, kind, id)
	if err != nil {
		e.t.Fatal(err)
	}
	return &revisionCtx{s: &session{P: p}, kind: kind, ks: ks, id: id, then: then.obj, now: now,
		rev: cms.RevisionRecord{Revision: cms.Revision{Rev: 1, Time: time.Date(2026, 11, 27, 9, 30, 0, 0, time.UTC), User: "ann", Op: cms.ChangeUpsert}}}
}

func TestRestoreDataListsWhatDiffersAssignmentsApart(t *testing.T) {
	t.Parallel()
	e := newEnv(t, envOptions{prefix: "/admin"})
	e.put(cms.KindMap, `{"id":"m-1","title":"Map"}`)
	e.put(cms.KindResource, `{"id":"r-1","title":"Old","title_de":"Alt","shortDescription":"Same","mapIds":["m-1"]}`)
	rc := e.revisionOf(cms.KindResource, "r-1", `{"id":"r-1","title":"New","title_de":"Neu","shortDescription":"Same","mapIds":[]}`)
	if got := rc.differing(); !slices.Equal(got, []string{"title", "title_de", "mapIds"}) {
		t.Errorf("differing %v, want title, title_de, mapIds", got)
	}
	ed := &editor{Handler: e.h}
	v := ed.restoreData(rc)
	if len(v.Changes) != 2 || len(v.Assign) != 1 || v.Assign[0].Wire != "mapIds" {
		t.Fatalf("changes %+v, assignments %+v", v.Changes, v.Assign)
	}
	if v.ETag != rc.now.etag || !strings.Contains(v.Base, "title:") {
		t.Errorf("etag %q base %q", v.ETag, v.Base)
	}
	doc := e.renderAs("admin", "restore", v.Heading, v)
	if got := texts(doc.Find("form.restore > .table-wrap tbody th")); !slices.Equal(got, []string{"Title (en)", "Title (de)"}) {
		t.Errorf("listed %v", got)
	}
	de := doc.Find(`tr[data-field="title_de"] [data-side="then"]`)
	if text(de) != "Alt" || de.AttrOr("lang", "") != "de" {
		t.Errorf("title_de after the restore: %q lang %q", text(de), de.AttrOr("lang", ""))
	}
	box := doc.Find(`fieldset.restore-assign input#assign[name="_assign"]`)
	if box.Length() != 1 || box.AttrOr("checked", "no") != "no" {
		t.Error("the assignments box is missing or ticked")
	}
	if doc.Find(`label[for="assign"]`).Length() != 1 {
		t.Error("the assignments box has no label")
	}
	if got := formValues(t, doc, "form.restore")["_fields"]; !slices.Equal(got, []string{"title", "title_de", "mapIds"}) {
		t.Errorf("the form carries %v", got)
	}
}

func TestRevisionViewMarksDifferences(t *testing.T) {
	t.Parallel()
	e := newEnv(t, envOptions{prefix: "/admin"})
	e.put(cms.KindResource, `{"id":"r-1","title":"<b>Old</b>","title_de":"Alt","title_it":"Vecchio"}`)
	rc := e.revisionOf(cms.KindResource, "r-1", `{"id":"r-1","title":"New","title_de":"Neu","title_it":"Vecchio"}`)
	// The page shows the default language and it; de differs elsewhere.
	v := &revisionView{Kind: rc.kind, ID: rc.id, Rev: 1, HistoryURL: "/h", Exists: true}
	shown := []string{"en", "it"}
	for _, wire := range rc.comparable() {
		d := rc.row(wire)
		if d.Lang != "" && !slices.Contains(shown, d.Lang) {
			if d.Differs {
				v.Elsewhere = append(v.Elsewhere, d.Label)
			}
			continue
		}
		v.Rows = append(v.Rows, d)
	}
	v.Differs = len(rc.differing())
	doc := e.renderAs("admin", "revision", "r", v)
	title := doc.Find(`tr[data-field="title"]`)
	if !title.HasClass("differs") || text(title.Find(".badge")) != "differs" {
		t.Errorf("title row not marked: %s", text(title))
	}
	if then := title.Find(`[data-side="then"]`); then.Text() != "<b>Old</b>" || then.Find("b").Length() != 0 {
		t.Errorf("record text is not text: %q", then.Text())
	}
	if doc.Find(`tr[data-field="title_it"].differs`).Length() != 0 || doc.Find(`tr[data-field="title_de"]`).Length() != 0 {
		t.Error("the rows do not follow the languages shown")
	}
	if got := text(doc.Find(".elsewhere")); !strings.Contains(got, "Title (de)") {
		t.Errorf("differences elsewhere: %q", got)
	}
	if got := text(doc.Find(".revision-meta")); !strings.Contains(got, "2 fields differ from now") {
		t.Errorf("meta %q", got)
	}
	// A tombstone says who deleted it and when.
	doc = e.renderAs("admin", "revision", "r", &revisionView{Kind: rc.kind, ID: rc.id, Rev: 3, HistoryURL: "/h",
		Tombstone: "Deleted by ann at 2026-11-27 09:30 UTC."})
	if got := text(doc.Find(".tombstone")); got != "Deleted by ann at 2026-11-27 09:30 UTC." || doc.Find("table").Length() != 0 {
		t.Errorf("tombstone page: %s", text(doc.Find("main")))
	}
}

func TestHistoryViewRows(t *testing.T) {
	t.Parallel()
	e := newEnv(t, envOptions{prefix: "/admin"})
	v := &historyView{Kind: cms.KindResource, ID: "r-1", Heading: "History of Resource r-1", EditURL: "/e", NextURL: "/n",
		Rows: []historyRow{
			{Rev: 3, When: "2026-11-27 10:00 UTC", Who: "bob", Deleted: true},
			{Rev: 2, URL: "/r/2", When: "2026-11-27 09:00 UTC", Who: "ann", Changed: []string{"Title", "Title (it)"}},
			{Rev: 1, URL: "/r/1", When: "2026-11-27 08:00 UTC", Who: "ann", Unknown: true},
		}}
	doc := e.renderAs("admin", "history", v.Heading, v)
	rows := doc.Find("table.history tbody tr")
	if got := text(rows.Eq(0).Find("td").Eq(2)); got != "Deleted by bob at 2026-11-27 10:00 UTC" {
		t.Errorf("tombstone row %q", got)
	}
	if got := texts(rows.Eq(1).Find("li")); !slices.Equal(got, []string{"Title", "Title (it)"}) {
		t.Errorf("changed %v", got)
	}
	if rows.Eq(0).Find("a").Length() != 0 || rows.Eq(1).Find("a").AttrOr("href", "") != "/r/2" {
		t.Error("links of the rows")
	}
	if doc.Find(`nav.pager a[rel="next"]`).AttrOr("href", "") != "/n" {
		t.Error("no next page")
	}
}
