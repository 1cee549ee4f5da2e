package cms

import (
	"cmp"
	"context"
	"maps"
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
// has ended (settle): one transaction runs one statement at a time.
//
// bulkTx is no Store: it holds the transaction as tx and answers exactly
// upsertStore, the methods upsertIn and its checks ask, each from the
// views or after settle. The compiler rejects any other use of it as a
// store; bulkTx's own code reaches tx only when no write is in flight
// (after settle, or before beginChunk starts one), and a batch's delete
// gets tx itself once flush has stored and forgotten the views.
type bulkTx struct {
	tx      Store // the batch's transaction
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
	return &bulkTx{tx: tx, doc: doc, account: account, kind: kind, cur: newView(),
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
	if err := b.tx.PutRecords(ctx, v.kept); err != nil {
		return err
	}
	var fresh []AssignmentList
	appendFresh := func() error {
		err := b.tx.AppendAssignments(ctx, b.account, b.kind, fresh)
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
		if err := a.write(b.tx); err != nil {
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
		if err := b.tx.TouchRecord(ctx, b.account, k.kind, k.id, b.touched[k]); err != nil {
			return err
		}
	}
	clear(b.touched)
	return nil
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
	b.cur.held[id] = maps.Clone(*e.Record.Common().URLAlias)
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
