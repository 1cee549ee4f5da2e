//go:build linux && cgo

package sqlite

/*
#include <stdlib.h>

int bw_walvfs_register(const char *name);
void bw_walvfs_writes(long long *made, long long *passed);
*/
import "C"

import (
	"fmt"
	"sync"
)

// walVFSName is the VFS of walvfs.c: SQLite's default one, with a WAL
// commit's writes passed on in one call.
const walVFSName = "bwcms-wal"

// registerWALVFS registers walvfs.c's VFS with SQLite. SQLite keeps its
// VFSes in a registry of the process, so this is done once for the
// process (the name stays allocated for as long).
var registerWALVFS = sync.OnceValue(func() error {
	if rc := C.bw_walvfs_register(C.CString(walVFSName)); rc != 0 {
		return fmt.Errorf("sqlite: registering the WAL VFS: code %d", int(rc))
	}
	return nil
})

// walWrites reports the WAL writes SQLite made through the VFS and those
// it passed on to the file, in the whole process (tests).
func walWrites() (made, passed int64) {
	var m, p C.longlong
	C.bw_walvfs_writes(&m, &p)
	return int64(m), int64(p)
}
