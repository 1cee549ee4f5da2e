//go:build !(linux && cgo)

package sqlite

// walVFSName is empty: walvfs.c is built for Linux only (it declares
// SQLite's functions weak, which ELF links allow), and elsewhere SQLite
// writes the WAL by itself.
const walVFSName = ""

func registerWALVFS() error { return nil }

func walWrites() (made, passed int64) { return 0, 0 }
