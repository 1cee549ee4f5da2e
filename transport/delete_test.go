package transport

import (
	"fmt"
	"net/http/httptest"
	"testing"
)

// etagOf reads a record and returns its ETag.
func etagOf(t *testing.T, e *env, kind, id string) string {
	t.Helper()
	w := e.send("admin", "GET", "/api/bw/v2/"+kind+"/"+id+"/published/*", "", nil)
	if w.Code != 200 || w.Header().Get("ETag") == "" {
		t.Fatalf("read %s %s: %d %s (ETag %q)", kind, id, w.Code, w.Body, w.Header().Get("ETag"))
	}
	return w.Header().Get("ETag")
}

// exists tells whether a record can be read.
func exists(t *testing.T, e *env, kind, id string) bool {
	t.Helper()
	w := e.send("admin", "GET", "/api/bw/v2/"+kind+"/"+id+"/published/*", "", nil)
	if w.Code != 200 && w.Code != 404 {
		t.Fatalf("read %s %s: %d %s", kind, id, w.Code, w.Body)
	}
	return w.Code == 200
}

// TestDeleteIfMatch: If-Match holds for deletes as for updates (RFC 9110:
// the precondition comes before the method). A stale ETag on a DELETE or
// on deleteElementIrreversibly is 412 and deletes nothing; the current
// one (or "*") deletes; If-Match on a DELETE of several ids is 400 and
// deletes nothing; on a record that is gone, 412.
func TestDeleteIfMatch(t *testing.T) {
	t.Parallel()
	forEachStore(t, func(t *testing.T, e *env) {
		for _, id := range []string{"im1", "im2", "im3", "im4", "im5"} {
			if w := e.send("admin", "POST", "/api/bw/v2/resource", `{"id":"`+id+`","title":"T"}`, nil); w.Code != 201 {
				t.Fatal(w.Code, w.Body)
			}
		}
		stale := map[string]string{}
		for _, id := range []string{"im1", "im2"} {
			stale[id] = etagOf(t, e, "resource", id)
			e.clock.Advance(1e9)
			if w := e.send("admin", "POST", "/api/bw/v2/resource", `{"id":"`+id+`","title":"Changed"}`, nil); w.Code != 202 {
				t.Fatal(w.Code, w.Body)
			}
		}
		ifMatch := func(tag string) map[string]string { return map[string]string{"If-Match": tag} }
		const precondition = `{"fail":"Precondition failed"}`
		runFlow(t, e, []step{
			{name: "DELETE stale", user: "admin", method: "DELETE", path: "/api/bw/v2/resource/im1",
				header: ifMatch(stale["im1"]), status: 412, want: precondition},
			{name: "deleteElementIrreversibly stale", user: "admin", method: "POST", path: "/api/bw/v2/resource",
				body: `{"id":"im2","deleteElementIrreversibly":true}`, header: ifMatch(stale["im2"]), status: 412, want: precondition},
			{name: "DELETE of several ids", user: "admin", method: "DELETE", path: "/api/bw/v2/resource/im3,im4",
				header: ifMatch("*"), status: 400, want: `{"fail":"Wrong request"}`},
		})
		for _, id := range []string{"im1", "im2", "im3", "im4"} {
			if !exists(t, e, "resource", id) {
				t.Errorf("%s was deleted by a refused request", id)
			}
		}
		deleted := func(id string) func(*testing.T, *env, *httptest.ResponseRecorder) {
			return func(t *testing.T, e *env, _ *httptest.ResponseRecorder) {
				if exists(t, e, "resource", id) {
					t.Errorf("%s is still there", id)
				}
			}
		}
		runFlow(t, e, []step{
			{name: "DELETE current", user: "admin", method: "DELETE", path: "/api/bw/v2/resource/im1",
				header: ifMatch(etagOf(t, e, "resource", "im1")), status: 202, check: deleted("im1")},
			{name: "deleteElementIrreversibly current", user: "admin", method: "POST", path: "/api/bw/v2/resource",
				body: `{"id":"im2","deleteElementIrreversibly":true}`, header: ifMatch(etagOf(t, e, "resource", "im2")),
				status: 202, check: deleted("im2")},
			{name: "DELETE *", user: "admin", method: "DELETE", path: "/api/bw/v2/resource/im3",
				header: ifMatch("*"), status: 202, check: deleted("im3")},
			{name: "DELETE of one id named twice", user: "admin", method: "DELETE", path: "/api/bw/v2/resource/im4,im4",
				header: ifMatch(etagOf(t, e, "resource", "im4")), status: 202, check: deleted("im4")},
			{name: "DELETE gone", user: "admin", method: "DELETE", path: "/api/bw/v2/resource/im1",
				header: ifMatch(stale["im1"]), status: 412, want: precondition},
			{name: "DELETE gone, *", user: "admin", method: "DELETE", path: "/api/bw/v2/resource/im1",
				header: ifMatch("*"), status: 412, want: precondition},
			{name: "DELETE without If-Match", user: "admin", method: "DELETE", path: "/api/bw/v2/resource/im5",
				status: 202, check: deleted("im5")},
		})
	})
}

// TestDeleteKeepsTwinBlockReferences: a Landing block's id names the Map
// when a Map and a Landing both have it. Deleting the Landing leaves the
// block (and its record's timeLastUpdate) as it was; deleting the Map
// leaves it too, now naming the Landing; deleting the last of the two
// takes the id out.
func TestDeleteKeepsTwinBlockReferences(t *testing.T) {
	t.Parallel()
	forEachStore(t, func(t *testing.T, e *env) {
		for _, c := range []struct{ kind, body string }{
			{"map", `{"id":"twin1"}`},
			{"landing", `{"id":"twin1"}`},
			{"map", `{"id":"twin2"}`},
			{"landing", `{"id":"twin2"}`},
			{"landing", `{"id":"holder","landingBlocks":[{"resourceIds":["twin1","twin2"]}]}`},
		} {
			if w := e.send("admin", "POST", "/api/bw/v2/"+c.kind, c.body, nil); w.Code != 201 {
				t.Fatal(c.body, w.Code, w.Body)
			}
		}
		blocks := func(t *testing.T) string {
			t.Helper()
			w := e.send("admin", "GET", "/api/bw/v2/landing/holder/published/*/fields/landingBlocks", "", nil)
			if w.Code != 200 {
				t.Fatal(w.Code, w.Body)
			}
			list, _ := field(t, w, "landingBlocks").([]any)
			if len(list) != 1 {
				t.Fatalf("landingBlocks: %s", w.Body)
			}
			return fmt.Sprint(list[0].(map[string]any)["resourceIds"])
		}
		const both = "[twin1 twin2]"
		if got := blocks(t); got != both {
			t.Fatalf("blocks before: %s", got)
		}
		etag := etagOf(t, e, "landing", "holder")
		e.clock.Advance(1e9)
		for _, path := range []string{"/api/bw/v2/landing/twin1", "/api/bw/v2/map/twin2"} {
			if w := e.send("admin", "DELETE", path, "", nil); w.Code != 202 {
				t.Fatal(path, w.Code, w.Body)
			}
			if got := blocks(t); got != both {
				t.Errorf("after DELETE %s the block reads %s", path, got)
			}
			if got := etagOf(t, e, "landing", "holder"); got != etag {
				t.Errorf("after DELETE %s the holder changed (ETag %s, was %s)", path, got, etag)
			}
		}
		for _, path := range []string{"/api/bw/v2/map/twin1", "/api/bw/v2/landing/twin2"} {
			if w := e.send("admin", "DELETE", path, "", nil); w.Code != 202 {
				t.Fatal(path, w.Code, w.Body)
			}
		}
		if got := blocks(t); got != "[]" {
			t.Errorf("after deleting both twins the block reads %s", got)
		}
		referencesExist(t, e)
	})
}
