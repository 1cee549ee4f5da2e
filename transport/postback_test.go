package transport

import (
	"strings"
	"testing"

	"github.com/bwcms/cms/cms"
)

// TestReadPostedBackIsSkip: a record read and posted back unchanged is a
// Skip (read-only fields are ignored, the rest compares equal), for every
// kind, a record with one language set and one with every field.
func TestReadPostedBackIsSkip(t *testing.T) {
	t.Parallel()
	forEachStore(t, func(t *testing.T, e *env) {
		for _, c := range []struct{ kind, body string }{
			{"resource", `{"id":"pb1","title":"Only English"}`},
			{"resource", `{"id":"pb2","title":"Both","title_it":"Entrambi","shortDescription":"short","shortDescription_it":null}`},
			{"map", `{"id":"pb3","title":"A map"}`},
			{"landing", `{"id":"pb4","title":"A landing"}`},
			{"proposal", `{"id":"pb5","title":"A proposal"}`},
		} {
			if w := e.send("admin", "POST", "/api/bw/v2/"+c.kind, c.body, nil); w.Code != 201 {
				t.Fatalf("create %s: %d %s", c.body, w.Code, w.Body)
			}
			id := strings.Split(c.body, `"`)[3]
			read := e.send("admin", "GET", "/api/bw/v2/"+c.kind+"/"+id+"/published/*", "", nil)
			if read.Code != 200 {
				t.Fatalf("read %s: %d", id, read.Code)
			}
			record := strings.TrimSpace(read.Body.String())
			w := e.send("admin", "POST", "/api/bw/v2/"+c.kind, record, nil)
			if w.Code != 200 || !strings.HasPrefix(w.Body.String(), `{"done":"Skip `) {
				t.Errorf("%s posted back: %d %s\nread: %s", id, w.Code, w.Body, record)
			}
			// (Reading a Proposal by id counts the read.)
			again := strings.TrimSpace(e.send("admin", "GET", "/api/bw/v2/"+c.kind+"/"+id+"/published/*", "", nil).Body.String())
			if c.kind == "proposal" {
				again = strings.Replace(again, `"statsAccess":2`, `"statsAccess":1`, 1)
			}
			if again != record {
				t.Errorf("%s read after posting back:\n%s\nbefore:\n%s", id, again, record)
			}
		}
	})
}

// TestFullRecordPostedBackIsSkip: the example record of every kind (every
// field, items, references), given in the default language only and in
// all three, read and posted back: a Skip, the record unchanged.
func TestFullRecordPostedBackIsSkip(t *testing.T) {
	t.Parallel()
	forEachStore(t, func(t *testing.T, e *env) {
		for _, langs := range [][]string{{"en"}, {"en", "it", "de"}} {
			l, _ := cms.NewLanguages(langs[0], langs...)
			codec, _ := cms.NewCodec(l)
			for _, kind := range cms.Kinds() {
				rec := cms.SampleRecord(kind, l)
				path := "/api/bw/v2/" + string(kind)
				body := string(codec.AppendPatch(nil, rec))
				// The records it names first.
				w := e.send("admin", "POST", path, body, nil)
				for _, m := range missingRef.FindAllStringSubmatch(w.Body.String(), -1) {
					k := map[string]string{"Resource": "resource", "Map": "map", "Map or Landing": "map", "Landing": "landing"}[m[1]]
					e.send("admin", "POST", "/api/bw/v2/"+k, `{"id":"`+m[2]+`"}`, nil)
				}
				if w := e.send("admin", "POST", path, body, nil); w.Code != 201 && w.Code != 202 && w.Code != 200 {
					t.Fatalf("%s %v: %d %s", kind, langs, w.Code, w.Body)
				}
				readPath := path + "/" + rec.RecordID() + "/published/*"
				read := strings.TrimSpace(e.send("admin", "GET", readPath, "", nil).Body.String())
				if w := e.send("admin", "POST", path, read, nil); w.Code != 200 {
					t.Errorf("%s in %v posted back: %d %s", kind, langs, w.Code, w.Body)
					t.Logf("before: %s\nafter:  %s", read, strings.TrimSpace(e.send("admin", "GET", readPath, "", nil).Body.String()))
				}
			}
		}
	})
}

// TestNegativeZeroIsZero: -0 (in any spelling, or a value too small for a
// float64 that rounds to -0) is stored and read as 0, so posting 0
// afterwards is a Skip.
func TestNegativeZeroIsZero(t *testing.T) {
	t.Parallel()
	forEachStore(t, func(t *testing.T, e *env) {
		for i, zero := range []string{"-0", "-0.0", "-0e3", "-1e-400"} {
			id := "nz" + string(rune('a'+i))
			body := `{"id":"` + id + `","locationLat":` + zero + `,"locationLon":` + zero + `}`
			if w := e.send("admin", "POST", "/api/bw/v2/resource", body, nil); w.Code != 201 {
				t.Fatalf("create %s: %d %s", body, w.Code, w.Body)
			}
			read := e.send("admin", "GET", "/api/bw/v2/resource/"+id+"/published/*/fields/locationLat,locationLon", "", nil)
			if got, want := strings.TrimSpace(read.Body.String()), `{"id":"`+id+`","locationLat":0,"locationLon":0}`; got != want {
				t.Errorf("%s read back %s, want %s", zero, got, want)
			}
			w := e.send("admin", "POST", "/api/bw/v2/resource", `{"id":"`+id+`","locationLat":0,"locationLon":0}`, nil)
			if w.Code != 200 {
				t.Errorf("%s then 0: %d %s, want 200 Skip", zero, w.Code, w.Body)
			}
		}
	})
}

// TestEmptyAssignmentListsReadNull: a Resource's mapIds/mapSecondaryIds
// and a Map's resourceIds/secondaryResourceIds read null whenever they are
// empty (never assigned, or emptied), singly, in lists and in /full; a
// record read and posted back, or posted with [] there, is a Skip.
func TestEmptyAssignmentListsReadNull(t *testing.T) {
	t.Parallel()
	forEachStore(t, func(t *testing.T, e *env) {
		const resFields = "/fields/mapIds,mapSecondaryIds"
		const mapFields = "/fields/resourceIds,secondaryResourceIds"
		runFlow(t, e, []step{
			{user: "admin", method: "POST", path: "/api/bw/v2/resource", body: `{"id":"lone","published":true}`, status: 201},
			{user: "admin", method: "POST", path: "/api/bw/v2/map", body: `{"id":"empty","published":true}`, status: 201},
			{name: "never assigned: one", user: "admin", method: "GET", path: "/api/bw/v2/resource/lone" + resFields, status: 200,
				want: `{"id":"lone","mapIds":null,"mapSecondaryIds":null}`},
			{name: "never assigned: list", user: "admin", method: "GET", path: "/api/bw/v2/map" + mapFields, status: 200,
				want: `[{"id":"empty","resourceIds":null,"secondaryResourceIds":null}]`},
			{name: "assigned", user: "admin", method: "POST", path: "/api/bw/v2/resource", body: `{"id":"lone","mapIds":["empty"]}`, status: 202},
			{user: "admin", method: "GET", path: "/api/bw/v2/map/empty" + mapFields, status: 200,
				want: `{"id":"empty","resourceIds":["lone"],"secondaryResourceIds":null}`},
			{name: "emptied with []", user: "admin", method: "POST", path: "/api/bw/v2/map", body: `{"id":"empty","resourceIds":[]}`, status: 202},
			{user: "admin", method: "GET", path: "/api/bw/v2/resource/lone" + resFields, status: 200,
				want: `{"id":"lone","mapIds":null,"mapSecondaryIds":null}`},
			{user: "admin", method: "GET", path: "/api/bw/v2/map/empty" + mapFields, status: 200,
				want: `{"id":"empty","resourceIds":null,"secondaryResourceIds":null}`},
			{name: "[] again is a Skip", user: "admin", method: "POST", path: "/api/bw/v2/resource",
				body: `{"id":"lone","mapIds":[],"mapSecondaryIds":[]}`, status: 200},
			{name: "null is a Skip", user: "admin", method: "POST", path: "/api/bw/v2/map",
				body: `{"id":"empty","resourceIds":null,"secondaryResourceIds":null}`, status: 200},
		})
		full := e.send("admin", "GET", "/api/bw/v2/resource/schema.json/full", "", nil)
		if !strings.Contains(full.Body.String(), `"mapIds":null,"mapSecondaryIds":null`) {
			t.Errorf("/full: %.300s", full.Body.String())
		}
	})
}
