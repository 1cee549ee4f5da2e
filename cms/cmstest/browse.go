package cmstest

import (
	"cmp"
	"fmt"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/bwcms/cms/cms"
)

// browseClock is a clock a test moves on by hand.
type browseClock struct {
	mu  sync.Mutex
	now time.Time
}

func (c *browseClock) Now() time.Time {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.now
}

func (c *browseClock) advance(d time.Duration) {
	c.mu.Lock()
	c.now = c.now.Add(d)
	c.mu.Unlock()
}

// browser is a service with one account over a store, its clock held.
type browser struct {
	*searcher
	clock *browseClock
}

func newBrowser(tb testing.TB, s cms.Store, account string, langs ...string) *browser {
	tb.Helper()
	clock := &browseClock{now: t0}
	svc, err := cms.NewService(s, &cms.Options{Now: clock.Now})
	must(tb, err)
	l, err := cms.NewLanguages(langs[0], langs...)
	must(tb, err)
	must(tb, svc.CreateAccount(tb.Context(), account, l))
	return &browser{searcher: &searcher{tb: tb, s: s, svc: svc, account: account, langs: l}, clock: clock}
}

// browse returns one page, failing on an error.
func (b *browser) browse(kind cms.Kind, p cms.BrowseParams) cms.BrowsePage {
	b.tb.Helper()
	page, err := b.svc.Browse(b.ctx(), kind, p)
	if err != nil {
		b.tb.Fatalf("Browse(%s, %+v): %v", kind, p, err)
	}
	return page
}

// walk follows Next from the first page and returns every row's id, and
// the pages' first cursors, failing on an empty page.
func (b *browser) walk(kind cms.Kind, p cms.BrowseParams) (ids []string, pages []cms.BrowsePage) {
	b.tb.Helper()
	for range 500 {
		page := b.browse(kind, p)
		pages = append(pages, page)
		for _, r := range page.Rows {
			ids = append(ids, r.ID)
		}
		if page.Next == "" {
			return ids, pages
		}
		if len(page.Rows) == 0 {
			b.tb.Fatalf("%+v: an empty page with a next one", p)
		}
		p.Cursor = page.Next
	}
	b.tb.Fatalf("%+v: more than 500 pages", p)
	return nil, nil
}

// walkBack follows Prev from a page's Prev and returns the ids, in the
// order of the list.
func (b *browser) walkBack(kind cms.Kind, p cms.BrowseParams, prev string) []string {
	b.tb.Helper()
	var ids []string
	for range 500 {
		if prev == "" {
			return ids
		}
		p.Cursor = prev
		page := b.browse(kind, p)
		var got []string
		for _, r := range page.Rows {
			got = append(got, r.ID)
		}
		ids = append(got, ids...)
		prev = page.Prev
	}
	b.tb.Fatalf("%+v: more than 500 pages back", p)
	return nil
}

// browseModel is what a test knows of a record, to compute what Browse
// must answer.
type browseModel struct {
	id        string
	titles    map[string]string
	published bool
	updated   time.Time
	typ       string
	cats      []string
	maps      []string
}

// modelCodec indexes the models' records.
var modelCodec = cms.NewDocumentCodec()

// modelOrder sorts models as p says (untitled last in a title order), after
// keeping those p's filters keep.
func modelOrder(models []browseModel, p cms.BrowseParams, langs []string) []string {
	lang := cmp.Or(p.TitleLang, langs[0])
	var words []cms.TermRange
	if strings.TrimSpace(p.Search) != "" {
		words, _ = cms.SearchTerms(p.Search)
	}
	var kept []browseModel
	for _, m := range models {
		switch {
		case p.Published == cms.PublishedOnly && !m.published, p.Published == cms.UnpublishedOnly && m.published,
			p.MapID != "" && !slices.Contains(m.maps, p.MapID),
			p.Type != "" && m.typ != p.Type,
			p.Category != "" && !slices.Contains(m.cats, p.Category),
			p.MissingLang != "" && m.titles[p.MissingLang] != "":
			continue
		}
		if words != nil {
			rec := &cms.Resource{ID: m.id, Title: cms.Langs[string]{}}
			for l, t := range m.titles {
				rec.Title[l] = t
			}
			if !cms.MatchTerms(modelCodec.Index(rec).Terms, words) {
				continue
			}
		}
		kept = append(kept, m)
	}
	key := func(m browseModel) string {
		switch p.Sort {
		case cms.BrowseTitle:
			return cms.TitleSortKey(&cms.Resource{Title: m.titles}, lang)
		case cms.BrowseID:
			return ""
		}
		return fmt.Sprintf("%020d", m.updated.UnixMicro())
	}
	slices.SortFunc(kept, func(a, b browseModel) int {
		if p.Sort == cms.BrowseTitle {
			// Untitled after the titled, whatever the direction.
			if ua, ub := a.titles[lang] == "", b.titles[lang] == ""; ua != ub {
				if ua {
					return 1
				}
				return -1
			}
		}
		c := cmp.Or(strings.Compare(key(a), key(b)), strings.Compare(a.id, b.id))
		if p.Desc {
			return -c
		}
		return c
	})
	ids := []string{}
	for _, m := range kept {
		ids = append(ids, m.id)
	}
	return ids
}

func testBrowse(t *testing.T, open func(t *testing.T) cms.Store) {
	t.Parallel()

	t.Run("Rows", func(t *testing.T) {
		t.Parallel()
		b := newBrowser(t, open(t), "acme", "en", "it", "de")
		b.upsert(cms.KindResource, `{"id":"castle","published":true,"title":"Castle","title_it":"Castello",`+
			`"resourceType":"POI","resourceCategories":["cat-b","cat-a"]}`)
		b.clock.advance(time.Second)
		b.upsert(cms.KindResource, `{"id":"only-it","title_it":"Solo italiano"}`)
		page := b.browse(cms.KindResource, cms.BrowseParams{Sort: cms.BrowseID, Published: cms.PublishedAny})
		want := []cms.BrowseRow{
			{ID: "castle", Titles: map[string]string{"en": "Castle", "it": "Castello"}, Published: true, Updated: t0,
				Type: "POI", Category: "cat-b", Missing: []string{"de"}},
			{ID: "only-it", Titles: map[string]string{"it": "Solo italiano"}, Updated: t0.Add(time.Second), Missing: []string{"en", "de"}},
		}
		if len(page.Rows) != 2 || page.Next != "" || page.Prev != "" {
			t.Fatalf("page: %+v", page)
		}
		for i, got := range page.Rows {
			w := want[i]
			if got.ID != w.ID || fmt.Sprint(got.Titles) != fmt.Sprint(w.Titles) || got.Published != w.Published ||
				!got.Updated.Equal(w.Updated) || got.Type != w.Type || got.Category != w.Category || !slices.Equal(got.Missing, w.Missing) {
				t.Errorf("row %d:\n got %+v\nwant %+v", i, got, w)
			}
		}
		// The default is published only; Maps have no type.
		if page := b.browse(cms.KindResource, cms.BrowseParams{}); len(page.Rows) != 1 || page.Rows[0].ID != "castle" {
			t.Errorf("published only: %+v", page.Rows)
		}
	})

	t.Run("Refused", func(t *testing.T) {
		t.Parallel()
		s := open(t)
		b := newBrowser(t, s, "acme", "en", "it")
		b.upsert(cms.KindResource, `{"id":"res1","title":"Lake"}`)
		b.upsert(cms.KindResource, `{"id":"res2","title":"Hill"}`)
		page := b.browse(cms.KindResource, cms.BrowseParams{Sort: cms.BrowseID, Limit: 1, Published: cms.PublishedAny})
		for what, p := range map[string]cms.BrowseParams{
			"unknown sort":           {Sort: "size"},
			"limit 201":              {Limit: 201},
			"limit -1":               {Limit: -1},
			"title language":         {Sort: cms.BrowseTitle, TitleLang: "fr"},
			"missing language":       {MissingLang: "fr"},
			"search":                 {Search: "!?"},
			"search of nine words":   {Search: "a b c d e f g h i"},
			"bad cursor":             {Cursor: "not-a-cursor"},
			"cursor of another sort": {Sort: cms.BrowseUpdated, Limit: 1, Cursor: page.Next},
			"cursor of another way":  {Sort: cms.BrowseID, Desc: true, Limit: 1, Cursor: page.Next},
		} {
			_, err := b.svc.Browse(b.ctx(), cms.KindResource, p)
			wantCode(t, err, cms.CodeMalformed, what)
		}
		reader := cms.WithPrincipal(t.Context(), cms.Principal{Account: "acme", User: "u", Perms: []string{"map:read"}, Langs: b.langs})
		_, err := b.svc.Browse(reader, cms.KindResource, cms.BrowseParams{})
		wantCode(t, err, cms.CodeForbidden, "no read permission")
		_, _, err = b.svc.Facets(reader, cms.KindResource)
		wantCode(t, err, cms.CodeForbidden, "facets without read permission")
		_, err = b.svc.Browse(t.Context(), cms.KindResource, cms.BrowseParams{})
		wantCode(t, err, cms.CodeUnauthorized, "no principal")
		// Nothing changed.
		if ids, _ := b.walk(cms.KindResource, cms.BrowseParams{Sort: cms.BrowseID, Published: cms.PublishedAny}); !slices.Equal(ids, []string{"res1", "res2"}) {
			t.Errorf("after the refusals: %v", ids)
		}
	})

	t.Run("Accounts", func(t *testing.T) {
		t.Parallel()
		s := open(t)
		a := newBrowser(t, s, "acme", "en")
		o := newBrowser(t, s, "other", "en")
		a.upsert(cms.KindResource, `{"id":"res1","title":"Lake","resourceType":"A"}`)
		o.upsert(cms.KindResource, `{"id":"res2","title":"Lake","resourceType":"B","resourceCategories":["c"]}`)
		for _, sort := range []cms.BrowseSort{cms.BrowseID, cms.BrowseUpdated, cms.BrowseTitle} {
			for _, p := range []cms.BrowseParams{{Sort: sort, Published: cms.PublishedAny}, {Sort: sort, Published: cms.PublishedAny, Search: "lake"},
				{Sort: sort, Published: cms.PublishedAny, MissingLang: "en"}, {Sort: sort, Published: cms.PublishedAny, Type: "B"}} {
				if ids, _ := a.walk(cms.KindResource, p); slices.Contains(ids, "res2") {
					t.Errorf("%+v: the other account's record: %v", p, ids)
				}
			}
		}
		types, cats, err := a.svc.Facets(a.ctx(), cms.KindResource)
		if err != nil || !slices.Equal(types, []string{"A"}) || len(cats) != 0 {
			t.Errorf("facets: %v %v %v", types, cats, err)
		}
	})

	t.Run("Facets", func(t *testing.T) {
		t.Parallel()
		b := newBrowser(t, open(t), "acme", "en")
		b.upsert(cms.KindResource, `{"id":"res1","resourceType":"POI","resourceCategories":["cat-b","cat-a"]}`)
		b.upsert(cms.KindResource, `{"id":"res2","resourceType":"HOTEL","resourceCategories":["cat-a"]}`)
		b.upsert(cms.KindResource, `{"id":"res3","resourceType":"POI"}`)
		b.upsert(cms.KindMap, `{"id":"map1","title":"Lakes"}`)
		check := func(wantTypes, wantCats []string) {
			t.Helper()
			types, cats, err := b.svc.Facets(b.ctx(), cms.KindResource)
			if err != nil || !slices.Equal(types, wantTypes) || !slices.Equal(cats, wantCats) {
				t.Errorf("facets: %v %v %v; want %v %v", types, cats, err, wantTypes, wantCats)
			}
		}
		check([]string{"HOTEL", "POI"}, []string{"cat-a", "cat-b"})
		b.upsert(cms.KindResource, `{"id":"res2","resourceType":"TRACK","resourceCategories":[]}`)
		check([]string{"POI", "TRACK"}, []string{"cat-a", "cat-b"})
		if _, err := b.svc.Delete(b.ctx(), cms.KindResource, []string{"res1"}, nil); err != nil {
			t.Fatal(err)
		}
		check([]string{"POI", "TRACK"}, []string{})
		if types, cats, err := b.svc.Facets(b.ctx(), cms.KindMap); err != nil || types != nil || cats != nil {
			t.Errorf("facets of Maps: %v %v %v", types, cats, err)
		}
	})

	t.Run("LanguageAddedLater", func(t *testing.T) {
		t.Parallel()
		b := newBrowser(t, open(t), "acme", "en")
		b.upsert(cms.KindResource, `{"id":"res1","title":"Lake"}`)
		b.upsert(cms.KindResource, `{"id":"res2","title":"Hill"}`)
		if _, err := b.svc.AddLanguage(t.Context(), "acme", "de"); err != nil {
			t.Fatal(err)
		}
		b.langs, _ = cms.NewLanguages("en", "en", "de")
		missing := cms.BrowseParams{Sort: cms.BrowseID, Published: cms.PublishedAny, MissingLang: "de"}
		if ids, _ := b.walk(cms.KindResource, missing); !slices.Equal(ids, []string{"res1", "res2"}) {
			t.Errorf("missing de after it was added: %v", ids)
		}
		b.upsert(cms.KindResource, `{"id":"res2","title_de":"Hügel"}`)
		if ids, _ := b.walk(cms.KindResource, missing); !slices.Equal(ids, []string{"res1"}) {
			t.Errorf("missing de after a title in it: %v", ids)
		}
		byDE := cms.BrowseParams{Sort: cms.BrowseTitle, TitleLang: "de", Published: cms.PublishedAny}
		if ids, _ := b.walk(cms.KindResource, byDE); !slices.Equal(ids, []string{"res2", "res1"}) {
			t.Errorf("by the title in de: %v", ids)
		}
		// A record created afterwards misses it too, until it has it.
		b.upsert(cms.KindResource, `{"id":"res3","title":"Bay"}`)
		if ids, _ := b.walk(cms.KindResource, missing); !slices.Equal(ids, []string{"res1", "res3"}) {
			t.Errorf("missing de with a new record: %v", ids)
		}
		if page := b.browse(cms.KindResource, cms.BrowseParams{Sort: cms.BrowseID, Published: cms.PublishedAny}); len(page.Rows) != 3 ||
			!slices.Equal(page.Rows[1].Missing, nil) || !slices.Equal(page.Rows[2].Missing, []string{"de"}) {
			t.Errorf("rows: %+v", page.Rows)
		}
	})

	t.Run("Model", func(t *testing.T) { testBrowseModel(t, open, 60, 7) })
	t.Run("Dense", func(t *testing.T) { testBrowseModel(t, open, 1600, 150) })
	t.Run("Stable", func(t *testing.T) { testBrowseStable(t, open) })
}

// testBrowseModel stores n Resources of varied titles, flags, types,
// categories, Maps and update times, and checks every sort in both
// directions, alone and with each filter and some combinations, against
// what the test computes: every page in order (walking Next), the same
// backwards (walking Prev). With n above the store's candidate limit,
// some filters are held by many records, others by few.
func testBrowseModel(t *testing.T, open func(t *testing.T) cms.Store, n, limit int) {
	t.Parallel()
	s := open(t)
	ctx := t.Context()
	b := newBrowser(t, s, "acme", "en", "it", "de")
	var models []browseModel
	var entries []*cms.Entry
	var lists []cms.AssignmentList
	words := []string{"Lake", "Lago", "Città", "castle", "Bay", "bay"}
	for i := range n {
		m := browseModel{id: fmt.Sprintf("r-%05d", (i*7919)%n), titles: map[string]string{}, published: i%5 != 0,
			// A few share their time, as a batch's records do.
			updated: t0.Add(time.Duration(i/3) * time.Second)}
		if i%4 != 0 {
			m.titles["en"] = fmt.Sprintf("%s %03d", words[i%len(words)], (i*31)%97)
		}
		if i%3 == 0 {
			m.titles["it"] = words[(i+1)%len(words)]
		}
		if i%50 == 0 {
			m.titles["de"] = "See"
		}
		switch {
		case i%2 == 0:
			m.typ = "POI"
		case i%97 == 0:
			m.typ = "RARE"
		}
		if i%3 == 1 {
			m.cats = []string{"cat-common", fmt.Sprintf("cat-%d", i%3)}
		}
		if i%89 == 0 {
			m.cats = append(m.cats, "cat-rare")
		}
		rec := &cms.Resource{ID: m.id, Published: cms.Some(m.published), Title: cms.Langs[string]{}}
		for l, v := range m.titles {
			rec.Title[l] = v
		}
		if m.typ != "" {
			rec.ResourceType = cms.Some(m.typ)
		}
		if m.cats != nil {
			rec.ResourceCategories = cms.NullOf(m.cats)
		}
		var maps []string
		if i%3 != 2 {
			maps = append(maps, "map-big")
		}
		if i%101 == 0 {
			maps = append(maps, "map-small")
		}
		if maps != nil {
			lists = append(lists, cms.AssignmentList{Owner: m.id, Role: cms.RolePrimary, IDs: maps})
		}
		m.maps = maps
		models = append(models, m)
		entries = append(entries, &cms.Entry{Account: "acme", Record: rec, Updated: m.updated, New: true})
	}
	must(t, s.WithTx(ctx, func(tx cms.Store) error {
		for _, id := range []string{"map-big", "map-small"} {
			if err := tx.PutRecord(ctx, &cms.Entry{Account: "acme", Record: &cms.Map{ID: id}, Updated: t0, New: true}); err != nil {
				return err
			}
		}
		for part := range slices.Chunk(entries, 500) {
			if err := tx.PutRecords(ctx, part); err != nil {
				return err
			}
		}
		for part := range slices.Chunk(lists, 500) {
			if err := tx.AppendAssignments(ctx, "acme", cms.KindResource, part); err != nil {
				return err
			}
		}
		return nil
	}))
	langs := b.langs.All
	filters := []cms.BrowseParams{
		{Published: cms.PublishedAny},
		{Published: cms.PublishedOnly},
		{Published: cms.UnpublishedOnly},
		{Published: cms.PublishedAny, MapID: "map-big"},
		{Published: cms.PublishedAny, MapID: "map-small"},
		{Published: cms.PublishedAny, Type: "POI"},
		{Published: cms.PublishedAny, Type: "RARE"},
		{Published: cms.PublishedAny, Category: "cat-common"},
		{Published: cms.PublishedAny, Category: "cat-rare"},
		{Published: cms.PublishedAny, MissingLang: "it"},
		{Published: cms.PublishedAny, MissingLang: "de"},
		{Published: cms.PublishedAny, MissingLang: "en"},
		{Published: cms.PublishedAny, Search: "la"},
		{Published: cms.PublishedAny, Search: "citta 01"},
		{Published: cms.PublishedAny, Search: "r-0001"},
		{Published: cms.PublishedOnly, Type: "POI", MissingLang: "it", Search: "b"},
		{Published: cms.UnpublishedOnly, MapID: "map-big", Category: "cat-common"},
		{Published: cms.PublishedAny, Search: "nothing-matches"},
	}
	for _, f := range filters {
		for _, sort := range []cms.BrowseSort{cms.BrowseUpdated, cms.BrowseID, cms.BrowseTitle} {
			for _, desc := range []bool{false, true} {
				p := f
				p.Sort, p.Desc, p.Limit = sort, desc, limit
				if sort == cms.BrowseTitle && f.Type == "" {
					p.TitleLang = "it"
				}
				want := modelOrder(models, p, langs)
				got, pages := b.walk(cms.KindResource, p)
				if !slices.Equal(got, want) && len(got)+len(want) > 0 {
					t.Errorf("%+v: %d rows, want %d\n got %.200v\nwant %.200v", p, len(got), len(want), got, want)
					continue
				}
				if pages[0].Prev != "" {
					t.Errorf("%+v: the first page has a Prev", p)
				}
				// Backwards from the last page: the same rows, the same pages.
				last := pages[len(pages)-1]
				if len(pages) > 1 {
					back := b.walkBack(cms.KindResource, p, last.Prev)
					if lastIDs := len(got) - len(last.Rows); !slices.Equal(back, got[:lastIDs]) {
						t.Errorf("%+v: backwards %d rows, want %d", p, len(back), lastIDs)
					}
				}
			}
		}
	}
}

// testBrowseStable walks pages of the id and title orders while records
// change between pages: updates that keep their place in the order, new
// records and deletes elsewhere. Every record there throughout comes
// exactly once, in order.
func testBrowseStable(t *testing.T, open func(t *testing.T) cms.Store) {
	t.Parallel()
	b := newBrowser(t, open(t), "acme", "en")
	const n = 40
	for i := range n {
		b.upsert(cms.KindResource, fmt.Sprintf(`{"id":"r-%02d","title":"Title %02d"}`, i, (i*13)%n))
	}
	for _, sort := range []cms.BrowseSort{cms.BrowseID, cms.BrowseTitle, cms.BrowseUpdated} {
		for _, desc := range []bool{false, true} {
			p := cms.BrowseParams{Sort: sort, Desc: desc, Limit: 6, Published: cms.PublishedAny}
			want, _ := b.walk(cms.KindResource, p)
			var got []string
			step := 0
			for {
				page := b.browse(cms.KindResource, p)
				for _, r := range page.Rows {
					got = append(got, r.ID)
				}
				if page.Next == "" {
					break
				}
				p.Cursor = page.Next
				// Between pages: a field outside the order changes on a
				// record seen and on one not seen yet (and, but for the
				// update order, its time); a record comes and goes.
				step++
				b.clock.advance(time.Second)
				seen, unseen := page.Rows[0].ID, want[min(len(want)-1, len(got)+2)]
				if sort != cms.BrowseUpdated {
					b.upsert(cms.KindResource, fmt.Sprintf(`{"id":%q,"published":%v}`, seen, step%2 == 0))
					b.upsert(cms.KindResource, fmt.Sprintf(`{"id":%q,"resourceType":"T%d"}`, unseen, step))
				}
				tmp := fmt.Sprintf("tmp-%d-%s-%v", step, sort, desc)
				b.upsert(cms.KindResource, fmt.Sprintf(`{"id":%q,"title":"Title 00"}`, tmp))
				if _, err := b.svc.Delete(b.ctx(), cms.KindResource, []string{tmp}, nil); err != nil {
					t.Fatal(err)
				}
			}
			if !slices.Equal(got, want) {
				t.Errorf("%s desc %v while records changed:\n got %v\nwant %v", sort, desc, got, want)
			}
		}
	}
}
