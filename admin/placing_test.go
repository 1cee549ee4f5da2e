package admin

import (
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"net/url"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/PuerkitoBio/goquery"

	"github.com/bwcms/cms/cms"
)

// seedTrento stores n located Resources of acme around Trento (46.07 N,
// 11.12 E), within about 0.1° of it.
func seedTrento(e *env, n int) {
	e.t.Helper()
	for i := range n {
		lat := 46.02 + float64(i%10)*0.01
		lon := 11.07 + float64(i/10%10)*0.01
		e.put(cms.KindResource, fmt.Sprintf(`{"id":"trento-%03d","title":"Place %d","locationLat":%g,"locationLon":%g}`, i, i, lat, lon))
	}
}

// areaOf reads the data-area of a .place: south, west, north, east.
func areaOf(t *testing.T, place *goquery.Selection) [4]float64 {
	t.Helper()
	raw, ok := place.Attr("data-area")
	if !ok {
		t.Fatal("the location map has no data-area")
	}
	var out [4]float64
	parts := strings.Split(raw, ",")
	if len(parts) != 4 {
		t.Fatalf("data-area %q is not south,west,north,east", raw)
	}
	for i, p := range parts {
		v, err := strconv.ParseFloat(p, 64)
		if err != nil {
			t.Fatalf("data-area %q: %v", raw, err)
		}
		out[i] = v
	}
	return out
}

func inBox(a [4]float64, lat, lon float64) bool {
	return lat >= a[0] && lat <= a[2] && lon >= a[1] && lon <= a[3]
}

// TestResourceFormHasTheLocationMap: the location controls sit in the
// map's row, which names them and carries the account's area made of the
// other located Resources (not the record itself, not another
// account's); the page loads the map's assets.
func TestResourceFormHasTheLocationMap(t *testing.T) {
	t.Parallel()
	e := newEnv(t, envOptions{prefix: "/admin"})
	seedTrento(e, 12)
	e.put(cms.KindResource, `{"id":"far","title":"Far away","locationLat":-33.9,"locationLon":151.2,"locationZoom":9}`)
	if _, err := e.svc.Upsert(e.listAs("otto"), cms.KindResource, []byte(`{"id":"berlin","title":"Berlin","locationLat":52.5,"locationLon":13.4}`), nil); err != nil {
		t.Fatal(err)
	}
	c := e.signIn("admin")
	doc := e.open(c, "/resource/far/edit")

	place := doc.Find("#record-form .fields > .place")
	if place.Length() != 1 {
		t.Fatalf("%d location map rows, want 1", place.Length())
	}
	for attr, want := range map[string]string{"data-lat": "f-locationLat", "data-lon": "f-locationLon", "data-zoom": "f-locationZoom", "data-area-count": "12"} {
		if got, _ := place.Attr(attr); got != want {
			t.Errorf("%s = %q, want %q", attr, got, want)
		}
	}
	if _, ok := place.Attr("data-editable"); !ok {
		t.Error("an admin's location map is not editable")
	}
	for name, want := range map[string]string{"locationLat": "-33.9", "locationLon": "151.2", "locationZoom": "9"} {
		in := place.Find(`.place-fields input[name="` + name + `"]`)
		if in.Length() != 1 {
			t.Errorf("%s is not beside the map", name)
			continue
		}
		if v, _ := in.Attr("value"); v != want {
			t.Errorf("%s holds %q, want %q", name, v, want)
		}
	}
	if n := doc.Find(`input[name="locationLat"]`).Length(); n != 1 {
		t.Errorf("%d locationLat controls on the page", n)
	}
	a := areaOf(t, place)
	if !inBox(a, 46.07, 11.12) || inBox(a, 11.12, 46.07) {
		t.Errorf("area %v: Trento should be in it, the pair swapped not", a)
	}
	if inBox(a, -33.9, 151.2) || inBox(a, 52.5, 13.4) {
		t.Errorf("area %v holds the record itself or another account's Resource", a)
	}
	if l, _ := place.Find("#place-map").Attr("aria-label"); l != "Location map" {
		t.Errorf("the map region is labelled %q", l)
	}
	if doc.Find("#place-paste").Length() != 1 || doc.Find(`label[for="place-paste"]`).Length() != 1 || doc.Find("#place-zoom").Length() != 1 {
		t.Error("no labelled paste field or Use this zoom button")
	}
	if _, hidden := place.Find(".place-side").Attr("hidden"); !hidden {
		t.Error("the map shows before its script runs")
	}
	head, _ := doc.Find("head").Html()
	for _, want := range []string{"leaflet@1.9.4/leaflet.", "css/placing."} {
		if !strings.Contains(head, want) {
			t.Errorf("the head loads no %s", want)
		}
	}
	for _, want := range []string{"js/locationmap.", "js/trackmap."} {
		if doc.Find(`script[src*="`+want+`"]`).Length() != 1 {
			t.Errorf("the page loads no %s", want)
		}
	}

	// A reader's map is not editable and has no tools; a new record's
	// area is made of all the located ones.
	doc = e.open(e.signIn("reader"), "/resource/far/edit")
	if _, ok := doc.Find(".place").Attr("data-editable"); ok || doc.Find("#place-paste").Length() != 0 {
		t.Error("a reader's location map is editable")
	}
	doc = e.open(c, "/resource/new")
	if got, _ := doc.Find(".place").Attr("data-area-count"); got != "13" {
		t.Errorf("a new record's area is made of %s Resources, want 13", got)
	}
	// Other kinds have no location map of this file.
	if n := e.open(c, "/map/new").Find(".place").Length(); n != 0 {
		t.Errorf("a Map's form has %d Resource location maps", n)
	}
}

// TestAreaWithoutOtherPlaces: an account whose only located Resource is
// the one shown has no area, so no swapped warning can be given.
func TestAreaWithoutOtherPlaces(t *testing.T) {
	t.Parallel()
	e := newEnv(t, envOptions{prefix: "/admin"})
	e.put(cms.KindResource, `{"id":"only","title":"Only","locationLat":46.07,"locationLon":11.12}`, `{"id":"nowhere","title":"Nowhere"}`)
	doc := e.open(e.signIn("admin"), "/resource/only/edit")
	if _, ok := doc.Find(".place").Attr("data-area"); ok {
		t.Error("an area made of no other Resource")
	}
}

// TestAreaIgnoresAFewMisplaced: one Resource far from the others (or
// entered swapped) does not stretch the area; a single other place gets
// an area of a degree round it.
func TestAreaIgnoresAFewMisplaced(t *testing.T) {
	t.Parallel()
	e := newEnv(t, envOptions{prefix: "/admin"})
	seedTrento(e, 60)
	e.put(cms.KindResource, `{"id":"swapped","title":"Swapped","locationLat":11.12,"locationLon":46.07}`)
	start := time.Now()
	doc := e.open(e.signIn("admin"), "/resource/new")
	t.Logf("form with the area of 61 Resources: %v", time.Since(start))
	a := areaOf(t, doc.Find(".place"))
	if !inBox(a, 46.07, 11.12) || inBox(a, 11.12, 46.07) {
		t.Errorf("area %v stretched by one misplaced Resource", a)
	}
	if lo, hi := spread([]float64{46.07}); lo != 45.07 || hi != 47.07 {
		t.Errorf("the area of one place is %v..%v, want a degree round it", lo, hi)
	}
}

// TestTrackPanel: a TRACK Resource whose trackFile is a measured file
// shows the panel with its figures and the admin's address of its line;
// the line is served to the account's users only; a file without a
// line, a foreign url and no file at all say so; a Resource of another
// type without a file has the panel hidden.
func TestTrackPanel(t *testing.T) {
	t.Parallel()
	e := newEnv(t, envOptions{prefix: "/admin"})
	north := e.uploadFile("north.gpx", gpxNorth(100))
	layer := e.uploadFile("points.kml", []byte(`<?xml version="1.0"?><kml xmlns="http://www.opengis.net/kml/2.2"><Document><Placemark><Point><coordinates>7.68,45.07</coordinates></Point></Placemark></Document></kml>`))
	e.put(cms.KindResource,
		`{"id":"walk","title":"Walk","resourceType":"TRACK","trackFile":"`+e.fileURL(north)+`"}`,
		`{"id":"foreign","title":"Foreign","resourceType":"TRACK","trackFile":"https://elsewhere.example/x/walk.gpx"}`,
		`{"id":"empty","title":"Empty","resourceType":"TRACK"}`,
		`{"id":"poi","title":"POI","resourceType":"POI"}`)
	c := e.signIn("admin")
	geoPath := "/file/" + north.ID + "/track.geojson"
	geo := "/admin" + geoPath

	doc := e.open(c, "/resource/walk/edit")
	panel := doc.Find("#track-panel")
	if panel.Length() != 1 || panel.Prev().Find(`input[name="trackFile"]`).Length() != 1 {
		t.Fatal("no track panel right after trackFile")
	}
	for attr, want := range map[string]string{"data-state": "measured", "data-geojson": geo, "data-type-control": "f-resourceType", "data-file-control": "f-trackFile"} {
		if got, _ := panel.Attr(attr); got != want {
			t.Errorf("%s = %q, want %q", attr, got, want)
		}
	}
	if _, ok := panel.Attr("data-elevation"); !ok {
		t.Error("the track's elevations are not marked")
	}
	if _, hidden := panel.Attr("hidden"); hidden {
		t.Error("the panel of a TRACK is hidden")
	}
	wantFigures(t, "the track panel", figures(panel), map[string]string{"Distance": "11.1 km", "Ascent": "500 m", "Descent": "0 m"})
	if l, _ := panel.Find("#track-map").Attr("aria-label"); l != "Map of the track" {
		t.Errorf("the track map is labelled %q", l)
	}

	// The line, as the scripts read it.
	res := e.get(c, geoPath)
	if res.StatusCode != http.StatusOK || res.Header.Get("Content-Type") != cms.GeoJSONType {
		t.Fatalf("GET %s: %d %s", geoPath, res.StatusCode, res.Header.Get("Content-Type"))
	}
	var feature struct {
		Geometry struct {
			Type        string      `json:"type"`
			Coordinates [][]float64 `json:"coordinates"`
		} `json:"geometry"`
		Properties struct {
			Distance     float64 `json:"distance"`
			HasElevation bool    `json:"hasElevation"`
		} `json:"properties"`
	}
	body, _ := io.ReadAll(res.Body)
	if err := json.Unmarshal(body, &feature); err != nil {
		t.Fatal(err)
	}
	if feature.Geometry.Type != "LineString" || len(feature.Geometry.Coordinates) < 2 || len(feature.Geometry.Coordinates[0]) != 3 || !feature.Properties.HasElevation {
		t.Errorf("the line is %s of %d positions: %.200s", feature.Geometry.Type, len(feature.Geometry.Coordinates), body)
	}
	// Another account's user, a file without a track, and no session.
	if res := e.get(e.signIn("otto"), geoPath); res.StatusCode != http.StatusNotFound {
		t.Errorf("another account's user reads the line: %d", res.StatusCode)
	}
	if res := e.get(c, "/file/"+layer.ID+"/track.geojson"); res.StatusCode != http.StatusNotFound {
		t.Errorf("a file without a track: %d", res.StatusCode)
	}
	if res := e.get(e.browser(), geoPath); res.StatusCode != http.StatusSeeOther {
		t.Errorf("without a session: %d", res.StatusCode)
	}

	for _, tc := range []struct {
		id, state, say string
		hidden         bool
	}{
		{"foreign", "foreign", "not one uploaded here", false},
		{"empty", "none", "No track file yet", false},
		{"poi", "none", "No track file yet", true},
	} {
		panel := e.open(c, "/resource/"+tc.id+"/edit").Find("#track-panel")
		if got, _ := panel.Attr("data-state"); got != tc.state {
			t.Errorf("%s: state %q, want %q", tc.id, got, tc.state)
		}
		if got := text(panel.Find("#track-status")); !strings.Contains(got, tc.say) {
			t.Errorf("%s: the panel says %q, want %q", tc.id, got, tc.say)
		}
		if _, ok := panel.Attr("data-geojson"); ok {
			t.Errorf("%s: a line to read", tc.id)
		}
		if _, hidden := panel.Attr("hidden"); hidden != tc.hidden {
			t.Errorf("%s: hidden %v, want %v", tc.id, hidden, tc.hidden)
		}
	}

	// A file without a line, which a save refuses: the form shown again
	// says why there is nothing to draw.
	doc = e.open(c, "/resource/empty/edit")
	res = e.press(c, doc, "/resource/empty/edit", "save", func(v url.Values) { v.Set("trackFile", e.fileURL(layer)) })
	panel = e.page(res, http.StatusConflict).Find("#track-panel")
	if st, _ := panel.Attr("data-state"); st != "notrack" || !strings.Contains(text(panel), "This file holds no line to measure") {
		t.Errorf("a file without a line: state %q, the panel says %q", st, text(panel))
	}

	// A user who may not read files gets the address; the script reads it.
	panel = e.open(e.signIn("editor"), "/resource/walk/edit").Find("#track-panel")
	if st, _ := panel.Attr("data-state"); st != "unknown" {
		t.Errorf("editor: state %q, want unknown", st)
	}
	if got, _ := panel.Attr("data-geojson"); got != geo {
		t.Errorf("editor: data-geojson %q", got)
	}
	if res := e.get(e.signIn("editor"), geoPath); res.StatusCode != http.StatusOK {
		t.Errorf("editor reads the line: %d", res.StatusCode)
	}
}
