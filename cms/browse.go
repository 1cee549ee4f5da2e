package cms

// A SIMPLE stand-in for the indexed Service.Browse and Service.Facets (the
// `search` branch builds them on an index, fast at 100,000 records): it
// reads every record of the kind and sorts and filters in Go. It has the
// same API, so that the admin's lists can be written against it; the
// indexed one replaces this whole file at merge. Not tested here on
// purpose: the admin's tests exercise its behaviour, and the cms tests
// belong to the indexed one.

import (
	"cmp"
	"context"
	"encoding/base64"
	"encoding/json"
	"errors"
	"slices"
	"strings"
	"time"
	"unicode"

	"golang.org/x/text/cases"
	"golang.org/x/text/unicode/norm"
	"golang.org/x/text/width"
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
	Sort BrowseSort
	// Desc reverses the order (the admin's default for updated is newest
	// first).
	Desc bool
	// TitleLang is the language of the title sort; "" = the account's
	// default.
	TitleLang string
	// Cursor is opaque, from the previous page's Next or Prev; "" = the
	// first page.
	Cursor string
	// Limit is the page size, 1..200; 0 = 50.
	Limit int
	// Published filters by the published flag (PublishedAny to include
	// unpublished records).
	Published Published
	// MapID keeps Resources assigned to that Map in either role.
	MapID string
	// Type keeps Resources whose resourceType equals it.
	Type string
	// Category keeps Resources whose resourceCategories contain it.
	Category string
	// MissingLang keeps records whose title has no value in that language.
	MissingLang string
	// Search keeps records matching every word, as DECISIONS §14.
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
	// Missing are the account's languages without a title.
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

const (
	defaultBrowseLimit = 50
	maxBrowseLimit     = 200
)

// browseCursor is what a cursor holds: the key of the row it follows
// (After) or precedes (Before).
type browseCursor struct {
	Before bool   `json:"b,omitempty"`
	Key    string `json:"k"`
	ID     string `json:"i"`
}

func errBrowse(why string) error {
	return &Error{Code: CodeMalformed, Message: "Wrong request", Err: errors.New(why)}
}

// Browse returns one page of records of kind for the principal in ctx,
// sorted and filtered by p. Errors: CodeMalformed for bad params (an
// unknown sort, a limit out of 1..200, a cursor not from Browse, a
// language not of the account); CodeUnauthorized, CodeForbidden.
func (s *Service) Browse(ctx context.Context, kind Kind, p BrowseParams) (BrowsePage, error) {
	pr, err := s.caller(ctx, kind, ActionRead)
	if err != nil {
		return BrowsePage{}, err
	}
	if p.Sort == "" {
		p.Sort = BrowseUpdated
	}
	if p.Sort != BrowseUpdated && p.Sort != BrowseID && p.Sort != BrowseTitle {
		return BrowsePage{}, errBrowse("unknown sort " + string(p.Sort))
	}
	if p.Limit == 0 {
		p.Limit = defaultBrowseLimit
	}
	if p.Limit < 1 || p.Limit > maxBrowseLimit {
		return BrowsePage{}, errBrowse("limit out of 1..200")
	}
	langs := pr.Langs
	if p.TitleLang == "" {
		p.TitleLang = langs.Default
	}
	if !slices.Contains(langs.All, p.TitleLang) {
		return BrowsePage{}, errBrowse("title language not of the account")
	}
	if p.MissingLang != "" && !slices.Contains(langs.All, p.MissingLang) {
		return BrowsePage{}, errBrowse("missing language not of the account")
	}
	var cur *browseCursor
	if p.Cursor != "" {
		raw, err := base64.RawURLEncoding.DecodeString(p.Cursor)
		cur = new(browseCursor)
		if err != nil || json.Unmarshal(raw, cur) != nil || cur.ID == "" {
			return BrowsePage{}, errBrowse("bad cursor")
		}
	}
	words := searchWords(p.Search)
	lp := ListParams{Account: pr.Account, Kind: kind, Published: p.Published}
	if kind == KindResource {
		lp.MapID = p.MapID
	}
	type keyed struct {
		key string
		row BrowseRow
	}
	var all []keyed
	for e, err := range s.store.ListRecords(ctx, lp) {
		if err != nil {
			return BrowsePage{}, err
		}
		row := browseRow(e, langs)
		if kind == KindResource && (p.Type != "" && row.Type != p.Type || p.Category != "" && !hasCategory(e.Record, p.Category)) {
			continue
		}
		if p.MissingLang != "" && row.Titles[p.MissingLang] != "" {
			continue
		}
		if len(words) > 0 && !matchesWords(words, row) {
			continue
		}
		all = append(all, keyed{browseKey(p, row), row})
	}
	less := func(a, b keyed) int {
		c := cmp.Or(strings.Compare(a.key, b.key), strings.Compare(a.row.ID, b.row.ID))
		if p.Desc {
			return -c
		}
		return c
	}
	slices.SortFunc(all, less)
	start, end := 0, len(all)
	if cur != nil {
		at := keyed{cur.Key, BrowseRow{ID: cur.ID}}
		pos, _ := slices.BinarySearchFunc(all, at, less)
		if cur.Before {
			end = pos
			start = max(0, end-p.Limit)
		} else {
			for pos < len(all) && less(all[pos], at) <= 0 {
				pos++
			}
			start = pos
		}
	}
	end = min(end, start+p.Limit)
	page := BrowsePage{Rows: []BrowseRow{}}
	for _, k := range all[start:end] {
		page.Rows = append(page.Rows, k.row)
	}
	if end < len(all) && end > start {
		page.Next = encodeCursor(browseCursor{Key: all[end-1].key, ID: all[end-1].row.ID})
	}
	if start > 0 && start < len(all) {
		page.Prev = encodeCursor(browseCursor{Before: true, Key: all[start].key, ID: all[start].row.ID})
	}
	return page, nil
}

func encodeCursor(c browseCursor) string {
	raw, _ := json.Marshal(c)
	return base64.RawURLEncoding.EncodeToString(raw)
}

// browseKey is the sort key of row under p, before the id.
func browseKey(p BrowseParams, row BrowseRow) string {
	switch p.Sort {
	case BrowseTitle:
		return foldText(row.Titles[p.TitleLang])
	case BrowseID:
		return ""
	}
	return row.Updated.UTC().Format("2006-01-02T15:04:05.000000000")
}

func browseRow(e *Entry, langs Languages) BrowseRow {
	c := e.Record.Common()
	row := BrowseRow{ID: e.Record.RecordID(), Titles: map[string]string{}, Published: c.Published.Value, Updated: e.Updated}
	if c.Title != nil {
		for l, t := range *c.Title {
			if t != "" {
				row.Titles[l] = t
			}
		}
	}
	for _, l := range langs.All {
		if row.Titles[l] == "" {
			row.Missing = append(row.Missing, l)
		}
	}
	if r, ok := e.Record.(*Resource); ok {
		row.Type = r.ResourceType.Value
		if r.ResourceCategories.Valid && len(r.ResourceCategories.Value) > 0 {
			row.Category = r.ResourceCategories.Value[0]
		}
	}
	return row
}

func hasCategory(rec Record, cat string) bool {
	r, ok := rec.(*Resource)
	return ok && r.ResourceCategories.Valid && slices.Contains(r.ResourceCategories.Value, cat)
}

// foldText folds case, width and accents: NFKD, combining marks dropped,
// case folded.
func foldText(s string) string {
	s = width.Fold.String(norm.NFKD.String(s))
	var b strings.Builder
	for _, r := range s {
		if !unicode.Is(unicode.Mn, r) {
			b.WriteRune(r)
		}
	}
	return cases.Fold().String(b.String())
}

// splitWords splits folded text into words of letters and digits.
func splitWords(s string) []string {
	return strings.FieldsFunc(s, func(r rune) bool { return !unicode.IsLetter(r) && !unicode.IsDigit(r) })
}

func searchWords(q string) []string { return splitWords(foldText(q)) }

// matchesWords reports whether every word is a prefix of a word of the
// row's id (whole or by its parts) or of one of its titles.
func matchesWords(words []string, row BrowseRow) bool {
	id := foldText(row.ID)
	have := append([]string{id}, splitWords(id)...)
	for _, t := range row.Titles {
		have = append(have, splitWords(foldText(t))...)
	}
	for _, w := range words {
		if !slices.ContainsFunc(have, func(h string) bool { return strings.HasPrefix(h, w) }) {
			return false
		}
	}
	return true
}

// Facets returns the distinct resourceType values and category ids of the
// Resources of the principal's account in ctx, sorted, for filters. Other
// kinds have none. Errors: CodeUnauthorized, CodeForbidden.
func (s *Service) Facets(ctx context.Context, kind Kind) (types, categories []string, err error) {
	pr, err := s.caller(ctx, kind, ActionRead)
	if err != nil || kind != KindResource {
		return nil, nil, err
	}
	ts, cs := map[string]bool{}, map[string]bool{}
	for e, err := range s.store.ListRecords(ctx, ListParams{Account: pr.Account, Kind: kind, Published: PublishedAny}) {
		if err != nil {
			return nil, nil, err
		}
		r := e.Record.(*Resource)
		if r.ResourceType.Value != "" {
			ts[r.ResourceType.Value] = true
		}
		if r.ResourceCategories.Valid {
			for _, c := range r.ResourceCategories.Value {
				cs[c] = true
			}
		}
	}
	return sortedKeys(ts), sortedKeys(cs), nil
}

func sortedKeys(m map[string]bool) []string {
	out := make([]string, 0, len(m))
	for k := range m {
		out = append(out, k)
	}
	slices.Sort(out)
	return out
}
