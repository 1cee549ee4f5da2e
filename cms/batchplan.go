package cms

import (
	"context"
	"errors"
	"maps"
	"reflect"
	"slices"
)

// batchPlan follows, record by record, what a batch will have done when its
// records are applied in order, so that checkBatch judges at submit what
// single upserts of the records one after another would refuse: the
// TRACK rule on the merged record, URL aliases held by another record
// (given by it, or generated for it by makeAliases, numbers included),
// references to records the batch deleted, and deletes of records named
// by a single reference. It keeps a few fields an id, never the records.
//
// It reads the store as of the submit: what changes there before the
// batch runs is found when the batch is applied. So is an alias clash
// with a numbered alias the batch generates after it released an alias
// in that language (the apply numbers from what is left then, which the
// plan does not follow: such a guess refuses nothing).
type batchPlan struct {
	svc     *Service
	store   Store
	account string
	kind    Kind
	langs   Languages
	track   []binding // the TRACK-only bindings of a Resource, in answer order
	ids     map[string]*plannedRecord
	// claims are the aliases records of the batch give or are given, by
	// the record that took one last; held are their holders in the store
	// ("" none).
	claims map[aliasKey]string
	held   map[aliasKey]string
	// storeTop are the highest numbers of alias stems in the store, read
	// once a stem; batchTop those of the aliases the batch's records took.
	storeTop, batchTop map[aliasKey]int64
	// released are the languages in which the batch released an alias
	// (a record deleted, or given another alias); unsure the numbered
	// aliases generated after that, which are guesses.
	released map[string]bool
	unsure   map[aliasKey]bool
}

// plannedRecord is what the batch did so far to one id.
type plannedRecord struct {
	stored    bool              // in the store at submit
	written   bool              // a record of the batch made or changed it
	deleted   bool              // its last record deleted it
	recreated bool              // made again after a delete: holds none of its stored aliases
	given     map[string]string // aliases its records gave or were generated, by language
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

func newBatchPlan(s *Service, account string, kind Kind, codec *Codec) *batchPlan {
	p := &batchPlan{svc: s, store: s.store, account: account, kind: kind, langs: codec.langs,
		ids: map[string]*plannedRecord{}, claims: map[aliasKey]string{}, held: map[aliasKey]string{},
		storeTop: map[aliasKey]int64{}, batchTop: map[aliasKey]int64{}, released: map[string]bool{}, unsure: map[aliasKey]bool{}}
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
// question: which of their ids are stored (for a Resource, the stored
// record, for the TRACK rule), and the holders of the aliases given and
// of the first candidates of those new records will be generated.
func (p *batchPlan) prefetch(ctx context.Context, records []Record) error {
	var fresh []string
	for _, rec := range records {
		if rec == nil || !ValidID(rec.RecordID()) {
			continue
		}
		if id := rec.RecordID(); p.ids[id] == nil && !slices.Contains(fresh, id) {
			fresh = append(fresh, id)
		}
	}
	if len(fresh) > 0 && p.kind == KindResource {
		stored, err := p.store.GetRecords(ctx, p.account, p.kind, fresh)
		if err != nil {
			return err
		}
		for _, e := range stored {
			r := e.Record.(*Resource)
			p.ids[r.ID] = &plannedRecord{stored: true, resourceType: r.ResourceType.Value, valued: p.trackValued(r, nil)}
		}
	} else if len(fresh) > 0 {
		found, err := p.svc.existing(ctx, p.store, p.account, p.kind, fresh)
		if err != nil {
			return err
		}
		for id := range found {
			p.ids[id] = &plannedRecord{stored: true}
		}
	}
	asked := map[aliasKey]bool{}
	byLang := map[string][]string{}
	ask := func(lang, alias string) {
		key := aliasKey{lang, alias}
		if _, ok := p.held[key]; !ok && alias != "" && !asked[key] {
			asked[key] = true
			byLang[lang] = append(byLang[lang], alias)
		}
	}
	for _, rec := range records {
		if rec == nil || !ValidID(rec.RecordID()) {
			continue
		}
		given := *rec.Common().URLAlias
		for lang, alias := range given {
			ask(lang, alias)
		}
		if rec.Common().DeleteIrreversibly.Value || p.ids[rec.RecordID()] != nil {
			continue
		}
		// New: makeAliases's first candidates (aliasBase).
		titles := *rec.Common().Title
		def, ok := given[p.langs.Default]
		if !ok {
			def = aliasBase(titles[p.langs.Default], rec.RecordID(), "", true)
			ask(p.langs.Default, def)
		}
		for _, lang := range p.langs.Others() {
			if _, ok := given[lang]; !ok {
				ask(lang, aliasBase(titles[lang], rec.RecordID(), def, false))
			}
		}
	}
	for lang, aliases := range byLang {
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
// merged record it makes: the TRACK rule, then its aliases; for a delete,
// the records that name it by a single reference, unless the record has
// problems of its own (judged, the delete is not asked, as in Upsert).
func (p *batchPlan) apply(ctx context.Context, rec Record, ownProblems bool) (merged, aliases []fieldProblem, err error) {
	id := rec.RecordID()
	r := p.ids[id]
	if rec.Common().DeleteIrreversibly.Value {
		if r != nil && r.stored && !r.deleted && !r.recreated && !ownProblems {
			if merged, err = p.deleteBlockers(ctx, id); err != nil {
				return nil, nil, err
			}
		}
		if r != nil && (r.stored || len(r.given) > 0) {
			for _, lang := range p.langs.All {
				p.released[lang] = true
			}
		}
		p.ids[id] = &plannedRecord{deleted: true, stored: r != nil && r.stored}
		return merged, nil, nil
	}
	fresh := r == nil || r.deleted
	switch {
	case r == nil: // new
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
	aliases = p.claim(id, r, *rec.Common().URLAlias)
	if fresh {
		generated, err := p.generate(ctx, id, r, rec)
		if err != nil {
			return nil, nil, err
		}
		aliases = append(aliases, generated...)
	}
	return merged, aliases, nil
}

// deleteBlockers are the problems of a batch record deleting id: the
// stored records that name it by a single reference, for which Delete
// refuses it. A referrer of the batch's kind that the batch changed
// before is left to the apply (its reference may be gone by then).
func (p *batchPlan) deleteBlockers(ctx context.Context, id string) ([]fieldProblem, error) {
	refs, err := p.store.Referrers(ctx, p.account, ReferenceTargets(p.kind), id)
	if err != nil {
		return nil, err
	}
	return singleReferrers(refs, p.kind, id, func(ref Reference) bool {
		q := p.ids[ref.FromID]
		return ref.FromKind == p.kind && q != nil && (q.written || q.deleted)
	}), nil
}

// singleReferrers are the problems of deleting id of kind that refs, its
// referrers, make: one a single reference of another record, but those
// skip leaves out.
func singleReferrers(refs []Reference, kind Kind, id string, skip func(Reference) bool) []fieldProblem {
	var problems []fieldProblem
	for _, ref := range refs {
		if !ref.Single || (ref.FromKind == kind && ref.FromID == id) || (skip != nil && skip(ref)) {
			continue
		}
		problems = append(problems, fieldProblem{"deleteElementIrreversibly",
			"named by " + ref.FromKind.Title() + " " + ref.FromID + " in " + ref.Field})
	}
	return problems
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
		if !ok {
			continue
		}
		// What it held in the language before is released.
		if old := r.given[lang]; old != alias && (old != "" || r.stored && !r.recreated && p.held[aliasKey{lang, alias}] != id) {
			p.released[lang] = true
		}
		if alias == "" {
			continue
		}
		key := aliasKey{lang, alias}
		holder := p.holder(key)
		if problem, taken := aliasRule(p.langs, p.kind, id, lang, alias, holder); taken && !(p.unsure[key] && holder == p.claims[key]) {
			problems = append(problems, problem)
		}
		p.take(id, r, key)
		delete(p.unsure, key)
	}
	return problems
}

// take makes record id (r) the holder of an alias.
func (p *batchPlan) take(id string, r *plannedRecord, key aliasKey) {
	if r.given == nil {
		r.given = map[string]string{}
	}
	r.given[key.lang] = key.alias
	p.claims[key] = id
	base, n := SplitAlias(key.alias)
	stem := aliasKey{key.lang, base}
	p.batchTop[stem] = max(p.batchTop[stem], n)
}

// generate gives a new record the aliases makeAliases would, asking the
// plan instead of the store (planAliases), and returns its problems (no
// number left). makeAliases reads the merged record's id, titles and
// aliases only: those are all generate merges, and it leaves rec as it is
// (mergeRecord would take rec's maps, which the worker may upsert later).
// A title "" reads as none, as merged.
func (p *batchPlan) generate(ctx context.Context, id string, r *plannedRecord, rec Record) ([]fieldProblem, error) {
	merged := NewRecord(p.kind)
	c := merged.Common()
	*c.ID, *c.Title, *c.URLAlias = id, *rec.Common().Title, maps.Clone(*rec.Common().URLAlias)
	view := &planAliases{upsertStore: p.store, plan: p, numbered: map[string]bool{}}
	err := p.svc.makeAliases(ctx, view, Principal{Account: p.account, Langs: p.langs}, merged, rec)
	var problems []fieldProblem
	if e, ok := errors.AsType[*Error](err); ok && e.Code == CodeInvalid {
		for _, pr := range e.Problems {
			problems = append(problems, fieldProblem{pr.Field, pr.Text})
		}
	} else if err != nil {
		return nil, err
	}
	given := *rec.Common().URLAlias
	for _, lang := range p.langs.All {
		alias := (*merged.Common().URLAlias)[lang]
		if _, ok := given[lang]; ok || alias == "" {
			continue
		}
		key := aliasKey{lang, alias}
		p.take(id, r, key)
		if view.numbered[lang] && p.released[lang] {
			p.unsure[key] = true
		} else {
			delete(p.unsure, key)
		}
	}
	return problems, nil
}

// planAliases answers makeAliases at submit: an alias's holder and a
// stem's highest number as the batch's records before leave them. The
// rest it asks goes to the store. It writes nothing, locks nothing.
type planAliases struct {
	upsertStore
	plan     *batchPlan
	numbered map[string]bool // languages it gave numbers in
}

func (v *planAliases) LockAlias(context.Context, string, Kind, string, string) error { return nil }

func (v *planAliases) AliasHolder(ctx context.Context, account string, kind Kind, lang, alias string) (string, error) {
	key := aliasKey{lang, alias}
	if _, ok := v.plan.held[key]; !ok { // not prefetched: a title's slug seen first here
		holder, err := v.plan.store.AliasHolder(ctx, account, kind, lang, alias)
		if err != nil && ErrorCode(err) != CodeNotFound {
			return "", err
		}
		v.plan.held[key] = holder
	}
	if holder := v.plan.holder(key); holder != "" {
		return holder, nil
	}
	return "", &Error{Code: CodeNotFound, Message: "alias not held"}
}

// AliasNumbers leaves out none (q.Skip): makeAliases skips none.
func (v *planAliases) AliasNumbers(ctx context.Context, q AliasNumberParams) (map[string]int64, error) {
	v.numbered[q.Lang] = true
	if q.Below > 0 {
		return v.numbersBelow(ctx, q)
	}
	var ask []string
	for _, base := range q.Bases {
		if _, ok := v.plan.storeTop[aliasKey{q.Lang, base}]; !ok {
			ask = append(ask, base)
		}
	}
	if len(ask) > 0 {
		top, err := v.plan.store.AliasNumbers(ctx, AliasNumberParams{Account: q.Account, Kind: q.Kind, Lang: q.Lang, Bases: ask})
		if err != nil {
			return nil, err
		}
		for _, base := range ask {
			v.plan.storeTop[aliasKey{q.Lang, base}] = top[base]
		}
	}
	out := map[string]int64{}
	for _, base := range q.Bases {
		key := aliasKey{q.Lang, base}
		if n := max(v.plan.storeTop[key], v.plan.batchTop[key]); n > 0 {
			out[base] = n
		}
	}
	return out, nil
}

// numbersBelow answers AliasNumbers with Below (rare: only under an alias
// given by hand with the highest number there is): the highest number
// below it held in the store or claimed by the batch's records so far.
func (v *planAliases) numbersBelow(ctx context.Context, q AliasNumberParams) (map[string]int64, error) {
	out, err := v.plan.store.AliasNumbers(ctx, q)
	if err != nil {
		return nil, err
	}
	bases := make(map[string]bool, len(q.Bases))
	for _, base := range q.Bases {
		bases[base] = true
	}
	for key, id := range v.plan.claims {
		if key.lang != q.Lang || id == "" {
			continue
		}
		base, n := SplitAlias(key.alias)
		if bases[base] && n < q.Below && n > out[base] && v.plan.holder(key) == id {
			out[base] = n
		}
	}
	return out, nil
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
