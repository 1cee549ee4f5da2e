//go:build browser

package admin

import (
	"strings"
	"testing"

	"github.com/chromedp/chromedp"
	"github.com/chromedp/chromedp/kb"

	"github.com/bwcms/cms/admin/internal/browsertest"
	"github.com/bwcms/cms/cms"
)

// offered are the ids the picker's listbox offers.
const offered = `[...document.querySelectorAll("#f-resourceIds-find-list [role=option]")].map((o) => o.querySelector(".idlist-id").textContent).join(",")`

// TestBrowserPicker finds records for an id list by a word of their
// Italian title typed without its accent, by keyboard (Down, Enter) as
// the combobox pattern has it, and by mouse: the chosen ids are added in
// order with their titles, ids already there are not offered, a title
// made of markup shows as text and runs nothing, Enter never submits the
// form, and the save stores the list as shown.
func TestBrowserPicker(t *testing.T) {
	e := newEnv(t, envOptions{prefix: "/admin"})
	e.put(cms.KindResource,
		`{"id":"r-0","title":"Base"}`,
		`{"id":"duomo","title":"Cathedral","title_it":"Duomo della Città"}`,
		`{"id":"ponte","title":"Bridge","title_it":"Ponte della città vecchia"}`,
		`{"id":"evil","title":"<img src=x onerror=\"window.__ran=1\"> città","title_de":"<script>window.__ran=2</script>"}`)
	e.put(cms.KindMap, `{"id":"m-1","title":"Map","resourceIds":["r-0"]}`)
	b := browsertest.New(t)
	tab := b.NewTab(t)
	signInBrowser(t, e, tab, "admin")
	openForm(t, e, tab, "/map/m-1/edit")
	role := js[string](t, tab, `(() => { const i = document.getElementById("f-resourceIds-find");
		return [i.getAttribute("role"), i.labels[0].textContent, i.getAttribute("aria-controls"), i.getAttribute("aria-expanded")].join("|") })()`)
	if role != "combobox|Find a Resource to add to Resource IDs, by title or id|f-resourceIds-find-list|false" {
		t.Errorf("the search box: %s", role)
	}
	err := chromedp.Do(tab,
		chromedp.Evaluate[chromedp.Void](`window.__page = 1, undefined`),
		chromedp.SendKeys(chromedp.CSS(`#f-resourceIds-find`), "citta"),
		chromedp.Poll[chromedp.Void](`document.querySelectorAll("#f-resourceIds-find-list [role=option]").length === 3`),
	)
	if err != nil {
		t.Fatal(err)
	}
	if got := strings.Split(js[string](t, tab, offered), ","); len(got) != 3 {
		t.Fatalf("offered %v, want duomo, ponte and evil", got)
	}
	ran := `window.__ran !== undefined || document.querySelector("main img, main script:not([src])") !== null`
	if js[bool](t, tab, ran) {
		t.Fatal("a title's markup ran or became an element in the results")
	}
	evil := js[string](t, tab, `[...document.querySelectorAll("#f-resourceIds-find-list [role=option]")].find((o) => o.textContent.includes("evil")).textContent`)
	if !strings.Contains(evil, `<img src=x onerror="window.__ran=1"> città`) {
		t.Errorf("the markup title shows as %q", evil)
	}
	browsertest.RequireNoSeriousAxe(t, tab)
	browsertest.Screenshot(t, tab, "results")

	// Down twice, Up once: the first result is active; Enter adds it.
	err = chromedp.Do(tab,
		chromedp.KeyEvent(kb.ArrowDown), chromedp.KeyEvent(kb.ArrowDown), chromedp.KeyEvent(kb.ArrowUp),
	)
	if err != nil {
		t.Fatal(err)
	}
	active := js[string](t, tab, `(() => { const i = document.getElementById("f-resourceIds-find"); const o = document.getElementById(i.getAttribute("aria-activedescendant"));
		return o.getAttribute("aria-selected") + " " + o.querySelector(".idlist-id").textContent })()`)
	first := strings.Split(js[string](t, tab, offered), ",")[0]
	if active != "true "+first {
		t.Fatalf("active option %q, want the first, %s", active, first)
	}
	if err := chromedp.Do(tab, chromedp.KeyEvent(kb.Enter)); err != nil {
		t.Fatal(err)
	}
	ids := `[...document.querySelectorAll('.idlist[data-field=resourceIds] > ol > li > input[type=hidden][name=resourceIds]')].map((i) => i.value).join(",")`
	if got := js[string](t, tab, ids); got != "r-0,"+first {
		t.Fatalf("after Enter the list holds %s", got)
	}
	state := js[string](t, tab, `[window.__page, document.getElementById("f-resourceIds-find").value, document.getElementById("f-resourceIds-find").getAttribute("aria-expanded"),
		document.activeElement.id, document.getElementById("f-resourceIds-find-status").textContent].join("|")`)
	if !strings.HasPrefix(state, "1||false|f-resourceIds-find|Added "+first) {
		t.Errorf("after adding: %s", state)
	}

	// The same words again: what is in the list is not offered.
	err = chromedp.Do(tab,
		chromedp.SendKeys(chromedp.CSS(`#f-resourceIds-find`), "citta"),
		chromedp.Poll[chromedp.Void](`document.querySelectorAll("#f-resourceIds-find-list [role=option]").length === 2`),
	)
	if err != nil {
		t.Fatal(err)
	}
	if strings.Contains(js[string](t, tab, offered), first) {
		t.Errorf("%s offered again", first)
	}
	// Escape closes the list, a second Escape empties the box.
	if err := chromedp.Do(tab, chromedp.KeyEvent(kb.Escape)); err != nil {
		t.Fatal(err)
	}
	if got := js[string](t, tab, `document.getElementById("f-resourceIds-find").getAttribute("aria-expanded") + " " + document.getElementById("f-resourceIds-find-list").hidden`); got != "false true" {
		t.Errorf("after Escape: %s", got)
	}
	if err := chromedp.Do(tab, chromedp.KeyEvent(kb.Escape)); err != nil {
		t.Fatal(err)
	}
	if got := js[string](t, tab, `document.getElementById("f-resourceIds-find").value`); got != "" {
		t.Errorf("after a second Escape the box holds %q", got)
	}

	// By id, with the mouse; the markup title is added as text.
	other := "evil"
	if first == "evil" {
		other = "duomo"
	}
	err = chromedp.Do(tab,
		chromedp.SendKeys(chromedp.CSS(`#f-resourceIds-find`), other),
		chromedp.WaitVisible(chromedp.CSS(`#f-resourceIds-find-list [role=option]`)),
		chromedp.Click(chromedp.CSS(`#f-resourceIds-find-list [role=option]`)),
		chromedp.WaitVisible(chromedp.CSS(`.idlist[data-field=resourceIds] li[data-id=`+other+`]`)),
	)
	if err != nil {
		t.Fatal(err)
	}
	if got := js[string](t, tab, `document.querySelector(".idlist[data-field=resourceIds] li[data-id=evil] .idlist-title").textContent`); !strings.HasPrefix(got, "<img src=x") {
		t.Errorf("the added title shows %q", got)
	}
	if js[bool](t, tab, ran) {
		t.Fatal("a title's markup ran or became an element in the list")
	}
	browsertest.Screenshot(t, tab, "added")
	want := "r-0," + first + "," + other
	if got := js[string](t, tab, ids); got != want {
		t.Fatalf("the list holds %s, want %s", got, want)
	}
	// The buttons of the new entries work in the page.
	if got := js[string](t, tab, `[...document.querySelectorAll('.idlist[data-field=resourceIds] li[data-id=`+other+`] .row-actions button')].map((b) => b.value).join(",")`); got != "up:resourceIds[2],remove:resourceIds[2]" {
		t.Errorf("the added id's buttons: %s", got)
	}
	save(t, tab)
	if got := storedIDs(e, cms.KindMap, "m-1", "resourceIds"); got != want {
		t.Errorf("stored %s, want %s", got, want)
	}
	browsertest.RequireNoErrors(t, tab)
}

// TestBrowserPickerMapOrLanding: a Landing block's ids name Maps or
// Landings: the picker searches both and says which each result is; it
// adds to a list that was empty.
func TestBrowserPickerMapOrLanding(t *testing.T) {
	e := newEnv(t, envOptions{prefix: "/admin"})
	e.put(cms.KindMap, `{"id":"lake-map","title":"Lake tour"}`)
	e.put(cms.KindLanding, `{"id":"lake-page","title":"Lake landing"}`,
		`{"id":"l-1","title":"Landing","landingBlocks":[{"title":"Block"}]}`)
	b := browsertest.New(t)
	tab := b.NewTab(t)
	signInBrowser(t, e, tab, "admin")
	openForm(t, e, tab, "/landing/l-1/edit")
	box := `#f-landingBlocks-0-resourceIds-find`
	err := chromedp.Do(tab,
		chromedp.SendKeys(chromedp.CSS(box), "lake"),
		chromedp.Poll[chromedp.Void](`document.querySelectorAll("`+box+`-list [role=option]").length === 2`),
	)
	if err != nil {
		t.Fatal(err)
	}
	got := js[string](t, tab, `[...document.querySelectorAll("`+box+`-list [role=option]")].map((o) => o.querySelector(".idlist-id").textContent + ":" + o.querySelector(".badge").textContent).sort().join(",")`)
	if got != "lake-map:Map,lake-page:Landing" {
		t.Errorf("offered %s", got)
	}
	browsertest.RequireNoSeriousAxe(t, tab)
	err = chromedp.Do(tab, chromedp.KeyEvent(kb.ArrowDown), chromedp.KeyEvent(kb.Enter),
		chromedp.WaitVisible(chromedp.CSS(`.idlist[data-field="landingBlocks[0].resourceIds"] ol li`)))
	if err != nil {
		t.Fatal(err)
	}
	if got := js[string](t, tab, `document.querySelector('.idlist[data-field="landingBlocks[0].resourceIds"] ol').getAttribute("aria-label")`); got != "Resource IDs" {
		t.Errorf("the new list is labelled %q", got)
	}
	save(t, tab)
	blocks, _ := e.stored(cms.KindLanding, "l-1")["landingBlocks"].([]any)
	ids, _ := blocks[0].(map[string]any)["resourceIds"].([]any)
	if len(ids) != 1 || (ids[0] != "lake-map" && ids[0] != "lake-page") {
		t.Errorf("stored block ids %v", ids)
	}
	browsertest.RequireNoErrors(t, tab)
}
