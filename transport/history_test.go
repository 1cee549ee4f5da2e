package transport

import (
	"encoding/json"
	"net/http"
	"slices"
	"strings"
	"testing"
)

// historyAnswer is the body of GET <kind>/{id}/history.
type historyAnswer struct {
	Revisions []struct {
		Rev     int64    `json:"rev"`
		Time    string   `json:"time"`
		User    string   `json:"user"`
		Op      string   `json:"op"`
		Changed []string `json:"changed"`
	} `json:"revisions"`
	Next *int64 `json:"next"`
}

func (e *env) history(user, path string) historyAnswer {
	e.t.Helper()
	w := e.send(user, http.MethodGet, path, "", nil)
	if w.Code != http.StatusOK {
		e.t.Fatalf("GET %s: %d %s", path, w.Code, w.Body)
	}
	var a historyAnswer
	if err := json.Unmarshal(w.Body.Bytes(), &a); err != nil {
		e.t.Fatal(err)
	}
	return a
}

// A record's history through the API: revisions newest first with who,
// when and what changed; a revision in the read shape, posted back as a
// restore; paging; a delete leaves a tombstone that every revision
// answers, and a re-create continues the numbering.
func TestHistory(t *testing.T) {
	t.Parallel()
	forEachStore(t, func(t *testing.T, e *env) {
		const base = "/api/bw/v2/resource/lake-walk"
		runFlow(t, e, []step{
			{user: "admin", method: http.MethodPost, path: "/api/bw/v2/resource", body: `{"id":"lake-walk","title":"Lake walk","published":true}`, status: 201},
			{user: "writer", method: http.MethodPost, path: "/api/bw/v2/resource", body: `{"id":"lake-walk","title":"Lake path","title_it":"Giro"}`, status: 202},
			{user: "admin", method: http.MethodPost, path: "/api/bw/v2/resource", body: `{"id":"lake-walk","title":"Lake path"}`, status: 200}, // a Skip makes no revision
		})
		first := e.readObject(e.token("admin"), "resource", "lake-walk")
		e.clock.Advance(90_000_000_000) // 90 s
		runFlow(t, e, []step{{user: "writer", method: http.MethodPost, path: "/api/bw/v2/resource", body: `{"id":"lake-walk","hideInList":true}`, status: 202}})

		h := e.history("reader", base+"/history")
		if len(h.Revisions) != 3 || h.Next != nil {
			t.Fatalf("history %+v", h)
		}
		if r := h.Revisions[0]; r.Rev != 3 || r.User != "writer" || r.Op != "upsert" || !slices.Equal(r.Changed, []string{"hideInList", "timeLastUpdate"}) && !slices.Equal(r.Changed, []string{"hideInList"}) {
			t.Errorf("newest %+v", r)
		}
		if r := h.Revisions[1]; r.Rev != 2 || r.User != "writer" || !slices.Contains(r.Changed, "title") || !slices.Contains(r.Changed, "title_it") {
			t.Errorf("second %+v", r)
		}
		if r := h.Revisions[2]; r.Rev != 1 || r.User != "admin" || r.Changed != nil || r.Time != first["timeLastUpdate"] && r.Time == "" {
			t.Errorf("first %+v", r)
		}
		// Pages: one at a time, next is the after of the next.
		p1 := e.history("reader", base+"/history?limit=2")
		if len(p1.Revisions) != 2 || p1.Next == nil || *p1.Next != 2 {
			t.Fatalf("page 1 %+v", p1)
		}
		p2 := e.history("reader", base+"/history?limit=2&after=2")
		if len(p2.Revisions) != 1 || p2.Revisions[0].Rev != 1 || p2.Next != nil {
			t.Fatalf("page 2 %+v", p2)
		}

		// Revision 2 in the read shape: what a read answered then.
		w := e.send("reader", http.MethodGet, base+"/history/2", "", nil)
		var rev map[string]any
		if w.Code != http.StatusOK || json.Unmarshal(w.Body.Bytes(), &rev) != nil {
			t.Fatalf("revision 2: %d %s", w.Code, w.Body)
		}
		if !equalJSON(t, rev, first) {
			t.Errorf("revision 2\n%v\nwant the read of then\n%v", rev, first)
		}
		// A restore: the revision posted back with the ETag of now.
		body, _ := json.Marshal(rev)
		etag := etagOf(t, e, "resource", "lake-walk")
		restore := e.send("writer", http.MethodPost, "/api/bw/v2/resource", string(body), map[string]string{"If-Match": etag})
		if restore.Code != http.StatusAccepted {
			t.Fatalf("restore: %d %s", restore.Code, restore.Body)
		}
		if now := e.readObject(e.token("admin"), "resource", "lake-walk"); now["hideInList"] != false || now["title"] != "Lake path" {
			t.Errorf("restored %v", now)
		}

		// A delete leaves a tombstone; every revision answers it.
		runFlow(t, e, []step{{user: "admin", method: http.MethodDelete, path: base, status: 202}})
		h = e.history("reader", base+"/history")
		if r := h.Revisions[0]; r.Rev != 5 || r.Op != "delete" || r.User != "admin" || r.Changed != nil {
			t.Fatalf("after delete %+v", h)
		}
		for _, rev := range []string{"1", "5"} {
			w := e.send("reader", http.MethodGet, base+"/history/"+rev, "", nil)
			var tomb map[string]any
			if w.Code != http.StatusOK || json.Unmarshal(w.Body.Bytes(), &tomb) != nil {
				t.Fatalf("revision %s after delete: %d %s", rev, w.Code, w.Body)
			}
			if tomb["kind"] != "resource" || tomb["id"] != "lake-walk" || tomb["rev"] != float64(5) || tomb["op"] != "delete" ||
				tomb["user"] != "admin" || len(tomb) != 6 {
				t.Errorf("tombstone %v", tomb)
			}
		}
		runFlow(t, e, []step{{user: "admin", method: http.MethodPost, path: "/api/bw/v2/resource", body: `{"id":"lake-walk","title":"Again"}`, status: 201}})
		if h := e.history("reader", base+"/history?limit=1"); h.Revisions[0].Rev != 6 || h.Revisions[0].Op != "upsert" {
			t.Errorf("re-created %+v", h)
		}
		// A record called history has a history too.
		runFlow(t, e, []step{{user: "admin", method: http.MethodPost, path: "/api/bw/v2/map", body: `{"id":"history","title":"H"}`, status: 201}})
		if h := e.history("admin", "/api/bw/v2/map/history/history"); len(h.Revisions) != 1 {
			t.Errorf("map history: %+v", h)
		}
	})
}

// equalJSON compares two decoded JSON values.
func equalJSON(t *testing.T, a, b any) bool {
	t.Helper()
	ja, err := json.Marshal(a)
	if err != nil {
		t.Fatal(err)
	}
	jb, err := json.Marshal(b)
	if err != nil {
		t.Fatal(err)
	}
	return string(ja) == string(jb)
}

// The refusals of the history routes, in the order of DECISIONS §1:
// 405, 401, 403, then 400 and 404; none changes anything.
func TestHistoryRefusals(t *testing.T) {
	t.Parallel()
	e := newEnv(t, envOptions{})
	runFlow(t, e, []step{{user: "admin", method: http.MethodPost, path: "/api/bw/v2/resource", body: `{"id":"lake-walk","title":"Lake walk"}`, status: 201}})
	before := e.history("admin", "/api/bw/v2/resource/lake-walk/history")
	const base = "/api/bw/v2/resource/lake-walk/history"
	notFound := `{"fail":"Not found"}`
	wrongRequest := `{"fail":"Wrong request"}`
	for _, s := range []step{
		{name: "POST", user: "admin", method: http.MethodPost, path: base, status: 405, want: `{"fail":"Method not allowed"}`},
		{name: "DELETE a revision", user: "admin", method: http.MethodDelete, path: base + "/1", status: 405},
		{name: "no token", method: http.MethodGet, path: base, status: 401, want: `{"fail":"Unauthorized"}`},
		{name: "no token, bad rev", method: http.MethodGet, path: base + "/x", status: 401},
		{name: "another kind's reader", user: "reader", method: http.MethodGet, path: "/api/bw/v2/map/m-1/history", status: 403, want: `{"fail":"Forbidden"}`},
		{name: "forbidden before malformed", user: "reader", method: http.MethodGet, path: "/api/bw/v2/map/m-1/history/0", status: 403},
		{name: "rev 0", user: "admin", method: http.MethodGet, path: base + "/0", status: 400, want: wrongRequest},
		{name: "rev not a number", user: "admin", method: http.MethodGet, path: base + "/two", status: 400},
		{name: "rev with a sign", user: "admin", method: http.MethodGet, path: base + "/+1", status: 400},
		{name: "rev too large", user: "admin", method: http.MethodGet, path: base + "/99999999999999999999", status: 400},
		{name: "two ids", user: "admin", method: http.MethodGet, path: "/api/bw/v2/resource/lake-walk,other-one/history", status: 400},
		{name: "bad id", user: "admin", method: http.MethodGet, path: "/api/bw/v2/resource/x/history", status: 400},
		{name: "trailing slash", user: "admin", method: http.MethodGet, path: base + "/", status: 400},
		{name: "limit 0", user: "admin", method: http.MethodGet, path: base + "?limit=0", status: 400},
		{name: "limit twice", user: "admin", method: http.MethodGet, path: base + "?limit=1&limit=2", status: 400},
		{name: "after not a number", user: "admin", method: http.MethodGet, path: base + "?after=x", status: 400},
		{name: "option segment", user: "admin", method: http.MethodGet, path: base + "/1/published/1", status: 400},
		{name: "missing record", user: "admin", method: http.MethodGet, path: "/api/bw/v2/resource/missing-one/history", status: 404, want: notFound},
		{name: "missing revision", user: "admin", method: http.MethodGet, path: base + "/7", status: 404, want: notFound},
		{name: "another account's record", user: "otto", method: http.MethodGet, path: base, status: 404, want: notFound},
		{name: "another account's revision", user: "otto", method: http.MethodGet, path: base + "/1", status: 404, want: notFound},
	} {
		w := e.send(s.user, s.method, s.path, s.body, nil)
		if w.Code != s.status || s.want != "" && strings.TrimSpace(w.Body.String()) != s.want {
			t.Errorf("%s: %d %s, want %d %s", s.name, w.Code, w.Body, s.status, s.want)
		}
		if s.status == 405 && w.Header().Get("Allow") != "GET" {
			t.Errorf("%s: Allow %q", s.name, w.Header().Get("Allow"))
		}
	}
	if after := e.history("admin", "/api/bw/v2/resource/lake-walk/history"); !equalJSON(t, after, before) {
		t.Errorf("history changed by refusals: %+v, was %+v", after, before)
	}
	// history is no reserved word: a record of that name reads as ever.
	runFlow(t, e, []step{
		{user: "admin", method: http.MethodPost, path: "/api/bw/v2/resource", body: `{"id":"history","title":"H","published":true}`, status: 201},
		{user: "admin", method: http.MethodGet, path: "/api/bw/v2/resource/history", status: 200},
		{user: "admin", method: http.MethodGet, path: "/api/bw/v2/resource/limit/history", status: 400},
	})
}
