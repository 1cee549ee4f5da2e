package transport

import (
	"net/http/httptest"
	"strings"
	"testing"

	"github.com/bwcms/cms/cms"
)

// TestReadQueryOptions: each read option given as a query parameter
// answers exactly what its path segment answers (status and body), ids
// in the query answer an array, and the two forms never mix.
func TestReadQueryOptions(t *testing.T) {
	t.Parallel()
	e := newEnv(t, envOptions{})
	seedReadFixtures(t, e)
	if w := e.send("admin", "POST", "/api/bw/v2/resource", `{"id":"ddd","title":"D2"}`, nil); w.Code != 202 {
		t.Fatalf("update ddd: %d", w.Code)
	}
	get := func(path string) *httptest.ResponseRecorder {
		return e.send("reader", "GET", "/api/bw/v2/"+path, "", nil)
	}

	same := []struct{ path, query string }{
		{"resource", "resource?_=12345"}, // not an option: ignored
		{"resource/published/0", "resource?published=0"},
		{"resource/published/*", "resource?published=%2A"},
		{"resource/limit/2/after/aaa", "resource?limit=2&after=aaa"},
		{"resource/bbox/179,-1,-179,1/published/*/limit/1", "resource?bbox=179%2C-1%2C-179%2C1&published=*&limit=1"},
		{"resource/bbox/8,44,11,47", "resource?bbox=8,44,11,47"},
		{"resource/mapId/mp1", "resource?mapId=mp1"},
		{"resource/updatedSince/2026-11-22T12:00:00", "resource?updatedSince=2026-11-22T12%3A00%3A00"},
		{"resource/eee,aaa,zzz", "resource?ids=eee%2Caaa%2Czzz"},
		{"resource/ccc,aaa/published/*", "resource/ccc,aaa?published=*"},
		{"resource/ccc,aaa/published/*", "resource?ids=ccc,aaa&published=*"},
		{"resource/aaa/fields/title_it,title", "resource/aaa?fields=title_it%2Ctitle"},
		{"resource/aaa,bbb/fields/title", "resource?fields=title&ids=aaa,bbb"},
		{"resource/aaa/ignoreFields/image/fields/title,image", "resource/aaa?ignoreFields=image&fields=title,image"},
		{"resource/aaa,bbb/excludeFiles", "resource?ids=aaa,bbb&excludeFiles=1"},
		{"resource/aaa,bbb/excludeFiles", "resource?ids=aaa,bbb&excludeFiles=true"},
		{"resource/zzz,yyy", "resource?ids=zzz,yyy"},                                               // 404
		{"resource/published/7", "resource?published=7"},                                           // 400
		{"resource/fields/colour", "resource?fields=colour"},                                       // 400: unknown name
		{"resource/limit/0", "resource?limit=0"},                                                   // 400
		{"resource/limit/1001", "resource?limit=1001"},                                             // 400
		{"resource/after/a", "resource?after=a"},                                                   // 400
		{"resource/bbox/0,91,1,92", "resource?bbox=0,91,1,92"},                                     // 400
		{"resource/updatedSince/2026-13-01T00:00:00", "resource?updatedSince=2026-13-01T00:00:00"}, // 400
		{"landing/bbox/0,0,1,1", "landing?bbox=0,0,1,1"},                                           // 400
		{"map/mapId/mp1", "map?mapId=mp1"},                                                         // 400
	}
	for _, c := range same {
		want, got := get(c.path), get(c.query)
		if got.Code != want.Code || got.Body.String() != want.Body.String() {
			t.Errorf("%s: %d %s\nwant (as %s) %d %s", c.query, got.Code, got.Body, c.path, want.Code, want.Body)
		}
	}

	// One id in the query: an array, and no ETag.
	if w := get("resource?ids=aaa&fields=title"); w.Code != 200 || strings.TrimSpace(w.Body.String()) != `[{"id":"aaa","title":"A"}]` {
		t.Errorf("ids=aaa: %d %s", w.Code, w.Body)
	}

	for _, q := range []string{
		"resource/published/*?limit=1",          // both forms
		"resource/aaa/fields/title?published=*", // both forms, after ids
		"resource/aaa?ids=bbb",                  // ids twice
		"resource?limit=1&limit=2",              // repeated
		"resource?limit=1&_=123",                // a parameter that is no option beside one
		"resource?excludeFiles=0",
		"resource?excludeFiles",
		"resource?ids=",
		"resource?ids=aaa,,bbb",
		"resource?ids=" + pathIDs(1001),
		"resource?after=a%2Cb",
		"resource?limit=1%2C2",
		"resource?fields=title&fields=title_it",
		"resource?search=",                            // empty
		"resource?search=%21%3F",                      // no letter or digit
		"resource?search=" + strings.Repeat("a", 201), // too long
		"resource?search=a+b+c+d+e+f+g+h+i",           // nine words
		"resource?search=lake&search=hill",            // repeated
		"resource/published/*?search=lake",            // both forms
		"resource?search=lake&_=1",                    // beside a parameter that is no option
		"resource?mapId=%ZZ",
	} {
		if w := get(q); w.Code != 400 || strings.TrimSpace(w.Body.String()) != `{"fail":"Wrong request"}` {
			t.Errorf("%s: %d %s, want 400", q, w.Code, w.Body)
		}
	}
	// Authorization still comes first.
	if w := e.send("", "GET", "/api/bw/v2/resource?published=7", "", nil); w.Code != 401 {
		t.Errorf("no token: %d", w.Code)
	}
	// A thousand ids in the query are fine.
	if w := get("resource?ids=" + pathIDs(999) + ",aaa"); w.Code != 200 || strings.TrimSpace(w.Body.String()) == "" {
		t.Errorf("1000 ids: %d %s", w.Code, w.Body)
	}
}

// FuzzParseQuery: whatever the query, a read parses to what its path form
// (formatPath) parses to, ids in the query answering an array; refusals
// are 400 Wrong request; a query with an option never joins option
// segments of the path.
func FuzzParseQuery(f *testing.F) {
	for _, c := range []struct{ path, query string }{
		{"resource", "published=*&limit=2&after=abc"},
		{"resource", "ids=abc%2Cdef&fields=title,title_it&excludeFiles=1"},
		{"resource/abc", "ignoreFields=image&mapId=mp1"},
		{"map", "bbox=179,-1,-179,1&updatedSince=2026-01-31T23:59:58"},
		{"resource/published/1", "limit=1"},
		{"landing", "_=1&x=%ZZ"},
		{"proposal", "search=lake&ids=a"},
		{"resource", "search=Citt%C3%A0+di&limit=2&after=abc&mapId=mp1"},
		{"map", "search=%21"},
		{"resource", "limit=1&limit=2"},
	} {
		f.Add(c.path, c.query)
	}
	f.Fuzz(func(t *testing.T, path, query string) {
		rp, err := parseRequest("GET", path, query, cet)
		if err != nil {
			pathCheckRefusal(t, "GET", path, err)
			return
		}
		plain, err := parsePath("GET", path, cet)
		if err != nil {
			t.Fatalf("%q ? %q: accepted, but its path alone is refused: %v", path, query, err)
		}
		if rp.Endpoint != endpointRead {
			if !pathEqual(rp, plain) {
				t.Fatalf("%q ? %q: not a read, yet the query changed it", path, query)
			}
			return
		}
		optionSegments := strings.Count(path, "/")
		if plain.IDs != nil {
			optionSegments--
		}
		if !pathEqual(rp, plain) && optionSegments > 0 {
			t.Fatalf("%q ? %q: query options beside path options", path, query)
		}
		again, err := parsePath("GET", formatPath(rp), cet)
		if err != nil {
			t.Fatalf("%q ? %q: parsed %+v, its path form %q refused: %v", path, query, *rp, formatPath(rp), err)
		}
		if again.Single && !rp.Single {
			again.Single = false // ids in the query answer an array
		}
		if rp.Search != "" {
			// The query form's own option: what the service accepts.
			if _, err := cms.SearchTerms(rp.Search); err != nil {
				t.Fatalf("%q ? %q: search %q accepted, the service refuses it: %v", path, query, rp.Search, err)
			}
			again.Search = rp.Search
		}
		if !pathEqual(again, rp) {
			t.Fatalf("%q ? %q: parsed %+v, its path form %q reads %+v", path, query, *rp, formatPath(rp), *again)
		}
	})
}
