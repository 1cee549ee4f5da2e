package transport

import (
	"encoding/json"
	"net/http/httptest"
	"strings"
	"testing"

	"github.com/bwcms/cms/cms"
)

// step is one request of a flow: who sends what, and what comes back.
type step struct {
	name   string
	user   string // "" sends no token
	method string
	path   string
	body   string
	header map[string]string
	status int
	want   string // exact body (trailing newline ignored), when set
	check  func(t *testing.T, e *env, w *httptest.ResponseRecorder)
}

// tokens caches one access token per fixture user of an env.
func (e *env) token(user string) string {
	e.t.Helper()
	if e.tokens == nil {
		e.tokens = map[string]string{}
	}
	if tok, ok := e.tokens[user]; ok {
		return tok
	}
	tok := e.login(user).AccessToken
	e.tokens[user] = tok
	return tok
}

func (e *env) send(user, method, path, body string, header map[string]string) *httptest.ResponseRecorder {
	e.t.Helper()
	r := httptest.NewRequest(method, path, strings.NewReader(body))
	if body != "" {
		r.Header.Set("Content-Type", "application/json")
	}
	for k, v := range header {
		r.Header.Set(k, v)
	}
	if user != "" {
		r.Header.Set("Authorization", "Bearer "+e.token(user))
	}
	return e.do(r)
}

// forEachStore runs fn on a fresh env over SQLite and, when configured,
// PostgreSQL.
func forEachStore(t *testing.T, fn func(t *testing.T, e *env)) {
	for _, st := range stores {
		t.Run(st.name, func(t *testing.T) {
			t.Parallel()
			fn(t, newEnv(t, envOptions{store: st.open}))
		})
	}
}

func runFlow(t *testing.T, e *env, steps []step) {
	t.Helper()
	for i, s := range steps {
		w := e.send(s.user, s.method, s.path, s.body, s.header)
		name := s.name
		if name == "" {
			name = s.method + " " + s.path
		}
		if w.Code != s.status {
			t.Fatalf("step %d (%s): status %d, want %d; body %s", i, name, w.Code, s.status, w.Body)
		}
		if s.want != "" {
			if got := strings.TrimSuffix(w.Body.String(), "\n"); got != s.want {
				t.Fatalf("step %d (%s): body\n%s\nwant\n%s", i, name, got, s.want)
			}
		}
		if s.check != nil {
			s.check(t, e, w)
		}
	}
}

// field decodes one field of a JSON object answer.
func field(t *testing.T, w *httptest.ResponseRecorder, name string) any {
	t.Helper()
	var m map[string]any
	if err := json.Unmarshal(w.Body.Bytes(), &m); err != nil {
		t.Fatalf("answer is not an object: %s", w.Body)
	}
	return m[name]
}

func wantField(name string, want any) func(*testing.T, *env, *httptest.ResponseRecorder) {
	return func(t *testing.T, _ *env, w *httptest.ResponseRecorder) {
		t.Helper()
		got, _ := json.Marshal(field(t, w, name))
		exp, _ := json.Marshal(want)
		if string(got) != string(exp) {
			t.Errorf("%s = %s, want %s", name, got, exp)
		}
	}
}

func TestUpsertAndRead(t *testing.T) {
	t.Parallel()
	forEachStore(t, func(t *testing.T, e *env) {
		runFlow(t, e, []step{
			{name: "create", user: "admin", method: "POST", path: "/api/bw/v2/resource",
				body: `{"id":"lake","title":"Caffè Nero!","title_it":"Lago"}`, status: 201,
				want: `{"done":"Create Resource lake","id":"lake","new":true,"update":true}`},
			{name: "read it back (unpublished needs /published/*)", user: "admin", method: "GET",
				path: "/api/bw/v2/resource/lake/published/*", status: 200,
				check: func(t *testing.T, e *env, w *httptest.ResponseRecorder) {
					wantField("urlAlias", "/caffe-nero")(t, e, w)
					wantField("urlAlias_it", "/lago")(t, e, w)
					wantField("urlAlias_de", "/caffe-nero")(t, e, w)
					wantField("published", false)(t, e, w)
					wantField("timeLastUpdate", "2026-11-22 11:00:00")(t, e, w)
					wantField("title_de", "")(t, e, w)
					wantField("image", nil)(t, e, w)
					if w.Header().Get("ETag") == "" {
						t.Error("no ETag")
					}
				}},
			{name: "unpublished is hidden by default", user: "admin", method: "GET", path: "/api/bw/v2/resource/lake",
				status: 404, want: `{"fail":"ERROR: Export fail"}`},
			{name: "the same body again", user: "admin", method: "POST", path: "/api/bw/v2/resource",
				body: `{"id":"lake","title":"Caffè Nero!","title_it":"Lago"}`, status: 200,
				want: `{"done":"Skip Resource lake","id":"lake","new":false,"update":false}`},
			{name: "update one language", user: "admin", method: "POST", path: "/api/bw/v2/resource",
				body: `{"id":"lake","title_de":"See","published":true}`, status: 202,
				want: `{"done":"Update Resource lake","id":"lake","new":false,"update":true}`},
			{name: "merged", user: "admin", method: "GET", path: "/api/bw/v2/resource/lake", status: 200,
				check: func(t *testing.T, e *env, w *httptest.ResponseRecorder) {
					wantField("title", "Caffè Nero!")(t, e, w)
					wantField("title_de", "See")(t, e, w)
					wantField("urlAlias_de", "/caffe-nero")(t, e, w)
				}},
			{name: "no token", method: "POST", path: "/api/bw/v2/resource", body: `{"id":"x1x"}`,
				status: 401, want: `{"fail":"Unauthorized"}`},
			{name: "read-only user writes", user: "reader", method: "POST", path: "/api/bw/v2/resource",
				body: `{"id":"lake","title":"Changed"}`, status: 403, want: `{"fail":"Forbidden"}`},
			{name: "nothing changed by the refused write", user: "reader", method: "GET", path: "/api/bw/v2/resource/lake",
				status: 200, check: wantField("title", "Caffè Nero!")},
			{name: "another account's id is missing", user: "otto", method: "GET", path: "/api/bw/v2/resource/lake/published/*",
				status: 404, want: `{"fail":"ERROR: Export fail"}`},
			{name: "malformed JSON", user: "admin", method: "POST", path: "/api/bw/v2/resource",
				body: `{"id":"lake",}`, status: 400, want: `{"fail":"Wrong request"}`},
			{name: "every problem at once", user: "admin", method: "POST", path: "/api/bw/v2/resource",
				body: `{"id":"lake","locationZoom":30,"contactEmail":"no at sign","title_fr":"x"}`, status: 409},
			{name: "unknown map", user: "admin", method: "POST", path: "/api/bw/v2/resource",
				body: `{"id":"lake","mapIds":["nomap"]}`, status: 409,
				want: `{"fail":"Resource lake: mapIds[0]: Map nomap does not exist"}`},
			{name: "still unchanged", user: "admin", method: "GET", path: "/api/bw/v2/resource/lake", status: 200,
				check: wantField("locationZoom", nil)},
		})
	})
}

func TestReferencesBothSides(t *testing.T) {
	t.Parallel()
	forEachStore(t, func(t *testing.T, e *env) {
		post := func(kind, body string, status int) step {
			return step{user: "admin", method: "POST", path: "/api/bw/v2/" + kind, body: body, status: status}
		}
		get := func(kind, id, name string, want any) step {
			return step{name: "read " + id + "." + name, user: "admin", method: "GET",
				path: "/api/bw/v2/" + kind + "/" + id + "/published/*", status: 200, check: wantField(name, want)}
		}
		runFlow(t, e, []step{
			post("resource", `{"id":"rs1"}`, 201),
			post("resource", `{"id":"rs2"}`, 201),
			post("resource", `{"id":"rs3"}`, 201),
			post("map", `{"id":"mp1","resourceIds":["rs2","rs1"]}`, 201),
			get("map", "mp1", "resourceIds", []string{"rs2", "rs1"}),
			get("resource", "rs1", "mapIds", []string{"mp1"}),
			post("resource", `{"id":"rs3","mapIdsAdd":["mp1"]}`, 202),
			get("map", "mp1", "resourceIds", []string{"rs2", "rs1", "rs3"}),
			post("resource", `{"id":"rs3","mapIdsAdd":["mp1"]}`, 200),
			post("map", `{"id":"mp1","secondaryResourceIds":["rs1"]}`, 202),
			get("map", "mp1", "resourceIds", []string{"rs2", "rs3"}),
			get("resource", "rs1", "mapSecondaryIds", []string{"mp1"}),
			get("resource", "rs1", "mapIds", nil),
			{name: "both roles in one body", user: "admin", method: "POST", path: "/api/bw/v2/map",
				body: `{"id":"mp1","resourceIds":["rs1"],"secondaryResourceIds":["rs1"]}`, status: 409},
			{name: "delete one referenced by a list, one missing", user: "admin", method: "DELETE",
				path: "/api/bw/v2/resource/rs2,gone", status: 202,
				want: `{"done":"Deletion of 1 Resources done","count":1,"fail":"Deletion of 1 Resources not done","failed":["gone"]}`},
			get("map", "mp1", "resourceIds", []string{"rs3"}),
			post("map", `{"id":"mp2","trackResourceId":"rs3"}`, 201),
			{name: "named by a single reference", user: "admin", method: "DELETE", path: "/api/bw/v2/resource/rs3",
				status: 409, want: `{"fail":"Deletion of 1 Resources not done","failed":["rs3"]}`},
			{name: "none exists", user: "admin", method: "DELETE", path: "/api/bw/v2/resource/gone,gone2",
				status: 404, want: `{"fail":"No Resources to delete"}`},
			{name: "clone a map", user: "admin", method: "POST", path: "/api/bw/v2/map/clone/mp1", status: 201,
				want: `{"done":"Cloned Map mp1 to Map mp1-copy","id":"mp1-copy"}`},
			get("map", "mp1-copy", "resourceIds", []string{"rs3"}),
			get("resource", "rs3", "mapIds", []string{"mp1", "mp1-copy"}),
			{name: "clone again", user: "admin", method: "GET", path: "/api/bw/v2/map/clone/mp1", status: 201,
				want: `{"done":"Cloned Map mp1 to Map mp1-copy-2","id":"mp1-copy-2"}`},
			{name: "clone a resource into a map", user: "admin", method: "POST", path: "/api/bw/v2/resource/clone/rs1/map/mp2",
				status: 201, want: `{"done":"Cloned Resource rs1 to Resource rs1-copy","id":"rs1-copy"}`},
			get("resource", "rs1-copy", "mapIds", []string{"mp2"}),
			get("resource", "rs1-copy", "mapSecondaryIds", nil),
			{name: "clone Base by default", user: "admin", method: "POST", path: "/api/bw/v2/resource/clone",
				status: 404, want: `{"fail":"There is no Resource Base to clone"}`},
			{name: "clone into a missing map", user: "admin", method: "POST", path: "/api/bw/v2/resource/clone/rs1/map/nomap",
				status: 409, want: `{"fail":"Not cloned Resource rs1"}`},
		})
	})
}

func TestDeleteByBodyNeedsDeletePermission(t *testing.T) {
	t.Parallel()
	forEachStore(t, func(t *testing.T, e *env) {
		if err := e.svc.CreateUser(t.Context(), cms.NewUser{Name: "editor", Account: "acme", Password: testPassword,
			Perms: []string{"resource:write", "resource:read"}}); err != nil {
			t.Fatal(err)
		}
		runFlow(t, e, []step{
			{user: "admin", method: "POST", path: "/api/bw/v2/resource", body: `{"id":"rs1"}`, status: 201},
			{name: "editor deletes by body", user: "editor", method: "POST", path: "/api/bw/v2/resource",
				body: `{"id":"rs1","deleteElementIrreversibly":true}`, status: 403, want: `{"fail":"Forbidden"}`},
			{user: "editor", method: "GET", path: "/api/bw/v2/resource/rs1/published/*", status: 200},
			{name: "admin deletes by body", user: "admin", method: "POST", path: "/api/bw/v2/resource",
				body: `{"id":"rs1","deleteElementIrreversibly":true}`, status: 202,
				want: `{"done":"Delete Resource rs1","id":"rs1","new":false,"update":true}`},
			{user: "admin", method: "GET", path: "/api/bw/v2/resource/rs1/published/*", status: 404},
			{name: "again", user: "admin", method: "POST", path: "/api/bw/v2/resource",
				body: `{"id":"rs1","deleteElementIrreversibly":true}`, status: 404, want: `{"fail":"No Resources to delete"}`},
		})
	})
}

// An update that posts its Maps back asks nothing of Maps it is assigned
// to, and still finds a Map deleted since (its assignment went with it).
func TestUpdateNamesAssignedMaps(t *testing.T) {
	for _, st := range stores {
		t.Run(st.name, func(t *testing.T) {
			e := newEnv(t, envOptions{store: st.open})
			for _, m := range []string{"mapa", "mapb"} {
				if w := e.send("admin", "POST", "/api/bw/v2/map", `{"id":"`+m+`"}`, nil); w.Code != 201 {
					t.Fatalf("map %s: %d %s", m, w.Code, w.Body)
				}
			}
			steps := []struct {
				method, path, body string
				code               int
				answer             string
			}{
				{"POST", "/api/bw/v2/resource", `{"id":"res1","title":"One","published":true,"mapIds":["mapa","mapb"]}`, 201, `"new":true`},
				{"POST", "/api/bw/v2/resource", `{"id":"res1","title":"Two","mapIds":["mapa","mapb"]}`, 202, `"update":true`},
				{"POST", "/api/bw/v2/resource", `{"id":"res1","title":"Two","mapIds":["mapa","mapb"]}`, 200, `"Skip Resource res1"`},
				{"DELETE", "/api/bw/v2/map/mapb", "", 202, `"count":1`},
				{"POST", "/api/bw/v2/resource", `{"id":"res1","title":"Three","mapIds":["mapa","mapb"]}`, 409, `mapIds[1]: Map mapb does not exist`},
				{"POST", "/api/bw/v2/resource", `{"id":"res1","title":"Three","mapIds":["mapb","nomap"],"mapSecondaryIds":["mapa"]}`, 409,
					`mapIds[0]: Map mapb does not exist\nResource res1: mapIds[1]: Map nomap does not exist`},
				{"POST", "/api/bw/v2/resource", `{"id":"res1","title":"Three","mapSecondaryIds":["mapa"]}`, 202, `"update":true`},
			}
			for i, s := range steps {
				w := e.send("admin", s.method, s.path, s.body, nil)
				if w.Code != s.code || !strings.Contains(w.Body.String(), s.answer) {
					t.Fatalf("step %d: %d %s, want %d with %s", i, w.Code, w.Body, s.code, s.answer)
				}
			}
			w := e.send("admin", "GET", "/api/bw/v2/resource/res1", "", nil)
			if got := w.Body.String(); strings.Contains(got, `"mapIds":["`) || !strings.Contains(got, `"mapSecondaryIds":["mapa"]`) {
				t.Fatalf("read: %s", got)
			}
		})
	}
}
