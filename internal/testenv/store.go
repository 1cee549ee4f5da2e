package testenv

import (
	"context"
	"crypto/rand"
	"encoding/hex"
	"fmt"
	"os"
	"path/filepath"
	"testing"

	"github.com/bwcms/cms/adapters/postgres"
	"github.com/bwcms/cms/adapters/postgres/pgtest"
	"github.com/bwcms/cms/adapters/sqlite"
	"github.com/bwcms/cms/cms"
)

// Opener opens a store for a test, closed when that test ends.
type Opener func(testing.TB) cms.Store

// Database names a database a storage-dependent test runs on.
type Database struct {
	Name string
	Open Opener
}

// OpenSQLite opens SQLite in a new file under tb.TempDir.
func OpenSQLite(tb testing.TB) cms.Store {
	tb.Helper()
	return SQLiteAt(filepath.Join(tb.TempDir(), "cms.db"))(tb)
}

// OpenSQLiteMemory opens SQLite in memory.
func OpenSQLiteMemory(tb testing.TB) cms.Store {
	tb.Helper()
	return SQLiteAt(sqlite.Memory)(tb)
}

// OpenPostgres opens a store on a new schema of the test server, dropped
// when the test ends; without CMS_TEST_POSTGRES_DSN the test is skipped,
// or fails when CMS_TEST_POSTGRES_REQUIRED is set (pgtest.DSN).
func OpenPostgres(tb testing.TB) cms.Store {
	tb.Helper()
	return PostgresAt(pgtest.DSN(tb), nil)(tb)
}

// SQLiteAt returns an opener of stores on the SQLite database at path:
// with a file, each store opened is one more instance of one deployment.
func SQLiteAt(path string) Opener {
	return func(tb testing.TB) cms.Store {
		tb.Helper()
		s, err := sqlite.Open(tb.Context(), path, nil)
		return closedAtEnd(tb, s, err)
	}
}

// PostgresAt returns an opener of stores on the PostgreSQL database at
// dsn (pgtest.DSN gives one of the test's own): each store opened is one
// more instance of one deployment, with a pool of its own. o nil gives a
// pool of 8 connections, enough for the tests' concurrency while many
// tests share the server.
func PostgresAt(dsn string, o *postgres.Options) Opener {
	if o == nil {
		o = &postgres.Options{MaxConns: 8}
	}
	return func(tb testing.TB) cms.Store {
		tb.Helper()
		s, err := postgres.Open(tb.Context(), dsn, o)
		return closedAtEnd(tb, s, err)
	}
}

// closedAtEnd returns the store s that opening gave, closed when the test
// ends, or fails the test with the opening's err.
func closedAtEnd[S interface {
	cms.Store
	Close() error
}](tb testing.TB, s S, err error) cms.Store {
	tb.Helper()
	if err != nil {
		tb.Fatal(err)
	}
	tb.Cleanup(func() { s.Close() })
	return s
}

// SharedSQLite returns an opener of stores on one new SQLite file.
func SharedSQLite(tb testing.TB) Opener {
	return SQLiteAt(filepath.Join(tb.TempDir(), "cms.db"))
}

// SharedPostgres returns an opener of stores on one new schema of the
// test server, as OpenPostgres makes.
func SharedPostgres(tb testing.TB) Opener {
	tb.Helper()
	return PostgresAt(pgtest.DSN(tb), nil)
}

// PostgresServer returns CMS_TEST_POSTGRES_DSN, or "" when it is not
// set; a test that needs the server skips then. It fails the test when
// the server is required (CMS_TEST_POSTGRES_REQUIRED) but not set.
func PostgresServer(tb testing.TB) string {
	tb.Helper()
	dsn := os.Getenv("CMS_TEST_POSTGRES_DSN")
	if dsn == "" && os.Getenv("CMS_TEST_POSTGRES_REQUIRED") != "" {
		tb.Fatal("CMS_TEST_POSTGRES_REQUIRED is set but CMS_TEST_POSTGRES_DSN is empty")
	}
	return dsn
}

// Open opens a store outside a test: SQLite in memory when dsn is empty,
// else a new schema, named prefix and a random suffix, of the PostgreSQL
// database at dsn. closeStore closes the store, and drops that schema.
func Open(ctx context.Context, dsn, prefix string) (store cms.Store, closeStore func() error, err error) {
	if dsn == "" {
		s, err := sqlite.Open(ctx, sqlite.Memory, nil)
		if err != nil {
			return nil, nil, err
		}
		return s, s.Close, nil
	}
	suffix := make([]byte, 6)
	rand.Read(suffix)
	schema := prefix + hex.EncodeToString(suffix)
	s, err := postgres.Open(ctx, dsn, &postgres.Options{Schema: schema})
	if err != nil {
		return nil, nil, err
	}
	return s, func() error {
		_, err := s.Write().ExecContext(context.Background(), `DROP SCHEMA "`+schema+`" CASCADE`)
		s.Close()
		if err != nil {
			return fmt.Errorf("dropping schema %s: %w", schema, err)
		}
		return nil
	}, nil
}
