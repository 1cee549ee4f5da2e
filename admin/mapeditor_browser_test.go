//go:build browser

package admin

import (
	"context"
	"fmt"
	"math"
	"strconv"
	"strings"
	"sync/atomic"
	"testing"

	"github.com/chromedp/cdproto/page"
	"github.com/chromedp/chromedp"

	"github.com/bwcms/cms/admin/internal/browsertest"
	"github.com/bwcms/cms/cms"
)

// mapEditorOpen opens a Map's form and waits for its map.
func mapEditorOpen(t *testing.T, e *env, tab context.Context, id string) {
	t.Helper()
	path := "/map/" + id + "/edit"
	if id == "" {
		path = "/map/new"
	}
	openForm(t, e, tab, path)
	if err := chromedp.Do(tab, chromedp.Poll[chromedp.Void](`document.getElementById("mapeditor")?.dataset.ready === "on"`)); err != nil {
		t.Fatalf("the map editor did not start: %v", err)
	}
}

// shownOrder is what the page shows: the ids of a list in order, and the
// names of the numbered markers on the map ("Primary 2: Two"), in their
// numbers' order.
func shownList(t *testing.T, tab context.Context, field string) string {
	t.Helper()
	return js[string](t, tab, `[...document.querySelectorAll('.idlist[data-field="`+field+`"] input[type=hidden][name="`+field+`"]')].map((i) => i.value).join(",")`)
}

func shownMarkers(t *testing.T, tab context.Context) []string {
	t.Helper()
	return js[[]string](t, tab, `[...document.querySelectorAll("#mapeditor-map .leaflet-marker-pane .me-marker:not(.me-candidate)")]
		.map((m) => m.querySelector(".visually-hidden").textContent).sort((a, b) => a.localeCompare(b, "en", {numeric: true}))`)
}

// waitMarkers waits until the numbered markers are want (sorted by name).
func waitMarkers(t *testing.T, tab context.Context, want ...string) {
	t.Helper()
	expr := `[...document.querySelectorAll("#mapeditor-map .leaflet-marker-pane .me-marker:not(.me-candidate)")]
		.map((m) => m.querySelector(".visually-hidden").textContent).sort((a, b) => a.localeCompare(b, "en", {numeric: true})).join("|") === ` + e2eJS(strings.Join(want, "|"))
	if err := chromedp.Do(tab, chromedp.Poll[chromedp.Void](expr, chromedp.WithPollingTimeout(e2eWait))); err != nil {
		t.Fatalf("markers %q, want %q", shownMarkers(t, tab), want)
	}
}

// TestBrowserMapEditor builds a Map on the map: the lists and the
// numbered markers agree; a drag and the keyboard reorder; a candidate
// marker is added as secondary; an entry is removed; a day's Resources
// are shown and reordered; the track is chosen from the TRACK Resources;
// the centre and zoom come from the view; the save stores exactly what
// was shown, and the page opened again shows it the same way.
func TestBrowserMapEditor(t *testing.T) {
	e := newEnv(t, envOptions{prefix: "/admin"})
	e.put(cms.KindResource,
		`{"id":"r-1","title":"One","locationLat":45.01,"locationLon":7.61}`,
		`{"id":"r-2","title":"Two","locationLat":45.02,"locationLon":7.64}`,
		`{"id":"r-3","title":"Three","locationLat":45.05,"locationLon":7.62}`,
		`{"id":"r-4","title":"Four","locationLat":45.03,"locationLon":7.67}`,
		`{"id":"r-5","title":"Five","locationLat":45.06,"locationLon":7.66}`,
		`{"id":"r-6","title":"Six <img src=x onerror=window.__ran=1>","locationLat":45.04,"locationLon":7.60}`,
		`{"id":"r-7","title":"Seven, nowhere"}`,
		`{"id":"t-1","title":"Ridge walk","resourceType":"TRACK"}`,
	)
	gpx := e.uploadFile("ridge.gpx", []byte(`<?xml version="1.0"?><gpx version="1.1" creator="t" xmlns="http://www.topografix.com/GPX/1/1"><trk><trkseg>
<trkpt lat="45.0" lon="7.6"></trkpt><trkpt lat="45.03" lon="7.65"></trkpt><trkpt lat="45.06" lon="7.63"></trkpt></trkseg></trk></gpx>`))
	e.put(cms.KindResource, `{"id":"t-2","title":"Another track","resourceType":"TRACK","locationLat":50,"locationLon":12,"trackFile":"`+e.fileURL(gpx)+`"}`)
	e.put(cms.KindMap, `{"id":"m-1","title":"Tour","resourceIds":["r-1","r-2","r-3"],"secondaryResourceIds":["r-4","r-7"],
		"tourMultiday":[{"dayLabels":["D1"],"title":"Lakes","resourceIds":["r-2","r-5"]}]}`)
	other := cms.WithPrincipal(t.Context(), cms.Principal{Account: "other", User: "otto", Perms: []string{"*"}, Langs: cms.Languages{Default: "de", All: []string{"de"}}})
	if _, err := e.svc.Upsert(other, cms.KindResource, []byte(`{"id":"o-1","title":"Anderes","locationLat":45.035,"locationLon":7.63}`), nil); err != nil {
		t.Fatal(err)
	}
	b := browsertest.New(t)
	x := e2eEditor(t, e, b, "editor")
	tab := x.ctx
	if err := chromedp.Do(tab, chromedp.EmulateViewport(1400, 1000)); err != nil {
		t.Fatal(err)
	}
	mapEditorOpen(t, e, tab, "m-1")
	waitMarkers(t, tab, "Primary 1: One", "Primary 2: Two", "Primary 3: Three", "Secondary S1: Four")
	if got := x.text(`.idlist[data-field=secondaryResourceIds] li[data-id=r-7] .mapeditor-noloc`); got != "no location" {
		t.Errorf("r-7's badge %q", got)
	}
	// The account's other located Resource in view is the one candidate:
	// not other's o-1, not r-5 (a day's), its title as text.
	candidates := func() string {
		return js[string](t, tab, `[...document.querySelectorAll("#mapeditor-map .me-candidate")].map((m) => m.textContent).sort().join("|")`)
	}
	if err := x.poll(`document.querySelectorAll("#mapeditor-map .me-candidate").length > 0`); err != nil {
		t.Fatal(err)
	}
	if got := candidates(); got != "Not in the lists: Six <img src=x onerror=window.__ran=1> (r-6)" {
		t.Errorf("candidates %q", got)
	}
	x.shot("mapeditor-open", 1000)
	x.audit()

	// By drag: r-3 to the top. The list and the markers follow.
	js[bool](t, tab, `window.__stay = true`)
	err := chromedp.Do(tab, chromedp.DragAndDrop(
		chromedp.CSS(`.idlist[data-field=resourceIds] li[data-id=r-3] .id-handle`),
		chromedp.CSS(`.idlist[data-field=resourceIds] li[data-id=r-1] .id-handle`)))
	if err != nil {
		t.Fatal(err)
	}
	if got := shownList(t, tab, "resourceIds"); got != "r-3,r-1,r-2" {
		t.Fatalf("after the drag the list is %s", got)
	}
	waitMarkers(t, tab, "Primary 1: Three", "Primary 2: One", "Primary 3: Two", "Secondary S1: Four")
	if got := js[string](t, tab, `[...document.querySelectorAll('.idlist[data-field=resourceIds] li')].map((li) => li.dataset.id + "=" + li.querySelector(".mapeditor-num").textContent).join(",")`); got != "r-3=1,r-1=2,r-2=3" {
		t.Errorf("the list's marker labels: %s", got)
	}

	// By keyboard: Up on r-2, announced.
	err = chromedp.Do(tab,
		chromedp.Focus(chromedp.CSS(`.idlist[data-field=resourceIds] li[data-id=r-2] button[value^="up:"]`)),
		chromedp.KeyEvent(" "),
	)
	if err != nil {
		t.Fatal(err)
	}
	if got := shownList(t, tab, "resourceIds"); got != "r-3,r-2,r-1" {
		t.Fatalf("after Up the list is %s", got)
	}
	waitMarkers(t, tab, "Primary 1: Three", "Primary 2: Two", "Primary 3: One", "Secondary S1: Four")
	if err := x.poll(`(document.getElementById("form-announce")?.textContent || "").includes("r-2 moved to position 2")`); err != nil {
		t.Errorf("the move was not announced: %q", x.text("#form-announce"))
	}

	// Add by marker: the candidate r-6, as secondary.
	mapTap(x, `#mapeditor-map .me-candidate`)
	if err := x.poll(`!!document.querySelector(".leaflet-popup-content .me-popup-actions button")`); err != nil {
		t.Fatal("the candidate's popup did not open")
	}
	if got := x.text(`.leaflet-popup-content`); !strings.Contains(got, "Six <img src=x onerror=window.__ran=1> (r-6)") || !strings.Contains(got, "Add as primary") {
		t.Errorf("the candidate's popup says %q", got)
	}
	e2eEval[bool](x, `(window.scrollTo(0, 0), true)`) // the page's top for the picture
	x.shot("mapeditor-candidate", 1000)
	x.audit()
	mapTap(x, `.leaflet-popup-content .me-popup-actions button:nth-child(2)`)
	if got := shownList(t, tab, "secondaryResourceIds"); got != "r-4,r-7,r-6" {
		t.Fatalf("after adding r-6 the secondary list is %s", got)
	}
	waitMarkers(t, tab, "Primary 1: Three", "Primary 2: Two", "Primary 3: One", "Secondary S1: Four", "Secondary S3: Six <img src=x onerror=window.__ran=1>")
	if got := candidates(); got != "" {
		t.Errorf("r-6 is still a candidate: %q", got)
	}

	// Remove r-4 in the page: no page is loaded, the markers follow and
	// r-4 is a candidate again.
	x.tap(`.idlist[data-field=secondaryResourceIds] li[data-id=r-4] button[value^="remove:"]`)
	if got := shownList(t, tab, "secondaryResourceIds"); got != "r-7,r-6" {
		t.Fatalf("after Remove the secondary list is %s", got)
	}
	waitMarkers(t, tab, "Primary 1: Three", "Primary 2: Two", "Primary 3: One", "Secondary S2: Six <img src=x onerror=window.__ran=1>")
	if got := candidates(); got != "Not in the lists: Four (r-4)" {
		t.Errorf("candidates after the removal %q", got)
	}

	// A day: its Resources numbered in its order, reordered by keyboard.
	selectValue(t, tab, "#mapeditor-mode", "day-0")
	waitMarkers(t, tab, "Day 1: Lakes 1: Two", "Day 1: Lakes 2: Five")
	err = chromedp.Do(tab,
		chromedp.Focus(chromedp.CSS(`.idlist[data-field="tourMultiday[0].resourceIds"] li[data-id=r-2] button[value^="down:"]`)),
		chromedp.KeyEvent(" "),
	)
	if err != nil {
		t.Fatal(err)
	}
	waitMarkers(t, tab, "Day 1: Lakes 1: Five", "Day 1: Lakes 2: Two")
	x.shot("mapeditor-day", 1000)
	selectValue(t, tab, "#mapeditor-mode", "main")

	// The track: t-2 has a measured line, t-1 none.
	selectValue(t, tab, "#mapeditor-track", "t-2")
	if err := x.poll(`!!document.querySelector("#mapeditor-map path.me-track")`); err != nil {
		t.Errorf("t-2's line is not drawn; the note says %q", x.text("#mapeditor-track-note"))
	}
	selectValue(t, tab, "#mapeditor-track", "t-1")
	if err := x.poll(`!document.querySelector("#mapeditor-map path.me-track") && document.getElementById("mapeditor-track-note").textContent.includes("no measured track")`); err != nil {
		t.Errorf("after choosing t-1: the note says %q", x.text("#mapeditor-track-note"))
	}
	if got := x.value("#f-trackResourceId"); got != "t-1" {
		t.Errorf("trackResourceId holds %q", got)
	}

	// Centre and zoom from the view; one zoom step in changes the zoom by
	// one and keeps the centre.
	x.tap("#mapeditor-view")
	lat1, lon1, zoom1 := x.value("#f-locationLat"), x.value("#f-locationLon"), x.value("#f-locationZoom")
	la, lo, z := num(t, lat1), num(t, lon1), num(t, zoom1)
	if la < 45 || la > 45.07 || lo < 7.59 || lo > 7.68 || z < 2 || z > 25 || z != float64(int(z)) {
		t.Fatalf("the view put %s, %s, zoom %s", lat1, lon1, zoom1)
	}
	mapTap(x, ".leaflet-control-zoom-in")
	want := strconv.Itoa(int(z) + 1)
	if err := x.poll(`(() => { document.getElementById("mapeditor-view").click(); return document.getElementById("f-locationZoom").value === ` + e2eJS(want) + `; })()`); err != nil {
		t.Fatalf("zoom after one step in: %s, want %s", x.value("#f-locationZoom"), want)
	}
	x.tap("#mapeditor-view")
	lat, lon, zoom := x.value("#f-locationLat"), x.value("#f-locationLon"), x.value("#f-locationZoom")
	// The centre moves by a pixel's rounding at most (about 0.0002° at zoom 13).
	if math.Abs(num(t, lat)-la) > 1e-3 || math.Abs(num(t, lon)-lo) > 1e-3 || zoom != want {
		t.Errorf("after zooming in: %s, %s, zoom %s; was %s, %s, %s", lat, lon, zoom, lat1, lon1, zoom1)
	}
	if got := x.text("#mapeditor-status"); !strings.Contains(got, "centre is now "+lat+", "+lon+" at zoom "+zoom) {
		t.Errorf("status %q", got)
	}
	if !js[bool](t, tab, `window.__stay === true`) {
		t.Fatal("a step loaded another page")
	}
	x.nothingRan("the map editor")

	save(t, tab)
	stored := e.stored(cms.KindMap, "m-1")
	if got := storedIDs(e, cms.KindMap, "m-1", "resourceIds"); got != "r-3,r-2,r-1" {
		t.Errorf("stored resourceIds %s", got)
	}
	if got := storedIDs(e, cms.KindMap, "m-1", "secondaryResourceIds"); got != "r-7,r-6" {
		t.Errorf("stored secondaryResourceIds %s", got)
	}
	day, _ := stored["tourMultiday"].([]any)[0].(map[string]any)
	if got := fmt.Sprint(day["resourceIds"]); got != "[r-5 r-2]" {
		t.Errorf("stored day 1 %s", got)
	}
	if stored["trackResourceId"] != "t-1" || fmt.Sprint(stored["locationLat"]) != lat || fmt.Sprint(stored["locationLon"]) != lon || fmt.Sprint(stored["locationZoom"]) != zoom {
		t.Errorf("stored track %v, centre %v, %v, zoom %v; shown %s, %s, %s", stored["trackResourceId"], stored["locationLat"], stored["locationLon"], stored["locationZoom"], lat, lon, zoom)
	}
	// The saved form shows the stored order, on the lists and the map.
	if err := x.poll(`document.getElementById("mapeditor")?.dataset.ready === "on"`); err != nil {
		t.Fatal(err)
	}
	if got := shownList(t, tab, "resourceIds") + " " + shownList(t, tab, "secondaryResourceIds"); got != "r-3,r-2,r-1 r-7,r-6" {
		t.Errorf("after the save the lists are %s", got)
	}
	waitMarkers(t, tab, "Primary 1: Three", "Primary 2: Two", "Primary 3: One", "Secondary S2: Six <img src=x onerror=window.__ran=1>")
	if got := x.value("#mapeditor-track"); got != "t-1" {
		t.Errorf("the track choice shows %q", got)
	}
	x.shot("mapeditor-saved", 1500)
	x.nothingRan("the saved map editor")
	x.audit()
}

// mapTap clicks sel on the map after bringing the map to the middle of
// the window, clear of the form's sticky bar.
func mapTap(x *e2eTab, sel string) {
	x.t.Helper()
	e2eEval[bool](x, `(document.getElementById("mapeditor-map").scrollIntoView({block: "center"}), true)`)
	x.tap(sel)
}

// TestBrowserMapEditorNewAndReader: a new Map's form starts on the world
// with the account's Resources as candidates and takes its centre from
// the view; opening and leaving a form unchanged asks nothing (the fields
// moved beside the map are no change); a reader sees the markers and
// nothing that changes the Map.
func TestBrowserMapEditorNewAndReader(t *testing.T) {
	e := newEnv(t, envOptions{prefix: "/admin"})
	e.put(cms.KindResource, `{"id":"r-1","title":"One","locationLat":45.01,"locationLon":7.61}`, `{"id":"t-1","title":"Ridge","resourceType":"TRACK"}`)
	e.put(cms.KindMap, `{"id":"m-1","title":"Map","resourceIds":["r-1"],"trackResourceId":"t-1"}`)
	b := browsertest.New(t)
	tab := b.NewTab(t)
	var dialogs atomic.Int32
	err := chromedp.Listen(tab, func(ev any) {
		if _, ok := ev.(*page.EventJavascriptDialogOpening); ok {
			dialogs.Add(1)
			go chromedp.Call(tab, page.HandleJavaScriptDialog, page.HandleJavaScriptDialogParams{Accept: true})
		}
	})
	if err != nil {
		t.Fatal(err)
	}
	signInBrowser(t, e, tab, "editor")
	mapEditorOpen(t, e, tab, "m-1")
	waitMarkers(t, tab, "Primary 1: One")
	mapEditorOpen(t, e, tab, "")
	if n := dialogs.Load(); n != 0 {
		t.Errorf("leaving an unchanged Map form asked %d time(s)", n)
	}
	waitMarkers(t, tab)
	if err := chromedp.Do(tab, chromedp.Poll[chromedp.Void](`document.querySelectorAll("#mapeditor-map .me-candidate").length === 1`)); err != nil {
		t.Fatalf("a new Map's candidates: %v", err)
	}
	if err := chromedp.Do(tab, chromedp.Click(chromedp.CSS("#mapeditor-view"))); err != nil {
		t.Fatal(err)
	}
	got := js[string](t, tab, `["f-locationLat", "f-locationLon", "f-locationZoom"].map((id) => document.getElementById(id).value).join(" ")`)
	if got != "30 0 2" {
		t.Errorf("a new Map's view put %q, want 30 0 2", got)
	}
	browsertest.RequireNoSeriousAxe(t, tab)
	browsertest.RequireNoErrors(t, tab)

	rd := b.NewTab(t)
	signInBrowser(t, e, rd, "reader")
	mapEditorOpen(t, e, rd, "m-1")
	waitMarkers(t, rd, "Primary 1: One")
	state := js[string](t, rd, `[document.getElementById("mapeditor-view").disabled, document.getElementById("mapeditor-track").disabled,
		document.getElementById("mapeditor-track").value, document.querySelectorAll(".idlist-add button, .idlist .row-actions button").length].join(" ")`)
	if state != "true true t-1 0" {
		t.Errorf("a reader's map editor: %s", state)
	}
	if err := chromedp.Do(rd, chromedp.Poll[chromedp.Void](`document.querySelectorAll("#mapeditor-map .me-candidate").length === 0 && !!document.querySelector("#mapeditor-map .me-primary")`)); err != nil {
		t.Fatal(err)
	}
	if err := chromedp.Do(rd, chromedp.Click(chromedp.CSS("#mapeditor-map .me-primary"))); err != nil {
		t.Fatal(err)
	}
	if got := js[string](t, rd, `document.querySelector(".leaflet-popup-content")?.textContent || ""`); !strings.Contains(got, "Primary 1: One (r-1)") || strings.Contains(got, "Remove") {
		t.Errorf("a reader's popup says %q", got)
	}
	browsertest.RequireNoSeriousAxe(t, rd)
	browsertest.RequireNoErrors(t, rd)
}

// selectValue chooses value in the select sel, as a change by the user.
func selectValue(t *testing.T, tab context.Context, sel, value string) {
	t.Helper()
	if !js[bool](t, tab, `(() => { const s = document.querySelector(`+e2eJS(sel)+`); s.value = `+e2eJS(value)+`;
		s.dispatchEvent(new Event("change", {bubbles: true})); return s.value === `+e2eJS(value)+`; })()`) {
		t.Fatalf("%s has no option %s", sel, value)
	}
}

func num(t *testing.T, s string) float64 {
	t.Helper()
	f, err := strconv.ParseFloat(s, 64)
	if err != nil {
		t.Fatalf("%q is no number", s)
	}
	return f
}
