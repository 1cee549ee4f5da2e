package bunstore

import (
	"context"
	"fmt"
	"io/fs"

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
