//go:build linux && cgo

package sqlite

/*
// The driver's SQLite, linked into the same program, declared weak as in
// walvfs.c.
typedef struct sqlite3 sqlite3;
extern int sqlite3_config(int, ...) __attribute__((weak));
extern int sqlite3_db_config(sqlite3 *, int, ...) __attribute__((weak));
extern int sqlite3_auto_extension(void (*)(void)) __attribute__((weak));

static int bw_memstatus_off(void) {
	if (!sqlite3_config) {
		return -1;
	}
	return sqlite3_config(9, 0); // SQLITE_CONFIG_MEMSTATUS
}

typedef struct sqlite3_stmt sqlite3_stmt;
extern int sqlite3_prepare_v2(sqlite3 *, const char *, int, sqlite3_stmt **, const char **) __attribute__((weak));
extern int sqlite3_finalize(sqlite3_stmt *) __attribute__((weak));
extern int sqlite3_db_status(sqlite3 *, int, int *, int *, int) __attribute__((weak));

// The lookaside of the connections this thread opens (0 slots: SQLite's
// default), whether the last one got it, and what holds it meanwhile.
static __thread int bw_slots, bw_slot_size, bw_set;
static __thread sqlite3_stmt *bw_held;
static __thread sqlite3 *bw_db;

// bw_connected runs in every connection the process opens (an automatic
// extension), near the end of its opening, where SQLite then sets the
// process's default lookaside unless some lookaside memory is in use: a
// statement prepared here holds one slot of the lookaside just set,
// until bw_release, once the opening is done.
static int bw_connected(sqlite3 *db, const char **err, const void *api) {
	if (bw_slots <= 0 || bw_held) {
		return 0;
	}
	bw_db = db;
	if (sqlite3_db_config(db, 1001, (void *)0, bw_slot_size, bw_slots) != 0) { // SQLITE_DBCONFIG_LOOKASIDE
		return 0;
	}
	bw_set = sqlite3_prepare_v2(db, "SELECT 1", -1, &bw_held, 0) == 0 && bw_held;
	return 0;
}

static int bw_register_connected(void) {
	if (!sqlite3_auto_extension || !sqlite3_db_config || !sqlite3_prepare_v2 || !sqlite3_finalize) {
		return -1;
	}
	return sqlite3_auto_extension((void (*)(void))bw_connected);
}

static void bw_lookaside_next(int size, int slots) {
	bw_slot_size = size;
	bw_slots = slots;
	bw_set = 0;
	bw_db = 0;
}

// bw_release ends the opening: it lets go of the slot bw_connected held,
// and reports whether the connection got its lookaside.
static int bw_release(void) {
	if (bw_held) {
		sqlite3_finalize(bw_held);
		bw_held = 0;
	}
	int set = bw_set;
	bw_lookaside_next(0, 0);
	return set;
}

// bw_last_db is the connection bw_connected saw last on this thread
// (tests).
static void *bw_last_db(void) { return bw_db; }

// bw_lookaside_full counts the allocations of db the lookaside could not
// take because every slot was in use (tests).
static int bw_lookaside_full(void *db) {
	int cur = 0, high = 0;
	if (!sqlite3_db_status || sqlite3_db_status((sqlite3 *)db, 6, &cur, &high, 0) != 0) { // SQLITE_DBSTATUS_LOOKASIDE_MISS_FULL
		return -1;
	}
	return high;
}
*/
import "C"

import (
	"database/sql/driver"
	"runtime"
	"sync"
	"unsafe"
)

// lookasideSlot and lookasideSlots are the lookaside each of the store's
// connections gets: SQLite's default slot size, 500 slots instead of 40
// (600 KB a connection; 2,000 did no better, docs/performance.md).
const lookasideSlot, lookasideSlots = 1200, 500

// memstatusOff turns SQLite's memory statistics off for the process: with
// them on, every allocation SQLite makes takes a process-wide mutex to
// count itself (a create's statements make several hundred). SQLite takes
// the setting only before its first connection in the process opens; it
// reports whether it was taken.
var memstatusOff = sync.OnceValue(func() bool { return C.bw_memstatus_off() == 0 })

// registerConnected registers bw_connected with SQLite, once for the
// process: it does nothing to a connection but one openWithLookaside
// opens.
var registerConnected = sync.OnceValue(func() bool { return C.bw_register_connected() == 0 })

// openWithLookaside opens a connection with open, giving it a lookaside
// of slots slots of size bytes (SQLite's allocator for its small,
// short-lived objects): SQLite's default of 40 is taken by the
// statements a connection keeps prepared, and every allocation after
// that goes to malloc. The size can only be set before the connection
// holds lookaside memory, which the driver's first statements do, so it
// is set while SQLite opens the connection (bw_connected), on this
// goroutine's thread.
// It reports whether the lookaside was set.
func openWithLookaside(size, slots int, open func() (driver.Conn, error)) (driver.Conn, bool, error) {
	c, set, _, err := openTracked(size, slots, open)
	return c, set, err
}

// openTracked is openWithLookaside, which also returns the connection's
// SQLite handle (nil where unknown: tests).
func openTracked(size, slots int, open func() (driver.Conn, error)) (driver.Conn, bool, unsafe.Pointer, error) {
	if slots <= 0 || !registerConnected() {
		c, err := open()
		return c, false, nil, err
	}
	runtime.LockOSThread()
	defer runtime.UnlockOSThread()
	C.bw_lookaside_next(C.int(size), C.int(slots))
	c, err := open()
	db := C.bw_last_db()
	set := C.bw_release() == 1
	return c, set, db, err
}

// lookasideFull counts the allocations of the connection db that found
// every lookaside slot in use (tests); -1 when unknown.
func lookasideFull(db unsafe.Pointer) int {
	if db == nil {
		return -1
	}
	return int(C.bw_lookaside_full(db))
}
