package bunstore

import (
	"context"
	"fmt"
	"io/fs"
	"testing"
	"testing/fstest"
	"time"

	"github.com/bwcms/cms/cms"
	"github.com/uptrace/bun"
	"github.com/uptrace/bun/migrate"
)

// Migrate applies the migrations in fsys (bun SQL migration files) that db
// has not applied yet. Every statement is idempotent (IF NOT EXISTS) and a
// migration is marked applied only after it succeeded, so opening twice,
// opening an older schema, or two processes opening at once all end with
// the same schema. The adapter serialises concurrent callers where its
// database needs it.
func Migrate(ctx context.Context, db *bun.DB, fsys fs.FS) error {
	migrations := migrate.NewMigrations()
	if err := migrations.Discover(fsys); err != nil {
		return fmt.Errorf("read migrations: %w", err)
	}
	m := migrate.NewMigrator(db, migrations,
		migrate.WithTableName("cms_migrations"),
		migrate.WithLocksTableName("cms_migration_locks"),
		migrate.WithMarkAppliedOnSuccess(true),
		migrate.WithUpsert(true))
	if err := m.Init(ctx); err != nil {
		return fmt.Errorf("init migrations: %w", err)
	}
	if _, err := m.Migrate(ctx); err != nil {
		return fmt.Errorf("migrate: %w", err)
	}
	return nil
}

// Applied lists the names of the applied migrations, oldest first.
func Applied(ctx context.Context, db *bun.DB) ([]string, error) {
	var names []string
	err := db.NewRaw("SELECT name FROM cms_migrations ORDER BY name").Scan(ctx, &names)
	return names, err
}

// FirstMigrations returns a file system holding the first n migration files
// of fsys, so tests can open a schema as an older version left it.
func FirstMigrations(fsys fs.FS, n int) (fs.FS, error) {
	entries, err := fs.ReadDir(fsys, ".")
	if err != nil {
		return nil, err
	}
	if len(entries) < n {
		return nil, fmt.Errorf("only %d migrations", len(entries))
	}
	sub := fstest.MapFS{}
	for _, e := range entries[:n] {
		data, err := fs.ReadFile(fsys, e.Name())
		if err != nil {
			return nil, err
		}
		sub[e.Name()] = &fstest.MapFile{Data: data}
	}
	return sub, nil
}

// UpgradeKeepsWaitingBatch is the test of migration 4 both adapters run: a
// batch that waits in a schema of the first three migrations, its payload
// in the queue row, is claimed whole after the upgrade. open opens the
// database with the first n migrations (0: all of them).
func UpgradeKeepsWaitingBatch(t *testing.T, open func(n int) (*Store, error)) {
	ctx := t.Context()
	old, err := open(3)
	if err != nil {
		t.Fatal(err)
	}
	payload := []byte(`[{"id":"r-1","title":"kept"}]`)
	_, err = old.Write().NewRaw("INSERT INTO batches (id, account, kind, payload, count, status, requested_at, status_at) "+
		"VALUES (?, ?, ?, ?, ?, ?, ?, ?)", "b-1", "a", string(cms.KindResource), payload, 1,
		string(cms.BatchWaiting), micros(time.Now()), micros(time.Now())).Exec(ctx)
	old.Close()
	if err != nil {
		t.Fatal(err)
	}
	s, err := open(0)
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	got, err := s.ClaimBatch(ctx, "w", time.Now(), time.Now().Add(time.Minute))
	if err != nil || got.ID != "b-1" {
		t.Fatalf("claim after upgrade: %+v, %v", got, err)
	}
	if kept, err := s.BatchPayload(ctx, "b-1"); err != nil || string(kept) != string(payload) {
		t.Fatalf("payload after upgrade: %q, %v", kept, err)
	}
}
