//go:build linux && cgo

package sqlite

/*
#include <string.h>

typedef struct sqlite3 sqlite3;
typedef struct sqlite3_stmt sqlite3_stmt;
typedef long long sqlite3_int64;
extern int sqlite3_prepare_v3(sqlite3 *, const char *, int, unsigned int, sqlite3_stmt **, const char **) __attribute__((weak));
extern int sqlite3_bind_int64(sqlite3_stmt *, int, sqlite3_int64) __attribute__((weak));
extern int sqlite3_bind_text(sqlite3_stmt *, int, const char *, int, void (*)(void *)) __attribute__((weak));
extern int sqlite3_bind_null(sqlite3_stmt *, int) __attribute__((weak));
extern int sqlite3_bind_double(sqlite3_stmt *, int, double) __attribute__((weak));
extern int sqlite3_bind_blob(sqlite3_stmt *, int, const void *, int, void (*)(void *)) __attribute__((weak));
extern int sqlite3_step(sqlite3_stmt *) __attribute__((weak));
extern int sqlite3_reset(sqlite3_stmt *) __attribute__((weak));
extern int sqlite3_clear_bindings(sqlite3_stmt *) __attribute__((weak));
extern int sqlite3_finalize(sqlite3_stmt *) __attribute__((weak));
extern int sqlite3_extended_errcode(sqlite3 *) __attribute__((weak));
extern const char *sqlite3_errmsg(sqlite3 *) __attribute__((weak));
extern const char *sqlite3_errstr(int) __attribute__((weak));
extern int sqlite3_system_errno(sqlite3 *) __attribute__((weak));
extern int sqlite3_bind_parameter_count(sqlite3_stmt *) __attribute__((weak));
extern sqlite3_int64 sqlite3_changes64(sqlite3 *) __attribute__((weak));
extern sqlite3_int64 sqlite3_last_insert_rowid(sqlite3 *) __attribute__((weak));

static int bw_raw_available(void) {
	return sqlite3_prepare_v3 && sqlite3_bind_int64 && sqlite3_bind_text && sqlite3_bind_null && sqlite3_bind_double && sqlite3_bind_blob && sqlite3_step &&
		sqlite3_reset && sqlite3_clear_bindings && sqlite3_finalize && sqlite3_extended_errcode && sqlite3_errmsg &&
		sqlite3_errstr && sqlite3_system_errno && sqlite3_bind_parameter_count &&
		sqlite3_changes64 && sqlite3_last_insert_rowid;
}

// The kinds of an argument of bw_exec.
enum { BW_NULL, BW_INT, BW_TEXT, BW_FLOAT, BW_BLOB };

// BW_DRIVER answers what bw_exec leaves to the driver, having run
// nothing: a text of no statement or of several, an argument count
// other than the statement's (the driver answers its own error).
#define BW_DRIVER (-1)

// bw_exec runs the statement *stmt (prepared from sql first when NULL,
// kept prepared: SQLITE_PREPARE_PERSISTENT) with n arguments to its end:
// argument i is kinds[i], ints[i] for BW_INT, floats[i] for BW_FLOAT,
// text[offs[i]:offs[i]+lens[i]] for BW_TEXT and BW_BLOB (bound without a
// copy and unbound before the return, so that SQLite keeps no pointer to
// the caller's memory). It returns SQLite's
// extended result code, and the rows changed and the last row id on
// success, else the message in errbuf and the system's errno.
static int bw_exec(sqlite3 *db, sqlite3_stmt **stmt, const char *sql, int sqlLen, int n, const unsigned char *kinds,
		const sqlite3_int64 *ints, const double *floats, const char *text, const int *offs, const int *lens,
		sqlite3_int64 *changes, sqlite3_int64 *rowid, char *errbuf, int errlen, int *sysErrno) {
	int rc = 0;
	if (!*stmt) {
		const char *tail = 0;
		rc = sqlite3_prepare_v3(db, sql, sqlLen, 0x01, stmt, &tail); // SQLITE_PREPARE_PERSISTENT
		if (rc == 0 && !*stmt) {
			return BW_DRIVER;
		}
		if (rc == 0) {
			for (; tail && tail < sql + sqlLen; tail++) {
				if (*tail != ' ' && *tail != '\n' && *tail != '\t' && *tail != '\r' && *tail != ';') {
					sqlite3_finalize(*stmt);
					*stmt = 0;
					return BW_DRIVER;
				}
			}
		}
	}
	if (rc == 0 && sqlite3_bind_parameter_count(*stmt) != n) {
		return BW_DRIVER;
	}
	for (int i = 0; rc == 0 && i < n; i++) {
		switch (kinds[i]) {
		case BW_INT:
			rc = sqlite3_bind_int64(*stmt, i + 1, ints[i]);
			break;
		case BW_TEXT:
			rc = sqlite3_bind_text(*stmt, i + 1, text + offs[i], lens[i], (void (*)(void *))0); // SQLITE_STATIC
			break;
		case BW_BLOB:
			rc = sqlite3_bind_blob(*stmt, i + 1, text + offs[i], lens[i], (void (*)(void *))0);
			break;
		case BW_FLOAT:
			rc = sqlite3_bind_double(*stmt, i + 1, floats[i]);
			break;
		default:
			rc = sqlite3_bind_null(*stmt, i + 1);
		}
	}
	if (rc == 0) {
		int step;
		while ((step = sqlite3_step(*stmt)) == 100) { // SQLITE_ROW: a statement that answers rows runs to its end
		}
		if (step == 101) { // SQLITE_DONE
			*changes = sqlite3_changes64(db);
			*rowid = sqlite3_last_insert_rowid(db);
		} else {
			rc = step;
		}
	}
	if (rc != 0) {
		// The handle's extended code, where it holds this failure (an
		// API misused records none there).
		int ext = sqlite3_extended_errcode(db);
		const char *msg = sqlite3_errmsg(db);
		if (ext != 0 && (ext & 0xff) == (rc & 0xff)) {
			rc = ext;
		} else {
			msg = sqlite3_errstr(rc);
		}
		strncpy(errbuf, msg, errlen - 1);
		errbuf[errlen - 1] = 0;
		*sysErrno = sqlite3_system_errno(db);
	}
	if (*stmt) {
		sqlite3_reset(*stmt);
		sqlite3_clear_bindings(*stmt);
	}
	return rc;
}
*/
import "C"

import (
	"database/sql"
	"database/sql/driver"
	"slices"
	"sync"
	"syscall"
	"unsafe"

	sqlite3 "github.com/mattn/go-sqlite3"
)

// rawConn is a connection of the store's: the driver's, with the
// statements execRaw runs on its SQLite handle, which it finalizes
// before the driver closes the connection.
type rawConn struct {
	*sqlite3.SQLiteConn
	db    *C.sqlite3
	mu    sync.Mutex
	stmts map[string]*C.sqlite3_stmt
	used  []string // stmts' texts, the least recently used first
}

// rawSupported: execRaw runs statements here (Linux, cgo).
const rawSupported = true

var rawAvailable = sync.OnceValue(func() bool { return C.bw_raw_available() == 1 })

// newRawConn wraps c, whose SQLite handle is db, or returns c when db is
// unknown.
func newRawConn(c driver.Conn, db unsafe.Pointer) driver.Conn {
	sc, ok := c.(*sqlite3.SQLiteConn)
	if !ok || db == nil || !rawAvailable() {
		return c
	}
	return &rawConn{SQLiteConn: sc, db: (*C.sqlite3)(db), stmts: map[string]*C.sqlite3_stmt{}}
}

// Close finalizes the connection's statements, then closes it.
func (c *rawConn) Close() error {
	c.mu.Lock()
	for q, st := range c.stmts {
		C.sqlite3_finalize(st)
		delete(c.stmts, q)
	}
	c.used = nil
	c.mu.Unlock()
	return c.SQLiteConn.Close()
}

// maxRawStmts is the most statements a connection keeps prepared for
// execRaw, the least recently used given up first, as the driver's own
// cache of 64 does: a statement of many rows (a batch's inserts) comes
// in a text for each row count, each holding much memory prepared.
const maxRawStmts = 64

// keep notes st, the statement of query, as the most recently used,
// giving up the least recently used one past maxRawStmts.
func (c *rawConn) keep(query string, st *C.sqlite3_stmt) {
	if st == nil {
		return
	}
	if c.stmts[query] != nil {
		i := slices.Index(c.used, query)
		c.used = append(slices.Delete(c.used, i, i+1), query)
		return
	}
	if len(c.used) == maxRawStmts {
		C.sqlite3_finalize(c.stmts[c.used[0]])
		delete(c.stmts, c.used[0])
		c.used = slices.Delete(c.used, 0, 1)
	}
	c.stmts[query] = st
	c.used = append(c.used, query)
}

// deref is a's value where a is a pointer the store passes (a nullable
// column's): nil for a nil pointer, as database/sql converts them.
func deref(a any) any {
	switch v := a.(type) {
	case *string:
		return valueOf(v)
	case *float64:
		return valueOf(v)
	case *int64:
		return valueOf(v)
	case *bool:
		return valueOf(v)
	}
	return a
}

func valueOf[T any](p *T) any {
	if p == nil {
		return nil
	}
	return *p
}

// rawResult is the sql.Result of execRaw.
type rawResult struct{ changes, rowid int64 }

func (r rawResult) LastInsertId() (int64, error) { return r.rowid, nil }
func (r rawResult) RowsAffected() (int64, error) { return r.changes, nil }

// rawError is a failure of execRaw: SQLite's codes as the driver's
// errors carry them, and SQLite's message.
type rawError struct {
	code sqlite3.Error
	msg  string
}

func (e *rawError) Error() string { return e.msg }
func (e *rawError) Unwrap() error { return e.code }

// execRaw runs query with args (strings, integers, nil) on the driver
// connection dc in one call into SQLite, without database/sql's and the
// driver's work around each statement (converting and binding each
// argument with a call of its own, a goroutine watching the context):
// about a quarter of a short statement's cost. It returns handled false,
// and runs nothing, for a connection or an argument it does not take.
func execRaw(dc any, query string, args []any) (sql.Result, bool, error) {
	c, ok := dc.(*rawConn)
	if !ok {
		return nil, false, nil
	}
	n := len(args)
	var (
		kinds  = make([]C.uchar, n+1) // +1: never a nil pointer to C
		ints   = make([]C.sqlite3_int64, n+1)
		floats = make([]C.double, n+1)
		offs   = make([]C.int, n+1)
		lens   = make([]C.int, n+1)
		size   int
	)
	for _, a := range args {
		switch v := deref(a).(type) {
		case string:
			size += len(v)
		case []byte:
			size += len(v)
		}
	}
	text := make([]byte, 0, size+1)
	for i, a := range args {
		switch v := deref(a).(type) {
		case nil:
			kinds[i] = C.BW_NULL
		case string:
			kinds[i], offs[i], lens[i] = C.BW_TEXT, C.int(len(text)), C.int(len(v))
			text = append(text, v...)
		case []byte:
			if v == nil {
				kinds[i] = C.BW_NULL
				break
			}
			kinds[i], offs[i], lens[i] = C.BW_BLOB, C.int(len(text)), C.int(len(v))
			text = append(text, v...)
		case float64:
			kinds[i], floats[i] = C.BW_FLOAT, C.double(v)
		case int64:
			kinds[i], ints[i] = C.BW_INT, C.sqlite3_int64(v)
		case int:
			kinds[i], ints[i] = C.BW_INT, C.sqlite3_int64(v)
		case bool:
			kinds[i] = C.BW_INT
			if v {
				ints[i] = 1
			}
		default:
			return nil, false, nil // the driver converts it (a time, a Valuer, another named type)
		}
	}
	text = append(text, 0)
	c.mu.Lock()
	defer c.mu.Unlock()
	st := c.stmts[query]
	var changes, rowid C.sqlite3_int64
	var errbuf [512]C.char
	var sysErrno C.int
	rc := C.bw_exec(c.db, &st, (*C.char)(unsafe.Pointer(unsafe.StringData(query))), C.int(len(query)), C.int(n),
		&kinds[0], &ints[0], &floats[0], (*C.char)(unsafe.Pointer(&text[0])), &offs[0], &lens[0], &changes, &rowid,
		&errbuf[0], C.int(len(errbuf)), &sysErrno)
	c.keep(query, st)
	if rc == C.BW_DRIVER {
		return nil, false, nil
	}
	if rc != 0 {
		msg := C.GoString(&errbuf[0])
		code := sqlite3.Error{Code: sqlite3.ErrNo(rc & 0xff), ExtendedCode: sqlite3.ErrNoExtended(rc), SystemErrno: syscall.Errno(sysErrno)}
		if code.SystemErrno != 0 {
			msg += ": " + code.SystemErrno.Error()
		}
		return nil, true, &rawError{code: code, msg: msg}
	}
	return rawResult{changes: int64(changes), rowid: int64(rowid)}, true, nil
}
