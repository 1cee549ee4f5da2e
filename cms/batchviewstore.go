package cms

import (
	"context"
	"maps"
	"slices"
	"time"
)

// bulkTx answers upsertIn's questions, and only those: the upsertStore
// methods below, each from the views or after settle.
var _ upsertStore = (*bulkTx)(nil)

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
	e, err := b.tx.GetRecord(ctx, account, kind, id)
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
		return b.tx.PutRecord(ctx, e)
	}
	id := e.Record.RecordID()
	aliases := *e.Record.Common().URLAlias
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
		return b.tx.AliasNumbers(ctx, p)
	}
	if p.Below > 0 {
		return b.numbersBelow(ctx, p)
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

// numbersBelow answers AliasNumbers with Below (rare: only below an
// alias given by hand with the highest number), not kept: the store's
// numbers below, leaving out those the views released, raised by those
// below that they hold.
func (b *bulkTx) numbersBelow(ctx context.Context, p AliasNumberParams) (map[string]int64, error) {
	if err := b.settle(); err != nil {
		return nil, err
	}
	top := map[string]int64{}
	for _, base := range Dedupe(p.Bases) {
		held, released := b.viewNumbers(aliasKey{p.Lang, base}, p.Below)
		q := p
		q.Bases, q.Skip = []string{base}, released
		stored, err := b.tx.AliasNumbers(ctx, q)
		if err != nil {
			return nil, err
		}
		if n := max(stored[base], held); n > 0 {
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
	return b.tx.LockAlias(ctx, account, kind, lang, base)
}

// AliasHolder answers from the views, asking the store what they do not
// know.
func (b *bulkTx) AliasHolder(ctx context.Context, account string, kind Kind, lang, alias string) (string, error) {
	if !b.mine(account, kind) {
		if err := b.settle(); err != nil {
			return "", err
		}
		return b.tx.AliasHolder(ctx, account, kind, lang, alias)
	}
	key := aliasKey{lang, alias}
	holder, ok := b.holder(key)
	if !ok {
		if err := b.settle(); err != nil {
			return "", err
		}
		var err error
		holder, err = b.tx.AliasHolder(ctx, account, kind, lang, alias)
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
		return b.tx.ExistingIDs(ctx, account, kind, ids)
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
	got, err := b.tx.ExistingIDs(ctx, account, kind, ask)
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
	return b.tx.TouchRecord(ctx, account, kind, id, at)
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
		return write(b.tx)
	}
	a := assignment{write: write}
	if owners == b.kind && !b.assignedOwners[list.Owner] {
		a.fresh = &list
	}
	b.cur.assigned = append(b.cur.assigned, a)
	return nil
}

// GetFiles reads the store: a batch writes no files. The write of the
// chunk before ends first (it uses the transaction).
func (b *bulkTx) GetFiles(ctx context.Context, account string, ids []string) ([]File, error) {
	if err := b.settle(); err != nil {
		return nil, err
	}
	return b.tx.GetFiles(ctx, account, ids)
}
