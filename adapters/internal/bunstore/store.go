// Package bunstore is the storage code both adapters share: every query
// that SQLite and PostgreSQL answer alike, on github.com/uptrace/bun. An
// adapter opens the database, runs its migrations, and hands the result to
// New with what differs (error translation, claim locking, index hints).
package bunstore

import (
	"context"
	"database/sql"
	"database/sql/driver"
	"errors"
	"fmt"
	"slices"
	"strconv"
	"strings"
	"sync"
	"time"

	"github.com/bwcms/cms/cms"
	"github.com/uptrace/bun"
)

// Options are what an adapter gives New.
type Options struct {
	// Write runs writes and transactions; Read runs reads outside
	// transactions (the same DB when the database needs no split).
	Write, Read *bun.DB
	// Features describes the adapter.
	Features cms.Features
	// Translate returns a *cms.Error for the driver errors it knows (a
	// clash with a concurrent writer becomes cms.Race, a database that
	// cannot be reached cms.Unavailable); others come back unchanged.
	Translate func(error) error
	// ExecRaw, when set, runs a statement of a write transaction on the
	// driver's connection dc without database/sql (SQLite: one call into
	// SQLite a statement); handled false where it does not take the
	// connection or an argument, and the statement then runs as any other.
	ExecRaw func(dc any, query string, args []any) (res sql.Result, handled bool, err error)
	// NotNull reports whether err is the failure of the NOT NULL
	// constraint of column, as table.column (SQLite: a change whose
	// record has no row).
	NotNull func(err error, column string) bool
	// ClaimLock is appended to the row lock of a batch claim
	// ("FOR UPDATE SKIP LOCKED" on PostgreSQL, "" on SQLite).
	ClaimLock string
	// NamesIndexes makes statements name the index they must use
	// ("table INDEXED BY index", SQLite): where a planner without
	// statistics finds a key's bare account (or account and kind) prefix
	// as good as the index on the whole equality (every assignment of the
	// account, every alias of the kind). PostgreSQL takes no hints: its
	// statements are shaped so that the right index is the one that fits.
	NamesIndexes bool
	// RTree says the location index is SQLite's R*Tree, else
	// PostgreSQL's GiST index (boxScan).
	RTree bool
	// InList is the condition that tests a column against a list passed as
	// one argument (List makes the argument): constant query texts let the
	// driver reuse prepared statements whatever the list's length.
	InList string
	List   func(ids []string) any
	// ListTable is the table expression of a list passed as one argument
	// (List makes it), with one column named value.
	ListTable string
	// KeyLookups makes a statement on a list of keys look each key up on
	// its own (a LATERAL sub-select a key, PostgreSQL). Without statistics
	// PostgreSQL rates a key's (account, kind) prefix as one row and reads
	// the whole kind, filtering by the list, rather than descend the key
	// once a value; SQLite searches each value of an IN list by itself.
	KeyLookups bool
	// KeyLock, when set, is run with the record's key before GetRecord
	// inside a transaction, to hold ids that have no row yet
	// (PostgreSQL: a transaction-scoped advisory lock). SQLite needs none:
	// its write transactions run one at a time.
	KeyLock string
	// KindLock and KindLockShared, when set, are run with "account/kind":
	// LockKind takes the first (a batch holding every id of the kind that
	// has no row yet), GetRecord inside a transaction the second before it
	// answers that an id has no row, so it waits for such a batch
	// (PostgreSQL: transaction-scoped advisory locks in a key space of
	// their own). One lock a batch, not one an id: PostgreSQL's lock table
	// holds a few thousand.
	KindLock, KindLockShared string
	// LoginLock, when set, is run with a username at the start of the
	// transactions that count or change its login failures, so that the
	// attempts of one username are decided one at a time across
	// connections and instances (PostgreSQL: a transaction-scoped advisory
	// lock). SQLite needs none: its write transactions run one at a time.
	LoginLock string
	// TokenLock, when set, is run with a username by LockUserTokens
	// (PostgreSQL: a transaction-scoped advisory lock in a key space of
	// its own). SQLite needs none: its write transactions run one at a
	// time.
	TokenLock string
	// AccountLock, when set, is run with the account by
	// LockAccountWrites (PostgreSQL: a transaction-scoped advisory lock in
	// a key space of its own). SQLite needs none.
	AccountLock string
	// RowLock is appended to GetRecord and GetRecords inside a transaction so that a
	// read-modify-write holds the row ("FOR NO KEY UPDATE" on PostgreSQL:
	// it leaves ReferLock's holders be; SQLite's transactions hold the
	// write lock from their start).
	RowLock string
	// ReferLock is appended to HoldReferenced's statement inside a
	// transaction: it keeps the records a reference names from being
	// deleted, without stopping their updates ("FOR KEY SHARE" on
	// PostgreSQL). DeleteLock is LockForDelete's and LockFile's, which
	// wait for every other lock ("FOR UPDATE"). SQLite needs neither.
	ReferLock, DeleteLock string
	// PairsJSON is the aggregate that gives a JSON array text of [a, b]
	// pairs ordered by order, "[]" for no rows: a record query reads a
	// Resource's or Map's assignment lists with it, in the same statement.
	PairsJSON func(a, b, order string) string
	// ConnWait, when above 0, bounds how long a statement or transaction
	// waits for a connection of the pool: past it the store answers
	// CodeUnavailable (all connections busy, or none can be opened).
	// 0: it waits as long as its context allows (SQLite, whose one writer
	// is meant to be queued for).
	ConnWait time.Duration
	// PlainTx, when set, is the statement that begins a write
	// transaction, run on the connection with COMMIT and ROLLBACK instead
	// of a database/sql transaction (whose every query starts a goroutine
	// that watches the transaction's context). Without Pipeline.
	PlainTx string
	// DetachTxStatements runs the statements of a transaction without the
	// caller's cancellation (SQLite): its driver watches a context that can
	// end with a goroutine and a channel for every statement, about 5% of
	// a create's CPU, inside the write lock. A context that ends still
	// rolls the transaction back: database/sql does, after the statement
	// running, and the commit fails. Reads outside transactions keep it.
	DetachTxStatements bool
	// DetachPointReads runs the reads of rows by their keys (a record, a
	// list of records by id, a stream's group of 64, an account) without
	// the caller's cancellation outside transactions too (SQLite, without
	// StatementWait or ConnWait): each is bounded by the keys it asks
	// for, and a query watching a context that can end costs database/sql
	// a goroutine, more than a read of one record (docs/performance.md).
	// The wait for a pooled connection still ends with the caller's
	// context, and a stream stops between groups once it has ended.
	DetachPointReads bool
	// StatementWait, when above 0, is the longest a statement (or a
	// transaction's BEGIN, and its COMMIT once fn returned) waits for the
	// database's answer before the store gives the connection up and
	// answers CodeUnavailable: the statement timeout the server applies,
	// and the network's margin, so a silent partition, which closes
	// nothing, costs a bounded wait. BatchStatementWait is the same for
	// the transactions of batches (cms.WithBatchWork). 0: as long as the
	// context allows.
	StatementWait, BatchStatementWait time.Duration
	// BatchTxStart, when set, runs first in a batch's transaction
	// (cms.WithBatchWork): it gives the transaction a batch's limits
	// (PostgreSQL: SET LOCAL of longer lock and statement timeouts).
	BatchTxStart string
	// Trace, when set, is given every statement run through exec and
	// scan, with its arguments, before it runs (plan tests collect them).
	Trace func(query string, args []any)
	// InStr is the function that gives the position of its second
	// argument in its first (1-based), 0 when absent: instr on SQLite,
	// strpos on PostgreSQL.
	InStr string
	// ShareLock is appended to the read of an account's languages by a
	// write of index terms inside a transaction ("FOR SHARE" on
	// PostgreSQL): UpdateAccount, which changes them and adds or removes
	// the terms of the languages, waits for the writers that read them,
	// and they for it. GetFiles holds the files it finds with it, so that
	// LockFile (DeleteLock) waits for the transactions of records that
	// name them. SQLite's write transactions run one at a time.
	ShareLock string
	// Numbered turns ? placeholders into $1, $2, ... (PostgreSQL).
	Numbered bool
	// ClockMicros is the database's clock, in microseconds since the Unix
	// epoch, as an SQL expression: leases are dated by it, so every
	// instance judges them by one clock (PostgreSQL's clock_timestamp();
	// SQLite's is the process's, the only one it has).
	ClockMicros string
	// GroupCommit applies the write transactions that arrive while one
	// runs together, in one transaction and one COMMIT, each in a
	// SAVEPOINT of its own (SQLite, whose one writer makes every
	// transaction wait for the one before: its COMMIT writes the pages
	// they share once). Needs DetachTxStatements: a caller that gives up
	// must not interrupt the others' statements. Batches run alone.
	GroupCommit bool
	// Pipeline, when set, sends the writes of a request's transaction
	// that nobody waits on (the rows of a record, its aliases, terms,
	// assignments and change records) with the next statement that needs
	// an answer, or with the commit's flush, in one round trip
	// (PostgreSQL, where each statement is one). Batches keep a round
	// trip a statement: their savepoints judge each put's own error.
	Pipeline Pipeline
	// Close releases what the adapter opened.
	Close func() error

	// known are the migrations this build applies (set by Migrate), which
	// Ready expects the database to have applied, no fewer and no more.
	known []string
	// noTerms is set while the schema has no terms table (a test's older
	// schema, or the migrations before termsMigration): writes leave the
	// terms out, and the migration that fills them adds them.
	noTerms bool
}

// Store implements cms.Store on bun. bun opens the pools, runs
// transactions and migrations and scans rows into structs; the queries go
// to database/sql with their arguments, so each text is prepared once per
// connection instead of being rebuilt with the values inlined.
type Store struct {
	opts  *Options
	docs  *cms.Codec
	write conn
	read  conn
	inTx  bool
	texts *sync.Map // query text as written -> text for the driver
	// wait bounds each statement (Options.StatementWait; 0: none).
	wait time.Duration
	// group queues the transactions of a group commit
	// (Options.GroupCommit; nil without).
	group *committer
	// pipe holds a transaction's writes for the next round trip
	// (Options.Pipeline; nil outside a transaction, or without).
	pipe *pipeline
	// txCtx is a plain transaction's context (Options.PlainTx), when it
	// can end: its statements, detached, stop once it has.
	txCtx context.Context
	// oneChange holds the texts of appendOne's statements (SQLite).
	oneChange *oneChangeTexts
	// detached is a transaction's statements' context
	// (DetachTxStatements): made once, not at every statement.
	detached context.Context
}

// conn is what *sql.DB and *sql.Tx share.
type conn interface {
	ExecContext(ctx context.Context, query string, args ...any) (sql.Result, error)
	QueryContext(ctx context.Context, query string, args ...any) (*sql.Rows, error)
}

var _ cms.Store = (*Store)(nil)

// New returns a Store over opts' databases, whose schema must be migrated.
func New(opts Options) *Store {
	if opts.Read == nil {
		opts.Read = opts.Write
	}
	s := &Store{opts: &opts, docs: cms.NewDocumentCodec(), write: opts.Write.DB, read: opts.Read.DB, texts: new(sync.Map),
		wait: opts.StatementWait}
	if !s.postgres() {
		s.oneChange = s.oneChangeTexts()
	}
	if opts.GroupCommit {
		s.group = &committer{}
		// A grouped write's savepoint judges its own writes' errors, which a
		// pipeline would hand to the next member's statement.
		s.opts.Pipeline = nil
	}
	return s
}

// Write returns the database writes go to (for adapter tests and tools).
func (s *Store) Write() *bun.DB { return s.opts.Write }

// Features implements cms.Store.
func (s *Store) Features() cms.Features { return s.opts.Features }

// Close implements cms.Store.
func (s *Store) Close() error {
	if s.opts.Close != nil {
		return s.opts.Close()
	}
	return nil
}

// WithTx implements cms.Store. A context of cms.WithBatchWork gives the
// transaction a batch's limits (Options.BatchTxStart, BatchStatementWait);
// other transactions join a group commit when Options.GroupCommit is set.
func (s *Store) WithTx(ctx context.Context, fn func(tx cms.Store) error) error {
	if s.inTx {
		return fn(s)
	}
	batch := cms.IsBatchWork(ctx)
	if s.group != nil && !batch {
		return s.group.run(ctx, s, fn)
	}
	return s.runTx(ctx, ctx, batch, nil, func(txs *Store) error { return fn(txs) })
}

// runTx runs fn in one transaction begun with ctx (its cancellation rolls
// the transaction back), on conn when given, else on a connection of the
// write pool; statements of fn run with the contexts fn gives them, and
// what reports a failure (a caller that gave up, a database past its
// wait) is judged against caller.
func (s *Store) runTx(caller, ctx context.Context, batch bool, conn *bun.Conn, fn func(txs *Store) error) error {
	wait := s.opts.StatementWait
	if batch {
		wait = s.opts.BatchStatementWait
	}
	if s.opts.PlainTx != "" {
		return s.plainTx(caller, ctx, batch, conn, wait, fn)
	}
	// The transaction's own context (database/sql's BEGIN, COMMIT and
	// ROLLBACK run with it) ends when one of them waits past wait: the
	// statements in between are bounded one by one.
	txCtx, cancelTx := context.WithCancel(ctx)
	defer cancelTx()
	var timer *time.Timer
	arm := func() {
		if wait > 0 {
			timer = time.AfterFunc(wait, cancelTx)
		}
	}
	disarm := func() {
		if timer != nil {
			timer.Stop()
		}
	}
	// raw is the transaction's connection, which a pipeline sends on.
	var raw *sql.Conn
	run := func(_ context.Context, tx bun.Tx) error {
		disarm() // begun
		defer arm()
		txs := &Store{opts: s.opts, docs: s.docs, write: tx.Tx, read: tx.Tx, inTx: true, texts: s.texts, oneChange: s.oneChange, wait: wait}
		txs.detachStatements(ctx)
		if batch && s.opts.BatchTxStart != "" {
			if _, err := txs.exec(ctx, s.opts.BatchTxStart); err != nil {
				return err
			}
		}
		if raw != nil && !batch {
			txs.pipe = &pipeline{conn: raw, send: s.opts.Pipeline}
		}
		if err := fn(txs); err != nil {
			return err
		}
		if txs.held() {
			_, err := txs.flush(ctx, "", nil)
			return err
		}
		return nil
	}
	var runner interface {
		RunInTx(context.Context, *sql.TxOptions, func(context.Context, bun.Tx) error) error
	} = s.opts.Write
	if conn != nil {
		runner, raw = conn, conn.Conn
	} else if s.opts.ConnWait > 0 || s.opts.Pipeline != nil {
		wctx, cancel := ctx, context.CancelFunc(func() {})
		if s.opts.ConnWait > 0 {
			wctx, cancel = context.WithTimeout(ctx, s.opts.ConnWait)
		}
		c, err := s.opts.Write.Conn(wctx) // wctx bounds the wait, not the connection
		cancel()
		if err != nil {
			return s.connFailure(caller, err)
		}
		defer c.Close()
		runner, raw = c, c.Conn
	}
	if s.opts.Pipeline == nil {
		raw = nil
	}
	arm()
	err := runner.RunInTx(txCtx, nil, run)
	disarm()
	if err != nil && caller.Err() == nil && txCtx.Err() != nil {
		if _, ok := errors.AsType[*cms.Error](err); !ok {
			return cms.Unavailable(fmt.Errorf("no answer from the database within %v: %w", wait, err))
		}
	}
	return s.fail(err)
}

// plainTx is runTx with the transaction begun (Options.PlainTx),
// committed and rolled back by statements on its connection: a query of
// a database/sql transaction starts a goroutine that watches the
// transaction's context, and on SQLite that cost more than the query
// (docs/performance.md). A caller whose context ends has the
// transaction rolled back, as database/sql's would be: its next
// statement, or the COMMIT, is refused (acquire, txCtx).
func (s *Store) plainTx(caller, ctx context.Context, batch bool, conn *bun.Conn, wait time.Duration, fn func(txs *Store) error) (err error) {
	var c *sql.Conn
	if conn != nil {
		c = conn.Conn
	} else {
		wctx, cancel := ctx, context.CancelFunc(func() {})
		if s.opts.ConnWait > 0 {
			wctx, cancel = context.WithTimeout(ctx, s.opts.ConnWait)
		}
		c, err = s.opts.Write.DB.Conn(wctx)
		cancel()
		if err != nil {
			return s.connFailure(caller, err)
		}
		defer c.Close()
	}
	if err := ctx.Err(); err != nil {
		return s.fail(err)
	}
	txs := &Store{opts: s.opts, docs: s.docs, write: c, read: c, inTx: true, texts: s.texts, oneChange: s.oneChange, wait: wait}
	txs.detachStatements(ctx)
	if ctx.Done() != nil {
		txs.txCtx = ctx
	}
	// The three statements of the transaction itself are not the
	// store's (no trace, no plan to check).
	stmtCtx := txs.stmtContext(ctx)
	if _, err := c.ExecContext(stmtCtx, s.opts.PlainTx); err != nil {
		return s.fail(err)
	}
	committed := false
	defer func() {
		if committed {
			return
		}
		// fn failed, panicked (which goes on) or the COMMIT failed. A
		// connection the ROLLBACK fails on may still be in the
		// transaction: it leaves the pool.
		if _, rerr := c.ExecContext(context.WithoutCancel(ctx), "ROLLBACK"); rerr != nil {
			_ = c.Raw(func(any) error { return driver.ErrBadConn })
		}
	}()
	if batch && s.opts.BatchTxStart != "" {
		if _, err := txs.exec(ctx, s.opts.BatchTxStart); err != nil {
			return s.fail(err)
		}
	}
	if err := fn(txs); err != nil {
		return s.fail(err)
	}
	if txs.held() {
		if _, err := txs.flush(ctx, "", nil); err != nil {
			return s.fail(err)
		}
	}
	if err := ctx.Err(); err != nil {
		return s.fail(err)
	}
	if _, err := c.ExecContext(stmtCtx, "COMMIT"); err != nil {
		return s.fail(err)
	}
	committed = true
	return nil
}

// connFailure is the error of a connection not had within
// Options.ConnWait: the store is unavailable, unless the caller's own
// context ended.
func (s *Store) connFailure(ctx context.Context, err error) error {
	if ctx.Err() == nil && errors.Is(err, context.DeadlineExceeded) {
		return cms.Unavailable(fmt.Errorf("no database connection within %v: %w", s.opts.ConnWait, err))
	}
	return s.fail(err)
}

// acquire returns where a statement runs: c itself inside a transaction or
// without Options.ConnWait, else a connection taken from c's pool within
// that wait, which release gives back. The transaction's held writes
// (Options.Pipeline) go first.
func (s *Store) acquire(ctx context.Context, c conn) (conn, func(), error) {
	if s.txCtx != nil {
		if err := s.txCtx.Err(); err != nil {
			return nil, nil, s.fail(err) // the transaction is rolled back
		}
	}
	if s.held() { // a read sees the transaction's held writes
		if _, err := s.flush(ctx, "", nil); err != nil {
			return nil, nil, err
		}
	}
	db, ok := c.(*sql.DB)
	if p, point := ctx.(pointCtx); ok && point && s.opts.ConnWait <= 0 {
		sc, err := db.Conn(p.caller)
		if err != nil {
			return nil, nil, s.fail(err)
		}
		return sc, func() { sc.Close() }, nil
	}
	if !ok || s.opts.ConnWait <= 0 {
		return c, func() {}, nil
	}
	wctx, cancel := context.WithTimeout(ctx, s.opts.ConnWait)
	sc, err := db.Conn(wctx)
	cancel()
	if err != nil {
		return nil, nil, s.connFailure(ctx, err)
	}
	return sc, func() { sc.Close() }, nil
}

// bound returns the context a statement runs with: ctx, ended after
// s.wait when that is set, with its cancel.
func (s *Store) bound(ctx context.Context) (context.Context, context.CancelFunc) {
	if s.wait <= 0 {
		return ctx, func() {}
	}
	return context.WithTimeout(ctx, s.wait)
}

// failBound is fail for the error of a statement run with bctx, a bound
// of ctx: unavailable when the bound ended it (the database did not
// answer in time, the connection is given up), not the caller.
func (s *Store) failBound(ctx, bctx context.Context, err error) error {
	if err != nil && ctx.Err() == nil && bctx.Err() != nil {
		if _, ok := errors.AsType[*cms.Error](err); !ok {
			return cms.Unavailable(fmt.Errorf("no answer from the database within %v: %w", s.wait, err))
		}
	}
	return s.fail(err)
}

// tx runs fn in a transaction unless one is running.
func (s *Store) tx(ctx context.Context, fn func(s *Store) error) error {
	if s.inTx {
		return fn(s)
	}
	return s.WithTx(ctx, func(tx cms.Store) error { return fn(tx.(*Store)) })
}

// fail turns a driver error into the library's: known ones get their code,
// the rest become CodeInternal with the cause kept for the logs.
func (s *Store) fail(err error) error {
	if err == nil {
		return nil
	}
	if _, ok := errors.AsType[*cms.Error](err); ok {
		return err
	}
	if errors.Is(err, context.Canceled) || errors.Is(err, context.DeadlineExceeded) {
		return &cms.Error{Code: cms.CodeInternal, Message: "cancelled", Err: err}
	}
	if errors.Is(err, sql.ErrNoRows) {
		return &cms.Error{Code: cms.CodeNotFound, Message: "not found", Err: err}
	}
	if s.opts.Translate != nil {
		if t := s.opts.Translate(err); t != err {
			return t
		}
	}
	return &cms.Error{Code: cms.CodeInternal, Message: "storage failure", Err: err}
}

func notFound(what string) error {
	return &cms.Error{Code: cms.CodeNotFound, Message: what + " not found"}
}

func conflict(what string) error {
	return &cms.Error{Code: cms.CodeConflict, Message: what}
}

// indexed is table as a statement names it to be read through index
// (Options.NamesIndexes).
func (s *Store) indexed(table, index string) string {
	if s.opts.NamesIndexes {
		return table + " INDEXED BY " + index
	}
	return table
}

// stmtContext is the context a statement runs with (DetachTxStatements).
func (s *Store) stmtContext(ctx context.Context) context.Context {
	if s.detached != nil {
		return s.detached
	}
	return ctx
}

// detachStatements makes the transaction's statements' context from its
// own (DetachTxStatements): the driver reads nothing from it but whether
// it can end. A group commit's members share the one of the group's
// transaction (its values those of the member that began it).
func (s *Store) detachStatements(ctx context.Context) {
	if s.opts.DetachTxStatements {
		s.detached = context.WithoutCancel(ctx)
	}
}

// pointContext is the context a read of one row by its key runs with
// (DetachPointReads).
func (s *Store) pointContext(ctx context.Context) context.Context {
	if s.opts.DetachPointReads && s.wait <= 0 && ctx.Done() != nil {
		return pointCtx{caller: ctx}
	}
	return ctx
}

// pointCtx is a read by key's context: it never ends, but acquire waits
// for a pooled connection with its caller's, so that a request given up
// does not queue behind other reads.
type pointCtx struct{ caller context.Context }

func (pointCtx) Deadline() (time.Time, bool) { return time.Time{}, false }
func (pointCtx) Done() <-chan struct{}       { return nil }
func (pointCtx) Err() error                  { return nil }
func (p pointCtx) Value(key any) any         { return p.caller.Value(key) }

// exec runs a statement on the write side and returns the rows it touched.
func (s *Store) exec(ctx context.Context, query string, args ...any) (int64, error) {
	ctx = s.stmtContext(ctx)
	if s.held() {
		return s.flush(ctx, query, args) // the held writes, then this one: one round trip
	}
	res, err := s.execResult(ctx, query, args)
	if err != nil {
		return 0, err
	}
	n, err := res.RowsAffected()
	return n, s.fail(err)
}

// execInsert runs an INSERT as exec does, outside held writes
// (SQLite), and returns the rows it wrote and the row id of the last.
func (s *Store) execInsert(ctx context.Context, query string, args ...any) (n, lastID int64, err error) {
	res, err := s.execResult(s.stmtContext(ctx), query, args)
	if err != nil {
		return 0, 0, err
	}
	if n, err = res.RowsAffected(); err == nil {
		lastID, err = res.LastInsertId()
	}
	return n, lastID, s.fail(err)
}

// execResult runs a statement on the write side with ctx, the
// statement's context (stmtContext).
func (s *Store) execResult(ctx context.Context, query string, args []any) (sql.Result, error) {
	c, release, err := s.acquire(ctx, s.write)
	if err != nil {
		return nil, err
	}
	defer release()
	if s.opts.Trace != nil {
		s.opts.Trace(query, args)
	}
	if sc, ok := c.(*sql.Conn); ok && s.opts.ExecRaw != nil && s.wait <= 0 {
		var res sql.Result
		var handled bool
		err := sc.Raw(func(dc any) error {
			var err error
			res, handled, err = s.opts.ExecRaw(dc, s.text(query), args)
			return err
		})
		if handled || err != nil {
			return res, s.fail(err)
		}
	}
	sctx, cancel := s.bound(ctx)
	defer cancel()
	res, err := c.ExecContext(sctx, s.text(query), args...)
	if err != nil {
		return nil, s.failBound(ctx, sctx, err)
	}
	return res, nil
}

// scan runs a query on c and scans its rows into dest (a pointer to a slice
// of structs with bun tags, or of plain values).
func (s *Store) scan(ctx context.Context, c conn, dest any, query string, args ...any) error {
	ctx = s.stmtContext(ctx)
	c, release, err := s.acquire(ctx, c)
	if err != nil {
		return err
	}
	defer release()
	if s.opts.Trace != nil {
		s.opts.Trace(query, args)
	}
	sctx, cancel := s.bound(ctx)
	defer cancel()
	rows, err := c.QueryContext(sctx, s.text(query), args...)
	if err != nil {
		return s.failBound(ctx, sctx, err)
	}
	// Lists of one column (ids, counts: most statements of a write) are
	// scanned by position; bun's scan finds its way by reflection.
	switch d := dest.(type) {
	case *[]string:
		err = scanColumn(rows, d)
	case *[]int64:
		err = scanColumn(rows, d)
	default:
		err = s.opts.Write.ScanRows(sctx, rows, dest)
	}
	if err != nil && !errors.Is(err, sql.ErrNoRows) {
		return s.failBound(ctx, sctx, err)
	}
	return nil
}

// scanColumn sets dst to the values of rows' one column, as bun's scan
// does: a NULL is the zero value.
func scanColumn[T any](rows *sql.Rows, dst *[]T) error {
	defer rows.Close()
	*dst = (*dst)[:0]
	for rows.Next() {
		var v sql.Null[T]
		if err := rows.Scan(&v); err != nil {
			return err
		}
		*dst = append(*dst, v.V)
	}
	if err := rows.Err(); err != nil {
		return err
	}
	return rows.Close()
}

// queryEach runs a query on c and calls fn for each row, which fn scans
// by position: bun's scan by struct tags costs more than a statement of
// small rows.
func (s *Store) queryEach(ctx context.Context, c conn, query string, args []any, fn func(*sql.Rows) error) error {
	ctx = s.stmtContext(ctx)
	c, release, err := s.acquire(ctx, c)
	if err != nil {
		return err
	}
	defer release()
	if s.opts.Trace != nil {
		s.opts.Trace(query, args)
	}
	sctx, cancel := s.bound(ctx)
	defer cancel()
	rows, err := c.QueryContext(sctx, s.text(query), args...)
	if err != nil {
		return s.failBound(ctx, sctx, err)
	}
	defer rows.Close()
	for rows.Next() {
		if err := fn(rows); err != nil {
			return s.failBound(ctx, sctx, err)
		}
	}
	if err := rows.Err(); err != nil {
		return s.failBound(ctx, sctx, err)
	}
	return s.failBound(ctx, sctx, rows.Close())
}

// text returns query with the placeholders the driver wants.
func (s *Store) text(query string) string {
	if !s.opts.Numbered {
		return query
	}
	if t, ok := s.texts.Load(query); ok {
		return t.(string)
	}
	numbered, _ := NumberPlaceholders(query)
	// Multi-row statements come in as many texts as row counts, each
	// long: caching them all would grow without end.
	if len(query) <= maxCachedText {
		s.texts.Store(query, numbered)
	}
	return numbered
}

// NumberPlaceholders returns query with its ? placeholders numbered ($1,
// $2, ...), as PostgreSQL wants them, and their count.
func NumberPlaceholders(query string) (string, int) {
	var b strings.Builder
	b.Grow(len(query) + len(query)/2)
	n := 0
	for _, r := range query {
		if r == '?' {
			n++
			b.WriteString("$" + strconv.Itoa(n))
			continue
		}
		b.WriteRune(r)
	}
	return b.String(), n
}

// maxCachedText bounds the query texts text caches: the constant ones.
const maxCachedText = 1024

// Times are stored as microseconds since the Unix epoch (UTC) in both
// databases, so comparisons and ordering are the same everywhere.
func micros(t time.Time) int64 { return t.UnixMicro() }

func fromMicros(us int64) time.Time { return time.UnixMicro(us).UTC() }

// nullMicros stores the zero time as NULL.
func nullMicros(t time.Time) *int64 {
	if t.IsZero() {
		return nil
	}
	us := micros(t)
	return &us
}

func fromNullMicros(us *int64) time.Time {
	if us == nil {
		return time.Time{}
	}
	return fromMicros(*us)
}

// Ready implements cms.Store: the database answers on both pools and
// holds exactly the migrations this build applies (a newer build may have
// migrated it further, and this one no longer knows its schema).
func (s *Store) Ready(ctx context.Context) error {
	var applied []string
	for _, c := range []conn{s.write, s.read} {
		applied = applied[:0]
		if err := s.scan(ctx, c, &applied, "SELECT name FROM "+MigrationsTable+" ORDER BY name"); err != nil {
			return s.fail(err)
		}
	}
	if s.opts.known == nil {
		return nil
	}
	for _, name := range s.opts.known {
		if !slices.Contains(applied, name) {
			return &cms.Error{Code: cms.CodeUnavailable, Message: "migration " + name + " is not applied"}
		}
	}
	for _, name := range applied {
		if !slices.Contains(s.opts.known, name) {
			return &cms.Error{Code: cms.CodeUnavailable, Message: "the database has migration " + name +
				" of a newer version"}
		}
	}
	return nil
}
