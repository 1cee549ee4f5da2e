package cms

import (
	"context"
	"errors"
)

// checkAliases reports every urlAlias of the body held by another record of
// the kind in the same language (aliases are unique per account, kind and
// language). held are the record's stored aliases (nil for a new record):
// those need no look-up.
func (s *Service) checkAliases(ctx context.Context, tx upsertStore, p Principal, patch Record, held Langs[string]) ([]fieldProblem, error) {
	aliases := *patch.Common().URLAlias
	var problems []fieldProblem
	for _, lang := range p.Langs.All {
		alias, ok := aliases[lang]
		if !ok || alias == "" || held[lang] == alias {
			continue
		}
		holder, err := tx.AliasHolder(ctx, p.Account, patch.Kind(), lang, alias)
		switch {
		case ErrorCode(err) == CodeNotFound:
			continue
		case err != nil:
			return nil, err
		}
		if problem, taken := aliasRule(p.Langs, patch.Kind(), patch.RecordID(), lang, alias, holder); taken {
			problems = append(problems, problem)
		}
	}
	return problems, nil
}

// aliasRule is the rule of a urlAlias a record gives: the record id of kind
// may give alias in lang unless another record of the kind holds it there.
// holder is the record that holds it ("": none). When it is taken, aliasRule
// returns the problem that names the holder. Single upserts (checkAliases)
// and the batch plan judge the rule here; the store's unique index is the
// last word on a race.
func aliasRule(langs Languages, kind Kind, id, lang, alias, holder string) (fieldProblem, bool) {
	if holder == "" || holder == id {
		return fieldProblem{}, false
	}
	return fieldProblem{langs.WireName("urlAlias", lang), alias + " is already used by " + kind.Title() + " " + holder}, true
}

// makeAliases gives a new record the urlAlias of every configured language
// the body leaves out: "/" and the slug of the title in that language, else
// of the default language's alias (for the default language: of the id),
// made unique in its language with -2, -3, ... (uniqueAlias). Languages are
// taken in the account's order, so concurrent writers hold their aliases'
// stems in one order.
func (s *Service) makeAliases(ctx context.Context, tx upsertStore, p Principal, rec Record, patch Record) error {
	aliases := rec.Common().URLAlias
	if *aliases == nil {
		*aliases = Langs[string]{}
	}
	given := *patch.Common().URLAlias
	titles := *rec.Common().Title
	for _, lang := range aliasOrder(p.Langs) {
		if _, ok := given[lang]; ok {
			continue
		}
		base := aliasBase(titles[lang], rec.RecordID(), (*aliases)[p.Langs.Default], lang == p.Langs.Default)
		alias, err := uniqueAlias(ctx, tx, p.Account, rec.Kind(), lang, base, "")
		if errors.Is(err, errNoFreeAlias) {
			return problemError(patch, true, []fieldProblem{{p.Langs.WireName("urlAlias", lang),
				"no number is left for " + aliasStem(base) + "; give a urlAlias"}})
		}
		if err != nil {
			return err
		}
		(*aliases)[lang] = alias
	}
	return nil
}

// aliasBase is the first candidate alias of a new record in a language
// its body gives none: the slug of its title in that language, else (in
// the default language) of its id, else of its alias in the default
// language.
func aliasBase(title, id, defaultAlias string, isDefault bool) string {
	slug := Slug(title)
	if slug == "" && isDefault {
		slug = Slug(id)
	}
	if slug == "" {
		slug = Slug(defaultAlias)
	}
	if slug == "" {
		slug = "record" // an id always has a letter or digit; this is only a guard
	}
	return cutAlias(AliasFromSlug(slug), maxAliasLength)
}

// aliasOrder is the order aliases are made in: the default language
// first, whose alias the others may derive from.
func aliasOrder(langs Languages) []string {
	return append([]string{langs.Default}, langs.Others()...)
}
