package admin

import (
	"net/http"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/PuerkitoBio/goquery"

	"github.com/bwcms/cms/cms"
	"github.com/bwcms/cms/internal/testenv"
)

// overviewCounts reads the counts table: by kind, published, not
// published and all, with the links of the first two.
func overviewCounts(doc *goquery.Document) map[string][5]string {
	out := map[string][5]string{}
	doc.Find("table.overview-counts tbody tr").Each(func(_ int, tr *goquery.Selection) {
		out[tr.AttrOr("data-kind", "")] = [5]string{text(tr.Find("td.published")), text(tr.Find("td.unpublished")),
			text(tr.Find("td.total")), tr.Find("td.published a").AttrOr("href", ""), tr.Find("td.unpublished a").AttrOr("href", "")}
	})
	return out
}

// missingCells reads the missing translations table: by kind, the
// count of each language ("en=2") and the links of the counts.
func missingCells(doc *goquery.Document) map[string][]string {
	out := map[string][]string{}
	doc.Find("table.overview-missing tbody tr").Each(func(_ int, tr *goquery.Selection) {
		var cells []string
		tr.Find("td").Each(func(_ int, td *goquery.Selection) {
			cell := td.AttrOr("data-lang", "") + "=" + text(td)
			if href, ok := td.Find("a").Attr("href"); ok {
				cell += " " + href
			}
			cells = append(cells, cell)
		})
		out[tr.AttrOr("data-kind", "")] = cells
	})
	return out
}

// overviewRecent reads the recent changes: "kind id: title | op | who",
// newest first, and each record's link.
func overviewRecent(doc *goquery.Document) (rows, links []string) {
	doc.Find("table.overview-recent tbody tr").Each(func(_ int, tr *goquery.Selection) {
		a := tr.Find("td.record a")
		rows = append(rows, tr.AttrOr("data-kind", "")+" "+tr.AttrOr("data-id", "")+": "+text(a)+" | "+
			text(tr.Find("td.op"))+" | "+text(tr.Find("td.who")))
		links = append(links, a.AttrOr("href", ""))
	})
	return rows, links
}

func TestOverviewCounts(t *testing.T) {
	t.Parallel()
	e := newEnv(t, envOptions{prefix: "/admin"})
	e.storeRecords(cms.KindResource,
		`{"id":"lake","published":true,"title":"Lake","title_it":"Lago"}`,
		`{"id":"hill","title_it":"Collina"}`,
		`{"id":"bare"}`)
	e.storeRecords(cms.KindMap, `{"id":"tour","published":true,"title":"Tour","title_it":"Giro","title_de":"Tour"}`)
	// Another account's records are never counted.
	if _, err := e.svc.Upsert(e.listAs("otto"), cms.KindResource, []byte(`{"id":"see","published":true}`), nil); err != nil {
		t.Fatal(err)
	}
	c := e.signIn("admin")
	doc := e.page(e.get(c, "/"), http.StatusOK)
	counts := overviewCounts(doc)
	want := map[string][5]string{
		"resource": {"1", "2", "3", "/admin/resource/?published=yes", "/admin/resource/?published=no"},
		"map":      {"1", "0", "1", "/admin/map/?published=yes", "/admin/map/?published=no"},
		"landing":  {"0", "0", "0", "/admin/landing/?published=yes", "/admin/landing/?published=no"},
		"proposal": {"0", "0", "0", "/admin/proposal/?published=yes", "/admin/proposal/?published=no"},
	}
	for k, w := range want {
		if counts[k] != w {
			t.Errorf("counts of %s: %q, want %q", k, counts[k], w)
		}
	}
	missing := missingCells(doc)
	if got, want := missing["resource"], []string{"en=2 /admin/resource/?missing=en", "it=1 /admin/resource/?missing=it",
		"de=3 /admin/resource/?missing=de"}; !slices.Equal(got, want) {
		t.Errorf("missing of resources: %q, want %q", got, want)
	}
	if got := missing["map"]; !slices.Equal(got, []string{"en=0", "it=0", "de=0"}) {
		t.Errorf("missing of maps: %q", got)
	}
	// The link of a missing count opens the list filtered by it.
	list := e.page(e.get(c, "/resource/?missing=de"), http.StatusOK)
	if n := list.Find("table.records tbody tr").Length(); n != 3 {
		t.Errorf("the list of Resources without a German title has %d rows, want 3", n)
	}

	// Published, translated, deleted: the counts follow at once.
	e.storeRecords(cms.KindResource, `{"id":"hill","published":true,"title_it":"Collina","title_de":"Hügel"}`)
	if _, err := e.svc.Delete(e.listAs("admin"), cms.KindResource, []string{"bare"}, nil); err != nil {
		t.Fatal(err)
	}
	doc = e.page(e.get(c, "/"), http.StatusOK)
	if got := overviewCounts(doc)["resource"]; got[0] != "2" || got[1] != "0" || got[2] != "2" {
		t.Errorf("counts after a publish and a delete: %q, want 2 published, 0 not, 2 in all", got)
	}
	if got, want := missingCells(doc)["resource"], []string{"en=1 /admin/resource/?missing=en", "it=0",
		"de=1 /admin/resource/?missing=de"}; !slices.Equal(got, want) {
		t.Errorf("missing after a translation and a delete: %q, want %q", got, want)
	}
}

func TestOverviewRecentChanges(t *testing.T) {
	t.Parallel()
	e := newEnv(t, envOptions{prefix: "/admin"})
	editor := e.listAs("editor")
	e.storeRecords(cms.KindResource, `{"id":"lake","title":"Lake","title_it":"Lago"}`, `{"id":"gone","title":"Gone soon"}`)
	e.storeRecords(cms.KindLanding, `{"id":"home","title":"Home"}`)
	if _, err := e.svc.Upsert(editor, cms.KindResource, []byte(`{"id":"lake","title":"Lake Como"}`), nil); err != nil {
		t.Fatal(err)
	}
	e.clock.Advance(time.Second)
	if _, err := e.svc.Upsert(editor, cms.KindMap, []byte(`{"id":"tour","title_it":"Giro"}`), nil); err != nil {
		t.Fatal(err)
	}
	e.clock.Advance(time.Second)
	if _, err := e.svc.Delete(editor, cms.KindResource, []string{"gone"}, nil); err != nil {
		t.Fatal(err)
	}
	e.clock.Advance(time.Second)
	// Re-created after its delete: created again.
	if _, err := e.svc.Upsert(editor, cms.KindResource, []byte(`{"id":"gone","title":"Back"}`), nil); err != nil {
		t.Fatal(err)
	}
	if _, err := e.svc.Upsert(e.listAs("otto"), cms.KindResource, []byte(`{"id":"secret","title":"Otto's"}`), nil); err != nil {
		t.Fatal(err)
	}

	doc := e.page(e.get(e.signIn("admin"), "/"), http.StatusOK)
	rows, links := overviewRecent(doc)
	want := []string{
		"resource gone: Back | created | editor",
		"resource gone: Back | deleted | editor",
		"map tour: Giro | created | editor",
		"resource lake: Lake Como | updated | editor",
		"landing home: Home | created | admin",
		"resource gone: Back | created | admin",
		"resource lake: Lake Como | created | admin",
	}
	if !slices.Equal(rows, want) {
		t.Errorf("recent changes:\n got %q\nwant %q", rows, want)
	}
	if len(links) == len(want) && (links[0] != "/admin/resource/gone/edit" || links[2] != "/admin/map/tour/edit") {
		t.Errorf("links %q", links)
	}
	if a := doc.Find(`table.overview-recent tr[data-id="tour"] td.record a`); a.AttrOr("lang", "") != "it" {
		t.Errorf("the Map's Italian title is not marked as Italian: %q", a.AttrOr("lang", ""))
	}

	// A record deleted for good links to its history, by id.
	if _, err := e.svc.Delete(editor, cms.KindResource, []string{"gone"}, nil); err != nil {
		t.Fatal(err)
	}
	doc = e.page(e.get(e.signIn("admin"), "/"), http.StatusOK)
	rows, links = overviewRecent(doc)
	if len(rows) == 0 || rows[0] != "resource gone: gone | deleted | editor" || links[0] != "/admin/resource/gone/history" {
		t.Errorf("after a delete: %q %q", rows, links)
	}
	if strings.Contains(text(doc.Find("main")), "Otto's") {
		t.Error("another account's change is shown")
	}
	hist := e.page(e.get(e.signIn("admin"), "/resource/gone/history"), http.StatusOK)
	if hist.Find("table.history tbody tr").Length() == 0 {
		t.Error("the history a deleted record's row links to is empty")
	}

	// The editor (Resources and Maps) sees nothing of the Landing.
	ed := e.page(e.get(e.signIn("editor"), "/"), http.StatusOK)
	rows, _ = overviewRecent(ed)
	for _, r := range rows {
		if strings.HasPrefix(r, "landing") {
			t.Errorf("the editor sees the Landing's change %q", r)
		}
	}
	if len(rows) != len(want) { // the newest delete in, the Landing out
		t.Errorf("editor's recent changes: %q", rows)
	}
	if _, ok := overviewCounts(ed)["landing"]; ok {
		t.Error("the editor sees the count of Landings")
	}
	if _, ok := missingCells(ed)["landing"]; ok {
		t.Error("the editor sees the missing translations of Landings")
	}
	if strings.Contains(text(ed.Find("main")), "Home") {
		t.Error("the editor sees the Landing's title")
	}
}

func TestOverviewBatchesRunning(t *testing.T) {
	t.Parallel()
	e := newEnv(t, envOptions{prefix: "/admin"})
	c := e.signIn("admin")
	doc := e.page(e.get(c, "/"), http.StatusOK)
	if got := text(doc.Find("#batches .empty")); got != "No batch is running." {
		t.Errorf("no batch: %q", got)
	}
	first, err := e.svc.SubmitBatch(e.listAs("admin"), cms.KindResource, []byte(`[{"id":"bat-1"},{"id":"bat-2"},{"id":"bat-3"}]`))
	if err != nil {
		t.Fatal(err)
	}
	e.clock.Advance(time.Minute)
	second, err := e.svc.SubmitBatch(e.listAs("admin"), cms.KindLanding, []byte(`[{"id":"land-1"}]`))
	if err != nil {
		t.Fatal(err)
	}
	if _, err := e.svc.SubmitBatch(e.listAs("otto"), cms.KindResource, []byte(`[{"id":"otto-1"}]`)); err != nil {
		t.Fatal(err)
	}
	// The first is taken up by a worker: processing.
	b, err := e.store.ClaimBatch(t.Context(), "w1", e.clock.Now(), e.clock.Now().Add(time.Hour))
	if err != nil || b.ID != first.ID {
		t.Fatalf("claimed %v, %v; want %s", b, err, first.ID)
	}
	doc = e.page(e.get(c, "/"), http.StatusOK)
	var rows []string
	doc.Find("table.overview-batches tbody tr").Each(func(_ int, tr *goquery.Selection) {
		rows = append(rows, tr.AttrOr("data-batch", "")+": "+text(tr))
	})
	if len(rows) != 2 || !strings.HasPrefix(rows[0], first.ID+": Resources 3 processing") ||
		!strings.HasPrefix(rows[1], second.ID+": Landings 1 waiting") {
		t.Errorf("batches running: %q", rows)
	}
	if p := doc.Find("table.overview-batches progress"); p.Length() != 1 || p.AttrOr("max", "") != "3" || p.AttrOr("value", "") != "0" {
		t.Errorf("progress of the processing batch: %d, max %q value %q", p.Length(), p.AttrOr("max", ""), p.AttrOr("value", ""))
	}
	// The editor does not read Landings: their batch is not shown.
	ed := e.page(e.get(e.signIn("editor"), "/"), http.StatusOK)
	if n := ed.Find("table.overview-batches tbody tr").Length(); n != 1 {
		t.Errorf("the editor sees %d batches, want the Resources' alone", n)
	}
	// Finished, it is gone.
	if err := e.store.FinishBatch(t.Context(), first.ID, "w1", cms.BatchDone, cms.BatchResult{Created: 3}, e.clock.Now()); err != nil {
		t.Fatal(err)
	}
	doc = e.page(e.get(c, "/"), http.StatusOK)
	if n := doc.Find("table.overview-batches tbody tr").Length(); n != 1 {
		t.Errorf("after the first finished: %d batches, want 1", n)
	}
}

// TestOverviewWithoutReadableKinds: a user who may read no kind (the
// account's users alone) sees the overview without records, changes or
// batches, and no error.
func TestOverviewWithoutReadableKinds(t *testing.T) {
	t.Parallel()
	e := newEnv(t, envOptions{prefix: "/admin"})
	e.storeRecords(cms.KindResource, `{"id":"lake","title":"Lake"}`)
	if err := e.svc.CreateUser(t.Context(), cms.NewUser{Name: "auditor", Account: "acme", Password: testenv.Password,
		Perms: []string{"user:read"}}); err != nil {
		t.Fatal(err)
	}
	doc := e.page(e.get(e.signIn("auditor"), "/"), http.StatusOK)
	if doc.Find("table").Length() != 0 || strings.Contains(text(doc.Find("main")), "Lake") {
		t.Errorf("the overview shows records to a user who reads none: %q", text(doc.Find("main")))
	}
	if got := text(doc.Find("main p.empty")); got != "Your account gives you no kind of record to read." {
		t.Errorf("the overview says %q", got)
	}
}
