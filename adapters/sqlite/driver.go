package sqlite

import (
	"context"
	"crypto/rand"
	"database/sql"
	"database/sql/driver"
	"encoding/hex"
	"errors"
	"fmt"
	"io"
	"net/url"
	"strings"
	"time"

	"github.com/bwcms/cms/cms"
	"github.com/mattn/go-sqlite3"
)

// The driver is github.com/mattn/go-sqlite3, chosen by measurement
// (docs/performance.md). Only this file knows it.

// role is what a pool of connections is for.
type role int

const (
	writer       role = iota // the one connection that writes
	reader                   // the read-only pool
	checkpointer             // copies the WAL into the file in the background
)

// openDB opens a pool of connections of one role on path (memory: the
// name of an in-memory database, memoryName), through a connector of its
// own (no driver registered by name). With
// manualCheckpoints the writer does not checkpoint by itself: otherwise
// the commit that takes the WAL past 1,000 pages copies it into the file
// before it returns (about a tenth of a large batch). vfs names the
// writer's VFS (walvfs.c's, or "" for SQLite's default). Each connection
// gets a lookaside of lookaside slots (openTracked), 0 for SQLite's
// default, and is a rawConn where its SQLite handle is known (execRaw).
func openDB(path string, memory bool, busy time.Duration, r role, manualCheckpoints bool, vfs string, lookaside int) *sql.DB {
	drv := &sqlite3.SQLiteDriver{}
	if r == writer {
		drv.ConnectHook = func(c *sqlite3.SQLiteConn) error {
			// The writer is the connection that starts the WAL over. Its
			// temporary storage stays in memory: the statement journals of
			// a group's savepoints and of multi-row statements spilled to a
			// temporary file past 64 KiB, about 30 writes a create
			// (docs/performance.md). A journal holds the pages one
			// statement or savepoint changed, at most a batch chunk's.
			pragmas := fmt.Sprintf("PRAGMA journal_size_limit = %d; PRAGMA temp_store = MEMORY", walSizeLimit)
			if manualCheckpoints {
				pragmas += "; PRAGMA wal_autocheckpoint = 0"
			}
			_, err := c.Exec(pragmas, nil)
			return err
		}
	}
	if r != writer {
		vfs = ""
	}
	return sql.OpenDB(connector{drv: drv, dsn: dsn(path, memory, busy, r == reader, vfs), lookaside: lookaside})
}

// openConn opens one connection of the writer's kind on path, outside any
// pool.
func openConn(path string, memory bool, busy time.Duration) (io.Closer, error) {
	return (&sqlite3.SQLiteDriver{}).Open(dsn(path, memory, busy, false, ""))
}

type connector struct {
	drv       *sqlite3.SQLiteDriver
	dsn       string
	lookaside int // slots, 0 for SQLite's default
}

func (c connector) Connect(context.Context) (driver.Conn, error) {
	conn, _, db, err := openTracked(lookasideSlot, c.lookaside, func() (driver.Conn, error) { return c.drv.Open(c.dsn) })
	if err != nil {
		return nil, err
	}
	return newRawConn(conn, db), nil
}

func (c connector) Driver() driver.Driver { return c.drv }

// memoryName is a new name of a memdb database (a leading slash shares
// it among the connections of the process that name it).
func memoryName() string {
	b := make([]byte, 8)
	rand.Read(b)
	return "/bwcms-" + hex.EncodeToString(b)
}

// dsn builds the connection string: WAL, a busy timeout, foreign keys,
// NORMAL synchronous (durable in WAL mode up to the last checkpointed
// commit on power loss, never corrupt), immediate write transactions, and
// read-only connections for the read pool. A memory database is SQLite's
// memdb VFS under its name: one database every connection that names it
// shares, with the locking of a file's (readers wait for a commit, with
// the busy timeout, instead of failing as shared-cache connections do),
// a rollback journal in memory, no WAL. vfs, for a file, names a VFS
// other than the default.
func dsn(path string, memory bool, busy time.Duration, readOnly bool, vfs string) string {
	q := url.Values{}
	if memory {
		q.Set("vfs", "memdb")
	} else {
		if vfs != "" {
			q.Set("vfs", vfs)
		}
		q.Set("_journal_mode", "WAL")
		q.Set("_synchronous", "NORMAL")
	}
	q.Set("_busy_timeout", fmt.Sprint(busy.Milliseconds()))
	q.Set("_foreign_keys", "on")
	q.Set("_txlock", "immediate")
	// Reuse prepared statements: the store's query texts are constant.
	q.Set("_stmt_cache_size", "64")
	if readOnly {
		q.Set("mode", "ro")
	}
	// A URI filename: only these three characters need escaping.
	escaped := strings.NewReplacer("%", "%25", "?", "%3f", "#", "%23").Replace(path)
	return "file:" + escaped + "?" + q.Encode()
}

// rawExec is execRaw, or nil with DriverExec or where it runs nothing.
func rawExec(driverExec bool) func(dc any, query string, args []any) (sql.Result, bool, error) {
	if driverExec || !rawSupported {
		return nil
	}
	return execRaw
}

// notNull reports whether err is the failure of the NOT NULL constraint
// of column (table.column).
func notNull(err error, column string) bool {
	var e sqlite3.Error
	return errors.As(err, &e) && e.ExtendedCode == sqlite3.ErrConstraintNotNull && strings.HasSuffix(err.Error(), "failed: "+column)
}

// translate maps SQLite errors the library can act on. A unique
// violation is a conflict, never a race: write transactions run one at a
// time, so no concurrent writer can take a key meanwhile. A database file
// that cannot be opened or read (SQLITE_CANTOPEN, SQLITE_IOERR), a disk
// with no room left (SQLITE_FULL, noted in room for readiness), and a
// write lock still held by another connection when the busy timeout ran
// out (SQLITE_BUSY, SQLITE_LOCKED: a long batch, another process), make
// the store unavailable: the same request may succeed later, and running
// the transaction again at once would only wait the timeout again.
func translate(err error, room *space) error {
	var e sqlite3.Error
	if !errors.As(err, &e) {
		return err
	}
	room.noted(e)
	switch e.ExtendedCode {
	case sqlite3.ErrConstraintUnique, sqlite3.ErrConstraintPrimaryKey:
		// Never a race: write transactions run one at a time, so a key
		// checked free in one is still free when it writes.
		return &cms.Error{Code: cms.CodeConflict, Message: "already exists", Err: err}
	case sqlite3.ErrConstraintForeignKey:
		return &cms.Error{Code: cms.CodeNotFound, Message: "referenced row not found", Err: err}
	}
	switch e.Code {
	case sqlite3.ErrCantOpen, sqlite3.ErrIoErr, sqlite3.ErrFull, sqlite3.ErrBusy, sqlite3.ErrLocked:
		return cms.Unavailable(err)
	}
	return err
}
