package transport

import (
	"errors"
	"net/http"
	"reflect"
	"strings"
	"testing"
	"time"

	"github.com/bwcms/cms/cms"
)

var cet = time.FixedZone("CET", 3600)

func TestParsePath(t *testing.T) {
	t.Parallel()
	since := time.Date(2026, 1, 31, 23, 59, 58, 0, cet)
	cases := []struct {
		method, path string
		want         recordPath
	}{
		{"GET", "resource", recordPath{Kind: cms.KindResource}},
		{"POST", "map", recordPath{Kind: cms.KindMap, Endpoint: endpointUpsert}},
		{"GET", "resource/abc", recordPath{Kind: cms.KindResource, IDs: []string{"abc"}, Single: true}},
		{"GET", "resource/abc,def", recordPath{Kind: cms.KindResource, IDs: []string{"abc", "def"}}},
		{"GET", "resource/%41bc", recordPath{Kind: cms.KindResource, IDs: []string{"Abc"}, Single: true}},
		{"GET", "resource/a.b_c~d:e@f-g", recordPath{Kind: cms.KindResource, IDs: []string{"a.b_c~d:e@f-g"}, Single: true}},
		{"GET", "resource/published/0", recordPath{Kind: cms.KindResource, Published: cms.UnpublishedOnly}},
		{"GET", "resource/published/*", recordPath{Kind: cms.KindResource, Published: cms.PublishedAny}},
		{"GET", "resource/published/%2A", recordPath{Kind: cms.KindResource, Published: cms.PublishedAny}},
		{"GET", "resource/fields/title,title_it", recordPath{Kind: cms.KindResource, Fields: []string{"title", "title_it"}}},
		{"GET", "resource/ignoreFields/image", recordPath{Kind: cms.KindResource, IgnoreFields: []string{"image"}}},
		{"GET", "resource/excludeFiles", recordPath{Kind: cms.KindResource, ExcludeFiles: true}},
		{"GET", "resource/mapId/map1", recordPath{Kind: cms.KindResource, MapID: "map1"}},
		{"GET", "resource/limit/1000", recordPath{Kind: cms.KindResource, Limit: 1000}},
		{"GET", "resource/after/abc", recordPath{Kind: cms.KindResource, After: "abc"}},
		{"GET", "map/bbox/170,-10.5,-170,10", recordPath{Kind: cms.KindMap,
			BBox: &cms.BBox{MinLon: 170, MinLat: -10.5, MaxLon: -170, MaxLat: 10}}},
		{"GET", "landing/updatedSince/2026-01-31T23:59:58", recordPath{Kind: cms.KindLanding, UpdatedSince: since}},
		// Several options, in two orders, give the same.
		{"GET", "resource/abc,def/published/*/fields/title/limit/5/excludeFiles",
			recordPath{Kind: cms.KindResource, IDs: []string{"abc", "def"}, Published: cms.PublishedAny, Fields: []string{"title"}, Limit: 5, ExcludeFiles: true}},
		{"GET", "resource/abc,def/excludeFiles/limit/5/fields/title/published/*",
			recordPath{Kind: cms.KindResource, IDs: []string{"abc", "def"}, Published: cms.PublishedAny, Fields: []string{"title"}, Limit: 5, ExcludeFiles: true}},
		{"GET", "resource/mapId/map1/after/abc/updatedSince/2026-01-31T23:59:58/bbox/0,0,1,1/ignoreFields/title",
			recordPath{Kind: cms.KindResource, MapID: "map1", After: "abc", UpdatedSince: since, BBox: &cms.BBox{MaxLon: 1, MaxLat: 1}, IgnoreFields: []string{"title"}}},
		{"GET", "resource/ignoreFields/title/bbox/0,0,1,1/updatedSince/2026-01-31T23:59:58/after/abc/mapId/map1",
			recordPath{Kind: cms.KindResource, MapID: "map1", After: "abc", UpdatedSince: since, BBox: &cms.BBox{MaxLon: 1, MaxLat: 1}, IgnoreFields: []string{"title"}}},
		{"DELETE", "proposal/abc,def", recordPath{Kind: cms.KindProposal, Endpoint: endpointDelete, IDs: []string{"abc", "def"}}},
		{"POST", "resource/clone", recordPath{Kind: cms.KindResource, Endpoint: endpointClone, IDs: []string{"Base"}}},
		{"GET", "resource/clone/abc", recordPath{Kind: cms.KindResource, Endpoint: endpointClone, IDs: []string{"abc"}}},
		{"POST", "resource/clone/abc/map/map1", recordPath{Kind: cms.KindResource, Endpoint: endpointClone, IDs: []string{"abc"}, MapID: "map1"}},
		{"POST", "resource/clone/map/map1", recordPath{Kind: cms.KindResource, Endpoint: endpointClone, IDs: []string{"Base"}, MapID: "map1"}},
		{"GET", "map/schema.json", recordPath{Kind: cms.KindMap, Endpoint: endpointSchema}},
		{"GET", "map/schema.multiple.json/full", recordPath{Kind: cms.KindMap, Endpoint: endpointSchema, Multiple: true, Full: true}},
		{"POST", "landing/batch", recordPath{Kind: cms.KindLanding, Endpoint: endpointBatch}},
		{"GET", "landing/batch/b-123", recordPath{Kind: cms.KindLanding, Endpoint: endpointBatchStatus, IDs: []string{"b-123"}}},
	}
	for _, c := range cases {
		got, err := parsePath(c.method, c.path, cet)
		if err != nil {
			t.Errorf("%s %s: %v", c.method, c.path, err)
			continue
		}
		if !reflect.DeepEqual(*got, c.want) {
			t.Errorf("%s %s:\n got %+v\nwant %+v", c.method, c.path, *got, c.want)
		}
	}
}

func TestParsePathRefusals(t *testing.T) {
	t.Parallel()
	notFound := []string{"", "resources", "Resource", "auth2", "resource%2Fabc"}
	for _, p := range notFound {
		if _, err := parsePath("GET", p, cet); cms.ErrorCode(err) != cms.CodeNotFound {
			t.Errorf("GET %q: %v, want not found", p, err)
		}
	}
	methods := []struct{ method, path, allow string }{
		{"PUT", "resource", "GET, POST"},
		{"POST", "resource/abc", "DELETE, GET"},
		{"DELETE", "resource", "GET, POST"},
		{"DELETE", "resource/published/1", "GET"},
		{"DELETE", "resource/clone/abc", "GET, POST"},
		{"POST", "resource/schema.json", "GET"},
		{"GET", "resource/batch", "POST"},
		{"POST", "resource/batch/b1", "GET"},
	}
	for _, m := range methods {
		_, err := parsePath(m.method, m.path, cet)
		me, ok := errors.AsType[*methodError](err)
		if !ok || joinMethods(me.allow) != m.allow {
			t.Errorf("%s %s: %v, want 405 allowing %s", m.method, m.path, err, m.allow)
		}
	}
	many := strings.TrimSuffix(strings.Repeat("abc,", 1001), ",")
	malformed := []struct{ method, path string }{
		{"GET", "resource/ab"}, {"GET", "resource/" + strings.Repeat("a", 81)}, {"GET", "resource/.abc"},
		{"GET", "resource/abc,"}, {"GET", "resource/,abc"}, {"GET", "resource/abc,,def"},
		{"GET", "resource/a%2Cbc"}, {"GET", "resource/a%2Fbc"}, {"GET", "resource/a%22bc"}, {"GET", "resource/a%00bc"},
		{"GET", "resource/a'bc"}, {"GET", "resource/a%zzbc"}, {"GET", "resource/abc/"}, {"GET", "resource/abc//published/1"},
		{"GET", "resource/" + many},
		{"GET", "resource/published"}, {"GET", "resource/published/2"}, {"GET", "resource/published/1/published/0"},
		{"GET", "resource/fields"}, {"GET", "resource/fields/ti tle"}, {"GET", "resource/fields/title,"},
		{"GET", "resource/nonsense/1"}, {"GET", "resource/abc/def"}, {"GET", "resource/excludeFiles/excludeFiles"},
		{"GET", "map/mapId/abc"}, {"GET", "resource/mapId/ab"},
		{"GET", "resource/limit/0"}, {"GET", "resource/limit/1001"}, {"GET", "resource/limit/05"}, {"GET", "resource/limit/+5"},
		{"GET", "resource/limit/1e3"}, {"GET", "resource/after/ab"},
		{"GET", "landing/bbox/0,0,1,1"}, {"GET", "resource/bbox/0,0,1"}, {"GET", "resource/bbox/0,1,1,0"},
		{"GET", "resource/bbox/0,0,181,1"}, {"GET", "resource/bbox/0,-91,1,1"}, {"GET", "resource/bbox/1e1,0,1,1"},
		{"GET", "resource/bbox/0x1,0,1,1"}, {"GET", "resource/bbox/NaN,0,1,1"}, {"GET", "resource/bbox/+1,0,1,1"},
		{"GET", "resource/updatedSince/2026-02-30T00:00:00"}, {"GET", "resource/updatedSince/2026-01-31 23:59:58"},
		{"GET", "resource/updatedSince/2026-01-31T23:59"}, {"GET", "resource/updatedSince/2026-01-31T23:59:58Z"},
		{"DELETE", "resource/abc/published/1"}, {"GET", "map/clone/abc/map/def"}, {"GET", "resource/clone/abc/def"},
		{"GET", "resource/clone/a,bc"}, {"GET", "resource/schema.json/fields/title"}, {"GET", "resource/batch/ab"},
	}
	for _, m := range malformed {
		if _, err := parsePath(m.method, m.path, cet); cms.ErrorCode(err) != cms.CodeMalformed {
			t.Errorf("%s %s: %v, want 400", m.method, m.path, err)
		}
	}
	// 1000 ids is the limit, not over it.
	if rp, err := parsePath("GET", "resource/"+strings.TrimSuffix(strings.Repeat("abc,", 1000), ","), cet); err != nil || len(rp.IDs) != 1000 {
		t.Errorf("1000 ids: %v", err)
	}
}

// FuzzParsePath: no path panics; every refusal is 400, 404 or 405; an
// accepted path holds only valid values.
func FuzzParsePath(f *testing.F) {
	for _, seed := range []string{"resource", "resource/abc,def/published/*/fields/title_it", "map/bbox/170,-10,-170,10",
		"resource/clone/abc/map/def", "landing/updatedSince/2026-01-31T23:59:58", "resource/a%2Cb", "proposal/schema.json/full",
		"resource/limit/7/after/abc", "resource/%00%ff", "map/batch/xyz"} {
		for _, m := range []string{http.MethodGet, http.MethodPost, http.MethodDelete} {
			f.Add(m, seed)
		}
	}
	f.Fuzz(func(t *testing.T, method, path string) {
		rp, err := parsePath(method, path, cet)
		if err != nil {
			if _, ok := errors.AsType[*methodError](err); ok {
				return
			}
			if c := cms.ErrorCode(err); c != cms.CodeMalformed && c != cms.CodeNotFound {
				t.Fatalf("%s %q: error %v with code %s", method, path, err, c)
			}
			return
		}
		for _, id := range rp.IDs {
			if !cms.ValidID(id) {
				t.Fatalf("%q: accepted id %q", path, id)
			}
		}
		if len(rp.IDs) > MaxIDs || rp.Limit < 0 || rp.Limit > MaxIDs {
			t.Fatalf("%q: %d ids, limit %d", path, len(rp.IDs), rp.Limit)
		}
		if rp.MapID != "" && !cms.ValidID(rp.MapID) || rp.After != "" && !cms.ValidID(rp.After) {
			t.Fatalf("%q: mapId %q after %q", path, rp.MapID, rp.After)
		}
		if b := rp.BBox; b != nil && (b.MinLat > b.MaxLat || b.MinLat < -90 || b.MaxLat > 90) {
			t.Fatalf("%q: bbox %+v", path, b)
		}
	})
}
