package cms

import (
	"cmp"
	"context"
	"maps"
	"reflect"
	"slices"
	"time"
)

// bulkChunk is how many records of a batch are read and written together.
const bulkChunk = 256

// bulkTx is the store a batch's records are upserted through. upsertIn
// asks it the questions of one record at a time, as for a single upsert;
// it answers them from what it fetched for a whole chunk of records in a
// few set queries and from the writes it keeps, and stores those in one
// PutRecords. So the business rules stay in upsertIn while a chunk costs a
// handful of statements instead of about ten per record.
//
// Two views overlay the store: cur, the chunk being upserted, and prev,
// the chunk before it, whose writes go to the store on another goroutine
// meanwhile (so storing one chunk overlaps the work of the next). The
// store is asked only what neither view knows, and only once that write
// has ended (settle): one transaction runs one statement at a time. This
// holds while every write of the batch's kind goes through bulkTx and
// every other use of the store settles first.
type bulkTx struct {
	Store   // the batch's transaction
	doc     *Codec
	account string
	kind    Kind
	cur     *view
	prev    *view      // nil when none
	writing chan error // the write of prev, nil when none runs
	// touched are records of other kinds whose timeLastUpdate the batch
	// moved, stored once each at the latest instant when the views are
	// flushed: a Map given 10,000 new Resources is touched once, not
	// 10,000 times (on PostgreSQL each touch left a row version behind).
	touched map[touchKey]time.Time
	// assignedOwners are the batch's records that have, or may have,
	// assignments in the store: the others' lists are appended in sets.
	assignedOwners map[string]bool
	// numbers are the highest numbers of alias stems by language and stem
	// (aliasKey with the stem as alias), as the views see them, for the
	// stems asked: raised by every alias the batch writes, forgotten when
	// one that held the highest is released (or the views are flushed).
	numbers map[aliasKey]int64
	buf     []byte // marshalling buffer of endChunk
}

type touchKey struct {
	kind Kind
	id   string
}

// view is what the batch knows beyond the store's committed rows.
type view struct {
	// entries are records by id as they stand now (nil: no record).
	entries map[string]*Entry
	// held are the aliases each entry holds in the store's rows, as of
	// the view before (a write releases them).
	held map[string]Langs[string]
	// holders answers AliasHolder by language and alias ("": free).
	holders map[aliasKey]string
	// stems lists the numbers of the aliases in holders by language and
	// base (SplitAlias), so a stem's highest number can be asked of the
	// store leaving out the ones the view released.
	stems map[aliasKey][]int64
	// known answers ExistingIDs of other kinds.
	known map[Kind]map[string]bool
	// kept are the writes to store, in order; keptAt indexes them by id.
	kept   []*Entry
	keptAt map[string]int
	// assigned are the assignment writes of the view's records, in order,
	// stored after them. A batch of one kind reads no assignment list but
	// its own records' (which the view holds), so they can wait.
	assigned []assignment
}

// assignment is one assignment write: the list of a record that had none
// (stored with the others next to it in one AppendAssignments), or any
// other.
type assignment struct {
	fresh *AssignmentList
	write func(Store) error
}

type aliasKey struct{ lang, alias string }

func newView() *view {
	return &view{entries: map[string]*Entry{}, held: map[string]Langs[string]{},
		holders: map[aliasKey]string{}, stems: map[aliasKey][]int64{}, known: map[Kind]map[string]bool{}, keptAt: map[string]int{}}
}

// setHolder records who holds an alias ("": nobody).
func (v *view) setHolder(key aliasKey, id string) {
	if _, ok := v.holders[key]; !ok {
		base, n := SplitAlias(key.alias)
		stem := aliasKey{key.lang, base}
		v.stems[stem] = append(v.stems[stem], n)
	}
	v.holders[key] = id
}

func newBulkTx(tx Store, doc *Codec, account string, kind Kind) *bulkTx {
	return &bulkTx{Store: tx, doc: doc, account: account, kind: kind, cur: newView(),
		touched: map[touchKey]time.Time{}, assignedOwners: map[string]bool{}, numbers: map[aliasKey]int64{}}
}

// beginChunk starts a chunk of patches: the previous chunk's view becomes
// prev, what the chunk will ask is read in a few queries, and prev's
// writes start on their own goroutine. Call endChunk after the chunk.
func (b *bulkTx) beginChunk(ctx context.Context, s *Service, langs Languages, patches []Record) error {
	if err := b.settle(); err != nil {
		return err
	}
	b.prev, b.cur = b.cur, newView()
	if err := b.prefetch(ctx, s, langs, patches); err != nil {
		return err
	}
	if prev := b.prev; len(prev.kept) > 0 || len(prev.assigned) > 0 {
		b.writing = make(chan error, 1)
		go func() {
			defer func() {
				if v := recover(); v != nil { // this goroutine has no caller to recover it
					b.writing <- panicError(v)
				}
			}()
			b.writing <- b.store(ctx, prev)
		}()
	}
	return nil
}

// store writes a view's records, then its assignments in order: the lists
// of records that had none in sets, the others one by one.
func (b *bulkTx) store(ctx context.Context, v *view) error {
	if err := b.Store.PutRecords(ctx, v.kept); err != nil {
		return err
	}
	var fresh []AssignmentList
	appendFresh := func() error {
		err := b.Store.AppendAssignments(ctx, b.account, b.kind, fresh)
		fresh = fresh[:0]
		return err
	}
	for _, a := range v.assigned {
		if a.fresh != nil {
			fresh = append(fresh, *a.fresh)
			continue
		}
		if err := appendFresh(); err != nil {
			return err
		}
		if err := a.write(b.Store); err != nil {
			return err
		}
	}
	return appendFresh()
}

// endChunk marshals the chunk's records that hold no document yet (an
// update holds the one it compared) while the previous chunk's writes
// run (the writing goroutine then only writes), waits for those writes and
// forgets their view: the store holds it now. The chunk's records change
// no more: a later chunk upserts a copy (copyEntry).
func (b *bulkTx) endChunk() error {
	for _, e := range b.cur.kept {
		if e.Document != "" { // upsertIn's, compared for Skip
			continue
		}
		b.buf = b.doc.Append(b.buf[:0], e.Record)
		e.Document = string(b.buf)
	}
	return b.settle()
}

// settle waits for a write in flight, then drops the view it wrote.
func (b *bulkTx) settle() error {
	var err error
	if b.writing != nil {
		err = <-b.writing
		b.writing = nil
	}
	b.prev = nil
	return err
}

// flush stores every kept write now and forgets both views.
func (b *bulkTx) flush(ctx context.Context) error {
	if err := b.settle(); err != nil {
		return err
	}
	if err := b.store(ctx, b.cur); err != nil {
		return err
	}
	b.cur = newView()
	clear(b.numbers) // the store answers exactly now
	return b.touch(ctx)
}

// touch stores the touches kept, in a fixed order.
func (b *bulkTx) touch(ctx context.Context) error {
	keys := slices.SortedFunc(maps.Keys(b.touched), func(x, y touchKey) int {
		return cmp.Or(cmp.Compare(x.kind, y.kind), cmp.Compare(x.id, y.id))
	})
	for _, k := range keys {
		if err := b.Store.TouchRecord(ctx, b.account, k.kind, k.id, b.touched[k]); err != nil {
			return err
		}
	}
	clear(b.touched)
	return nil
}

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
		found, err := b.Store.GetRecords(ctx, b.account, b.kind, ids)
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
		found, err := s.existing(ctx, b.Store, b.account, k, ids)
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
		for lang, alias := range *aliasesOf(p) {
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
		given, titles := *aliasesOf(p), titlesOf(p)
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
			guesses[i] = (*aliasesOf(p))[langs[0]]
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
		held, err := b.Store.AliasHolders(ctx, b.account, b.kind, lang, aliases)
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
		held, skip := b.viewNumbers(key)
		viewed[stem] = held
		if len(skip) == 0 {
			plain = append(plain, stem)
			continue
		}
		top, err := b.Store.AliasNumbers(ctx, AliasNumberParams{Account: b.account, Kind: b.kind, Lang: lang,
			Bases: []string{stem}, Skip: skip})
		if err != nil {
			return err
		}
		b.numbers[key] = max(top[stem], held)
	}
	if len(plain) == 0 {
		return nil
	}
	top, err := b.Store.AliasNumbers(ctx, AliasNumberParams{Account: b.account, Kind: b.kind, Lang: lang, Bases: plain})
	if err != nil {
		return err
	}
	for _, stem := range plain {
		b.numbers[aliasKey{lang, stem}] = max(top[stem], viewed[stem])
	}
	return nil
}

// viewNumbers returns the highest number of stem (language and base)
// the views hold, and the numbers they released.
func (b *bulkTx) viewNumbers(stem aliasKey) (held int64, released []int64) {
	for _, v := range []*view{b.cur, b.prev} {
		if v == nil {
			continue
		}
		for _, n := range v.stems[stem] {
			if holder, _ := b.holder(aliasKey{stem.lang, numberedAlias(stem.alias, n)}); holder != "" {
				held = max(held, n)
			} else {
				released = append(released, n)
			}
		}
	}
	return held, released
}

// entry returns the record of id the views know, and whether they know.
func (b *bulkTx) entry(id string) (*Entry, bool) {
	if e, ok := b.cur.entries[id]; ok {
		return e, true
	}
	if b.prev != nil {
		e, ok := b.prev.entries[id]
		return e, ok
	}
	return nil, false
}

// heldBy returns the aliases id holds in the store's rows as the views
// see them.
func (b *bulkTx) heldBy(id string) Langs[string] {
	if h, ok := b.cur.held[id]; ok {
		return h
	}
	if b.prev != nil {
		return b.prev.held[id]
	}
	return nil
}

// holder returns who holds an alias as the views see it ("": nobody), and
// whether they know.
func (b *bulkTx) holder(key aliasKey) (string, bool) {
	if h, ok := b.cur.holders[key]; ok {
		return h, true
	}
	if b.prev != nil {
		h, ok := b.prev.holders[key]
		return h, ok
	}
	return "", false
}

// exists tells whether id of kind exists as the views see it, and
// whether they know.
func (b *bulkTx) exists(kind Kind, id string) (bool, bool) {
	if kind == b.kind {
		if e, ok := b.entry(id); ok {
			return e != nil, true
		}
	}
	for _, v := range []*view{b.cur, b.prev} {
		if v != nil {
			if found, ok := v.known[kind][id]; ok {
				return found, true
			}
		}
	}
	return false, false
}

// remember puts a record read from the store into the current view.
func (b *bulkTx) remember(e *Entry) {
	id := e.Record.RecordID()
	b.cur.entries[id] = e
	b.cur.held[id] = maps.Clone(*aliasesOf(e.Record))
	b.noteAssignments(e.Record)
}

// noteAssignments marks a record of the batch that has assignments (as
// read, or as just written).
func (b *bulkTx) noteAssignments(rec Record) {
	for _, ids := range assignedLists(rec) {
		if len(ids) > 0 {
			b.assignedOwners[rec.RecordID()] = true
		}
	}
}

func (b *bulkTx) learn(kind Kind, ids []string, found map[string]bool) {
	if b.cur.known[kind] == nil {
		b.cur.known[kind] = map[string]bool{}
	}
	for _, id := range ids {
		b.cur.known[kind][id] = found[id]
	}
}

func (b *bulkTx) mine(account string, kind Kind) bool {
	return account == b.account && kind == b.kind
}

// GetRecord answers from the views. A record of the previous chunk is
// being written from: the caller, who may change it, gets a copy.
func (b *bulkTx) GetRecord(ctx context.Context, account string, kind Kind, id string) (*Entry, error) {
	if b.mine(account, kind) {
		if e, ok := b.cur.entries[id]; ok {
			if e == nil {
				return nil, &Error{Code: CodeNotFound, Message: kind.Title() + " " + id + " not found"}
			}
			return e, nil
		}
		if e, ok := b.entry(id); ok {
			if e == nil {
				return nil, &Error{Code: CodeNotFound, Message: kind.Title() + " " + id + " not found"}
			}
			c, err := b.copyEntry(e)
			if err != nil {
				return nil, err
			}
			b.cur.entries[id] = c
			b.cur.held[id] = maps.Clone(b.heldBy(id))
			return c, nil
		}
	}
	if err := b.settle(); err != nil {
		return nil, err
	}
	if !b.mine(account, kind) {
		if err := b.touch(ctx); err != nil { // it may read one
			return nil, err
		}
	}
	e, err := b.Store.GetRecord(ctx, account, kind, id)
	switch {
	case !b.mine(account, kind):
	case err == nil:
		b.remember(e)
	case ErrorCode(err) == CodeNotFound:
		b.cur.entries[id] = nil
	}
	return e, err
}

// copyEntry is a deep copy of e: its document through the storage codec,
// its assignment lists beside.
func (b *bulkTx) copyEntry(e *Entry) (*Entry, error) {
	rec := NewRecord(e.Record.Kind())
	doc := []byte(e.Document)
	if len(doc) == 0 {
		doc = b.doc.Marshal(e.Record)
	}
	if err := b.doc.Decode(doc, rec); err != nil {
		return nil, &Error{Code: CodeInternal, Message: "copying a record", Err: err}
	}
	lists := assignedLists(e.Record)
	for role, ids := range lists {
		lists[role] = slices.Clone(ids)
	}
	SetAssignmentLists(rec, lists[RolePrimary], lists[RoleSecondary])
	c := *e
	// The previous chunk's write stores e: the copy has a row.
	c.Record, c.Document, c.New, c.Indexed = rec, "", false, nil
	return &c, nil
}

// PutRecord keeps e for the chunk's write and updates the view.
func (b *bulkTx) PutRecord(ctx context.Context, e *Entry) error {
	if !b.mine(e.Account, e.Record.Kind()) {
		if err := b.settle(); err != nil {
			return err
		}
		return b.Store.PutRecord(ctx, e)
	}
	id := e.Record.RecordID()
	aliases := *aliasesOf(e.Record)
	// The aliases id held are free now, whether or not the view knew them:
	// the store would still name id.
	for lang, alias := range b.heldBy(id) {
		key := aliasKey{lang, alias}
		if holder, ok := b.holder(key); !ok || holder == id {
			b.cur.setHolder(key, "")
			if aliases[lang] != alias {
				b.releaseNumber(key)
			}
		}
	}
	for lang, alias := range aliases {
		if alias != "" {
			b.cur.setHolder(aliasKey{lang, alias}, id)
			base, n := SplitAlias(alias)
			if top, ok := b.numbers[aliasKey{lang, base}]; ok && n > top {
				b.numbers[aliasKey{lang, base}] = n
			}
		}
	}
	// The chunk is written as one set, its records' aliases and
	// references released whole: an index read from the view may not be
	// the store's yet.
	e.Indexed = nil
	b.cur.entries[id] = e
	b.cur.held[id] = maps.Clone(aliases)
	b.noteAssignments(e.Record)
	if i, ok := b.cur.keptAt[id]; ok {
		b.cur.kept[i] = e
	} else {
		b.cur.keptAt[id] = len(b.cur.kept)
		b.cur.kept = append(b.cur.kept, e)
	}
	return nil
}

// releaseNumber forgets the highest number of an alias's stem when the
// alias, now released, held it: the next question asks the store again.
func (b *bulkTx) releaseNumber(key aliasKey) {
	base, n := SplitAlias(key.alias)
	if top, ok := b.numbers[aliasKey{key.lang, base}]; ok && top == n {
		delete(b.numbers, aliasKey{key.lang, base})
	}
}

// AliasNumbers answers from what the batch learnt, asking the store
// (learnNumbers) what it does not know. Its callers pass no Skip.
func (b *bulkTx) AliasNumbers(ctx context.Context, p AliasNumberParams) (map[string]int64, error) {
	if !b.mine(p.Account, p.Kind) || len(p.Skip) > 0 {
		if err := b.settle(); err != nil {
			return nil, err
		}
		return b.Store.AliasNumbers(ctx, p)
	}
	var ask []string
	for _, base := range p.Bases {
		if _, ok := b.numbers[aliasKey{p.Lang, base}]; !ok {
			ask = append(ask, base)
		}
	}
	if len(ask) > 0 {
		if err := b.settle(); err != nil {
			return nil, err
		}
		if err := b.learnNumbers(ctx, p.Lang, ask); err != nil {
			return nil, err
		}
	}
	top := map[string]int64{}
	for _, base := range p.Bases {
		if n := b.numbers[aliasKey{p.Lang, base}]; n > 0 {
			top[base] = n
		}
	}
	return top, nil
}

// LockAlias holds nothing for the batch's kind: the batch holds the kind
// (LockKind), so no other transaction makes records of it meanwhile.
func (b *bulkTx) LockAlias(ctx context.Context, account string, kind Kind, lang, base string) error {
	if b.mine(account, kind) {
		return nil
	}
	if err := b.settle(); err != nil {
		return err
	}
	return b.Store.LockAlias(ctx, account, kind, lang, base)
}

// AliasHolder answers from the views, asking the store what they do not
// know.
func (b *bulkTx) AliasHolder(ctx context.Context, account string, kind Kind, lang, alias string) (string, error) {
	if !b.mine(account, kind) {
		if err := b.settle(); err != nil {
			return "", err
		}
		return b.Store.AliasHolder(ctx, account, kind, lang, alias)
	}
	key := aliasKey{lang, alias}
	holder, ok := b.holder(key)
	if !ok {
		if err := b.settle(); err != nil {
			return "", err
		}
		var err error
		holder, err = b.Store.AliasHolder(ctx, account, kind, lang, alias)
		switch {
		case ErrorCode(err) == CodeNotFound:
			holder = ""
		case err != nil:
			return "", err
		}
		b.cur.setHolder(key, holder)
	}
	if holder == "" {
		return "", &Error{Code: CodeNotFound, Message: "urlAlias " + alias + " not found"}
	}
	return holder, nil
}

// ExistingIDs answers from the views, asking the store what they do not
// know.
func (b *bulkTx) ExistingIDs(ctx context.Context, account string, kind Kind, ids []string) ([]string, error) {
	if account != b.account {
		if err := b.settle(); err != nil {
			return nil, err
		}
		return b.Store.ExistingIDs(ctx, account, kind, ids)
	}
	var found, ask []string
	for _, id := range ids {
		if exists, ok := b.exists(kind, id); ok {
			if exists {
				found = append(found, id)
			}
			continue
		}
		ask = append(ask, id)
	}
	if len(ask) == 0 {
		return found, nil
	}
	if err := b.settle(); err != nil {
		return nil, err
	}
	got, err := b.Store.ExistingIDs(ctx, account, kind, ask)
	if err != nil {
		return nil, err
	}
	exists := make(map[string]bool, len(got))
	for _, id := range got {
		exists[id] = true
	}
	if kind != b.kind {
		b.learn(kind, ask, exists)
	}
	return append(found, got...), nil
}

// TouchRecord of another kind is kept for the flush. Of the batch's kind
// it would change a record the views may hold: they are written first and
// forgotten.
func (b *bulkTx) TouchRecord(ctx context.Context, account string, kind Kind, id string, at time.Time) error {
	if account == b.account && kind != b.kind {
		if k := (touchKey{kind, id}); at.After(b.touched[k]) {
			b.touched[k] = at
		}
		return nil
	}
	var err error
	if b.mine(account, kind) {
		err = b.flush(ctx)
	} else {
		err = b.settle()
	}
	if err != nil {
		return err
	}
	return b.Store.TouchRecord(ctx, account, kind, id, at)
}

// SetMapResources is kept for the view's write.
func (b *bulkTx) SetMapResources(ctx context.Context, account, mapID string, role Role, resourceIDs []string) error {
	resourceIDs = slices.Clone(resourceIDs)
	return b.assign(account, KindMap, AssignmentList{Owner: mapID, Role: role, IDs: resourceIDs},
		func(st Store) error { return st.SetMapResources(ctx, account, mapID, role, resourceIDs) })
}

// SetResourceMaps is kept for the view's write.
func (b *bulkTx) SetResourceMaps(ctx context.Context, account, resourceID string, role Role, mapIDs []string) error {
	mapIDs = slices.Clone(mapIDs)
	return b.assign(account, KindResource, AssignmentList{Owner: resourceID, Role: role, IDs: mapIDs},
		func(st Store) error { return st.SetResourceMaps(ctx, account, resourceID, role, mapIDs) })
}

// AppendAssignments is kept for the view's write, list by list, as the
// Set* calls it stands for: the view decides which lists are appended.
func (b *bulkTx) AppendAssignments(ctx context.Context, account string, owners Kind, lists []AssignmentList) error {
	for _, l := range lists {
		var err error
		if owners == KindMap {
			err = b.SetMapResources(ctx, account, l.Owner, l.Role, l.IDs)
		} else {
			err = b.SetResourceMaps(ctx, account, l.Owner, l.Role, l.IDs)
		}
		if err != nil {
			return err
		}
	}
	return nil
}

// assign keeps an assignment write of a record of owners. A record that
// has no assignment in the store gets its lists appended in a set: the
// one or two lists (one a role, apart) of its upsert, which PutRecord
// follows.
func (b *bulkTx) assign(account string, owners Kind, list AssignmentList, write func(Store) error) error {
	if account != b.account {
		if err := b.settle(); err != nil {
			return err
		}
		return write(b.Store)
	}
	a := assignment{write: write}
	if owners == b.kind && !b.assignedOwners[list.Owner] {
		a.fresh = &list
	}
	b.cur.assigned = append(b.cur.assigned, a)
	return nil
}

// WithTx runs fn on the view: it is already in the transaction.
func (b *bulkTx) WithTx(ctx context.Context, fn func(tx Store) error) error {
	return fn(b)
}
