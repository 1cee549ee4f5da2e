package transport

import (
	"net/http/httptest"
	"strings"
	"testing"
	"time"

	"github.com/bwcms/cms/cms"
)

// TestErrorRows walks the interface's Errors table for every kind: each
// row's status and exact body.
func TestErrorRows(t *testing.T) {
	t.Parallel()
	e := newEnv(t, envOptions{})
	for _, kind := range cms.Kinds() {
		k, title, plural := string(kind), kind.Title(), kind.Plural()
		runFlow(t, e, []step{
			{name: k + " create: no token", method: "POST", path: "/api/bw/v2/" + k, body: `{"id":"abc"}`, status: 401, want: unauthorized},
			{name: k + " create: wrong request", user: "admin", method: "POST", path: "/api/bw/v2/" + k, body: `{`, status: 400, want: `{"fail":"Wrong request"}`},
			{name: k + " create: problems", user: "admin", method: "POST", path: "/api/bw/v2/" + k, body: `{"id":"abc","nope":1}`, status: 409,
				want: `{"fail":"` + title + ` abc: nope: unknown field"}`},
			{name: k + " read: no token", method: "GET", path: "/api/bw/v2/" + k + "/abc", status: 401, want: unauthorized},
			{name: k + " read: wrong request", user: "admin", method: "GET", path: "/api/bw/v2/" + k + "/a", status: 400, want: `{"fail":"Wrong request"}`},
			{name: k + " read: missing", user: "admin", method: "GET", path: "/api/bw/v2/" + k + "/abc", status: 404, want: `{"fail":"ERROR: Export fail"}`},
			{name: k + " delete: no token", method: "DELETE", path: "/api/bw/v2/" + k + "/abc", status: 401, want: unauthorized},
			{name: k + " delete: wrong request", user: "admin", method: "DELETE", path: "/api/bw/v2/" + k + "/abc,a", status: 400, want: `{"fail":"Wrong request"}`},
			{name: k + " delete: missing", user: "admin", method: "DELETE", path: "/api/bw/v2/" + k + "/abc", status: 404,
				want: `{"fail":"No ` + plural + ` to delete"}`},
			{name: k + " clone: no token", method: "POST", path: "/api/bw/v2/" + k + "/clone/abc", status: 401, want: unauthorized},
			{name: k + " clone: wrong request", user: "admin", method: "POST", path: "/api/bw/v2/" + k + "/clone/a", status: 400, want: `{"fail":"Wrong request"}`},
			{name: k + " clone: missing", user: "admin", method: "GET", path: "/api/bw/v2/" + k + "/clone/abc", status: 404,
				want: `{"fail":"There is no ` + title + ` abc to clone"}`},
			{name: k + " reader deletes", user: "reader", method: "DELETE", path: "/api/bw/v2/" + k + "/abc", status: 403, want: `{"fail":"Forbidden"}`},
		})
		long := strings.Repeat("x", 76)
		runFlow(t, e, []step{
			{name: k + " clone: no id fits", user: "admin", method: "POST", path: "/api/bw/v2/" + k, body: `{"id":"` + long + `"}`, status: 201},
			{user: "admin", method: "POST", path: "/api/bw/v2/" + k + "/clone/" + long, status: 409,
				want: `{"fail":"Not cloned ` + title + ` ` + long + `"}`},
		})
	}
}

// TestAssignmentTouchesBothSides: an assignment change gives both records
// a new timeLastUpdate; a Skip gives none.
func TestAssignmentTouchesBothSides(t *testing.T) {
	t.Parallel()
	forEachStore(t, func(t *testing.T, e *env) {
		time0 := func(kind, id string) string {
			w := e.send("admin", "GET", "/api/bw/v2/"+kind+"/"+id+"/published/*/fields/id,timeLastUpdate", "", nil)
			s, _ := field(t, w, "timeLastUpdate").(string)
			return s
		}
		runFlow(t, e, []step{
			{user: "admin", method: "POST", path: "/api/bw/v2/resource", body: `{"id":"res1"}`, status: 201},
			{user: "admin", method: "POST", path: "/api/bw/v2/map", body: `{"id":"map1"}`, status: 201},
		})
		e.clock.Advance(time.Minute)
		runFlow(t, e, []step{{user: "admin", method: "POST", path: "/api/bw/v2/resource", body: `{"id":"res1","mapIdsAdd":["map1"]}`, status: 202}})
		if a, b := time0("resource", "res1"), time0("map", "map1"); a != "2026-11-22 11:01:00" || b != a {
			t.Errorf("after assigning: resource %s, map %s", a, b)
		}
		e.clock.Advance(time.Minute)
		runFlow(t, e, []step{{user: "admin", method: "POST", path: "/api/bw/v2/map", body: `{"id":"map1","resourceIds":["res1"]}`, status: 200}})
		if a := time0("map", "map1"); a != "2026-11-22 11:01:00" {
			t.Errorf("a Skip moved timeLastUpdate: %s", a)
		}
		runFlow(t, e, []step{{user: "admin", method: "POST", path: "/api/bw/v2/map", body: `{"id":"map1","resourceIds":[]}`, status: 202}})
		if a, b := time0("resource", "res1"), time0("map", "map1"); a != "2026-11-22 11:02:00" || b != a {
			t.Errorf("after removing: resource %s, map %s", a, b)
		}
		w := e.send("admin", "GET", "/api/bw/v2/resource/res1/published/*/fields/mapIds", "", nil)
		if got := strings.TrimSpace(w.Body.String()); got != `{"id":"res1","mapIds":null}` {
			t.Errorf("resource side: %s", got)
		}
	})
}

// TestCloneLanding: a Landing's own lists come along; aliases get -copy.
func TestCloneLanding(t *testing.T) {
	t.Parallel()
	e := newEnv(t, envOptions{})
	runFlow(t, e, []step{
		{user: "admin", method: "POST", path: "/api/bw/v2/map", body: `{"id":"map1"}`, status: 201},
		{user: "admin", method: "POST", path: "/api/bw/v2/landing", status: 201,
			body: `{"id":"land1","title":"Summer","published":true,"mapId":"map1","landingBlocks":[{"title":"b","resourceIds":["map1"]}]}`},
		{user: "admin", method: "POST", path: "/api/bw/v2/landing/clone/land1", status: 201,
			want: `{"done":"Cloned Landing land1 to Landing land1-copy","id":"land1-copy"}`},
		{user: "admin", method: "GET", path: "/api/bw/v2/landing/land1-copy/published/*/fields/published,urlAlias,mapId", status: 200,
			want: `{"id":"land1-copy","published":false,"urlAlias":"/summer-copy","mapId":"map1"}`},
		{user: "admin", method: "GET", path: "/api/bw/v2/landing/land1-copy/published/0", status: 200,
			check: func(t *testing.T, _ *env, w *httptest.ResponseRecorder) {
				if !strings.Contains(w.Body.String(), `"resourceIds":["map1"]`) {
					t.Errorf("blocks not copied: %s", w.Body)
				}
			}},
		{name: "the map is named by single references now", user: "admin", method: "DELETE", path: "/api/bw/v2/map/map1", status: 409},
	})
}

// TestEveryProblemInOne409: a body breaking many rules at once gets one
// 409 listing every problem, field rules (as cms words them) and store
// checks alike, and nothing is stored.
func TestEveryProblemInOne409(t *testing.T) {
	t.Parallel()
	forEachStore(t, func(t *testing.T, e *env) {
		if w := e.send("admin", "POST", "/api/bw/v2/resource", `{"id":"held1","urlAlias":"/taken"}`, nil); w.Code != 201 {
			t.Fatal(w.Code)
		}
		body := `{"id":"bad1","title":"` + strings.Repeat("t", 101) + `","title_it":null,"published":"yes","locationLat":91,` +
			`"locationZoom":1.5,"image":"https://x.org/a.gif","mapLayerFile":"https://x.org/a.txt","trackFile":"https://x.org/a.doc",` +
			`"ctaUrl":"ftp://x.org/","contactEmail":"not an address","urlAlias_it":"no-slash","urlAlias":"/taken",` +
			`"trackCircular":true,"colour":"red","title_fr":"x","mapIds":["nomap"],"poiResourceIds":["held1","nores"]}`
		langs, _ := cms.NewLanguages("en", "en", "it", "de")
		codec, _ := cms.NewCodec(langs)
		var rec cms.Resource
		derr := codec.Decode([]byte(body), &rec)
		e0, ok := derr.(*cms.Error)
		if !ok || len(e0.Problems) < 12 {
			t.Fatalf("the fixture breaks too few rules: %v", derr)
		}
		want := e0.ProblemText() + "\n" + strings.Join([]string{
			"Resource bad1: trackCircular: allowed only when resourceType is TRACK",
			"Resource bad1: trackFile: allowed only when resourceType is TRACK",
			"Resource bad1: mapIds[0]: Map nomap does not exist",
			"Resource bad1: poiResourceIds[1]: Resource nores does not exist",
			"Resource bad1: urlAlias: /taken is already used by Resource held1",
		}, "\n")
		w := e.send("admin", "POST", "/api/bw/v2/resource", body, nil)
		if w.Code != 409 {
			t.Fatalf("%d %s", w.Code, w.Body)
		}
		if got, _ := field(t, w, "fail").(string); got != want {
			t.Errorf("fail text:\n%s\nwant\n%s", got, want)
		}
		if w := e.send("admin", "GET", "/api/bw/v2/resource/bad1/published/*", "", nil); w.Code != 404 {
			t.Errorf("the refused record was stored: %d", w.Code)
		}
	})
}
