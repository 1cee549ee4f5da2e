package admin

import (
	"net/http"
	"net/url"
	"slices"
	"strings"
	"testing"

	"github.com/PuerkitoBio/goquery"

	"github.com/bwcms/cms/cms"
	"github.com/bwcms/cms/internal/testenv"
)

// bulkResults are the outcome and the text of each row of a bulk report, by
// id.
func bulkResults(doc *goquery.Document) map[string]string {
	out := map[string]string{}
	doc.Find("table.bulk-results tbody tr").Each(func(_ int, s *goquery.Selection) {
		out[s.AttrOr("data-id", "")] = strings.TrimPrefix(s.AttrOr("class", ""), "result-") + ": " + strings.TrimSpace(s.Find("td.reason .text").Text())
	})
	return out
}

func isPublished(e *env, kind cms.Kind, id string) bool {
	e.t.Helper()
	rec := e.storedRecord(kind, id)
	if rec == nil {
		e.t.Fatalf("%s %s is gone", kind, id)
	}
	return rec.Common().Published.Value
}

func TestBulkPublishAndUnpublish(t *testing.T) {
	e := newEnv(t, envOptions{prefix: "/admin"})
	e.storeRecords(cms.KindResource, `{"id":"res-a","title":"A"}`, `{"id":"res-b","title":"B"}`, `{"id":"res-c","title":"C","published":true}`)
	c := e.signIn("admin")
	list := e.page(e.get(c, "/resource/?sort=id&published=no"), http.StatusOK)
	form := list.Find("form#bulk")
	if form.AttrOr("action", "") != "/admin/resource/bulk" || form.AttrOr("method", "") != "post" {
		t.Fatalf("bulk form %q", form.AttrOr("action", ""))
	}
	back := form.Find(`input[name="back"]`).AttrOr("value", "")
	if back != "/admin/resource/?published=no&sort=id" {
		t.Errorf("back %q", back)
	}
	var actions []string
	form.Find(`fieldset.bulk-actions button[name="action"]`).Each(func(_ int, s *goquery.Selection) {
		actions = append(actions, s.AttrOr("value", ""))
	})
	if !slices.Equal(actions, []string{"publish", "unpublish", "delete"}) || form.Find("fieldset.bulk-actions legend").Text() != "With the selected Resources" {
		t.Errorf("actions %v", actions)
	}

	// res-c is published already; res-gone does not exist and is not made.
	res := e.post(c, "/resource/bulk", url.Values{"action": {"publish"}, "id": {"res-a", "res-b", "res-c", "res-gone"}, "back": {back}})
	doc := e.page(res, http.StatusOK)
	want := map[string]string{"res-a": "done: Published", "res-b": "done: Published", "res-c": "skipped: Already published", "res-gone": "failed: It no longer exists."}
	if got := bulkResults(doc); !sameResults(got, want) {
		t.Errorf("results %v, want %v", got, want)
	}
	if got := strings.TrimSpace(doc.Find("p.notice").Text()); got != "2 done. 1 unchanged. 1 not done: see why below." {
		t.Errorf("summary %q", got)
	}
	if firstHref(doc, `main a:contains("Back to the list")`) != back {
		t.Errorf("back link %q", firstHref(doc, `main a:contains("Back to the list")`))
	}
	for _, id := range []string{"res-a", "res-b", "res-c"} {
		if !isPublished(e, cms.KindResource, id) {
			t.Errorf("%s not published", id)
		}
	}
	if e.storedRecord(cms.KindResource, "res-gone") != nil {
		t.Error("publishing a missing id created it")
	}

	doc = e.page(e.post(c, "/resource/bulk", url.Values{"action": {"unpublish"}, "id": {"res-b", "res-b", "res-c"}}), http.StatusOK)
	if got := bulkResults(doc); !sameResults(got, map[string]string{"res-b": "done: Unpublished", "res-c": "done: Unpublished"}) {
		t.Errorf("unpublish results %v", got)
	}
	if !isPublished(e, cms.KindResource, "res-a") || isPublished(e, cms.KindResource, "res-b") || isPublished(e, cms.KindResource, "res-c") {
		t.Error("unpublish changed the wrong records")
	}
	// A back address outside the list is not followed.
	doc = e.page(e.post(c, "/resource/bulk", url.Values{"action": {"publish"}, "id": {"res-a"}, "back": {"https://evil.example/"}}), http.StatusOK)
	if got := firstHref(doc, `main a:contains("Back to the list")`); got != "/admin/resource/" {
		t.Errorf("back link %q", got)
	}
}

func TestBulkWithoutSelectionOrActionChangesNothing(t *testing.T) {
	e := newEnv(t, envOptions{})
	e.storeRecords(cms.KindResource, `{"id":"res-a","title":"A"}`)
	c := e.signIn("admin")
	for _, form := range []url.Values{
		{"action": {"publish"}},
		{"action": {"explode"}, "id": {"res-a"}},
		{"id": {"res-a"}},
	} {
		doc := e.page(e.post(c, "/resource/bulk", form), http.StatusBadRequest)
		if doc.Find(".error-summary").Length() != 1 {
			t.Errorf("%v: no error shown", form)
		}
	}
	many := url.Values{"action": {"publish"}}
	for i := range maxBulk + 1 {
		many.Add("id", "id-"+strings.Repeat("x", i%5)+string(rune('a'+i%26))+string(rune('a'+i/26)))
	}
	e.page(e.post(c, "/resource/bulk", many), http.StatusBadRequest)
	if isPublished(e, cms.KindResource, "res-a") {
		t.Error("a refused bulk action changed a record")
	}
}

// A user sees only the bulk actions they may do, and the service refuses
// the others when posted anyway.
func TestBulkActionsFollowPermissions(t *testing.T) {
	e := newEnv(t, envOptions{})
	if err := testenv.CreateUsers(t.Context(), e.svc, "acme", testenv.Password,
		testenv.User{Name: "writer", Perms: []string{"resource:read", "resource:write"}}); err != nil {
		t.Fatal(err)
	}
	e.storeRecords(cms.KindResource, `{"id":"res-a","title":"A"}`)

	reader := e.signIn("reader")
	doc := e.page(e.get(reader, "/resource/"), http.StatusOK)
	if doc.Find("form#bulk, input[type=checkbox], fieldset.bulk-actions").Length() != 0 {
		t.Error("a reader is offered bulk actions")
	}
	if doc.Find(`a[href="/resource/new"]`).Length() != 0 {
		t.Error("a reader is offered a new record")
	}
	doc = e.page(e.post(reader, "/resource/bulk", url.Values{"action": {"publish"}, "id": {"res-a"}}), http.StatusForbidden)
	if got := bulkResults(doc)["res-a"]; got != "failed: Your permissions do not allow this." {
		t.Errorf("reader's forged publish: %q", got)
	}
	e.page(e.post(reader, "/resource/bulk", url.Values{"action": {"delete"}, "id": {"res-a"}}), http.StatusForbidden)
	e.page(e.post(reader, "/resource/bulk", url.Values{"action": {"delete"}, "confirm": {"yes"}, "id": {"res-a"}}), http.StatusForbidden)

	writer := e.signIn("writer")
	doc = e.page(e.get(writer, "/resource/"), http.StatusOK)
	var actions []string
	doc.Find(`fieldset.bulk-actions button`).Each(func(_ int, s *goquery.Selection) { actions = append(actions, s.AttrOr("value", "")) })
	if !slices.Equal(actions, []string{"publish", "unpublish"}) {
		t.Errorf("writer's actions %v", actions)
	}
	e.page(e.post(writer, "/resource/bulk", url.Values{"action": {"delete"}, "confirm": {"yes"}, "id": {"res-a"}}), http.StatusForbidden)
	if isPublished(e, cms.KindResource, "res-a") {
		t.Error("a refused publish changed the record")
	}
	e.page(e.post(writer, "/resource/bulk", url.Values{"action": {"publish"}, "id": {"res-a"}}), http.StatusOK)
	if !isPublished(e, cms.KindResource, "res-a") {
		t.Error("the writer's publish did not publish")
	}
	// Another account's records are out of reach.
	otto := e.signIn("otto")
	doc = e.page(e.post(otto, "/resource/bulk", url.Values{"action": {"delete"}, "confirm": {"yes"}, "id": {"res-a"}}), http.StatusNotFound)
	if got := bulkResults(doc)["res-a"]; got != "failed: It no longer exists." {
		t.Errorf("other account's delete: %q", got)
	}
	if e.storedRecord(cms.KindResource, "res-a") == nil {
		t.Error("another account deleted the record")
	}
}

func TestBulkDeleteAsksFirstAndListsWhatGoes(t *testing.T) {
	e := newEnv(t, envOptions{prefix: "/admin"})
	e.storeRecords(cms.KindMap, `{"id":"map-a","title":"Lakes"}`, `{"id":"map-b"}`)
	e.storeRecords(cms.KindResource,
		`{"id":"res-a","title":"Garda","title_it":"Lago di Garda","mapIds":["map-a"],"mapSecondaryIds":["map-b"]}`,
		`{"id":"res-b","title_it":"Solo"}`)
	c := e.signIn("admin")
	back := "/admin/resource/?sort=id"
	doc := e.page(e.post(c, "/resource/bulk", url.Values{"action": {"delete"}, "id": {"res-a", "res-b", "res-gone"}, "back": {back}}), http.StatusOK)
	var items []string
	doc.Find("ul.doomed li").Each(func(_ int, s *goquery.Selection) {
		items = append(items, s.AttrOr("data-id", "")+"|"+s.Find("a").Text()+"|"+s.Find(".effect").Text())
	})
	if want := []string{"res-a|Garda (res-a)|Removed from 2 Maps.", "res-b|Solo (res-b)|"}; !slices.Equal(items, want) {
		t.Errorf("confirmation lists %v, want %v", items, want)
	}
	if got := strings.TrimSpace(doc.Find("ul.gone").Text()); got != "res-gone" {
		t.Errorf("gone %q", got)
	}
	confirm := doc.Find("form.confirm")
	var ids []string
	confirm.Find(`input[name="id"]`).Each(func(_ int, s *goquery.Selection) { ids = append(ids, s.AttrOr("value", "")) })
	if !slices.Equal(ids, []string{"res-a", "res-b"}) || confirm.Find(`input[name="confirm"]`).AttrOr("value", "") != "yes" ||
		confirm.AttrOr("action", "") != "/admin/resource/bulk" || strings.TrimSpace(confirm.Find("button").Text()) != "Delete 2 Resources" {
		t.Errorf("confirm form: ids %v, button %q", ids, confirm.Find("button").Text())
	}
	if firstHref(doc, "form.confirm a") != back {
		t.Errorf("cancel %q", firstHref(doc, "form.confirm a"))
	}
	// Asking deletes nothing.
	for _, id := range []string{"res-a", "res-b"} {
		if e.storedRecord(cms.KindResource, id) == nil {
			t.Fatalf("%s deleted before the confirmation", id)
		}
	}
	// A Map's deletion unassigns its Resources.
	mdoc := e.page(e.post(c, "/map/bulk", url.Values{"action": {"delete"}, "id": {"map-a"}}), http.StatusOK)
	if got := mdoc.Find("ul.doomed li .effect").Text(); got != "1 Resource is unassigned from it." {
		t.Errorf("map effect %q", got)
	}

	// Confirmed: both go.
	form := url.Values{"back": {back}}
	confirm.Find("input").Each(func(_ int, s *goquery.Selection) { form.Add(s.AttrOr("name", ""), s.AttrOr("value", "")) })
	doc = e.page(e.post(c, "/resource/bulk", form), http.StatusOK)
	if got := bulkResults(doc); !sameResults(got, map[string]string{"res-a": "done: Deleted", "res-b": "done: Deleted"}) {
		t.Errorf("results %v", got)
	}
	for _, id := range []string{"res-a", "res-b"} {
		if e.storedRecord(cms.KindResource, id) != nil {
			t.Errorf("%s not deleted", id)
		}
	}
	if got := e.storedRecord(cms.KindMap, "map-a").(*cms.Map).ResourceIDs.Value; len(got) != 0 {
		t.Errorf("map-a still lists %v", got)
	}
	// Nothing left to delete: a clear 404 report.
	doc = e.page(e.post(c, "/resource/bulk", form), http.StatusNotFound)
	if got := bulkResults(doc); !sameResults(got, map[string]string{"res-a": "failed: It no longer exists.", "res-b": "failed: It no longer exists."}) {
		t.Errorf("results of a second delete %v", got)
	}
}

func TestBulkDeleteRefusedByAReferenceNamesTheReferrer(t *testing.T) {
	e := newEnv(t, envOptions{prefix: "/admin"})
	e.storeRecords(cms.KindMap, `{"id":"map-held","title":"Held"}`, `{"id":"map-free","title":"Free"}`)
	e.storeRecords(cms.KindLanding, `{"id":"lan-1","title":"Summer <b>landing</b>","mapId":"map-held"}`)
	e.storeRecords(cms.KindProposal, `{"id":"pro-1","mapId":"map-held"}`)
	c := e.signIn("admin")
	form := url.Values{"action": {"delete"}, "confirm": {"yes"}, "id": {"map-held", "map-free"}}
	doc := e.page(e.post(c, "/map/bulk", form), http.StatusOK)
	if got := bulkResults(doc); !sameResults(got, map[string]string{"map-held": "failed: Not deleted: other records name it.", "map-free": "done: Deleted"}) {
		t.Errorf("results %v", got)
	}
	var by []string
	doc.Find(`tr[data-id="map-held"] ul.referrers li`).Each(func(_ int, s *goquery.Selection) {
		by = append(by, strings.Join(strings.Fields(s.Text()), " ")+" -> "+s.Find("a").AttrOr("href", ""))
	})
	want := []string{
		"Landing Summer <b>landing</b> (lan-1) names it in mapId -> /admin/landing/lan-1/edit",
		"Proposal pro-1 names it in mapId -> /admin/proposal/pro-1/edit",
	}
	if !slices.Equal(by, want) {
		t.Errorf("referrers\n got %q\nwant %q", by, want)
	}
	if doc.Find("main b").Length() != 0 {
		t.Error("a referrer's title became HTML")
	}
	if e.storedRecord(cms.KindMap, "map-held") == nil || e.storedRecord(cms.KindMap, "map-free") != nil {
		t.Error("the wrong Map was deleted")
	}
	// Reading the Proposal's title for the report is not a visit.
	seq, err := e.svc.Read(e.listAs("admin"), cms.KindProposal, cms.ReadParams{Published: cms.PublishedAny})
	if err != nil {
		t.Fatal(err)
	}
	for en, err := range seq {
		if err != nil || en.StatsAccess != 0 {
			t.Errorf("proposal visits %d, %v", en.StatsAccess, err)
		}
	}

	// Only referenced ones: nothing deleted, a 409 report naming them.
	doc = e.page(e.post(c, "/map/bulk", url.Values{"action": {"delete"}, "confirm": {"yes"}, "id": {"map-held"}}), http.StatusConflict)
	if got := doc.Find(`tr[data-id="map-held"] ul.referrers li`).Length(); got != 2 {
		t.Errorf("%d referrers shown", got)
	}
	// A user who cannot read the referrer's kind sees its id, unlinked.
	if err := testenv.CreateUsers(t.Context(), e.svc, "acme", testenv.Password,
		testenv.User{Name: "mapper", Perms: []string{"map:*"}}); err != nil {
		t.Fatal(err)
	}
	doc = e.page(e.post(e.signIn("mapper"), "/map/bulk", url.Values{"action": {"delete"}, "confirm": {"yes"}, "id": {"map-held"}}), http.StatusConflict)
	first := doc.Find(`tr[data-id="map-held"] ul.referrers li`).First()
	if got := strings.Join(strings.Fields(first.Text()), " "); got != "Landing lan-1 names it in mapId" || first.Find("a").Length() != 0 {
		t.Errorf("referrer for a user without landing:read: %q", got)
	}
	if e.storedRecord(cms.KindMap, "map-held") == nil {
		t.Error("the held Map was deleted")
	}
}

func sameResults(got, want map[string]string) bool {
	if len(got) != len(want) {
		return false
	}
	for k, v := range want {
		if got[k] != v {
			return false
		}
	}
	return true
}
