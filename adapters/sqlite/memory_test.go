package sqlite

import (
	"fmt"
	"sync"
	"testing"
	"time"

	"github.com/bwcms/cms/cms"
	"github.com/bwcms/cms/cms/cmstest"
)

func openMemory(tb testing.TB) *Store {
	tb.Helper()
	s, err := Open(tb.Context(), Memory, nil)
	if err != nil {
		tb.Fatal(err)
	}
	tb.Cleanup(func() { s.Close() })
	return s
}

// TestMemory: a store opened on ":memory:" is one database for the writer
// and every connection of the read pool, read by several goroutines at
// once while it is written; a second one is another database.
func TestMemory(t *testing.T) {
	t.Parallel()
	ctx := t.Context()
	s := openMemory(t)
	if err := s.CreateAccount(ctx, cms.Account{ID: "a", Langs: cms.Languages{Default: "en", All: []string{"en"}}}); err != nil {
		t.Fatal(err)
	}
	var wg sync.WaitGroup
	for g := range 8 {
		wg.Go(func() {
			for i := range 50 {
				if g == 0 {
					put := &cms.Entry{Account: "a", Record: &cms.Resource{ID: fmt.Sprintf("r-%d", i)}, Updated: time.Now()}
					if err := s.PutRecord(ctx, put); err != nil {
						t.Error(err)
						return
					}
					continue
				}
				if a, err := s.GetAccount(ctx, "a"); err != nil || a.Langs.Default != "en" {
					t.Errorf("read the account: %v, %v", a, err)
					return
				}
			}
		})
	}
	wg.Wait()
	if _, err := s.GetRecord(ctx, "a", cms.KindResource, "r-49"); err != nil {
		t.Fatal(err)
	}
	other := openMemory(t)
	if _, err := other.GetAccount(ctx, "a"); cms.ErrorCode(err) != cms.CodeNotFound {
		t.Fatalf("another memory store reads the account: %v", err)
	}
	// The read pool is read-only.
	if _, err := s.read.ExecContext(ctx, "DELETE FROM accounts"); err == nil {
		t.Error("the read pool wrote")
	}
}

func TestMemoryConformance(t *testing.T) {
	cmstest.Run(t, func(t *testing.T) cms.Store { return openMemory(t) })
}
