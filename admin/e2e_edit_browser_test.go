//go:build browser

package admin

import (
	"fmt"
	"testing"

	"github.com/bwcms/cms/admin/internal/browsertest"
	"github.com/bwcms/cms/cms"
	"github.com/bwcms/cms/internal/testenv"
)

// TestE2EFindAndEditByKeyboard is the editor's main path with the
// keyboard only (Tab, Enter and typing; no click, no focus set by the
// test): sign in, open the Resources, search a word of an Italian title,
// open the record found, change its title in English and Italian, save.
// Every control reached shows its focus. The page says Saved and the
// store has both titles, nothing else changed.
func TestE2EFindAndEditByKeyboard(t *testing.T) {
	e := newEnv(t, envOptions{prefix: "/admin"})
	e.storeRecords(cms.KindResource,
		`{"id":"duomo","title":"Cathedral","title_it":"Duomo della Città","title_de":"Dom","published":true,"shortDescription":"Big church"}`,
		`{"id":"ponte","title":"Bridge","title_it":"Ponte Vecchio"}`,
		`{"id":"fort","title":"Fortress","title_it":"Fortezza"}`)
	before := e.stored(cms.KindResource, "duomo")
	x := e2eNewTab(t, e, browsertest.New(t))

	// Sign in: the address typed, then Tab and typing.
	x.open("/login", 200)
	x.tabTo("#u", 20)
	x.key("admin")
	x.tabTo("#p", 5)
	x.key(testenv.Password)
	if got := x.enter("sign in"); got != 200 || x.count("header .who") != 1 {
		t.Fatalf("sign in: status %d, the page says %q", got, x.mainText())
	}
	x.audit()

	// The Resources, from the sections' navigation.
	x.tabTo(`nav a[href="/admin/resource/"]`, 20)
	if got := x.enter("Resources"); got != 200 {
		t.Fatalf("the list: status %d", got)
	}
	// A word of the Italian title, typed without its accent.
	x.tabTo("#f-q", 30)
	x.key("citta")
	if got := x.enter("search"); got != 200 {
		t.Fatalf("search: status %d", got)
	}
	ids := e2eEval[[]string](x, `[...document.querySelectorAll("table.records td.id")].map((td) => td.textContent.trim())`)
	if fmt.Sprint(ids) != "[duomo]" {
		t.Fatalf("search citta found %v", ids)
	}
	x.shot("list-search", 0)
	x.audit()

	// Open it from its row.
	x.tabTo(`td.id a[href="/admin/resource/duomo/edit"]`, 60)
	if got := x.enter("open duomo"); got != 200 {
		t.Fatalf("the form: status %d", got)
	}
	if got := x.value(e2eCtl("title_it")); got != "Duomo della Città" {
		t.Fatalf("the form shows title_it %q", got)
	}
	x.audit()

	// Both titles changed by keyboard, then Enter in a field saves.
	x.tabTo(e2eCtl("title"), 80)
	x.typeOver("Cathedral of Saint Mary")
	x.tabTo(e2eCtl("title_it"), 5)
	x.typeOver("Duomo di Santa Maria")
	if got := x.value(e2eCtl("title")); got != "Cathedral of Saint Mary" {
		t.Fatalf("the typed title is %q", got)
	}
	x.shot("edit-languages", 900)
	x.saved(x.enter("save by Enter"), "save by Enter")
	if got := x.value(e2eCtl("title_it")); got != "Duomo di Santa Maria" {
		t.Errorf("after saving the form shows title_it %q", got)
	}
	after := e.stored(cms.KindResource, "duomo")
	if after["title"] != "Cathedral of Saint Mary" || after["title_it"] != "Duomo di Santa Maria" {
		t.Errorf("stored title %q, title_it %q", after["title"], after["title_it"])
	}
	for k, v := range before {
		if k == "title" || k == "title_it" || k == "timeLastUpdate" {
			continue
		}
		if got := mustJSON(after[k]); got != mustJSON(v) {
			t.Errorf("%s changed from %s to %s", k, mustJSON(v), got)
		}
	}
	x.audit()
}

// TestE2EEditEveryKind edits a record of each kind in two languages
// through the form as a mouse user would; for a Landing and a Proposal it
// also adds a nested item (a landing block, a hotel section) with its
// button and fills its title in both languages. The store has what the
// form showed, the items before the new one unchanged.
func TestE2EEditEveryKind(t *testing.T) {
	e := newEnv(t, envOptions{prefix: "/admin"})
	e.put(cms.KindResource, `{"id":"r-1","title":"Resource one","title_it":"Risorsa uno"}`)
	e.put(cms.KindMap, `{"id":"m-1","title":"Map one","resourceIds":["r-1"]}`)
	e.put(cms.KindLanding, `{"id":"l-1","title":"Landing one","mapId":"m-1","landingBlocks":[{"title":"First block","title_it":"Primo blocco"}]}`)
	e.put(cms.KindProposal, `{"id":"p-1","title":"Proposal one","expireDate":"2027-01-31","customerId":"cust-1","hotels":[{"title":"Hotel one"}]}`)
	nested := map[cms.Kind]string{cms.KindLanding: "landingBlocks", cms.KindProposal: "hotels"}
	ids := map[cms.Kind]string{cms.KindResource: "r-1", cms.KindMap: "m-1", cms.KindLanding: "l-1", cms.KindProposal: "p-1"}
	x := e2eEditor(t, e, browsertest.New(t), "admin")
	for _, kind := range cms.Kinds() {
		id := ids[kind]
		x.open(editPath(kind, id), 200)
		x.audit()
		en, it := "Edited "+string(kind), "Modificato "+string(kind)+" è"
		x.fill(e2eCtl("title"), en)
		x.fill(e2eCtl("title_it"), it)
		list := nested[kind]
		var oldItems []any
		if list != "" {
			oldItems, _ = e.stored(kind, id)[list].([]any)
			n := x.count(`fieldset.items[data-path="` + list + `"] > fieldset.item`)
			if got := x.click(`button[name="_action"][value="add:` + list + `"]`); got != 200 {
				t.Fatalf("%s: adding to %s: status %d", kind, list, got)
			}
			if got := x.count(`fieldset.items[data-path="` + list + `"] > fieldset.item`); got != n+1 {
				t.Fatalf("%s: %d items after Add, want %d", kind, got, n+1)
			}
			if got := x.value(e2eCtl("title_it")); got != it {
				t.Fatalf("%s: after Add the form holds title_it %q, want what was typed", kind, got)
			}
			x.audit()
			item := fmt.Sprintf("%s[%d].", list, n)
			x.fill(e2eCtl(item+"title"), "New item of "+string(kind))
			x.fill(e2eCtl(item+"title_it"), "Nuovo elemento")
		}
		x.saved(x.click(`.form-bar button[name="_action"][value="save"]`), string(kind))
		x.audit()
		got := e.stored(kind, id)
		if got["title"] != en || got["title_it"] != it {
			t.Errorf("%s: stored title %q, title_it %q", kind, got["title"], got["title_it"])
		}
		if list == "" {
			continue
		}
		items, _ := got[list].([]any)
		if len(items) != len(oldItems)+1 {
			t.Fatalf("%s: %d %s stored, want %d", kind, len(items), list, len(oldItems)+1)
		}
		for i, old := range oldItems {
			if mustJSON(items[i]) != mustJSON(old) {
				t.Errorf("%s: %s[%d] changed from %s to %s", kind, list, i, mustJSON(old), mustJSON(items[i]))
			}
		}
		last, _ := items[len(items)-1].(map[string]any)
		if last["title"] != "New item of "+string(kind) || last["title_it"] != "Nuovo elemento" {
			t.Errorf("%s: the new item is stored as %s", kind, mustJSON(last))
		}
	}
}
