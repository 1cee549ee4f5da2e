package admin

import (
	"context"
	"encoding/json"
	"fmt"
	"net/http"
	"net/url"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/PuerkitoBio/goquery"

	"github.com/bwcms/cms/cms"
	"github.com/bwcms/cms/internal/testenv"
)

// listAs is a context acting as user (of any account), as the admin's
// pages act.
func (e *env) listAs(user string) context.Context {
	e.t.Helper()
	ctx := e.t.Context()
	u, err := e.svc.User(ctx, user)
	if err != nil {
		e.t.Fatal(err)
	}
	acc, err := e.svc.Account(ctx, u.Account)
	if err != nil {
		e.t.Fatal(err)
	}
	return cms.WithPrincipal(ctx, cms.Principal{Account: u.Account, User: u.Name, Perms: u.Perms, Langs: acc.Langs})
}

// store upserts each body of kind as admin of acme, a second apart, so
// that each later one is updated later.
func (e *env) storeRecords(kind cms.Kind, bodies ...string) {
	e.t.Helper()
	ctx := e.listAs("admin")
	for _, b := range bodies {
		if _, err := e.svc.Upsert(ctx, kind, []byte(b), nil); err != nil {
			e.t.Fatalf("store %s %s: %v", kind, b, err)
		}
		e.clock.Advance(time.Second)
	}
}

// storedRecord reads a record of acme as admin; nil when there is none.
func (e *env) storedRecord(kind cms.Kind, id string) cms.Record {
	e.t.Helper()
	seq, err := e.svc.Read(e.listAs("admin"), kind, cms.ReadParams{IDs: []string{id}, Published: cms.PublishedAny})
	if err != nil {
		e.t.Fatal(err)
	}
	for en, err := range seq {
		if err != nil {
			e.t.Fatal(err)
		}
		return en.Record
	}
	return nil
}

// rowIDs are the ids of a list page's rows, in order.
func rowIDs(doc *goquery.Document) []string {
	var ids []string
	doc.Find("table.records tbody tr td.id").Each(func(_ int, s *goquery.Selection) {
		ids = append(ids, strings.TrimSpace(s.Text()))
	})
	return ids
}

// firstHref is the address of the first element sel finds, "" when none.
func firstHref(doc *goquery.Document, sel string) string {
	v, _ := doc.Find(sel).First().Attr("href")
	return v
}

// listPath is the admin path of a list with query q.
func listPath(kind cms.Kind, q string) string {
	if q == "" {
		return "/" + string(kind) + "/"
	}
	return "/" + string(kind) + "/?" + q
}

// seedResources stores n Resources r-00.. with titles out of id order
// (titleNo), in English and Italian, in id order a second apart.
func seedResources(e *env, n int) {
	e.t.Helper()
	var bodies []string
	for i := range n {
		t := fmt.Sprintf("Title %02d", titleNo(i, n))
		bodies = append(bodies, fmt.Sprintf(`{"id":"r-%02d","published":true,"title":%q,"title_it":%q}`, i, t, t+" it"))
	}
	e.storeRecords(cms.KindResource, bodies...)
}

// titleNo is the number in the title of the i-th of n seeded Resources:
// every number once (11 and n share no factor for the n used), out of
// id order.
func titleNo(i, n int) int { return (11 * i) % n }

// walkPages follows the Next links from the list at path, returning every
// row's id in order; it fails on a page without rows or a repeat.
func walkPages(t *testing.T, e *env, c *http.Client, path string) (ids []string, pages int) {
	t.Helper()
	for path != "" {
		doc := e.page(e.get(c, path), http.StatusOK)
		page := rowIDs(doc)
		if len(page) == 0 {
			t.Fatalf("%s: an empty page", path)
		}
		ids = append(ids, page...)
		pages++
		next := firstHref(doc, `nav.pager a[rel="next"]`)
		if next != "" && !strings.HasPrefix(next, e.prefix+"/resource/?") {
			t.Fatalf("next %q leaves the list", next)
		}
		path = strings.TrimPrefix(next, e.prefix)
		if pages > 50 {
			t.Fatal("more than 50 pages")
		}
	}
	return ids, pages
}

func TestListSortsAndPagesWithoutDuplicatesOrGaps(t *testing.T) {
	e := newEnv(t, envOptions{prefix: "/admin"})
	const n = 23
	seedResources(e, n)
	c := e.signIn("admin")
	byID := make([]string, n)
	for i := range n {
		byID[i] = fmt.Sprintf("r-%02d", i)
	}
	byTitle := slices.Clone(byID)
	slices.SortFunc(byTitle, func(a, b string) int {
		var i, j int
		fmt.Sscanf(a, "r-%d", &i)
		fmt.Sscanf(b, "r-%d", &j)
		return titleNo(i, n) - titleNo(j, n)
	})
	reversed := func(s []string) []string { r := slices.Clone(s); slices.Reverse(r); return r }
	for _, c2 := range []struct {
		query    string
		want     []string
		header   string // the header with aria-sort
		ariaSort string
	}{
		{"limit=5", reversed(byID), "Last update", "descending"}, // newest first by default: stored in id order
		{"limit=5&order=asc", byID, "Last update", "ascending"},
		{"limit=5&sort=id", byID, "Id", "ascending"},
		{"limit=5&sort=id&order=desc", reversed(byID), "Id", "descending"},
		{"limit=5&sort=title", byTitle, "Title", "ascending"},
		{"limit=5&sort=title&order=desc", reversed(byTitle), "Title", "descending"},
	} {
		t.Run(c2.query, func(t *testing.T) {
			ids, pages := walkPages(t, e, c, listPath(cms.KindResource, c2.query))
			if !slices.Equal(ids, c2.want) {
				t.Errorf("rows\n got %v\nwant %v", ids, c2.want)
			}
			if pages != 5 {
				t.Errorf("%d pages, want 5", pages)
			}
			doc := e.page(e.get(c, listPath(cms.KindResource, c2.query)), http.StatusOK)
			sorted := doc.Find("table.records thead th[aria-sort]")
			if sorted.Length() != 1 || !strings.HasPrefix(sorted.Find("a").Text(), c2.header) || sorted.AttrOr("aria-sort", "") != c2.ariaSort {
				t.Errorf("sorted header: %d, %q %q", sorted.Length(), sorted.Text(), sorted.AttrOr("aria-sort", ""))
			}
			if got := doc.Find("table.records caption").Text(); !strings.HasPrefix(got, "Resources, by ") {
				t.Errorf("caption %q", got)
			}
			if doc.Find("table.records thead th[scope=col]").Length() < 6 {
				t.Error("headers without scope")
			}
		})
	}

	// Page 2 links to the first page and back; a sort link keeps the
	// filters and starts over.
	first := e.page(e.get(c, listPath(cms.KindResource, "limit=5&sort=id&published=yes")), http.StatusOK)
	if firstHref(first, "nav.pager a") == "" || first.Find(`nav.pager a:contains("First page")`).Length() != 0 {
		t.Fatal("the first page should offer only the next one")
	}
	next := strings.TrimPrefix(firstHref(first, `nav.pager a[rel="next"]`), e.prefix)
	second := e.page(e.get(c, next), http.StatusOK)
	if got := rowIDs(second); !slices.Equal(got, byID[5:10]) {
		t.Errorf("page 2: %v", got)
	}
	for _, sel := range []string{`nav.pager a:contains("First page")`, `nav.pager a[rel="prev"]`} {
		if back := firstHref(second, sel); back != "" {
			if got := rowIDs(e.page(e.get(c, strings.TrimPrefix(back, e.prefix)), http.StatusOK)); !slices.Equal(got, byID[:5]) {
				t.Errorf("%s leads to %v", sel, got)
			}
		} else if sel != `nav.pager a[rel="prev"]` {
			t.Errorf("page 2 has no %s", sel)
		}
	}
	u, _ := url.Parse(firstHref(second, `thead th a:contains("Title")`))
	if q := u.Query(); q.Get("sort") != "title" || q.Get("published") != "yes" || q.Get("limit") != "5" || q.Has("cursor") {
		t.Errorf("title sort link %q", u)
	}
}

func TestListShowsTitlesBadgesAndColumns(t *testing.T) {
	e := newEnv(t, envOptions{prefix: "/admin"})
	e.storeRecords(cms.KindMap, `{"id":"map-one","title":"Lakes"}`)
	e.storeRecords(cms.KindResource,
		`{"id":"castle","published":true,"title":"Castle","title_it":"Castello","title_de":"Burg","resourceType":"POI","resourceCategories":["cat-b","cat-a"]}`,
		`{"id":"only-it","title_it":"Solo italiano"}`,
		`{"id":"untitled"}`)
	c := e.signIn("admin")
	doc := e.page(e.get(c, "/resource/?sort=id"), http.StatusOK)
	if got := strings.TrimSpace(doc.Find("table.records caption").Text()); got != "Resources, by id, A to Z" {
		t.Errorf("caption %q", got)
	}
	rows := map[string]*goquery.Selection{}
	doc.Find("table.records tbody tr").Each(func(_ int, s *goquery.Selection) {
		rows[strings.TrimSpace(s.Find("td.id").Text())] = s
	})
	if len(rows) != 3 {
		t.Fatalf("rows %v", rowIDs(doc))
	}
	full := rows["castle"]
	if got := strings.TrimSpace(full.Find("th.title a").Text()); got != "Castle" {
		t.Errorf("title %q", got)
	}
	if full.Find(".badge.missing").Length() != 0 || full.Find(".badge.fallback").Length() != 0 {
		t.Error("a fully titled record has badges")
	}
	if got := full.Find("td").Eq(5).Text() + "|" + full.Find("td").Eq(6).Text(); got != "POI|cat-b" {
		t.Errorf("type|category %q", got)
	}
	if got := strings.TrimSpace(full.Find("td.published").Text()); got != "Yes" {
		t.Errorf("published %q", got)
	}
	if got := full.Find("td.updated time").Text(); got != e.svc.Timestamp(testenv.Epoch.Add(time.Second)) {
		t.Errorf("updated %q", got)
	}
	if got, _ := full.Find("td.id a").Attr("href"); got != "/admin/resource/castle/edit" {
		t.Errorf("edit link %q", got)
	}
	it := rows["only-it"]
	if got, lang := it.Find("th.title a").Text(), it.Find("th.title a").AttrOr("lang", ""); got != "Solo italiano" || lang != "it" {
		t.Errorf("fallback title %q lang %q", got, lang)
	}
	if !strings.HasPrefix(it.Find(".badge.fallback").Text(), "it") {
		t.Errorf("fallback not marked: %q", it.Find("th.title").Text())
	}
	var missing []string
	it.Find(".badge.missing").Each(func(_ int, s *goquery.Selection) {
		missing = append(missing, strings.TrimPrefix(s.Text(), "No title in "))
	})
	if !slices.Equal(missing, []string{"en", "de"}) {
		t.Errorf("missing badges %v", missing)
	}
	if got := strings.TrimSpace(it.Find("td.published").Text()); got != "No" {
		t.Errorf("published %q", got)
	}
	if got := strings.TrimSpace(rows["untitled"].Find("th.title").Text()); got != "(no title)" {
		t.Errorf("untitled %q", got)
	}
	if got := rows["untitled"].Find(".badge.missing").Length(); got != 3 {
		t.Errorf("untitled has %d missing badges", got)
	}
	// Every checkbox has a label naming its record.
	label := doc.Find(`label[for="` + full.Find("input[type=checkbox]").AttrOr("id", "?") + `"]`).Text()
	if label != "Select Castle (castle)" {
		t.Errorf("checkbox label %q", label)
	}
	// The Map filter suggests the account's Maps.
	if got := doc.Find("datalist#f-map-ids option").AttrOr("value", ""); got != "map-one" {
		t.Errorf("map suggestion %q", got)
	}
	// Other kinds have no Resource columns or filters.
	e.storeRecords(cms.KindMap, `{"id":"map-two"}`)
	maps := e.page(e.get(c, "/map/"), http.StatusOK)
	if maps.Find("select#f-type").Length() != 0 || maps.Find("table.records thead th").Length() != 6 {
		t.Errorf("map list: %d headers, type filter %d", maps.Find("table.records thead th").Length(), maps.Find("select#f-type").Length())
	}
}

func TestListFilters(t *testing.T) {
	e := newEnv(t, envOptions{})
	e.storeRecords(cms.KindMap, `{"id":"map-a"}`, `{"id":"map-b"}`)
	e.storeRecords(cms.KindResource,
		`{"id":"castello","published":true,"title":"Castle town","title_it":"Città di Castello","title_de":"Stadt","resourceType":"TOWN","resourceCategories":["culture"],"mapIds":["map-a"]}`,
		`{"id":"lago","published":false,"title":"Lake","title_it":"Lago di Garda","resourceType":"LAKE","resourceCategories":["nature","water"],"mapSecondaryIds":["map-a"]}`,
		`{"id":"monte","published":true,"title":"Mountain","resourceType":"POI","resourceCategories":["nature"],"mapIds":["map-b"]}`,
		`{"id":"perugia-centro","published":false,"title":"Perugia","title_it":"Perugia","title_de":"Perugia"}`)
	c := e.signIn("admin")
	for _, f := range []struct {
		query string
		want  []string
	}{
		{"", []string{"castello", "lago", "monte", "perugia-centro"}},
		{"published=yes", []string{"castello", "monte"}},
		{"published=no", []string{"lago", "perugia-centro"}},
		{"map=map-a", []string{"castello", "lago"}},
		{"map=map-b", []string{"monte"}},
		{"type=LAKE", []string{"lago"}},
		{"category=nature", []string{"lago", "monte"}}, // any position, not only the first
		{"category=water", []string{"lago"}},
		{"missing=it", []string{"monte"}},
		{"missing=de", []string{"lago", "monte"}},
		{"missing=en", nil},
		{"q=citta", []string{"castello"}}, // an Italian word, accent folded
		{"q=CITTÀ+cast", []string{"castello"}},
		{"q=gar", []string{"lago"}}, // a prefix
		{"q=lago+di", []string{"lago"}},
		{"q=di", []string{"castello", "lago"}},
		{"q=perugia-centro", []string{"perugia-centro"}}, // the id
		{"q=centro", []string{"perugia-centro"}},         // a part of the id
		{"q=nowhere", nil},
		{"published=yes&category=nature&map=map-b", []string{"monte"}},
		{"published=no&q=perugia&missing=en", nil},
	} {
		t.Run(f.query, func(t *testing.T) {
			doc := e.page(e.get(c, listPath(cms.KindResource, "sort=id&"+f.query)), http.StatusOK)
			if got := rowIDs(doc); !slices.Equal(got, f.want) {
				t.Errorf("rows %v, want %v", got, f.want)
			}
			// The form shows the filters applied.
			q, _ := url.ParseQuery(f.query)
			if v := q.Get("q"); v != "" && doc.Find("input#f-q").AttrOr("value", "") != v {
				t.Errorf("search box %q", doc.Find("input#f-q").AttrOr("value", ""))
			}
			for name, id := range map[string]string{"published": "f-published", "type": "f-type", "category": "f-category", "missing": "f-missing"} {
				if v := q.Get(name); v != "" && doc.Find("select#"+id+" option[selected]").AttrOr("value", "") != v {
					t.Errorf("%s select shows %q", name, doc.Find("select#"+id+" option[selected]").AttrOr("value", ""))
				}
			}
			if f.want == nil {
				empty := doc.Find("p.empty")
				if !strings.Contains(empty.Text(), "No Resources match these filters.") || empty.Find("a").AttrOr("href", "") != "/resource/" {
					t.Errorf("empty result: %q", empty.Text())
				}
				if doc.Find("table.records").Length() != 0 {
					t.Error("an empty table")
				}
			}
		})
	}
	// The filter form: labelled controls, the facets of the account.
	doc := e.page(e.get(c, "/resource/"), http.StatusOK)
	if got := doc.Find(`label[for="f-q"]`).Text(); got != "Search by id or title words" {
		t.Errorf("search label %q", got)
	}
	doc.Find("form.list-filters select, form.list-filters input").Each(func(_ int, s *goquery.Selection) {
		if id := s.AttrOr("id", ""); id == "" || doc.Find(`label[for="`+id+`"]`).Length() != 1 {
			t.Errorf("control %s without a label", s.AttrOr("name", "?"))
		}
	})
	var types, cats []string
	doc.Find("select#f-type option").Each(func(_ int, s *goquery.Selection) { types = append(types, s.AttrOr("value", "")) })
	doc.Find("select#f-category option").Each(func(_ int, s *goquery.Selection) { cats = append(cats, s.AttrOr("value", "")) })
	if !slices.Equal(types, []string{"", "LAKE", "POI", "TOWN"}) || !slices.Equal(cats, []string{"", "culture", "nature", "water"}) {
		t.Errorf("facets %v %v", types, cats)
	}
	var langs []string
	doc.Find("select#f-missing option").Each(func(_ int, s *goquery.Selection) { langs = append(langs, s.AttrOr("value", "")) })
	if !slices.Equal(langs, []string{"", "en", "it", "de"}) {
		t.Errorf("missing options %v", langs)
	}
	// A value no page makes is ignored, not an error.
	if got := rowIDs(e.page(e.get(c, "/resource/?sort=id&published=maybe&missing=fr&sort=size&limit=0"), http.StatusOK)); len(got) != 4 {
		t.Errorf("rows with bad values ignored: %v", got)
	}
}

func TestListOfAnEmptyKindSaysSo(t *testing.T) {
	e := newEnv(t, envOptions{prefix: "/admin"})
	c := e.signIn("admin")
	doc := e.page(e.get(c, "/landing/"), http.StatusOK)
	empty := doc.Find("p.empty")
	if !strings.Contains(empty.Text(), "There are no Landings yet.") || empty.Find("a").AttrOr("href", "") != "/admin/landing/new" {
		t.Errorf("empty list: %q", empty.Text())
	}
	if doc.Find("nav.pager").Length() != 0 {
		t.Error("pages of nothing")
	}
}

func TestListWithABadCursorShowsTheFirstPage(t *testing.T) {
	e := newEnv(t, envOptions{})
	seedResources(e, 3)
	c := e.signIn("admin")
	doc := e.page(e.get(c, "/resource/?sort=id&cursor=not-a-cursor"), http.StatusOK)
	if got := rowIDs(doc); !slices.Equal(got, []string{"r-00", "r-01", "r-02"}) {
		t.Errorf("rows %v", got)
	}
	if !strings.Contains(doc.Find(".notice").Text(), "no longer exists") {
		t.Errorf("notice %q", doc.Find(".notice").Text())
	}
}

func TestListTitleIsText(t *testing.T) {
	e := newEnv(t, envOptions{})
	const evil = `<img src=x onerror=alert(1)>`
	e.storeRecords(cms.KindResource, `{"id":"evil","title":"`+evil+`","resourceType":"<b>t</b>"}`)
	c := e.signIn("admin")
	for _, path := range []string{"/resource/", "/"} {
		doc := e.page(e.get(c, path), http.StatusOK)
		if doc.Find("main img, main b").Length() != 0 {
			t.Errorf("%s: record text became HTML", path)
		}
		if doc.Find(`main a:contains("`+evil+`")`).Length() == 0 {
			t.Errorf("%s: the title is not shown as text", path)
		}
	}
	doc := e.page(e.get(c, "/resource/"), http.StatusOK)
	if got := doc.Find(`label[for="sel-0"]`).Text(); got != "Select "+evil+" (evil)" {
		t.Errorf("checkbox label %q", got)
	}
}

func TestListAnswersScriptsWithJSON(t *testing.T) {
	e := newEnv(t, envOptions{prefix: "/admin"})
	seedResources(e, 4)
	c := e.signIn("admin")
	req, _ := http.NewRequest(http.MethodGet, e.url("/resource/?sort=id&limit=3&q=title"), nil)
	req.Header.Set("Accept", "application/json")
	res := e.do(c, req)
	if res.StatusCode != http.StatusOK || res.Header.Get("Content-Type") != "application/json" {
		t.Fatalf("status %d %s", res.StatusCode, res.Header.Get("Content-Type"))
	}
	var body struct {
		Rows []struct{ ID, Title, TitleLang, Edit string }
		Next string
	}
	if err := json.NewDecoder(res.Body).Decode(&body); err != nil {
		t.Fatal(err)
	}
	if len(body.Rows) != 3 || body.Rows[0].ID != "r-00" || body.Rows[0].Title != "Title 00" || body.Rows[0].TitleLang != "en" ||
		body.Rows[0].Edit != "/admin/resource/r-00/edit" || body.Next == "" {
		t.Errorf("answer %+v", body)
	}
}

func TestListNeedsReadPermission(t *testing.T) {
	e := newEnv(t, envOptions{})
	c := e.signIn("editor") // resource:*, map:*
	e.page(e.get(c, "/landing/"), http.StatusForbidden)
	// A signed-out visitor is sent to sign in, and back.
	res := e.get(e.browser(), "/resource/?sort=id")
	if res.StatusCode != http.StatusSeeOther || res.Header.Get("Location") != "/login?next="+url.QueryEscape("/resource/?sort=id") {
		t.Errorf("visitor: %d %s", res.StatusCode, res.Header.Get("Location"))
	}
}

// TestListSearchThatCannotBeRunSaysWhy: a search the service refuses (no
// letter or digit, more than eight words) is not run: the list says why
// beside the search box, and shows no records as if they matched.
func TestListSearchThatCannotBeRunSaysWhy(t *testing.T) {
	t.Parallel()
	e := newEnv(t, envOptions{prefix: "/admin"})
	e.put(cms.KindResource, `{"id":"r-1","title":"Lago di Como"}`, `{"id":"r-2","title":"100% lago"}`)
	c := e.signIn("reader")
	for q, want := range map[string]string{
		"%":                 "letter or digit",
		"!!! ---":           "letter or digit",
		"a b c d e f g h i": "at most 8 words",
	} {
		doc := e.page(e.get(c, "/resource/?q="+url.QueryEscape(q)), http.StatusBadRequest)
		if n := doc.Find("tbody tr").Length(); n != 0 {
			t.Errorf("search %q: %d rows", q, n)
		}
		if got := text(doc.Find(".error-summary")); !strings.Contains(got, want) {
			t.Errorf("search %q: the page says %q, want %q", q, got, want)
		}
		if got, _ := doc.Find(`input[name="q"]`).Attr("value"); got != q {
			t.Errorf("search %q: the box holds %q", q, got)
		}
	}
	// Words with signs around them are searched by their words.
	doc := e.page(e.get(c, "/resource/?q="+url.QueryEscape("100%")), http.StatusOK)
	if n := doc.Find("tbody tr").Length(); n != 1 {
		t.Errorf("search 100%%: %d rows, want 1", n)
	}
}

// TestDeletedNoticeNamesOnlyARecord: the list's "was deleted" notice
// shows an id, never any text a link put in its address.
func TestDeletedNoticeNamesOnlyARecord(t *testing.T) {
	t.Parallel()
	e := newEnv(t, envOptions{prefix: "/admin"})
	c := e.signIn("reader")
	doc := e.open(c, "/resource/?deleted="+url.QueryEscape("everything. Your session expired: sign in again at evil.example"))
	if got := text(doc.Find(".notice")); strings.Contains(got, "evil.example") {
		t.Errorf("notice %q", got)
	}
	doc = e.open(c, "/resource/?deleted=poi-00123")
	if got := text(doc.Find(".notice")); !strings.Contains(got, "poi-00123 was deleted") {
		t.Errorf("notice %q", got)
	}
}
