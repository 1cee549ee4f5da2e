package transport

import (
	"strings"
	"testing"
)

// TestBatchDeleteNamedAfterSubmit: a delete the submit found nothing
// against, named by a single reference before the batch runs, ends the
// batch in error with the reason, and nothing of it is applied.
func TestBatchDeleteNamedAfterSubmit(t *testing.T) {
	t.Parallel()
	forEachStore(t, func(t *testing.T, e *env) {
		runFlow(t, e, []step{
			{user: "admin", method: "POST", path: "/api/bw/v2/map", body: `{"id":"lmap","published":true}`, status: 201},
			{user: "admin", method: "POST", path: "/api/bw/v2/map", body: `{"id":"other","published":true}`, status: 201},
		})
		id := submit(t, e, "map", `[{"id":"other","deleteElementIrreversibly":true},{"id":"lmap","deleteElementIrreversibly":true}]`)
		runFlow(t, e, []step{{user: "admin", method: "POST", path: "/api/bw/v2/landing", body: `{"id":"lan","mapId":"lmap"}`, status: 201}})
		process(t, e)
		got := statusOf(t, e, "map", id)
		if !strings.Contains(got, `"status":"error"`) || !strings.Contains(got, `"error":"Map lmap: deleteElementIrreversibly: named by Landing lan in mapId"`) {
			t.Errorf("status: %s", got)
		}
		for _, id := range []string{"lmap", "other"} {
			if w := e.send("admin", "GET", "/api/bw/v2/map/"+id, "", nil); w.Code != 200 {
				t.Errorf("map %s after the failed batch: %d", id, w.Code)
			}
		}
	})
}

// TestBatchAliasNumbersAtSubmit: a generated alias whose numbers are used
// up is judged as a single create judges it: a 409 at submit with the
// same problem, or (when a single create finds a free alias) a batch
// that applies.
func TestBatchAliasNumbersAtSubmit(t *testing.T) {
	t.Parallel()
	forEachStore(t, func(t *testing.T, e *env) {
		runFlow(t, e, []step{
			{user: "admin", method: "POST", path: "/api/bw/v2/resource", body: `{"id":"topped","urlAlias":"/full-999999999999999999"}`, status: 201},
			{user: "admin", method: "POST", path: "/api/bw/v2/resource", body: `{"id":"first","title":"Full"}`, status: 201},
		})
		single := e.send("admin", "POST", "/api/bw/v2/resource", `{"id":"single","title":"Full"}`, nil)
		w := e.send("admin", "POST", "/api/bw/v2/resource/batch", `[{"id":"batched","title":"Full"}]`, nil)
		switch single.Code {
		case 409:
			want := strings.ReplaceAll(strings.TrimSpace(single.Body.String()), "Resource single:", "Resource batched:")
			if w.Code != 409 || strings.TrimSpace(w.Body.String()) != want {
				t.Fatalf("batch: %d %s; want 409 %s", w.Code, w.Body, want)
			}
			if did, err := e.svc.ProcessBatch(t.Context(), "w"); did || err != nil {
				t.Errorf("a refused batch was queued: %v %v", did, err)
			}
		case 201:
			if w.Code != 201 {
				t.Fatalf("batch: %d %s; a single create took it", w.Code, w.Body)
			}
			id, _ := field(t, w, "batchId").(string)
			process(t, e)
			if got := statusOf(t, e, "resource", id); !strings.Contains(got, `"status":"done"`) {
				t.Errorf("status: %s", got)
			}
		default:
			t.Fatalf("single create: %d %s", single.Code, single.Body)
		}
	})
}

// TestBatchAliasesBelowTopped: records of one batch whose slug's highest
// number is held by hand each get a free number below it, at submit and
// when applied, and no two get the same.
func TestBatchAliasesBelowTopped(t *testing.T) {
	t.Parallel()
	forEachStore(t, func(t *testing.T, e *env) {
		runFlow(t, e, []step{
			{user: "admin", method: "POST", path: "/api/bw/v2/resource", body: `{"id":"topped","urlAlias":"/full-999999999999999999"}`, status: 201},
			{user: "admin", method: "POST", path: "/api/bw/v2/resource", body: `{"id":"first","title":"Full"}`, status: 201},
		})
		id := submit(t, e, "resource", `[{"id":"bt1","title":"Full"},{"id":"bt2","title":"Full"},{"id":"bt3","title":"Full"}]`)
		process(t, e)
		if got := statusOf(t, e, "resource", id); !strings.Contains(got, `"status":"done"`) {
			t.Fatalf("status: %s", got)
		}
		seen := map[string]string{}
		for _, rid := range []string{"first", "bt1", "bt2", "bt3"} {
			w := e.send("admin", "GET", "/api/bw/v2/resource/"+rid+"/published/*", "", nil)
			alias, _ := field(t, w, "urlAlias").(string)
			if !strings.HasPrefix(alias, "/full") || alias == "/full-999999999999999999" {
				t.Errorf("%s: urlAlias %q", rid, alias)
			}
			if other, ok := seen[alias]; ok {
				t.Errorf("%s and %s both hold %q", other, rid, alias)
			}
			seen[alias] = rid
		}
	})
}
