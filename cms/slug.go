package cms

import (
	"errors"
	"strconv"
	"strings"
	"unicode"

	"golang.org/x/text/unicode/norm"
)

// Slug makes the slug of DECISIONS §13: Unicode NFKD, combining marks
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

// maxAliasLength is urlAlias's maximum length.
const maxAliasLength = 500

// errNoFreeAlias is returned when every candidate alias is taken.
var errNoFreeAlias = errors.New("cms: no free urlAlias")

// UniqueAlias returns base if it is free, else base-2, base-3, ... (the
// first free), each cut to fit urlAlias's 500 characters. taken says
// whether a candidate is held.
func UniqueAlias(base string, taken func(candidate string) (bool, error)) (string, error) {
	for n := 1; n <= 1000; n++ {
		suffix := ""
		if n > 1 {
			suffix = "-" + strconv.Itoa(n)
		}
		stem := base
		if len(stem)+len(suffix) > maxAliasLength {
			stem = strings.TrimRight(truncateUTF8(stem, maxAliasLength-len(suffix)), "-")
		}
		candidate := stem + suffix
		held, err := taken(candidate)
		if err != nil {
			return "", err
		}
		if !held {
			return candidate, nil
		}
	}
	return "", errNoFreeAlias
}

// truncateUTF8 cuts s to at most n bytes without splitting a character.
func truncateUTF8(s string, n int) string {
	if len(s) <= n {
		return s
	}
	for n > 0 && !isRuneStart(s[n]) {
		n--
	}
	return s[:n]
}

func isRuneStart(b byte) bool { return b&0xC0 != 0x80 }
