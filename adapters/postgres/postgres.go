// Package postgres stores the CMS in PostgreSQL, for deployments that run
// several instances on one database. Documents are JSONB, ids sort in byte
// order (COLLATE "C"), batch claims use FOR UPDATE SKIP LOCKED so any
// number of instances share the queue, and the host sizes the pool.
package postgres

import (
	"context"
	"database/sql"
	"database/sql/driver"
	"embed"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"net"
	"strings"
	"time"

	"github.com/bwcms/cms/adapters/internal/bunstore"
	"github.com/bwcms/cms/cms"
	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgconn"
	"github.com/jackc/pgx/v5/stdlib"
	"github.com/uptrace/bun"
	"github.com/uptrace/bun/dialect/pgdialect"
)

//go:embed migrations/*.sql
var migrations embed.FS

// Options configure Open. The zero value (or nil) means the defaults.
type Options struct {
	// MaxConns is the most connections the pool opens. Default 20.
	MaxConns int
	// ConnWait is how long a request waits for a free connection when all
	// MaxConns are busy (or for a new one to open) before the store
	// answers unavailable (HTTP 503 with Retry-After). Default 10 s;
	// negative: as long as the request's context allows.
	ConnWait time.Duration
	// MaxIdleConns is how many idle connections it keeps. Default MaxConns.
	MaxIdleConns int
	// ConnMaxLifetime closes connections older than this. Default 30 minutes.
	ConnMaxLifetime time.Duration

	// migrations replaces the embedded migrations (tests open older schemas).
	migrations fs.FS
	// trace receives every statement the store runs (plan tests).
	trace func(query string, args []any)
}

// Store is the PostgreSQL cms.Store.
type Store struct {
	*bunstore.Store
}

// migrationLocks is the key space of the advisory lock that serialises
// the migrations of instances starting together on one schema (the other
// key is the schema's).
const migrationLocks = 4

// Open connects to the database at dsn (a postgres:// URL or key=value
// string; its search_path selects the schema), applies pending migrations
// and returns the store.
func Open(ctx context.Context, dsn string, opts *Options) (*Store, error) {
	o := Options{}
	if opts != nil {
		o = *opts
	}
	if o.MaxConns <= 0 {
		o.MaxConns = 20
	}
	switch {
	case o.ConnWait == 0:
		o.ConnWait = 10 * time.Second
	case o.ConnWait < 0:
		o.ConnWait = 0
	}
	if o.MaxIdleConns <= 0 {
		o.MaxIdleConns = o.MaxConns
	}
	if o.ConnMaxLifetime <= 0 {
		o.ConnMaxLifetime = 30 * time.Minute
	}
	// Migrations in Go run with the complete SQL ones only (tests open
	// older schemas with fewer).
	full := o.migrations == nil
	if o.migrations == nil {
		sub, err := fs.Sub(migrations, "migrations")
		if err != nil {
			return nil, err
		}
		o.migrations = sub
	}
	config, err := pgx.ParseConfig(dsn)
	if err != nil {
		return nil, fmt.Errorf("postgres: dsn: %w", err)
	}
	sqldb := stdlib.OpenDB(*config)
	sqldb.SetMaxOpenConns(o.MaxConns)
	sqldb.SetMaxIdleConns(o.MaxIdleConns)
	sqldb.SetConnMaxLifetime(o.ConnMaxLifetime)
	db := bun.NewDB(sqldb, pgdialect.New())
	if err := db.PingContext(ctx); err != nil {
		db.Close()
		return nil, fmt.Errorf("postgres: connect: %w", err)
	}
	store := &Store{bunstore.New(bunstore.Options{
		Write:     db,
		Features:  cms.Features{Name: "postgres", ConcurrentBatchClaims: true},
		Translate: translate,
		ClaimLock: "FOR UPDATE SKIP LOCKED",
		RowLock:   "FOR UPDATE",
		// Advisory locks are the database's, not the schema's: every key
		// names the schema, so two deployments in one database (or tests
		// in schemas of their own) never wait for each other.
		KeyLock: "SELECT pg_advisory_xact_lock(hashtextextended(current_schema() || '/' || ?, 0))",
		// The two-key form is a key space apart from KeyLock's.
		KindLock:       "SELECT pg_advisory_xact_lock(1, hashtext(current_schema() || '/' || ?))",
		KindLockShared: "SELECT pg_advisory_xact_lock_shared(1, hashtext(current_schema() || '/' || ?))",
		// Key space 2: an account's writes of several records.
		AccountLock: "SELECT pg_advisory_xact_lock(2, hashtext(current_schema() || '/' || ?))",
		// Key space 3: the login attempts of one username.
		LoginLock:  "SELECT pg_advisory_xact_lock(3, hashtext(current_schema() || '/' || ?))",
		KeyLookups: true,
		InList:     "= ANY(?)",
		ListTable:  "unnest(CAST(? AS text[])) AS value",
		PairsJSON: func(a, b, order string) string {
			return "COALESCE(json_agg(json_build_array(" + a + ", " + b + ") ORDER BY " + order + "), '[]')::text"
		},
		List:     func(ids []string) any { return ids },
		ConnWait: o.ConnWait,
		Numbered: true,
		Trace:    o.trace,
		Close:    db.Close,
	})}
	var data []bunstore.DataMigration
	if full {
		data = store.DataMigrations()
	}
	// Migrating holds one connection for its lock and runs on others: a
	// pool of one would wait for itself.
	sqldb.SetMaxOpenConns(max(o.MaxConns, 2))
	if err := migrate(ctx, db, o.migrations, data); err != nil {
		db.Close()
		return nil, fmt.Errorf("postgres: %w", err)
	}
	sqldb.SetMaxOpenConns(o.MaxConns)
	return store, nil
}

// migrate holds an advisory lock while migrating, so instances starting at
// once apply each migration once.
func migrate(ctx context.Context, db *bun.DB, fsys fs.FS, data []bunstore.DataMigration) error {
	conn, err := db.Conn(ctx)
	if err != nil {
		return err
	}
	defer conn.Close()
	if _, err := conn.ExecContext(ctx, "SELECT pg_advisory_lock(?, hashtext(current_schema()))", migrationLocks); err != nil {
		return err
	}
	defer conn.ExecContext(context.WithoutCancel(ctx), "SELECT pg_advisory_unlock(?, hashtext(current_schema()))", migrationLocks)
	return bunstore.Migrate(ctx, db, fsys, data...)
}

// translate maps PostgreSQL errors the library can act on. A unique key
// taken (23505) is a race: the store's callers look keys up before they
// write in the same transaction, or insert with ON CONFLICT DO NOTHING.
func translate(err error) error {
	var pgErr *pgconn.PgError
	if !errors.As(err, &pgErr) {
		return unreachable(err)
	}
	switch pgErr.Code {
	case "23505", "40001", "40P01":
		return cms.Race(err)
	case "23503": // foreign_key_violation
		return &cms.Error{Code: cms.CodeNotFound, Message: "referenced row not found", Err: err}
	// The server shutting down or starting (admin_shutdown, crash_shutdown,
	// cannot_connect_now), or refusing connections (too_many_connections).
	case "57P01", "57P02", "57P03", "53300":
		return cms.Unavailable(err)
	}
	if strings.HasPrefix(pgErr.Code, "08") { // connection_exception
		return cms.Unavailable(err)
	}
	return err
}

// unreachable returns err as unavailable when it says the server could not
// be reached or the connection was lost (a failed connect, a network
// error, a connection that ended mid-answer or was closed under the
// caller), whatever the driver or database/sql reports it as; otherwise
// err unchanged.
func unreachable(err error) error {
	var connectErr *pgconn.ConnectError
	var netErr net.Error
	if errors.As(err, &connectErr) || errors.As(err, &netErr) ||
		errors.Is(err, driver.ErrBadConn) || errors.Is(err, sql.ErrConnDone) ||
		errors.Is(err, pgconn.ErrConnClosed) || errors.Is(err, io.ErrUnexpectedEOF) || errors.Is(err, io.EOF) {
		return cms.Unavailable(err)
	}
	return err
}
