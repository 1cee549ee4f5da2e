//go:build linux && cgo

/*
** walvfs: the process's default SQLite VFS, with the writes of each WAL
** commit passed on in one call.
**
** SQLite writes a WAL frame in two calls, its 24-byte header and then its
** page, so a commit of 36 pages costs 72 pwrite calls; on a virtual
** machine a system call costs more than copying the page does
** (docs/performance.md). This VFS gathers a WAL file's writes while each
** appends to the one before, and passes them on as one write:
**
** - after the page that follows a commit frame's header (bytes 4-7 of a
**   frame header, the database size after the commit, are nonzero only
**   in a commit frame: the WAL file format), so a commit is in the file
**   before the call that wrote its last frame returns;
** - when SQLite makes its shared-memory barrier on the database file,
**   which it does before the WAL-index header that publishes a commit
**   becomes valid (walIndexWriteHdr): whatever path wrote the commit,
**   it is in the file before readers or a recovery can take it;
** - before a write that does not append to them, before any other call
**   on the file (read, sync, truncate, size, file control, close), and
**   when the buffer is full.
**
** A write over bytes already written (a frame's page written again, the
** frame headers walRewriteChecksums writes again, the last of them a
** commit's) is passed on at once, after what is gathered.
**
** Frames of a transaction not yet committed may wait in the buffer:
** nothing reads them but the connection writing them, whose reads pass
** through this file and send them first. A write that fails is answered
** to SQLite by the call that passed it on; one at the barrier, which
** returns nothing, by the file's next call.
** Files other than WAL files are passed through.
*/
#include <stdlib.h>
#include <string.h>

#include "walvfs.h"

/* The driver's SQLite, linked into the same program. */
extern sqlite3_vfs *sqlite3_vfs_find(const char *) __attribute__((weak));
extern int sqlite3_vfs_register(sqlite3_vfs *, int) __attribute__((weak));
extern sqlite3_file *sqlite3_database_file_object(const char *) __attribute__((weak));

/* The most a WAL file gathers before it passes the writes on: the unix
** VFS writes at most 128 KiB - 1 bytes in one call (seekAndWriteFd), and
** answers SQLITE_FULL to a longer write. */
#define BW_WAL_BUFFER 0x1ffff

typedef struct bwFile bwFile;
struct bwFile {
  sqlite3_file base;
  sqlite3_file *real;     /* the wrapped VFS's file, stored after this one */
  bwFile *peer;           /* a WAL file's database file, and the reverse */
  int wal;                /* a WAL file: its writes are gathered */
  int commitPending;      /* a commit frame's header is in buf: pass on after its page */
  int err;                /* a write failed at the barrier: the next call answers it */
  unsigned char *buf;     /* writes not yet passed on: len bytes from off */
  int len;
  sqlite3_int64 off;
  sqlite3_int64 end;      /* the end of the furthest write since the WAL started over */
};

static sqlite3_vfs bwVfs;
/* The file methods, by the wrapped file's version (1 to 3): SQLite asks
** a version 1 file for no shared memory, and so uses no WAL with it. */
static sqlite3_io_methods bwMethods[3];
static long long bwRealWrites;   /* WAL writes passed on */
static long long bwWalWrites;    /* WAL writes SQLite made */

#define REAL(f) (((bwFile *)(f))->real)
#define REAL_VFS ((sqlite3_vfs *)bwVfs.pAppData)

static int bwFlush(bwFile *p) {
  if (p->err != SQLITE_OK) {
    int rc = p->err; /* the barrier's, answered once */
    p->err = SQLITE_OK;
    return rc;
  }
  if (p->len == 0) {
    return SQLITE_OK;
  }
  int n = p->len;
  p->len = 0;
  p->commitPending = 0;
  __atomic_add_fetch(&bwRealWrites, 1, __ATOMIC_RELAXED);
  return p->real->pMethods->xWrite(p->real, p->buf, n, p->off);
}

static int bwWrite(sqlite3_file *f, const void *data, int amt, sqlite3_int64 off) {
  bwFile *p = (bwFile *)f;
  if (!p->wal) {
    return p->real->pMethods->xWrite(p->real, data, amt, off);
  }
  __atomic_add_fetch(&bwWalWrites, 1, __ATOMIC_RELAXED);
  int rc = SQLITE_OK;
  if (off == 0) {
    p->end = 0; /* the WAL header: the WAL starts over */
  }
  if (off + amt <= p->end || amt > BW_WAL_BUFFER) {
    /* Over bytes written before: no write of its own may follow it. */
    rc = bwFlush(p);
    if (rc != SQLITE_OK) {
      return rc;
    }
    __atomic_add_fetch(&bwRealWrites, 1, __ATOMIC_RELAXED);
    if (off + amt > p->end) {
      p->end = off + amt;
    }
    return p->real->pMethods->xWrite(p->real, data, amt, off);
  }
  p->end = off + amt;
  if (p->len > 0 && off != p->off + p->len) {
    rc = bwFlush(p);
  } else if (p->len + amt > BW_WAL_BUFFER) {
    int pending = p->commitPending; /* the page after it still passes it on */
    rc = bwFlush(p);
    p->commitPending = pending;
  }
  if (rc != SQLITE_OK) {
    return rc;
  }
  if (p->len == 0) {
    p->off = off;
  }
  memcpy(p->buf + p->len, data, amt);
  p->len += amt;
  if (p->commitPending) {
    return bwFlush(p); /* the commit frame's page */
  }
  const unsigned char *h = data;
  if (amt == 24 && (h[4] | h[5] | h[6] | h[7]) != 0) {
    p->commitPending = 1;
  }
  return SQLITE_OK;
}

static int bwClose(sqlite3_file *f) {
  bwFile *p = (bwFile *)f;
  int rc = bwFlush(p);
  if (p->peer != 0) {
    p->peer->peer = 0;
    p->peer = 0;
  }
  int rc2 = p->real->pMethods->xClose(p->real);
  free(p->buf);
  p->buf = 0;
  return rc != SQLITE_OK ? rc : rc2;
}

static int bwRead(sqlite3_file *f, void *data, int amt, sqlite3_int64 off) {
  int rc = bwFlush((bwFile *)f);
  return rc != SQLITE_OK ? rc : REAL(f)->pMethods->xRead(REAL(f), data, amt, off);
}

static int bwTruncate(sqlite3_file *f, sqlite3_int64 size) {
  bwFile *p = (bwFile *)f;
  int rc = bwFlush(p);
  if (p->end > size) {
    p->end = size;
  }
  return rc != SQLITE_OK ? rc : REAL(f)->pMethods->xTruncate(REAL(f), size);
}

static int bwSync(sqlite3_file *f, int flags) {
  int rc = bwFlush((bwFile *)f);
  return rc != SQLITE_OK ? rc : REAL(f)->pMethods->xSync(REAL(f), flags);
}

static int bwFileSize(sqlite3_file *f, sqlite3_int64 *size) {
  int rc = bwFlush((bwFile *)f);
  return rc != SQLITE_OK ? rc : REAL(f)->pMethods->xFileSize(REAL(f), size);
}

static int bwLock(sqlite3_file *f, int lock) { return REAL(f)->pMethods->xLock(REAL(f), lock); }
static int bwUnlock(sqlite3_file *f, int lock) { return REAL(f)->pMethods->xUnlock(REAL(f), lock); }
static int bwCheckReservedLock(sqlite3_file *f, int *out) {
  return REAL(f)->pMethods->xCheckReservedLock(REAL(f), out);
}

static int bwFileControl(sqlite3_file *f, int op, void *arg) {
  int rc = bwFlush((bwFile *)f);
  return rc != SQLITE_OK ? rc : REAL(f)->pMethods->xFileControl(REAL(f), op, arg);
}

static int bwSectorSize(sqlite3_file *f) { return REAL(f)->pMethods->xSectorSize(REAL(f)); }
static int bwDeviceCharacteristics(sqlite3_file *f) {
  return REAL(f)->pMethods->xDeviceCharacteristics(REAL(f));
}

/* The shared-memory calls are made on the database file, whose own
** writes are never gathered. Its barrier passes its WAL's gathered writes
** on first (see the top of this file). */
static int bwShmMap(sqlite3_file *f, int pg, int pgsz, int extend, void volatile **pp) {
  return REAL(f)->pMethods->xShmMap(REAL(f), pg, pgsz, extend, pp);
}
static int bwShmLock(sqlite3_file *f, int offset, int n, int flags) {
  return REAL(f)->pMethods->xShmLock(REAL(f), offset, n, flags);
}
static void bwShmBarrier(sqlite3_file *f) {
  bwFile *p = (bwFile *)f;
  if (p->peer != 0) {
    int rc = bwFlush(p->peer);
    if (rc != SQLITE_OK) {
      p->peer->err = rc; /* the barrier returns nothing: the WAL's next call answers it */
    }
  }
  REAL(f)->pMethods->xShmBarrier(REAL(f));
}
static int bwShmUnmap(sqlite3_file *f, int deleteFlag) {
  return REAL(f)->pMethods->xShmUnmap(REAL(f), deleteFlag);
}

static int bwFetch(sqlite3_file *f, sqlite3_int64 off, int amt, void **pp) {
  if (REAL(f)->pMethods->iVersion < 3) {
    *pp = 0;
    return SQLITE_OK;
  }
  return REAL(f)->pMethods->xFetch(REAL(f), off, amt, pp);
}
static int bwUnfetch(sqlite3_file *f, sqlite3_int64 off, void *ptr) {
  if (REAL(f)->pMethods->iVersion < 3) {
    return SQLITE_OK;
  }
  return REAL(f)->pMethods->xUnfetch(REAL(f), off, ptr);
}

static int bwOpen(sqlite3_vfs *vfs, sqlite3_filename name, sqlite3_file *f, int flags, int *outFlags) {
  bwFile *p = (bwFile *)f;
  memset(p, 0, sizeof(*p));
  p->real = (sqlite3_file *)&p[1];
  if (flags & SQLITE_OPEN_WAL) {
    p->buf = malloc(BW_WAL_BUFFER);
    if (p->buf == 0) {
      return SQLITE_NOMEM;
    }
    p->wal = 1;
  }
  int rc = REAL_VFS->xOpen(REAL_VFS, name, p->real, flags, outFlags);
  /* SQLite closes a file whose methods are set, even after a failed
  ** open: ours are set exactly when the wrapped file's are. */
  if (p->real->pMethods == 0) {
    free(p->buf);
    p->buf = 0;
    return rc;
  }
  int version = p->real->pMethods->iVersion;
  p->base.pMethods = &bwMethods[(version < 1 ? 1 : version > 3 ? 3 : version) - 1];
  if (rc == SQLITE_OK && p->wal && sqlite3_database_file_object) {
    /* The database file this connection opened the WAL for, when it is
    ** one of ours: its barrier passes this file's writes on. */
    bwFile *db = (bwFile *)sqlite3_database_file_object(name);
    if (db != 0 && db->base.pMethods >= &bwMethods[0] && db->base.pMethods <= &bwMethods[2] && !db->wal) {
      db->peer = p;
      p->peer = db;
    }
  }
  return rc;
}

/* The VFS's other calls are the wrapped VFS's, given the wrapped VFS. */
static int bwDelete(sqlite3_vfs *v, const char *name, int syncDir) {
  return REAL_VFS->xDelete(REAL_VFS, name, syncDir);
}
static int bwAccess(sqlite3_vfs *v, const char *name, int flags, int *out) {
  return REAL_VFS->xAccess(REAL_VFS, name, flags, out);
}
static int bwFullPathname(sqlite3_vfs *v, const char *name, int n, char *out) {
  return REAL_VFS->xFullPathname(REAL_VFS, name, n, out);
}
static void *bwDlOpen(sqlite3_vfs *v, const char *name) { return REAL_VFS->xDlOpen(REAL_VFS, name); }
static void bwDlError(sqlite3_vfs *v, int n, char *msg) { REAL_VFS->xDlError(REAL_VFS, n, msg); }
static void (*bwDlSym(sqlite3_vfs *v, void *h, const char *sym))(void) {
  return REAL_VFS->xDlSym(REAL_VFS, h, sym);
}
static void bwDlClose(sqlite3_vfs *v, void *h) { REAL_VFS->xDlClose(REAL_VFS, h); }
static int bwRandomness(sqlite3_vfs *v, int n, char *out) { return REAL_VFS->xRandomness(REAL_VFS, n, out); }
static int bwSleep(sqlite3_vfs *v, int us) { return REAL_VFS->xSleep(REAL_VFS, us); }
static int bwCurrentTime(sqlite3_vfs *v, double *t) { return REAL_VFS->xCurrentTime(REAL_VFS, t); }
static int bwGetLastError(sqlite3_vfs *v, int n, char *msg) {
  return REAL_VFS->xGetLastError ? REAL_VFS->xGetLastError(REAL_VFS, n, msg) : 0;
}
static int bwCurrentTimeInt64(sqlite3_vfs *v, sqlite3_int64 *t) {
  return REAL_VFS->xCurrentTimeInt64(REAL_VFS, t);
}

/* bw_walvfs_register registers the VFS under name, wrapping the default
** one, once; it returns SQLITE_OK, or an error when the wrapped VFS is
** older than version 2 or cannot be found. Not safe to call from two
** threads at once (the Go side calls it under a sync.Once). */
int bw_walvfs_register(const char *name) {
  if (bwVfs.zName != 0) {
    return SQLITE_OK;
  }
  if (!sqlite3_vfs_find || !sqlite3_vfs_register) {
    return SQLITE_IOERR;
  }
  sqlite3_vfs *real = sqlite3_vfs_find(0);
  if (real == 0 || real->iVersion < 2) {
    return SQLITE_IOERR;
  }
  bwMethods[2] = (sqlite3_io_methods){
      .iVersion = 3,
      .xClose = bwClose,
      .xRead = bwRead,
      .xWrite = bwWrite,
      .xTruncate = bwTruncate,
      .xSync = bwSync,
      .xFileSize = bwFileSize,
      .xLock = bwLock,
      .xUnlock = bwUnlock,
      .xCheckReservedLock = bwCheckReservedLock,
      .xFileControl = bwFileControl,
      .xSectorSize = bwSectorSize,
      .xDeviceCharacteristics = bwDeviceCharacteristics,
      .xShmMap = bwShmMap,
      .xShmLock = bwShmLock,
      .xShmBarrier = bwShmBarrier,
      .xShmUnmap = bwShmUnmap,
      .xFetch = bwFetch,
      .xUnfetch = bwUnfetch,
  };
  bwMethods[1] = bwMethods[2];
  bwMethods[1].iVersion = 2;
  bwMethods[1].xFetch = 0;
  bwMethods[1].xUnfetch = 0;
  bwMethods[0] = bwMethods[1];
  bwMethods[0].iVersion = 1;
  bwMethods[0].xShmMap = 0;
  bwMethods[0].xShmLock = 0;
  bwMethods[0].xShmBarrier = 0;
  bwMethods[0].xShmUnmap = 0;
  bwVfs = (sqlite3_vfs){
      .iVersion = 2,
      .szOsFile = (int)sizeof(bwFile) + real->szOsFile,
      .mxPathname = real->mxPathname,
      .zName = name,
      .pAppData = real,
      .xOpen = bwOpen,
      .xDelete = bwDelete,
      .xAccess = bwAccess,
      .xFullPathname = bwFullPathname,
      .xDlOpen = bwDlOpen,
      .xDlError = bwDlError,
      .xDlSym = bwDlSym,
      .xDlClose = bwDlClose,
      .xRandomness = bwRandomness,
      .xSleep = bwSleep,
      .xCurrentTime = bwCurrentTime,
      .xGetLastError = bwGetLastError,
      .xCurrentTimeInt64 = bwCurrentTimeInt64,
  };
  return sqlite3_vfs_register(&bwVfs, 0);
}

/* bw_walvfs_writes reports the WAL writes SQLite made through the VFS
** and those passed on, since the process started. */
void bw_walvfs_writes(long long *made, long long *passed) {
  *made = __atomic_load_n(&bwWalWrites, __ATOMIC_RELAXED);
  *passed = __atomic_load_n(&bwRealWrites, __ATOMIC_RELAXED);
}
