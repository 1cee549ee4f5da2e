// Package pgtest gives tests a PostgreSQL DSN of a fresh schema, dropped
// when the test ends (open it with postgres.Open; pgtest does not import
// the adapter, so the adapter's own tests use it too). It reads CMS_TEST_POSTGRES_DSN
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
	b := make([]byte, 8)
	rand.Read(b)
	schema := "cmstest_" + hex.EncodeToString(b)
	if _, err := admin.ExecContext(context.Background(), "CREATE SCHEMA "+schema); err != nil {
		tb.Fatalf("create schema (is PostgreSQL running at %s?): %v", dsn, err)
	}
	tb.Cleanup(func() {
		if _, err := admin.ExecContext(context.Background(), "DROP SCHEMA "+schema+" CASCADE"); err != nil {
			tb.Errorf("drop schema %s: %v", schema, err)
		}
	})
	q := u.Query()
	q.Set("search_path", schema)
	u.RawQuery = q.Encode()
	return u.String()
}
