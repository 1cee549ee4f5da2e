package transport

import (
	"errors"
	"reflect"
	"slices"
	"strconv"
	"strings"
	"testing"
	"time"
	_ "time/tzdata" // Europe/Rome for the clock-change cases, on any host

	"github.com/bwcms/cms/cms"
)

var cet = time.FixedZone("CET", 3600)

// pathIDs joins n distinct valid ids with commas.
func pathIDs(n int) string {
	s := make([]string, n)
	for i := range s {
		s[i] = "id" + strconv.Itoa(1000+i)
	}
	return strings.Join(s, ",")
}

// pathSince is the /updatedSince of the accepted cases.
var pathSince = time.Date(2026, 1, 31, 23, 59, 58, 0, cet)

// pathAccepted: every path of a case parses to want. Cases with several paths
// give the same options in other orders.
var pathAccepted = []struct {
	name   string
	method string
	paths  []string
	want   recordPath
}{
	// The kind alone.
	{"list", "GET", []string{"resource"}, recordPath{Kind: cms.KindResource}},
	{"upsert", "POST", []string{"map"}, recordPath{Kind: cms.KindMap, Endpoint: endpointUpsert}},
	{"upsert proposal", "POST", []string{"proposal"}, recordPath{Kind: cms.KindProposal, Endpoint: endpointUpsert}},

	// Ids.
	{"one id", "GET", []string{"resource/abc"},
		recordPath{Kind: cms.KindResource, IDs: []string{"abc"}, Single: true}},
	{"two ids", "GET", []string{"landing/abc,def"},
		recordPath{Kind: cms.KindLanding, IDs: []string{"abc", "def"}}},
	{"ids keep their order and case", "GET", []string{"map/def,ABC,abc"},
		recordPath{Kind: cms.KindMap, IDs: []string{"def", "ABC", "abc"}}},
	{"escaped letter", "GET", []string{"resource/%41bc", "resource/%41%62%63"},
		recordPath{Kind: cms.KindResource, IDs: []string{"Abc"}, Single: true}},
	{"escaped id charset", "GET", []string{"resource/a%2Eb%5Fc%7Ed%3Ae%40f%2Dg", "resource/a.b_c~d:e@f-g"},
		recordPath{Kind: cms.KindResource, IDs: []string{"a.b_c~d:e@f-g"}, Single: true}},
	{"id charset", "GET", []string{"resource/-_~:@09AZaz.."},
		recordPath{Kind: cms.KindResource, IDs: []string{"-_~:@09AZaz.."}, Single: true}},
	{"id 3 chars", "GET", []string{"resource/a.b"}, recordPath{Kind: cms.KindResource, IDs: []string{"a.b"}, Single: true}},
	{"id 80 chars", "GET", []string{"resource/" + strings.Repeat("x", 80)},
		recordPath{Kind: cms.KindResource, IDs: []string{strings.Repeat("x", 80)}, Single: true}},
	{"id like a keyword", "GET", []string{"resource/Published"},
		recordPath{Kind: cms.KindResource, IDs: []string{"Published"}, Single: true}},
	{"1000 ids", "GET", []string{"resource/" + pathIDs(1000)},
		recordPath{Kind: cms.KindResource, IDs: strings.Split(pathIDs(1000), ",")}},

	// Each read option alone.
	{"published 1", "GET", []string{"resource/published/1", "resource/published/%31"}, recordPath{Kind: cms.KindResource}},
	{"published 0", "GET", []string{"resource/published/0"},
		recordPath{Kind: cms.KindResource, Published: cms.UnpublishedOnly}},
	{"published any", "GET", []string{"resource/published/*", "resource/published/%2A", "resource/published/%2a"},
		recordPath{Kind: cms.KindResource, Published: cms.PublishedAny}},
	{"fields", "GET", []string{"resource/fields/title,title_it", "resource/fields/t%69tle,title_it"},
		recordPath{Kind: cms.KindResource, Fields: []string{"title", "title_it"}}},
	{"fields as given", "GET", []string{"proposal/fields/nonsense,id,id"},
		recordPath{Kind: cms.KindProposal, Fields: []string{"nonsense", "id", "id"}}},
	{"ignoreFields", "GET", []string{"resource/ignoreFields/image"},
		recordPath{Kind: cms.KindResource, IgnoreFields: []string{"image"}}},
	{"excludeFiles", "GET", []string{"resource/excludeFiles"}, recordPath{Kind: cms.KindResource, ExcludeFiles: true}},
	{"mapId", "GET", []string{"resource/mapId/map1", "resource/mapId/%6Dap1"},
		recordPath{Kind: cms.KindResource, MapID: "map1"}},
	{"limit 1", "GET", []string{"resource/limit/1", "resource/limit/%31"}, recordPath{Kind: cms.KindResource, Limit: 1}},
	{"limit 1000", "GET", []string{"resource/limit/1000"}, recordPath{Kind: cms.KindResource, Limit: 1000}},
	{"after", "GET", []string{"landing/after/abc"}, recordPath{Kind: cms.KindLanding, After: "abc"}},
	{"bbox", "GET", []string{"resource/bbox/-10.25,-20,30.5,40"},
		recordPath{Kind: cms.KindResource, BBox: &cms.BBox{MinLon: -10.25, MinLat: -20, MaxLon: 30.5, MaxLat: 40}}},
	{"bbox across the antimeridian", "GET", []string{"map/bbox/170,-10.5,-170,10"},
		recordPath{Kind: cms.KindMap, BBox: &cms.BBox{MinLon: 170, MinLat: -10.5, MaxLon: -170, MaxLat: 10}}},
	{"bbox edges", "GET", []string{"map/bbox/-180,-90,180,90", "map/bbox/-180.000,-90.0,180.0000000000000000000,90"},
		recordPath{Kind: cms.KindMap, BBox: &cms.BBox{MinLon: -180, MinLat: -90, MaxLon: 180, MaxLat: 90}}},
	{"bbox a point", "GET", []string{"map/bbox/0,0,0,0", "map/bbox/-0,-0,0.0,-0.000"},
		recordPath{Kind: cms.KindMap, BBox: &cms.BBox{}}},
	{"bbox many digits", "GET", []string{"map/bbox/0.30000000000000004,0,1,1"},
		recordPath{Kind: cms.KindMap, BBox: &cms.BBox{MinLon: 0.30000000000000004, MaxLon: 1, MaxLat: 1}}},
	{"updatedSince", "GET", []string{"landing/updatedSince/2026-01-31T23:59:58", "landing/updatedSince/2026-01-31T23%3A59%3A58"},
		recordPath{Kind: cms.KindLanding, UpdatedSince: pathSince}},
	{"updatedSince leap day", "GET", []string{"proposal/updatedSince/2024-02-29T00:00:00"},
		recordPath{Kind: cms.KindProposal, UpdatedSince: time.Date(2024, 2, 29, 0, 0, 0, 0, cet)}},

	// Options combined, in two orders.
	{"ids and options", "GET", []string{
		"resource/abc,def/published/*/fields/title/limit/5/excludeFiles",
		"resource/abc,def/excludeFiles/limit/5/fields/title/published/*",
	}, recordPath{Kind: cms.KindResource, IDs: []string{"abc", "def"}, Published: cms.PublishedAny,
		Fields: []string{"title"}, Limit: 5, ExcludeFiles: true}},
	{"one id and options", "GET", []string{
		"resource/abc/fields/title/ignoreFields/image",
		"resource/abc/ignoreFields/image/fields/title",
	}, recordPath{Kind: cms.KindResource, IDs: []string{"abc"}, Single: true, Fields: []string{"title"}, IgnoreFields: []string{"image"}}},
	{"every option", "GET", []string{
		"resource/mapId/map1/after/abc/updatedSince/2026-01-31T23:59:58/bbox/0,0,1,1/ignoreFields/title/fields/id/published/0/limit/10/excludeFiles",
		"resource/excludeFiles/limit/10/published/0/fields/id/ignoreFields/title/bbox/0,0,1,1/updatedSince/2026-01-31T23:59:58/after/abc/mapId/map1",
	}, recordPath{Kind: cms.KindResource, MapID: "map1", After: "abc", UpdatedSince: pathSince,
		BBox: &cms.BBox{MaxLon: 1, MaxLat: 1}, IgnoreFields: []string{"title"}, Fields: []string{"id"},
		Published: cms.UnpublishedOnly, Limit: 10, ExcludeFiles: true}},
	{"paging", "GET", []string{"map/limit/7/after/abc", "map/after/abc/limit/7"},
		recordPath{Kind: cms.KindMap, Limit: 7, After: "abc"}},

	// Delete.
	{"delete", "DELETE", []string{"proposal/abc,def"},
		recordPath{Kind: cms.KindProposal, Endpoint: endpointDelete, IDs: []string{"abc", "def"}}},
	{"delete one", "DELETE", []string{"map/abc"}, recordPath{Kind: cms.KindMap, Endpoint: endpointDelete, IDs: []string{"abc"}}},
	{"delete 1000", "DELETE", []string{"map/" + pathIDs(1000)},
		recordPath{Kind: cms.KindMap, Endpoint: endpointDelete, IDs: strings.Split(pathIDs(1000), ",")}},

	// Clone.
	{"clone Base", "POST", []string{"resource/clone", "resource/clone/Base"},
		recordPath{Kind: cms.KindResource, Endpoint: endpointClone, IDs: []string{"Base"}}},
	{"clone by GET", "GET", []string{"landing/clone/abc"},
		recordPath{Kind: cms.KindLanding, Endpoint: endpointClone, IDs: []string{"abc"}}},
	{"clone to a Map", "POST", []string{"resource/clone/abc/map/map1"},
		recordPath{Kind: cms.KindResource, Endpoint: endpointClone, IDs: []string{"abc"}, MapID: "map1"}},
	{"clone Base to a Map", "GET", []string{"resource/clone/map/map1", "resource/clone/Base/map/map1"},
		recordPath{Kind: cms.KindResource, Endpoint: endpointClone, IDs: []string{"Base"}, MapID: "map1"}},

	// Schemas.
	{"schema", "GET", []string{"map/schema.json"}, recordPath{Kind: cms.KindMap, Endpoint: endpointSchema}},
	{"schema full", "GET", []string{"landing/schema.json/full"},
		recordPath{Kind: cms.KindLanding, Endpoint: endpointSchema, Full: true}},
	{"schema multiple", "GET", []string{"proposal/schema.multiple.json"},
		recordPath{Kind: cms.KindProposal, Endpoint: endpointSchema, Multiple: true}},
	{"schema multiple full", "GET", []string{"map/schema.multiple.json/full"},
		recordPath{Kind: cms.KindMap, Endpoint: endpointSchema, Multiple: true, Full: true}},

	// Batches, for every kind.
	{"batch", "POST", []string{"landing/batch"}, recordPath{Kind: cms.KindLanding, Endpoint: endpointBatch}},
	{"batch status", "GET", []string{"resource/batch/b-123"},
		recordPath{Kind: cms.KindResource, Endpoint: endpointBatchStatus, IDs: []string{"b-123"}}},
}

func TestParsePath(t *testing.T) {
	t.Parallel()
	for _, c := range pathAccepted {
		for _, path := range c.paths {
			got, err := parsePath(c.method, path, cet)
			if err != nil {
				t.Errorf("%s: %s %s: %v", c.name, c.method, pathShort(path), err)
				continue
			}
			if !pathEqual(got, &c.want) {
				t.Errorf("%s: %s %s:\n got %+v\nwant %+v", c.name, c.method, pathShort(path), *got, c.want)
			}
		}
	}
}

// pathShort keeps a failure message readable.
func pathShort(path string) string {
	if len(path) > 100 {
		return path[:100] + "..."
	}
	return path
}

// pathEqual compares two parsed paths, UpdatedSince as an instant in the
// same zone.
func pathEqual(a, b *recordPath) bool {
	if !a.UpdatedSince.Equal(b.UpdatedSince) || a.UpdatedSince.Location().String() != b.UpdatedSince.Location().String() {
		return false
	}
	x, y := *a, *b
	x.UpdatedSince, y.UpdatedSince = time.Time{}, time.Time{}
	return reflect.DeepEqual(x, y)
}

func TestParsePathNotFound(t *testing.T) {
	t.Parallel()
	for _, path := range []string{"", "/", "/resource", "resources", "Resource", "auth2", "resource%2Fabc",
		"%72esource", "resource.json", "batch", "clone/abc", "schema.json", "resource\x00", " resource"} {
		for _, method := range []string{"GET", "POST", "DELETE", "PUT"} {
			_, err := parsePath(method, path, cet)
			if e, ok := errors.AsType[*cms.Error](err); !ok || e.Code != cms.CodeNotFound || e.Message != "Not found" {
				t.Errorf("%s %q: %v, want 404 Not found", method, path, err)
			}
		}
	}
}

func TestParsePathMethod(t *testing.T) {
	t.Parallel()
	for _, c := range pathWrongMethod {
		_, err := parsePath(c.method, c.path, cet)
		me, ok := errors.AsType[*methodError](err)
		if !ok {
			t.Errorf("%s %s: %v, want 405", c.method, c.path, err)
			continue
		}
		if got := strings.Join(me.allow, ", "); got != c.allow {
			t.Errorf("%s %s: Allow %s, want %s", c.method, c.path, got, c.allow)
		}
	}
}

// pathWrongMethod: a known route with a method it does not take is 405, before
// anything in the path is checked.
var pathWrongMethod = []struct{ method, path, allow string }{
	{"PUT", "resource", "GET, POST"},
	{"DELETE", "resource", "GET, POST"},
	{"PATCH", "map", "GET, POST"},
	{"get", "map", "GET, POST"},
	{"HEAD", "map", "GET, POST"},
	{"POST", "resource/abc", "DELETE, GET"},
	{"PUT", "resource/abc,def", "DELETE, GET"},
	{"POST", "resource/ab", "DELETE, GET"},
	{"POST", "resource/abc/published/1", "DELETE, GET"},
	{"POST", "resource/%70ublished/1", "DELETE, GET"},
	{"DELETE", "resource/published/1", "GET"},
	{"POST", "resource/limit/5", "GET"},
	{"DELETE", "resource/excludeFiles", "GET"},
	{"DELETE", "resource/full", "GET"},
	{"DELETE", "resource/clone/abc", "GET, POST"},
	{"PUT", "resource/clone", "GET, POST"},
	{"POST", "resource/schema.json", "GET"},
	{"DELETE", "map/schema.multiple.json/full", "GET"},
	{"GET", "resource/batch", "POST"},
	{"DELETE", "landing/batch", "POST"},
	{"POST", "resource/batch/b1", "GET"},
	{"DELETE", "resource/batch/ab", "GET"},
	// A trailing slash names the route without it.
	{"DELETE", "resource/", "GET, POST"},
	{"GET", "resource/batch/", "POST"},
	{"POST", "resource/abc/", "DELETE, GET"},
}

// pathMalformed: a known route with something wrong in it is 400.
var pathMalformed = []struct{ method, path string }{
	// Ids.
	{"GET", "resource/ab"}, {"GET", "resource/" + strings.Repeat("x", 81)}, {"GET", "resource/.abc"}, {"GET", "resource/%2Eabc"},
	{"GET", "resource/abc,"}, {"GET", "resource/,abc"}, {"GET", "resource/abc,,def"}, {"GET", "resource/,"},
	{"GET", "resource/a%2Cbc"}, {"GET", "resource/a%2cbc"}, {"GET", "resource/a%2Fbc"}, {"GET", "resource/a%22bc"}, {"GET", "resource/a%00bc"},
	{"GET", "resource/a'bc"}, {"GET", `resource/a"bc`}, {"GET", "resource/a%zzbc"}, {"GET", "resource/abc%2"}, {"GET", "resource/abc%"},
	{"GET", "resource/a bc"}, {"GET", "resource/a%20bc"}, {"GET", "resource/a+bc"}, {"GET", "resource/%C3%A9abc"}, {"GET", "resource/éabc"},
	{"GET", "resource/abc\x00"}, {"GET", "resource/a\xffbc"}, {"GET", "resource/abc?x"}, {"GET", "resource/abc#x"},
	{"GET", "resource/%70ublished"}, {"GET", "resource/%63lone"}, {"GET", "resource/clone,abc"}, {"GET", "resource/abc,clone"},
	{"GET", "resource/schema.json,abc"}, {"GET", "resource/abc,map"},
	{"GET", "resource/" + pathIDs(1001)}, {"DELETE", "resource/" + pathIDs(1001)}, {"GET", "resource/" + strings.Repeat(",", 1000)},
	{"GET", "resource/abc/def"},
	// Empty segments.
	{"GET", "resource/"}, {"POST", "resource/"}, {"GET", "resource//"}, {"GET", "resource//abc"}, {"DELETE", "resource//abc"},
	{"GET", "resource/abc/"}, {"DELETE", "resource/abc/"}, {"GET", "resource/abc//published/1"}, {"GET", "resource/excludeFiles/"},
	{"GET", "resource/published/"}, {"GET", "resource/published//"}, {"GET", "resource/clone/"}, {"POST", "resource/clone//map/m1"},
	{"POST", "resource/batch/"}, {"GET", "resource/schema.json/"}, {"GET", "resource/batch//"},
	// published.
	{"GET", "resource/published"}, {"GET", "resource/published/2"}, {"GET", "resource/published/01"}, {"GET", "resource/published/**"},
	{"GET", "resource/published/1,0"}, {"GET", "resource/published/%2B"}, {"GET", "resource/published/true"},
	{"GET", "resource/published/1/published/0"}, {"GET", "resource/published/1/published/1"},
	// fields, ignoreFields.
	{"GET", "resource/fields"}, {"GET", "resource/fields/ti tle"}, {"GET", "resource/fields/title,"}, {"GET", "resource/fields/,title"},
	{"GET", "resource/fields/ti%2Ctle"}, {"GET", "resource/fields/_x"}, {"GET", "resource/fields/1abc"}, {"GET", "resource/fields/title_IT"},
	{"GET", "resource/fields/title_ita"}, {"GET", "resource/fields/a%00"}, {"GET", "resource/fields/%"},
	{"GET", "resource/fields/id/fields/title"}, {"GET", "resource/ignoreFields"}, {"GET", "resource/ignoreFields/a,,b"},
	{"GET", "resource/ignoreFields/id/ignoreFields/id"},
	// excludeFiles.
	{"GET", "resource/excludeFiles/excludeFiles"}, {"GET", "resource/excludeFiles/1"},
	// mapId.
	{"GET", "map/mapId/abc"}, {"GET", "landing/mapId/abc"}, {"GET", "proposal/mapId/abc"}, {"GET", "resource/mapId/ab"},
	{"GET", "resource/mapId"}, {"GET", "resource/mapId/a,bc"}, {"GET", "resource/mapId/abc/mapId/abc"}, {"GET", "resource/mapId/map"},
	// limit.
	{"GET", "resource/limit"}, {"GET", "resource/limit/0"}, {"GET", "resource/limit/1001"}, {"GET", "resource/limit/05"},
	{"GET", "resource/limit/+5"}, {"GET", "resource/limit/%2B5"}, {"GET", "resource/limit/-5"}, {"GET", "resource/limit/1e3"},
	{"GET", "resource/limit/1.0"}, {"GET", "resource/limit/%205"}, {"GET", "resource/limit/10000"}, {"GET", "resource/limit/0x10"},
	{"GET", "resource/limit/99999999999999999999"}, {"GET", "resource/limit/5/limit/5"}, {"GET", "resource/limit/٣"},
	// after.
	{"GET", "resource/after"}, {"GET", "resource/after/ab"}, {"GET", "resource/after/published"}, {"GET", "resource/after/a%2Fbc"},
	{"GET", "resource/after/abc/after/abd"},
	// bbox.
	{"GET", "landing/bbox/0,0,1,1"}, {"GET", "proposal/bbox/0,0,1,1"}, {"GET", "resource/bbox"}, {"GET", "resource/bbox/0,0,1"},
	{"GET", "resource/bbox/0,0,1,1,1"}, {"GET", "resource/bbox/0,1,1,0"}, {"GET", "resource/bbox/0,0,181,1"},
	{"GET", "resource/bbox/-180.5,0,1,1"}, {"GET", "resource/bbox/0,-91,1,1"}, {"GET", "resource/bbox/0,0,1,90.0001"},
	{"GET", "resource/bbox/1e1,0,1,1"}, {"GET", "resource/bbox/0x1,0,1,1"}, {"GET", "resource/bbox/NaN,0,1,1"},
	{"GET", "resource/bbox/Inf,0,1,1"}, {"GET", "resource/bbox/+1,0,1,1"}, {"GET", "resource/bbox/01,0,1,1"},
	{"GET", "resource/bbox/.5,0,1,1"}, {"GET", "resource/bbox/1.,0,1,1"}, {"GET", "resource/bbox/1,,1,1"},
	{"GET", "resource/bbox/0%2C0,1,1"}, {"GET", "resource/bbox/%200,0,1,1"}, {"GET", "resource/bbox/0,0,1,1/bbox/0,0,1,1"},
	{"GET", "resource/bbox/1_0,0,1,1"}, {"GET", "resource/bbox/--1,0,1,1"},
	// updatedSince.
	{"GET", "resource/updatedSince"}, {"GET", "resource/updatedSince/2026-02-30T00:00:00"}, {"GET", "resource/updatedSince/2025-02-29T00:00:00"},
	{"GET", "resource/updatedSince/2026-01-31 23:59:58"}, {"GET", "resource/updatedSince/2026-01-31%2023:59:58"},
	{"GET", "resource/updatedSince/2026-01-31T23:59"}, {"GET", "resource/updatedSince/2026-01-31T23:59:58Z"},
	{"GET", "resource/updatedSince/2026-01-31T23:59:58.5"}, {"GET", "resource/updatedSince/2026-01-31T23:59:58+01:00"},
	{"GET", "resource/updatedSince/2026-01-31t23:59:58"}, {"GET", "resource/updatedSince/2026-1-31T23:59:58"},
	{"GET", "resource/updatedSince/2026-13-01T00:00:00"}, {"GET", "resource/updatedSince/2026-01-31T24:00:00"},
	{"GET", "resource/updatedSince/2026-01-31T23:60:00"}, {"GET", "resource/updatedSince/2026-01-31T23:59:60"},
	{"GET", "resource/updatedSince/2026-01-00T00:00:00"}, {"GET", "resource/updatedSince/2026-01-31"},
	{"GET", "resource/updatedSince/+2026-01-31T23:59:58"},
	// Unknown keywords and options of other endpoints.
	{"GET", "resource/nonsense/1"}, {"GET", "resource/abc/full"}, {"GET", "resource/full"}, {"GET", "resource/map/m1"},
	{"GET", "resource/abc/clone"}, {"GET", "resource/abc/batch"}, {"GET", "resource/abc/schema.json"}, {"GET", "resource/abc/Published/1"},
	{"GET", "resource/abc/%70ublished/1"}, {"GET", "resource/abc/abc"},
	// Delete takes ids only.
	{"DELETE", "resource/abc/published/1"}, {"DELETE", "resource/abc/excludeFiles"}, {"DELETE", "resource/abc,,def"},
	{"DELETE", "resource/ab"}, {"DELETE", "resource/abc,def/limit/5"},
	// Clone.
	{"GET", "map/clone/abc/map/def"}, {"POST", "landing/clone/map/m1"}, {"GET", "proposal/clone/map/abc"},
	{"GET", "resource/clone/abc/def"}, {"GET", "resource/clone/a,bc"}, {"GET", "resource/clone/abc,def"}, {"GET", "resource/clone/ab"},
	{"GET", "resource/clone/abc/map"}, {"GET", "resource/clone/map"}, {"GET", "resource/clone/abc/map/m1/extra"},
	{"GET", "resource/clone/map/m1/abc"}, {"GET", "resource/clone/abc/published/1"}, {"GET", "resource/clone/clone"},
	{"GET", "resource/clone/map/ab"}, {"GET", "resource/clone/abc/map/m1/map/m2"}, {"GET", "resource/clone/excludeFiles"},
	// Schema.
	{"GET", "resource/schema.json/fields/title"}, {"GET", "resource/schema.json/full/full"}, {"GET", "resource/schema.json/Full"},
	{"GET", "resource/schema.json/%66ull"}, {"GET", "resource/schema.multiple.json/abc"},
	// Batch.
	{"GET", "resource/batch/ab"}, {"GET", "resource/batch/abc/def"}, {"GET", "resource/batch/a,bc"}, {"GET", "resource/batch/abc,def"},
	{"GET", "resource/batch/abc/published/1"}, {"GET", "resource/batch/%62atch"},
}

func TestParsePathMalformed(t *testing.T) {
	t.Parallel()
	for _, c := range pathMalformed {
		rp, err := parsePath(c.method, c.path, cet)
		if e, ok := errors.AsType[*cms.Error](err); !ok || e.Code != cms.CodeMalformed || e.Message != "Wrong request" {
			t.Errorf("%s %s: %+v, %v, want 400 Wrong request", c.method, pathShort(c.path), rp, err)
		}
	}
}

// TestParsePathZone: /updatedSince is a wall time of the configured zone.
// One skipped by a clock change is malformed; one that comes twice is its
// earlier instant, so a sync misses nothing.
func TestParsePathZone(t *testing.T) {
	t.Parallel()
	rome, err := time.LoadLocation("Europe/Rome")
	if err != nil {
		t.Fatal(err)
	}
	cases := []struct {
		value string
		want  time.Time // zero: malformed
	}{
		{"2026-01-31T23:59:58", time.Date(2026, 1, 31, 22, 59, 58, 0, time.UTC)},
		{"2026-07-01T12:00:00", time.Date(2026, 7, 1, 10, 0, 0, 0, time.UTC)},
		{"2026-03-29T01:59:59", time.Date(2026, 3, 29, 0, 59, 59, 0, time.UTC)},
		{"2026-03-29T02:00:00", time.Time{}},
		{"2026-03-29T02:30:00", time.Time{}},
		{"2026-03-29T03:00:00", time.Date(2026, 3, 29, 1, 0, 0, 0, time.UTC)},
		{"2026-10-25T01:59:59", time.Date(2026, 10, 24, 23, 59, 59, 0, time.UTC)},
		{"2026-10-25T02:00:00", time.Date(2026, 10, 25, 0, 0, 0, 0, time.UTC)},
		{"2026-10-25T02:30:00", time.Date(2026, 10, 25, 0, 30, 0, 0, time.UTC)},
		{"2026-10-25T02:59:59", time.Date(2026, 10, 25, 0, 59, 59, 0, time.UTC)},
		{"2026-10-25T03:00:00", time.Date(2026, 10, 25, 2, 0, 0, 0, time.UTC)},
	}
	for _, c := range cases {
		rp, err := parsePath("GET", "map/updatedSince/"+c.value, rome)
		if c.want.IsZero() {
			if cms.ErrorCode(err) != cms.CodeMalformed {
				t.Errorf("%s: %v, want 400", c.value, err)
			}
			continue
		}
		if err != nil {
			t.Errorf("%s: %v", c.value, err)
			continue
		}
		if got := rp.UpdatedSince; !got.Equal(c.want) || got.Location() != rome {
			t.Errorf("%s: %v, want %v in Europe/Rome", c.value, got, c.want.In(rome))
		}
	}
	// No zone is UTC.
	rp, err := parsePath("GET", "map/updatedSince/2026-01-31T23:59:58", nil)
	if err != nil || !rp.UpdatedSince.Equal(time.Date(2026, 1, 31, 23, 59, 58, 0, time.UTC)) {
		t.Errorf("nil zone: %v, %v", rp, err)
	}
}

// formatPath writes rp back as a path, options in a fixed order, to check
// that an pathAccepted path means what it was parsed to.
func formatPath(rp *recordPath) string {
	segs := []string{string(rp.Kind)}
	switch rp.Endpoint {
	case endpointDelete:
		segs = append(segs, strings.Join(rp.IDs, ","))
	case endpointClone:
		segs = append(segs, "clone", rp.IDs[0])
		if rp.MapID != "" {
			segs = append(segs, "map", rp.MapID)
		}
	case endpointSchema:
		segs = append(segs, map[bool]string{false: "schema.json", true: "schema.multiple.json"}[rp.Multiple])
		if rp.Full {
			segs = append(segs, "full")
		}
	case endpointBatch:
		segs = append(segs, "batch")
	case endpointBatchStatus:
		segs = append(segs, "batch", rp.IDs[0])
	case endpointRead:
		if rp.IDs != nil {
			segs = append(segs, strings.Join(rp.IDs, ","))
		}
		switch rp.Published {
		case cms.UnpublishedOnly:
			segs = append(segs, "published", "0")
		case cms.PublishedAny:
			segs = append(segs, "published", "*")
		}
		if rp.Fields != nil {
			segs = append(segs, "fields", strings.Join(rp.Fields, ","))
		}
		if rp.IgnoreFields != nil {
			segs = append(segs, "ignoreFields", strings.Join(rp.IgnoreFields, ","))
		}
		if rp.ExcludeFiles {
			segs = append(segs, "excludeFiles")
		}
		if rp.MapID != "" {
			segs = append(segs, "mapId", rp.MapID)
		}
		if rp.Limit != 0 {
			segs = append(segs, "limit", strconv.Itoa(rp.Limit))
		}
		if rp.After != "" {
			segs = append(segs, "after", rp.After)
		}
		if b := rp.BBox; b != nil {
			f := func(x float64) string { return strconv.FormatFloat(x, 'f', -1, 64) }
			segs = append(segs, "bbox", f(b.MinLon)+","+f(b.MinLat)+","+f(b.MaxLon)+","+f(b.MaxLat))
		}
		if !rp.UpdatedSince.IsZero() {
			segs = append(segs, "updatedSince", rp.UpdatedSince.Format(sinceLayout))
		}
	}
	return strings.Join(segs, "/")
}

// FuzzParsePath: no path panics; every refusal is 404 (no kind), 405 or
// 400; an pathAccepted path holds only valid values and reads the same when
// written back.
func FuzzParsePath(f *testing.F) {
	for _, c := range pathAccepted {
		for _, p := range c.paths {
			f.Add(c.method, p)
		}
	}
	for _, c := range pathWrongMethod {
		f.Add(c.method, c.path)
	}
	for _, c := range pathMalformed {
		f.Add(c.method, c.path)
	}
	f.Fuzz(func(t *testing.T, method, path string) {
		rp, err := parsePath(method, path, cet)
		if err != nil {
			pathCheckRefusal(t, method, path, err)
			return
		}
		pathCheckAccepted(t, method, path, rp)
		again, err := parsePath(method, formatPath(rp), cet)
		if err != nil || !pathEqual(again, rp) {
			t.Fatalf("%s %q: parsed %+v, written %q, read back %+v, %v", method, path, *rp, formatPath(rp), again, err)
		}
	})
}

func pathCheckRefusal(t *testing.T, method, path string, err error) {
	t.Helper()
	kind, _, _ := strings.Cut(path, "/")
	isKind := slices.Contains(cms.Kinds(), cms.Kind(kind))
	if me, ok := errors.AsType[*methodError](err); ok {
		if !isKind || len(me.allow) == 0 || !slices.IsSorted(me.allow) || slices.Contains(me.allow, method) {
			t.Fatalf("%s %q: 405 with Allow %v", method, path, me.allow)
		}
		return
	}
	e, ok := errors.AsType[*cms.Error](err)
	switch {
	case !ok:
		t.Fatalf("%s %q: %T %v, want a *cms.Error", method, path, err, err)
	case e.Code == cms.CodeNotFound && e.Message == "Not found" && !isKind:
	case e.Code == cms.CodeMalformed && e.Message == "Wrong request" && isKind:
	default:
		t.Fatalf("%s %q: %s %q (kind %v)", method, path, e.Code, e.Message, isKind)
	}
}

// pathEndpointMethods are the methods of each endpoint.
var pathEndpointMethods = map[endpoint][]string{
	endpointRead: {"GET"}, endpointUpsert: {"POST"}, endpointDelete: {"DELETE"}, endpointClone: {"GET", "POST"},
	endpointSchema: {"GET"}, endpointBatch: {"POST"}, endpointBatchStatus: {"GET"},
}

func pathCheckAccepted(t *testing.T, method, path string, rp *recordPath) {
	t.Helper()
	fail := func(what string, v any) { t.Fatalf("%s %q: pathAccepted with %s %v: %+v", method, path, what, v, *rp) }
	if !slices.Contains(cms.Kinds(), rp.Kind) || !strings.HasPrefix(path, string(rp.Kind)) {
		fail("kind", rp.Kind)
	}
	if !slices.Contains(pathEndpointMethods[rp.Endpoint], method) {
		fail("endpoint", rp.Endpoint)
	}
	if strings.Contains(path, "//") || strings.HasSuffix(path, "/") {
		fail("empty segment", path)
	}
	if len(rp.IDs) > MaxIDs {
		fail("ids", len(rp.IDs))
	}
	for _, id := range slices.Concat(rp.IDs, []string{rp.MapID, rp.After}) {
		if id != "" && !cms.ValidID(id) {
			fail("id", id)
		}
	}
	for _, name := range slices.Concat(rp.Fields, rp.IgnoreFields) {
		if !fieldName.MatchString(name) {
			fail("field", name)
		}
	}
	if rp.Limit < 0 || rp.Limit > MaxIDs {
		fail("limit", rp.Limit)
	}
	if rp.MapID != "" && rp.Kind != cms.KindResource {
		fail("mapId", rp.MapID)
	}
	if b := rp.BBox; b != nil {
		if rp.Kind != cms.KindResource && rp.Kind != cms.KindMap || b.MinLat > b.MaxLat ||
			b.MinLat < -90 || b.MaxLat > 90 || b.MinLon < -180 || b.MinLon > 180 || b.MaxLon < -180 || b.MaxLon > 180 {
			fail("bbox", *b)
		}
	}
	if !rp.UpdatedSince.IsZero() && rp.UpdatedSince.Location() != cet {
		fail("updatedSince", rp.UpdatedSince)
	}
	read := rp.Endpoint == endpointRead
	options := rp.Published != cms.PublishedOnly || rp.Fields != nil || rp.IgnoreFields != nil || rp.ExcludeFiles ||
		rp.Limit != 0 || rp.After != "" || rp.BBox != nil || !rp.UpdatedSince.IsZero()
	switch {
	case !read && options, !read && rp.Single, rp.Endpoint != endpointSchema && (rp.Multiple || rp.Full):
		fail("options of another endpoint", rp.Endpoint)
	case read && rp.Single != (len(rp.IDs) == 1), read && rp.IDs != nil && len(rp.IDs) == 0:
		fail("ids of a read", rp.IDs)
	case rp.Endpoint == endpointDelete && len(rp.IDs) == 0:
		fail("ids of a delete", rp.IDs)
	case (rp.Endpoint == endpointClone || rp.Endpoint == endpointBatchStatus) && len(rp.IDs) != 1:
		fail("ids", rp.IDs)
	case (rp.Endpoint == endpointUpsert || rp.Endpoint == endpointSchema || rp.Endpoint == endpointBatch) && rp.IDs != nil:
		fail("ids", rp.IDs)
	case rp.MapID != "" && !read && rp.Endpoint != endpointClone:
		fail("mapId", rp.MapID)
	}
}
