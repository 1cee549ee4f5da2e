//go:build !linux || !cgo

package sqlite

import (
	"database/sql"
	"database/sql/driver"
	"unsafe"
)

// Nothing is set where alloc_linux.go's weak declarations cannot link.
const lookasideSlot, lookasideSlots = 0, 0

func memstatusOff() bool { return false }

func openTracked(_, _ int, open func() (driver.Conn, error)) (driver.Conn, bool, unsafe.Pointer, error) {
	c, err := open()
	return c, false, nil, err
}

func lookasideFull(unsafe.Pointer) int { return -1 }

const rawSupported = false

func newRawConn(c driver.Conn, _ unsafe.Pointer) driver.Conn { return c }

func execRaw(any, string, []any) (sql.Result, bool, error) { return nil, false, nil }
