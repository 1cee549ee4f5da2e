package admin

import (
	"encoding/json"
	"net/http"
	"net/url"
	"strconv"
	"strings"
	"testing"

	"github.com/bwcms/cms/cms"
)

// mapEditorEnv has located Resources in acme and in other, a Map listing
// some of acme's, and a TRACK Resource.
func mapEditorEnv(t *testing.T) *env {
	t.Helper()
	e := newEnv(t, envOptions{prefix: "/admin"})
	e.put(cms.KindResource,
		`{"id":"r-1","title":"One","locationLat":45.01,"locationLon":7.61}`,
		`{"id":"r-2","title":"Two","title_it":"Due","locationLat":45.02,"locationLon":7.62,"published":false}`,
		`{"id":"r-3","title_it":"Solo italiano","locationLat":45.03,"locationLon":7.63}`,
		`{"id":"r-far","title":"Far","locationLat":10,"locationLon":10}`,
		`{"id":"r-nowhere","title":"Nowhere"}`,
		`{"id":"t-1","title":"A track","resourceType":"TRACK"}`,
	)
	e.put(cms.KindMap, `{"id":"m-1","title":"Map","resourceIds":["r-2","r-1"],"secondaryResourceIds":["r-nowhere"]}`)
	other := cms.WithPrincipal(t.Context(), cms.Principal{Account: "other", User: "otto", Perms: []string{"*"}, Langs: cms.Languages{Default: "de", All: []string{"de"}}})
	if _, err := e.svc.Upsert(other, cms.KindResource, []byte(`{"id":"o-1","title":"Anderes","locationLat":45.015,"locationLon":7.615}`), nil); err != nil {
		t.Fatal(err)
	}
	return e
}

type placesBody struct {
	Places []place `json:"places"`
	More   bool    `json:"more"`
	Fail   string  `json:"fail"`
}

func (e *env) places(user, query string, want int) placesBody {
	e.t.Helper()
	c := e.signIn(user)
	req, err := http.NewRequest(http.MethodGet, e.url("/mapeditor/places?"+query), nil)
	if err != nil {
		e.t.Fatal(err)
	}
	req.Header.Set("Accept", "application/json")
	res := e.do(c, req)
	if res.StatusCode != want {
		e.t.Fatalf("places?%s as %s: status %d, want %d", query, user, res.StatusCode, want)
	}
	if ct := res.Header.Get("Content-Type"); ct != "application/json" {
		e.t.Fatalf("places?%s: Content-Type %q", query, ct)
	}
	var b placesBody
	if err := json.NewDecoder(res.Body).Decode(&b); err != nil {
		e.t.Fatal(err)
	}
	return b
}

func placeIDsOf(b placesBody) string {
	var ids []string
	for _, p := range b.Places {
		ids = append(ids, p.ID)
	}
	return strings.Join(ids, ",")
}

// TestMapPlacesByIDs answers the places of ids in the order asked, with
// the title in the default language or another, null coordinates for a
// Resource without a location, and nothing for an id of another account.
func TestMapPlacesByIDs(t *testing.T) {
	t.Parallel()
	e := mapEditorEnv(t)
	b := e.places("editor", "ids=r-3,r-2,o-1,r-nowhere,nope", http.StatusOK)
	if got := placeIDsOf(b); got != "r-3,r-2,r-nowhere" {
		t.Fatalf("places %s, want r-3,r-2,r-nowhere (o-1 is other's)", got)
	}
	p := b.Places[0]
	if p.Title != "Solo italiano" || p.TitleLang != "it" || p.Lat == nil || *p.Lat != 45.03 || *p.Lon != 7.63 || p.Edit != "/admin/resource/r-3/edit" {
		t.Errorf("r-3: %+v", p)
	}
	if b.Places[1].Title != "Two" || b.Places[1].TitleLang != "en" {
		t.Errorf("r-2 (unpublished): %+v", b.Places[1])
	}
	if b.Places[2].Lat != nil || b.Places[2].Lon != nil {
		t.Errorf("r-nowhere has a location: %+v", b.Places[2])
	}
	// Another account's user sees its own o-1 and none of acme's.
	if got := placeIDsOf(e.places("otto", "ids=r-1,o-1", http.StatusOK)); got != "o-1" {
		t.Errorf("otto's places %s, want o-1", got)
	}
}

// TestMapPlacesByBox answers the account's located Resources inside a
// box, bounded, saying when there are more.
func TestMapPlacesByBox(t *testing.T) {
	t.Parallel()
	e := mapEditorEnv(t)
	b := e.places("reader", "bbox=7.6,45,7.625,45.025", http.StatusOK)
	if got := placeIDsOf(b); got != "r-1,r-2" || b.More {
		t.Errorf("box: %s more=%v, want r-1,r-2 (not other's o-1)", got, b.More)
	}
	// Across the 180° meridian: west > east.
	if got := placeIDsOf(e.places("reader", "bbox=170,-90,11,90", http.StatusOK)); got != "r-1,r-2,r-3,r-far" {
		t.Errorf("box across the meridian: %s", got)
	}
	if got := placeIDsOf(e.places("otto", "bbox=-180,-90,180,90", http.StatusOK)); got != "o-1" {
		t.Errorf("otto's box: %s", got)
	}
}

// TestMapPlacesBound stops a box at maxNearPlaces and says there are
// more.
func TestMapPlacesBound(t *testing.T) {
	t.Parallel()
	e := newEnv(t, envOptions{prefix: "/admin"})
	var items []string
	for i := range maxNearPlaces + 5 {
		items = append(items, `{"id":"n-`+strconv.Itoa(1000+i)+`","title":"N","locationLat":1,"locationLon":`+strconv.FormatFloat(float64(i)/1000, 'f', 3, 64)+`}`)
	}
	e.put(cms.KindResource, items...)
	b := e.places("admin", "bbox=-1,-1,2,2", http.StatusOK)
	if len(b.Places) != maxNearPlaces || !b.More {
		t.Errorf("%d places, more=%v; want %d and more", len(b.Places), b.More, maxNearPlaces)
	}
	if b := e.places("admin", "bbox=0.2,-1,2,2", http.StatusOK); len(b.Places) != 105 || b.More {
		t.Errorf("a smaller box: %d places, more=%v; want 105", len(b.Places), b.More)
	}
}

// TestMapPlacesRefused: bad queries are 400 with a reason, a user without
// Resource read 403, no session 401; none of them names internals.
func TestMapPlacesRefused(t *testing.T) {
	t.Parallel()
	e := mapEditorEnv(t)
	e.addUser("mapsonly", "map:*")
	many := make([]string, maxPlaceIDs+1)
	for i := range many {
		many[i] = "id-" + strconv.Itoa(i)
	}
	for _, q := range []string{"", "ids=", "ids=a,,b", "ids=" + strings.Join(many, ","), "ids=ok1&bbox=1,1,2,2",
		"bbox=1,2,3", "bbox=1,2,3,4,5", "bbox=a,b,c,d", "bbox=1e1,0,2,2", "bbox=0,50,1,40", "bbox=-181,0,1,1", "bbox=0,-91,1,1",
		"bbox=NaN,0,1,1", "bbox=+1,0,2,2", "bbox=01,0,2,2"} {
		b := e.places("admin", q, http.StatusBadRequest)
		if b.Fail == "" || len(b.Places) != 0 {
			t.Errorf("%q: %+v", q, b)
		}
	}
	if b := e.places("mapsonly", "ids=r-1", http.StatusForbidden); !strings.Contains(b.Fail, "permissions") {
		t.Errorf("map-only user: %+v", b)
	}
	req, _ := http.NewRequest(http.MethodGet, e.url("/mapeditor/places?ids=r-1"), nil)
	req.Header.Set("Accept", "application/json")
	if res := e.do(e.browser(), req); res.StatusCode != http.StatusUnauthorized {
		t.Errorf("no session: status %d", res.StatusCode)
	}
}

// TestMapTrackRefused: a Resource without a measured track, another
// account's and a missing one are 404, as JSON.
func TestMapTrackRefused(t *testing.T) {
	t.Parallel()
	e := mapEditorEnv(t)
	c := e.signIn("editor")
	for _, id := range []string{"t-1", "r-1", "o-1", "nope"} {
		req, _ := http.NewRequest(http.MethodGet, e.url("/mapeditor/track/"+id), nil)
		res := e.do(c, req)
		var b struct{ Fail string }
		_ = json.NewDecoder(res.Body).Decode(&b)
		if res.StatusCode != http.StatusNotFound || b.Fail == "" {
			t.Errorf("track of %s: status %d %+v", id, res.StatusCode, b)
		}
	}
}

// TestMapTrackLine serves the measured line of a TRACK Resource's file.
func TestMapTrackLine(t *testing.T) {
	t.Parallel()
	e := mapEditorEnv(t)
	f := e.uploadFile("walk.gpx", []byte(`<?xml version="1.0"?><gpx version="1.1" creator="t" xmlns="http://www.topografix.com/GPX/1/1"><trk><trkseg>
<trkpt lat="45.0" lon="7.6"><ele>300</ele></trkpt><trkpt lat="45.01" lon="7.61"><ele>350</ele></trkpt><trkpt lat="45.02" lon="7.63"><ele>320</ele></trkpt>
</trkseg></trk></gpx>`))
	e.put(cms.KindResource, `{"id":"t-2","title":"Walk","resourceType":"TRACK","trackFile":"`+e.fileURL(f)+`"}`)
	c := e.signIn("editor")
	res := e.get(c, "/mapeditor/track/t-2")
	if res.StatusCode != http.StatusOK {
		t.Fatalf("status %d", res.StatusCode)
	}
	var gj struct {
		Type     string `json:"type"`
		Geometry struct {
			Type        string      `json:"type"`
			Coordinates [][]float64 `json:"coordinates"`
		} `json:"geometry"`
	}
	if err := json.NewDecoder(res.Body).Decode(&gj); err != nil {
		t.Fatal(err)
	}
	if gj.Type != "Feature" || gj.Geometry.Type != "LineString" || len(gj.Geometry.Coordinates) < 2 || gj.Geometry.Coordinates[0][1] != 45 {
		t.Errorf("GeoJSON %+v", gj)
	}
	// A Resource naming another account's track file gets no line.
	other := cms.WithPrincipal(t.Context(), cms.Principal{Account: "other", User: "otto", Perms: []string{"*"}})
	of, _, err := e.svc.UploadFile(other, cms.Upload{Name: "theirs.gpx", Body: strings.NewReader(`<?xml version="1.0"?><gpx version="1.1" creator="t" xmlns="http://www.topografix.com/GPX/1/1"><trk><trkseg>
<trkpt lat="46.0" lon="8.6"></trkpt><trkpt lat="46.01" lon="8.61"></trkpt></trkseg></trk></gpx>`)})
	if err != nil {
		t.Fatal(err)
	}
	e.put(cms.KindResource, `{"id":"t-3","title":"Theirs","resourceType":"TRACK","trackFile":"`+e.fileURL(of)+`"}`)
	if res := e.get(c, "/mapeditor/track/t-3"); res.StatusCode != http.StatusNotFound {
		t.Errorf("another account's track: status %d, want 404", res.StatusCode)
	}
	// The places say it has a track.
	if b := e.places("editor", "ids=t-2,t-1", http.StatusOK); len(b.Places) != 2 || !b.Places[0].Track || b.Places[1].Track {
		t.Errorf("track flags: %+v", b.Places)
	}
}

// TestMapFormCarriesPlaces: a Map's form carries the locations of the
// Resources it lists (null for an id without a Resource) and the TRACK
// Resources; a Resource's form carries no map editor.
func TestMapFormCarriesPlaces(t *testing.T) {
	t.Parallel()
	e := mapEditorEnv(t)
	e.put(cms.KindMap, `{"id":"m-2","title":"Map","resourceIds":["r-1"],"tourMultiday":[{"dayLabels":["D1"],"resourceIds":["r-3"]}]}`)
	c := e.signIn("editor")
	// An id typed into the list that names no Resource: the form shows it.
	doc := e.open(c, "/map/m-2/edit")
	doc = e.page(e.press(c, doc, "/map/m-2/edit", "addid:resourceIds", func(v url.Values) { v.Add("resourceIds", "gone-1") }), http.StatusOK)
	sec := doc.Find("section#mapeditor")
	if sec.Length() != 1 || sec.AttrOr("data-places-url", "") != "/admin/mapeditor/places" || sec.AttrOr("data-track-url", "") != "/admin/mapeditor/track/" {
		t.Fatalf("map editor section: %d", sec.Length())
	}
	var data struct {
		Places map[string]*place `json:"places"`
		Tracks []trackChoice     `json:"tracks"`
	}
	if err := json.Unmarshal([]byte(sec.AttrOr("data-initial", "")), &data); err != nil {
		t.Fatal(err)
	}
	if p := data.Places["r-1"]; p == nil || p.Lat == nil || *p.Lat != 45.01 || p.Title != "One" {
		t.Errorf("r-1: %+v", p)
	}
	if p, ok := data.Places["gone-1"]; !ok || p != nil {
		t.Errorf("gone-1: %v %+v", ok, p)
	}
	if p := data.Places["r-3"]; p == nil || p.TitleLang != "it" {
		t.Errorf("the day's r-3: %+v", p)
	}
	if len(data.Tracks) != 1 || data.Tracks[0].ID != "t-1" || data.Tracks[0].Title != "A track" {
		t.Errorf("tracks %+v", data.Tracks)
	}
	if doc.Find(`script[src*="mapeditor"]`).Length() != 1 || doc.Find(`link[href*="leaflet"]`).Length() != 1 {
		t.Error("a Map's form loads no map editor")
	}
	doc = e.open(c, "/resource/r-1/edit")
	if doc.Find("#mapeditor").Length() != 0 || doc.Find(`script[src*="mapeditor"]`).Length() != 0 {
		t.Error("a Resource's form has the map editor")
	}
	// A user who may read Maps but not Resources gets the form without the map.
	e.addUser("mapsonly", "map:*")
	doc = e.open(e.signIn("mapsonly"), "/map/m-2/edit")
	if doc.Find("#record-form").Length() != 1 || doc.Find("#mapeditor").Length() != 0 {
		t.Error("a user without Resource read: the map editor is shown")
	}
}
