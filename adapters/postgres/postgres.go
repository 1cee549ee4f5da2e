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
	"github.com/jackc/pgx/v5/pgxpool"
	"github.com/jackc/pgx/v5/stdlib"
	"github.com/uptrace/bun"
	"github.com/uptrace/bun/dialect/pgdialect"
)

//go:embed migrations/*.sql
var migrations embed.FS

// DefaultSchema is the schema the store keeps its tables in when neither
// Options.Schema nor the DSN's search_path names one.
const DefaultSchema = "bwcms"

// Options configure Open and OpenPool. The zero value (or nil) means the
// defaults. Every number follows one rule: 0 means the default (a
// Default... constant), "off" is the named negative sentinel NoTimeout,
// and any other negative value is refused by Open and OpenPool with an
// error naming the field.
type Options struct {
	// Schema is the schema that holds every table of the store, created
	// when missing; every statement the store runs resolves table names in
	// it alone, so tables of the host's, in public or elsewhere, are never
	// read or changed, whatever their names. A plain identifier: lower-case
	// letters, digits and underscores, not starting with a digit or pg_,
	// at most 63 characters; never public. Default: the schema the DSN's
	// (or the pool's) search_path names, when it names exactly one other
	// than public; else DefaultSchema.
	Schema string
	// MaxConns is the most connections the store uses at once. Default
	// DefaultMaxConns (20; OpenPool: the pool's MaxConns).
	MaxConns int
	// ConnWait is how long a request waits for a free connection when all
	// MaxConns are busy (or for a new one to open) before the store
	// answers unavailable (HTTP 503 with Retry-After). Default
	// DefaultConnWait (10 s); NoTimeout: as long as the request's context
	// allows.
	ConnWait time.Duration
	// MaxIdleConns is how many idle connections it keeps. Default
	// MaxConns. Not used by OpenPool: the host's pool keeps them.
	MaxIdleConns int
	// ConnMaxLifetime closes connections older than this. Default
	// DefaultConnMaxLifetime (30 minutes). Not used by OpenPool.
	ConnMaxLifetime time.Duration

	// LockTimeout is how long a request's statement waits for a lock
	// another transaction holds (a record's row, an account's or a kind's
	// writes, which a batch holds while it applies) before the store
	// answers unavailable (503 with Retry-After), so an instance that
	// froze or lost its network while holding one costs the others a
	// bounded wait. Default DefaultLockTimeout (10 s); NoTimeout: as long
	// as it takes.
	LockTimeout time.Duration
	// StatementTimeout is the longest a request's statement runs before
	// the server cancels it and the store answers unavailable (503 with
	// Retry-After). Default DefaultStatementTimeout (30 s); NoTimeout: no
	// limit.
	StatementTimeout time.Duration
	// IdleInTxTimeout is how long the server lets a transaction, a
	// request's or a batch's, wait for its client between statements
	// before it ends the session: a frozen or partitioned instance's
	// locks are freed then (and its lease runs out: another instance
	// takes its batch over). Default DefaultIdleInTxTimeout (15 s);
	// NoTimeout: as long as it takes.
	IdleInTxTimeout time.Duration
	// BatchLockTimeout and BatchStatementTimeout are LockTimeout and
	// StatementTimeout for a batch's transaction (a context of
	// cms.WithBatchWork), which waits behind other batches of its account
	// and writes thousands of records: a limit met is tried again after a
	// wait, without using up an attempt. Default DefaultBatchLockTimeout
	// (2 minutes) and DefaultBatchStatementTimeout (5 minutes); NoTimeout:
	// no limit.
	BatchLockTimeout, BatchStatementTimeout time.Duration
	// NetworkTimeout is how long the network may stay silent beyond what
	// the server's limits allow before the store gives a connection up as
	// dead and answers unavailable: each statement waits at most its
	// statement timeout and this for an answer (a silent partition:
	// nothing refused or closed), and Open's connections are dialled
	// within it, with TCP keepalive probes and a TCP user timeout of it
	// (Linux). Default DefaultNetworkTimeout (10 s); NoTimeout: the
	// statements wait as long as their context allows.
	NetworkTimeout time.Duration

	// migrations replaces the embedded migrations (tests open older schemas).
	migrations fs.FS
	// trace receives every statement the store runs (plan tests).
	trace func(query string, args []any)
	// pipeline, when set, sends pipelined statements instead of
	// sendPipeline (tests count the round trips).
	pipeline bunstore.Pipeline
}

// Store is the PostgreSQL cms.Store.
type Store struct {
	*bunstore.Store
	schema string
}

// Schema returns the schema that holds the store's tables.
func (s *Store) Schema() string { return s.schema }

// migrationLocks is the key space of the advisory lock that serialises
// the migrations of instances starting together on one schema (the other
// key is the schema's name).
const migrationLocks = 4

// Open connects to the database at dsn (a postgres:// URL or key=value
// string), creates the store's schema when missing (Options.Schema),
// moves an older installation's tables from public into it, applies
// pending migrations and returns the store. Its connections resolve table
// names in the schema alone: Open sets their search_path to it, whatever
// the DSN says.
func Open(ctx context.Context, dsn string, opts *Options) (*Store, error) {
	config, err := pgx.ParseConfig(dsn)
	if err != nil {
		return nil, fmt.Errorf("postgres: dsn: %w", err)
	}
	o, err := options(opts)
	if err != nil {
		return nil, err
	}
	if o.MaxConns == 0 {
		o.MaxConns = DefaultMaxConns
	}
	if o.MaxIdleConns == 0 {
		o.MaxIdleConns = o.MaxConns
	}
	schema, named, err := chooseSchema(o.Schema, config.RuntimeParams["search_path"])
	if err != nil {
		return nil, err
	}
	// Sent when each connection starts: every statement on it resolves
	// names in the schema, and nothing falls through to public.
	config.RuntimeParams["search_path"] = quoteIdent(schema)
	newLimits(o).configure(config)
	sqldb := stdlib.OpenDB(*config)
	sqldb.SetMaxOpenConns(o.MaxConns)
	sqldb.SetMaxIdleConns(o.MaxIdleConns)
	sqldb.SetConnMaxLifetime(o.ConnMaxLifetime)
	return open(ctx, sqldb, schema, named, o)
}

// OpenPool is Open on a pool of the host's: the store takes a connection
// from pool for each statement or transaction (holding none idle) and
// gives it back after; Close leaves the pool open. It sets the
// connection's search_path to the schema, and its lock, statement and
// idle-in-transaction timeouts to the Options', when it takes it, and
// puts the connection's own back when it returns it (a connection whose
// settings cannot be put back is closed, not returned), so the host's
// statements and the store's never see each other's tables or limits:
// two more round trips a checkout. The pool's dialer is the host's:
// Options.NetworkTimeout bounds the store's statements, not the pool's
// TCP settings. Errors keep the driver's (a *pgconn.PgError
// with its SQLSTATE).
func OpenPool(ctx context.Context, pool *pgxpool.Pool, opts *Options) (*Store, error) {
	if pool == nil {
		return nil, errors.New("postgres: OpenPool: nil pool")
	}
	o, err := options(opts)
	if err != nil {
		return nil, err
	}
	config := pool.Config()
	if o.MaxConns == 0 {
		o.MaxConns = int(config.MaxConns)
	}
	// The pool's search_path is the host's own: never the store's schema.
	schema, named, err := chooseSchema(o.Schema, "")
	if err != nil {
		return nil, err
	}
	settings := append([][2]string{{"search_path", quoteIdent(schema)}}, newLimits(o).sessionSettings()...)
	sqldb := sql.OpenDB(newSchemaConnector(stdlib.GetPoolConnector(pool), settings))
	// Idle connections belong to the host's pool, not to database/sql.
	sqldb.SetMaxIdleConns(0)
	sqldb.SetMaxOpenConns(o.MaxConns)
	return open(ctx, sqldb, schema, named, o)
}

// open builds the store on sqldb, whose connections resolve names in
// schema (which may not exist yet), and migrates it.
func open(ctx context.Context, sqldb *sql.DB, schema string, named bool, o Options) (*Store, error) {
	// Migrations in Go run with the complete SQL ones only (tests open
	// older schemas with fewer).
	full := o.migrations == nil
	if o.migrations == nil {
		sub, err := fs.Sub(migrations, "migrations")
		if err != nil {
			sqldb.Close()
			return nil, err
		}
		o.migrations = sub
	}
	db := bun.NewDB(sqldb, pgdialect.New())
	if err := db.PingContext(ctx); err != nil {
		db.Close()
		return nil, fmt.Errorf("postgres: connect: %w", err)
	}
	lim := newLimits(o)
	pipeline := o.pipeline
	if pipeline == nil {
		pipeline = sendPipeline
	}
	store := &Store{schema: schema, Store: bunstore.New(bunstore.Options{
		Write:      db,
		Features:   cms.Features{Name: "postgres", ConcurrentBatchClaims: true, SharedBatchProgress: true},
		Translate:  translate,
		ClaimLock:  "FOR UPDATE SKIP LOCKED",
		RowLock:    "FOR NO KEY UPDATE",
		ReferLock:  "FOR KEY SHARE",
		DeleteLock: "FOR UPDATE",
		ShareLock:  "FOR SHARE",
		InStr:      "strpos",
		// Advisory locks are the database's, not the schema's: every key
		// names the schema (current_schema(): the one the search_path
		// names, which Open creates), so two deployments in one database
		// (or tests in schemas of their own) never wait for each other.
		KeyLock: "SELECT pg_advisory_xact_lock(hashtextextended(current_schema() || '/' || ?, 0))",
		// The two-key form is a key space apart from KeyLock's.
		KindLock:       "SELECT pg_advisory_xact_lock(1, hashtext(current_schema() || '/' || ?))",
		KindLockShared: "SELECT pg_advisory_xact_lock_shared(1, hashtext(current_schema() || '/' || ?))",
		// Key space 2: an account's writes of several records.
		AccountLock: "SELECT pg_advisory_xact_lock(2, hashtext(current_schema() || '/' || ?))",
		// Key space 3: the login attempts of one username.
		LoginLock: "SELECT pg_advisory_xact_lock(3, hashtext(current_schema() || '/' || ?))",
		// Leases are dated by the server's clock, which every instance shares.
		ClockMicros: "CAST(EXTRACT(EPOCH FROM clock_timestamp()) * 1000000 AS BIGINT)",
		// Key space 16: the refresh tokens of one username (rotation
		// against revocation).
		TokenLock:  "SELECT pg_advisory_xact_lock(16, hashtext(current_schema() || '/' || ?))",
		KeyLookups: true,
		InList:     "= ANY(?)",
		ListTable:  "unnest(CAST(? AS text[])) AS value",
		PairsJSON: func(a, b, order string) string {
			return "COALESCE(json_agg(json_build_array(" + a + ", " + b + ") ORDER BY " + order + "), '[]')::text"
		},
		List:               func(ids []string) any { return ids },
		ConnWait:           o.ConnWait,
		StatementWait:      lim.wait(lim.statement),
		BatchStatementWait: lim.wait(lim.batchStatement),
		BatchTxStart:       lim.batchTxStart(),
		Numbered:           true,
		Trace:              o.trace,
		Pipeline:           pipeline,
		Close:              db.Close,
	})}
	err := store.Migrate(ctx, bunstore.MigrateOptions{FS: o.migrations, Data: full,
		Before: func(ctx context.Context, tx bun.Tx) error {
			if _, err := tx.ExecContext(ctx, migrationTxStart); err != nil {
				return err
			}
			return prepare(ctx, tx, schema, named, o.migrations)
		}})
	if err != nil {
		db.Close()
		return nil, fmt.Errorf("postgres: %w", err)
	}
	return store, nil
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
	// A limit met: a lock held past the lock timeout (by a frozen or
	// partitioned instance, or a long batch), a statement cancelled by
	// the statement timeout, a session ended by the idle-in-transaction
	// or idle-session timeout. Outages, not races: the same wait would
	// meet the same holder, so the client is told to come back later.
	case "55P03", "57014", "25P03", "57P05":
		return cms.Unavailable(err)
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
