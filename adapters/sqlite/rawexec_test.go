//go:build linux && cgo

package sqlite

import (
	"database/sql/driver"
	"fmt"
	"path/filepath"
	"testing"

	"github.com/bwcms/cms/cms"
	sqlite3 "github.com/mattn/go-sqlite3"
)

// TestExecRaw: execRaw runs a statement with its arguments of every kind
// the store passes, keeps it prepared, answers SQLite's codes and message
// for a failure (a unique key is the store's conflict), and leaves to the
// driver what it does not take: a text of two statements, an argument
// of another type.
func TestExecRaw(t *testing.T) {
	c, _, db, err := openTracked(lookasideSlot, lookasideSlots, func() (driver.Conn, error) {
		return (&sqlite3.SQLiteDriver{}).Open(dsn(filepath.Join(t.TempDir(), "cms.db"), false, 0, false, ""))
	})
	if err != nil {
		t.Fatal(err)
	}
	rc, ok := newRawConn(c, db).(*rawConn)
	if !ok {
		t.Fatal("the connection is not a rawConn")
	}
	defer rc.Close()
	if _, err := rc.Exec("CREATE TABLE t (k TEXT PRIMARY KEY, i INTEGER, f REAL, b BLOB, n TEXT)", nil); err != nil {
		t.Fatal(err)
	}
	insert := "INSERT INTO t (k, i, f, b, n) VALUES (?, ?, ?, ?, ?)"
	f, none := 1.5, (*string)(nil)
	for i, k := range []string{"a", "b", "c"} {
		res, handled, err := execRaw(rc, insert, []any{&k, int64(i), &f, []byte{0, 1}, none})
		if err != nil || !handled {
			t.Fatalf("insert %s: handled %v, %v", k, handled, err)
		}
		id, _ := res.LastInsertId()
		n, _ := res.RowsAffected()
		if n != 1 || id != int64(i+1) {
			t.Fatalf("insert %s: %d rows, last id %d", k, n, id)
		}
	}
	if len(rc.stmts) != 1 {
		t.Errorf("%d statements kept prepared, want 1", len(rc.stmts))
	}
	rows, err := rc.Query("SELECT k, i, f, hex(b), n IS NULL FROM t ORDER BY k", nil)
	if err != nil {
		t.Fatal(err)
	}
	vals := make([]driver.Value, 5)
	var got []string
	for rows.Next(vals) == nil {
		got = append(got, vals[0].(string))
		if vals[1].(int64) < 0 || vals[2].(float64) != 1.5 || vals[3].(string) != "0001" || vals[4].(int64) != 1 {
			t.Errorf("row %v", vals)
		}
	}
	rows.Close()
	if len(got) != 3 {
		t.Fatalf("rows %v", got)
	}
	// A failure: the driver's error codes, SQLite's message, translated
	// as the store does.
	_, handled, err := execRaw(rc, insert, []any{"a", int64(9), 0.0, nil, nil})
	if !handled || err == nil {
		t.Fatalf("duplicate key: handled %v, %v", handled, err)
	}
	if e, ok := err.(*rawError); !ok || e.code.ExtendedCode != sqlite3.ErrConstraintPrimaryKey || e.Error() != "UNIQUE constraint failed: t.k" {
		t.Fatalf("duplicate key: %#v", err)
	}
	if cms.ErrorCode(translate(err, &space{})) != cms.CodeConflict {
		t.Errorf("duplicate key translated to %v", translate(err, &space{}))
	}
	if _, handled, err := execRaw(rc, "UPDATE t SET i = i + 1 WHERE k = ?", []any{"a"}); !handled || err != nil {
		t.Fatalf("after a failure: handled %v, %v", handled, err)
	}
	// Left to the driver.
	if _, handled, err := execRaw(rc, "UPDATE t SET i = 0; UPDATE t SET n = 'x'", nil); handled || err != nil {
		t.Errorf("two statements: handled %v, %v", handled, err)
	}
	if _, handled, err := execRaw(rc, "UPDATE t SET i = ?", []any{int32(1)}); handled || err != nil {
		t.Errorf("an int32: handled %v, %v", handled, err)
	}
	for _, args := range [][]any{{"a"}, {int64(1), "a", "b"}} {
		if _, handled, err := execRaw(rc, "UPDATE t SET i = ? WHERE k = ?", args); handled || err != nil {
			t.Errorf("%d arguments for 2: handled %v, %v", len(args), handled, err)
		}
	}
	if _, handled, err := execRaw(rc, "  -- nothing\n", nil); handled || err != nil {
		t.Errorf("no statement: handled %v, %v", handled, err)
	}
	// The least recently used statement is given up past maxRawStmts.
	for i := range maxRawStmts + 1 {
		if _, handled, err := execRaw(rc, fmt.Sprintf("UPDATE t SET i = %d WHERE k = ?", i), []any{"a"}); !handled || err != nil {
			t.Fatalf("statement %d: handled %v, %v", i, handled, err)
		}
		if i == maxRawStmts/2 { // used again: kept
			if _, _, err := execRaw(rc, insert, []any{"d", int64(4), 1.0, nil, nil}); err != nil {
				t.Fatal(err)
			}
		}
	}
	if len(rc.stmts) != maxRawStmts || len(rc.used) != maxRawStmts || rc.stmts[insert] == nil || rc.stmts["UPDATE t SET i = 0 WHERE k = ?"] != nil {
		t.Errorf("%d statements kept (%d in order), the insert kept %v, the first update %v", len(rc.stmts), len(rc.used),
			rc.stmts[insert] != nil, rc.stmts["UPDATE t SET i = 0 WHERE k = ?"] != nil)
	}
	if _, handled, _ := execRaw(c, "UPDATE t SET i = 1", nil); handled {
		t.Error("the driver's own connection was taken")
	}
}
