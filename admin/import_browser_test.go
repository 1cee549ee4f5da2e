//go:build browser

package admin

import (
	"context"
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/chromedp/cdproto/cdp"
	"github.com/chromedp/cdproto/page"
	"github.com/chromedp/chromedp"

	"github.com/bwcms/cms/admin/internal/browsertest"
	"github.com/bwcms/cms/cms"
)

// e2eRunWorkers applies batches in the background for the test's life.
func e2eRunWorkers(t *testing.T, e *env) {
	t.Helper()
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan struct{})
	go func() {
		defer close(done)
		e.svc.RunBatchWorkers(ctx, 1)
	}()
	t.Cleanup(func() {
		cancel()
		<-done
	})
}

// e2eRecordBar makes every page the tab opens record each value its
// import bar shows, as [attempt, value] pairs in window.__bar: the
// initial one, then each change (a MutationObserver on the value
// attribute, which the bar's value property sets).
func e2eRecordBar(t *testing.T, x *e2eTab) {
	t.Helper()
	script := `window.__bar = [];
document.addEventListener("DOMContentLoaded", () => {
  const rec = () => {
    const b = document.getElementById("import-bar");
    if (!b) return;
    const v = b.getAttribute("value"), a = b.dataset.attempt || "";
    const last = window.__bar[window.__bar.length - 1];
    if (!last || last[0] !== a || last[1] !== v) window.__bar.push([a, v]);
  };
  rec();
  new MutationObserver(rec).observe(document.body, { subtree: true, childList: true, attributes: true, attributeFilter: ["value"] });
});`
	if err := chromedp.Do(x.ctx, chromedp.Func(func(ctx context.Context, tgt *chromedp.Target) error {
		_, err := cdp.Call(ctx, tgt, page.AddScriptToEvaluateOnNewDocument, page.AddScriptToEvaluateOnNewDocumentParams{Source: script})
		return err
	})); err != nil {
		t.Fatal(err)
	}
}

// barSamples reads what e2eRecordBar recorded.
func (x *e2eTab) barSamples() [][2]string {
	x.t.Helper()
	return e2eEval[[][2]string](x, `window.__bar || []`)
}

// waitFor polls script until true, failing with what the page says.
func (x *e2eTab) waitFor(what, script string) {
	x.t.Helper()
	if err := x.poll(script); err != nil {
		x.t.Fatalf("%s: %v; the page says %q", what, err, x.mainText())
	}
}

// forwardOnly fails unless the bar's values never go down within an
// attempt, and returns the last.
func forwardOnly(t *testing.T, samples [][2]string) string {
	t.Helper()
	if len(samples) == 0 {
		t.Fatal("no value of the bar was recorded")
	}
	prev, attempt := -1, ""
	for _, s := range samples {
		var v int
		if _, err := fmt.Sscan(s[1], &v); err != nil {
			t.Fatalf("bar value %q", s[1])
		}
		if s[0] != attempt {
			attempt, prev = s[0], -1
		}
		if v < prev {
			t.Errorf("the bar moved backwards within attempt %s: %v", attempt, samples)
		}
		prev = v
	}
	return samples[len(samples)-1][1]
}

// TestE2EImport10000Records checks and imports a JSON file of 10,000
// Resources in the browser, recording every value of the progress bar
// while the batch runs: it only moves forward and ends at 10,000. The
// import page and the batch's page pass axe, with no page errors.
func TestE2EImport10000Records(t *testing.T) {
	e := newEnv(t, envOptions{prefix: "/admin"})
	const n = 10000
	var body strings.Builder
	body.WriteByte('[')
	for i := range n {
		if i > 0 {
			body.WriteByte(',')
		}
		fmt.Fprintf(&body, `{"id":"bulk-%05d","title":"Place %d","locationLat":%.4f,"locationLon":%.4f,"published":true}`, i, i, 44+float64(i%100)/100, 7+float64(i/100)/100)
	}
	body.WriteByte(']')
	paths := e2eFiles(t, map[string][]byte{"places.json": []byte(body.String())})
	b := browsertest.New(t)
	x := e2eEditor(t, e, b, "admin")
	e2eRecordBar(t, x)

	x.open("/import", 200)
	x.audit()
	x.shot("import-form", 0)
	x.setFiles("#i-file", paths["places.json"])
	start := time.Now()
	x.tap("#i-check")
	x.waitFor("the check", `!!document.getElementById("import-ready") || !!document.getElementById("import-problems")`)
	t.Logf("check of %d records: %v (figure, not an assertion)", n, time.Since(start).Round(time.Millisecond))
	if got := x.text("#import-ready p"); got != "All 10000 records can be imported as Resources. Nothing was stored yet." {
		t.Fatalf("check says %q", got)
	}
	if e.queued() != 0 || e.stored(cms.KindResource, "bulk-00000") != nil {
		t.Fatal("the check stored something")
	}
	x.audit()

	start = time.Now()
	if got := x.click("#i-import"); got != 200 {
		t.Fatalf("import: status %d; the page says %q", got, x.mainText())
	}
	if !strings.Contains(e2eEval[string](x, `location.pathname`), "/import/resource/") {
		t.Fatalf("after Import the tab is at %s", e2eEval[string](x, `location.href`))
	}
	// The worker starts once the batch's page is open, so that the page
	// follows the whole batch.
	if got := x.text("#import-state"); got != "Waiting to start." {
		t.Errorf("state %q", got)
	}
	e2eRunWorkers(t, e)
	x.waitFor("the import", `!!document.getElementById("import-done")`)
	t.Logf("submit and apply of %d records: %v (figure, not an assertion)", n, time.Since(start).Round(time.Millisecond))
	samples := x.barSamples()
	t.Logf("%d values of the bar recorded: %v", len(samples), samples)
	if last := forwardOnly(t, samples); last != "10000" {
		t.Errorf("the bar ends at %s, want 10000", last)
	}
	if got := x.text("#import-done"); got != "Done: 10000 created, 0 updated, 0 skipped (unchanged)." {
		t.Errorf("done says %q", got)
	}
	if got := x.text("#import-count"); got != "10000 of 10000" {
		t.Errorf("count says %q", got)
	}
	if got := x.text("#import-announce"); !strings.HasPrefix(got, "Import done: 10000 created") {
		t.Errorf("announced %q", got)
	}
	x.audit()
	x.shot("import-done", 0)
	if got := e.stored(cms.KindResource, "bulk-09999"); got == nil || got["title"] != "Place 9999" {
		t.Errorf("the last record stored as %v", got)
	}
}

// TestE2EImportRestartedBatch follows a batch whose first attempt is
// lost (its lease runs out and another worker claims it): the page says
// so, shows a new bar for attempt 2 from 0, and neither bar moves
// backwards; then the batch ends and the page shows the outcome.
func TestE2EImportRestartedBatch(t *testing.T) {
	e := newEnv(t, envOptions{prefix: "/admin"})
	c := e.signIn("admin")
	res := e.importPost(c, importVals("json", "resource", "import"), upload{"file", "r.json", []byte(`[{"id":"r-1","title":"One"},{"id":"r-2","title":"Two"}]`)})
	status := strings.TrimPrefix(res.Header.Get("Location"), "/admin")
	ctx := t.Context()
	now := e.clock.Now()
	first, err := e.store.ClaimBatch(ctx, "w1", now, now.Add(time.Minute))
	if err != nil || first == nil {
		t.Fatalf("claim: %v", err)
	}
	b := browsertest.New(t)
	x := e2eEditor(t, e, b, "admin")
	e2eRecordBar(t, x)
	x.open(status, 200)
	x.waitFor("attempt 1", `document.getElementById("import-state").textContent.startsWith("Importing")`)

	e.clock.Advance(2 * time.Minute) // w1's lease runs out
	now = e.clock.Now()
	second, err := e.store.ClaimBatch(ctx, "w2", now, now.Add(time.Minute))
	if err != nil || second == nil || second.Attempts != 2 {
		t.Fatalf("second claim: %+v, %v", second, err)
	}
	x.waitFor("the restart", `document.getElementById("import-bar").dataset.attempt === "2"`)
	if got := x.text("#import-state"); !strings.HasPrefix(got, "Started again after an interruption (attempt 2)") {
		t.Errorf("state says %q", got)
	}
	if got := x.text("#import-bar-label"); got != "Records applied, attempt 2" {
		t.Errorf("label %q", got)
	}
	if got := x.text("#import-announce"); !strings.Contains(got, "started again (attempt 2)") {
		t.Errorf("announced %q", got)
	}
	x.audit()
	x.shot("import-restarted", 0)
	if err := e.store.FinishBatch(ctx, second.ID, "w2", cms.BatchDone, cms.BatchResult{Created: 2}, e.clock.Now()); err != nil {
		t.Fatal(err)
	}
	x.waitFor("the end", `!!document.getElementById("import-done")`)
	samples := x.barSamples()
	t.Logf("bar values: %v", samples)
	if last := forwardOnly(t, samples); last != "2" || samples[len(samples)-1][0] != "2" {
		t.Errorf("the bar ends at %v", samples[len(samples)-1])
	}
	x.clean()
}

// TestE2EImportGeoJSONAndGPX imports a GeoJSON file with a mapping
// changed in the page (which checks again by itself), then two GPX files
// as two TRACK Resources; axe on the page with its mapping and preview.
func TestE2EImportGeoJSONAndGPX(t *testing.T) {
	e := newEnv(t, envOptions{prefix: "/admin"})
	e2eRunWorkers(t, e)
	south := strings.Replace(string(gpxNorth(50)), "<name>North</name>", "<name>South</name>", 1)
	paths := e2eFiles(t, map[string][]byte{"pois.geojson": []byte(geoFixture), "north.gpx": gpxNorth(100), "south.gpx": []byte(south)})
	b := browsertest.New(t)
	x := e2eEditor(t, e, b, "admin")

	x.open("/import", 200)
	x.tap("#i-source-geojson")
	if !e2eEval[bool](x, `document.getElementById("i-kind-field").hidden`) {
		t.Error("the kind is asked for GeoJSON")
	}
	x.setFiles("#i-file", paths["pois.geojson"])
	x.tap("#i-check")
	x.waitFor("the check", `!!document.getElementById("import-ready")`)
	if got := x.value(`select[name=to]:nth-of-type(1)`); got == "(no element)" {
		t.Fatal("no mapping")
	}
	noteSel := e2eEval[string](x, `(() => { const i = [...document.querySelectorAll('input[name=prop]')].findIndex(p => p.value === "note"); return "#i-to-" + i; })()`)
	if got := x.value(noteSel); got != "" {
		t.Errorf("note is mapped to %q", got)
	}
	x.audit()
	x.shot("import-geojson", 0)
	// The editor maps note to the short description by keyboard: the page
	// checks again and the preview gets the column.
	if err := chromedp.Do(x.ctx, chromedp.Focus(chromedp.CSS(noteSel))); err != nil {
		t.Fatal(err)
	}
	if err := chromedp.Do(x.ctx, chromedp.SetValue(chromedp.CSS(noteSel), "shortDescription")); err != nil {
		t.Fatal(err)
	}
	e2eEval[bool](x, `document.querySelector(`+e2eJS(noteSel)+`).dispatchEvent(new Event("change", { bubbles: true }))`)
	x.waitFor("the check again", `[...document.querySelectorAll(".import-preview th")].some(th => th.textContent === "shortDescription")`)
	x.waitFor("the result", `!!document.getElementById("import-ready")`)
	if got := x.value(noteSel); got != "shortDescription" {
		t.Errorf("after the check note is mapped to %q", got)
	}
	if got := x.click("#i-import"); got != 200 {
		t.Fatalf("import: %d", got)
	}
	x.waitFor("the import", `!!document.getElementById("import-done")`)
	if got := e.stored(cms.KindResource, "poi-castle"); got == nil || got["shortDescription"] != "old" || got["locationLat"] != 45.08 {
		t.Errorf("castle stored as %v", got)
	}
	x.clean()

	x.open("/import", 200)
	x.tap("#i-source-gpx")
	x.setFiles("#i-file", paths["north.gpx"], paths["south.gpx"])
	x.tap("#i-check")
	x.waitFor("the check", `!!document.getElementById("import-ready")`)
	if got := x.count("table.import-tracks tbody tr"); got != 2 {
		t.Errorf("%d tracks listed", got)
	}
	x.audit()
	x.shot("import-gpx", 0)
	if got := x.click("#i-import"); got != 200 {
		t.Fatalf("import: %d", got)
	}
	x.waitFor("the import", `!!document.getElementById("import-done")`)
	if got := x.text("#import-done"); got != "Done: 2 created, 0 updated, 0 skipped (unchanged)." {
		t.Errorf("done says %q", got)
	}
	files := e.files()
	if len(files) != 2 {
		t.Fatalf("%d files", len(files))
	}
	tracks := 0
	for _, f := range files {
		if f.Track == nil {
			t.Errorf("file %s has no track", f.Name)
		}
	}
	seq, err := e.svc.Read(e.acme(), cms.KindResource, cms.ReadParams{Published: cms.PublishedAny, Uncounted: true})
	if err != nil {
		t.Fatal(err)
	}
	for en, err := range seq {
		if err != nil {
			t.Fatal(err)
		}
		if r, ok := en.Record.(*cms.Resource); ok && r.ResourceType.Value == cms.ResourceTypeTrack && r.TrackFile.Value != "" {
			tracks++
		}
	}
	if tracks != 2 {
		t.Errorf("%d TRACK Resources with a track file", tracks)
	}
	x.clean()
}
