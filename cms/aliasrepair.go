package cms

import (
	"maps"
	"slices"
	"strconv"
	"strings"
)

// RepairAliases rewrites the urlAlias values of rec that break the alias
// rule or are not in the form aliases are stored in (NormalizeAlias):
// the characters no alias may hold (backslashes, controls, zero-width and
// bidirectional characters) are dropped, a second leading / with them,
// the rest normalised, and an alias left with nothing after its / becomes
// the slug of the record's id. A repaired alias that another record holds
// in its language (taken answers) gets -2, -3, ... as generated aliases
// do. Languages are repaired in code order. It reports whether rec
// changed. Storage adapters run it once, over the aliases stored before
// the rule, in a migration.
func RepairAliases(rec Record, taken func(lang, alias string) (bool, error)) (bool, error) {
	aliases := rec.Common().URLAlias
	if aliases == nil {
		return false, nil
	}
	changed := false
	for _, lang := range slices.Sorted(maps.Keys(*aliases)) {
		alias := (*aliases)[lang]
		if alias == "" || ValidAlias(alias) {
			continue
		}
		base := cleanAlias(alias, rec.RecordID())
		candidate := base
		for n := 2; ; n++ {
			held, err := taken(lang, candidate)
			if err != nil {
				return changed, err
			}
			if !held {
				break
			}
			candidate = suffixedAlias(base, "-"+strconv.Itoa(n), maxAliasLength)
		}
		(*aliases)[lang] = candidate
		changed = true
	}
	return changed, nil
}

// cleanAlias drops from alias every character no alias may hold and
// normalises the rest, until neither changes it (a drop may join a letter
// and its accent), then drops a second leading / that may have been
// uncovered ("/\/x" is "//x" read by a browser as another host) and cuts
// it to 500 characters; nothing left after the / gives the id's slug.
func cleanAlias(alias, id string) string {
	for {
		var b strings.Builder
		for _, r := range alias {
			if !aliasExcludedRune(r) {
				b.WriteRune(r)
			}
		}
		clean := NormalizeAlias(b.String())
		if clean == alias {
			break
		}
		alias = clean
	}
	path := strings.TrimLeft(alias, "/")
	if path == "" {
		return AliasFromSlug(Slug(id))
	}
	return cutAlias("/"+path, maxAliasLength)
}

// ValidAlias reports whether alias has the shape urlAlias takes, in the
// form it is stored in: a /, then something other than /, none of the
// characters no alias may hold (spaces, controls, backslashes, zero-width
// and bidirectional characters), and normalised (NormalizeAlias). Its
// length is not judged.
func ValidAlias(alias string) bool { return matchAlias(alias) && NormalizeAlias(alias) == alias }
