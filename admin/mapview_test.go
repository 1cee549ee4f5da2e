package admin

import (
	"compress/gzip"
	"encoding/json"
	"io"
	"net/http"
	"slices"
	"strings"
	"testing"

	"github.com/bwcms/cms/cms"
	"github.com/bwcms/cms/internal/testenv"
)

// pointsAnswer is the points body read back.
type pointsAnswer struct {
	Points     [][]any  `json:"points"`
	Types      []string `json:"types"`
	Categories []string `json:"categories"`
}

// point is a row of pointsAnswer made readable.
type point struct {
	ID, Title, Type, Category, Lang string
	Published                       bool
	Lat, Lon                        float64
}

func (a pointsAnswer) rows(t *testing.T) []point {
	t.Helper()
	var out []point
	for _, r := range a.Points {
		if len(r) < 7 || len(r) > 8 {
			t.Fatalf("point %v: %d columns", r, len(r))
		}
		p := point{ID: r[0].(string), Title: r[1].(string), Published: r[4].(float64) == 1, Lat: r[5].(float64), Lon: r[6].(float64)}
		if i := int(r[2].(float64)); i >= 0 {
			p.Type = a.Types[i]
		}
		if i := int(r[3].(float64)); i >= 0 {
			p.Category = a.Categories[i]
		}
		if len(r) == 8 {
			p.Lang = r[7].(string)
		}
		out = append(out, p)
	}
	return out
}

// getPoints asks the points of query with headers; the answer and its
// body (unzipped when gzipped).
func (e *env) getPoints(c *http.Client, query string, header http.Header) (*http.Response, []byte) {
	e.t.Helper()
	req, err := http.NewRequest(http.MethodGet, e.url("/resource/points"+query), nil)
	if err != nil {
		e.t.Fatal(err)
	}
	for k, v := range header {
		req.Header[k] = v
	}
	// The client's own gzip handling is off when the request names an
	// encoding: the test sees the bytes sent.
	if req.Header.Get("Accept-Encoding") == "" {
		req.Header.Set("Accept-Encoding", "identity")
	}
	res := e.do(c, req)
	var r io.Reader = res.Body
	if res.Header.Get("Content-Encoding") == "gzip" {
		zr, err := gzip.NewReader(res.Body)
		if err != nil {
			e.t.Fatal(err)
		}
		r = zr
	}
	body, err := io.ReadAll(r)
	if err != nil {
		e.t.Fatal(err)
	}
	return res, body
}

func (e *env) pointsOf(c *http.Client, query string) []point {
	e.t.Helper()
	res, body := e.getPoints(c, query, nil)
	if res.StatusCode != http.StatusOK {
		e.t.Fatalf("points%s: status %d: %s", query, res.StatusCode, body)
	}
	var a pointsAnswer
	if err := json.Unmarshal(body, &a); err != nil {
		e.t.Fatalf("points%s: %v: %s", query, err, body)
	}
	return a.rows(e.t.(*testing.T))
}

func idsOfPoints(ps []point) []string {
	ids := make([]string, len(ps))
	for i, p := range ps {
		ids[i] = p.ID
	}
	return ids
}

// mapFixtures stores acme's Resources for the map tests: located ones of
// two types, one without a title in English, one with markup in its
// title, one unpublished, and unlocated ones; a Map naming two; and a
// located Resource of account other.
func mapFixtures(e *env) {
	e.t.Helper()
	e.storeRecords(cms.KindResource,
		`{"id":"lake-1","title":"Lake one","title_it":"Lago uno","published":true,"locationLat":45.5,"locationLon":9.25,"resourceType":"POI","resourceCategories":["water","hills"]}`,
		`{"id":"lake-2","title_it":"Solo italiano","published":true,"locationLat":46,"locationLon":10,"resourceType":"POI"}`,
		`{"id":"xss-1","title":"<img src=x onerror=alert(1)> & \"quoted\"","published":true,"locationLat":-33.5,"locationLon":151.25,"resourceType":"TRACK","resourceCategories":["walks"]}`,
		`{"id":"hidden-1","title":"Draft place","published":false,"locationLat":40,"locationLon":-3.5}`,
		`{"id":"nowhere-1","title":"Lake nowhere","published":true}`,
		`{"id":"half-1","title":"Lake half","published":true,"locationLat":45}`,
	)
	e.storeRecords(cms.KindMap, `{"id":"tour","title":"Tour","published":true,"resourceIds":["lake-2","xss-1","nowhere-1"]}`)
	ctx := cms.WithPrincipal(e.t.Context(), cms.Principal{Account: "other", User: "otto", Perms: []string{"*"}, Langs: testenv.Langs("de")})
	if _, err := e.svc.Upsert(ctx, cms.KindResource, []byte(`{"id":"lake-1","title":"Anderer See","published":true,"locationLat":1,"locationLon":1}`), nil); err != nil {
		e.t.Fatal(err)
	}
}

func TestPointsContentAndFilters(t *testing.T) {
	t.Parallel()
	e := newEnv(t, envOptions{})
	mapFixtures(e)
	c := e.signIn("editor")

	got := e.pointsOf(c, "")
	want := []point{
		{ID: "hidden-1", Title: "Draft place", Lat: 40, Lon: -3.5},
		{ID: "lake-1", Title: "Lake one", Type: "POI", Category: "water", Published: true, Lat: 45.5, Lon: 9.25},
		{ID: "lake-2", Title: "Solo italiano", Lang: "it", Type: "POI", Published: true, Lat: 46, Lon: 10},
		{ID: "xss-1", Title: `<img src=x onerror=alert(1)> & "quoted"`, Type: "TRACK", Category: "walks", Published: true, Lat: -33.5, Lon: 151.25},
	}
	if !slices.Equal(got, want) {
		t.Errorf("points:\n got %+v\nwant %+v", got, want)
	}
	for _, c2 := range []struct {
		query string
		want  []string
	}{
		{"?published=yes", []string{"lake-1", "lake-2", "xss-1"}},
		{"?published=no", []string{"hidden-1"}},
		{"?type=POI", []string{"lake-1", "lake-2"}},
		{"?category=walks", []string{"xss-1"}},
		{"?map=tour", []string{"lake-2", "xss-1"}},
		{"?map=tour&type=POI", []string{"lake-2"}},
		{"?q=lake", []string{"lake-1", "lake-2"}}, // lake-2 by its id's words
		{"?q=draft&published=yes", nil},
		{"?type=none", nil},
		{"?sort=title&limit=10&missing=it", []string{"hidden-1", "lake-1", "lake-2", "xss-1"}}, // the list's other options: ignored
	} {
		if got := idsOfPoints(e.pointsOf(c, c2.query)); !slices.Equal(got, c2.want) {
			t.Errorf("points%s: %v, want %v", c2.query, got, c2.want)
		}
	}

	// Another account's Resources never appear: otto sees its own only.
	if got := e.pointsOf(e.signIn("otto"), ""); len(got) != 1 || got[0].Title != "Anderer See" || got[0].Lat != 1 {
		t.Errorf("other account's points: %+v", got)
	}

	// A search the service refuses: a clear answer, no points.
	res, body := e.getPoints(c, "?q=%2B%2B", http.Header{"Accept": {"application/json"}})
	if res.StatusCode != http.StatusBadRequest || !strings.Contains(string(body), "no letter or digit") {
		t.Errorf("bad search: %d %s", res.StatusCode, body)
	}
}

func TestPointsCaching(t *testing.T) {
	t.Parallel()
	e := newEnv(t, envOptions{})
	mapFixtures(e)
	c := e.signIn("editor")

	res, plain := e.getPoints(c, "", nil)
	tag := res.Header.Get("ETag")
	if res.StatusCode != http.StatusOK || tag == "" || res.Header.Get("Cache-Control") != "private, no-cache" ||
		res.Header.Get("Content-Type") != "application/json" || res.Header.Get("Content-Encoding") != "" {
		t.Fatalf("first answer: %d %v", res.StatusCode, res.Header)
	}
	// gzip when the client takes it: the same body.
	res, unzipped := e.getPoints(c, "", http.Header{"Accept-Encoding": {"br, gzip"}})
	if res.Header.Get("Content-Encoding") != "gzip" || string(unzipped) != string(plain) || res.Header.Get("ETag") != tag {
		t.Errorf("gzipped: %v, same body %v", res.Header, string(unzipped) == string(plain))
	}
	// Unchanged: 304 without a body.
	res, body := e.getPoints(c, "", http.Header{"If-None-Match": {tag}})
	if res.StatusCode != http.StatusNotModified || len(body) != 0 || res.Header.Get("ETag") != tag {
		t.Errorf("unchanged: %d %q %v", res.StatusCode, body, res.Header)
	}
	// Other filters: another tag.
	res, _ = e.getPoints(c, "?type=POI", http.Header{"If-None-Match": {tag}})
	if res.StatusCode != http.StatusOK || res.Header.Get("ETag") == tag {
		t.Errorf("other filters: %d, tag %s", res.StatusCode, res.Header.Get("ETag"))
	}
	// Another account's write leaves acme's tag.
	ctx := cms.WithPrincipal(t.Context(), cms.Principal{Account: "other", User: "otto", Perms: []string{"*"}, Langs: testenv.Langs("de")})
	if _, err := e.svc.Upsert(ctx, cms.KindResource, []byte(`{"id":"lake-9","title":"Neu","published":true}`), nil); err != nil {
		t.Fatal(err)
	}
	// A write in the account (of a record not even on the map): a new
	// tag and the new points.
	e.storeRecords(cms.KindResource, `{"id":"lake-1","title":"Lake one, renamed","published":true,"locationLat":45.5,"locationLon":9.25}`)
	res, body = e.getPoints(c, "", http.Header{"If-None-Match": {tag}})
	if res.StatusCode != http.StatusOK || res.Header.Get("ETag") == tag || !strings.Contains(string(body), "Lake one, renamed") {
		t.Errorf("after a write: %d %s %s", res.StatusCode, res.Header.Get("ETag"), body)
	}
}

func TestPointsPermissions(t *testing.T) {
	t.Parallel()
	e := newEnv(t, envOptions{})
	mapFixtures(e)
	e.addUser("mapper", "map:read")
	c := e.signIn("mapper")
	res, body := e.getPoints(c, "", http.Header{"Accept": {"application/json"}})
	if res.StatusCode != http.StatusForbidden || strings.Contains(string(body), "lake") || res.Header.Get("ETag") != "" {
		t.Errorf("without resource:read: %d %s", res.StatusCode, body)
	}
	e.page(e.get(c, "/resource/?view=map"), http.StatusForbidden)
	// Signed out: no points.
	res, _ = e.getPoints(e.browser(), "", http.Header{"Accept": {"application/json"}})
	if res.StatusCode != http.StatusUnauthorized {
		t.Errorf("signed out: %d", res.StatusCode)
	}
}

func TestMapViewPage(t *testing.T) {
	t.Parallel()
	e := newEnv(t, envOptions{})
	mapFixtures(e)
	c := e.signIn("editor")
	doc := e.page(e.get(c, "/resource/?view=map&type=POI&q=lake&sort=title"), http.StatusOK)
	root := doc.Find("#mapview")
	if pts, _ := root.Attr("data-points"); pts != e.prefix+"/resource/points?q=lake&type=POI" {
		t.Errorf("points address %q", pts)
	}
	if base, _ := root.Attr("data-edit-base"); base != e.prefix+"/resource/" {
		t.Errorf("edit base %q", base)
	}
	// The filters keep their values; the form stays on the map.
	if v, _ := doc.Find(`form.list-filters input[name="view"]`).Attr("value"); v != "map" {
		t.Errorf("view input %q", v)
	}
	if v, _ := doc.Find("#f-q").Attr("value"); v != "lake" {
		t.Errorf("search %q", v)
	}
	if doc.Find(`#f-type option[selected]`).Text() != "POI" {
		t.Errorf("type filter not kept")
	}
	// The switch: the list of the same filters, the map current.
	sw := doc.Find("nav.view-switch a")
	if href, _ := sw.Eq(0).Attr("href"); href != e.prefix+"/resource/?q=lake&sort=title&type=POI" {
		t.Errorf("list view %q", href)
	}
	if cur, _ := sw.Eq(1).Attr("aria-current"); cur != "page" {
		t.Errorf("map not current")
	}
	// The list page offers the map of its filters.
	list := e.page(e.get(c, "/resource/?type=POI"), http.StatusOK)
	if href, _ := list.Find("nav.view-switch a").Eq(1).Attr("href"); href != e.prefix+"/resource/?type=POI&view=map" {
		t.Errorf("map view from the list %q", href)
	}
	if cur, _ := list.Find("nav.view-switch a").Eq(0).Attr("aria-current"); cur != "page" {
		t.Errorf("list not current")
	}
	// A search that cannot run: said beside the box, no points asked.
	bad := e.page(e.get(c, "/resource/?view=map&q=%2B%2B"), http.StatusBadRequest)
	if bad.Find("#mapview").Length() != 0 || !strings.Contains(bad.Find("#f-q-error").Text(), "no letter or digit") {
		t.Errorf("bad search page")
	}
	// Other kinds have no map view: their list.
	if e.page(e.get(c, "/map/?view=map"), http.StatusOK).Find("#mapview").Length() != 0 {
		t.Errorf("a Map list with a map view")
	}
}
