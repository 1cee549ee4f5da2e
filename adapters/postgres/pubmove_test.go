package postgres

import (
	"io/fs"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/bwcms/cms/adapters/postgres/pgtest"
	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/stdlib"
)

// An older installation in public that predates login_attempts, and a
// login_attempts table of the host's in public: the move takes only the
// tables the installation's applied migrations made.
func TestMoveLeavesHostTables(t *testing.T) {
	t.Parallel()
	ctx := t.Context()
	dsn := pgtest.Database(t)
	pool := newPool(t, dsn)
	openInPublic(t, dsn, firstMigrations(t, 7)).Close()
	if _, err := pool.Exec(ctx, "CREATE TABLE public.login_attempts (host_col int)"); err != nil {
		t.Fatal(err)
	}
	s, err := Open(ctx, dsn, &Options{MaxConns: 4})
	if err != nil {
		t.Fatalf("open: %v", err)
	}
	defer s.Close()
	if got := schemaTables(t, pool, "public"); !slices.Contains(got, "login_attempts") {
		t.Errorf("the host's public.login_attempts was moved: public holds %v", got)
	}
}

// An older deployment still running in public, and a new one in a schema
// it names: the new one leaves public's tables where they are.
func TestNamedSchemaLeavesPublic(t *testing.T) {
	t.Parallel()
	ctx := t.Context()
	dsn := pgtest.Database(t)
	pool := newPool(t, dsn)
	old := openInPublic(t, dsn, nil)
	defer old.Close()
	s, err := Open(ctx, dsn, &Options{MaxConns: 4, Schema: "tenant_b"})
	if err != nil {
		t.Fatalf("open: %v", err)
	}
	defer s.Close()
	if got := schemaTables(t, pool, "public"); len(got) == 0 {
		t.Errorf("opening tenant_b moved the running public deployment's tables away; tenant_b holds %v", schemaTables(t, pool, "tenant_b"))
	}
}

// The host's pool resolves names in its own schema app, which holds its
// users table: OpenPool without Options.Schema uses bwcms, not app.
func TestOpenPoolIgnoresHostSearchPath(t *testing.T) {
	t.Parallel()
	ctx := t.Context()
	dsn := pgtest.Database(t)
	admin := newPool(t, dsn)
	for _, q := range []string{"CREATE SCHEMA app", "CREATE TABLE app.users (id int, email text)", "INSERT INTO app.users VALUES (1, 'h@x')"} {
		if _, err := admin.Exec(ctx, q); err != nil {
			t.Fatal(err)
		}
	}
	hostPool := newPool(t, withSearchPath(t, dsn, "app"))
	s, err := OpenPool(ctx, hostPool, nil)
	if err != nil {
		t.Fatalf("OpenPool: %v", err)
	}
	defer s.Close()
	if s.Schema() != DefaultSchema || !slices.Equal(schemaTables(t, admin, "app"), []string{"users"}) {
		t.Errorf("store schema %s, app holds %v; want bwcms, and app as the host left it", s.Schema(), schemaTables(t, admin, "app"))
	}
}

// A DSN naming a schema that holds another application's tables of the
// store's names: refused, and nothing in it changes.
func TestForeignTablesRefused(t *testing.T) {
	t.Parallel()
	ctx := t.Context()
	dsn := pgtest.Database(t)
	admin := newPool(t, dsn)
	for _, q := range []string{"CREATE SCHEMA app", "CREATE TABLE app.users (id int, email text)"} {
		if _, err := admin.Exec(ctx, q); err != nil {
			t.Fatal(err)
		}
	}
	if s, err := Open(ctx, withSearchPath(t, dsn, "app"), nil); err == nil {
		s.Close()
		t.Fatal("opened a schema holding another application's users table")
	} else if !strings.Contains(err.Error(), "already holds tables the store did not make (users)") {
		t.Errorf("error: %v", err)
	}
	if got := schemaTables(t, admin, "app"); !slices.Equal(got, []string{"users"}) {
		t.Errorf("app after the refusal: %v", got)
	}
}

// openInPublic opens dsn as an older version did, its tables in public,
// with migrations (nil: all of them).
func openInPublic(t *testing.T, dsn string, migrations fs.FS) *Store {
	t.Helper()
	config, err := pgx.ParseConfig(dsn)
	if err != nil {
		t.Fatal(err)
	}
	config.RuntimeParams["search_path"] = "public"
	s, err := open(t.Context(), stdlib.OpenDB(*config), "public", true,
		Options{MaxConns: 2, ConnWait: time.Second, migrations: migrations})
	if err != nil {
		t.Fatal(err)
	}
	return s
}
