package bunstore

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"runtime"
	"slices"
	"testing"

	"github.com/bwcms/cms/cms"
)

// newPlainStore is newGroupStore's store without group commit: each
// transaction is a plain one of its own (Options.PlainTx).
func newPlainStore(t *testing.T) *groupStore {
	g := newGroupStore(t)
	g.opts.GroupCommit = false
	g.group = nil
	return g
}

// TestPlainTx: a transaction begun by a statement (Options.PlainTx)
// commits what its function wrote; a function's error, a panic, or a
// caller whose context ended before the COMMIT roll it back and leave the
// connection usable for the next.
func TestPlainTx(t *testing.T) {
	for _, grouped := range []bool{false, true} {
		name := map[bool]string{false: "alone", true: "grouped"}[grouped]
		t.Run(name, func(t *testing.T) {
			g := newGroupStore(t)
			if !grouped {
				g = newPlainStore(t)
			}
			ctx := context.Background()
			refused := errors.New("refused")
			if err := g.WithTx(ctx, func(tx cms.Store) error {
				if err := insert("lost-1")(tx); err != nil {
					return err
				}
				return refused
			}); !errors.Is(err, refused) {
				t.Fatalf("a function's error: %v, want it answered", err)
			}
			func() {
				defer func() {
					if p := recover(); p != "boom" {
						t.Errorf("a function's panic: recovered %v, want boom", p)
					}
				}()
				g.WithTx(ctx, func(tx cms.Store) error {
					if err := insert("lost-2")(tx); err != nil {
						return err
					}
					panic("boom")
				})
			}()
			gone, cancel := context.WithCancel(ctx)
			if err := g.WithTx(gone, func(tx cms.Store) error {
				err := insert("lost-3")(tx)
				cancel() // the caller gives up before the COMMIT
				return err
			}); err == nil {
				t.Error("a caller that gave up before the COMMIT: no error")
			}
			during, stop := context.WithCancel(ctx)
			ran := 0
			if err := g.WithTx(during, func(tx cms.Store) error {
				for i := range 20 {
					if i == 2 {
						stop() // the caller gives up: the statements after stop
					}
					if err := insert(fmt.Sprintf("lost-4-%d", i))(tx); err != nil {
						return err
					}
					ran++
				}
				return nil
			}); err == nil || ran != 2 {
				t.Errorf("a caller that gave up during the transaction: %v after %d statements; want an error after 2", err, ran)
			}
			if err := g.WithTx(ctx, insert("kept")); err != nil {
				t.Fatalf("the next transaction: %v", err)
			}
			if keys := g.keys(t); !slices.Equal(keys, []string{"kept"}) {
				t.Errorf("stored %v, want only [kept]", keys)
			}
		})
	}
}

// TestPlainTxQueriesStartNoGoroutine: a query of a database/sql
// transaction starts a goroutine that watches the transaction's context
// while its rows are open; the queries of a plain transaction, with
// detached statements, start none.
func TestPlainTxQueriesStartNoGoroutine(t *testing.T) {
	g := newPlainStore(t)
	const queries = 50
	rose := 0
	err := g.WithTx(context.Background(), func(tx cms.Store) error {
		s := tx.(*Store)
		for range queries {
			before := runtime.NumGoroutine()
			err := s.queryEach(context.Background(), s.read, "SELECT count(*) FROM keys", nil, func(rows *sql.Rows) error {
				if runtime.NumGoroutine() > before {
					rose++
				}
				return nil
			})
			if err != nil {
				return err
			}
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	// Other goroutines of the test binary may start meanwhile, rarely.
	if rose > queries/5 {
		t.Errorf("%d of %d queries ran with more goroutines than before them; want (about) none", rose, queries)
	}
}
