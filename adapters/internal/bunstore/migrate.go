package bunstore

import (
	"bufio"
	"bytes"
	"context"
	"fmt"
	"io/fs"
	"regexp"
	"slices"
	"strings"

	"github.com/uptrace/bun"
	"github.com/uptrace/bun/migrate"
)

// MigrationsTable is the table that lists the applied migrations, one row
// a migration (bun's migration table: id, name, group_id, migrated_at).
const MigrationsTable = "cms_migrations"

// MigrateOptions are what an adapter gives Migrate.
type MigrateOptions struct {
	// FS holds the SQL migrations: files named <number>_<comment>.tx.up.sql,
	// statements separated by --bun:split lines. Other files are ignored;
	// an up migration that is not .tx is refused (it could not run in the
	// migration transaction).
	FS fs.FS
	// Data adds the store's migrations in Go (DataMigrations): an adapter
	// runs them with its complete SQL migrations only, since they read and
	// write through the store, which needs the newest schema.
	Data bool
	// Before, when set, runs first in the migration transaction: it
	// serialises instances starting at once (PostgreSQL: an advisory lock)
	// and prepares the database (PostgreSQL: creates the schema, moves an
	// older installation into it).
	Before func(ctx context.Context, tx bun.Tx) error
}

// Migrate applies the migrations of o that the database has not applied
// yet, in the order of their names, all of them in one transaction with
// the rows that mark them applied: either every pending migration is
// applied, or (a statement failed, the process died) none is, and the
// database is as before, with no half-made tables. Statements are
// idempotent (IF NOT EXISTS) all the same, so a schema changed by hand
// or by an older version migrates too. The transaction takes the write
// lock where the database has one (SQLite's BEGIN IMMEDIATE); Before
// serialises the callers where it has none.
func (s *Store) Migrate(ctx context.Context, o MigrateOptions) error {
	files, err := migrationFiles(o.FS)
	if err != nil {
		return fmt.Errorf("read migrations: %w", err)
	}
	type step struct {
		name string
		sql  []string
		data func(ctx context.Context, tx *Store) error
	}
	var steps []step
	for _, f := range files {
		steps = append(steps, step{name: f.name, sql: f.statements})
	}
	if o.Data {
		for _, d := range DataMigrations() {
			steps = append(steps, step{name: d.Name, data: d.Up})
		}
	}
	slices.SortStableFunc(steps, func(a, b step) int { return strings.Compare(a.name, b.name) })
	for i := 1; i < len(steps); i++ {
		if steps[i].name == steps[i-1].name {
			return fmt.Errorf("read migrations: two migrations named %s", steps[i].name)
		}
	}
	db := s.opts.Write
	err = db.RunInTx(ctx, nil, func(ctx context.Context, tx bun.Tx) error {
		if o.Before != nil {
			if err := o.Before(ctx, tx); err != nil {
				return err
			}
		}
		// bun's migration table, created as bun's migrator creates it, so
		// installations of either kind read alike.
		if _, err := tx.NewCreateTable().Model((*migrate.Migration)(nil)).ModelTableExpr(MigrationsTable).
			IfNotExists().Exec(ctx); err != nil {
			return fmt.Errorf("create %s: %w", MigrationsTable, err)
		}
		if _, err := tx.NewCreateIndex().Unique().TableExpr(MigrationsTable).Index(MigrationsTable + "_name_unique").
			Column("name").IfNotExists().Exec(ctx); err != nil {
			return fmt.Errorf("create %s: %w", MigrationsTable, err)
		}
		var applied []string
		var group int64
		if err := tx.NewRaw("SELECT name FROM "+MigrationsTable).Scan(ctx, &applied); err != nil {
			return err
		}
		if err := tx.NewRaw("SELECT COALESCE(MAX(group_id), 0) FROM "+MigrationsTable).Scan(ctx, &group); err != nil {
			return err
		}
		// No statement bound: a migration takes as long as it takes.
		txStore := &Store{opts: s.opts, docs: s.docs, write: tx.Tx, read: tx.Tx, inTx: true, texts: s.texts, oneChange: s.oneChange}
		txStore.detachStatements(ctx)
		// Records written by the migrations before the terms table and
		// column (an alias repair) get their terms from the ones that
		// fill them.
		s.opts.noTerms = !slices.Contains(applied, termsMigration)
		for _, st := range steps {
			if slices.Contains(applied, st.name) {
				continue
			}
			if st.name > termsMigration {
				s.opts.noTerms = false
			}
			for _, q := range st.sql {
				if _, err := tx.ExecContext(ctx, q); err != nil {
					return fmt.Errorf("migration %s: %w", st.name, err)
				}
			}
			if st.data != nil {
				if err := st.data(ctx, txStore); err != nil {
					return fmt.Errorf("migration %s: %w", st.name, err)
				}
			}
			if _, err := tx.NewInsert().Model(&migrate.Migration{Name: st.name, GroupID: group + 1}).
				ModelTableExpr(MigrationsTable).Exec(ctx); err != nil {
				return fmt.Errorf("migration %s: mark applied: %w", st.name, err)
			}
		}
		return nil
	})
	if err != nil {
		return fmt.Errorf("migrate: %w", err)
	}
	s.opts.known = make([]string, len(steps))
	for i, st := range steps {
		s.opts.known[i] = st.name
	}
	s.opts.noTerms = !slices.Contains(s.opts.known, termsMigration)
	return nil
}

// migrationFile is one SQL migration: its name (the file name's number)
// and its statements.
type migrationFile struct {
	name, file string
	statements []string
}

var migrationName = regexp.MustCompile(`^([0-9]+)_[^/]*?\.(tx\.)?up\.sql$`)

// migrationFiles reads the up migrations of fsys, ordered by name.
func migrationFiles(fsys fs.FS) ([]migrationFile, error) {
	if fsys == nil {
		return nil, nil
	}
	var files []migrationFile
	err := fs.WalkDir(fsys, ".", func(path string, d fs.DirEntry, err error) error {
		if err != nil || d.IsDir() {
			return err
		}
		m := migrationName.FindStringSubmatch(d.Name())
		if m == nil {
			return nil
		}
		if m[2] == "" {
			return fmt.Errorf("%s: a migration must run in the migration transaction (name it .tx.up.sql)", path)
		}
		text, err := fs.ReadFile(fsys, path)
		if err != nil {
			return err
		}
		statements, err := splitStatements(text)
		if err != nil {
			return fmt.Errorf("%s: %w", path, err)
		}
		files = append(files, migrationFile{name: m[1], file: path, statements: statements})
		return nil
	})
	slices.SortFunc(files, func(a, b migrationFile) int { return strings.Compare(a.name, b.name) })
	return files, err
}

// splitStatements splits a migration as bun does: a line --bun:split ends
// a statement; blank lines are dropped.
func splitStatements(text []byte) ([]string, error) {
	var statements []string
	var q []byte
	sc := bufio.NewScanner(bytes.NewReader(text))
	sc.Buffer(nil, len(text)+1)
	for sc.Scan() {
		line := sc.Bytes()
		if d, ok := bytes.CutPrefix(line, []byte("--bun:")); ok {
			if string(d) != "split" {
				return nil, fmt.Errorf("unknown directive --bun:%s", d)
			}
			if len(bytes.TrimSpace(q)) > 0 {
				statements = append(statements, string(q))
			}
			q = q[:0]
			continue
		}
		if len(bytes.TrimSpace(line)) > 0 {
			q = append(q, line...)
			q = append(q, '\n')
		}
	}
	if len(bytes.TrimSpace(q)) > 0 {
		statements = append(statements, string(q))
	}
	return statements, sc.Err()
}

// createdTable finds the tables a statement creates.
var createdTable = regexp.MustCompile(`(?i)\bCREATE\s+TABLE\s+(?:IF\s+NOT\s+EXISTS\s+)?"?([A-Za-z_][A-Za-z0-9_]*)`)

// droppedTable finds the tables a migration statement drops.
var droppedTable = regexp.MustCompile(`(?i)DROP\s+TABLE\s+(?:IF\s+EXISTS\s+)?"?([A-Za-z_][A-Za-z0-9_]*)"?`)

// TableMigrations maps each table the migrations of fsys create to the
// first migration that creates it, and each table they drop to the
// migration that drops it: which tables an installation with a given set
// of applied migrations holds.
func TableMigrations(fsys fs.FS) (created, dropped map[string]string, err error) {
	files, err := migrationFiles(fsys)
	if err != nil {
		return nil, nil, err
	}
	created, dropped = map[string]string{}, map[string]string{}
	for _, f := range files {
		for _, q := range f.statements {
			for _, m := range createdTable.FindAllStringSubmatch(q, -1) {
				if t := strings.ToLower(m[1]); created[t] == "" {
					created[t] = f.name
				}
			}
			for _, m := range droppedTable.FindAllStringSubmatch(q, -1) {
				dropped[strings.ToLower(m[1])] = f.name
			}
		}
	}
	return created, dropped, nil
}

// MigrationTables lists the tables the migrations of fsys create (some
// dropped by later ones), and the migration tables (cms_migrations, and
// cms_migration_locks of bun's migrator), sorted: every table an
// installation of these migrations may hold.
func MigrationTables(fsys fs.FS) ([]string, error) {
	files, err := migrationFiles(fsys)
	if err != nil {
		return nil, err
	}
	tables := []string{MigrationsTable, "cms_migration_locks"}
	for _, f := range files {
		for _, q := range f.statements {
			for _, m := range createdTable.FindAllStringSubmatch(q, -1) {
				tables = append(tables, strings.ToLower(m[1]))
			}
		}
	}
	slices.Sort(tables)
	return slices.Compact(tables), nil
}

// MigrationNames lists the names of the migrations of fsys, with those in
// Go, sorted.
func MigrationNames(fsys fs.FS) ([]string, error) {
	files, err := migrationFiles(fsys)
	if err != nil {
		return nil, err
	}
	var names []string
	for _, f := range files {
		names = append(names, f.name)
	}
	for _, d := range DataMigrations() {
		names = append(names, d.Name)
	}
	slices.Sort(names)
	return names, nil
}

// DataMigration is a migration written in Go: it rewrites stored data by a
// rule of the library's that SQL cannot state. Name orders it among the
// SQL migrations (their file names' number). Up runs on the store of the
// migration transaction.
type DataMigration struct {
	Name, Comment string
	Up            func(ctx context.Context, tx *Store) error
}

// DataMigrations are the store's migrations in Go.
func DataMigrations() []DataMigration {
	return []DataMigration{{Name: "20261125000012", Comment: "alias_characters",
		Up: func(ctx context.Context, tx *Store) error { return tx.aliasCharacters(ctx) }},
		// The same repair under the later rule (NFC, widths folded,
		// zero-width and bidirectional characters refused), for
		// databases that ran the first before it.
		{Name: "20261127000018", Comment: "alias_normal_form",
			Up: func(ctx context.Context, tx *Store) error { return tx.aliasCharacters(ctx) }},
		// The index terms of the records stored before the terms table.
		{Name: "20261127000020", Comment: "search_terms",
			Up: func(ctx context.Context, tx *Store) error { return tx.fillTermRows(ctx) }},
		// Their own terms in the records' terms column (migration 21).
		{Name: "20261127000022", Comment: "terms_column",
			Up: func(ctx context.Context, tx *Store) error { return tx.fillTermColumn(ctx) }}}
}

// DataMigrations are the store's migrations in Go (DataMigrations).
func (s *Store) DataMigrations() []DataMigration { return DataMigrations() }

// Applied lists the names of the applied migrations, oldest first.
func Applied(ctx context.Context, db *bun.DB) ([]string, error) {
	var names []string
	err := db.NewRaw("SELECT name FROM "+MigrationsTable+" ORDER BY name").Scan(ctx, &names)
	return names, err
}
