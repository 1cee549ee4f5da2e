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

extern int sqlite3_create_collation_v2(sqlite3 *, const char *, int, void *,
	int (*)(void *, int, const void *, int, const void *), void (*)(void *)) __attribute__((weak));
extern int sqlite3_db_status(sqlite3 *, int, int *, int *, int) __attribute__((weak));

// Whether this thread opens a connection of the store's (openTracked),
// the lookaside to give it (0 slots: SQLite's default), whether it got
// it, and its handle.
static __thread int bw_tracking, bw_slots, bw_slot_size, bw_set;
static __thread sqlite3 *bw_db;

static int bw_same(void *arg, int n1, const void *s1, int n2, const void *s2) { return 0; }

// bw_connected runs in every connection the process opens (an automatic
// extension); for one openTracked opens, it notes the handle and sets
// the lookaside. SQLite sets the process's default lookaside after the
// automatic extensions, unless some lookaside memory is then in use: a
// collation registered here holds one slot of the lookaside just set
// until the connection closes (its definition is allocated there), and
// registering one reads nothing (a statement prepared here would read
// the schema, and fail the opening while a writer holds its lock).
static int bw_connected(sqlite3 *db, const char **err, const void *api) {
	if (!bw_tracking) {
		return 0;
	}
	bw_db = db;
	if (bw_slots <= 0 || sqlite3_db_config(db, 1001, (void *)0, bw_slot_size, bw_slots) != 0) { // SQLITE_DBCONFIG_LOOKASIDE
		return 0;
	}
	bw_set = sqlite3_create_collation_v2(db, "bwcms_lookaside", 1, 0, bw_same, 0) == 0; // SQLITE_UTF8
	return 0;
}

static int bw_register_connected(void) {
	if (!sqlite3_auto_extension || !sqlite3_db_config || !sqlite3_create_collation_v2) {
		return -1;
	}
	return sqlite3_auto_extension((void (*)(void))bw_connected);
}

static void bw_lookaside_next(int tracking, int size, int slots) {
	bw_tracking = tracking;
	bw_slot_size = size;
	bw_slots = slots;
	bw_set = 0;
	bw_db = 0;
}

// bw_release ends the opening and reports whether the connection got
// its lookaside.
static int bw_release(void) {
	int set = bw_set;
	bw_lookaside_next(0, 0, 0);
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
// connections gets: 600 KB asked for as 500 slots of SQLite's default
// size instead of 40 (SQLite divides it between slots of 1,200 and of 128
// bytes); 2,000 did no better.
const lookasideSlot, lookasideSlots = 1200, 500

// memstatusOff turns SQLite's memory statistics off for the process: with
// them on, every allocation SQLite makes takes a process-wide mutex to
// count itself (a create's statements make several hundred). SQLite takes
// the setting only before its first connection in the process opens; it
// reports whether it was taken.
var memstatusOff = sync.OnceValue(func() bool { return C.bw_memstatus_off() == 0 })

// registerConnected registers bw_connected with SQLite, once for the
// process: it does nothing to a connection but one openTracked
// opens.
var registerConnected = sync.OnceValue(func() bool { return C.bw_register_connected() == 0 })

// openTracked opens a connection with open and returns its SQLite
// handle (nil where unknown), giving it a lookaside of slots slots of
// size bytes (SQLite's allocator for its small, short-lived objects):
// SQLite's default of 40 is taken by the statements a connection keeps
// prepared, and every allocation after that goes to malloc. The size can
// only be set before the connection holds lookaside memory, which the
// driver's first statements do, so it is set while SQLite opens the
// connection (bw_connected), on this goroutine's thread. It reports
// whether the lookaside was set.
func openTracked(size, slots int, open func() (driver.Conn, error)) (driver.Conn, bool, unsafe.Pointer, error) {
	if !registerConnected() {
		c, err := open()
		return c, false, nil, err
	}
	runtime.LockOSThread()
	defer runtime.UnlockOSThread()
	C.bw_lookaside_next(1, C.int(size), C.int(slots))
	released := false
	defer func() { // open panicked: this thread opens no more of ours
		if !released {
			C.bw_release()
		}
	}()
	c, err := open()
	db := C.bw_last_db()
	set := C.bw_release() == 1
	released = true
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
