//go:build linux && cgo

package sqlite

import (
	"database/sql/driver"
	"fmt"
	"path/filepath"
	"testing"

	sqlite3 "github.com/mattn/go-sqlite3"
)

// TestLookaside: a connection opened with openTracked gets the
// lookaside asked for, which SQLite would otherwise replace with the
// process's default at the end of the opening: with 64 statements kept
// prepared (the store's statement cache) the default one is full and
// allocations go to malloc; the larger one takes them all.
func TestLookaside(t *testing.T) {
	path := filepath.Join(t.TempDir(), "cms.db")
	full := func(slots int) int {
		c, set, db, err := openTracked(lookasideSlot, slots, func() (driver.Conn, error) {
			return (&sqlite3.SQLiteDriver{}).Open(dsn(path, false, 0, false, ""))
		})
		if err != nil {
			t.Fatal(err)
		}
		defer c.Close()
		if set != (slots > 0) {
			t.Fatalf("%d slots: lookaside set %v", slots, set)
		}
		if db == nil {
			t.Fatal("no handle of the connection")
		}
		conn := c.(*sqlite3.SQLiteConn)
		if _, err := conn.Exec("CREATE TABLE IF NOT EXISTS t (id INTEGER PRIMARY KEY, v TEXT)", nil); err != nil {
			t.Fatal(err)
		}
		for i := range 64 { // 64 texts: the cache keeps each prepared
			if _, err := conn.Exec(fmt.Sprintf("INSERT INTO t (v) SELECT ? || '%d' || ? WHERE %d >= 0", i, i), []driver.Value{"a", "b"}); err != nil {
				t.Fatal(err)
			}
		}
		return lookasideFull(db)
	}
	// SQLite's default is measured by asking for its own size, 40 slots
	// (a connection opened without asking has no handle here).
	if n := full(lookasideSlots); n != 0 {
		t.Errorf("lookaside of %d slots: %d allocations found it full, want 0", lookasideSlots, n)
	}
	if n := full(40); n == 0 {
		t.Errorf("lookaside of SQLite's default 40 slots: no allocation found it full; the test no longer shows the difference")
	}
}
