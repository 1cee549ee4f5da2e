package transport

import (
	"encoding/json"
	"net/http/httptest"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/bwcms/cms/cms"
)

// ids returns the ids of an array answer, in order.
func ids(t *testing.T, w *httptest.ResponseRecorder) []string {
	t.Helper()
	var list []map[string]any
	if err := json.Unmarshal(w.Body.Bytes(), &list); err != nil {
		t.Fatalf("not an array: %s", w.Body)
	}
	out := make([]string, len(list))
	for i, r := range list {
		out[i], _ = r["id"].(string)
	}
	return out
}

func wantIDs(want ...string) func(*testing.T, *env, *httptest.ResponseRecorder) {
	return func(t *testing.T, _ *env, w *httptest.ResponseRecorder) {
		t.Helper()
		if got := strings.Join(ids(t, w), ","); got != strings.Join(want, ",") {
			t.Errorf("ids = [%s], want [%s]", got, strings.Join(want, ","))
		}
	}
}

// seedReadFixtures stores five Resources (one unpublished, two across the
// 180° meridian) and a Map holding two of them, then moves the clock an
// hour on (the tokens given so far expire).
func seedReadFixtures(t *testing.T, e *env) {
	t.Helper()
	for _, body := range []string{
		`{"id":"aaa","title":"A","title_it":"A it","published":true,"locationLat":45,"locationLon":9,"image":"https://x.org/a.jpg","multimedia":["https://x.org/b.png"]}`,
		`{"id":"bbb","title":"B","published":true,"locationLat":46,"locationLon":10}`,
		`{"id":"ccc","title":"C","published":false}`,
		`{"id":"ddd","title":"D","published":true,"locationLat":0,"locationLon":179.5}`,
		`{"id":"eee","title":"E","published":true,"locationLat":0,"locationLon":-179.5}`,
		`{"id":"mp1","resourceIds":["aaa"],"secondaryResourceIds":["bbb"]}`,
	} {
		path := "/api/bw/v2/resource"
		if strings.Contains(body, `"mp1"`) {
			path = "/api/bw/v2/map"
		}
		if w := e.send("admin", "POST", path, body, nil); w.Code != 201 {
			t.Fatalf("%s: %d %s", body, w.Code, w.Body)
		}
	}
	e.clock.Advance(time.Hour)
	clear(e.tokens)
}

func TestReadOptions(t *testing.T) {
	t.Parallel()
	forEachStore(t, func(t *testing.T, e *env) {
		seedReadFixtures(t, e)
		if w := e.send("admin", "POST", "/api/bw/v2/resource", `{"id":"ddd","title":"D2"}`, nil); w.Code != 202 {
			t.Fatalf("update ddd: %d", w.Code)
		}
		get := func(path string, check func(*testing.T, *env, *httptest.ResponseRecorder)) step {
			return step{user: "reader", method: "GET", path: "/api/bw/v2/resource" + path, status: 200, check: check}
		}
		runFlow(t, e, []step{
			get("", wantIDs("aaa", "bbb", "ddd", "eee")),
			get("/published/1", wantIDs("aaa", "bbb", "ddd", "eee")),
			get("/published/0", wantIDs("ccc")),
			get("/published/*", wantIDs("aaa", "bbb", "ccc", "ddd", "eee")),
			get("/limit/2", wantIDs("aaa", "bbb")),
			get("/after/bbb", wantIDs("ddd", "eee")),
			get("/after/bbb/limit/1", wantIDs("ddd")),
			get("/limit/1/after/bbb", wantIDs("ddd")),
			get("/bbox/8,44,11,47", wantIDs("aaa", "bbb")),
			get("/bbox/9,45,9,45", wantIDs("aaa")),
			get("/bbox/179,-1,-179,1", wantIDs("ddd", "eee")),
			get("/bbox/179,-1,-179,1/published/*/limit/1", wantIDs("ddd")),
			get("/mapId/mp1", wantIDs("aaa", "bbb")),
			get("/published/*/mapId/mp1", wantIDs("aaa", "bbb")),
			get("/updatedSince/2026-11-22T12:00:00", wantIDs("ddd")),
			get("/updatedSince/2026-11-22T12:00:01", wantIDs()),
			get("/updatedSince/2026-11-22T11:00:00", wantIDs("aaa", "bbb", "ddd", "eee")),
			get("/eee,aaa,zzz", wantIDs("eee", "aaa")),
			get("/ccc,aaa", wantIDs("aaa")),
			get("/ccc,aaa/published/*", wantIDs("ccc", "aaa")),
			get("/eee,aaa,bbb/limit/2", wantIDs("eee", "aaa")),
			get("/aaa,bbb,ddd/mapId/mp1", wantIDs("aaa", "bbb")),
			get("/aaa,ddd/bbox/8,44,11,47", wantIDs("aaa")),
			{name: "none of the ids", user: "reader", method: "GET", path: "/api/bw/v2/resource/zzz,yyy", status: 404,
				want: `{"fail":"ERROR: Export fail"}`},
			{name: "nothing matches a list", user: "reader", method: "GET", path: "/api/bw/v2/resource/after/zzz", status: 200, want: `[]`},
			{name: "fields", user: "reader", method: "GET", path: "/api/bw/v2/resource/aaa/fields/title_it,title", status: 200,
				want: `{"id":"aaa","title":"A","title_it":"A it"}`},
			{name: "fields then ignoreFields", user: "reader", method: "GET",
				path: "/api/bw/v2/resource/aaa/ignoreFields/image/fields/title,image", status: 200, want: `{"id":"aaa","title":"A"}`},
			{name: "ignoreFields keeps id", user: "reader", method: "GET", path: "/api/bw/v2/resource/aaa/fields/id/ignoreFields/id",
				status: 200, want: `{"id":"aaa"}`},
			{name: "excludeFiles", user: "reader", method: "GET", path: "/api/bw/v2/resource/aaa/excludeFiles", status: 200,
				check: func(t *testing.T, _ *env, w *httptest.ResponseRecorder) {
					for _, f := range []string{"image", "multimedia", "mapLayerFile", "trackFile"} {
						if strings.Contains(w.Body.String(), `"`+f+`":`) {
							t.Errorf("%s written with excludeFiles: %s", f, w.Body)
						}
					}
					wantField("title", "A")(t, nil, w)
				}},
			{name: "fields of an array", user: "reader", method: "GET", path: "/api/bw/v2/resource/aaa,bbb/fields/title", status: 200,
				want: `[{"id":"aaa","title":"A"},{"id":"bbb","title":"B"}]`},
			{name: "unknown field name", user: "reader", method: "GET", path: "/api/bw/v2/resource/aaa/fields/colour", status: 400,
				want: `{"fail":"Wrong request"}`},
			{name: "write-only field name", user: "reader", method: "GET", path: "/api/bw/v2/resource/aaa/fields/mapIdsAdd", status: 400},
			{name: "unconfigured language", user: "reader", method: "GET", path: "/api/bw/v2/resource/aaa/fields/title_fr", status: 400},
			{name: "bbox on landings", user: "admin", method: "GET", path: "/api/bw/v2/landing/bbox/0,0,1,1", status: 400},
			{name: "mapId on maps", user: "admin", method: "GET", path: "/api/bw/v2/map/mapId/mp1", status: 400},
			{name: "malformed option before the permission check: 401 first", method: "GET",
				path: "/api/bw/v2/resource/published/7", status: 401},
			{name: "then 403", user: "reader", method: "GET", path: "/api/bw/v2/map/published/7", status: 403},
			{name: "then 400", user: "reader", method: "GET", path: "/api/bw/v2/resource/published/7", status: 400},
		})
	})
}

func TestETagsAndPreconditions(t *testing.T) {
	t.Parallel()
	forEachStore(t, func(t *testing.T, e *env) {
		if w := e.send("admin", "POST", "/api/bw/v2/proposal", `{"id":"pp1","title":"P","published":true}`, nil); w.Code != 201 {
			t.Fatal(w.Code, w.Body)
		}
		first := e.send("admin", "GET", "/api/bw/v2/proposal/pp1", "", nil)
		etag := first.Header().Get("ETag")
		if first.Code != 200 || etag == "" {
			t.Fatalf("read: %d %q", first.Code, etag)
		}
		wantField("statsAccess", 1.0)(t, e, first)
		wantField("statsLastAccess", "2026-11-22 11:00:00")(t, e, first)
		if got := first.Header().Get("Content-Length"); got != strconv.Itoa(first.Body.Len()) {
			t.Errorf("Content-Length %q for a body of %d bytes", got, first.Body.Len())
		}
		runFlow(t, e, []step{
			{name: "not modified", user: "admin", method: "GET", path: "/api/bw/v2/proposal/pp1",
				header: map[string]string{"If-None-Match": etag}, status: 304},
			{name: "the access count moves, the ETag does not", user: "admin", method: "GET", path: "/api/bw/v2/proposal/pp1", status: 200,
				check: func(t *testing.T, e *env, w *httptest.ResponseRecorder) {
					wantField("statsAccess", 3.0)(t, e, w)
					if w.Header().Get("ETag") != etag {
						t.Errorf("ETag moved with the access count")
					}
				}},
			{name: "a list does not count", user: "admin", method: "GET", path: "/api/bw/v2/proposal", status: 200,
				check: func(t *testing.T, e *env, w *httptest.ResponseRecorder) {
					if !strings.Contains(w.Body.String(), `"statsAccess":3`) {
						t.Errorf("list: %s", w.Body)
					}
				}},
			{name: "If-Match current", user: "admin", method: "POST", path: "/api/bw/v2/proposal",
				body: `{"id":"pp1","title":"P2"}`, header: map[string]string{"If-Match": etag}, status: 202},
			{name: "If-Match stale", user: "admin", method: "POST", path: "/api/bw/v2/proposal",
				body: `{"id":"pp1","title":"P3"}`, header: map[string]string{"If-Match": etag}, status: 412,
				want: `{"fail":"Precondition failed"}`},
			{name: "unchanged by the refusal", user: "admin", method: "GET", path: "/api/bw/v2/proposal/pp1",
				header: map[string]string{"If-None-Match": etag}, status: 200, check: wantField("title", "P2")},
			{name: "If-Match on a missing record", user: "admin", method: "POST", path: "/api/bw/v2/proposal",
				body: `{"id":"pp9","title":"P"}`, header: map[string]string{"If-Match": "*"}, status: 412},
		})
	})
}

func TestWrites(t *testing.T) {
	t.Parallel()
	forEachStore(t, func(t *testing.T, e *env) {
		runFlow(t, e, []step{
			{name: "HTML is sanitized", user: "admin", method: "POST", path: "/api/bw/v2/resource",
				body: `{"id":"html1","htmlContent":"<p onclick=\"x()\">hi<script>alert(1)</script> <a href=\"javascript:alert(1)\">x</a></p>"}`, status: 201},
			{user: "admin", method: "GET", path: "/api/bw/v2/resource/html1/published/*", status: 200,
				check: wantField("htmlContent", "<p>hi x</p>")},
			{name: "TRACK fields on a track", user: "admin", method: "POST", path: "/api/bw/v2/resource",
				body: `{"id":"trk1","resourceType":"TRACK","trackCircular":true}`, status: 201},
			{name: "judged on the merged record", user: "admin", method: "POST", path: "/api/bw/v2/resource",
				body: `{"id":"trk1","resourceType":"POI"}`, status: 409,
				want: `{"fail":"Resource trk1: trackCircular: allowed only when resourceType is TRACK"}`},
			{name: "null is fine", user: "admin", method: "POST", path: "/api/bw/v2/resource",
				body: `{"id":"trk1","resourceType":"POI","trackCircular":null}`, status: 202},
			{name: "same title, unique aliases", user: "admin", method: "POST", path: "/api/bw/v2/resource",
				body: `{"id":"lake1","title":"Lake"}`, status: 201},
			{user: "admin", method: "POST", path: "/api/bw/v2/resource", body: `{"id":"lake2","title":"Lake"}`, status: 201},
			{user: "admin", method: "GET", path: "/api/bw/v2/resource/lake2/published/*", status: 200, check: wantField("urlAlias", "/lake-2")},
			{name: "alias clash", user: "admin", method: "POST", path: "/api/bw/v2/resource",
				body: `{"id":"lake3","urlAlias":"/lake","urlAlias_it":"/lago-3"}`, status: 409,
				want: `{"fail":"Resource lake3: urlAlias: /lake is already used by Resource lake1"}`},
			{user: "admin", method: "GET", path: "/api/bw/v2/resource/lake3/published/*", status: 404},
			{name: "form field json", user: "admin", method: "POST", path: "/api/bw/v2/landing", status: 201,
				body:   "json=" + strings.ReplaceAll(`{"id":"land1","title":"L"}`, `"`, "%22"),
				header: map[string]string{"Content-Type": "application/x-www-form-urlencoded"}},
			{name: "raw document sent as a form (curl -d)", user: "admin", method: "POST", path: "/api/bw/v2/landing", status: 201,
				body:   "\n " + `{"id":"land2","title":"L & M = 2"}`,
				header: map[string]string{"Content-Type": "application/x-www-form-urlencoded"}, check: wantField("id", "land2")},
			{user: "admin", method: "GET", path: "/api/bw/v2/landing/land2/published/*", status: 200, check: wantField("title", "L & M = 2")},
			{name: "form without json field", user: "admin", method: "POST", path: "/api/bw/v2/landing", status: 400,
				body: "data=" + strings.ReplaceAll(`{"id":"land3"}`, `"`, "%22"), want: `{"fail":"Wrong request"}`,
				header: map[string]string{"Content-Type": "application/x-www-form-urlencoded"}},
			{user: "admin", method: "GET", path: "/api/bw/v2/landing/land3/published/*", status: 404},
			{name: "two values", user: "admin", method: "POST", path: "/api/bw/v2/resource", body: `{"id":"lake1"}{"id":"lake2"}`,
				status: 400, want: `{"fail":"Wrong request"}`},
			{name: "duplicate keys", user: "admin", method: "POST", path: "/api/bw/v2/resource", body: `{"id":"lake1","id":"lake2"}`,
				status: 400},
			{name: "invalid UTF-8", user: "admin", method: "POST", path: "/api/bw/v2/resource", body: "{\"id\":\"lake1\",\"title\":\"\xff\"}",
				status: 400},
			{name: "an array", user: "admin", method: "POST", path: "/api/bw/v2/resource", body: `[]`, status: 400},
			{name: "wrong JSON types and problems, all listed", user: "admin", method: "POST", path: "/api/bw/v2/resource",
				body: `{"title":5,"locationLat":91,"image":"ftp://x/y.gif"}`, status: 409,
				check: func(t *testing.T, _ *env, w *httptest.ResponseRecorder) {
					text, _ := field(t, w, "fail").(string)
					if lines := strings.Split(text, "\n"); len(lines) < 4 || !strings.HasPrefix(lines[0], "Resource (no id): ") {
						t.Errorf("problems: %q", text)
					}
				}},
			{name: "an id with NUL", user: "admin", method: "POST", path: "/api/bw/v2/resource", body: `{"id":"ab\u0000c"}`, status: 409},
		})
	})
}

func TestStrangeIDsNeverFail(t *testing.T) {
	t.Parallel()
	e := newEnv(t, envOptions{})
	for _, id := range []string{"a%2Cb", "a%2Fbc", "%22abc%22", "ab%00c", "ab'c", "a%25bc", "..abc", "%E2%9C%93abc", "abc%20", "a\"bc"} {
		for _, method := range []string{"GET", "DELETE"} {
			r := httptest.NewRequest(method, "/api/bw/v2/resource/x", nil)
			r.URL.RawPath, r.URL.Path = "/api/bw/v2/resource/"+id, "/api/bw/v2/resource/"+id
			r.Header.Set("Authorization", "Bearer "+e.token("admin"))
			w := e.do(r)
			if w.Code != 400 && w.Code != 404 {
				t.Errorf("%s %s: %d %s", method, id, w.Code, w.Body)
			}
		}
	}
}

func TestBodyLimit(t *testing.T) {
	t.Parallel()
	e := newEnv(t, envOptions{http: func(o *Options) { o.MaxBody = 4096 }})
	big := `{"id":"big1","title":"` + strings.Repeat("x", 5000) + `"}`
	runFlow(t, e, []step{
		{user: "admin", method: "POST", path: "/api/bw/v2/resource", body: big, status: 413, want: `{"fail":"Request too large"}`},
		{user: "admin", method: "GET", path: "/api/bw/v2/resource/big1/published/*", status: 404},
	})
}

func TestSchemas(t *testing.T) {
	t.Parallel()
	e := newEnv(t, envOptions{})
	acme, _ := cms.NewLanguages("en", "en", "it", "de")
	other, _ := cms.NewLanguages("de")
	for _, c := range []struct {
		user  string
		langs cms.Languages
	}{{"reader", acme}, {"otto", other}} {
		for _, multiple := range []bool{false, true} {
			gen, name := cms.JSONSchema, "schema.json"
			if multiple {
				gen, name = cms.JSONSchemaMultiple, "schema.multiple.json"
			}
			want, _ := gen(cms.KindResource, c.langs)
			w := e.send(c.user, "GET", "/api/bw/v2/resource/"+name, "", nil)
			if w.Code != 200 || w.Body.String() != string(want) {
				t.Errorf("%s %s: %d, body differs from cms.%s", c.user, name, w.Code, name)
			}
		}
	}
	if w := e.send("admin", "POST", "/api/bw/v2/map", `{"id":"mp1"}`, nil); w.Code != 201 {
		t.Fatal(w.Code)
	}
	w := e.send("admin", "GET", "/api/bw/v2/map/schema.json/full", "", nil)
	var full struct {
		Schema map[string]any   `json:"schema"`
		Data   []map[string]any `json:"data"`
	}
	if err := json.Unmarshal(w.Body.Bytes(), &full); err != nil || full.Schema["$schema"] == nil || len(full.Data) != 1 || full.Data[0]["id"] != "mp1" {
		t.Errorf("full: %v %s", err, w.Body)
	}
	if w := e.send("", "GET", "/api/bw/v2/map/schema.json", "", nil); w.Code != 401 {
		t.Errorf("schema without a token: %d", w.Code)
	}
	if w := e.send("reader", "GET", "/api/bw/v2/map/schema.json", "", nil); w.Code != 403 {
		t.Errorf("schema without map:read: %d", w.Code)
	}
}
