//go:build browser

package admin

import (
	"context"
	"encoding/json"
	"strings"
	"testing"

	"github.com/chromedp/chromedp"
	"github.com/chromedp/chromedp/kb"

	"github.com/bwcms/cms/admin/internal/browsertest"
	"github.com/bwcms/cms/cms"
)

// blockTitles are the titles (en, de) of a stored Landing's blocks, in
// order, and the HTML of each.
func blockTitles(t *testing.T, e *env, id string) (titles, html []string) {
	t.Helper()
	blocks, _ := e.stored(cms.KindLanding, id)["landingBlocks"].([]any)
	for _, b := range blocks {
		m, _ := b.(map[string]any)
		en, _ := m["title"].(string)
		de, _ := m["title_de"].(string)
		h, _ := m["htmlContent"].(string)
		titles = append(titles, en+"/"+de)
		html = append(html, h)
	}
	return titles, html
}

// save presses the form's Save and waits for the page after it.
func save(t *testing.T, tab context.Context) {
	t.Helper()
	submit(t, tab, `#record-form .form-bar button[value=save]`)
	if err := chromedp.Do(tab, chromedp.WaitVisible(chromedp.CSS(`#record-form[data-saved]`)), waitEditors); err != nil {
		t.Fatalf("save: %v", err)
	}
}

// TestBrowserReorderItems drags the third block of a Landing above the
// first by its handle: the form's names follow the order shown (the
// values of a language not shown, carried outside the items, too), and
// the save stores that order, the HTML of the moved block untouched. Then
// the Move down button moves it back in the page, keeping the focus, and
// the save stores that.
func TestBrowserReorderItems(t *testing.T) {
	e := newEnv(t, envOptions{prefix: "/admin"})
	e.put(cms.KindMap, `{"id":"m-a","title":"A map"}`)
	e.put(cms.KindLanding, `{"id":"l-1","title":"Landing","landingBlocks":[
		{"title":"One","title_de":"Eins","resourceIds":["m-a"]},
		{"title":"Two","title_de":"Zwei"},
		{"title":"Three","title_de":"Drei","htmlContent":"<p>three <b>bold</b></p>"}]}`)
	_, html := blockTitles(t, e, "l-1")
	b := browsertest.New(t)
	tab := b.NewTab(t)
	signInBrowser(t, e, tab, "admin")
	// Only Italian beside English: the German titles ride in hidden inputs
	// outside the blocks.
	if err := chromedp.Do(tab, chromedp.EmulateViewport(1280, 7000)); err != nil {
		t.Fatal(err)
	}
	openForm(t, e, tab, "/landing/l-1/edit?langs=it")
	if n := js[int](t, tab, `document.querySelectorAll('#record-form > input[type=hidden][name$=".title_de"]').length`); n != 3 {
		t.Fatalf("%d German titles carried outside the blocks, want 3", n)
	}
	err := chromedp.Do(tab, chromedp.DragAndDrop(
		chromedp.CSS(`#f-landingBlocks-2 > legend .item-handle`),
		chromedp.CSS(`#f-landingBlocks-0 > legend .item-handle`)))
	if err != nil {
		t.Fatal(err)
	}
	got := js[[]string](t, tab, `[...document.querySelectorAll('fieldset.items[data-path=landingBlocks] > fieldset.item')].map((f, i) =>
		f.querySelector("legend").textContent.trim() + ":" + f.querySelector('input[name="landingBlocks[' + i + '].title"]').value + ":" +
		document.querySelector('#record-form > input[name="landingBlocks[' + i + '].title_de"]').value + ":" + f.id)`)
	if strings.Join(got, " ") != "Block 1:Three:Drei:f-landingBlocks-0 Block 2:One:Eins:f-landingBlocks-1 Block 3:Two:Zwei:f-landingBlocks-2" {
		t.Fatalf("after the drag: %v", got)
	}
	// Each control still has its label, and the buttons name their position.
	bad := js[[]string](t, tab, `[...document.querySelectorAll('fieldset.item input:not([type=hidden]), fieldset.item select, fieldset.item textarea')]
		.filter((c) => !c.closest('.picker, trix-toolbar') && !document.querySelector('label[for="' + c.id + '"]')).map((c) => c.id)`)
	if len(bad) > 0 {
		t.Errorf("controls without their label after the drag: %v", bad)
	}
	actions := js[[]string](t, tab, `[...document.querySelectorAll('fieldset.items[data-path=landingBlocks] > fieldset.item > .row-actions')].map((r) =>
		[...r.querySelectorAll("button")].map((b) => b.value).join(","))`)
	if want := "down:landingBlocks[0],remove:landingBlocks[0] up:landingBlocks[1],down:landingBlocks[1],remove:landingBlocks[1] up:landingBlocks[2],remove:landingBlocks[2]"; strings.Join(actions, " ") != want {
		t.Errorf("buttons after the drag: %v", actions)
	}
	browsertest.Screenshot(t, tab, "dragged")
	// The move is kept in the draft.
	waitDraft(t, tab, "landing:l-1", `["landingBlocks[0].title","Three"]`)
	save(t, tab)
	titles, after := blockTitles(t, e, "l-1")
	if strings.Join(titles, " ") != "Three/Drei One/Eins Two/Zwei" {
		t.Errorf("stored after the drag: %v", titles)
	}
	if after[0] != html[2] {
		t.Errorf("the moved block's HTML is %q, was %q", after[0], html[2])
	}
	if ids, _ := e.stored(cms.KindLanding, "l-1")["landingBlocks"].([]any)[1].(map[string]any)["resourceIds"].([]any); len(ids) != 1 || ids[0] != "m-a" {
		t.Errorf("block One's ids %v", ids)
	}

	// By keyboard: Move down on block 1, twice; its editor still edits.
	err = chromedp.Do(tab,
		chromedp.Focus(chromedp.CSS(`#f-landingBlocks-0 > .row-actions button[value^="down:"]`)),
		chromedp.KeyEvent("\r"),
	)
	if err != nil {
		t.Fatal(err)
	}
	focus := js[string](t, tab, `document.activeElement.value + " in " + document.activeElement.closest("fieldset.item").querySelector("input[name$='.title']").value`)
	if focus != "down:landingBlocks[1] in Three" {
		t.Errorf("focus after Move down: %q", focus)
	}
	if err := chromedp.Do(tab, chromedp.KeyEvent("\r")); err != nil {
		t.Fatal(err)
	}
	focus = js[string](t, tab, `document.activeElement.value`)
	if focus != "up:landingBlocks[2]" {
		t.Errorf("focus after moving to the end: %q, want the Move up of the last", focus)
	}
	err = chromedp.Do(tab,
		chromedp.Click(chromedp.CSS(`#f-landingBlocks-2-htmlContent`)),
		chromedp.KeyEvent(kb.End),
		chromedp.KeyEvent(" moved"),
		chromedp.Poll[chromedp.Void](`document.querySelector('input[type=hidden][name="landingBlocks[2].htmlContent"]').value.includes("moved")`),
	)
	if err != nil {
		t.Fatalf("typing in the moved block's editor: %v", err)
	}
	if u := js[string](t, tab, `location.pathname`); u != "/admin/landing/l-1/edit" {
		t.Errorf("the move buttons left the page: %s", u)
	}
	save(t, tab)
	titles, html = blockTitles(t, e, "l-1")
	if strings.Join(titles, " ") != "One/Eins Two/Zwei Three/Drei" {
		t.Errorf("stored after the keyboard moves: %v", titles)
	}
	if !strings.Contains(html[2], "moved") || !strings.Contains(html[2], "three") {
		t.Errorf("the moved block's HTML after typing: %q", html[2])
	}
	browsertest.RequireNoErrors(t, tab)
}

// TestBrowserReorderIds drags the last id of a Map's list to the top and
// moves one by keyboard: the hidden inputs follow, the save stores the
// order shown.
func TestBrowserReorderIds(t *testing.T) {
	e := newEnv(t, envOptions{prefix: "/admin"})
	e.put(cms.KindResource, `{"id":"r-1","title":"One"}`, `{"id":"r-2","title":"Two"}`, `{"id":"r-3","title":"Three"}`)
	e.put(cms.KindMap, `{"id":"m-1","title":"Map","resourceIds":["r-1","r-2","r-3"]}`)
	b := browsertest.New(t)
	tab := b.NewTab(t)
	signInBrowser(t, e, tab, "admin")
	openForm(t, e, tab, "/map/m-1/edit")
	err := chromedp.Do(tab, chromedp.DragAndDrop(
		chromedp.CSS(`.idlist[data-field=resourceIds] li[data-id=r-3] .id-handle`),
		chromedp.CSS(`.idlist[data-field=resourceIds] li[data-id=r-1] .id-handle`)))
	if err != nil {
		t.Fatal(err)
	}
	order := `[...document.querySelectorAll('.idlist[data-field=resourceIds] input[type=hidden][name=resourceIds]')].map((i) => i.value).join(",")`
	if got := js[string](t, tab, order); got != "r-3,r-1,r-2" {
		t.Fatalf("after the drag the inputs are %s", got)
	}
	browsertest.Screenshot(t, tab, "dragged")
	save(t, tab)
	if got := storedIDs(e, cms.KindMap, "m-1", "resourceIds"); got != "r-3,r-1,r-2" {
		t.Errorf("stored %s", got)
	}
	err = chromedp.Do(tab,
		chromedp.Focus(chromedp.CSS(`.idlist[data-field=resourceIds] li[data-id=r-2] button[value^="up:"]`)),
		chromedp.KeyEvent(" "),
	)
	if err != nil {
		t.Fatal(err)
	}
	if got := js[string](t, tab, order); got != "r-3,r-2,r-1" {
		t.Fatalf("after Up the inputs are %s", got)
	}
	if got := js[string](t, tab, `document.activeElement.value`); got != "up:resourceIds[1]" {
		t.Errorf("focus after Up on %q", got)
	}
	save(t, tab)
	if got := storedIDs(e, cms.KindMap, "m-1", "resourceIds"); got != "r-3,r-2,r-1" {
		t.Errorf("stored %s", got)
	}
	browsertest.RequireNoErrors(t, tab)
}

// storedIDs is a stored id list, comma-separated.
func storedIDs(e *env, kind cms.Kind, id, field string) string {
	e.t.Helper()
	b, _ := json.Marshal(e.stored(kind, id)[field])
	var ids []string
	_ = json.Unmarshal(b, &ids)
	return strings.Join(ids, ",")
}
