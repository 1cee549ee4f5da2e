//go:build browser

package admin

import (
	"strings"
	"testing"
	"time"

	"github.com/bwcms/cms/admin/internal/browsertest"
	"github.com/bwcms/cms/cms"
)

// TestOverviewInBrowser: the overview with records of every state, a
// deletion, a batch waiting and one processing passes axe and runs
// without errors; its numbers are reached by keyboard, and a missing
// translation's count opens the list filtered by it. It saves the
// screenshot "overview-full".
func TestOverviewInBrowser(t *testing.T) {
	e := newEnv(t, envOptions{prefix: "/admin"})
	e.storeRecords(cms.KindResource,
		`{"id":"lake-como","published":true,"title":"Lake Como","title_it":"Lago di Como","title_de":"Comer See"}`,
		`{"id":"old-harbour","published":true,"title":"Old harbour","title_it":"Porto vecchio"}`,
		`{"id":"castle","title_it":"Castello"}`,
		`{"id":"draft-walk","title":"Harbour walk"}`)
	e.storeRecords(cms.KindMap, `{"id":"lakes-tour","published":true,"title":"Lakes tour","title_it":"Giro dei laghi"}`)
	e.storeRecords(cms.KindLanding, `{"id":"home","published":true,"title":"Home","title_it":"Casa","title_de":"Startseite"}`)
	if _, err := e.svc.Upsert(e.listAs("editor"), cms.KindResource, []byte(`{"id":"castle","title":"Castle","title_it":"Castello"}`), nil); err != nil {
		t.Fatal(err)
	}
	if _, err := e.svc.Delete(e.listAs("editor"), cms.KindResource, []string{"draft-walk"}, nil); err != nil {
		t.Fatal(err)
	}
	for _, body := range []string{`[{"id":"imp-1"},{"id":"imp-2"},{"id":"imp-3"},{"id":"imp-4"}]`, `[{"id":"imp-5"}]`} {
		if _, err := e.svc.SubmitBatch(e.listAs("admin"), cms.KindResource, []byte(body)); err != nil {
			t.Fatal(err)
		}
		e.clock.Advance(time.Minute)
	}
	if _, err := e.store.ClaimBatch(t.Context(), "w1", e.clock.Now(), e.clock.Now().Add(time.Hour)); err != nil {
		t.Fatal(err)
	}

	b := browsertest.New(t)
	x := e2eEditor(t, e, b, "admin")
	x.audit()
	x.shot("overview-full", 0)
	if got := x.text(`table.overview-recent tbody tr:first-child td.record`); !strings.Contains(got, "draft-walk") {
		t.Errorf("the newest change is %q, want the deletion of draft-walk", got)
	}
	if n := x.count(`table.overview-batches tbody tr`); n != 2 {
		t.Errorf("%d batches shown, want 2", n)
	}
	// By keyboard: the German count of Resources, then Enter.
	sel := `table.overview-missing tr[data-kind="resource"] td[data-lang="de"] a`
	if got := x.text(sel); got != "2" {
		t.Errorf("Resources without a German title: %q, want 2", got)
	}
	x.tabTo(sel, 60)
	if status := x.enter("the missing German count"); status != 200 {
		t.Fatalf("the filtered list: status %d", status)
	}
	if n := x.count(`table.records tbody tr`); n != 2 {
		t.Errorf("the list of Resources without a German title has %d rows, want 2", n)
	}
	x.clean()
}
