//go:build browser

package admin

import (
	"encoding/json"
	"flag"
	"fmt"
	"math"
	"net/http"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/chromedp/chromedp"
	"github.com/chromedp/chromedp/kb"

	"github.com/bwcms/cms/admin/internal/browsertest"
	"github.com/bwcms/cms/cms"
)

// mapviewPoints is how many Resources TestBrowserMapBudget seeds.
var mapviewPoints = flag.Int("mapview.points", 100_000, "Resources the Resource map's budget test seeds")

// mapState is what the map has drawn (mapview.js's data-view).
type mapState struct {
	BBox     [4]float64 `json:"bbox"` // west, south, east, north
	Zoom     int        `json:"zoom"`
	Clusters int        `json:"clusters"`
}

func (x *e2eTab) mapState() mapState {
	x.t.Helper()
	var s mapState
	if err := json.Unmarshal([]byte(x.attr("#mapview", "data-view")), &s); err != nil {
		x.t.Fatal(err)
	}
	return s
}

// draws is how many times the map has drawn.
func (x *e2eTab) draws() int {
	x.t.Helper()
	return e2eEval[int](x, `Number(document.getElementById("mapview").dataset.draws || 0)`)
}

// waitDraw waits for a draw after the draws-th.
func (x *e2eTab) waitDraw(draws int, what string) {
	x.t.Helper()
	if err := x.poll(fmt.Sprintf(`Number(document.getElementById("mapview").dataset.draws || 0) > %d`, draws)); err != nil {
		x.t.Fatalf("%s: the map did not draw again: %v", what, err)
	}
}

// settleMap waits until the map has not drawn for 400 ms: a draw still
// due (the first view's late moves, an animation) would otherwise move
// what a click aims at, on a loaded machine.
func (x *e2eTab) settleMap() {
	x.t.Helper()
	if err := x.poll(`(() => { const d = document.getElementById("mapview").dataset.draws || "0", now = performance.now();
		if (d !== window.__settleDraws) { window.__settleDraws = d; window.__settleSince = now; return false; }
		return now - window.__settleSince > 400; })()`); err != nil {
		x.t.Fatalf("the map kept drawing: %v", err)
	}
}

// listed are the ids of the list beside the map, in order.
func (x *e2eTab) listed() []string {
	x.t.Helper()
	return e2eEval[[]string](x, `[...document.querySelectorAll("#mapview-list button")].map(b => {
		const meta = b.querySelector(".meta").textContent; return meta.split(" · ")[0]; })`)
}

// openMap opens the map of query and waits for its first draw.
func (x *e2eTab) openMap(query string) {
	x.t.Helper()
	x.open("/resource/?view=map"+query, 200)
	if err := x.poll(`document.getElementById("mapview").dataset.ready === "1"`); err != nil {
		x.t.Fatalf("the map did not draw: %v; the page says %q", err, x.mainText())
	}
}

// mouseClick clicks the page at x, y (CSS pixels of the viewport).
func (x *e2eTab) mouseClick(px, py float64) {
	x.t.Helper()
	if err := chromedp.Do(x.ctx, chromedp.MouseClickXY(px, py)); err != nil {
		x.t.Fatalf("click at %v,%v: %v", px, py, err)
	}
}

// kbKey is the key of a name: a character, or kb's ArrowLeft and the
// like.
func kbKey(name string) string {
	switch name {
	case "ArrowLeft":
		return kb.ArrowLeft
	case "ArrowRight":
		return kb.ArrowRight
	case "ArrowUp":
		return kb.ArrowUp
	case "ArrowDown":
		return kb.ArrowDown
	}
	return name
}

// clickMapAt clicks the page at the point of the map at lat, lon, by the
// drawn box in Web Mercator (Leaflet's projection).
func (x *e2eTab) clickMapAt(lat, lon float64) {
	x.t.Helper()
	x.settleMap()
	s := x.mapState()
	merc := func(lat float64) float64 { return math.Log(math.Tan(math.Pi/4 + lat*math.Pi/360)) }
	script := fmt.Sprintf(`(() => { const r = document.getElementById("mapview-map").getBoundingClientRect();
		return [r.left + r.width * %v, r.top + r.height * %v]; })()`,
		(lon-s.BBox[0])/(s.BBox[2]-s.BBox[0]), (merc(s.BBox[3])-merc(lat))/(merc(s.BBox[3])-merc(s.BBox[1])))
	at := e2eEval[[]float64](x, script)
	x.mouseClick(at[0], at[1])
}

// TestBrowserMapView: the Resource map shows clusters and, beside them,
// the Resources in view; a title made of markup stays text; a cluster
// clicked zooms in; the list follows a zoom and a pan made by keyboard;
// a marker chosen is selected in the list, an entry chosen by keyboard
// is selected on the map, and Enter on its link opens its form. axe
// finds nothing serious; no page error.
func TestBrowserMapView(t *testing.T) {
	e := newEnv(t, envOptions{prefix: "/admin"})
	mapFixtures(e)
	// 40 around Milan: a cluster at any zoom that shows Europe.
	var bodies []string
	for i := range 40 {
		bodies = append(bodies, fmt.Sprintf(`{"id":"mi-%02d","title":"Milano %d","published":%v,"locationLat":%v,"locationLon":%v,"resourceType":"POI"}`,
			i, i, i%4 != 0, 45.45+float64(i%8)*0.01, 9.15+float64(i/8)*0.01))
	}
	e.storeRecords(cms.KindResource, bodies...)
	located := map[string][2]float64{"lake-1": {45.5, 9.25}, "lake-2": {46, 10}, "xss-1": {-33.5, 151.25}, "hidden-1": {40, -3.5}}
	for i := range 40 {
		located[fmt.Sprintf("mi-%02d", i)] = [2]float64{45.45 + float64(i%8)*0.01, 9.15 + float64(i/8)*0.01}
	}
	inView := func(s mapState) []string {
		var ids []string
		for id, at := range located {
			if at[0] >= s.BBox[1] && at[0] <= s.BBox[3] && at[1] >= s.BBox[0] && at[1] <= s.BBox[2] {
				ids = append(ids, id)
			}
		}
		slices.Sort(ids)
		return ids
	}

	b := browsertest.New(t)
	x := e2eEditor(t, e, b, "editor")
	x.openMap("")
	x.audit()
	x.nothingRan("the map")
	x.shot("mapview", 0)
	s := x.mapState()
	if s.Clusters == 0 {
		t.Errorf("no cluster drawn")
	}
	if got, want := x.listed(), inView(s); !slices.Equal(got, want) {
		t.Errorf("listed %v, in view %v", got, want)
	}
	if got := x.text("#mapview-status"); got != fmt.Sprintf("%d Resources in view.", len(inView(s))) {
		t.Errorf("status %q", got)
	}
	if got := e2eEval[string](x, `[...document.querySelectorAll("#mapview-list button span:first-child")].map(s => s.textContent).find(t => t.includes("onerror")) || ""`); got != `<img src=x onerror=alert(1)> & "quoted"` {
		t.Errorf("the markup title is listed as %q", got)
	}

	// A cluster clicked zooms in on it: the Milan points are one.
	x.clickMapAt(45.485, 9.17)
	if err := x.poll(fmt.Sprintf(`JSON.parse(document.getElementById("mapview").dataset.view).zoom > %d`, s.Zoom)); err != nil {
		t.Errorf("a cluster clicked: zoom %d, was %d", x.mapState().Zoom, s.Zoom)
	}
	x.settleMap()
	draws := x.draws()
	// By keyboard: the map focused, + zooms in and an arrow pans; the list
	// follows each.
	x.tabTo("#mapview-map", 40)
	for _, k := range []string{"+", "+", "ArrowRight"} {
		draws = x.draws()
		x.key(kbKey(k))
		x.waitDraw(draws, k)
		s := x.mapState()
		if got, want := x.listed(), inView(s); !slices.Equal(got, want) {
			t.Errorf("after %s: listed %v, in view %v", k, got, want)
		}
	}
	x.shot("mapview-zoomed", 0)

	// A marker clicked: selected in the list, its form offered. lake-1
	// stands apart from the Milan points: alone at this zoom.
	if !slices.Contains(x.listed(), "lake-1") {
		t.Fatalf("lake-1 is not in view: %+v", x.mapState())
	}
	pick := "lake-1"
	x.clickMapAt(located[pick][0], located[pick][1])
	if err := x.poll(`!document.getElementById("mapview-selected").hidden`); err != nil {
		t.Fatalf("the marker of %s clicked selects nothing", pick)
	}
	if got := x.attr(`#mapview-list button[aria-pressed="true"] .meta`, "class"); got != "meta" {
		t.Errorf("no entry pressed in the list")
	}
	if got := x.attr("#mapview-open", "href"); !strings.HasSuffix(got, "/admin/resource/"+pick+"/edit") {
		t.Errorf("marker %s: form link %q", pick, got)
	}
	x.shot("mapview-selected", 0)

	// By keyboard in the list: Tab to an entry, Enter selects it on the
	// map, then its link opens the form.
	x.tabTo("#mapview-list li:first-child button", 80)
	first := x.listed()[0]
	x.pressEnter()
	if got := x.attr("#mapview-list li:first-child button", "aria-pressed"); got != "true" {
		t.Errorf("Enter on the first entry: pressed %q", got)
	}
	if got := x.text("#mapview-selected-id"); got != "("+first+")" {
		t.Errorf("selected %q, want %s", got, first)
	}
	x.tabTo("#mapview-open", 200)
	x.visibleFocus()
	if status := x.enter("open the form"); status != 200 {
		t.Fatalf("opening the form: %d", status)
	}
	if got := e2eEval[string](x, `location.pathname`); got != "/admin/resource/"+first+"/edit" {
		t.Errorf("opened %s", got)
	}
	x.clean()

	// Filters in the query string: a bookmark shows the same map.
	x.openMap("&type=TRACK")
	if got := x.listed(); !slices.Equal(got, []string{"xss-1"}) {
		t.Errorf("type TRACK lists %v", got)
	}
	if got := x.value("#f-type"); got != "TRACK" {
		t.Errorf("type filter shows %q", got)
	}
	x.nothingRan("a filtered map")
	x.audit()
}

// TestBrowserMapBudget seeds -mapview.points Resources (default 100,000)
// spread over Europe and reports how long the map takes: the points'
// answer on the server, the first clusters drawn from the page's start,
// each zoom and pan, and a second opening answered 304. Figures, not
// assertions.
func TestBrowserMapBudget(t *testing.T) {
	n := *mapviewPoints
	e := newEnv(t, envOptions{prefix: "/admin"})
	start := time.Now()
	seedPoints(t, e.store, "acme", n)
	t.Logf("seeded %d Resources in %v", n, time.Since(start).Round(time.Millisecond))

	// The server alone: the answer and its size, plain and gzipped.
	c := e.signIn("editor")
	for _, enc := range []string{"identity", "gzip"} {
		t0 := time.Now()
		res, body := e.getPoints(c, "", http.Header{"Accept-Encoding": {enc}})
		took := time.Since(t0)
		if res.StatusCode != 200 {
			t.Fatalf("points: %d", res.StatusCode)
		}
		t.Logf("points (%s): %v, %s bytes sent, %d bytes of JSON", enc, took.Round(time.Millisecond), res.Header.Get("Content-Length"), len(body))
	}

	b := browsertest.New(t)
	x := e2eEditor(t, e, b, "editor")
	for _, round := range []string{"first opening", "second opening (304)"} {
		x.openMap("")
		times := e2eEval[map[string]any](x, `window.__bwMapTimes`)
		t.Logf("%s: points requested %s", round, e2eEval[string](x, `performance.getEntriesByType("resource").filter(r => r.name.includes("/resource/points")).map(r => `+"`"+`${r.initiatorType} at ${Math.round(r.startTime)} ms, answered at ${Math.round(r.responseEnd)} ms, ${r.transferSize} bytes`+"`"+`).join("; ")`))
		t.Logf("%s: %v points; fetched at %.0f ms, indexed at %.0f ms, first clusters drawn at %.0f ms (from the page's start)",
			round, times["count"], times["fetched"], times["indexed"], times["firstDraw"])
	}
	x.clean()
	x.shot("mapview-budget", 0)
	x.tabTo("#mapview-map", 40)
	for _, k := range []string{"+", "+", "ArrowRight", "ArrowDown", "+", "-", "ArrowLeft"} {
		draws := x.draws()
		x.key(kbKey(k))
		x.waitDraw(draws, k)
	}
	moves := e2eEval[[]float64](x, `window.__bwMapTimes.moves`)
	draws := e2eEval[[]float64](x, `window.__bwMapTimes.draws`)
	t.Logf("zooms and pans (+ + → ↓ + - ←): %s ms from start to drawn; draws alone %s ms", msList(moves), msList(draws))
	x.clean()
}

func msList(v []float64) string {
	parts := make([]string, len(v))
	for i, f := range v {
		parts[i] = fmt.Sprintf("%.0f", f)
	}
	return strings.Join(parts, ", ")
}

// seedPoints stores n located Resources in account, straight into the
// store in large transactions: a grid of clusters over Europe, every
// tenth unpublished, three types.
func seedPoints(tb testing.TB, s cms.Store, account string, n int) {
	tb.Helper()
	ctx := tb.Context()
	now := time.Now()
	types := []string{"POI", "TRACK", "HOTEL"}
	const group = 5000
	for from := 0; from < n; from += group {
		entries := make([]*cms.Entry, 0, group)
		for i := from; i < min(n, from+group); i++ {
			// Towns on a grid, each with its points around it.
			town := i % 997
			lat := 36 + float64(town%31)*0.7 + float64(i%89)*0.002
			lon := -9 + float64(town/31)*1.1 + float64(i%97)*0.002
			r := &cms.Resource{ID: fmt.Sprintf("pt-%06d", i), Published: cms.Some(i%10 != 0),
				Title:       cms.Langs[string]{"en": fmt.Sprintf("Place %d of town %d", i, town)},
				LocationLat: cms.NullOf(lat), LocationLon: cms.NullOf(lon), ResourceType: cms.Some(types[i%3]),
				ResourceCategories: cms.NullOf([]string{fmt.Sprintf("cat-%d", i%7)})}
			entries = append(entries, &cms.Entry{Account: account, Record: r, Updated: now, New: true})
		}
		if err := s.WithTx(ctx, func(tx cms.Store) error { return tx.PutRecords(ctx, entries) }); err != nil {
			tb.Fatal(err)
		}
	}
}
