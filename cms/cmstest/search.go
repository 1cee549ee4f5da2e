package cmstest

import (
	"context"
	"fmt"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/bwcms/cms/cms"
)

// searcher is a service over a store with one account, for the tests of
// search and of the admin's lists: records written as a client writes
// them (upserts, batches, clones, deletes), read back as a client reads
// them.
type searcher struct {
	tb      testing.TB
	s       cms.Store
	svc     *cms.Service
	account string
	langs   cms.Languages
}

func newSearcher(tb testing.TB, s cms.Store, account string, langs ...string) *searcher {
	tb.Helper()
	svc, err := cms.NewService(s, nil)
	must(tb, err)
	l, err := cms.NewLanguages(langs[0], langs...)
	must(tb, err)
	must(tb, svc.CreateAccount(tb.Context(), account, l))
	return &searcher{tb: tb, s: s, svc: svc, account: account, langs: l}
}

// ctx is a context of a user of the account with every permission.
func (c *searcher) ctx() context.Context {
	return cms.WithPrincipal(c.tb.Context(), cms.Principal{Account: c.account, User: "editor", Perms: []string{"*"}, Langs: c.langs})
}

// upsert creates or updates a record from its JSON body.
func (c *searcher) upsert(kind cms.Kind, body string) {
	c.tb.Helper()
	if _, err := c.svc.Upsert(c.ctx(), kind, []byte(body), nil); err != nil {
		c.tb.Fatalf("upsert %s %s: %v", kind, body, err)
	}
}

// read returns the ids Read answers for p (every record whatever its
// published flag unless p says).
func (c *searcher) read(kind cms.Kind, p cms.ReadParams) []string {
	c.tb.Helper()
	seq, err := c.svc.Read(c.ctx(), kind, p)
	if err != nil {
		c.tb.Fatalf("Read(%s, %+v): %v", kind, p, err)
	}
	ids := []string{}
	for e, err := range seq {
		if err != nil {
			c.tb.Fatalf("Read(%s, %+v): %v", kind, p, err)
		}
		ids = append(ids, e.Record.RecordID())
	}
	return ids
}

// search returns the ids of the Resources search finds, every published
// flag.
func (c *searcher) search(search string) []string {
	c.tb.Helper()
	return c.read(cms.KindResource, cms.ReadParams{Search: search, Published: cms.PublishedAny})
}

// wantSearch checks what each search finds among the Resources.
func (c *searcher) wantSearch(cases map[string][]string) {
	c.tb.Helper()
	for _, q := range slices.Sorted(func(yield func(string) bool) {
		for q := range cases {
			if !yield(q) {
				return
			}
		}
	}) {
		want := cases[q]
		if want == nil {
			want = []string{}
		}
		if got := c.search(q); !slices.Equal(got, want) {
			c.tb.Errorf("search %q: got %v, want %v", q, got, want)
		}
	}
}

func testSearch(t *testing.T, open func(t *testing.T) cms.Store) {
	t.Parallel()

	t.Run("Words", func(t *testing.T) {
		t.Parallel()
		c := newSearcher(t, open(t), "acme", "en", "it", "de")
		c.upsert(cms.KindResource, `{"id":"castello","title":"Castle","title_it":"Città di Castello","published":true}`)
		c.upsert(cms.KindResource, `{"id":"como","title":"Lake Como","title_it":"Lago di Como","published":true}`)
		c.upsert(cms.KindResource, `{"id":"street","title_de":"Straße 5","published":false}`)
		c.upsert(cms.KindResource, `{"id":"wide","title":"ＡＢＣ Ｃafé","published":true}`)
		c.upsert(cms.KindResource, `{"id":"quote","title":"L'Aquila, ÉTÉ 2026","published":true}`)
		c.upsert(cms.KindMap, `{"id":"castle-map","title":"Castle","published":true}`)
		c.wantSearch(map[string][]string{
			// Accents and case folded, both ways.
			"citta": {"castello"}, "CITTA": {"castello"}, "Città": {"castello"}, "cit": {"castello"}, "CITTÀ": {"castello"},
			"cafe": {"wide"}, "CAFÉ": {"wide"}, "ete": {"quote"}, "été": {"quote"},
			// Every language, widths and ß folded.
			"castle": {"castello"}, "lago": {"como"}, "strasse": {"street"}, "STRASSE": {"street"}, "straß": {"street"}, "abc": {"wide"},
			// Each word a prefix, all of them required, in any order.
			"ca": {"castello", "wide"}, "di": {"castello", "como"}, "di co": {"como"}, "co di": {"como"},
			"castel citta": {"castello"}, "castle como": nil, "lake lago como": {"como"},
			// Words split on anything but letters and digits.
			"aquila": {"quote"}, "l'aquila": {"quote"}, "l aq": {"quote"}, "2026": {"quote"}, "5": {"street"},
			// No word of the record starts with these.
			"astle": nil, "citt\u00e0x": nil, "lakes": nil,
		})
		// The Map is found among Maps, by the same rule.
		if got := c.read(cms.KindMap, cms.ReadParams{Search: "CASTLE", Published: cms.PublishedAny}); !slices.Equal(got, []string{"castle-map"}) {
			t.Errorf("search of Maps: %v", got)
		}
	})

	t.Run("Refused", func(t *testing.T) {
		t.Parallel()
		c := newSearcher(t, open(t), "acme", "en")
		c.upsert(cms.KindResource, `{"id":"res1","title":"Lake"}`)
		for _, q := range []string{"!!!", " ", "-", strings.Repeat("a", cms.MaxSearchLength+1), "a b c d e f g h i"} {
			_, err := c.svc.Read(c.ctx(), cms.KindResource, cms.ReadParams{Search: q})
			wantCode(t, err, cms.CodeMalformed, fmt.Sprintf("search %q", q))
		}
		// At the limits: accepted.
		if got := c.search(strings.Repeat("l", cms.MaxSearchLength)); len(got) != 0 {
			t.Errorf("long search: %v", got)
		}
		if got := c.search("l a k e l a k e"); !slices.Equal(got, []string{}) {
			t.Errorf("8 words: %v", got)
		}
	})

	t.Run("ID", func(t *testing.T) {
		t.Parallel()
		c := newSearcher(t, open(t), "acme", "en")
		for _, id := range []string{"poi-00123", "poi-00200", "hotel.roma", "Casa_Bianca", "x-1"} {
			c.upsert(cms.KindResource, `{"id":"`+id+`","title":"Untitled place"}`)
		}
		c.wantSearch(map[string][]string{
			"poi":        {"poi-00123", "poi-00200"},
			"poi-00123":  {"poi-00123"},
			"poi-001":    {"poi-00123"},
			"00200":      {"poi-00200"},
			"poi00123":   {"poi-00123"}, // the id as one word, its separators left out
			"poi0":       {"poi-00123", "poi-00200"},
			"roma":       {"hotel.roma"},
			"hotel.roma": {"hotel.roma"},
			"casa":       {"Casa_Bianca"},
			"casabianca": {"Casa_Bianca"},
			"x":          {"x-1"},
			"x1":         {"x-1"},
			"untitled":   {"Casa_Bianca", "hotel.roma", "poi-00123", "poi-00200", "x-1"},
		})
	})

	t.Run("Changes", func(t *testing.T) {
		t.Parallel()
		c := newSearcher(t, open(t), "acme", "en")
		c.upsert(cms.KindResource, `{"id":"res1","title":"Old mill"}`)
		c.upsert(cms.KindResource, `{"id":"res2","title":"Old bridge"}`)
		c.wantSearch(map[string][]string{"old": {"res1", "res2"}, "mill": {"res1"}})
		// A new title: the old words are gone, the new ones found.
		c.upsert(cms.KindResource, `{"id":"res1","title":"New mill"}`)
		c.wantSearch(map[string][]string{"old": {"res2"}, "new": {"res1"}, "mill": {"res1"}})
		// Other fields change nothing.
		c.upsert(cms.KindResource, `{"id":"res1","published":true,"resourceType":"MILL"}`)
		c.wantSearch(map[string][]string{"new mill": {"res1"}})
		// A clone is found under its own id, with the title it was given.
		var receipt cms.BatchReceipt
		clone, err := c.svc.Clone(c.ctx(), cms.KindResource, "res2", "")
		must(t, err)
		c.wantSearch(map[string][]string{"bridge": {"res2", clone.NewID}, "copy": {clone.NewID}})
		// A deleted record is never found.
		if _, err := c.svc.Delete(c.ctx(), cms.KindResource, []string{"res2"}, nil); err != nil {
			t.Fatal(err)
		}
		c.wantSearch(map[string][]string{"old": {clone.NewID}, "bridge": {clone.NewID}, "res2": {clone.NewID}})
		// A batch writes its records' words as an upsert does.
		receipt, err = c.svc.SubmitBatch(c.ctx(), cms.KindResource, []byte(
			`[{"id":"bat1","title":"Harbour"},{"id":"res1","title":"Harbour mill"}]`))
		must(t, err)
		for {
			did, err := c.svc.ProcessBatch(t.Context(), "search-test")
			must(t, err)
			if !did {
				break
			}
		}
		if b, err := c.svc.BatchStatus(c.ctx(), cms.KindResource, receipt.ID); err != nil || b.Status != cms.BatchDone {
			t.Fatalf("batch: %+v, %v", b, err)
		}
		c.wantSearch(map[string][]string{"harbour": {"bat1", "res1"}, "new": nil, "mill": {"res1"}})
	})

	t.Run("LanguageAddedLater", func(t *testing.T) {
		t.Parallel()
		c := newSearcher(t, open(t), "acme", "en")
		c.upsert(cms.KindResource, `{"id":"res1","title":"Lake"}`)
		if _, err := c.svc.AddLanguage(t.Context(), "acme", "de"); err != nil {
			t.Fatal(err)
		}
		c.langs, _ = cms.NewLanguages("en", "en", "de")
		c.wantSearch(map[string][]string{"lake": {"res1"}, "see": nil})
		c.upsert(cms.KindResource, `{"id":"res1","title_de":"Bodensee"}`)
		c.wantSearch(map[string][]string{"lake": {"res1"}, "bodensee": {"res1"}, "bod lak": {"res1"}})
	})

	t.Run("Paging", func(t *testing.T) {
		t.Parallel()
		c := newSearcher(t, open(t), "acme", "en")
		var want []string
		for i := range 30 {
			id := fmt.Sprintf("r%02d", i)
			title := "Lake"
			if i%3 == 0 {
				title = "Mountain"
			} else {
				want = append(want, id)
			}
			c.upsert(cms.KindResource, fmt.Sprintf(`{"id":%q,"title":%q}`, id, title))
		}
		for _, limit := range []int{1, 7, 20} {
			var got []string
			after := ""
			for {
				page := c.read(cms.KindResource, cms.ReadParams{Search: "lak", Published: cms.PublishedAny, Limit: limit, After: after})
				if len(page) > limit {
					t.Fatalf("limit %d: page of %d", limit, len(page))
				}
				if len(page) == 0 {
					break
				}
				got = append(got, page...)
				after = page[len(page)-1]
			}
			if !slices.Equal(got, want) {
				t.Errorf("limit %d: pages gave %v, want %v", limit, got, want)
			}
		}
	})

	t.Run("Combined", func(t *testing.T) {
		t.Parallel()
		c := newSearcher(t, open(t), "acme", "en")
		c.upsert(cms.KindMap, `{"id":"map1","title":"Lakes"}`)
		c.upsert(cms.KindResource, `{"id":"aaa","title":"Lake north","published":true,"mapIds":["map1"],"locationLat":45.5,"locationLon":9.2}`)
		c.upsert(cms.KindResource, `{"id":"bbb","title":"Lake south","published":false,"mapSecondaryIds":["map1"],"locationLat":40,"locationLon":9}`)
		c.upsert(cms.KindResource, `{"id":"ccc","title":"Lake east","published":true,"locationLat":45.6,"locationLon":9.3}`)
		c.upsert(cms.KindResource, `{"id":"ddd","title":"Hill","published":true,"mapIds":["map1"],"locationLat":45.5,"locationLon":9.2}`)
		box := &cms.BBox{MinLon: 9, MinLat: 45, MaxLon: 10, MaxLat: 46}
		for _, tc := range []struct {
			p    cms.ReadParams
			want []string
		}{
			{cms.ReadParams{Search: "lake"}, []string{"aaa", "ccc"}}, // published only, the default
			{cms.ReadParams{Search: "lake", Published: cms.UnpublishedOnly}, []string{"bbb"}},
			{cms.ReadParams{Search: "lake", Published: cms.PublishedAny, MapID: "map1"}, []string{"aaa", "bbb"}},
			{cms.ReadParams{Search: "lake", Published: cms.PublishedAny, BBox: box}, []string{"aaa", "ccc"}},
			{cms.ReadParams{Search: "lake", Published: cms.PublishedAny, BBox: box, MapID: "map1"}, []string{"aaa"}},
			{cms.ReadParams{Search: "lake", Published: cms.PublishedAny, After: "aaa", Limit: 1}, []string{"bbb"}},
			{cms.ReadParams{Search: "lake", Published: cms.PublishedAny, UpdatedSince: time.Now().Add(-time.Hour)}, []string{"aaa", "bbb", "ccc"}},
			{cms.ReadParams{Search: "lake", Published: cms.PublishedAny, UpdatedSince: time.Now().Add(time.Hour)}, []string{}},
			// Named ids keep their order; the search drops the others.
			{cms.ReadParams{Search: "lake", Published: cms.PublishedAny, IDs: []string{"ddd", "ccc", "aaa"}}, []string{"ccc", "aaa"}},
			{cms.ReadParams{Search: "lake nor", IDs: []string{"ddd", "ccc", "aaa"}}, []string{"aaa"}},
		} {
			if got := c.read(cms.KindResource, tc.p); !slices.Equal(got, tc.want) {
				t.Errorf("%+v: got %v, want %v", tc.p, got, tc.want)
			}
		}
	})

	t.Run("Accounts", func(t *testing.T) {
		t.Parallel()
		s := open(t)
		a := newSearcher(t, s, "acme", "en")
		b := newSearcher(t, s, "other", "en")
		a.upsert(cms.KindResource, `{"id":"res1","title":"Lake of acme"}`)
		b.upsert(cms.KindResource, `{"id":"res1","title":"Lake of other"}`)
		b.upsert(cms.KindResource, `{"id":"res2","title":"Lake of other"}`)
		a.wantSearch(map[string][]string{"lake": {"res1"}, "other": nil, "acme": {"res1"}, "res2": nil})
		b.wantSearch(map[string][]string{"lake": {"res1", "res2"}, "acme": nil})
		// The store on its own: one account's terms never answer another.
		terms, _ := cms.SearchTerms("lake")
		if got := listIDs(t, s, cms.ListParams{Account: "nobody", Kind: cms.KindResource, Published: cms.PublishedAny, Terms: terms}); len(got) != 0 {
			t.Errorf("an account without records found %v", got)
		}
	})

	t.Run("Metacharacters", func(t *testing.T) {
		t.Parallel()
		s := open(t)
		c := newSearcher(t, s, "acme", "en")
		c.upsert(cms.KindResource, `{"id":"res1","title":"100% natural","resourceType":"a_b","resourceCategories":["a%b"]}`)
		c.upsert(cms.KindResource, `{"id":"res2","title":"a_b c\\d","resourceType":"axb","resourceCategories":["a\\b","a_b"]}`)
		c.upsert(cms.KindResource, `{"id":"res3","title":"Other","resourceType":"a%b","resourceCategories":["aXb"]}`)
		// Signs are not words: a search finds the words around them.
		c.wantSearch(map[string][]string{"100%": {"res1"}, "100": {"res1"}, "a_b": {"res2"}, "c\\d": {"res2"}, "%natural": {"res1"}})
		for _, q := range []string{"%", "_", "\\", "%_\\"} {
			_, err := c.svc.Read(c.ctx(), cms.KindResource, cms.ReadParams{Search: q})
			wantCode(t, err, cms.CodeMalformed, fmt.Sprintf("search %q", q))
		}
		// Types and categories match exactly: % and _ are no wildcards, \
		// no escape, on every store.
		for _, tc := range []struct {
			term cms.TermRange
			want []string
		}{
			{cms.TypeTerm("a_b"), []string{"res1"}},
			{cms.TypeTerm("a%b"), []string{"res3"}},
			{cms.TypeTerm("a%"), []string{}},
			{cms.CategoryTerm("a%b"), []string{"res1"}},
			{cms.CategoryTerm("a_b"), []string{"res2"}},
			{cms.CategoryTerm("a\\b"), []string{"res2"}},
			{cms.CategoryTerm("a%"), []string{}},
		} {
			got := listIDs(t, s, cms.ListParams{Account: "acme", Kind: cms.KindResource, Published: cms.PublishedAny, Terms: []cms.TermRange{tc.term}})
			if !slices.Equal(got, tc.want) {
				t.Errorf("%+v: got %v, want %v", tc.term, got, tc.want)
			}
		}
	})

	t.Run("Dense", func(t *testing.T) { testSearchDense(t, open) })
}

// testSearchDense searches a kind where some words are in more records
// than a store reads as candidates, and others in few: every combination
// answers what the records' own terms say (cms.MatchTerms), in id order,
// in pages.
func testSearchDense(t *testing.T, open func(t *testing.T) cms.Store) {
	t.Parallel()
	s := open(t)
	ctx := t.Context()
	const n = 2500
	words := []string{"lake", "lagoon", "hill", "harbour"}
	var entries []*cms.Entry
	codec := cms.NewDocumentCodec()
	terms := map[string][]string{}
	for i := range n {
		id := fmt.Sprintf("r%05d", i)
		// Every record "place"; "lake" in half, "lagoon" in one of 50,
		// "hill" in one of 3, "harbour" in one of 700.
		title := "Place"
		for k, every := range []int{2, 50, 3, 700} {
			if i%every == 0 {
				title += " " + words[k]
			}
		}
		rec := &cms.Resource{ID: id, Published: cms.Some(i%5 != 0), Title: cms.Langs[string]{"en": title}}
		entries = append(entries, &cms.Entry{Account: "a", Record: rec, Updated: t0, New: true})
		terms[id] = codec.Index(rec).Terms
	}
	must(t, s.WithTx(ctx, func(tx cms.Store) error {
		for part := range slices.Chunk(entries, 500) {
			if err := tx.PutRecords(ctx, part); err != nil {
				return err
			}
		}
		return nil
	}))
	for _, q := range []string{"place", "p", "la", "lake", "lag", "hill", "harb", "place lake", "la hill", "lake hill",
		"p l h", "harbour lake", "lagoon hill", "r000", "r01 lake", "zebra", "place zebra"} {
		ranges, err := cms.SearchTerms(q)
		must(t, err)
		for _, pub := range []cms.Published{cms.PublishedAny, cms.UnpublishedOnly} {
			var want []string
			for i := range n {
				id := fmt.Sprintf("r%05d", i)
				if (pub == cms.PublishedAny || i%5 == 0) && cms.MatchTerms(terms[id], ranges) {
					want = append(want, id)
				}
			}
			p := cms.ListParams{Account: "a", Kind: cms.KindResource, Published: pub, Terms: ranges}
			if got := listIDs(t, s, p); !slices.Equal(got, want) && !(len(got) == 0 && len(want) == 0) {
				t.Errorf("search %q (%v): %d records, want %d", q, pub, len(got), len(want))
				continue
			}
			// Pages of 50 give the same.
			var paged []string
			p.Limit = 50
			for {
				page := listIDs(t, s, p)
				paged = append(paged, page...)
				if len(page) < 50 {
					break
				}
				p.After = page[len(page)-1]
			}
			if !slices.Equal(paged, want) && !(len(paged) == 0 && len(want) == 0) {
				t.Errorf("search %q (%v) in pages: %d records, want %d", q, pub, len(paged), len(want))
			}
		}
	}
}
