package cms

import (
	"context"
	"maps"
	"reflect"
	"slices"
)

// prefetch reads what upserting patches will ask and the views do not
// know: the stored records of their ids, the ids their references name,
// and the holders of the aliases they give or will be given.
func (b *bulkTx) prefetch(ctx context.Context, s *Service, langs Languages, patches []Record) error {
	var ids []string
	for _, p := range patches {
		if _, ok := b.entry(p.RecordID()); !ok && !slices.Contains(ids, p.RecordID()) {
			ids = append(ids, p.RecordID())
		}
	}
	if len(ids) > 0 {
		found, err := b.tx.GetRecords(ctx, b.account, b.kind, ids)
		if err != nil {
			return err
		}
		for _, id := range ids {
			b.cur.entries[id] = nil
		}
		for _, e := range found {
			b.remember(e)
		}
	}
	var uses []refUse
	for _, p := range patches {
		uses = refUses(s.doc.kinds[b.kind].spec, reflect.ValueOf(p).Elem(), "", uses)
	}
	wanted := map[Kind][]string{}
	for _, u := range uses {
		for _, k := range refKinds(u.toKind) {
			if _, ok := b.exists(k, u.id); !ok {
				wanted[k] = append(wanted[k], u.id)
			}
		}
	}
	for k, ids := range wanted {
		found, err := s.existing(ctx, b.tx, b.account, k, ids)
		if err != nil {
			return err
		}
		b.learn(k, ids, found)
	}
	// The aliases given, then those new records will be given
	// (makeAliases): the default language's first, as the other
	// languages' may derive from it.
	var fresh []Record
	given := map[string][]string{}
	for _, p := range patches {
		for lang, alias := range *p.Common().URLAlias {
			if alias != "" {
				given[lang] = append(given[lang], alias)
			}
		}
		if e, _ := b.entry(p.RecordID()); e == nil {
			fresh = append(fresh, p)
		}
	}
	defaults, err := b.prefetchGenerated(ctx, fresh, []string{langs.Default}, nil, given)
	if err != nil {
		return err
	}
	_, err = b.prefetchGenerated(ctx, fresh, langs.Others(), defaults, nil)
	return err
}

// prefetchGenerated reads what making the aliases of new records in langs
// will ask: the holders of their first candidates and, for the stems that
// will be numbered (a candidate held, or wanted twice), the highest
// numbers. It returns the aliases the records will likely get, by record:
// a guess (the first candidate when free, else the next numbers in
// order), which the other languages' candidates derive from. defaults
// are the default language's guesses (nil for the default language);
// also are more aliases to ask the holders of, by language, in the same
// queries.
func (b *bulkTx) prefetchGenerated(ctx context.Context, fresh []Record, langs []string, defaults []string,
	also map[string][]string) ([]string, error) {
	firsts := make([][]string, len(fresh)) // by record, then language ("": given)
	wanted := map[aliasKey]int{}
	byLang := maps.Clone(also)
	if byLang == nil {
		byLang = map[string][]string{}
	}
	for i, p := range fresh {
		given, titles := *p.Common().URLAlias, *p.Common().Title
		firsts[i] = make([]string, len(langs))
		for j, lang := range langs {
			if _, ok := given[lang]; ok {
				continue
			}
			var first string
			if defaults == nil {
				first = aliasBase(titles[lang], p.RecordID(), "", true)
			} else {
				first = aliasBase(titles[lang], p.RecordID(), defaults[i], false)
			}
			firsts[i][j] = first
			byLang[lang] = append(byLang[lang], first)
			wanted[aliasKey{lang, first}]++
		}
	}
	if err := b.askHolders(ctx, byLang); err != nil {
		return nil, err
	}
	stems := map[string][]string{}
	for key, count := range wanted {
		stem := aliasStem(key.alias)
		if _, known := b.numbers[aliasKey{key.lang, stem}]; known {
			continue
		}
		if holder, _ := b.holder(key); holder != "" || count > 1 {
			stems[key.lang] = append(stems[key.lang], stem)
		}
	}
	for lang, bases := range stems {
		if err := b.learnNumbers(ctx, lang, bases); err != nil {
			return nil, err
		}
	}
	if defaults != nil {
		return nil, nil
	}
	guesses := make([]string, len(fresh))
	claimed := map[aliasKey]bool{}
	next := map[aliasKey]int64{}
	for i, p := range fresh {
		first := firsts[i][0]
		if first == "" {
			guesses[i] = (*p.Common().URLAlias)[langs[0]]
			continue
		}
		key := aliasKey{langs[0], first}
		if holder, _ := b.holder(key); holder == "" && !claimed[key] {
			claimed[key], guesses[i] = true, first
			continue
		}
		stem := aliasKey{langs[0], aliasStem(first)}
		n, ok := next[stem]
		if !ok {
			n = max(b.numbers[stem], 1) + 1
		}
		next[stem], guesses[i] = n+1, numberedAlias(stem.alias, n)
	}
	return guesses, nil
}

// askHolders reads into the view the holders of aliases by language
// that the views do not know, in one query a language.
func (b *bulkTx) askHolders(ctx context.Context, byLang map[string][]string) error {
	for lang, aliases := range byLang {
		aliases = slices.DeleteFunc(aliases, func(a string) bool { _, ok := b.holder(aliasKey{lang, a}); return ok })
		if len(aliases) == 0 {
			continue
		}
		held, err := b.tx.AliasHolders(ctx, b.account, b.kind, lang, aliases)
		if err != nil {
			return err
		}
		for _, alias := range aliases {
			b.cur.setHolder(aliasKey{lang, alias}, held[alias])
		}
	}
	return nil
}

// learnNumbers reads the highest numbers of stems in lang into
// b.numbers: the store's, but for the numbers the views released, raised
// by those they hold. Call it when no write is in flight.
func (b *bulkTx) learnNumbers(ctx context.Context, lang string, stems []string) error {
	var plain []string
	viewed := map[string]int64{}
	for _, stem := range Dedupe(stems) {
		key := aliasKey{lang, stem}
		held, skip := b.viewNumbers(key, 0)
		viewed[stem] = held
		if len(skip) == 0 {
			plain = append(plain, stem)
			continue
		}
		top, err := b.tx.AliasNumbers(ctx, AliasNumberParams{Account: b.account, Kind: b.kind, Lang: lang,
			Bases: []string{stem}, Skip: skip})
		if err != nil {
			return err
		}
		b.numbers[key] = max(top[stem], held)
	}
	if len(plain) == 0 {
		return nil
	}
	top, err := b.tx.AliasNumbers(ctx, AliasNumberParams{Account: b.account, Kind: b.kind, Lang: lang, Bases: plain})
	if err != nil {
		return err
	}
	for _, stem := range plain {
		b.numbers[aliasKey{lang, stem}] = max(top[stem], viewed[stem])
	}
	return nil
}

// viewNumbers returns the highest number of stem (language and base)
// the views hold, and the numbers they released; with below above 0,
// of the numbers below it only.
func (b *bulkTx) viewNumbers(stem aliasKey, below int64) (held int64, released []int64) {
	for _, v := range []*view{b.cur, b.prev} {
		if v == nil {
			continue
		}
		for _, n := range v.stems[stem] {
			if below > 0 && n >= below {
				continue
			}
			if holder, _ := b.holder(aliasKey{stem.lang, numberedAlias(stem.alias, n)}); holder != "" {
				held = max(held, n)
			} else {
				released = append(released, n)
			}
		}
	}
	return held, released
}
