//go:build browser

package admin

import (
	"testing"

	"github.com/chromedp/chromedp"

	"github.com/bwcms/cms/admin/internal/browsertest"
	"github.com/bwcms/cms/cms"
)

// TestBrowserListSearch: the Resource list passes axe, finds a record by a
// word of its Italian title typed without its accent, and shows a title
// made of markup as text, running none of it.
func TestBrowserListSearch(t *testing.T) {
	e := newEnv(t, envOptions{prefix: "/admin"})
	e.storeRecords(cms.KindResource,
		`{"id":"duomo","title":"Cathedral","title_it":"Duomo della Città","published":true}`,
		`{"id":"ponte","title":"Bridge","title_it":"Ponte Vecchio"}`,
		`{"id":"evil","title":"<img src=x onerror=\"window.__ran=1\">","title_de":"<script>window.__ran=2</script>"}`)
	b := browsertest.New(t)
	tab := b.NewTab(t)
	signInBrowser(t, e, tab, "admin")
	err := chromedp.Do(tab,
		chromedp.Navigate(e.url("/resource/")),
		chromedp.WaitVisible(chromedp.CSS(`table`)),
	)
	if err != nil {
		t.Fatal(err)
	}
	browsertest.RequireNoSeriousAxe(t, tab)
	browsertest.Screenshot(t, tab, "list")
	ran, err := chromedp.Run(tab, chromedp.Evaluate[bool](`window.__ran !== undefined || document.querySelector("main img") !== null`))
	if err != nil || ran {
		t.Fatalf("record markup ran or rendered: %v %v", ran, err)
	}

	// RunResponse waits for the search's answer: the list shown before
	// it has a table too.
	_, err = chromedp.RunResponse(tab, chromedp.SendKeys(chromedp.CSS(`#f-q`), "citta\r"))
	if err != nil {
		t.Fatal(err)
	}
	ids, err := chromedp.Run(tab, chromedp.Evaluate[[]string](`[...document.querySelectorAll('tbody input[name="id"]')].map(b => b.value)`))
	if err != nil {
		t.Fatal(err)
	}
	if len(ids) != 1 || ids[0] != "duomo" {
		t.Errorf("search citta found %v", ids)
	}
	browsertest.Screenshot(t, tab, "search")
	browsertest.RequireNoErrors(t, tab)
}
