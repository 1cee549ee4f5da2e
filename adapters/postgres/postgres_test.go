package postgres

import (
	"context"
	"crypto/rand"
	"database/sql"
	"encoding/hex"
	"net/url"
	"os"
	"strings"
	"testing"

	"github.com/bwcms/cms/cms"
	_ "github.com/jackc/pgx/v5/stdlib"
)

// testDSN returns the DSN of the test server, or skips the test when
// CMS_TEST_POSTGRES_DSN is unset (CI sets it, and sets
// CMS_TEST_POSTGRES_REQUIRED so that a missing server fails instead).
func testDSN(tb testing.TB) string {
	tb.Helper()
	dsn := os.Getenv("CMS_TEST_POSTGRES_DSN")
	if dsn == "" {
		if os.Getenv("CMS_TEST_POSTGRES_REQUIRED") != "" {
			tb.Fatal("CMS_TEST_POSTGRES_REQUIRED is set but CMS_TEST_POSTGRES_DSN is empty")
		}
		tb.Skip("CMS_TEST_POSTGRES_DSN is not set")
	}
	return dsn
}

// testSchema creates a fresh schema, dropped when the test ends, and
// returns a DSN whose search_path selects it.
func testSchema(tb testing.TB) string {
	tb.Helper()
	dsn := testDSN(tb)
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
	u, err := url.Parse(dsn)
	if err != nil || !strings.HasPrefix(u.Scheme, "postgres") {
		tb.Fatalf("CMS_TEST_POSTGRES_DSN must be a postgres:// URL: %q", dsn)
	}
	q := u.Query()
	q.Set("search_path", schema)
	u.RawQuery = q.Encode()
	return u.String()
}

func openTestStore(tb testing.TB, opts *Options) *Store {
	tb.Helper()
	dsn := testSchema(tb)
	if opts == nil {
		opts = &Options{MaxConns: 8}
	}
	s, err := Open(tb.Context(), dsn, opts)
	if err != nil {
		tb.Fatal(err)
	}
	tb.Cleanup(func() { s.Close() })
	return s
}

var _ cms.Store = (*Store)(nil)
