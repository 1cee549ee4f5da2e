package postgres

import (
	"errors"
	"fmt"
	"io/fs"
	"net/url"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/bwcms/cms/adapters/internal/bunstore"
	"github.com/bwcms/cms/adapters/internal/bunstoretest"
	"github.com/bwcms/cms/adapters/postgres/pgtest"
	"github.com/bwcms/cms/cms"
	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgconn"
	"github.com/jackc/pgx/v5/pgxpool"
)

func TestChooseSchema(t *testing.T) {
	t.Parallel()
	for _, c := range []struct {
		explicit, searchPath, want string
	}{
		{"", "", "bwcms"},
		{"", "public", "bwcms"},
		{"", `"$user", public`, "bwcms"},
		{"", "cms", "cms"},
		{"", `"cms"`, "cms"},
		{"", "cms, public", "cms"},
		{"mine", "cms", "mine"},
		{"mine", "a, b", "mine"},
		{"", "a, b", ""},
		{"", "Cms", ""},
		{"public", "", ""},
		{"pg_cms", "", ""},
		{"1cms", "", ""},
		{`cms"; DROP`, "", ""},
		{strings.Repeat("a", 64), "", ""},
	} {
		got, named, err := chooseSchema(c.explicit, c.searchPath)
		if err == nil && named != (got != DefaultSchema) {
			t.Errorf("chooseSchema(%q, %q): named %v for %q", c.explicit, c.searchPath, named, got)
		}
		if got != c.want || (err != nil) != (c.want == "") {
			t.Errorf("chooseSchema(%q, %q) = %q, %v; want %q", c.explicit, c.searchPath, got, err, c.want)
		}
	}
}

// schemaTables lists the tables schema holds, sorted.
func schemaTables(tb testing.TB, db *pgxpool.Pool, schema string) []string {
	tb.Helper()
	rows, err := db.Query(tb.Context(), "SELECT table_name FROM information_schema.tables WHERE table_schema = $1 ORDER BY 1", schema)
	if err != nil {
		tb.Fatal(err)
	}
	names, err := pgx.CollectRows(rows, pgx.RowTo[string])
	if err != nil {
		tb.Fatal(err)
	}
	return names
}

// newPool is a pool of the host's on dsn, closed in tb.Cleanup.
func newPool(tb testing.TB, dsn string) *pgxpool.Pool {
	tb.Helper()
	pool, err := pgxpool.New(tb.Context(), dsn)
	if err != nil {
		tb.Fatal(err)
	}
	tb.Cleanup(pool.Close)
	return pool
}

// roundTrip writes a record and reads it back.
func roundTrip(tb testing.TB, s cms.Store, id string) {
	tb.Helper()
	ctx := tb.Context()
	put := &cms.Entry{Account: "a", Record: &cms.Resource{ID: id, Title: cms.Langs[string]{"en": "title " + id}}, Updated: time.Now()}
	if err := s.PutRecord(ctx, put); err != nil {
		tb.Fatal(err)
	}
	e, err := s.GetRecord(ctx, "a", cms.KindResource, id)
	if err != nil || e.Record.(*cms.Resource).Title["en"] != "title "+id {
		tb.Fatalf("record %s read back: %v, %v", id, e, err)
	}
}

// storeTables are the tables a complete installation holds.
func storeTables(tb testing.TB) []string {
	tb.Helper()
	var want []string
	s, _ := fs.Sub(migrations, "migrations")
	all, err := bunstore.MigrationTables(s)
	if err != nil {
		tb.Fatal(err)
	}
	for _, t := range all {
		// Dropped by later migrations, or bun migrator's.
		if t != "batch_payloads" && t != "login_failures" && t != "cms_migration_locks" {
			want = append(want, t)
		}
	}
	return want
}

// TestSchemaDefault: on a database of its own, with no search_path in
// the DSN, every table is in bwcms, none in public.
func TestSchemaDefault(t *testing.T) {
	t.Parallel()
	dsn := pgtest.Database(t)
	s, err := Open(t.Context(), dsn, &Options{MaxConns: 4})
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	if s.Schema() != "bwcms" {
		t.Fatalf("Schema() = %q", s.Schema())
	}
	roundTrip(t, s, "r-1")
	pool := newPool(t, dsn)
	if got, want := schemaTables(t, pool, "bwcms"), storeTables(t); !slices.Equal(got, want) {
		t.Errorf("bwcms holds %v, want %v", got, want)
	}
	if got := schemaTables(t, pool, "public"); len(got) != 0 {
		t.Errorf("public holds %v", got)
	}
}

// TestSchemaNamed: a search_path in the DSN names a schema that does not
// exist yet: Open creates it. Options.Schema wins over the DSN's.
func TestSchemaNamed(t *testing.T) {
	t.Parallel()
	dsn := pgtest.Database(t)
	s, err := Open(t.Context(), withSearchPath(t, dsn, "cms"), &Options{MaxConns: 2})
	if err != nil {
		t.Fatal(err)
	}
	roundTrip(t, s, "r-1")
	s.Close()
	s, err = Open(t.Context(), withSearchPath(t, dsn, "cms"), &Options{MaxConns: 2, Schema: "other"})
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	if _, err := s.GetRecord(t.Context(), "a", cms.KindResource, "r-1"); cms.ErrorCode(err) != cms.CodeNotFound {
		t.Fatalf("schema other sees cms's record: %v", err)
	}
	pool := newPool(t, dsn)
	for _, schema := range []string{"cms", "other"} {
		if got := schemaTables(t, pool, schema); !slices.Contains(got, "records") {
			t.Errorf("%s holds %v", schema, got)
		}
	}
	if _, err := Open(t.Context(), withSearchPath(t, dsn, "a,b"), nil); err == nil {
		t.Error("a search_path of two schemas opened")
	}
}

// withSearchPath is dsn with the search_path parameter.
func withSearchPath(tb testing.TB, dsn, path string) string {
	tb.Helper()
	u, err := url.Parse(dsn)
	if err != nil {
		tb.Fatal(err)
	}
	q := u.Query()
	q.Set("search_path", path)
	u.RawQuery = q.Encode()
	return u.String()
}

// hostTables creates the tables of a host's application in public, with
// a row each.
func hostTables(tb testing.TB, pool *pgxpool.Pool) {
	tb.Helper()
	for _, q := range []string{
		"CREATE TABLE public.users (id int, email text)",
		"CREATE TABLE public.records (x int)",
		"CREATE TABLE public.settings (k text)",
		"INSERT INTO public.users VALUES (1, 'host@example.com')",
		"INSERT INTO public.records VALUES (7)",
		"INSERT INTO public.settings VALUES ('theme')",
	} {
		if _, err := pool.Exec(tb.Context(), q); err != nil {
			tb.Fatal(err)
		}
	}
}

// checkHostTables fails unless the host's tables are as hostTables left them.
func checkHostTables(tb testing.TB, pool *pgxpool.Pool) {
	tb.Helper()
	rows, err := pool.Query(tb.Context(), "SELECT table_name || '.' || string_agg(column_name, ',' ORDER BY ordinal_position) "+
		"FROM information_schema.columns WHERE table_schema = 'public' GROUP BY table_name ORDER BY table_name")
	if err != nil {
		tb.Fatal(err)
	}
	cols, err := pgx.CollectRows(rows, pgx.RowTo[string])
	if want := []string{"records.x", "settings.k", "users.id,email"}; err != nil || !slices.Equal(cols, want) {
		tb.Fatalf("public's tables are %v (%v), want %v", cols, err, want)
	}
	var row string
	if err := pool.QueryRow(tb.Context(), "SELECT (SELECT string_agg(id || email, ';') FROM public.users) || "+
		"(SELECT string_agg(x::text, ';') FROM public.records) || (SELECT string_agg(k, ';') FROM public.settings)").Scan(&row); err != nil ||
		row != "1host@example.com7theme" {
		tb.Fatalf("public's rows are %q (%v)", row, err)
	}
}

// TestHostTables: a database whose public schema holds users, records
// and settings tables of the host's (names the store uses too) opens, and
// they are left as they were.
func TestHostTables(t *testing.T) {
	t.Parallel()
	dsn := pgtest.Database(t)
	pool := newPool(t, dsn)
	hostTables(t, pool)
	s, err := Open(t.Context(), dsn, &Options{MaxConns: 4})
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	roundTrip(t, s, "r-1")
	checkHostTables(t, pool)
	if got, want := schemaTables(t, pool, "bwcms"), storeTables(t); !slices.Equal(got, want) {
		t.Errorf("bwcms holds %v, want %v", got, want)
	}
}

// TestMoveFromPublic: an installation of an older version, its tables in
// public (as it migrated with the search_path public), moves into bwcms
// when the new version opens it: its records kept, its pending
// migrations applied; a table of the host's in public stays.
func TestMoveFromPublic(t *testing.T) {
	t.Parallel()
	ctx := t.Context()
	dsn := pgtest.Database(t)
	pool := newPool(t, dsn)
	// The older version: its tables in public, bun's migrator's lock
	// table with them.
	old := openInPublic(t, dsn, firstMigrations(t, 8))
	roundTrip(t, old, "r-old")
	old.Close()
	for _, q := range []string{
		"CREATE TABLE public.cms_migration_locks (id BIGSERIAL PRIMARY KEY, table_name VARCHAR UNIQUE)",
		"CREATE TABLE public.host_things (id int)",
	} {
		if _, err := pool.Exec(ctx, q); err != nil {
			t.Fatal(err)
		}
	}

	s, err := Open(ctx, dsn, &Options{MaxConns: 4})
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	if e, err := s.GetRecord(ctx, "a", cms.KindResource, "r-old"); err != nil || e.Record.(*cms.Resource).Title["en"] != "title r-old" {
		t.Fatalf("the older installation's record: %v, %v", e, err)
	}
	roundTrip(t, s, "r-new")
	if got := schemaTables(t, pool, "public"); !slices.Equal(got, []string{"host_things"}) {
		t.Errorf("public holds %v, want only the host's table", got)
	}
	want := append(storeTables(t), "cms_migration_locks")
	slices.Sort(want)
	if got := schemaTables(t, pool, "bwcms"); !slices.Equal(got, want) {
		t.Errorf("bwcms holds %v, want %v", got, want)
	}
	names, err := bunstore.Applied(ctx, s.Write())
	all, _ := fs.ReadDir(migrations, "migrations")
	if err != nil || len(names) != len(all)+len(s.DataMigrations()) {
		t.Fatalf("applied %v (%v)", names, err)
	}
	// The migration table's sequence moved with it: the group of the
	// migrations applied after the move follows the older ones'.
	var groups int
	if err := pool.QueryRow(ctx, "SELECT count(DISTINCT group_id) FROM bwcms.cms_migrations").Scan(&groups); err != nil || groups != 2 {
		t.Errorf("migration groups %d (%v), want 2", groups, err)
	}
}

// TestMigrationAllOrNothing: a set of pending migrations whose last one
// fails leaves the database as it was: no table of any of them, the
// applied ones still applied, and it opens again.
func TestMigrationAllOrNothing(t *testing.T) {
	t.Parallel()
	ctx := t.Context()
	t.Run("upgrade", func(t *testing.T) {
		t.Parallel()
		dsn := pgtest.DSN(t)
		old, err := Open(ctx, dsn, &Options{MaxConns: 2, migrations: firstMigrations(t, 3)})
		if err != nil {
			t.Fatal(err)
		}
		roundTrip(t, old, "r-1")
		schema := old.Schema()
		old.Close()
		pool := newPool(t, dsn)
		before := schemaTables(t, pool, schema)

		_, err = Open(ctx, dsn, &Options{MaxConns: 2, migrations: bunstoretest.WithBrokenMigration(firstMigrations(t, 8))})
		if err == nil || !strings.Contains(err.Error(), "no_such_column") {
			t.Fatalf("open with a broken migration: %v", err)
		}
		if got := schemaTables(t, pool, schema); !slices.Equal(got, before) {
			t.Errorf("after the failed migration the schema holds %v, want %v", got, before)
		}
		s, err := Open(ctx, dsn, &Options{MaxConns: 2})
		if err != nil {
			t.Fatal(err)
		}
		defer s.Close()
		if _, err := s.GetRecord(ctx, "a", cms.KindResource, "r-1"); err != nil {
			t.Fatal(err)
		}
		roundTrip(t, s, "r-2")
	})
	t.Run("fresh", func(t *testing.T) {
		t.Parallel()
		dsn := pgtest.Database(t)
		if _, err := Open(ctx, dsn, &Options{MaxConns: 2, migrations: bunstoretest.WithBrokenMigration(firstMigrations(t, 8))}); err == nil {
			t.Fatal("a broken migration opened")
		}
		pool := newPool(t, dsn)
		var schemas int
		if err := pool.QueryRow(ctx, "SELECT count(*) FROM pg_namespace WHERE nspname = 'bwcms'").Scan(&schemas); err != nil || schemas != 0 {
			t.Errorf("the failed migration left schema bwcms (%d, %v)", schemas, err)
		}
		if got := schemaTables(t, pool, "public"); len(got) != 0 {
			t.Errorf("public holds %v", got)
		}
		s, err := Open(ctx, dsn, &Options{MaxConns: 2})
		if err != nil {
			t.Fatal(err)
		}
		defer s.Close()
		roundTrip(t, s, "r-1")
	})
}

// TestOpenPool: a store on the host's pool, whose connections have the
// search_path public, where the host keeps tables named like the store's.
// The store's tables go to bwcms, the host's statements and the store's
// run at once on the same connections without seeing each other's
// tables, errors keep their SQLSTATE, and closing the store leaves the
// pool working.
func TestOpenPool(t *testing.T) {
	t.Parallel()
	ctx := t.Context()
	dsn := pgtest.Database(t)
	config, err := pgxpool.ParseConfig(dsn)
	if err != nil {
		t.Fatal(err)
	}
	config.ConnConfig.RuntimeParams["search_path"] = "public"
	config.MaxConns = 3
	pool, err := pgxpool.NewWithConfig(ctx, config)
	if err != nil {
		t.Fatal(err)
	}
	defer pool.Close()
	hostTables(t, pool)

	s, err := OpenPool(ctx, pool, nil)
	if err != nil {
		t.Fatal(err)
	}
	if s.Schema() != "bwcms" {
		t.Fatalf("Schema() = %q", s.Schema())
	}
	var wg sync.WaitGroup
	for g := range 3 {
		wg.Go(func() {
			for i := range 20 {
				roundTrip(t, s, fmt.Sprintf("r-%d-%d", g, i))
				var x int
				// The host's unqualified names: its own tables.
				if err := pool.QueryRow(ctx, "SELECT x FROM records").Scan(&x); err != nil || x != 7 {
					t.Errorf("the host reads records: %d, %v", x, err)
					return
				}
			}
		})
	}
	// A host's connection whose search_path the host changed.
	conn, err := pool.Acquire(ctx)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := conn.Exec(ctx, `SET search_path = "$user", public`); err != nil {
		t.Fatal(err)
	}
	conn.Release()
	wg.Wait()
	roundTrip(t, s, "r-last")

	var pgErr *pgconn.PgError
	if _, err := s.Write().ExecContext(ctx, "SELECT 1/0"); !errors.As(err, &pgErr) || pgErr.Code != "22012" {
		t.Errorf("error through the pool: %v, want a *pgconn.PgError 22012", err)
	}
	var n int
	if err := s.Write().QueryRowContext(ctx, "SELECT count(*) FROM records").Scan(&n); err != nil || n != 61 {
		t.Errorf("the store counts %d records (%v), want 61", n, err)
	}
	if err := s.Close(); err != nil {
		t.Fatal(err)
	}
	checkHostTables(t, pool)
	if got, want := schemaTables(t, pool, "bwcms"), storeTables(t); !slices.Equal(got, want) {
		t.Errorf("bwcms holds %v, want %v", got, want)
	}
	// Every connection the store gave back has the host's search_path.
	conns := pool.AcquireAllIdle(ctx)
	for _, c := range conns {
		var path string
		if err := c.QueryRow(ctx, "SHOW search_path").Scan(&path); err != nil || (path != "public" && path != `"$user", public`) {
			t.Errorf("a connection of the pool has search_path %q (%v)", path, err)
		}
		c.Release()
	}
	if len(conns) == 0 {
		t.Error("no idle connection in the pool")
	}
}

// assertSchema fails unless the tables the store reads are in the schema
// pgtest made for the test (the DSN's search_path).
func assertSchema(tb testing.TB, s *Store) {
	tb.Helper()
	var schema string
	if err := s.Write().QueryRowContext(tb.Context(),
		"SELECT n.nspname FROM pg_class c JOIN pg_namespace n ON n.oid = c.relnamespace WHERE c.oid = 'records'::regclass").Scan(&schema); err != nil {
		tb.Fatal(err)
	}
	if schema != s.Schema() || !strings.HasPrefix(schema, "cmstest_") {
		tb.Fatalf("the store's records table is in %q, its schema %q: want the test's cmstest_ schema", schema, s.Schema())
	}
}
