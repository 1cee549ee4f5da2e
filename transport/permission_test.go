package transport

import (
	"net/http"
	"testing"

	"github.com/bwcms/cms/cms"
)

// TestPermissionTable: every route a record path takes has a row, and the
// permission of a path that parses is the one its raw form is taken for
// when it does not (a malformed path is authorized before it is judged).
func TestPermissionTable(t *testing.T) {
	t.Parallel()
	cases := []struct {
		method, path string
		want         cms.Action
	}{
		{http.MethodGet, "map", cms.ActionRead},
		{http.MethodGet, "map/mm1,mm2/published/1", cms.ActionRead},
		{http.MethodPost, "map", cms.ActionWrite},
		{http.MethodDelete, "map/mm1,mm2", cms.ActionDelete},
		{http.MethodGet, "resource/clone", cms.ActionWrite},
		{http.MethodPost, "resource/clone/rr1/map/mm1", cms.ActionWrite},
		{http.MethodGet, "landing/schema.json", cms.ActionRead},
		{http.MethodGet, "landing/schema.multiple.json/full", cms.ActionRead},
		{http.MethodPost, "proposal/batch", cms.ActionWrite},
		{http.MethodGet, "proposal/batch/bb1", cms.ActionRead},
	}
	for _, c := range cases {
		rp, err := parsePath(c.method, c.path, nil)
		if err != nil {
			t.Fatalf("%s %s: %v", c.method, c.path, err)
		}
		if _, ok := permissions[routeKey{c.method, rp.Endpoint}]; !ok {
			t.Errorf("%s %s: no row for %s", c.method, c.path, rp.Endpoint)
		}
		target, action := permissionOf(c.method, rp.Kind, rp.Endpoint)
		if target != rp.Kind || action != c.want {
			t.Errorf("%s %s: %v %s, want %s %s", c.method, c.path, target, action, rp.Kind, c.want)
		}
		kind, e := rawEndpoint(c.method, c.path)
		if rawTarget, rawAction := permissionOf(c.method, kind, e); rawTarget != target || rawAction != action {
			t.Errorf("%s %s raw: %v %s, parsed %v %s", c.method, c.path, rawTarget, rawAction, target, action)
		}
	}
	// Malformed paths of known routes: authorized by their raw form.
	for _, c := range []struct {
		method, path string
		want         cms.Action
	}{
		{http.MethodGet, "map/mm1/limit/0", cms.ActionRead},
		{http.MethodGet, "map/clone/a/b/c", cms.ActionWrite},
		{http.MethodPost, "map/", cms.ActionWrite},
		{http.MethodPost, "map/batch/", cms.ActionWrite},
		{http.MethodDelete, "map/mm1/", cms.ActionDelete},
		{http.MethodGet, "map/batch/%20", cms.ActionRead},
	} {
		if _, err := parsePath(c.method, c.path, nil); cms.ErrorCode(err) != cms.CodeMalformed {
			t.Fatalf("%s %s: %v, want malformed", c.method, c.path, err)
		}
		kind, e := rawEndpoint(c.method, c.path)
		if target, action := permissionOf(c.method, kind, e); target != cms.KindMap || action != c.want {
			t.Errorf("%s %s: %v %s, want map %s", c.method, c.path, target, action, c.want)
		}
	}
}
