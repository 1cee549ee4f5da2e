package sqlite

import (
	"io/fs"
	"path/filepath"
	"slices"
	"testing"

	"github.com/bwcms/cms/cms"
)

// TestChangesRowidMigration upgrades a store written before migration 33
// (changes with AUTOINCREMENT) to the last: every change keeps its id,
// revision and document, the feed reads them all in order, the next
// change takes the next id, the indexes (but changes_feed and
// changes_time, migration 35) and file triggers are back, and
// sqlite_sequence no longer counts the changes.
func TestChangesRowidMigration(t *testing.T) {
	t.Parallel()
	ctx := t.Context()
	path := filepath.Join(t.TempDir(), "cms.db")
	all, err := fs.ReadDir(migrations, "migrations")
	if err != nil {
		t.Fatal(err)
	}
	before := slices.IndexFunc(all, func(e fs.DirEntry) bool { return e.Name() == "20261127000033_changes_rowid.tx.up.sql" })
	if before < 0 {
		t.Fatal("migration 33 not found")
	}
	old, err := Open(ctx, path, &Options{migrations: firstMigrations(t, before)})
	if err != nil {
		t.Fatal(err)
	}
	en, _ := cms.NewLanguages("en")
	upsert := func(s *Store, body string) {
		t.Helper()
		svc, err := cms.NewService(s, &cms.Options{})
		if err != nil {
			t.Fatal(err)
		}
		pctx := cms.WithPrincipal(ctx, cms.Principal{Account: "a", User: "ann", Perms: []string{"*"}, Langs: en})
		if _, err := svc.Upsert(pctx, cms.KindResource, []byte(body), nil); err != nil {
			t.Fatal(err)
		}
	}
	if err := old.CreateAccount(ctx, cms.Account{ID: "a", Langs: en}); err != nil {
		t.Fatal(err)
	}
	upsert(old, `{"id":"r-1","title":"First"}`)
	upsert(old, `{"id":"r-2","title":"Other"}`)
	upsert(old, `{"id":"r-1","title":"Second"}`)
	// Read as the store read before the upgrade: this code's reads name
	// the columns of the later migrations.
	var wantHistory []cms.Change
	rows, err := old.Write().QueryContext(ctx, "SELECT id, rev, document FROM changes WHERE record_id = 'r-1' ORDER BY rev DESC")
	if err != nil {
		t.Fatal(err)
	}
	for rows.Next() {
		var c cms.Change
		if err := rows.Scan(&c.Cursor.ID, &c.Rev, &c.Document); err != nil {
			t.Fatal(err)
		}
		c.Cursor.Seq = c.Cursor.ID
		wantHistory = append(wantHistory, c)
	}
	if err := rows.Err(); err != nil || len(wantHistory) != 2 {
		t.Fatalf("history before the upgrade: %+v, %v", wantHistory, err)
	}
	rows.Close()
	var wantFeed []int64
	rows, err = old.Write().QueryContext(ctx, "SELECT id FROM changes WHERE account = 'a' ORDER BY id")
	if err != nil {
		t.Fatal(err)
	}
	for rows.Next() {
		var id int64
		if err := rows.Scan(&id); err != nil {
			t.Fatal(err)
		}
		wantFeed = append(wantFeed, id)
	}
	rows.Close()
	old.Close()

	s, err := Open(ctx, path, nil)
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	got, err := s.RecordHistory(ctx, cms.HistoryQuery{Account: "a", Kind: cms.KindResource, ID: "r-1", Limit: 10, Documents: true})
	if err != nil || len(got) != len(wantHistory) {
		t.Fatalf("history after the upgrade: %+v, %v; want %+v", got, err, wantHistory)
	}
	for i := range got {
		if got[i].Cursor != wantHistory[i].Cursor || got[i].Rev != wantHistory[i].Rev || got[i].Document != wantHistory[i].Document {
			t.Errorf("change %d after the upgrade: %+v; want %+v", i, got[i], wantHistory[i])
		}
	}
	fence, err := s.ChangeFence(ctx, "a")
	if err != nil {
		t.Fatal(err)
	}
	feed, err := s.Changes(ctx, cms.ChangeQuery{Account: "a", UpTo: fence, Limit: 100})
	var gotFeed []int64
	for _, c := range feed {
		gotFeed = append(gotFeed, c.Cursor.ID)
	}
	if err != nil || !slices.Equal(gotFeed, wantFeed) {
		t.Errorf("the feed after the upgrade: %v, %v; want %v", gotFeed, err, wantFeed)
	}
	upsert(s, `{"id":"r-1","title":"Third"}`)
	last, err := s.LastRevision(ctx, "a", cms.KindResource, "r-1")
	if err != nil || last.Rev != 3 || last.Cursor.ID != wantHistory[0].Cursor.ID+1 {
		t.Errorf("the change after the upgrade: %+v, %v; want rev 3, id %d", last, err, wantHistory[0].Cursor.ID+1)
	}
	var objects []string
	rows, err = s.Write().QueryContext(ctx, "SELECT type || ' ' || name FROM sqlite_schema WHERE tbl_name = 'changes' ORDER BY 1")
	if err != nil {
		t.Fatal(err)
	}
	for rows.Next() {
		var o string
		if err := rows.Scan(&o); err != nil {
			t.Fatal(err)
		}
		objects = append(objects, o)
	}
	rows.Close()
	// Migration 40 dropped changes_name_files: the store names a change's
	// files itself.
	want := []string{"index changes_kind", "index changes_rev", "table changes",
		"trigger changes_forget_files", "trigger changes_purge_files"}
	if !slices.Equal(objects, want) {
		t.Errorf("changes' schema after the upgrade: %v; want %v", objects, want)
	}
	var counted int
	if err := s.Write().QueryRowContext(ctx, "SELECT count(*) FROM sqlite_sequence WHERE name = 'changes'").Scan(&counted); err != nil || counted != 0 {
		t.Errorf("sqlite_sequence still counts the changes: %d, %v", counted, err)
	}
}
