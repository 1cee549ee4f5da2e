package bunstore

import (
	"context"
	"fmt"
	"io/fs"

	"github.com/uptrace/bun"
	"github.com/uptrace/bun/migrate"
)

// Migrate applies the migrations in fsys (bun SQL migration files) that db
// has not applied yet, then those of data (migrations in Go, in the same
// order by name). Every SQL statement is idempotent (IF NOT EXISTS) and a
// migration is marked applied only after it succeeded, so opening twice,
// opening an older schema, or two processes opening at once all end with
// the same schema. The adapter serialises concurrent callers where its
// database needs it.
func Migrate(ctx context.Context, db *bun.DB, fsys fs.FS, data ...DataMigration) error {
	migrations := migrate.NewMigrations()
	if err := migrations.Discover(fsys); err != nil {
		return fmt.Errorf("read migrations: %w", err)
	}
	for _, d := range data {
		up := d.Up
		migrations.Add(migrate.Migration{Name: d.Name, Comment: d.Comment,
			Up: func(ctx context.Context, _ *migrate.Migrator, _ *migrate.Migration) error { return up(ctx) }})
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

// DataMigration is a migration written in Go: it rewrites stored data by a
// rule of the library's that SQL cannot state. Name orders it among the
// SQL migrations (their file names' number).
type DataMigration struct {
	Name, Comment string
	Up            func(ctx context.Context) error
}

// DataMigrations are the store's migrations in Go. An adapter runs them
// with its complete SQL migrations only: they read and write through the
// store, which needs the newest schema.
func (s *Store) DataMigrations() []DataMigration {
	return []DataMigration{{Name: "20261125000012", Comment: "alias_characters", Up: s.aliasCharacters}}
}

// Applied lists the names of the applied migrations, oldest first.
func Applied(ctx context.Context, db *bun.DB) ([]string, error) {
	var names []string
	err := db.NewRaw("SELECT name FROM cms_migrations ORDER BY name").Scan(ctx, &names)
	return names, err
}
