package cms

import (
	"context"
	"reflect"
	"slices"
)

// batchPlan follows, record by record, what a batch will have done when its
// records are applied in order, so that checkBatch judges at submit the
// rules single upserts judge on the merged record: the TRACK rule, URL
// aliases held by another record, references to records the batch deleted.
// It keeps a few fields an id, never the records.
//
// It reads the store as of the submit; what changes there before the
// batch runs, and an alias that the batch generates for a record and a
// later record gives, are found when the batch is applied.
type batchPlan struct {
	store   Store
	account string
	kind    Kind
	langs   Languages
	track   []binding // the TRACK-only bindings of a Resource, in answer order
	ids     map[string]*plannedRecord
	// claims are the aliases records of the batch give, by the record that
	// gave one last; held are their holders in the store ("" none).
	claims map[aliasKey]string
	held   map[aliasKey]string
}

// plannedRecord is what the batch did so far to one id.
type plannedRecord struct {
	written   bool              // a record of the batch made or changed it
	deleted   bool              // its last record deleted it
	recreated bool              // made again after a delete: holds none of its stored aliases
	given     map[string]string // aliases its records gave, by language
	// The TRACK rule's inputs after the merges so far (Resources).
	resourceType string
	valued       fieldSet // bit i: track[i] holds a value
}

// fieldSet is a set of indexes of batchPlan.track: two per language for
// the translated fields, so as large as the account's languages make it.
type fieldSet []uint64

func newFieldSet(n int) fieldSet { return make(fieldSet, (n+63)/64) }

func (f fieldSet) add(i int)      { f[i/64] |= 1 << (i % 64) }
func (f fieldSet) has(i int) bool { return f[i/64]&(1<<(i%64)) != 0 }

// merge takes the bits of set from valued, and keeps the others.
func (f fieldSet) merge(set, valued fieldSet) {
	for i := range f {
		f[i] = f[i]&^set[i] | valued[i]
	}
}

func newBatchPlan(store Store, account string, kind Kind, codec *Codec) *batchPlan {
	p := &batchPlan{store: store, account: account, kind: kind, langs: codec.langs,
		ids: map[string]*plannedRecord{}, claims: map[aliasKey]string{}, held: map[aliasKey]string{}}
	if kind == KindResource {
		for _, b := range codec.kinds[kind].out {
			if b.field.trackOnly {
				p.track = append(p.track, b)
			}
		}
	}
	return p
}

// prefetch reads what the next records will ask the store, in one query a
// question: the stored Resources met for the first time (for the TRACK
// rule) and the holders of the aliases given.
func (p *batchPlan) prefetch(ctx context.Context, records []Record) error {
	var fresh []string
	given := map[string][]string{} // lang -> aliases
	for _, rec := range records {
		if rec == nil || !ValidID(rec.RecordID()) {
			continue
		}
		id := rec.RecordID()
		if _, ok := p.ids[id]; !ok && p.kind == KindResource && !slices.Contains(fresh, id) {
			fresh = append(fresh, id)
		}
		for lang, alias := range *aliasesOf(rec) {
			if _, ok := p.held[aliasKey{lang, alias}]; !ok && alias != "" {
				given[lang] = append(given[lang], alias)
			}
		}
	}
	if len(fresh) > 0 {
		stored, err := p.store.GetRecords(ctx, p.account, p.kind, fresh)
		if err != nil {
			return err
		}
		for _, e := range stored {
			r := e.Record.(*Resource)
			p.ids[r.ID] = &plannedRecord{resourceType: r.ResourceType.Value, valued: p.trackValued(r, nil)}
		}
	}
	for lang, aliases := range given {
		holders, err := p.store.AliasHolders(ctx, p.account, p.kind, lang, aliases)
		if err != nil {
			return err
		}
		for _, alias := range aliases {
			p.held[aliasKey{lang, alias}] = holders[alias]
		}
	}
	return nil
}

// exists tells whether id is a record of the batch's kind after the
// records so far: known true or false, or not known (the store decides).
func (p *batchPlan) exists(id string) (exists, known bool) {
	r := p.ids[id]
	if r == nil || (!r.deleted && !r.written) { // untouched, perhaps prefetched
		return false, false
	}
	return !r.deleted, true
}

// apply takes the next record (valid id) and returns the problems of the
// merged record it makes: the TRACK rule, then its aliases.
func (p *batchPlan) apply(rec Record) (merged, aliases []fieldProblem) {
	id := rec.RecordID()
	r := p.ids[id]
	if deleteAsked(rec) {
		p.ids[id] = &plannedRecord{deleted: true}
		return nil, nil
	}
	switch {
	case r == nil: // new, or stored and not a Resource
		r = &plannedRecord{}
		p.ids[id] = r
	case r.deleted:
		*r = plannedRecord{recreated: true}
	}
	if r.valued == nil && p.track != nil {
		r.valued = newFieldSet(len(p.track))
	}
	r.written = true
	if res, ok := rec.(*Resource); ok {
		merged = p.mergeTrack(r, res)
	}
	return merged, p.claim(id, r, *aliasesOf(rec))
}

// mergeTrack merges a Resource's TRACK-rule fields into r and judges them
// with trackRule, as checkMerged does.
func (p *batchPlan) mergeTrack(r *plannedRecord, res *Resource) []fieldProblem {
	if res.ResourceType.Set {
		r.resourceType = res.ResourceType.Value
	}
	set := newFieldSet(len(p.track))
	r.valued.merge(set, p.trackValued(res, set))
	return trackRule(r.resourceType, p.track, r.valued.has)
}

// trackValued returns the TRACK-only bindings of res holding a value; set,
// when not nil, gets those res sets at all (a body's fields).
func (p *batchPlan) trackValued(res *Resource, set fieldSet) fieldSet {
	v := reflect.ValueOf(res).Elem()
	valued := newFieldSet(len(p.track))
	for i, b := range p.track {
		fv := v.Field(b.field.index)
		if holdsValue(fv, b.lang) {
			valued.add(i)
		}
		if set != nil && isSet(fv, b) {
			set.add(i)
		}
	}
	return valued
}

// claim judges the aliases a record gives with aliasRule, as
// checkAliases does, against the holders the batch has made so far, then
// makes the record their holder.
func (p *batchPlan) claim(id string, r *plannedRecord, aliases Langs[string]) []fieldProblem {
	var problems []fieldProblem
	for _, lang := range p.langs.All {
		alias, ok := aliases[lang]
		if !ok || alias == "" {
			continue
		}
		key := aliasKey{lang, alias}
		if problem, taken := aliasRule(p.langs, p.kind, id, lang, alias, p.holder(key)); taken {
			problems = append(problems, problem)
		}
		if r.given == nil {
			r.given = map[string]string{}
		}
		r.given[lang] = alias
		p.claims[key] = id
	}
	return problems
}

// holder is the record that holds an alias after the records so far ("":
// none known). A record of the batch that gave it holds it until it gives
// another or is deleted; the store's holder until the batch changes that
// record's alias in the language, deletes it or makes it again. Aliases
// the batch generates are not known here.
func (p *batchPlan) holder(key aliasKey) string {
	if c := p.claims[key]; c != "" {
		if r := p.ids[c]; !r.deleted && r.given[key.lang] == key.alias {
			return c
		}
	}
	s := p.held[key]
	if s == "" {
		return ""
	}
	if r := p.ids[s]; r != nil && (r.deleted || r.recreated || r.given[key.lang] != "") {
		return ""
	}
	return s
}
