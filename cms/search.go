package cms

import (
	"errors"
	"maps"
	"slices"
	"strings"
	"unicode"
	"unicode/utf8"

	"golang.org/x/text/cases"
	"golang.org/x/text/unicode/norm"
	"golang.org/x/text/width"
)

// The index terms (RecordIndex.Terms) are strings a store keeps beside a
// record, one row each, and finds records by: the exact term, or every
// term in a range (TermRange). cms decides every term, so that each
// adapter indexes alike; a store only writes them, deletes them with the
// record, and looks them up. Each term starts with a tag of its own:
//
//	w:<word>        a word of the id or of a title in any language (Fold)
//	t:<lang>:<key>  the title in lang, folded whole, for sorting by title
//	m:<lang>        no title in lang, one of the account's languages
//	y:<type>        a Resource's resourceType
//	c:<category>    each of a Resource's resourceCategories
//	u:              not published
//
// The m: terms depend on the account's languages (MissingTerms): the
// store adds them to a record's own terms, and to every record's when
// the account gains a language. A store keeps a record's own terms (all
// but the m: ones) also as one string beside it (JoinTerms), to test a
// record read for a term without another look-up, and to know what to
// delete when they change.
const (
	termWord        = "w:"
	termTitle       = "t:"
	termMissing     = "m:"
	termType        = "y:"
	termCategory    = "c:"
	termUnpublished = "u:"
)

// Length bounds of the terms, in characters: an index key stays small
// whatever was stored before the limits of the fields.
const (
	// maxTermWord is the longest word kept; a longer word, and a longer
	// search word, are cut to it (the search then finds a little more).
	maxTermWord = 40
	// maxTermTitle is the longest title sort key; titles equal over it
	// sort by id.
	maxTermTitle = 60
	// maxTermValue is the longest resourceType or category kept; a longer
	// one is not indexed (the fields hold at most 100).
	maxTermValue = 200
)

// TermRange is a range of index terms: From itself, and every term
// that starts with Prefix when Prefix is set (From is then Prefix, and
// To the first string after every term that starts with it). A record
// matches when it holds at least one term of the range. Stores compare
// terms in byte order.
type TermRange struct {
	From, To string
}

// Own reports whether the terms of r are a record's own terms, which its
// document decides (RecordIndex.Terms, JoinTerms), not the m: terms of
// the account's languages.
func (r TermRange) Own() bool { return !strings.HasPrefix(r.From, termMissing) }

// TermSeparator separates the terms in JoinTerms: no term holds it.
const TermSeparator = "\x1f"

// JoinTerms is terms as one string: each term after a TermSeparator, and
// one at the end ("\x1fw:lake\x1fy:LAKE\x1f"; "" for none). A term of
// the string starts with a prefix p exactly when the string holds
// TermSeparator + p; it is term t when it holds TermSeparator + t +
// TermSeparator (TermNeedle).
func JoinTerms(terms []string) string {
	if len(terms) == 0 {
		return ""
	}
	return TermSeparator + strings.Join(terms, TermSeparator) + TermSeparator
}

// SplitTerms is the terms of a JoinTerms string.
func SplitTerms(s string) []string {
	s = strings.Trim(s, TermSeparator)
	if s == "" {
		return nil
	}
	return strings.Split(s, TermSeparator)
}

// TermNeedle is what a JoinTerms string holds when it holds a term of r:
// the separator and the prefix, or the separator, the term and the
// separator.
func (r TermRange) TermNeedle() string {
	if r.Exact() {
		return TermSeparator + r.From + TermSeparator
	}
	return TermSeparator + r.From // a prefix's range (every range but one term's)
}

// Exact reports whether the range is one term.
func (r TermRange) Exact() bool { return r.To == "" }

// Contains reports whether term is in r.
func (r TermRange) Contains(term string) bool {
	if r.Exact() {
		return term == r.From
	}
	return term >= r.From && term < r.To
}

// exactTerm is the range of one term.
func exactTerm(term string) TermRange { return TermRange{From: term} }

// prefixRange is the range of the terms that start with prefix: no term
// holds U+10FFFF (Fold keeps letters and digits only, and the other
// tags' values are never compared beyond their prefix), so every term
// with the prefix sorts below prefix + U+10FFFF in byte order.
func prefixRange(prefix string) TermRange {
	return TermRange{From: prefix, To: prefix + string(rune(unicode.MaxRune))}
}

// TypeTerm, CategoryTerm and MissingTerm are the index terms a filter of
// the admin's lists looks up: the Resources of a type, those of a
// category, the records without a title in lang. UnpublishedTerm is
// every record that is not published.
func TypeTerm(t string) TermRange       { return exactTerm(termType + t) }
func CategoryTerm(c string) TermRange   { return exactTerm(termCategory + c) }
func MissingTerm(lang string) TermRange { return exactTerm(termMissing + lang) }
func UnpublishedTerm() TermRange        { return exactTerm(termUnpublished) }
func TitleTerms(lang string) TermRange  { return prefixRange(termTitle + lang + ":") }

// TypeTerms and CategoryTerms are the ranges of every resourceType and
// every category term (Facets reads their distinct values).
func TypeTerms() TermRange     { return prefixRange(termType) }
func CategoryTerms() TermRange { return prefixRange(termCategory) }

// TermValue is the value a type or category term names ("y:hotel" is
// "hotel").
func TermValue(term string) string {
	if v, ok := strings.CutPrefix(term, termType); ok {
		return v
	}
	v, _ := strings.CutPrefix(term, termCategory)
	return v
}

// TitleKey is the title sort key of a t: term ("t:it:lago maggiore" is
// "lago maggiore"); "" for another term.
func TitleKey(term string) string {
	rest, ok := strings.CutPrefix(term, termTitle)
	if !ok {
		return ""
	}
	_, key, _ := strings.Cut(rest, ":")
	return key
}

// Fold is the form words are compared in: Unicode NFKD with the combining
// marks dropped (accents: "Città" is "citta"), full case folding ("Straße"
// is "strasse"), and widths folded ("ＡＢＣ" is "abc").
func Fold(s string) string {
	if isASCII(s) {
		return strings.ToLower(s)
	}
	// A Caser keeps state: one a call. Case folding may uncover marks and
	// compatibility forms (and decompositions may hold capitals: "㎆" is
	// "MB"), so marks go before and after it.
	return stripMarks(cases.Fold().String(stripMarks(width.Fold.String(s))))
}

// stripMarks is s in NFKD without its combining marks.
func stripMarks(s string) string {
	if isASCII(s) {
		return s
	}
	var b strings.Builder
	b.Grow(len(s))
	for _, r := range norm.NFKD.String(s) {
		if !unicode.Is(unicode.Mn, r) {
			b.WriteRune(r)
		}
	}
	return b.String()
}

// Words splits s into its folded words: the runs of letters and digits of
// Fold(s), each cut to maxTermWord characters, in order, repeats kept.
func Words(s string) []string {
	var words []string
	for w := range strings.FieldsFuncSeq(Fold(s), func(r rune) bool { return !unicode.IsLetter(r) && !unicode.IsDigit(r) }) {
		words = append(words, cutRunes(w, maxTermWord))
	}
	return words
}

// cutRunes cuts s to at most n characters.
func cutRunes(s string, n int) string {
	if len(s) <= n {
		return s
	}
	i := 0
	for pos := range s {
		if i == n {
			return s[:pos]
		}
		i++
	}
	return s
}

// titleKey is the sort key of a title: its folded words joined by one
// space, cut to maxTermTitle characters.
func titleKey(title string) string {
	return cutRunes(strings.Join(Words(title), " "), maxTermTitle)
}

// idWords are the words of a record id: its parts (Words), and the id as
// one word, its letters and digits joined ("poi-00123" is "poi", "00123"
// and "poi00123").
func idWords(id string) []string {
	parts := Words(id)
	if len(parts) > 1 {
		parts = append(parts, cutRunes(strings.Join(parts, ""), maxTermWord))
	}
	return parts
}

// indexTerms returns the terms of rec that its document decides (all but
// the m: terms), sorted, each once.
func indexTerms(rec Record) []string {
	c := rec.Common()
	set := map[string]bool{}
	for _, w := range idWords(*c.ID) {
		set[termWord+w] = true
	}
	for lang, title := range *c.Title {
		if title == "" {
			continue
		}
		for _, w := range Words(title) {
			set[termWord+w] = true
		}
		set[termTitle+lang+":"+titleKey(title)] = true
	}
	if !c.Published.Value {
		set[termUnpublished] = true
	}
	if r, ok := rec.(*Resource); ok {
		if t := r.ResourceType.Value; indexable(t) {
			set[termType+t] = true
		}
		for _, cat := range r.ResourceCategories.Value {
			if indexable(cat) {
				set[termCategory+cat] = true
			}
		}
	}
	// Sized once: slices.Sorted(maps.Keys(set)) grows its slice a
	// doubling at a time, eight allocations for a record's terms.
	terms := make([]string, 0, len(set))
	for t := range set {
		terms = append(terms, t)
	}
	slices.Sort(terms)
	return terms
}

// indexable reports whether a type or category is indexed: not empty,
// at most maxTermValue characters, no control character (the separator
// of JoinTerms is one).
func indexable(v string) bool {
	return v != "" && utf8.RuneCountInString(v) <= maxTermValue && !strings.ContainsFunc(v, unicode.IsControl)
}

// titledLangs are the languages terms hold a title sort key of.
func titledLangs(terms []string) map[string]bool {
	langs := map[string]bool{}
	lo, hi := sortedRange(terms, prefixRange(termTitle))
	for _, t := range terms[lo:hi] {
		lang, _, _ := strings.Cut(t[len(termTitle):], ":")
		langs[lang] = true
	}
	return langs
}

// sortedRange is the part [lo, hi) of sorted terms inside r.
func sortedRange(terms []string, r TermRange) (int, int) {
	lo, _ := slices.BinarySearch(terms, r.From)
	if r.Exact() {
		if lo < len(terms) && terms[lo] == r.From {
			return lo, lo + 1
		}
		return lo, lo
	}
	hi, _ := slices.BinarySearch(terms, r.To)
	return lo, hi
}

// MissingTerms returns the m: terms of a record whose other terms are
// terms (RecordIndex.Terms) in an account of langs: one for each of
// langs without a title. A store adds them to the record's terms.
func MissingTerms(terms []string, langs []string) []string {
	titled := titledLangs(terms)
	var missing []string
	for _, lang := range langs {
		if !titled[lang] {
			missing = append(missing, termMissing+lang)
		}
	}
	return missing
}

// TitledChange compares the terms of a record before and after a change
// (RecordIndex.Terms): whether the languages it has a title in are the
// same, so its m: terms stay as they are.
func TitledChange(before, after []string) bool {
	return !maps.Equal(titledLangs(before), titledLangs(after))
}

// The limits of a search (DECISIONS §14): a longer search, or one
// without a letter or digit, is refused.
const (
	// MaxSearchLength is the longest search, in characters.
	MaxSearchLength = 200
	// MaxSearchWords is the most words a search may hold.
	MaxSearchWords = 8
)

// errSearch is the cause of a refused search.
var errSearch = errors.New("search")

// SearchTerms returns the term ranges of a search (DECISIONS §14): one
// a word, each word a prefix of a word of the record's id or titles,
// all required. Words that another word of the search starts with are
// left out (it asks the same and more), and so are repeats; the longest
// words come first. CodeMalformed for a search longer than
// MaxSearchLength characters, with more than MaxSearchWords words, or
// with no letter or digit at all.
func SearchTerms(search string) ([]TermRange, error) {
	if utf8.RuneCountInString(search) > MaxSearchLength || !utf8.ValidString(search) {
		return nil, &Error{Code: CodeMalformed, Message: "Wrong request", Err: errors.Join(errSearch,
			errors.New("longer than 200 characters"))}
	}
	words := Words(search)
	if len(words) == 0 {
		return nil, &Error{Code: CodeMalformed, Message: "Wrong request", Err: errors.Join(errSearch,
			errors.New("no letter or digit"))}
	}
	if len(words) > MaxSearchWords {
		return nil, &Error{Code: CodeMalformed, Message: "Wrong request", Err: errors.Join(errSearch,
			errors.New("more than 8 words"))}
	}
	// Longest first: the likeliest to narrow a search the most.
	slices.SortStableFunc(words, func(a, b string) int { return len(b) - len(a) })
	var kept []string
	for _, w := range words {
		if !slices.ContainsFunc(kept, func(k string) bool { return strings.HasPrefix(k, w) }) {
			kept = append(kept, w)
		}
	}
	ranges := make([]TermRange, len(kept))
	for i, w := range kept {
		ranges[i] = prefixRange(termWord + w)
	}
	return ranges, nil
}

// MatchTerms reports whether sorted terms hold a term in every range of
// ranges: what a store's index answers, for records read by id.
func MatchTerms(terms []string, ranges []TermRange) bool {
	for _, r := range ranges {
		if lo, hi := sortedRange(terms, r); lo == hi {
			return false
		}
	}
	return true
}
