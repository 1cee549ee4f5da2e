//go:build !((linux || darwin) && cgo)

package sqlite

// walVFSName is empty: walvfs.c is built for Linux and macOS only, and
// elsewhere SQLite writes the WAL by itself.
const walVFSName = ""

func registerWALVFS() error { return nil }

func walWrites() (made, passed int64) { return 0, 0 }
