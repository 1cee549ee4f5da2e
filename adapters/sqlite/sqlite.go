// Package sqlite stores the CMS in one SQLite file: the embedded default,
// with no server to run. The file runs in WAL mode with a busy timeout and
// foreign keys; all writes go through one connection whose transactions
// take the write lock when they begin (BEGIN IMMEDIATE), so concurrent
// writers queue instead of failing with "database is locked", while reads
// use a pool of read-only connections.
package sqlite

import (
	"context"
	"embed"
	"encoding/json"
	"errors"
	"fmt"
	sqlite3 "github.com/mattn/go-sqlite3"
	"io"
	"io/fs"
	"log/slog"
	"path/filepath"
	"time"

	"github.com/bwcms/cms/adapters/internal/bunstore"
	"github.com/bwcms/cms/cms"
	"github.com/uptrace/bun"
	"github.com/uptrace/bun/dialect/sqlitedialect"
)

//go:embed migrations/*.sql
var migrations embed.FS

// Options configure Open. The zero value (or nil) means the defaults.
// Every number follows one rule: 0 means the default, "off" is a named
// negative sentinel (AutoCheckpoints), and any other negative value is
// refused by Open with an error naming the field.
type Options struct {
	// ReadConns is the size of the read-only connection pool.
	// Default: the number of CPUs, at least 2.
	ReadConns int
	// BusyTimeout is how long a statement waits for a lock held by another
	// process. Default DefaultBusyTimeout (10 s).
	BusyTimeout time.Duration
	// CheckpointEvery is how often a connection of its own copies the WAL
	// into the database file, instead of the commit that takes the WAL past
	// 1,000 pages (a large batch's commit then does not wait for it).
	// Default DefaultCheckpointEvery (200 ms); AutoCheckpoints: SQLite's
	// automatic checkpoints.
	CheckpointEvery time.Duration
	// Logger receives what operators should know (a failing background
	// checkpoint). Default: discard.
	Logger *slog.Logger
	// NoGroupCommit commits each write transaction on its own. By
	// default the transactions that arrive while one runs are applied
	// together, each in a SAVEPOINT of its own, with one COMMIT: every
	// one is answered after the commit that holds it, and one's failure
	// rolls back only its own part (for benchmarks that compare).
	NoGroupCommit bool
	// TrimThreshold is how much freed memory the C allocator keeps before
	// it gives memory back to the system (glibc's M_TRIM_THRESHOLD, a
	// setting of the whole process, made by Open). SQLite allocates and
	// frees a page cache for each temporary table a statement stages rows
	// in (several a write); with glibc's own threshold each free gives
	// the memory back and takes it again, and on a virtual machine that
	// made writes up to 1.7 times as costly. Default DefaultTrimThreshold
	// (64 MiB); KeepTrimThreshold leaves the C library's setting. Without
	// glibc nothing is set.
	TrimThreshold int
	// SeparateWALWrites lets SQLite write the WAL by itself: two system
	// calls for each page a commit writes (its frame header, then the
	// page). By default the writer's connection gathers a commit's WAL
	// writes and passes them on in one call, before SQLite publishes the
	// commit to other connections (a VFS of the store's own, over
	// SQLite's default one; Linux). For benchmarks that
	// compare.
	SeparateWALWrites bool
	// KeepSQLiteAllocator leaves SQLite's allocator as it comes. By
	// default SQLite's memory statistics are off (with them, each of the
	// several hundred allocations a write makes takes a mutex of the
	// process to count itself; a setting of the whole process, which
	// SQLite takes only before its first connection opens, and without
	// which sqlite3_memory_used and the heap limits do nothing) and each
	// of the store's connections gets a lookaside of 600 KB instead of
	// 48 KB (the statements a connection keeps prepared fill the default
	// one, and every allocation after that goes to malloc). For
	// benchmarks that compare.
	KeepSQLiteAllocator bool
	// DriverExec runs every statement of a write transaction through
	// database/sql and the driver. By default a statement of one (not a
	// query) runs in one call into SQLite, kept prepared on its
	// connection: database/sql and the driver convert and bind each
	// argument with a call of its own and watch the context with a
	// goroutine, about a quarter of a short statement's cost. For
	// benchmarks that compare.
	DriverExec bool

	// migrations replaces the embedded migrations (tests open older schemas).
	migrations fs.FS
	// trace receives every statement the store runs (plan tests).
	trace func(query string, args []any)
	// spaceProbe replaces probeRoom (tests of a full disk).
	spaceProbe func(dir string) error
	// setTrim replaces setTrimThreshold (tests).
	setTrim func(bytes int) bool
}

// Store is the SQLite cms.Store.
type Store struct {
	*bunstore.Store
	read  *bun.DB // the read pool (tests)
	space *space
}

// Memory is the path Open takes for a database in memory.
const Memory = ":memory:"

// Open opens (creating it when missing) the SQLite database file at path,
// applies pending migrations and returns the store.
//
// A path of ":memory:" (Memory) opens a new database in memory, for
// tests: one database that every connection of the store shares (the
// writer and the read pool alike), and that no other store sees, even one
// opened with ":memory:" too; it ends with Close. It has no WAL, so no
// background checkpoints (CheckpointEvery is not used).
func Open(ctx context.Context, path string, opts *Options) (*Store, error) {
	o := Options{}
	if opts != nil {
		o = *opts
	}
	o, err := o.withDefaults()
	if err != nil {
		return nil, err
	}
	if o.TrimThreshold != KeepTrimThreshold {
		o.setTrim(o.TrimThreshold)
	}
	lookaside := 0
	if !o.KeepSQLiteAllocator {
		memstatusOff()
		lookaside = lookasideSlots
	}
	memory := path == Memory
	room := &space{probe: o.spaceProbe}
	if !memory {
		room.dir = filepath.Dir(path)
	}
	name := path
	if memory {
		name = memoryName()
	}
	manual := o.CheckpointEvery > 0 && !memory
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
	// A memory database lives while a connection to it is open: keep
	// one until Close, whatever the pools close meanwhile.
	var keep io.Closer
	if memory {
		var err error
		if keep, err = openConn(name, memory, o.BusyTimeout); err != nil {
			return nil, fmt.Errorf("sqlite: open %s: %w", path, err)
		}
	}
	// The writer's commits reach the WAL in one write each (walvfs.c).
	var vfs string
	if !memory && !o.SeparateWALWrites && walVFSName != "" {
		if err := registerWALVFS(); err != nil {
			o.Logger.Warn("sqlite: WAL writes go one page at a time", "err", err)
		} else {
			vfs = walVFSName
		}
	}
	writeDB := openDB(name, memory, o.BusyTimeout, writer, manual, vfs, lookaside)
	// One writer: SQLite allows one at a time, and queueing in Go is
	// cheaper than busy-waiting in SQLite.
	writeDB.SetMaxOpenConns(1)
	writeDB.SetConnMaxLifetime(0)
	write := bun.NewDB(writeDB, sqlitedialect.New())
	if err := pingWhileBusy(ctx, write, o.BusyTimeout); err != nil {
		write.Close()
		if keep != nil {
			keep.Close()
		}
		return nil, fmt.Errorf("sqlite: open %s: %w", path, err)
	}
	readDB := openDB(name, memory, o.BusyTimeout, reader, manual, "", lookaside)
	readDB.SetMaxOpenConns(o.ReadConns)
	readDB.SetMaxIdleConns(o.ReadConns)
	read := bun.NewDB(readDB, sqlitedialect.New())
	var ckpt *checkpoints
	store := &Store{read: read, space: room, Store: bunstore.New(bunstore.Options{
		Write:        write,
		Read:         read,
		Features:     cms.Features{Name: "sqlite"},
		Translate:    func(err error) error { return translate(err, room) },
		NotNull:      notNull,
		ExecRaw:      rawExec(o.DriverExec),
		NamesIndexes: true,
		RTree:        true,
		InStr:        "instr",
		ClockMicros:  "CAST(unixepoch('subsec') * 1000000 AS INTEGER)",
		// One writer, whose statements take microseconds: watching the
		// caller's context would cost more than the statements.
		DetachTxStatements: true,
		DetachPointReads:   true,
		PlainTx:            "BEGIN IMMEDIATE",
		GroupCommit:        !o.NoGroupCommit,
		Trace:              o.trace,
		InList:             "IN (SELECT value FROM json_each(?))",
		ListTable:          "json_each(?)",
		PairsJSON: func(a, b, order string) string {
			return "json_group_array(json_array(" + a + ", " + b + ") ORDER BY " + order + ")"
		},
		List: jsonList,
		Close: func() error {
			if ckpt != nil {
				ckpt.close()
			}
			rerr := read.Close()
			werr := write.Close()
			if keep != nil {
				keep.Close()
			}
			return errors.Join(werr, rerr)
		},
	})}
	if err := store.Migrate(ctx, bunstore.MigrateOptions{FS: o.migrations, Data: full}); err != nil {
		store.Close()
		return nil, fmt.Errorf("sqlite: %s: %w", path, err)
	}
	if manual {
		db := openDB(name, memory, o.BusyTimeout, checkpointer, manual, "", 0)
		db.SetMaxOpenConns(1)
		ckpt = startCheckpoints(db, writeDB, o.CheckpointEvery, o.Logger)
	}
	return store, nil
}

// Ready implements cms.Store: the database answers with the schema this
// build expects, and its disk has room if a write found none.
func (s *Store) Ready(ctx context.Context) error {
	if err := s.Store.Ready(ctx); err != nil {
		return err
	}
	return s.space.ready()
}

// jsonList passes a list as one JSON array argument, read by json_each.
func jsonList(ids []string) any {
	b, _ := json.Marshal(ids) // a []string always marshals
	return string(b)
}

// pingWhileBusy opens the first connection. Its DSN turns WAL on, which
// on a new file another process may be migrating answers "database is
// locked" at once, without waiting the busy timeout: instances started
// together on a new file try again until the timeout runs out.
func pingWhileBusy(ctx context.Context, db *bun.DB, busy time.Duration) error {
	deadline := time.Now().Add(busy)
	wait := 5 * time.Millisecond
	for {
		err := db.PingContext(ctx)
		var e sqlite3.Error
		if err == nil || !errors.As(err, &e) || (e.Code != sqlite3.ErrBusy && e.Code != sqlite3.ErrLocked) || time.Now().After(deadline) {
			return err
		}
		select {
		case <-ctx.Done():
			return err
		case <-time.After(wait):
		}
		wait = min(2*wait, 200*time.Millisecond)
	}
}
