package cms

import (
	"context"
	"maps"
	"reflect"
	"time"
)

// bulkChunk is how many records of a batch are read and written together.
const bulkChunk = 256

// bulkTx is the store a batch's records are upserted through. upsertIn
// asks it the questions of one record at a time, as for a single upsert;
// it answers them from what it fetched for a whole chunk of records in a
// few set queries (prefetch) and from the writes it keeps, and stores
// those in one PutRecords (flush). So the business rules stay in upsertIn
// while a chunk costs a handful of statements instead of about ten per
// record. Its view is the store's plus its kept writes, which holds only
// while every write of the batch's kind goes through it: anything else
// flushes first.
type bulkTx struct {
	Store   // the batch's transaction
	account string
	kind    Kind
	// entries are the chunk's records by id as they stand now (nil: no
	// record); a kept write replaces its entry.
	entries map[string]*Entry
	// held are the aliases each entry held in the store when fetched.
	held map[string]Langs[string]
	// holders answers AliasHolder by language and alias ("": free).
	holders map[aliasKey]string
	// known answers ExistingIDs of other kinds.
	known map[Kind]map[string]bool
	// kept are the writes to flush, in order; keptAt indexes them by id.
	kept   []*Entry
	keptAt map[string]int
}

type aliasKey struct{ lang, alias string }

func newBulkTx(tx Store, account string, kind Kind) *bulkTx {
	b := &bulkTx{Store: tx, account: account, kind: kind}
	b.reset()
	return b
}

func (b *bulkTx) reset() {
	b.entries = map[string]*Entry{}
	b.held = map[string]Langs[string]{}
	b.holders = map[aliasKey]string{}
	b.known = map[Kind]map[string]bool{}
	b.kept = nil
	b.keptAt = map[string]int{}
}

// prefetch reads, in a few queries, what upserting patches will ask: the
// stored records of their ids, the ids their references name, and the
// holders of the aliases they give or will be given.
func (b *bulkTx) prefetch(ctx context.Context, s *Service, langs Languages, patches []Record) error {
	var ids []string
	for _, p := range patches {
		if _, ok := b.entries[p.RecordID()]; !ok {
			ids = append(ids, p.RecordID())
		}
	}
	if len(ids) > 0 {
		found, err := b.Store.GetRecords(ctx, b.account, b.kind, ids)
		if err != nil {
			return err
		}
		for _, id := range ids {
			b.entries[id] = nil
		}
		for _, e := range found {
			b.entries[e.Record.RecordID()] = e
			b.held[e.Record.RecordID()] = maps.Clone(*aliasesOf(e.Record))
		}
	}
	var uses []refUse
	for _, p := range patches {
		uses = refUses(s.doc.kinds[b.kind].spec, reflect.ValueOf(p).Elem(), "", uses)
	}
	wanted := map[Kind][]string{}
	for _, u := range uses {
		for _, k := range refKinds(u.toKind) {
			if _, ok := b.known[k][u.id]; !ok && (k != b.kind || !b.has(u.id)) {
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
	byLang := map[string][]string{}
	for _, p := range patches {
		given := *aliasesOf(p)
		for lang, alias := range given {
			if alias != "" {
				byLang[lang] = append(byLang[lang], alias)
			}
		}
		if b.entries[p.RecordID()] != nil {
			continue
		}
		// A new record is given the alias of its title where it has none.
		titles := titlesOf(p)
		for _, lang := range langs.All {
			if _, ok := given[lang]; ok {
				continue
			}
			if slug := Slug(titles[lang]); slug != "" {
				byLang[lang] = append(byLang[lang], AliasFromSlug(slug))
			} else if lang == langs.Default {
				byLang[lang] = append(byLang[lang], AliasFromSlug(Slug(p.RecordID())))
			}
		}
	}
	for lang, aliases := range byLang {
		held, err := b.Store.AliasHolders(ctx, b.account, b.kind, lang, aliases)
		if err != nil {
			return err
		}
		for _, alias := range aliases {
			if _, ok := b.holders[aliasKey{lang, alias}]; !ok {
				b.holders[aliasKey{lang, alias}] = held[alias]
			}
		}
	}
	return nil
}

// has tells whether the chunk knows id of the batch's kind as a record.
func (b *bulkTx) has(id string) bool {
	e, ok := b.entries[id]
	return ok && e != nil
}

func (b *bulkTx) learn(kind Kind, ids []string, found map[string]bool) {
	if b.known[kind] == nil {
		b.known[kind] = map[string]bool{}
	}
	for _, id := range ids {
		b.known[kind][id] = found[id]
	}
}

// flush writes the kept records and forgets what the chunk knew: the
// store holds it now.
func (b *bulkTx) flush(ctx context.Context) error {
	if err := b.Store.PutRecords(ctx, b.kept); err != nil {
		return err
	}
	b.reset()
	return nil
}

func (b *bulkTx) mine(account string, kind Kind) bool {
	return account == b.account && kind == b.kind
}

// GetRecord answers from the chunk's records.
func (b *bulkTx) GetRecord(ctx context.Context, account string, kind Kind, id string) (*Entry, error) {
	if b.mine(account, kind) {
		if e, ok := b.entries[id]; ok {
			if e == nil {
				return nil, &Error{Code: CodeNotFound, Message: kind.Title() + " " + id + " not found"}
			}
			return e, nil
		}
	}
	e, err := b.Store.GetRecord(ctx, account, kind, id)
	switch {
	case !b.mine(account, kind):
	case err == nil:
		b.entries[id] = e
		b.held[id] = maps.Clone(*aliasesOf(e.Record))
	case ErrorCode(err) == CodeNotFound:
		b.entries[id] = nil
	}
	return e, err
}

// PutRecord keeps e for the flush and updates the view.
func (b *bulkTx) PutRecord(ctx context.Context, e *Entry) error {
	if !b.mine(e.Account, e.Record.Kind()) {
		return b.Store.PutRecord(ctx, e)
	}
	id := e.Record.RecordID()
	// The aliases id held are free now, whether or not the view knew them:
	// the store would still name id.
	for lang, alias := range b.held[id] {
		if holder, ok := b.holders[aliasKey{lang, alias}]; !ok || holder == id {
			b.holders[aliasKey{lang, alias}] = ""
		}
	}
	for lang, alias := range *aliasesOf(e.Record) {
		if alias != "" {
			b.holders[aliasKey{lang, alias}] = id
		}
	}
	b.entries[id] = e
	if i, ok := b.keptAt[id]; ok {
		b.kept[i] = e
	} else {
		b.keptAt[id] = len(b.kept)
		b.kept = append(b.kept, e)
	}
	b.held[id] = maps.Clone(*aliasesOf(e.Record))
	return nil
}

// AliasHolder answers from the view, asking the store what it does not
// know.
func (b *bulkTx) AliasHolder(ctx context.Context, account string, kind Kind, lang, alias string) (string, error) {
	if !b.mine(account, kind) {
		return b.Store.AliasHolder(ctx, account, kind, lang, alias)
	}
	key := aliasKey{lang, alias}
	holder, ok := b.holders[key]
	if !ok {
		var err error
		holder, err = b.Store.AliasHolder(ctx, account, kind, lang, alias)
		switch {
		case ErrorCode(err) == CodeNotFound:
			holder = ""
		case err != nil:
			return "", err
		}
		b.holders[key] = holder
	}
	if holder == "" {
		return "", &Error{Code: CodeNotFound, Message: "urlAlias " + alias + " not found"}
	}
	return holder, nil
}

// ExistingIDs answers from the view, asking the store what it does not
// know.
func (b *bulkTx) ExistingIDs(ctx context.Context, account string, kind Kind, ids []string) ([]string, error) {
	if account != b.account {
		return b.Store.ExistingIDs(ctx, account, kind, ids)
	}
	var found, ask []string
	for _, id := range ids {
		if kind == b.kind {
			if e, ok := b.entries[id]; ok {
				if e != nil {
					found = append(found, id)
				}
				continue
			}
		}
		if exists, ok := b.known[kind][id]; ok {
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

// TouchRecord of the batch's kind would change a record the view may
// hold: the view is written first and forgotten.
func (b *bulkTx) TouchRecord(ctx context.Context, account string, kind Kind, id string, at time.Time) error {
	if b.mine(account, kind) {
		if err := b.flush(ctx); err != nil {
			return err
		}
	}
	return b.Store.TouchRecord(ctx, account, kind, id, at)
}

// WithTx runs fn on the view: it is already in the transaction.
func (b *bulkTx) WithTx(ctx context.Context, fn func(tx Store) error) error {
	return fn(b)
}
