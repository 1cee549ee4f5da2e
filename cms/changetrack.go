package cms

import (
	"context"
	"slices"
	"sync"
	"time"
)

// changeTracker is a write transaction that notes every record it puts,
// touches or deletes, so that the transaction's tail writes one change
// record per record (DECISIONS §18): every write of records goes through
// a tracked transaction (inTx, a batch's), so no path of the service can
// change a record without its change. Writes of a batch run on two
// goroutines, hence the mutex.
type changeTracker struct {
	Store   // the transaction
	mu      sync.Mutex
	changed map[changeKey]int // index in refs
	refs    []accountRef
}

type changeKey struct {
	account string
	kind    Kind
	id      string
}

type accountRef struct {
	account string
	ref     ChangeRef
}

func newChangeTracker(tx Store) *changeTracker {
	return &changeTracker{Store: tx, changed: map[changeKey]int{}}
}

// note records a change of one record: the last operation on a record
// in the transaction is its change's, touched only when every one was a
// touch; a write after a delete is a change of its own.
func (t *changeTracker) note(account string, kind Kind, id string, op ChangeOp, touched bool) {
	t.mu.Lock()
	defer t.mu.Unlock()
	k := changeKey{account, kind, id}
	if i, ok := t.changed[k]; ok && (t.refs[i].ref.Op != ChangeDelete || op != ChangeUpsert) {
		ref := &t.refs[i].ref
		ref.Op, ref.Touched = op, ref.Touched && touched
		return
	}
	// A record new to the transaction, or written again after its delete
	// (a batch can): the delete keeps its own change, so that its
	// tombstone stands and its earlier documents are removed.
	t.changed[k] = len(t.refs)
	t.refs = append(t.refs, accountRef{account, ChangeRef{Kind: kind, ID: id, Op: op, Touched: touched}})
}

// WithTx joins the transaction, still tracked.
func (t *changeTracker) WithTx(ctx context.Context, fn func(tx Store) error) error { return fn(t) }

// PutRecord implements Store.
func (t *changeTracker) PutRecord(ctx context.Context, e *Entry) error {
	if err := t.Store.PutRecord(ctx, e); err != nil {
		return err
	}
	t.note(e.Account, e.Record.Kind(), e.Record.RecordID(), ChangeUpsert, false)
	return nil
}

// PutRecords implements Store.
func (t *changeTracker) PutRecords(ctx context.Context, entries []*Entry) error {
	if err := t.Store.PutRecords(ctx, entries); err != nil {
		return err
	}
	for _, e := range entries {
		t.note(e.Account, e.Record.Kind(), e.Record.RecordID(), ChangeUpsert, false)
	}
	return nil
}

// DeleteRecord implements Store.
func (t *changeTracker) DeleteRecord(ctx context.Context, account string, kind Kind, id string) error {
	if err := t.Store.DeleteRecord(ctx, account, kind, id); err != nil {
		return err
	}
	t.note(account, kind, id, ChangeDelete, false)
	return nil
}

// TouchRecord implements Store.
func (t *changeTracker) TouchRecord(ctx context.Context, account string, kind Kind, id string, at time.Time) error {
	if err := t.Store.TouchRecord(ctx, account, kind, id, at); err != nil {
		return err
	}
	t.note(account, kind, id, ChangeUpsert, true)
	return nil
}

// flush writes the transaction's change records, an account at a time in
// ascending order (each takes its account's change tail: a fixed order
// keeps two transactions from waiting on each other). It is the last
// thing the transaction does.
func (t *changeTracker) flush(ctx context.Context, author string, now time.Time) error {
	t.mu.Lock()
	defer t.mu.Unlock()
	if len(t.refs) == 0 {
		return nil
	}
	byAccount := map[string][]ChangeRef{}
	for _, r := range t.refs {
		byAccount[r.account] = append(byAccount[r.account], r.ref)
	}
	accounts := make([]string, 0, len(byAccount))
	for a := range byAccount {
		accounts = append(accounts, a)
	}
	slices.Sort(accounts)
	for _, a := range accounts {
		if err := t.Store.AppendChanges(ctx, ChangeSet{Account: a, Author: author, Time: now, Refs: byAccount[a]}); err != nil {
			return err
		}
	}
	return nil
}

type changeAuthorKey struct{}

// withChangeAuthor names who the changes of transactions run with ctx
// are by, where the context carries no principal (a batch's worker).
func withChangeAuthor(ctx context.Context, author string) context.Context {
	return context.WithValue(ctx, changeAuthorKey{}, author)
}

// changeAuthor is who the changes made with ctx are by: the author set
// by withChangeAuthor, else the principal's user, else nobody (the
// service's own work).
func changeAuthor(ctx context.Context) string {
	if a, ok := ctx.Value(changeAuthorKey{}).(string); ok {
		return a
	}
	if p, ok := PrincipalFrom(ctx); ok {
		return p.User
	}
	return ""
}

// withChanges runs fn in tx, tracked, and writes its change records at
// its end. With Options.BenchmarkWithoutChanges it runs fn alone.
func (s *Service) withChanges(ctx context.Context, tx Store, fn func(tx Store) error) error {
	if s.opts.BenchmarkWithoutChanges {
		return fn(tx)
	}
	if _, tracked := tx.(*changeTracker); tracked {
		return fn(tx)
	}
	t := newChangeTracker(tx)
	if err := fn(t); err != nil {
		return err
	}
	return t.flush(ctx, changeAuthor(ctx), s.Now())
}
