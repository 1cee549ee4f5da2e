package admin

import (
	"net/http"
	"net/url"
	"strings"
	"testing"

	"github.com/PuerkitoBio/goquery"

	"github.com/bwcms/cms/cms"
)

// TestDeleteAsksFirst: Delete shows what the delete changes; confirming
// deletes the record and takes it out of the lists that named it.
func TestDeleteAsksFirst(t *testing.T) {
	t.Parallel()
	e := newEnv(t, envOptions{prefix: "/admin"})
	e.put(cms.KindResource, `{"id":"r-0","title":"Doomed"}`, `{"id":"r-1","title":"Keeper","poiResourceIds":["r-0"]}`)
	c := e.signIn("admin")
	path := editPath(cms.KindResource, "r-0")
	doc := e.page(e.press(c, e.open(c, path), path, "delete", nil), http.StatusOK)
	if e.stored(cms.KindResource, "r-0") == nil {
		t.Fatal("deleted before the confirmation")
	}
	if got := text(doc.Find("ul.referrers")); !strings.Contains(got, "Resource Keeper (r-1) lists it in poiResourceIds") {
		t.Errorf("the confirmation lists %q", got)
	}
	if doc.Find(`ul.referrers a[href="/admin/resource/r-1/edit"]`).Length() != 1 {
		t.Error("no link to the referrer")
	}
	vals := formValues(t, doc, "section.delete-confirm form")
	vals.Set("_action", "delete-confirm")
	res := e.post(c, path, vals)
	if res.StatusCode != http.StatusSeeOther || res.Header.Get("Location") != "/admin/resource/?deleted=r-0" {
		t.Fatalf("delete: status %d, Location %q", res.StatusCode, res.Header.Get("Location"))
	}
	if e.stored(cms.KindResource, "r-0") != nil {
		t.Error("r-0 still stored")
	}
	list := e.page(e.get(c, "/resource/?deleted=r-0"), http.StatusOK)
	if got := text(list.Find(".notice.ok")); got != "Resource r-0 was deleted." {
		t.Errorf("the list says %q", got)
	}
	if got, _ := e.stored(cms.KindResource, "r-1")["poiResourceIds"].([]any); len(got) != 0 {
		t.Errorf("r-1 still lists %v", got)
	}
}

// TestDeleteOfAChangedRecordIsRefused: the delete sends If-Match with the
// version opened: a record changed since is not deleted (412).
func TestDeleteOfAChangedRecordIsRefused(t *testing.T) {
	t.Parallel()
	e := newEnv(t, envOptions{})
	e.put(cms.KindResource, `{"id":"r-0","title":"Before"}`)
	c := e.signIn("admin")
	path := editPath(cms.KindResource, "r-0")
	doc := e.page(e.press(c, e.open(c, path), path, "delete", nil), http.StatusOK)
	e.clock.Advance(1e9)
	e.put(cms.KindResource, `{"id":"r-0","title":"Changed meanwhile"}`)
	vals := formValues(t, doc, "section.delete-confirm form")
	vals.Set("_action", "delete-confirm")
	doc = e.page(e.post(c, path, vals), http.StatusPreconditionFailed)
	if !strings.Contains(text(doc.Find("main")), "nothing was deleted") {
		t.Errorf("page says %q", text(doc.Find("main")))
	}
	if got := e.stored(cms.KindResource, "r-0"); got == nil || got["title"] != "Changed meanwhile" {
		t.Errorf("stored %v", got)
	}
}

// TestDeleteRefusedByAReference: a Map that a Landing shows cannot be
// deleted: the confirmation says which records name it, and a confirmed
// delete (a referrer added meanwhile) is a 409 naming it.
func TestDeleteRefusedByAReference(t *testing.T) {
	t.Parallel()
	e := newEnv(t, envOptions{prefix: "/admin"})
	e.put(cms.KindMap, `{"id":"m-0","title":"Shown"}`, `{"id":"m-1","title":"Free"}`)
	e.put(cms.KindLanding, `{"id":"l-1","title":"Shows it","mapId":"m-0"}`)
	c := e.signIn("admin")
	path := editPath(cms.KindMap, "m-0")
	doc := e.page(e.press(c, e.open(c, path), path, "delete", nil), http.StatusOK)
	if doc.Find(`button[value="delete-confirm"]`).Length() != 0 {
		t.Error("a record that cannot go offers its delete")
	}
	if doc.Find(`.error-summary a[href="/admin/landing/l-1/edit"]`).Length() != 1 || !strings.Contains(text(doc.Find(".error-summary")), "mapId") {
		t.Errorf("the refusal names %q", text(doc.Find(".error-summary")))
	}

	// m-1 is free when the confirmation is shown, named before it is
	// confirmed.
	path = editPath(cms.KindMap, "m-1")
	doc = e.page(e.press(c, e.open(c, path), path, "delete", nil), http.StatusOK)
	vals := formValues(t, doc, "section.delete-confirm form")
	e.put(cms.KindLanding, `{"id":"l-2","title":"Now shows m-1","mapId":"m-1"}`)
	vals.Set("_etag", e.etag(cms.KindMap, "m-1"))
	vals.Set("_action", "delete-confirm")
	doc = e.page(e.post(c, path, vals), http.StatusConflict)
	if doc.Find(`.error-summary a[href="/admin/landing/l-2/edit"]`).Length() != 1 {
		t.Errorf("the 409 names %q", text(doc.Find(".error-summary")))
	}
	if e.stored(cms.KindMap, "m-1") == nil || e.stored(cms.KindMap, "m-0") == nil {
		t.Error("a named Map was deleted")
	}

	// A Resource a Map shows as its track.
	e.put(cms.KindResource, `{"id":"track","title":"Track","resourceType":"TRACK"}`)
	e.put(cms.KindMap, `{"id":"m-2","title":"Tour","trackResourceId":"track"}`)
	path = editPath(cms.KindResource, "track")
	doc = e.page(e.press(c, e.open(c, path), path, "delete", nil), http.StatusOK)
	if doc.Find(`.error-summary a[href="/admin/map/m-2/edit"]`).Length() != 1 || !strings.Contains(text(doc.Find(".error-summary")), "trackResourceId") {
		t.Errorf("the refusal names %q", text(doc.Find(".error-summary")))
	}
	vals = formValues(t, e.open(c, path), "#record-form")
	vals.Set("_action", "delete-confirm")
	e.page(e.post(c, path, vals), http.StatusConflict)
	if e.stored(cms.KindResource, "track") == nil {
		t.Error("the Map's track was deleted")
	}
}

// etag is the ETag of a stored record for acme's languages.
func (e *env) etag(kind cms.Kind, id string) string {
	e.t.Helper()
	ctx := e.acme()
	p, _ := cms.PrincipalFrom(ctx)
	seq, err := e.svc.Read(ctx, kind, cms.ReadParams{IDs: []string{id}, Published: cms.PublishedAny, Uncounted: true})
	if err != nil {
		e.t.Fatal(err)
	}
	for en, err := range seq {
		if err != nil {
			e.t.Fatal(err)
		}
		return cms.ETag(en, p.Langs)
	}
	e.t.Fatalf("no %s %s", kind, id)
	return ""
}

// TestClone copies the stored record and opens the copy.
func TestClone(t *testing.T) {
	t.Parallel()
	e := newEnv(t, envOptions{prefix: "/admin"})
	e.put(cms.KindResource, `{"id":"r-1","title":"Original","published":true,"title_it":"Originale"}`)
	c := e.signIn("editor")
	path := editPath(cms.KindResource, "r-1")
	res := e.press(c, e.open(c, path), path, "clone", func(v url.Values) { v.Set("title", "unsaved change") })
	doc := e.follow(c, res, editPath(cms.KindResource, "r-1-copy"))
	if !strings.Contains(notices(doc), "copy of r-1") {
		t.Errorf("notice %q", notices(doc))
	}
	got := e.stored(cms.KindResource, "r-1-copy")
	if got["title"] != "Original" || got["title_it"] != "Originale" || got["published"] != false {
		t.Errorf("clone %v", got)
	}
	if e.stored(cms.KindResource, "r-1")["title"] != "Original" {
		t.Error("the original changed")
	}
}

// TestReaderSeesAReadOnlyForm: without write there is no save, clone or
// delete, nothing can be typed, and a posted save is refused (403) with
// nothing changed.
func TestReaderSeesAReadOnlyForm(t *testing.T) {
	t.Parallel()
	e := newEnv(t, envOptions{prefix: "/admin"})
	seedFull(e)
	c := e.signIn("reader")
	for _, kind := range cms.Kinds() {
		path := editPath(kind, oneID[kind])
		before := e.storedJSON(kind, oneID[kind])
		doc := e.open(c, path)
		for _, action := range []string{"save", "clone", "delete"} {
			if doc.Find(`button[value="`+action+`"]`).Length() != 0 {
				t.Errorf("%s: a %s button", kind, action)
			}
		}
		if n := doc.Find(`button[value^="copy:"], button[value^="add:"], button[value^="remove:"], button[value^="addid:"]`).Length(); n != 0 {
			t.Errorf("%s: %d editing buttons", kind, n)
		}
		doc.Find("#record-form").Find("input:not([type=hidden]), textarea, select").Each(func(_ int, s *goquery.Selection) {
			_, ro := s.Attr("readonly")
			_, dis := s.Attr("disabled")
			if !ro && !dis && !strings.HasPrefix(s.AttrOr("name", ""), "_") {
				t.Errorf("%s: %s can be changed", kind, s.AttrOr("name", "?"))
			}
		})
		vals := formValues(t, doc, "#record-form")
		vals.Set("title", "Reader was here")
		vals.Set("_fields", "title")
		vals.Set("_action", "save")
		e.page(e.post(c, path, vals), http.StatusForbidden)
		sameJSON(t, string(kind), e.storedJSON(kind, oneID[kind]), before)
		vals.Set("_action", "delete-confirm")
		e.page(e.post(c, path, vals), http.StatusForbidden)
		if e.stored(kind, oneID[kind]) == nil {
			t.Errorf("%s: the reader deleted it", kind)
		}
	}
	// The editor (resource:*, map:*) cannot even read a Landing.
	e.page(e.get(e.signIn("editor"), editPath(cms.KindLanding, "l-1")), http.StatusForbidden)
}
