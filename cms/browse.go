package cms

import (
	"context"
	"encoding/base64"
	"encoding/json"
	"errors"
	"slices"
	"strings"
	"time"
)

// BrowseSort is the order of a Browse page.
type BrowseSort string

// The orders of Browse.
const (
	BrowseUpdated BrowseSort = "updated"
	BrowseID      BrowseSort = "id"
	BrowseTitle   BrowseSort = "title"
)

// BrowseParams select and order the records of a Browse page.
type BrowseParams struct {
	// Sort is the order; default BrowseUpdated. Ties are broken by id.
	// BrowseTitle sorts by the title in TitleLang, case and accents
	// folded (TitleSortKey); the records without a title in it come
	// after the others, by id, in either direction.
	Sort BrowseSort
	// Desc reverses the order (the admin's default for updated is newest
	// first).
	Desc bool
	// TitleLang is the language of the title sort; "" = the account's
	// default.
	TitleLang string
	// Cursor is opaque, from the previous page's Next or Prev; "" = the
	// first page. A cursor keeps its place however the records around it
	// change: a page after it starts after the record it names.
	Cursor string
	// Limit is the page size, 1..200; 0 = 50.
	Limit int
	// Published filters by the published flag (PublishedAny to include
	// unpublished records; the zero value is PublishedOnly, as for Read).
	Published Published
	// MapID keeps Resources assigned to that Map in either role (other
	// kinds: ignored).
	MapID string
	// Type keeps Resources whose resourceType equals it (other kinds:
	// ignored).
	Type string
	// Category keeps Resources whose resourceCategories contain it
	// (other kinds: ignored).
	Category string
	// MissingLang keeps records whose title has no value in that
	// language, one of the account's.
	MissingLang string
	// Search keeps records matching every word, as DECISIONS §14
	// (SearchTerms); "" or only spaces: no search.
	Search string
}

// BrowseRow is one record of a Browse page.
type BrowseRow struct {
	ID string
	// Titles are the titles by language, only the set ones.
	Titles    map[string]string
	Published bool
	Updated   time.Time
	// Type and Category (the first) of a Resource.
	Type     string
	Category string
	// Missing are the account's languages without a title, in the
	// account's order.
	Missing []string
}

// BrowsePage is one page of Browse.
type BrowsePage struct {
	Rows []BrowseRow
	// Next is the cursor of the next page; "" on the last page.
	Next string
	// Prev is the cursor of the page before; "" on the first page.
	Prev string
}

// The page sizes of Browse.
const (
	DefaultBrowseLimit = 50
	MaxBrowseLimit     = 200
)

// browseCursor is what a cursor holds: the order it is of (sort,
// direction, language) and the row it follows, or precedes (Before).
type browseCursor struct {
	Sort     BrowseSort `json:"s"`
	Desc     bool       `json:"d,omitempty"`
	Lang     string     `json:"l,omitempty"`
	Before   bool       `json:"b,omitempty"`
	Untitled bool       `json:"u,omitempty"`
	Title    string     `json:"t,omitempty"`
	Updated  int64      `json:"m,omitempty"` // microseconds
	ID       string     `json:"i"`
}

func errBrowseParams(why string) error {
	return &Error{Code: CodeMalformed, Message: "Wrong request", Err: errors.New("browse: " + why)}
}

// TitleSortKey is the key a record sorts by in a title order of lang:
// its title in lang folded whole (Fold, the words joined by one space,
// cut to 60 characters); "" when it has none (it then sorts among the
// untitled, by id).
func TitleSortKey(rec Record, lang string) string {
	t := (*rec.Common().Title)[lang]
	if t == "" {
		return ""
	}
	return titleKey(t)
}

// Browse returns one page of records of kind for the principal in ctx,
// sorted and filtered by p, from the store's indexes (BrowseRecords): a
// page costs about the same at any number of records. Errors:
// CodeMalformed for bad params (an unknown sort, a limit out of 1..200,
// a cursor not from Browse or of another order, a language not of the
// account, a search SearchTerms refuses); CodeUnauthorized,
// CodeForbidden.
func (s *Service) Browse(ctx context.Context, kind Kind, p BrowseParams) (BrowsePage, error) {
	pr, err := s.caller(ctx, kind, ActionRead)
	if err != nil {
		return BrowsePage{}, err
	}
	q, cur, err := browseQuery(pr, kind, &p)
	if err != nil {
		return BrowsePage{}, err
	}
	forward := cur == nil || !cur.Before
	// One row more than the page tells whether another page follows.
	hits, err := s.browseRun(ctx, q, p, cur, forward, p.Limit+1)
	if err != nil {
		return BrowsePage{}, err
	}
	more := len(hits) > p.Limit
	hits = hits[:min(len(hits), p.Limit)]
	if !forward {
		slices.Reverse(hits)
	}
	page := BrowsePage{Rows: make([]BrowseRow, len(hits))}
	for i, h := range hits {
		page.Rows[i] = browseRowOf(h.e, pr.Langs)
	}
	if len(hits) == 0 {
		return page, nil
	}
	first, last := hits[0], hits[len(hits)-1]
	if forward {
		if more {
			page.Next = encodeBrowseCursor(p, last, false)
		}
		if cur != nil {
			page.Prev = encodeBrowseCursor(p, first, true)
		}
	} else {
		if more {
			page.Prev = encodeBrowseCursor(p, first, true)
		}
		page.Next = encodeBrowseCursor(p, last, false)
	}
	return page, nil
}

// browseHit is a record of a page with the part of the order it is in.
type browseHit struct {
	e        *Entry
	untitled bool
}

// browseQuery checks p (setting its defaults) and returns the store
// query of its filters, and its cursor decoded.
func browseQuery(pr Principal, kind Kind, p *BrowseParams) (BrowseQuery, *browseCursor, error) {
	q := BrowseQuery{Account: pr.Account, Kind: kind, Published: p.Published}
	if p.Sort == "" {
		p.Sort = BrowseUpdated
	}
	if p.Sort != BrowseUpdated && p.Sort != BrowseID && p.Sort != BrowseTitle {
		return q, nil, errBrowseParams("unknown sort " + string(p.Sort))
	}
	if p.Limit == 0 {
		p.Limit = DefaultBrowseLimit
	}
	if p.Limit < 1 || p.Limit > MaxBrowseLimit {
		return q, nil, errBrowseParams("limit out of 1..200")
	}
	if p.TitleLang == "" {
		p.TitleLang = pr.Langs.Default
	}
	if !slices.Contains(pr.Langs.All, p.TitleLang) {
		return q, nil, errBrowseParams("title language not of the account")
	}
	if p.MissingLang != "" && !slices.Contains(pr.Langs.All, p.MissingLang) {
		return q, nil, errBrowseParams("missing language not of the account")
	}
	q.Sort, q.Desc, q.TitleLang = p.Sort, p.Desc, p.TitleLang
	if kind == KindResource {
		q.MapID = p.MapID
		if p.Type != "" {
			q.Terms = append(q.Terms, TypeTerm(p.Type))
		}
		if p.Category != "" {
			q.Terms = append(q.Terms, CategoryTerm(p.Category))
		}
	}
	if p.MissingLang != "" {
		q.Terms = append(q.Terms, MissingTerm(p.MissingLang))
	}
	if search := strings.TrimSpace(p.Search); search != "" {
		words, err := SearchTerms(search)
		if err != nil {
			return q, nil, err
		}
		// The words first: the likeliest to be rare.
		q.Terms = append(words, q.Terms...)
	}
	if p.Cursor == "" {
		return q, nil, nil
	}
	cur := new(browseCursor)
	raw, err := base64.RawURLEncoding.DecodeString(p.Cursor)
	if err != nil || json.Unmarshal(raw, cur) != nil || cur.ID == "" {
		return q, nil, errBrowseParams("bad cursor")
	}
	if cur.Sort != p.Sort || cur.Desc != p.Desc || p.Sort == BrowseTitle && cur.Lang != p.TitleLang {
		return q, nil, errBrowseParams("a cursor of another order")
	}
	return q, cur, nil
}

// browseRun reads at most n records of q's order from cur on (forward),
// or before cur backwards: a title order is two parts, the titled
// records then the untitled ones, each read on its own.
func (s *Service) browseRun(ctx context.Context, q BrowseQuery, p BrowseParams, cur *browseCursor, forward bool, n int) ([]browseHit, error) {
	q.Desc = p.Desc != !forward
	parts := []bool{false}
	if p.Sort == BrowseTitle {
		parts = []bool{false, true} // titled, then untitled
		if !forward {
			parts = []bool{true, false}
		}
	}
	var hits []browseHit
	started := cur == nil
	for _, untitled := range parts {
		q.Untitled, q.After = untitled, nil
		if !started {
			if cur.Untitled != untitled {
				continue // the cursor's part comes later
			}
			started = true
			q.After = &BrowseKey{ID: cur.ID, Title: cur.Title, Updated: time.UnixMicro(cur.Updated).UTC()}
		}
		q.Limit = n - len(hits)
		entries, err := s.store.BrowseRecords(ctx, q)
		if err != nil {
			return nil, err
		}
		for _, e := range entries {
			hits = append(hits, browseHit{e, untitled})
		}
		if len(hits) >= n {
			break
		}
	}
	return hits, nil
}

func encodeBrowseCursor(p BrowseParams, h browseHit, before bool) string {
	c := browseCursor{Sort: p.Sort, Desc: p.Desc, Before: before, ID: h.e.Record.RecordID()}
	switch p.Sort {
	case BrowseTitle:
		c.Lang, c.Untitled = p.TitleLang, h.untitled
		if !h.untitled {
			c.Title = TitleSortKey(h.e.Record, p.TitleLang)
		}
	case BrowseUpdated:
		c.Updated = h.e.Updated.UnixMicro()
	}
	raw, _ := json.Marshal(c) // plain fields always marshal
	return base64.RawURLEncoding.EncodeToString(raw)
}

// browseRowOf is the row of a record in an account of langs.
func browseRowOf(e *Entry, langs Languages) BrowseRow {
	c := e.Record.Common()
	row := BrowseRow{ID: e.Record.RecordID(), Titles: map[string]string{}, Published: c.Published.Value, Updated: e.Updated}
	for lang, t := range *c.Title {
		if t != "" {
			row.Titles[lang] = t
		}
	}
	for _, lang := range langs.All {
		if row.Titles[lang] == "" {
			row.Missing = append(row.Missing, lang)
		}
	}
	if r, ok := e.Record.(*Resource); ok {
		row.Type = r.ResourceType.Value
		if len(r.ResourceCategories.Value) > 0 {
			row.Category = r.ResourceCategories.Value[0]
		}
	}
	return row
}

// maxFacets is the most values Facets gives of each.
const maxFacets = 500

// Facets returns the distinct resourceType values and category ids of the
// Resources of the principal's account in ctx, sorted (byte order), at
// most 500 of each, for the filters of a list, from the index (one look-up
// a value). Other kinds have none. Errors: CodeUnauthorized,
// CodeForbidden.
func (s *Service) Facets(ctx context.Context, kind Kind) (types, categories []string, err error) {
	pr, err := s.caller(ctx, kind, ActionRead)
	if err != nil || kind != KindResource {
		return nil, nil, err
	}
	values := func(r TermRange) ([]string, error) {
		terms, err := s.store.TermValues(ctx, pr.Account, kind, r, maxFacets)
		if err != nil {
			return nil, err
		}
		out := make([]string, len(terms))
		for i, t := range terms {
			out[i] = TermValue(t)
		}
		return out, nil
	}
	if types, err = values(TypeTerms()); err != nil {
		return nil, nil, err
	}
	if categories, err = values(CategoryTerms()); err != nil {
		return nil, nil, err
	}
	return types, categories, nil
}
