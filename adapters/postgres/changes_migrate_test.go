package postgres

import (
	"io/fs"
	"slices"
	"testing"

	"github.com/bwcms/cms/adapters/postgres/pgtest"
	"github.com/bwcms/cms/cms"
)

// TestChangesIndexesMigration upgrades a store written before migration
// 35 (changes_feed and changes_time): the feed reads every change in the
// same order, each record's history is the same, and the indexes are
// gone.
func TestChangesIndexesMigration(t *testing.T) {
	t.Parallel()
	ctx := t.Context()
	dsn := pgtest.DSN(t)
	all, err := fs.ReadDir(migrations, "migrations")
	if err != nil {
		t.Fatal(err)
	}
	before := slices.IndexFunc(all, func(e fs.DirEntry) bool { return e.Name() == "20261127000035_changes_two_indexes.tx.up.sql" })
	if before < 0 {
		t.Fatal("migration 35 not found")
	}
	old, err := Open(ctx, dsn, &Options{MaxConns: 4, migrations: firstMigrations(t, before)})
	if err != nil {
		t.Fatal(err)
	}
	en, _ := cms.NewLanguages("en")
	pctx := cms.WithPrincipal(ctx, cms.Principal{Account: "acc", User: "ann", Perms: []string{"*"}, Langs: en})
	svc, err := cms.NewService(old, &cms.Options{})
	if err != nil {
		t.Fatal(err)
	}
	if err := svc.CreateAccount(ctx, "acc", en); err != nil {
		t.Fatal(err)
	}
	for _, w := range []struct {
		kind cms.Kind
		body string
	}{
		{cms.KindMap, `{"id":"m-1","title":"Map"}`},
		{cms.KindResource, `{"id":"r-1","title":"First","mapIds":["m-1"]}`},
		{cms.KindResource, `{"id":"r-2","title":"Other"}`},
		{cms.KindResource, `{"id":"r-1","title":"Second","mapIds":["m-1"]}`},
	} {
		if _, err := svc.Upsert(pctx, w.kind, []byte(w.body), nil); err != nil {
			t.Fatal(err)
		}
	}
	read := func(s *Store) ([]cms.Change, []cms.Change) {
		t.Helper()
		fence, err := s.ChangeFence(ctx, "acc")
		if err != nil {
			t.Fatal(err)
		}
		feed, err := s.Changes(ctx, cms.ChangeQuery{Account: "acc", UpTo: fence, Limit: 100})
		if err != nil {
			t.Fatal(err)
		}
		history, err := s.RecordHistory(ctx, cms.HistoryQuery{Account: "acc", Kind: cms.KindResource, ID: "r-1", Limit: 10, Documents: true})
		if err != nil {
			t.Fatal(err)
		}
		return feed, history
	}
	wantFeed, wantHistory := read(old)
	old.Close()
	if len(wantFeed) != 5 || len(wantHistory) != 2 {
		t.Fatalf("before the upgrade: feed %d changes, r-1's history %d; want 5 and 2", len(wantFeed), len(wantHistory))
	}

	s, err := Open(ctx, dsn, &Options{MaxConns: 4})
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	feed, history := read(s)
	cursors := func(cs []cms.Change) []cms.ChangeCursor {
		out := make([]cms.ChangeCursor, len(cs))
		for i, c := range cs {
			out[i] = c.Cursor
		}
		return out
	}
	if !slices.Equal(cursors(feed), cursors(wantFeed)) {
		t.Errorf("the feed after the upgrade: %v; want %v", cursors(feed), cursors(wantFeed))
	}
	if !slices.EqualFunc(history, wantHistory, func(a, b cms.Change) bool {
		return a.Cursor == b.Cursor && a.Rev == b.Rev && a.Document == b.Document && a.Time.Equal(b.Time)
	}) {
		t.Errorf("r-1's history after the upgrade: %+v; want %+v", history, wantHistory)
	}
	var left int
	if err := s.Write().QueryRowContext(ctx, "SELECT count(*) FROM pg_indexes WHERE schemaname = current_schema() "+
		"AND indexname IN ('changes_feed', 'changes_time')").Scan(&left); err != nil || left != 0 {
		t.Errorf("indexes changes_feed and changes_time after the upgrade: %d, %v; want none", left, err)
	}
}
