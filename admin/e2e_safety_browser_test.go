//go:build browser

package admin

import (
	"strings"
	"testing"

	"github.com/bwcms/cms/admin/internal/browsertest"
	"github.com/bwcms/cms/cms"
)

// e2eEvil is record text that would run if a page made markup of it.
const e2eEvil = `<img src=x onerror="window.__ran=1">`

// TestE2ERecordTextIsOnlyText: titles made of markup are shown as text
// on the overview, the list, the form (its own fields and the titles of
// the ids it lists), the conflict view, a delete's confirmation and
// refusal, and the bulk delete's confirmation and report: no element is made of them, nothing
// runs, and the Content-Security-Policy is never hit.
func TestE2ERecordTextIsOnlyText(t *testing.T) {
	e := newEnv(t, envOptions{prefix: "/admin"})
	evil := mustJSON(e2eEvil)
	e.put(cms.KindResource, `{"id":"victim","title":"Victim"}`,
		`{"id":"evil","title":`+evil+`,"title_it":`+evil+`,"shortDescription":`+evil+`,"poiResourceIds":["victim"]}`,
		`{"id":"plain","title":"Plain","poiResourceIds":["evil"]}`)
	e.put(cms.KindMap, `{"id":"evil-map","title":`+evil+`,"trackResourceId":"evil"}`)
	b := browsertest.New(t)
	x := e2eEditor(t, e, b, "admin")
	x.nothingRan("the overview")
	if !strings.Contains(x.mainText(), e2eEvil) {
		t.Errorf("the overview does not show the title as text: %q", x.mainText())
	}
	x.clean()

	x.open("/resource/", 200)
	x.nothingRan("the list")
	if got := x.text(`tr:has(td.id a[href$="/evil/edit"]) .title a`); got != e2eEvil {
		t.Errorf("the list shows the title as %q", got)
	}
	x.clean()

	x.open(editPath(cms.KindResource, "evil"), 200)
	x.nothingRan("the form")
	for _, name := range []string{"title", "title_it", "shortDescription"} {
		if got := x.value(e2eCtl(name)); got != e2eEvil {
			t.Errorf("the form's %s holds %q", name, got)
		}
	}
	if got := x.text("main h1"); got != "Resource evil" {
		t.Errorf("heading %q", got)
	}
	x.clean()

	x.open(editPath(cms.KindResource, "plain"), 200)
	x.nothingRan("a form listing the record's id")
	if got := x.text(`.idlist li[data-id="evil"] .idlist-title`); got != e2eEvil {
		t.Errorf("the id list shows the title as %q", got)
	}
	x.clean()

	// The conflict view: theirs is the markup (typed by A), mine too.
	y := e2eEditor(t, e, b, "editor")
	x.open(editPath(cms.KindResource, "plain"), 200)
	y.open(editPath(cms.KindResource, "plain"), 200)
	e.clock.Advance(1e9)
	x.fill(e2eCtl("title"), e2eEvil)
	x.saved(x.click(`.form-bar button[name="_action"][value="save"]`), "A's save")
	x.nothingRan("the form just saved")
	y.fill(e2eCtl("title"), e2eEvil+" (B)")
	if got := y.click(`.form-bar button[name="_action"][value="save"]`); got != 409 {
		t.Fatalf("B's save: status %d, want the conflict view", got)
	}
	y.nothingRan("the conflict view")
	if got := y.text(`fieldset.clash[data-field="title"] [data-side="theirs"]`); got != e2eEvil {
		t.Errorf("the conflict view shows theirs as %q", got)
	}
	if got := y.text(`fieldset.clash[data-field="title"] [data-side="mine"]`); got != e2eEvil+" (B)" {
		t.Errorf("the conflict view shows mine as %q", got)
	}
	y.clean(409)
	x.clean()

	// Deleting a Resource it lists: the confirmation names it.
	x.open(editPath(cms.KindResource, "victim"), 200)
	x.click(`.form-bar button[name="_action"][value="delete"]`)
	x.nothingRan("the delete confirmation")
	if got := x.text(`ul.referrers a[href$="/resource/evil/edit"]`); got != e2eEvil+" (evil)" {
		t.Errorf("the confirmation names the Resource as %q", got)
	}
	x.clean()

	// Deleting it: refused by the Map, whose title is markup too.
	x.open(editPath(cms.KindResource, "evil"), 200)
	x.click(`.form-bar button[name="_action"][value="delete"]`)
	x.nothingRan("the delete refusal")
	if got := x.text(`.error-summary a[href$="/map/evil-map/edit"]`); got != e2eEvil+" (evil-map)" {
		t.Errorf("the refusal names the Map as %q", got)
	}
	x.clean()

	x.open("/resource/", 200)
	x.tap(`tbody input[name="id"][value="evil"]`)
	x.click(`#bulk button[name="action"][value="delete"]`)
	x.nothingRan("the bulk delete's confirmation")
	if got := x.text(`ul.doomed li[data-id="evil"] a`); got != e2eEvil+" (evil)" {
		t.Errorf("the confirmation shows %q", got)
	}
	x.clean()
	x.click(`form.confirm button[type="submit"]`)
	x.nothingRan("the bulk delete's report")
	if got := x.text(`tr[data-id="evil"] .referrers a`); got != e2eEvil+" (evil-map)" {
		t.Errorf("the report names the Map as %q", got)
	}
	x.clean(409)
	if e.stored(cms.KindResource, "evil") == nil {
		t.Error("evil was deleted")
	}
}
