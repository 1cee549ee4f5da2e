//go:build browser

package admin

import (
	"strings"
	"testing"

	"github.com/bwcms/cms/admin/internal/browsertest"
	"github.com/bwcms/cms/cms"
)

// TestE2EDeleteRefusedByAReference: a Resource that a Map names as its
// track (a single reference, which blocks a delete) cannot be deleted:
// from its form, Delete shows the refusal naming the Map and offers no
// confirmation; a Resource free when its confirmation was shown but named
// before it was confirmed is refused with a 409 naming the Map; from the
// list, the bulk delete asks first, then reports it not deleted because
// of the Map. Every Resource is still stored.
func TestE2EDeleteRefusedByAReference(t *testing.T) {
	e := newEnv(t, envOptions{prefix: "/admin"})
	e.put(cms.KindResource, `{"id":"ridge","title":"Ridge trail","title_it":"Sentiero del crinale","resourceType":"TRACK"}`,
		`{"id":"lakeside","title":"Lakeside walk","resourceType":"TRACK"}`)
	e.put(cms.KindMap, `{"id":"tour","title":"Tour of the lakes","trackResourceId":"ridge"}`)
	x := e2eEditor(t, e, browsertest.New(t), "admin")

	// From the form.
	x.open(editPath(cms.KindResource, "ridge"), 200)
	if got := x.click(`.form-bar button[name="_action"][value="delete"]`); got != 200 {
		t.Fatalf("Delete…: status %d", got)
	}
	if got := x.text("main h1"); got != "Resource ridge cannot be deleted" {
		t.Errorf("heading %q", got)
	}
	if got := x.text(".error-summary"); !strings.Contains(got, "Map Tour of the lakes (tour) names it in trackResourceId") {
		t.Errorf("the refusal says %q, want it to name Map tour", got)
	}
	if x.count(`.error-summary a[href="/admin/map/tour/edit"]`) != 1 {
		t.Error("the refusal does not link to the Map")
	}
	if x.count(`button[value="delete-confirm"]`) != 0 {
		t.Error("a Resource that cannot go is offered for deletion")
	}
	x.shot("delete-refused", 0)
	x.audit()
	if e.stored(cms.KindResource, "ridge") == nil {
		t.Fatal("ridge was deleted")
	}

	// Free when asked, named before confirmed.
	x.open(editPath(cms.KindResource, "lakeside"), 200)
	if got := x.click(`.form-bar button[name="_action"][value="delete"]`); got != 200 {
		t.Fatalf("Delete…: status %d", got)
	}
	if got := x.text("main h1"); got != "Delete Resource lakeside?" {
		t.Errorf("the confirmation's heading %q", got)
	}
	x.audit()
	e.put(cms.KindMap, `{"id":"shore","title":"Shore","trackResourceId":"lakeside"}`)
	if got := x.click(`button[name="_action"][value="delete-confirm"]`); got != 409 {
		t.Fatalf("the confirmed delete: status %d, want 409; the page says %q", got, x.mainText())
	}
	if got := x.text(".error-summary"); !strings.Contains(got, "Map Shore (shore) names it in trackResourceId") {
		t.Errorf("the 409 says %q, want it to name Map shore", got)
	}
	x.audit(409)
	if e.stored(cms.KindResource, "lakeside") == nil {
		t.Fatal("lakeside was deleted")
	}

	// From the list: asked first, then refused, naming the Map.
	x.open("/resource/", 200)
	x.tap(`tbody input[name="id"][value="ridge"]`)
	if got := x.click(`#bulk button[name="action"][value="delete"]`); got != 200 {
		t.Fatalf("the bulk Delete…: status %d", got)
	}
	if got := e2eEval[[]string](x, `[...document.querySelectorAll("ul.doomed li")].map((li) => li.dataset.id)`); len(got) != 1 || got[0] != "ridge" {
		t.Errorf("the confirmation lists %v", got)
	}
	x.audit()
	if e.stored(cms.KindResource, "ridge") == nil {
		t.Fatal("ridge was deleted before the confirmation")
	}
	status := x.click(`form.confirm button[type="submit"]`)
	if status != 409 && status != 200 {
		t.Fatalf("the confirmed bulk delete: status %d", status)
	}
	row := `table.bulk-results tr[data-id="ridge"]`
	if got := x.text(row + " .outcome"); got != "Failed" {
		t.Errorf("ridge's outcome %q", got)
	}
	if got := x.text(row + " .referrers"); !strings.Contains(got, "Map Tour of the lakes (tour) names it in trackResourceId") {
		t.Errorf("the report says %q, want it to name Map tour", got)
	}
	if x.count(row+` .referrers a[href="/admin/map/tour/edit"]`) != 1 {
		t.Error("the report does not link to the Map")
	}
	x.shot("bulk-delete-refused", 0)
	x.audit(409)
	for _, id := range []string{"ridge", "lakeside"} {
		if e.stored(cms.KindResource, id) == nil {
			t.Errorf("%s was deleted", id)
		}
	}
}
