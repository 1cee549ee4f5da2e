package testenv_test

import (
	"database/sql"
	"net/netip"
	"slices"
	"testing"
	"time"

	"github.com/bwcms/cms/adapters/postgres"
	"github.com/bwcms/cms/cms"
	"github.com/bwcms/cms/internal/testenv"
)

// TestNewService: the fixture accounts and users are there, with the
// fixture password; a disabled user cannot log in; the service reads the
// settable clock.
func TestNewService(t *testing.T) {
	t.Parallel()
	for _, db := range []testenv.Database{{Name: "sqlite", Open: testenv.OpenSQLiteMemory}, {Name: "postgres", Open: testenv.OpenPostgres}} {
		t.Run(db.Name, func(t *testing.T) {
			t.Parallel()
			ctx := t.Context()
			clock := testenv.NewClock()
			svc := testenv.NewService(t, db.Open(t), clock, nil, testenv.Account{Name: "acme", Langs: testenv.Langs("it", "en"),
				Users: []testenv.User{{Name: "ed", Perms: []string{"*"}}, {Name: "off", Disabled: true}}})
			clock.Advance(time.Hour)
			s, err := svc.Login(ctx, "ed", testenv.Password, netip.Addr{})
			if err != nil {
				t.Fatalf("login: %v", err)
			}
			if p := s.Principal; p.Account != "acme" || p.Langs.Default != "it" || !slices.Equal(p.Langs.All, []string{"it", "en"}) || !slices.Equal(p.Perms, []string{"*"}) {
				t.Errorf("principal: %+v", p)
			}
			if want := testenv.Epoch.Add(time.Hour); !s.RefreshIssued.Equal(want) {
				t.Errorf("issued at %v, want the clock's %v", s.RefreshIssued, want)
			}
			if _, err := svc.Login(ctx, "off", testenv.Password, netip.Addr{}); cms.ErrorCode(err) != cms.CodeUnauthorized {
				t.Errorf("a disabled user's login: %v", err)
			}
		})
	}
}

// TestOpen: outside a test, SQLite in memory without a DSN; with one, a
// PostgreSQL schema of the prefix that is gone once the store is closed.
func TestOpen(t *testing.T) {
	t.Parallel()
	ctx := t.Context()
	s, closeStore, err := testenv.Open(ctx, "", "unused_")
	if err != nil {
		t.Fatal(err)
	}
	if err := closeStore(); err != nil {
		t.Error(err)
	}
	if _, ok := s.(*postgres.Store); ok {
		t.Error("no DSN gave PostgreSQL")
	}
	dsn := testenv.PostgresServer(t)
	if dsn == "" {
		t.Skip("CMS_TEST_POSTGRES_DSN is not set")
	}
	s, closeStore, err = testenv.Open(ctx, dsn, "testenv_")
	if err != nil {
		t.Fatal(err)
	}
	schema := s.(*postgres.Store).Schema()
	db, err := sql.Open("pgx", dsn)
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	exists := func() bool {
		var n int
		if err := db.QueryRowContext(ctx, "SELECT count(*) FROM pg_namespace WHERE nspname = $1", schema).Scan(&n); err != nil {
			t.Fatal(err)
		}
		return n == 1
	}
	if !exists() || len(schema) != len("testenv_")+12 || schema[:8] != "testenv_" {
		t.Fatalf("schema %q: exists %v", schema, exists())
	}
	if err := closeStore(); err != nil {
		t.Fatal(err)
	}
	if exists() {
		t.Errorf("schema %s is left after closing", schema)
	}
}
