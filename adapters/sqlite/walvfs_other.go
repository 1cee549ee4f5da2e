//go:build !((linux || darwin) && cgo)

package sqlite

import "errors"

const walVFSName = ""

// registerWALVFS: walvfs.c is built for Linux and macOS only; elsewhere
// SQLite writes the WAL by itself.
func registerWALVFS() error {
	return errors.New("sqlite: the WAL VFS is built for Linux and macOS only")
}

func walWrites() (made, passed int64) { return 0, 0 }
