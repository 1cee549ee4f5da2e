package admin

import (
	"encoding/json"
	"fmt"
	"net/http"
	"net/url"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/PuerkitoBio/goquery"

	"github.com/bwcms/cms/cms"
)

// Helpers of the import tests.

// importPost posts the import form as the page does: the values, then
// the files (part "file").
func (e *env) importPost(c *http.Client, vals url.Values, files ...upload) *http.Response {
	e.t.Helper()
	return e.postMultipart(c, "/import", vals, files...)
}

// importVals are the form's values for a source, kind and step.
func importVals(source, kind, step string) url.Values {
	return url.Values{"source": {source}, "kind": {kind}, "step": {step}}
}

// applyBatches applies every waiting batch, as a worker would.
func (e *env) applyBatches() {
	e.t.Helper()
	for {
		ran, err := e.svc.ProcessBatch(e.t.Context(), "test")
		if err != nil {
			e.t.Fatal(err)
		}
		if !ran {
			return
		}
	}
}

// queued counts the batches waiting or processing.
func (e *env) queued() int {
	e.t.Helper()
	q, err := e.store.BatchQueue(e.t.Context())
	if err != nil {
		e.t.Fatal(err)
	}
	return q.Waiting + q.Processing
}

// importStatusOf reads an import's figures as its page's script does.
func (e *env) importStatusOf(c *http.Client, path string) importStatusData {
	e.t.Helper()
	req, err := http.NewRequest(http.MethodGet, e.srv.URL+path, nil)
	if err != nil {
		e.t.Fatal(err)
	}
	req.Header.Set("Accept", "application/json")
	res := e.do(c, req)
	if res.StatusCode != http.StatusOK {
		e.t.Fatalf("status of %s: %d", path, res.StatusCode)
	}
	var d importStatusData
	if err := json.NewDecoder(res.Body).Decode(&d); err != nil {
		e.t.Fatal(err)
	}
	return d
}

// problemRows are the problem table's rows: record, id, field, text.
func problemRows(doc *goquery.Document) [][4]string {
	var out [][4]string
	doc.Find("table.import-problem-list tbody tr").Each(func(_ int, tr *goquery.Selection) {
		td := tr.Find("td")
		out = append(out, [4]string{text(td.Eq(0)), text(td.Eq(1)), text(td.Eq(2)), text(td.Eq(3))})
	})
	return out
}

// TestImportJSONRecords: a JSON array of Resources is checked (nothing
// stored), then imported: the answer leads to the batch's page, whose
// figures (page and JSON) follow the batch to done, and the records are
// stored.
func TestImportJSONRecords(t *testing.T) {
	t.Parallel()
	e := newEnv(t, envOptions{prefix: "/admin"})
	c := e.signIn("admin")
	doc := e.page(e.get(c, "/import"), http.StatusOK)
	if n := doc.Find(`form#import-form input[type=file][name=file]`).Length(); n != 1 {
		t.Fatalf("%d file inputs", n)
	}
	if got := text(doc.Find(`header nav a[aria-current=page]`)); got != "Import" {
		t.Errorf("the nav marks %q", got)
	}
	body := []byte(`[{"id":"imp-1","title":"One"},{"id":"imp-2","title":"Two","title_it":"Due"},{"id":"imp-3","title":"Three"}]`)
	file := upload{"file", "records.json", body}

	doc = e.page(e.importPost(c, importVals("json", "resource", "check"), file), http.StatusOK)
	if got := text(doc.Find("#import-ready p").First()); got != "All 3 records can be imported as Resources. Nothing was stored yet." {
		t.Errorf("check says %q", got)
	}
	if got := text(doc.Find("#i-import")); got != "Import 3 Resources" {
		t.Errorf("import button %q", got)
	}
	if e.stored(cms.KindResource, "imp-1") != nil || e.queued() != 0 {
		t.Fatal("the check stored something")
	}

	res := e.importPost(c, importVals("json", "resource", "import"), file)
	if res.StatusCode != http.StatusSeeOther || !strings.HasPrefix(res.Header.Get("Location"), "/admin/import/resource/") {
		t.Fatalf("import: %d to %q", res.StatusCode, res.Header.Get("Location"))
	}
	status := res.Header.Get("Location")
	if d := e.importStatusOf(c, status); d.Status != "waiting" || d.Count != 3 || d.Processed != 0 {
		t.Errorf("before the worker: %+v", d)
	}
	doc = e.page(e.get(c, strings.TrimPrefix(status, "/admin")), http.StatusOK)
	if got := text(doc.Find("#import-state")); got != "Waiting to start." {
		t.Errorf("state %q", got)
	}
	if v, _ := doc.Find("progress#import-bar").Attr("value"); v != "0" {
		t.Errorf("bar at %q", v)
	}
	e.applyBatches()
	if d := e.importStatusOf(c, status); d.Status != "done" || d.Processed != 3 || d.Created != 3 {
		t.Errorf("after the worker: %+v", d)
	}
	doc = e.page(e.get(c, strings.TrimPrefix(status, "/admin")), http.StatusOK)
	if got := text(doc.Find("#import-done")); got != "Done: 3 created, 0 updated, 0 skipped (unchanged)." {
		t.Errorf("done says %q", got)
	}
	if v, _ := doc.Find("progress#import-bar").Attr("value"); v != "3" {
		t.Errorf("bar at %q", v)
	}
	if href, _ := doc.Find(`#import-outcome a[href$="/resource/"]`).Attr("href"); href != "/admin/resource/" {
		t.Errorf("no link to the Resources: %q", href)
	}
	var rows []string
	doc.Find("table.import-outcomes tbody tr").Each(func(_ int, tr *goquery.Selection) {
		href, _ := tr.Find("a").Attr("href")
		rows = append(rows, text(tr.Find("td").First())+" "+href+" "+text(tr.Find("td").Last()))
	})
	if want := []string{"imp-1 /admin/resource/imp-1/edit created", "imp-2 /admin/resource/imp-2/edit created",
		"imp-3 /admin/resource/imp-3/edit created"}; !slices.Equal(rows, want) {
		t.Errorf("each record's outcome:\n got %q\nwant %q", rows, want)
	}
	if got := e.stored(cms.KindResource, "imp-2"); got == nil || got["title_it"] != "Due" {
		t.Errorf("imp-2 stored as %v", got)
	}
}

// TestImportDryRunListsEveryProblem: each record's problems are listed
// with its number, id, field and text; nothing is stored or queued, and
// an import of the same file is refused the same way.
func TestImportDryRunListsEveryProblem(t *testing.T) {
	t.Parallel()
	e := newEnv(t, envOptions{prefix: "/admin"})
	c := e.signIn("admin")
	long := strings.Repeat("x", 101)
	body := fmt.Sprintf(`[{"id":"ok-1","title":"Fine"},{"id":"bad-2","title":%q},{"title":"No id"},{"id":"bad-4","locationLat":91}]`, long)
	file := upload{"file", "records.json", []byte(body)}
	for _, step := range []string{"check", "import"} {
		doc := e.page(e.importPost(c, importVals("json", "resource", step), file), http.StatusConflict)
		rows := problemRows(doc)
		want := map[string]bool{"2|bad-2|title": false, "3|(no id)|id": false, "4|bad-4|locationLat": false}
		for _, r := range rows {
			key := r[0] + "|" + r[1] + "|" + r[2]
			if _, ok := want[key]; ok && r[3] != "" {
				want[key] = true
			}
			if r[1] == "ok-1" {
				t.Errorf("%s: a problem of a good record: %v", step, r)
			}
		}
		for k, seen := range want {
			if !seen {
				t.Errorf("%s: no problem %s in %v", step, k, rows)
			}
		}
		if !strings.HasPrefix(text(doc.Find("#import-problems h3")), fmt.Sprintf("%d problems found: nothing was", len(rows))) {
			t.Errorf("%s: summary %q", step, text(doc.Find("#import-problems h3")))
		}
		if doc.Find("#i-import").Length() != 0 {
			t.Errorf("%s: an import button beside problems", step)
		}
		if !strings.HasPrefix(text(doc.Find("title")), "Error:") {
			t.Errorf("%s: title %q", step, text(doc.Find("title")))
		}
	}
	if e.stored(cms.KindResource, "ok-1") != nil || e.queued() != 0 {
		t.Fatal("something was stored")
	}

	// A file that is no JSON array is said so, for the whole file.
	doc := e.page(e.importPost(c, importVals("json", "resource", "check"), upload{"file", "x.json", []byte(`{"id":"x"}`)}), http.StatusBadRequest)
	if got := text(doc.Find("#import-error")); !strings.HasPrefix(got, "The file is not a JSON array of records") {
		t.Errorf("not an array: %q", got)
	}
	// No file: the form asks for one.
	doc = e.page(e.importPost(c, importVals("json", "resource", "check")), http.StatusBadRequest)
	if got := text(doc.Find("#import-error")); got != "Choose the file to import, then press Check." {
		t.Errorf("no file: %q", got)
	}
	if e.queued() != 0 {
		t.Fatal("something was queued")
	}
}

// geoFixture is a FeatureCollection of three points and a line.
const geoFixture = `{"type":"FeatureCollection","features":[
{"type":"Feature","geometry":{"type":"Point","coordinates":[7.68,45.07]},"properties":{"name":"Mole","name_it":"Mole Antonelliana","category":"museum, tower","phone":"+39 011 123","note":"tall"}},
{"type":"Feature","id":"poi-castle","geometry":{"type":"Point","coordinates":[7.69,45.08]},"properties":{"name":"Castle","category":["castle"],"phone":null,"note":"old"}},
{"type":"Feature","geometry":{"type":"LineString","coordinates":[[7,45],[8,46]]},"properties":{"name":"A road"}},
{"type":"Feature","geometry":{"type":"Point","coordinates":[7.70,45.09]},"properties":{"name":"<b>Bridge</b>","note":"wide"}}
]}`

// mappingOf reads the mapping table: property -> chosen field.
func mappingOf(doc *goquery.Document) map[string]string {
	out := map[string]string{}
	doc.Find("table.import-mapping tbody tr").Each(func(_ int, tr *goquery.Selection) {
		prop, _ := tr.Find(`input[name=prop]`).Attr("value")
		to, _ := tr.Find(`select[name=to] option[selected]`).Attr("value")
		out[prop] = to
	})
	return out
}

// TestImportGeoJSONWithAMapping: the properties are listed with guesses,
// the first Resources shown mapped, the line left out and said so;
// nothing is stored by the check. Imported with a changed mapping, the
// Resources hold what the mapping chose and the points' locations.
func TestImportGeoJSONWithAMapping(t *testing.T) {
	t.Parallel()
	e := newEnv(t, envOptions{prefix: "/admin"})
	c := e.signIn("admin")
	file := upload{"file", "pois.geojson", []byte(geoFixture)}
	doc := e.page(e.importPost(c, importVals("geojson", "", "check"), file), http.StatusOK)
	got := mappingOf(doc)
	want := map[string]string{"name": "title", "name_it": "title_it", "category": "resourceCategories", "phone": "contactPhone", "note": ""}
	for k, v := range want {
		if got[k] != v {
			t.Errorf("property %s guessed as %q, want %q (all %v)", k, got[k], v, got)
		}
	}
	if n := doc.Find(`select[name=to]`).First().Find("option").Length(); n < 20 {
		t.Errorf("only %d fields offered", n)
	}
	if got := text(doc.Find(".notice.warn")); got != "1 feature is not a point and is left out." {
		t.Errorf("notice %q", got)
	}
	var head []string
	doc.Find("table.import-preview thead th").Each(func(_ int, s *goquery.Selection) { head = append(head, text(s)) })
	if strings.Join(head, ",") != "id,title,title_it,resourceCategories,contactPhone,locationLat,locationLon" {
		t.Errorf("preview columns %v", head)
	}
	var rows []string
	doc.Find("table.import-preview tbody tr").Each(func(_ int, s *goquery.Selection) {
		var cells []string
		s.Find("td").Each(func(_ int, td *goquery.Selection) { cells = append(cells, text(td)) })
		rows = append(rows, strings.Join(cells, "|"))
	})
	if len(rows) != 3 || !strings.HasSuffix(rows[0], "|Mole|Mole Antonelliana|museum, tower|+39 011 123|45.07|7.68") ||
		!strings.HasPrefix(rows[1], "poi-castle|Castle||castle||") || !strings.Contains(rows[2], "|<b>Bridge</b>|") {
		t.Errorf("preview rows %q", rows)
	}
	if doc.Find("table.import-preview b").Length() != 0 {
		t.Error("a property's markup became markup")
	}
	if text(doc.Find("#import-ready p").First()) != "All 3 records can be imported as Resources. Nothing was stored yet." {
		t.Errorf("ready says %q", text(doc.Find("#import-ready")))
	}
	if e.stored(cms.KindResource, "poi-castle") != nil || e.queued() != 0 {
		t.Fatal("the check stored something")
	}

	// The editor maps note to the short description and leaves the
	// phone out, then imports.
	vals := importVals("geojson", "", "import")
	for prop, to := range map[string]string{"name": "title", "name_it": "title_it", "category": "resourceCategories", "phone": "", "note": "shortDescription"} {
		vals.Add("prop", prop)
		vals.Add("to", to)
	}
	res := e.importPost(c, vals, file)
	if res.StatusCode != http.StatusSeeOther {
		t.Fatalf("import: %d", res.StatusCode)
	}
	e.applyBatches()
	castle := e.stored(cms.KindResource, "poi-castle")
	if castle == nil || castle["title"] != "Castle" || castle["shortDescription"] != "old" || castle["locationLat"] != 45.08 || castle["locationLon"] != 7.69 {
		t.Fatalf("castle stored as %v", castle)
	}
	if cats, _ := castle["resourceCategories"].([]any); len(cats) != 1 || cats[0] != "castle" {
		t.Errorf("castle categories %v", castle["resourceCategories"])
	}
	q := e.importStatusOf(c, res.Header.Get("Location"))
	if q.Created != 3 {
		t.Errorf("status %+v", q)
	}
	// The ids made for points without one are the file's: the same file
	// again updates (here: skips) the same Resources.
	res = e.importPost(c, vals, file)
	e.applyBatches()
	if q := e.importStatusOf(c, res.Header.Get("Location")); q.Created != 0 || q.Skipped != 3 {
		t.Errorf("the same file again: %+v", q)
	}
	doc = e.page(e.importPost(c, importVals("geojson", "", "check"), upload{"file", "x.geojson", []byte(`{"type":"Feature"}`)}), http.StatusBadRequest)
	if got := text(doc.Find("#import-error")); !strings.Contains(got, "not a GeoJSON FeatureCollection") {
		t.Errorf("not a collection: %q", got)
	}
}

// TestImportGPXTracks: two GPX files are checked (their names and
// distances shown, nothing uploaded), then imported: two files in Files
// and two TRACK Resources, each naming its file and measured by it.
func TestImportGPXTracks(t *testing.T) {
	t.Parallel()
	e := newEnv(t, envOptions{prefix: "/admin"})
	c := e.signIn("admin")
	south := strings.Replace(string(gpxNorth(50)), "<name>North</name>", "<name>South &amp; back</name>", 1)
	files := []upload{{"file", "north.gpx", gpxNorth(100)}, {"file", "south.gpx", []byte(south)}}
	doc := e.page(e.importPost(c, importVals("gpx", "", "check"), files...), http.StatusOK)
	var tracks []string
	doc.Find("table.import-tracks tbody tr").Each(func(_ int, tr *goquery.Selection) {
		tracks = append(tracks, text(tr.Find("td").Eq(0))+"|"+text(tr.Find("td").Eq(1))+"|"+text(tr.Find("td").Eq(3)))
	})
	if strings.Join(tracks, ";") != "north.gpx|North|11.1 km;south.gpx|South & back|5.6 km" {
		t.Errorf("tracks %q", tracks)
	}
	if len(e.files()) != 0 || e.queued() != 0 {
		t.Fatal("the check stored something")
	}
	res := e.importPost(c, importVals("gpx", "", "import"), files...)
	if res.StatusCode != http.StatusSeeOther {
		t.Fatalf("import: %d", res.StatusCode)
	}
	e.applyBatches()
	stored := e.files()
	if len(stored) != 2 {
		t.Fatalf("%d files stored", len(stored))
	}
	ids := map[string]string{}
	doc.Find("table.import-tracks tbody tr").Each(func(_ int, tr *goquery.Selection) {
		ids[text(tr.Find("td").Eq(0))] = text(tr.Find("td").Eq(2))
	})
	north := e.stored(cms.KindResource, ids["north.gpx"])
	if north == nil || north["resourceType"] != "TRACK" || north["title"] != "North" || north["trackTravelDistance"] != float64(11120) {
		t.Fatalf("north stored as %v", north)
	}
	if u, _ := north["trackFile"].(string); !strings.Contains(u, "/file/") {
		t.Errorf("north's track file %q", u)
	}
	if s := e.stored(cms.KindResource, ids["south.gpx"]); s == nil || s["title"] != "South & back" {
		t.Errorf("south stored as %v", s)
	}

	// A file that is no track is named; nothing is checked further.
	doc = e.page(e.importPost(c, importVals("gpx", "", "check"), upload{"file", "notes.gpx", []byte("not xml")}), http.StatusConflict)
	if rows := problemRows(doc); len(rows) != 1 || rows[0][1] != "notes.gpx" || !strings.HasPrefix(rows[0][3], "is not a GPX track") {
		t.Errorf("rows %v", rows)
	}
}

// TestImportPermissions: a reader has no import page, no nav entry, and
// its post stores nothing; an editor without files may import JSON and
// GeoJSON but not GPX.
func TestImportPermissions(t *testing.T) {
	t.Parallel()
	e := newEnv(t, envOptions{prefix: "/admin"})
	reader := e.signIn("reader")
	doc := e.page(e.get(reader, "/resource/"), http.StatusOK)
	if doc.Find(`header nav a[href="/admin/import"]`).Length() != 0 {
		t.Error("a reader's nav offers Import")
	}
	e.page(e.get(reader, "/import"), http.StatusForbidden)
	file := upload{"file", "r.json", []byte(`[{"id":"imp-1","title":"One"}]`)}
	e.page(e.importPost(reader, importVals("json", "resource", "import"), file), http.StatusForbidden)

	editor := e.signIn("editor")
	doc = e.page(e.get(editor, "/import"), http.StatusOK)
	var sources, kinds []string
	doc.Find(`input[name=source]`).Each(func(_ int, s *goquery.Selection) { v, _ := s.Attr("value"); sources = append(sources, v) })
	doc.Find(`#i-kind option`).Each(func(_ int, s *goquery.Selection) { v, _ := s.Attr("value"); kinds = append(kinds, v) })
	if strings.Join(sources, ",") != "json,geojson" || strings.Join(kinds, ",") != "resource,map" {
		t.Errorf("editor offered sources %v, kinds %v", sources, kinds)
	}
	doc = e.page(e.importPost(editor, importVals("gpx", "", "import"), upload{"file", "n.gpx", gpxNorth(10)}), http.StatusForbidden)
	if got := text(doc.Find("#import-error")); !strings.Contains(got, "uploading files") {
		t.Errorf("editor's GPX: %q", got)
	}
	e.page(e.importPost(editor, importVals("json", "landing", "import"), upload{"file", "l.json", []byte(`[{"id":"l-1"}]`)}), http.StatusForbidden)
	if e.stored(cms.KindResource, "imp-1") != nil || e.queued() != 0 || len(e.files()) != 0 {
		t.Fatal("a refused import stored something")
	}
}

// TestImportFromAnotherSiteIsRefused: the import form refuses a
// browser's cross-site post like every other form.
func TestImportFromAnotherSiteIsRefused(t *testing.T) {
	t.Parallel()
	e := newEnv(t, envOptions{prefix: "/admin"})
	c := e.signIn("admin")
	req := e.multipartRequest("/import", importVals("json", "resource", "import"), upload{"file", "r.json", []byte(`[{"id":"imp-1","title":"One"}]`)})
	req.Header.Set("Origin", "https://evil.example")
	req.Header.Set("Sec-Fetch-Site", "cross-site")
	e.page(e.do(c, req), http.StatusForbidden)
	if e.stored(cms.KindResource, "imp-1") != nil || e.queued() != 0 {
		t.Fatal("stored")
	}
}

// TestImportStatusOfAnotherAccount: a batch is found only in its own
// account, and a kind that does not exist has no page.
func TestImportStatusOfAnotherAccount(t *testing.T) {
	t.Parallel()
	e := newEnv(t, envOptions{prefix: "/admin"})
	c := e.signIn("admin")
	res := e.importPost(c, importVals("json", "resource", "import"), upload{"file", "r.json", []byte(`[{"id":"imp-1","title":"One"}]`)})
	status := strings.TrimPrefix(res.Header.Get("Location"), "/admin")
	e.page(e.get(c, status), http.StatusOK)
	e.page(e.get(e.signIn("otto"), status), http.StatusNotFound)
	e.page(e.get(c, strings.Replace(status, "/resource/", "/thing/", 1)), http.StatusNotFound)
}

// TestNumberProblems: problems get their records' numbers by id, in
// order, including records with the same id and records without one.
func TestNumberProblems(t *testing.T) {
	t.Parallel()
	ids := []string{"a-1", "", "a-1", "b-4", "x"}
	probs := []cms.Problem{{ID: "(no id)", Field: "id"}, {ID: "a-1", Field: "title"}, {ID: "a-1", Field: "image"}, {ID: "(no id)", Field: "id"}, {ID: "zzz", Field: "id"}}
	var got []string
	for _, p := range numberProblems(ids, probs) {
		got = append(got, fmt.Sprintf("%d:%s", p.Record, p.Field))
	}
	if strings.Join(got, ",") != "2:id,3:title,3:image,5:id,0:id" {
		t.Errorf("numbers %v", got)
	}
}

// TestImportStatusAfterARestart: a batch taken up again after its first
// attempt's lease ran out says so on its page, beside a bar of the new
// attempt, and in its figures.
func TestImportStatusAfterARestart(t *testing.T) {
	t.Parallel()
	e := newEnv(t, envOptions{prefix: "/admin"})
	c := e.signIn("admin")
	res := e.importPost(c, importVals("json", "resource", "import"), upload{"file", "r.json", []byte(`[{"id":"r-1","title":"One"}]`)})
	status := res.Header.Get("Location")
	ctx := t.Context()
	for _, owner := range []string{"w1", "w2"} {
		now := e.clock.Now()
		if b, err := e.store.ClaimBatch(ctx, owner, now, now.Add(time.Minute)); err != nil || b == nil {
			t.Fatalf("claim by %s: %v", owner, err)
		}
		e.clock.Advance(2 * time.Minute)
	}
	if d := e.importStatusOf(c, status); d.Status != "processing" || d.Attempt != 2 || d.Processed != 0 {
		t.Errorf("figures %+v", d)
	}
	doc := e.page(e.get(c, strings.TrimPrefix(status, "/admin")), http.StatusOK)
	if got := text(doc.Find("#import-state")); !strings.HasPrefix(got, "Started again after an interruption (attempt 2), counting from 0") {
		t.Errorf("state %q", got)
	}
	if got := text(doc.Find("#import-bar-label")); got != "Records applied, attempt 2" {
		t.Errorf("label %q", got)
	}
}
