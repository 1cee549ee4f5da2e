//go:build browser

package admin

import (
	"fmt"
	"strconv"
	"strings"
	"testing"

	"github.com/chromedp/cdproto/input"
	"github.com/chromedp/chromedp"

	"github.com/bwcms/cms/admin/internal/browsertest"
	"github.com/bwcms/cms/cms"
)

// centreOf scrolls sel into the middle of the window and returns the
// centre of its box, in the window's pixels.
func (x *e2eTab) centreOf(sel string) (float64, float64) {
	x.t.Helper()
	p := e2eEval[[]float64](x, `(() => { const el = document.querySelector(`+e2eJS(sel)+`);
		if (!el) return [];
		el.scrollIntoView({ block: "center" });
		const r = el.getBoundingClientRect();
		return [r.left + r.width / 2, r.top + r.height / 2]; })()`)
	if len(p) != 2 {
		x.t.Fatalf("no %s on the page", sel)
	}
	return p[0], p[1]
}

// offsetIn is the centre of sel's box from the top left of the box of
// within, in pixels (no scrolling).
func (x *e2eTab) offsetIn(sel, within string) (float64, float64) {
	x.t.Helper()
	p := e2eEval[[]float64](x, `(() => { const el = document.querySelector(`+e2eJS(sel)+`), w = document.querySelector(`+e2eJS(within)+`);
		if (!el || !w) return [];
		const r = el.getBoundingClientRect(), o = w.getBoundingClientRect();
		return [r.left + r.width / 2 - o.left, r.top + r.height / 2 - o.top]; })()`)
	if len(p) != 2 {
		x.t.Fatalf("no %s in %s", sel, within)
	}
	return p[0], p[1]
}

// mouse sends the tab mouse events, as a hand on a mouse does.
func (x *e2eTab) mouse(steps ...chromedp.Action[chromedp.Void]) {
	x.t.Helper()
	for _, s := range steps {
		if err := chromedp.Do(x.ctx, s); err != nil {
			x.t.Fatalf("mouse: %v", err)
		}
	}
}

// drag presses the left button at (x0, y0), moves in steps to (x1, y1)
// and releases it there.
func (x *e2eTab) drag(x0, y0, x1, y1 float64) {
	x.t.Helper()
	held := func(p *input.DispatchMouseEventParams) { p.Button, p.Buttons = input.MouseButtonLeft, 1 }
	steps := []chromedp.Action[chromedp.Void]{chromedp.MouseEvent(chromedp.MouseMoved, x0, y0),
		chromedp.MouseEvent(chromedp.MousePressed, x0, y0, held, chromedp.ClickCount(1))}
	for i := 1; i <= 10; i++ {
		f := float64(i) / 10
		steps = append(steps, chromedp.MouseEvent(chromedp.MouseMoved, x0+(x1-x0)*f, y0+(y1-y0)*f, held))
	}
	steps = append(steps, chromedp.MouseEvent(chromedp.MouseReleased, x1, y1, held, chromedp.ClickCount(1)))
	x.mouse(steps...)
}

// location is what the location controls hold, as numbers.
func (x *e2eTab) location() (lat, lon float64) {
	x.t.Helper()
	a, errA := strconv.ParseFloat(x.value(e2eCtl("locationLat")), 64)
	b, errB := strconv.ParseFloat(x.value(e2eCtl("locationLon")), 64)
	if errA != nil || errB != nil {
		x.t.Fatalf("the location controls hold %q, %q", x.value(e2eCtl("locationLat")), x.value(e2eCtl("locationLon")))
	}
	return a, b
}

// pasteInto pastes text into the paste field as the clipboard does (a
// paste event carrying it).
func (x *e2eTab) pasteInto(sel, text string) {
	x.t.Helper()
	e2eEval[bool](x, `(() => { const dt = new DataTransfer(); dt.setData("text/plain", `+e2eJS(text)+`);
		const el = document.querySelector(`+e2eJS(sel)+`); el.focus();
		return el.dispatchEvent(new ClipboardEvent("paste", { clipboardData: dt, bubbles: true, cancelable: true })); })()`)
}

// TestE2EPlaceAResource places a Resource on its form's map: a click on
// the map, its marker dragged, coordinates pasted and typed (with the
// swapped warning for a reversed pair, and none for a good one), the
// zoom taken from the map, typing moving the marker; then Save stores
// what the controls show.
func TestE2EPlaceAResource(t *testing.T) {
	e := newEnv(t, envOptions{prefix: "/admin"})
	seedTrento(e, 20)
	e.put(cms.KindResource, `{"id":"castle","title":"Castle"}`)
	b := browsertest.New(t)
	x := e2eEditor(t, e, b, "admin")
	x.open("/resource/castle/edit", 200)
	if err := x.poll(`!document.querySelector(".place-side").hidden && !!document.querySelector("#place-map .leaflet-map-pane")`); err != nil {
		t.Fatalf("the location map is not shown: %v", err)
	}
	x.audit()
	if x.count(".place-marker") != 0 || x.value(e2eCtl("locationLat")) != "" {
		t.Fatal("a record without a location has a marker")
	}

	// A click on the map places it there: the map shows the account's
	// area, so the place is in it.
	cx, cy := x.centreOf("#place-map")
	x.mouse(chromedp.MouseClickXY(cx+30, cy+20))
	if err := x.poll(`document.getElementById("f-locationLat").value !== ""`); err != nil {
		t.Fatalf("a click on the map set no location: %v", err)
	}
	lat0, lon0 := x.location()
	if lat0 < 45 || lat0 > 47.2 || lon0 < 10 || lon0 > 12.2 {
		t.Errorf("the click placed it at %v, %v: not in the area shown", lat0, lon0)
	}
	if x.count(".place-marker") != 1 {
		t.Fatalf("%d markers after the click", x.count(".place-marker"))
	}

	// The marker dragged to the east and south.
	mx, my := x.centreOf(".place-marker")
	x.drag(mx, my, mx+120, my+60)
	if err := x.poll(fmt.Sprintf(`Number(document.getElementById("f-locationLon").value) > %v`, lon0)); err != nil {
		t.Fatalf("dragging the marker did not move the location east: %v, %v", x.value(e2eCtl("locationLat")), x.value(e2eCtl("locationLon")))
	}
	lat1, lon1 := x.location()
	if !(lat1 < lat0 && lon1 > lon0) {
		t.Errorf("dragged to the south-east: %v, %v -> %v, %v", lat0, lon0, lat1, lon1)
	}
	x.shotOf("placed", ".place", 20)

	// The zoom from the map.
	zoomWas := x.text("#place-zoom-now")
	x.tap("#place-map .leaflet-control-zoom-in")
	if err := x.poll(`document.getElementById("place-zoom-now").textContent !== ` + e2eJS(zoomWas)); err != nil {
		t.Fatalf("zooming in: %v (%q)", err, zoomWas)
	}
	x.tap("#place-zoom")
	zoomText := x.text("#place-zoom-now")
	if want := "The map is at zoom " + x.value(e2eCtl("locationZoom")) + "."; zoomText != want || x.value(e2eCtl("locationZoom")) == "" {
		t.Errorf("locationZoom %q while the page says %q", x.value(e2eCtl("locationZoom")), zoomText)
	}

	// Save: the form's own save, with If-Match; the stored location is
	// what the controls showed.
	wantZoom := x.value(e2eCtl("locationZoom"))
	x.saved(x.click(`.form-bar button[name="_action"][value="save"]`), "save")
	r := e.storedRecord(cms.KindResource, "castle").(*cms.Resource)
	if r.LocationLat.Value != lat1 || r.LocationLon.Value != lon1 || strconv.FormatInt(r.LocationZoom.Value, 10) != wantZoom {
		t.Errorf("stored %v, %v zoom %v; the form showed %v, %v zoom %s", r.LocationLat, r.LocationLon, r.LocationZoom, lat1, lon1, wantZoom)
	}
	if err := x.poll(`document.querySelectorAll(".place-marker").length === 1`); err != nil {
		t.Fatal("the saved location has no marker")
	}

	// Typing in a control moves the marker.
	_, before := x.offsetIn(".place-marker", "#place-map")
	x.fill(e2eCtl("locationLat"), strconv.FormatFloat(lat1+0.01, 'f', 6, 64))
	if _, after := x.offsetIn(".place-marker", "#place-map"); !(after < before-5) {
		t.Errorf("typing a latitude further north moved the marker from y %v to %v", before, after)
	}

	// Pasted coordinates, in the forms people paste them.
	for _, tc := range []struct{ text, lat, lon string }{
		{"46.0712, 11.1198", "46.0712", "11.1198"},
		{"46.07 11.12", "46.07", "11.12"},
		{"46,07; 11,12", "46.07", "11.12"},
		{"46.08°N, 11.13°E", "46.08", "11.13"},
		{"11.14 E 46.09 N", "46.09", "11.14"},
	} {
		x.pasteInto("#place-paste", tc.text)
		if lat, lon := x.value(e2eCtl("locationLat")), x.value(e2eCtl("locationLon")); lat != tc.lat || lon != tc.lon {
			t.Errorf("pasted %q: %s, %s, want %s, %s", tc.text, lat, lon, tc.lat, tc.lon)
		}
		if got := x.text("#place-swapped"); got != "" {
			t.Errorf("pasted %q: warned %q", tc.text, got)
		}
	}
	// Typed, then Enter: placed, and the form is not submitted.
	x.fill("#place-paste", "46.1, 11.15")
	x.pressEnter()
	if lat, lon := x.value(e2eCtl("locationLat")), x.value(e2eCtl("locationLon")); lat != "46.1" || lon != "11.15" {
		t.Errorf("typed and Enter: %s, %s", lat, lon)
	}
	// Not coordinates: said beside the field, the location unchanged.
	for _, bad := range []string{"the castle", "95, 11", "46.1, 11.15, 3"} {
		x.fill("#place-paste", bad)
		x.tap("#place-paste-go")
		if lat, lon := x.value(e2eCtl("locationLat")), x.value(e2eCtl("locationLon")); lat != "46.1" || lon != "11.15" {
			t.Errorf("%q changed the location to %s, %s", bad, lat, lon)
		}
		if got := x.text("#place-paste-error"); got == "" || x.attr("#place-paste", "aria-invalid") != "true" {
			t.Errorf("%q: no error shown (%q)", bad, got)
		}
	}

	// A swapped pair is warned about (not refused); Swap puts it right.
	x.pasteInto("#place-paste", "11.12, 46.07")
	if got := x.text("#place-paste-error"); got != "" {
		t.Errorf("a good paste still shows the error %q", got)
	}
	if got := x.text("#place-swapped"); !strings.Contains(got, "look swapped") {
		t.Errorf("no warning for a swapped pair: %q", got)
	}
	if lat, lon := x.value(e2eCtl("locationLat")), x.value(e2eCtl("locationLon")); lat != "11.12" || lon != "46.07" {
		t.Errorf("the swapped pair was not placed as given: %s, %s", lat, lon)
	}
	x.audit()
	x.shotOf("swapped", ".place", 20)
	x.tap("#place-swapped .place-swap")
	if lat, lon := x.value(e2eCtl("locationLat")), x.value(e2eCtl("locationLon")); lat != "46.07" || lon != "11.12" {
		t.Errorf("after Swap: %s, %s", lat, lon)
	}
	if got := x.text("#place-swapped"); got != "" {
		t.Errorf("after Swap the warning stays: %q", got)
	}
	// Typed swapped in the controls: the same warning.
	x.fill(e2eCtl("locationLat"), "11.12")
	x.fill(e2eCtl("locationLon"), "46.07")
	if got := x.text("#place-swapped"); !strings.Contains(got, "look swapped") {
		t.Errorf("no warning for a swapped pair typed: %q", got)
	}
	x.saved(x.click(`.form-bar button[name="_action"][value="save"]`), "save swapped")
	r = e.storedRecord(cms.KindResource, "castle").(*cms.Resource)
	if r.LocationLat.Value != 11.12 || r.LocationLon.Value != 46.07 {
		t.Errorf("a warned pair is saved as given: stored %v, %v", r.LocationLat, r.LocationLon)
	}
	if got := x.text("#place-swapped"); !strings.Contains(got, "look swapped") {
		t.Errorf("the saved swapped pair is not warned about on opening: %q", got)
	}
	x.audit()
}

// gpxFlat is a walk east without elevations: n+1 points 0.001° of
// longitude apart at 45°N.
func gpxFlat(n int) []byte {
	var b strings.Builder
	b.WriteString(`<?xml version="1.0" encoding="UTF-8"?><gpx version="1.1" creator="bwcms tests" xmlns="http://www.topografix.com/GPX/1/1"><trk><trkseg>`)
	for i := 0; i <= n; i++ {
		fmt.Fprintf(&b, `<trkpt lat="45.000000" lon="%.6f"></trkpt>`, 7+float64(i)*0.001)
	}
	b.WriteString("</trkseg></trk></gpx>\n")
	return []byte(b.String())
}

// TestE2ETrackOnTheForm: a TRACK Resource with a measured GPX shows its
// line fitted on a map, start and end, and the elevation profile with
// its distance, ascent and descent; one without elevations says so
// instead of a profile; a GPX uploaded on a new Resource's form is drawn
// at once.
func TestE2ETrackOnTheForm(t *testing.T) {
	e := newEnv(t, envOptions{prefix: "/admin"})
	north := e.uploadFile("north.gpx", gpxNorth(100))
	flat := e.uploadFile("flat.gpx", gpxFlat(40))
	e.put(cms.KindResource,
		`{"id":"walk","title":"North walk","resourceType":"TRACK","trackFile":"`+e.fileURL(north)+`"}`,
		`{"id":"flat","title":"Flat walk","resourceType":"TRACK","trackFile":"`+e.fileURL(flat)+`"}`)
	paths := e2eFiles(t, map[string][]byte{"short.gpx": gpxNorth(50)})
	b := browsertest.New(t)
	x := e2eEditor(t, e, b, "admin")

	x.open("/resource/walk/edit", 200)
	if err := x.poll(`!document.getElementById("track-profile").hidden && !!document.querySelector("#track-profile svg")`); err != nil {
		t.Fatalf("no profile drawn: %v; the panel says %q", err, x.text("#track-panel"))
	}
	if n := x.count("#track-map path.track-line"); n != 1 {
		t.Errorf("%d track lines on the map", n)
	}
	if x.text("#track-map .track-start") != "Start" || x.text("#track-map .track-end") != "End" {
		t.Errorf("start and end markers: %q, %q", x.text("#track-map .track-start"), x.text("#track-map .track-end"))
	}
	// The walk goes north: its end is above its start, both in view.
	x.centreOf("#track-map")
	_, sy := x.offsetIn("#track-map .track-start span", "#track-map")
	_, ey := x.offsetIn("#track-map .track-end span", "#track-map")
	height := e2eEval[float64](x, `document.getElementById("track-map").getBoundingClientRect().height`)
	if !(ey < sy) || sy > height || ey < 0 {
		t.Errorf("start at y %v, end at y %v, in a map %v high", sy, ey, height)
	}
	got := figures2(x, "#track-figures")
	for k, v := range map[string]string{"Distance": "11.1 km", "Ascent": "500 m", "Descent": "0 m"} {
		if got[k] != v {
			t.Errorf("%s is %q, want %q", k, got[k], v)
		}
	}
	if c := x.text("#track-profile-caption"); c != "Elevation profile: 200 m to 700 m above sea level, over 11.1 km" {
		t.Errorf("profile caption %q", c)
	}
	if s := x.text("#track-profile svg title"); !strings.Contains(s, "ascent 500 m, descent 0 m") {
		t.Errorf("profile's title %q", s)
	}
	if s := x.text("#track-profile svg"); !strings.Contains(s, "700 m") || !strings.Contains(s, "11.1 km") {
		t.Errorf("profile's labels %q", s)
	}
	x.audit()
	x.shotOf("track", "#track-panel", 20)

	x.open("/resource/flat/edit", 200)
	if err := x.poll(`document.querySelectorAll("#track-map path.track-line").length === 1`); err != nil {
		t.Fatalf("the flat track is not drawn: %v; the panel says %q", err, x.text("#track-panel"))
	}
	if s := x.text("#track-status"); s != "This track has no elevations, so it has no profile." {
		t.Errorf("without elevations the panel says %q", s)
	}
	if !e2eEval[bool](x, `document.getElementById("track-profile").hidden`) || x.count("#track-profile svg") != 0 {
		t.Error("a profile for a track without elevations")
	}
	if got := figures2(x, "#track-figures"); got["Ascent"] != "—" || got["Distance"] != "3.1 km" {
		t.Errorf("flat figures %v", got)
	}
	x.audit()

	// A new Resource: TRACK chosen, a GPX uploaded through trackFile's
	// control, drawn without a save.
	x.open("/resource/new", 200)
	if !e2eEval[bool](x, `document.getElementById("track-panel").hidden`) {
		t.Error("a new Resource's track panel shows before the type is TRACK")
	}
	e2eEval[bool](x, `(() => { const s = document.getElementById("f-resourceType"); s.value = "TRACK";
		return s.dispatchEvent(new Event("change", { bubbles: true })); })()`)
	if err := x.poll(`!document.getElementById("track-panel").hidden`); err != nil {
		t.Fatal("choosing TRACK does not show the track panel")
	}
	x.setFiles("#f-trackFile-upload", paths["short.gpx"])
	if err := x.poll(`!!document.querySelector("#track-profile svg")`); err != nil {
		t.Fatalf("the uploaded track is not drawn: %v; the panel says %q", err, x.text("#track-panel"))
	}
	got = figures2(x, "#track-figures")
	for k, v := range map[string]string{"Distance": "5.6 km", "Ascent": "250 m", "Descent": "0 m"} {
		if got[k] != v {
			t.Errorf("uploaded: %s is %q, want %q", k, got[k], v)
		}
	}
	// Another url: not one of the admin's files.
	x.fill(e2eCtl("trackFile"), "https://elsewhere.example/walk.gpx")
	e2eEval[bool](x, `document.getElementById("f-trackFile").dispatchEvent(new Event("change", { bubbles: true }))`)
	if err := x.poll(`document.getElementById("track-status").textContent.includes("not one uploaded here")`); err != nil {
		t.Errorf("a foreign url: the panel says %q", x.text("#track-panel"))
	}
	if x.count("#track-profile svg") != 0 || !e2eEval[bool](x, `document.getElementById("track-map").hidden`) {
		t.Error("a foreign url still shows the previous track")
	}
	x.audit()
}

// figures2 reads the <dt>/<dd> pairs inside sel in the page.
func figures2(x *e2eTab, sel string) map[string]string {
	x.t.Helper()
	return e2eEval[map[string]string](x, `(() => { const out = {};
		for (const dt of document.querySelectorAll(`+e2eJS(sel+" dt")+`)) out[dt.textContent.trim()] = dt.nextElementSibling.textContent.trim();
		return out; })()`)
}
