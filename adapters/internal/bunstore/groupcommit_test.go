package bunstore

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/bwcms/cms/cms"
	_ "github.com/mattn/go-sqlite3"
	"github.com/uptrace/bun"
	"github.com/uptrace/bun/dialect/sqlitedialect"
)

// groupStore is a Store with group commit over a SQLite file holding
// one table of keys, and the statements it ran.
type groupStore struct {
	*Store
	mu    sync.Mutex
	trace []string
}

func newGroupStore(t *testing.T) *groupStore {
	t.Helper()
	path := filepath.Join(t.TempDir(), "group.db")
	open := func() *bun.DB {
		db, err := sql.Open("sqlite3", "file:"+path+"?_journal_mode=WAL&_txlock=immediate&_busy_timeout=5000")
		if err != nil {
			t.Fatal(err)
		}
		t.Cleanup(func() { db.Close() })
		return bun.NewDB(db, sqlitedialect.New())
	}
	write, read := open(), open()
	write.SetMaxOpenConns(1)
	if _, err := write.Exec("CREATE TABLE keys (k TEXT PRIMARY KEY)"); err != nil {
		t.Fatal(err)
	}
	g := &groupStore{}
	// As the SQLite adapter configures it.
	g.Store = New(Options{Write: write, Read: read, GroupCommit: true, DetachTxStatements: true, PlainTx: "BEGIN IMMEDIATE",
		Trace: func(query string, _ []any) {
			g.mu.Lock()
			g.trace = append(g.trace, query)
			g.mu.Unlock()
		}})
	return g
}

// statements counts the statements run that begin with prefix.
func (g *groupStore) statements(prefix string) int {
	g.mu.Lock()
	defer g.mu.Unlock()
	n := 0
	for _, q := range g.trace {
		if strings.HasPrefix(q, prefix) {
			n++
		}
	}
	return n
}

// keys are the committed keys, read outside any transaction.
func (g *groupStore) keys(t *testing.T) []string {
	t.Helper()
	var keys []string
	if err := g.opts.Read.NewSelect().Table("keys").Column("k").Order("k").Scan(context.Background(), &keys); err != nil {
		t.Fatal(err)
	}
	return keys
}

// insert is a transaction's function that stores keys.
func insert(keys ...string) func(cms.Store) error {
	return func(tx cms.Store) error {
		for _, k := range keys {
			if _, err := tx.(*Store).exec(context.Background(), "INSERT INTO keys (k) VALUES (?)", k); err != nil {
				return err
			}
		}
		return nil
	}
}

// holdFirst starts a transaction that stores "a" and waits for release,
// then starts each of fns once the one before it is queued behind it: the
// fns are then one group. queued, when set, runs once all are queued,
// before the first is released. It returns the answers, in fns' order
// after the first's, once all are in.
func (g *groupStore) holdFirst(t *testing.T, ctxs []context.Context, queued func(), fns ...func(cms.Store) error) []error {
	t.Helper()
	release, started := make(chan struct{}), make(chan struct{})
	answers := make([]error, len(fns)+1)
	var wg sync.WaitGroup
	wg.Go(func() {
		answers[0] = g.WithTx(context.Background(), func(tx cms.Store) error {
			close(started)
			<-release
			return insert("a")(tx)
		})
	})
	<-started
	for i, fn := range fns {
		ctx := context.Background()
		if ctxs != nil && ctxs[i] != nil {
			ctx = ctxs[i]
		}
		wg.Go(func() {
			defer func() {
				if p := recover(); p != nil {
					answers[i+1] = errors.New("panicked: " + p.(string))
				}
			}()
			answers[i+1] = g.WithTx(ctx, fn)
		})
		for g.QueuedWrites() < i+1 {
			time.Sleep(time.Millisecond)
		}
	}
	if queued != nil {
		queued()
	}
	close(release)
	wg.Wait()
	return answers
}

// TestGroupCommitSharesOneTransaction: transactions queued behind a
// running one are applied together, each in its own SAVEPOINT; the one
// that fails has only its own part rolled back and answers its own error,
// the others are committed.
func TestGroupCommitSharesOneTransaction(t *testing.T) {
	g := newGroupStore(t)
	failed := errors.New("b gives up")
	answers := g.holdFirst(t, nil, nil,
		insert("c"),
		func(tx cms.Store) error {
			if err := insert("b1", "b2")(tx); err != nil {
				return err
			}
			return failed
		},
		insert("d"),
		insert("a"), // taken by the first: a unique key clash
	)
	if answers[0] != nil || answers[1] != nil || answers[3] != nil {
		t.Fatalf("answers %v: want the first, c and d committed", answers)
	}
	if !errors.Is(answers[2], failed) {
		t.Errorf("b answered %v, want its own error", answers[2])
	}
	if answers[4] == nil {
		t.Errorf("a second a answered no error")
	}
	if got, want := g.keys(t), []string{"a", "c", "d"}; !slices.Equal(got, want) {
		t.Errorf("stored %v, want %v", got, want)
	}
	// Four members of one group: four savepoints, two rolled back.
	if n := g.statements("SAVEPOINT grouped"); n != 4 {
		t.Errorf("%d savepoints, want 4 (the four queued in one transaction)", n)
	}
	if n := g.statements("ROLLBACK TO grouped"); n != 2 {
		t.Errorf("%d rollbacks to a savepoint, want 2", n)
	}
	// The held first alone, then the four: two groups of five writes.
	if got, ok := g.WriteStats(); !ok || got != (cms.WriteStats{Commits: 2, Transactions: 5}) {
		t.Errorf("WriteStats %+v, %v; want 2 groups of 5 writes, none queued", got, ok)
	}
}

// TestGroupCommitLoneWriter: a transaction that finds no other runs as it
// would without group commit: no savepoint, no wait.
func TestGroupCommitLoneWriter(t *testing.T) {
	g := newGroupStore(t)
	for _, k := range []string{"x", "y"} {
		if err := g.WithTx(context.Background(), insert(k)); err != nil {
			t.Fatal(err)
		}
	}
	if err := g.WithTx(context.Background(), insert("x")); err == nil {
		t.Error("a clash answered no error")
	}
	if got := g.keys(t); !slices.Equal(got, []string{"x", "y"}) {
		t.Errorf("stored %v", got)
	}
	if n := g.statements("SAVEPOINT"); n != 0 {
		t.Errorf("%d savepoints for lone writers, want 0", n)
	}
}

// TestGroupCommitBrokenTransaction: when a member ends the transaction
// (here by rolling it back itself), what every member did or met in it is
// void: each is answered a race, which the service tries again, and
// nothing of the group is stored. A member that failed only because of
// another's lost work (a key the transaction had taken) is answered the
// race too, not its failure.
func TestGroupCommitBrokenTransaction(t *testing.T) {
	g := newGroupStore(t)
	answers := g.holdFirst(t, nil, nil,
		insert("c"),
		insert("c"), // a clash with the first c, lost with it
		func(tx cms.Store) error {
			if err := insert("b")(tx); err != nil {
				return err
			}
			_, err := tx.(*Store).exec(context.Background(), "ROLLBACK")
			if err != nil {
				return err
			}
			return errors.New("rolled back")
		},
		insert("d"),
	)
	if answers[0] != nil {
		t.Fatalf("the first answered %v", answers[0])
	}
	for i, a := range answers[1:] {
		if !cms.IsRace(a) {
			t.Errorf("member %d answered %v, want a race to try again", i+1, a)
		}
	}
	if got, want := g.keys(t), []string{"a"}; !slices.Equal(got, want) {
		t.Errorf("stored %v, want %v", got, want)
	}
	// Tried again, alone, they are stored.
	for _, k := range []string{"c", "d"} {
		if err := g.WithTx(context.Background(), insert(k)); err != nil {
			t.Fatal(err)
		}
	}
}

// TestGroupCommitGiveUpWhileWriterHeld: while a batch holds the writer,
// the caller that leads the next group and those queued behind it can
// still give up: none of them is taken into a group before the writer is
// had.
func TestGroupCommitGiveUpWhileWriterHeld(t *testing.T) {
	g := newGroupStore(t)
	held, release := make(chan struct{}), make(chan struct{})
	batchDone := make(chan error, 1)
	go func() {
		batchDone <- g.WithTx(cms.WithBatchWork(context.Background()), func(tx cms.Store) error {
			close(held)
			<-release
			return insert("batch")(tx)
		})
	}()
	<-held
	var wg sync.WaitGroup
	answers := make([]error, 2)
	ctx, cancel := context.WithCancel(context.Background())
	for i := range answers {
		wg.Go(func() { answers[i] = g.WithTx(ctx, insert(fmt.Sprint("gave-up-", i))) })
		for g.QueuedWrites() < i+1 {
			time.Sleep(time.Millisecond)
		}
	}
	// Both queued, the first leading and waiting for the writer: both
	// give up.
	cancel()
	gaveUp := make(chan struct{})
	go func() { wg.Wait(); close(gaveUp) }()
	select {
	case <-gaveUp:
	case <-time.After(30 * time.Second):
		t.Fatal("callers could not give up while the writer was held")
	}
	close(release)
	if err := <-batchDone; err != nil {
		t.Fatal(err)
	}
	for i, a := range answers {
		if a == nil {
			t.Errorf("caller %d gave up and answered no error", i)
		}
	}
	if got, want := g.keys(t), []string{"batch"}; !slices.Equal(got, want) {
		t.Errorf("stored %v, want %v", got, want)
	}
}

// TestGroupCommitCallerGivesUp: a caller that gives up while queued is
// answered at once and its function never runs; the rest commit.
func TestGroupCommitCallerGivesUp(t *testing.T) {
	g := newGroupStore(t)
	ctx, cancel := context.WithCancel(context.Background())
	ran := false
	answers := g.holdFirst(t, []context.Context{nil, ctx, nil}, func() {
		cancel()
		for g.QueuedWrites() > 2 {
			time.Sleep(time.Millisecond)
		}
	},
		insert("c"),
		func(tx cms.Store) error { ran = true; return insert("b")(tx) },
		insert("d"),
	)
	if answers[0] != nil || answers[1] != nil || answers[3] != nil {
		t.Fatalf("answers %v", answers)
	}
	if answers[2] == nil || ran {
		t.Errorf("the caller that gave up answered %v, its function ran: %v", answers[2], ran)
	}
	if got, want := g.keys(t), []string{"a", "c", "d"}; !slices.Equal(got, want) {
		t.Errorf("stored %v, want %v", got, want)
	}
}

// TestGroupCommitPanic: a member's panic is raised in its own caller's
// goroutine; the others commit and the lead passes on.
func TestGroupCommitPanic(t *testing.T) {
	g := newGroupStore(t)
	answers := g.holdFirst(t, nil, nil,
		insert("c"),
		func(tx cms.Store) error {
			if err := insert("b")(tx); err != nil {
				return err
			}
			panic("boom")
		},
		insert("d"),
	)
	if answers[0] != nil || answers[1] != nil || answers[3] != nil {
		t.Fatalf("answers %v", answers)
	}
	if answers[2] == nil || answers[2].Error() != "panicked: boom" {
		t.Errorf("the panicking member answered %v, want its panic raised", answers[2])
	}
	if got, want := g.keys(t), []string{"a", "c", "d"}; !slices.Equal(got, want) {
		t.Errorf("stored %v, want %v", got, want)
	}
	// The lead passed on: a new writer is served.
	if err := g.WithTx(context.Background(), insert("e")); err != nil {
		t.Fatal(err)
	}
}

// TestGroupCommitConcurrentWriters: many writers at once, each answered
// only after its work is committed (a read outside any transaction, on
// another connection, finds it at once).
func TestGroupCommitConcurrentWriters(t *testing.T) {
	g := newGroupStore(t)
	var wg sync.WaitGroup
	errs := make(chan error, 400)
	for w := range 16 {
		wg.Go(func() {
			for i := range 25 {
				k := strings.Repeat("k", 1) + string(rune('a'+w)) + "-" + string(rune('a'+i))
				if err := g.WithTx(context.Background(), insert(k)); err != nil {
					errs <- err
					return
				}
				var n int
				if err := g.opts.Read.NewSelect().Table("keys").ColumnExpr("count(*)").Where("k = ?", k).
					Scan(context.Background(), &n); err != nil || n != 1 {
					errs <- errors.New(k + " answered before it was committed")
					return
				}
			}
		})
	}
	wg.Wait()
	close(errs)
	for err := range errs {
		t.Error(err)
	}
	if n := len(g.keys(t)); n != 400 {
		t.Errorf("%d keys stored, want 400", n)
	}
}
