package cms

import (
	"context"
	"errors"
	"strconv"
	"strings"
	"unicode"

	"unicode/utf8"

	"golang.org/x/text/unicode/norm"
	"golang.org/x/text/width"
)

// Slug makes the slug of a generated urlAlias: Unicode NFKD, combining marks
// dropped, lowercased, every run of characters outside a-z0-9 one "-",
// trimmed of "-". "Caffè Nero!" gives "caffe-nero"; "" when nothing is
// left.
func Slug(s string) string {
	var b strings.Builder
	b.Grow(len(s))
	dash := false
	for _, r := range norm.NFKD.String(s) {
		if unicode.Is(unicode.Mn, r) {
			continue
		}
		r = unicode.ToLower(r)
		if 'a' <= r && r <= 'z' || '0' <= r && r <= '9' {
			if dash && b.Len() > 0 {
				b.WriteByte('-')
			}
			dash = false
			b.WriteRune(r)
			continue
		}
		dash = true
	}
	return b.String()
}

// AliasFromSlug is the urlAlias of a slug: "/" and the slug.
func AliasFromSlug(slug string) string { return "/" + slug }

// maxAliasLength is urlAlias's maximum length, in characters.
const maxAliasLength = 500

// NormalizeAlias is the form a urlAlias is compared and stored in: its
// fullwidth and halfwidth forms folded to their usual width ("／ｍｅｎｕ"
// is "/menu", as PRECIS folds identifiers) and then Unicode NFC ("/cafe"
// with a combining accent is "/café"), so aliases that look alike are
// one alias. Other compatibility forms (ligatures, superscripts) are
// kept: NFKC would rewrite what the user wrote beyond look-alikes.
func NormalizeAlias(alias string) string {
	if isASCII(alias) {
		return alias
	}
	return norm.NFC.String(width.Fold.String(alias))
}

func isASCII(s string) bool {
	for i := 0; i < len(s); i++ {
		if s[i] >= utf8.RuneSelf {
			return false
		}
	}
	return true
}

// maxAliasNumber is the highest number an alias ends in (18 digits): every
// number fits an int64 and its next still has the digits SplitAlias
// reads as a number.
const maxAliasNumber = 999_999_999_999_999_999

// maxAliasStem is the longest stem a number is added to, in characters:
// "-" and 18 digits always fit in urlAlias's 500 characters.
const maxAliasStem = maxAliasLength - 19

// SplitAlias splits an alias into the base and the number it is numbered
// by: "/lake-12" is "/lake" and 12. An alias that does not end in "-N",
// with N from 2 to 18 digits and no leading zero, is its own base with
// number 1 ("/lake", "/lake-1", "/lake-02"). Stores index aliases by
// base and number, so the next free number of a base is one look-up.
func SplitAlias(alias string) (base string, n int64) {
	i := len(alias)
	for i > 0 && '0' <= alias[i-1] && alias[i-1] <= '9' {
		i--
	}
	digits := alias[i:]
	if i == 0 || alias[i-1] != '-' || digits == "" || len(digits) > 18 || digits[0] == '0' || digits == "1" {
		return alias, 1
	}
	n, err := strconv.ParseInt(digits, 10, 64)
	if err != nil { // 18 digits always parse; a guard
		return alias, 1
	}
	return alias[:i-1], n
}

// numberedAlias is the alias of base numbered n: base itself for 1.
func numberedAlias(base string, n int64) string {
	if n <= 1 {
		return base
	}
	return base + "-" + strconv.FormatInt(n, 10)
}

// cutAlias cuts an alias to n characters at a character boundary (never
// between a letter and its combining marks), without a trailing "-".
func cutAlias(alias string, n int) string {
	if len(alias) <= n || utf8.RuneCountInString(alias) <= n {
		return alias
	}
	end := 0
	for i := 0; i < n; i++ {
		_, size := utf8.DecodeRuneInString(alias[end:])
		end += size
	}
	for end > 0 {
		r, _ := utf8.DecodeRuneInString(alias[end:])
		if !unicode.Is(unicode.M, r) {
			break
		}
		_, size := utf8.DecodeLastRuneInString(alias[:end])
		end -= size
	}
	return strings.TrimRight(alias[:end], "-")
}

// suffixedAlias is base with suffix, base cut so that the whole fits in
// n characters: the suffix is never cut ("-copy" of a clone).
func suffixedAlias(base, suffix string, n int) string {
	return cutAlias(base, n-utf8.RuneCountInString(suffix)) + suffix
}

// aliasStem is the base that numbers of the candidate alias first are
// added to: first itself, cut so that any number fits.
func aliasStem(first string) string { return cutAlias(first, maxAliasStem) }

// errNoFreeAlias is returned when a base has used up its numbers, which
// no number of aliases can do (uniqueAlias).
var errNoFreeAlias = errors.New("cms: no free urlAlias number")

// uniqueAlias returns the alias first (base and suffix, in 500
// characters) when no
// record of kind holds it in lang, else its stem numbered one more than
// the highest number held with that stem: "/lake", then "/lake-2",
// "/lake-3", ... Numbers freed below the highest are not reused. Two
// look-ups through the alias index, however many records share the
// base. In a write transaction the stem is held (LockAlias) until it
// ends, so concurrent writers take numbers one after the other.
//
// Only an alias given by hand can hold the highest number there is
// (maxAliasNumber): then the number is the one above the highest held
// below the run of numbers that ends there, one more look-up a number
// of that run, so a free alias is always found.
//
// suffix ends both the first alias and the stem ("-copy" of a clone):
// base is cut before it, at a character boundary.
func uniqueAlias(ctx context.Context, tx upsertStore, account string, kind Kind, lang, base, suffix string) (string, error) {
	first := suffixedAlias(base, suffix, maxAliasLength)
	stem := suffixedAlias(base, suffix, maxAliasStem)
	if err := tx.LockAlias(ctx, account, kind, lang, stem); err != nil {
		return "", err
	}
	_, err := tx.AliasHolder(ctx, account, kind, lang, first)
	switch {
	case ErrorCode(err) == CodeNotFound:
		return first, nil
	case err != nil:
		return "", err
	}
	p := AliasNumberParams{Account: account, Kind: kind, Lang: lang, Bases: []string{stem}}
	top, err := tx.AliasNumbers(ctx, p)
	if err != nil {
		return "", err
	}
	held := max(top[stem], 1)
	if held < maxAliasNumber {
		return numberedAlias(stem, held+1), nil
	}
	for held > 2 {
		p.Below = held
		top, err := tx.AliasNumbers(ctx, p)
		if err != nil {
			return "", err
		}
		if next := max(top[stem], 1) + 1; next < held {
			return numberedAlias(stem, next), nil
		}
		held-- // held is taken too: the run goes on below
	}
	return "", errNoFreeAlias // every number from 2 held: a guard
}
