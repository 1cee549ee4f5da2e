package cms

import (
	"context"
	"iter"
	"strings"
)

// The Resource map of the admin draws every Resource of an account with a
// location, up to 100,000 and more: it reads them in a compact form
// (ResourcePoint) streamed from the store, never the full records (a
// record decoded costs some 27 µs; a point a few).

// PointStore reads the Resources on the map.
type PointStore interface {
	// PointRows streams the Resources q selects whose locationLat and
	// locationLon are both set, in ascending id order, a chunk at a time
	// (no read held open between chunks, memory bounded by the chunk):
	// their id, published flag, location and stored document, nothing
	// else (no assignment lists). The sequence yields an error at most
	// once, as its last element.
	PointRows(ctx context.Context, q PointQuery) iter.Seq2[PointRow, error]
}

// PointQuery selects the Resources PointRows streams.
type PointQuery struct {
	// Account is whose Resources: always set.
	Account string
	// Published filters by the published flag.
	Published Published
	// MapID, when set, keeps Resources assigned to that Map in either role.
	MapID string
	// Terms keeps the records holding a term in each range (a type, a
	// category, a search's words), as ListParams.Terms.
	Terms []TermRange
}

// PointRow is a Resource as PointRows reads it.
type PointRow struct {
	ID        string
	Published bool
	Lat, Lon  float64
	// Document is the record in its storage form (Entry.Document).
	Document string
}

// PointsParams filter the Resources of ResourcePoints, as BrowseParams
// filter a list.
type PointsParams struct {
	// Published filters by the published flag (the zero value is
	// PublishedOnly, as for Read; the admin asks PublishedAny).
	Published Published
	// MapID keeps Resources assigned to that Map in either role.
	MapID string
	// Type keeps Resources whose resourceType equals it.
	Type string
	// Category keeps Resources whose resourceCategories contain it.
	Category string
	// Search keeps Resources matching every word (DECISIONS §14).
	Search string
}

// ResourcePoint is a Resource on the map.
type ResourcePoint struct {
	ID string
	// Title is the title in the account's default language or, when it
	// has none, in TitleLang (the first of the account's languages with
	// one); "" when it has none at all.
	Title     string
	TitleLang string
	// Type is the resourceType; Category the first of resourceCategories.
	Type      string
	Category  string
	Published bool
	Lat, Lon  float64
}

// ResourcePoints streams the Resources of the caller's account that have
// a location and match p, in ascending id order, in their compact form.
// The store reads only the rows it keeps (no per-record statement); each
// point is taken from the stored document without decoding the record.
// Errors, as the sequence's only element: CodeUnauthorized,
// CodeForbidden (no resource:read), CodeMalformed (a search SearchTerms
// refuses).
func (s *Service) ResourcePoints(ctx context.Context, p PointsParams) iter.Seq2[ResourcePoint, error] {
	return func(yield func(ResourcePoint, error) bool) {
		pr, err := s.caller(ctx, KindResource, ActionRead)
		if err != nil {
			yield(ResourcePoint{}, err)
			return
		}
		q := PointQuery{Account: pr.Account, Published: p.Published, MapID: p.MapID}
		if search := strings.TrimSpace(p.Search); search != "" {
			words, err := SearchTerms(search)
			if err != nil {
				yield(ResourcePoint{}, err)
				return
			}
			q.Terms = words
		}
		if p.Type != "" {
			q.Terms = append(q.Terms, TypeTerm(p.Type))
		}
		if p.Category != "" {
			q.Terms = append(q.Terms, CategoryTerm(p.Category))
		}
		for row, err := range s.store.PointRows(ctx, q) {
			if err != nil {
				yield(ResourcePoint{}, err)
				return
			}
			pt, err := s.doc.point(row, pr.Langs)
			if err != nil {
				yield(ResourcePoint{}, err)
				return
			}
			if !yield(pt, nil) {
				return
			}
		}
	}
}

// point is the ResourcePoint of row: its fields read from the document
// by a quick scan, or, when the scan gives up, from the record decoded.
func (c *Codec) point(row PointRow, langs Languages) (ResourcePoint, error) {
	pt := ResourcePoint{ID: row.ID, Published: row.Published, Lat: row.Lat, Lon: row.Lon}
	f, ok := scanPoint(row.Document)
	if !ok {
		rec := new(Resource)
		if err := c.DecodeDocument(row.Document, rec); err != nil {
			return pt, err
		}
		f = pointFields{titles: map[string]string{}, typ: rec.ResourceType.Value}
		for l, t := range rec.Title {
			f.titles[l] = t
		}
		if cats := rec.ResourceCategories.Value; len(cats) > 0 {
			f.category = cats[0]
		}
	}
	pt.Type, pt.Category = f.typ, f.category
	pt.Title, pt.TitleLang = pointTitle(langs, f.titles)
	return pt, nil
}

// pointTitle is the title shown: the default language's, else the first
// of the account's languages that has one.
func pointTitle(langs Languages, titles map[string]string) (string, string) {
	if t := titles[langs.Default]; t != "" {
		return t, langs.Default
	}
	for _, l := range langs.All {
		if t := titles[l]; t != "" {
			return t, l
		}
	}
	return "", ""
}

// pointFields are what a point takes from a document.
type pointFields struct {
	titles        map[string]string
	typ, category string
}

// scanPoint reads the title, resourceType and first category of a stored
// Resource document, skipping every other member unread; false when the
// document holds anything docScanner leaves to Decode.
func scanPoint(doc string) (pointFields, bool) {
	f := pointFields{titles: map[string]string{}}
	d := docScanner{s: doc}
	if !d.consume('{') {
		return f, false
	}
	if d.consume('}') {
		return f, true
	}
	for {
		name, ok := d.name()
		if !ok || !d.consume(':') {
			return f, false
		}
		switch {
		case name == "title" && d.peek() == '{':
			d.i++
			if !d.titles(f.titles) {
				return f, false
			}
		case name == "resourceType" && d.peek() == '"':
			if f.typ, ok = d.str(); !ok {
				return f, false
			}
		case name == "resourceCategories" && d.peek() == '[':
			d.i++
			if d.peek() == '"' {
				if f.category, ok = d.str(); !ok {
					return f, false
				}
				for d.consume(',') {
					if !d.skip() {
						return f, false
					}
				}
			}
			if !d.consume(']') {
				return f, false
			}
		default:
			if !d.skip() {
				return f, false
			}
		}
		if d.consume('}') {
			d.space()
			return f, d.i == len(d.s)
		}
		if !d.consume(',') {
			return f, false
		}
	}
}

// titles reads an object of language → title (null values left out)
// whose '{' has been read.
func (d *docScanner) titles(into map[string]string) bool {
	if d.consume('}') {
		return true
	}
	for {
		lang, ok := d.name()
		if !ok || !d.consume(':') {
			return false
		}
		if d.peek() == 'n' {
			if !d.literal("null") {
				return false
			}
		} else {
			t, ok := d.str()
			if !ok {
				return false
			}
			into[lang] = t
		}
		if d.consume('}') {
			return true
		}
		if !d.consume(',') {
			return false
		}
	}
}

// skip passes over one value of any shape without reading it: strings
// by their closing quote, containers by their brackets.
func (d *docScanner) skip() bool {
	switch d.peek() {
	case '"':
		d.i++
		for {
			k := strings.IndexAny(d.s[d.i:], `"\`)
			if k < 0 {
				return false
			}
			d.i += k
			if d.s[d.i] == '"' {
				d.i++
				return true
			}
			d.i += 2 // an escape and the character it escapes
			if d.i > len(d.s) {
				return false
			}
		}
	case '{', '[':
		close := byte('}')
		if d.s[d.i] == '[' {
			close = ']'
		}
		d.i++
		if d.consume(close) {
			return true
		}
		for {
			if close == '}' {
				if !d.skip() || !d.consume(':') {
					return false
				}
			}
			if !d.skip() {
				return false
			}
			if d.consume(close) {
				return true
			}
			if !d.consume(',') {
				return false
			}
		}
	case 't':
		return d.literal("true")
	case 'f':
		return d.literal("false")
	case 'n':
		return d.literal("null")
	case 0:
		return false
	default:
		_, ok := d.number()
		return ok
	}
}
