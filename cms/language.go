package cms

import (
	"fmt"
	"slices"
	"strings"
)

// Languages is an account's language configuration: Default is the language
// of the bare field names, All the ordered list of every configured language
// (Default included). Multi-language fields carry one value per entry of All.
type Languages struct {
	Default string
	All     []string
}

// NewLanguages checks and returns a language configuration. Codes are
// lowercase ISO 639-1 (two letters a-z); all must contain def, without
// repeats. When all is empty it is just [def].
func NewLanguages(def string, all ...string) (Languages, error) {
	if !isLangCode(def) {
		return Languages{}, fmt.Errorf("cms: language %q: want two lowercase letters", def)
	}
	if len(all) == 0 {
		all = []string{def}
	}
	for i, code := range all {
		if !isLangCode(code) {
			return Languages{}, fmt.Errorf("cms: language %q: want two lowercase letters", code)
		}
		if slices.Contains(all[:i], code) {
			return Languages{}, fmt.Errorf("cms: language %q listed twice", code)
		}
	}
	if !slices.Contains(all, def) {
		return Languages{}, fmt.Errorf("cms: default language %q is not in the list %v", def, all)
	}
	return Languages{Default: def, All: slices.Clone(all)}, nil
}

// ParseLanguages reads a comma-separated list such as "en,it,de"; the first
// code is the default language.
func ParseLanguages(list string) (Languages, error) {
	codes := strings.Split(list, ",")
	for i := range codes {
		codes[i] = strings.TrimSpace(codes[i])
	}
	return NewLanguages(codes[0], codes...)
}

// String gives the list with the default first, as ParseLanguages reads it.
func (l Languages) String() string {
	codes := append([]string{l.Default}, l.Others()...)
	return strings.Join(codes, ",")
}

// Others lists the configured languages other than the default, in order.
func (l Languages) Others() []string {
	others := make([]string, 0, len(l.All))
	for _, code := range l.All {
		if code != l.Default {
			others = append(others, code)
		}
	}
	return others
}

// WireName is the wire name of field name in language code: the bare name
// for the default language, name_<code> otherwise.
func (l Languages) WireName(name, code string) string {
	if code == l.Default {
		return name
	}
	return name + "_" + code
}

func isLangCode(s string) bool {
	return len(s) == 2 && 'a' <= s[0] && s[0] <= 'z' && 'a' <= s[1] && s[1] <= 'z'
}
