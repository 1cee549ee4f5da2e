// Package pgtest gives tests a PostgreSQL DSN of a fresh schema (DSN: its
// search_path names the schema, which the store then uses) or of a fresh
// database (Database), dropped when the test ends (open it with
// postgres.Open; pgtest does not import the adapter, so the adapter's own
// tests use it too). It reads CMS_TEST_POSTGRES_DSN
// and skips without it, unless CMS_TEST_POSTGRES_REQUIRED is set (CI), in
// which case a missing server fails the test.
package pgtest

import (
	"context"
	"crypto/rand"
	"database/sql"
	"encoding/hex"
	"net/url"
	"os"
	"strings"
	"testing"

	_ "github.com/jackc/pgx/v5/stdlib" // database/sql driver "pgx"
)

// DSN returns the DSN of a fresh schema on the test server, dropped in
// tb.Cleanup, or skips the test when no server is configured.
func DSN(tb testing.TB) string {
	tb.Helper()
	u, schema := create(tb, "SCHEMA", "CASCADE")
	q := u.Query()
	q.Set("search_path", schema)
	u.RawQuery = q.Encode()
	return u.String()
}

// Database returns the DSN of a fresh database on the test server (no
// search_path: its public schema is the test's to fill), dropped in
// tb.Cleanup with every connection to it, or skips the test when no
// server is configured. For tests of what a whole database holds: an
// installation in public, a host's tables.
func Database(tb testing.TB) string {
	tb.Helper()
	u, name := create(tb, "DATABASE", "WITH (FORCE)")
	q := u.Query()
	q.Del("search_path")
	u.RawQuery = q.Encode()
	u.Path = "/" + name
	return u.String()
}

// create makes a schema or database (kind) of a new name on the test
// server, dropped (with the drop's options) in tb.Cleanup, and returns the
// server's DSN, parsed, and the name.
func create(tb testing.TB, kind, drop string) (*url.URL, string) {
	tb.Helper()
	dsn, u, admin := server(tb)
	b := make([]byte, 8)
	rand.Read(b)
	name := "cmstest_" + hex.EncodeToString(b)
	if _, err := admin.ExecContext(context.Background(), "CREATE "+kind+" "+name); err != nil {
		tb.Fatalf("create %s (is PostgreSQL running at %s?): %v", strings.ToLower(kind), dsn, err)
	}
	tb.Cleanup(func() {
		if _, err := admin.ExecContext(context.Background(), "DROP "+kind+" "+name+" "+drop); err != nil {
			tb.Errorf("drop %s %s: %v", strings.ToLower(kind), name, err)
		}
	})
	return u, name
}

// server returns CMS_TEST_POSTGRES_DSN, parsed, and a pool on it closed in
// tb.Cleanup, or skips the test when it is not set.
func server(tb testing.TB) (string, *url.URL, *sql.DB) {
	tb.Helper()
	dsn := os.Getenv("CMS_TEST_POSTGRES_DSN")
	if dsn == "" {
		if os.Getenv("CMS_TEST_POSTGRES_REQUIRED") != "" {
			tb.Fatal("CMS_TEST_POSTGRES_REQUIRED is set but CMS_TEST_POSTGRES_DSN is empty")
		}
		tb.Skip("CMS_TEST_POSTGRES_DSN is not set")
	}
	u, err := url.Parse(dsn)
	if err != nil || !strings.HasPrefix(u.Scheme, "postgres") {
		tb.Fatalf("CMS_TEST_POSTGRES_DSN must be a postgres:// URL: %q", dsn)
	}
	admin, err := sql.Open("pgx", dsn)
	if err != nil {
		tb.Fatal(err)
	}
	tb.Cleanup(func() { admin.Close() })
	return dsn, u, admin
}
