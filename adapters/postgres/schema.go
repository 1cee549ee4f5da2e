package postgres

import (
	"context"
	"database/sql/driver"
	"fmt"
	"io/fs"
	"regexp"
	"slices"
	"strings"
	"time"

	"github.com/bwcms/cms/adapters/internal/bunstore"
	"github.com/jackc/pgx/v5/stdlib"
	"github.com/uptrace/bun"
)

// plainIdent is a schema name that needs no quoting (and is quoted all
// the same).
var plainIdent = regexp.MustCompile(`^[a-z_][a-z0-9_]{0,62}$`)

// chooseSchema returns the schema the store uses: explicit (Options.Schema)
// when set, else the one searchPath (the DSN's search_path parameter)
// names when it names exactly one other than public, else DefaultSchema.
// PostgreSQL's default search_path ("$user", public) and public name
// none. named tells whether the schema was named (not the default): only
// the default schema takes an older installation out of public.
func chooseSchema(explicit, searchPath string) (schema string, named bool, err error) {
	schema, err = pickSchema(explicit, searchPath)
	return schema, err == nil && schema != DefaultSchema, err
}

func pickSchema(explicit, searchPath string) (string, error) {
	if explicit != "" {
		if err := validSchema(explicit); err != nil {
			return "", err
		}
		return explicit, nil
	}
	var names []string
	for _, part := range strings.Split(searchPath, ",") {
		part = strings.TrimSpace(part)
		if unquoted, ok := strings.CutPrefix(part, `"`); ok {
			part, ok = strings.CutSuffix(unquoted, `"`)
			if !ok || strings.Contains(part, `"`) {
				return "", fmt.Errorf("postgres: search_path %q: set Options.Schema", searchPath)
			}
		}
		if part != "" && part != "public" && part != "$user" {
			names = append(names, part)
		}
	}
	switch len(names) {
	case 0:
		return DefaultSchema, nil
	case 1:
		if err := validSchema(names[0]); err != nil {
			return "", fmt.Errorf("%w (from the search_path)", err)
		}
		return names[0], nil
	}
	return "", fmt.Errorf("postgres: search_path %q names several schemas: name the store's with Options.Schema", searchPath)
}

// validSchema refuses a schema name that is not a plain identifier, or
// public.
func validSchema(name string) error {
	switch {
	case !plainIdent.MatchString(name) || strings.HasPrefix(name, "pg_"):
		return fmt.Errorf("postgres: schema %q: want lower-case letters, digits and underscores, "+
			"not starting with a digit or pg_, at most 63", name)
	case name == "public":
		return fmt.Errorf("postgres: schema public: the store keeps its tables in a schema of their own")
	}
	return nil
}

// quoteIdent quotes a name checked by validSchema.
func quoteIdent(name string) string { return `"` + name + `"` }

// prepare runs first in the migration transaction: it takes the advisory
// lock that serialises instances migrating the schema at once, creates
// the schema when missing, moves an older installation's tables from
// public into it when the schema is the default one (movePublic), and
// refuses a schema that holds tables of the store's names the store did
// not make. It commits with the migrations, or not at all.
func prepare(ctx context.Context, tx bun.Tx, schema string, named bool, fsys fs.FS) error {
	if _, err := tx.ExecContext(ctx, "SELECT pg_advisory_xact_lock(?, hashtext(?))", migrationLocks, schema); err != nil {
		return err
	}
	// CREATE SCHEMA IF NOT EXISTS needs the CREATE privilege on the
	// database even when the schema exists: a role given only a schema
	// made for it must not need it.
	var exists bool
	if err := tx.QueryRowContext(ctx, "SELECT EXISTS (SELECT 1 FROM pg_namespace WHERE nspname = ?)", schema).Scan(&exists); err != nil {
		return err
	}
	if !exists {
		if _, err := tx.ExecContext(ctx, "CREATE SCHEMA "+quoteIdent(schema)); err != nil {
			return fmt.Errorf("create schema %s: %w", schema, err)
		}
	}
	if !named {
		if err := movePublic(ctx, tx, schema, fsys); err != nil {
			return err
		}
	}
	return refuseForeignTables(ctx, tx, schema, fsys)
}

// refuseForeignTables fails when schema has no migration table of the
// store's but holds tables named as the store's are: another
// application's, which the store must neither use nor change.
func refuseForeignTables(ctx context.Context, tx bun.Tx, schema string, fsys fs.FS) error {
	var ours *string
	if err := tx.QueryRowContext(ctx, "SELECT to_regclass(?)::text",
		quoteIdent(schema)+"."+bunstore.MigrationsTable).Scan(&ours); err != nil {
		return err
	}
	if ours != nil {
		return nil
	}
	tables, err := bunstore.MigrationTables(fsys)
	if err != nil {
		return err
	}
	var present []string
	if err := tx.NewRaw("SELECT tablename FROM pg_tables WHERE schemaname = ? AND tablename IN (?) ORDER BY tablename",
		schema, bun.In(tables)).Scan(ctx, &present); err != nil {
		return err
	}
	if len(present) > 0 {
		return fmt.Errorf("postgres: schema %s already holds tables the store did not make (%s): "+
			"give the store a schema of its own (Options.Schema)", schema, strings.Join(present, ", "))
	}
	return nil
}

// movePublic moves an installation of an older version, whose tables are
// in public, into schema: when schema has no migration table and public
// has one that lists the first of the store's migrations, each table that
// a migration applied there created (and no applied one dropped), and the
// migration tables, moves with ALTER TABLE ... SET SCHEMA, with its
// indexes, constraints and owned sequences. Public's other tables stay,
// whatever their names.
func movePublic(ctx context.Context, tx bun.Tx, schema string, fsys fs.FS) error {
	var ours, theirs *string
	if err := tx.QueryRowContext(ctx, "SELECT to_regclass(?)::text, to_regclass(?)::text",
		quoteIdent(schema)+"."+bunstore.MigrationsTable, "public."+bunstore.MigrationsTable).Scan(&ours, &theirs); err != nil {
		return err
	}
	if ours != nil || theirs == nil {
		return nil
	}
	names, err := bunstore.MigrationNames(fsys)
	if err != nil || len(names) == 0 {
		return err
	}
	var recognised bool
	if err := tx.QueryRowContext(ctx, "SELECT EXISTS (SELECT 1 FROM public."+bunstore.MigrationsTable+" WHERE name = ?)",
		names[0]).Scan(&recognised); err != nil {
		return fmt.Errorf("read public.%s: %w", bunstore.MigrationsTable, err)
	}
	if !recognised {
		return nil
	}
	created, dropped, err := bunstore.TableMigrations(fsys)
	if err != nil {
		return err
	}
	var applied, inPublic []string
	if err := tx.NewRaw("SELECT name FROM public."+bunstore.MigrationsTable).Scan(ctx, &applied); err != nil {
		return err
	}
	if err := tx.NewRaw("SELECT tablename FROM pg_tables WHERE schemaname = 'public'").Scan(ctx, &inPublic); err != nil {
		return err
	}
	// Only the tables public's applied migrations made and did not drop:
	// a table of the same name the host made is the host's.
	tables := []string{bunstore.MigrationsTable, "cms_migration_locks"}
	for t, by := range created {
		if slices.Contains(applied, by) && !slices.Contains(applied, dropped[t]) {
			tables = append(tables, t)
		}
	}
	slices.Sort(tables)
	for _, t := range tables {
		if !slices.Contains(inPublic, t) {
			continue
		}
		if _, err := tx.ExecContext(ctx, "ALTER TABLE public."+quoteIdent(t)+" SET SCHEMA "+quoteIdent(schema)); err != nil {
			return fmt.Errorf("move public.%s into %s: %w", t, schema, err)
		}
	}
	return nil
}

// schemaConnector gives connections of a host's pool (OpenPool) the
// store's search_path and limits while the store holds them.
type schemaConnector struct {
	driver.Connector // stdlib.GetPoolConnector's: takes a connection from the pool
	names            []string
	values           []any
	take, put        string // the statements that read and set, and put back, the settings
}

// newSchemaConnector sets settings (name, value pairs) on the connections
// connector takes from the pool.
func newSchemaConnector(connector driver.Connector, settings [][2]string) schemaConnector {
	c := schemaConnector{Connector: connector}
	var read, set []string
	for i, kv := range settings {
		c.names = append(c.names, kv[0])
		c.values = append(c.values, kv[1])
		read = append(read, "current_setting('"+kv[0]+"')")
		set = append(set, fmt.Sprintf("set_config('%s', $%d, false)", kv[0], i+1))
	}
	c.take = "SELECT " + strings.Join(append(read, set...), ", ")
	c.put = "SELECT " + strings.Join(set, ", ")
	return c
}

func (c schemaConnector) Connect(ctx context.Context) (driver.Conn, error) {
	dc, err := c.Connector.Connect(ctx)
	if err != nil {
		return nil, err
	}
	conn := dc.(*stdlib.Conn)
	olds := make([]string, len(c.names))
	dest := make([]any, 2*len(c.names)) // the set_config columns: skipped (nil)
	for i := range olds {
		dest[i] = &olds[i]
	}
	if err := conn.Conn().QueryRow(ctx, c.take, c.values...).Scan(dest...); err != nil {
		conn.Close()
		return nil, err
	}
	old := make([]any, len(olds))
	for i, v := range olds {
		old[i] = v
	}
	return &schemaConn{Conn: conn, put: c.put, old: old}, nil
}

// schemaConn is a connection of the host's pool with the store's
// settings; Close puts the ones it had back before returning it to the
// pool.
type schemaConn struct {
	*stdlib.Conn
	put string
	old []any
}

func (c *schemaConn) Close() error {
	pc := c.Conn.Conn()
	if !pc.IsClosed() {
		ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
		_, err := pc.Exec(ctx, c.put, c.old...)
		if err != nil || pc.PgConn().TxStatus() != 'I' {
			// The host must never get a connection with the store's
			// settings: the pool drops a closed one.
			pc.Close(ctx)
		}
		cancel()
	}
	return c.Conn.Close()
}
