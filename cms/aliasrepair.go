package cms

import (
	"maps"
	"slices"
	"strconv"
	"strings"
)

// RepairAliases rewrites the urlAlias values of rec that break the alias
// rule since it refused backslashes and bidirectional controls: the
// characters no alias may hold are dropped, a second leading / with them,
// and an alias left with nothing after its / becomes the slug of the
// record's id. A repaired alias that another record holds in its language
// (taken answers) gets -2, -3, ... as generated aliases do. It reports
// whether rec changed. Storage adapters run it once, over the aliases
// stored before the rule, in a migration.
func RepairAliases(rec Record, taken func(lang, alias string) (bool, error)) (bool, error) {
	aliases := aliasesOf(rec)
	if aliases == nil {
		return false, nil
	}
	changed := false
	for _, lang := range slices.Sorted(maps.Keys(*aliases)) {
		alias := (*aliases)[lang]
		if alias == "" || matchAlias(alias) {
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
			suffix := "-" + strconv.Itoa(n)
			candidate = truncateUTF8(base, maxAliasLength-len(suffix)) + suffix
		}
		(*aliases)[lang] = candidate
		changed = true
	}
	return changed, nil
}

// cleanAlias drops from alias every character no alias may hold, and a
// second leading / the drop may have uncovered ("/\/x" is "//x" read by a
// browser as another host); nothing left after the / gives the id's slug.
func cleanAlias(alias, id string) string {
	var b strings.Builder
	for _, r := range alias {
		if !aliasExcludedRune(r) {
			b.WriteRune(r)
		}
	}
	path := strings.TrimLeft(b.String(), "/")
	if path == "" {
		return AliasFromSlug(Slug(id))
	}
	return "/" + path
}

// ValidAlias reports whether alias has the shape urlAlias takes: a /, then
// something other than /, and none of the characters no alias may hold
// (spaces, controls, backslashes, bidirectional controls). Its length is
// not judged.
func ValidAlias(alias string) bool { return matchAlias(alias) }
