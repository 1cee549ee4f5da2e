//go:build browser

package admin

import (
	"strings"
	"testing"

	"github.com/bwcms/cms/admin/internal/browsertest"
	"github.com/bwcms/cms/cms"
)

// TestE2EEveryPageAccessible runs axe (no serious or critical violation)
// and watches for errors (no exception, console error, failed load or CSP
// violation) on every page of the editing path: the sign-in, the
// overview, each kind's list, each kind's form blank and filled (records
// with every shape of value: languages, HTML, nested items, id lists), a
// form refused with a 409 on a nested item's field, the conflict view of
// a nested list, a delete's confirmation and a bulk delete's, the users,
// a user, a new user, a user's deletion and the account.
func TestE2EEveryPageAccessible(t *testing.T) {
	e := newEnv(t, envOptions{prefix: "/admin"})
	seedFull(e)
	e.put(cms.KindResource, `{"id":"r-2","title":"Old harbour","title_it":"Porto vecchio"}`,
		`{"id":"r-3","title":"Harbour walk","title_it":"Passeggiata del porto","poiResourceIds":["r-2"]}`)
	b := browsertest.New(t)
	x := e2eNewTab(t, e, b)
	x.open("/login", 200)
	x.audit()
	signInBrowser(t, e, x.ctx, "admin")
	x.audit()
	x.shot("overview", 0)

	for _, kind := range cms.Kinds() {
		for _, path := range []string{"/" + string(kind) + "/", "/" + string(kind) + "/new", editPath(kind, oneID[kind])} {
			x.open(path, 200)
			x.audit()
		}
	}
	for _, path := range []string{"/users/", "/users/editor", "/users/new", "/users/reader/delete", "/account"} {
		x.open(path, 200)
		x.audit()
	}

	// A 409 on a landing block's title, over its 200 characters.
	path := editPath(cms.KindLanding, "l-1")
	x.open(path, 200)
	x.fill(e2eCtl("landingBlocks[1].title_it"), strings.Repeat("blocco ", 30))
	if got := x.click(`.form-bar button[name="_action"][value="save"]`); got != 409 {
		t.Fatalf("save: status %d, want 409", got)
	}
	if got := x.attr(e2eCtl("landingBlocks[1].title_it"), "aria-invalid"); got != "true" {
		t.Errorf("the block's Italian title is aria-invalid %q", got)
	}
	x.audit(409)

	// The conflict view of the landing blocks: someone else saved them.
	x.open(path, 200)
	e.clock.Advance(1e9)
	e.put(cms.KindLanding, `{"id":"l-1","landingBlocks":[{"title":"Theirs"}]}`)
	x.fill(e2eCtl("landingBlocks[0].title"), "Mine")
	if got := x.click(`.form-bar button[name="_action"][value="save"]`); got != 409 {
		t.Fatalf("save over theirs: status %d, want 409", got)
	}
	if x.count(`fieldset.clash[data-field="landingBlocks"]`) != 1 {
		t.Fatalf("no clash of the landing blocks: %q", x.mainText())
	}
	x.audit(409)

	// A delete's confirmation (a Resource another lists) and a bulk one.
	x.open(editPath(cms.KindResource, "r-2"), 200)
	if got := x.click(`.form-bar button[name="_action"][value="delete"]`); got != 200 || x.count(`ul.referrers a[href="/admin/resource/r-3/edit"]`) != 1 {
		t.Fatalf("Delete…: status %d, page %q", got, x.mainText())
	}
	x.audit()
	x.open("/proposal/", 200)
	x.tap(`tbody input[name="id"][value="p-1"]`)
	if got := x.click(`#bulk button[name="action"][value="delete"]`); got != 200 {
		t.Fatalf("bulk Delete…: status %d", got)
	}
	x.audit()
}
