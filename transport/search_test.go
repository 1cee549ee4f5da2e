package transport

import (
	"net/http/httptest"
	"strings"
	"testing"
)

// TestReadSearch: the query form's search finds Resources by words of
// their ids and titles in any language, case and accents folded, in
// ascending id order that limit and after page, combined with the other
// options, on each store; the words of a title changed or a record
// deleted no longer find it.
func TestReadSearch(t *testing.T) {
	t.Parallel()
	forEachStore(t, func(t *testing.T, e *env) {
		seedReadFixtures(t, e)
		for _, body := range []string{
			`{"id":"como-1","title":"Lake Como","title_it":"Lago di Como","published":true,"locationLat":45.9,"locationLon":9.2}`,
			`{"id":"como-2","title":"Como town","title_it":"Città di Como","published":false}`,
			`{"id":"garda","title":"Lake Garda","title_it":"Lago di Garda","published":true}`,
			`{"id":"mp2","resourceIds":["como-2","garda"]}`,
		} {
			path := "/api/bw/v2/resource"
			if strings.Contains(body, `"mp2"`) {
				path = "/api/bw/v2/map"
			}
			if w := e.send("admin", "POST", path, body, nil); w.Code != 201 {
				t.Fatalf("%s: %d %s", body, w.Code, w.Body)
			}
		}
		get := func(query string, check func(*testing.T, *env, *httptest.ResponseRecorder)) step {
			return step{user: "reader", method: "GET", path: "/api/bw/v2/resource?" + query, status: 200, check: check}
		}
		runFlow(t, e, []step{
			get("search=como", wantIDs("como-1")), // published only, the default
			get("search=como&published=*", wantIDs("como-1", "como-2")),
			get("search=CITTA&published=*", wantIDs("como-2")),
			get("search=citt%C3%A0&published=*", wantIDs("como-2")),
			get("search=lag+di", wantIDs("como-1", "garda")),
			get("search=di+lag", wantIDs("como-1", "garda")),
			get("search=lake+como", wantIDs("como-1")),
			get("search=lake+town&published=*", wantIDs()),
			get("search=a", wantIDs("aaa")), // the ids' words too
			get("search=lago&limit=1", wantIDs("como-1")),
			get("search=lago&limit=1&after=como-1", wantIDs("garda")),
			get("search=lago&after=garda", wantIDs()),
			get("search=como&mapId=mp2&published=*", wantIDs("como-2")),
			get("search=lake&bbox=9,45,10,46", wantIDs("como-1")),
			get("search=lake&updatedSince=2000-01-01T00:00:00&fields=title_it", wantIDs("como-1", "garda")),
			get("search=lago&ids=garda,como-2,como-1&published=*", wantIDs("garda", "como-1")),
			{user: "reader", method: "GET", path: "/api/bw/v2/resource?search=como&fields=title_it", status: 200,
				want: `[{"id":"como-1","title_it":"Lago di Como"}]`},
		})
		// A new title: the old words find it no more.
		if w := e.send("admin", "POST", "/api/bw/v2/resource", `{"id":"garda","title_it":"Lago di Garda, Riva"}`, nil); w.Code != 202 {
			t.Fatalf("update: %d %s", w.Code, w.Body)
		}
		if w := e.send("admin", "DELETE", "/api/bw/v2/resource/como-1", "", nil); w.Code != 202 {
			t.Fatalf("delete: %d %s", w.Code, w.Body)
		}
		runFlow(t, e, []step{
			get("search=riva", wantIDs("garda")),
			get("search=lago", wantIDs("garda")),
			get("search=como&published=*", wantIDs("como-2")),
		})
	})
}
