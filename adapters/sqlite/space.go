package sqlite

import (
	"errors"
	"os"
	"sync/atomic"

	"github.com/bwcms/cms/cms"
	"github.com/mattn/go-sqlite3"
)

// space follows whether the database's disk is full: a write that failed
// for want of room (SQLITE_FULL, or an I/O error SQLite reports for a
// write, sync or shared-memory growth that found none) marks it full,
// and then readiness asks the directory for room (probe) until it has
// some again. A disk full is an outage: writes answer 503, the instance
// is not ready, and batches wait for room instead of failing.
type space struct {
	dir   string // the database's directory ("" in memory: never probed)
	probe func(dir string) error
	full  atomic.Bool
}

// probeSize is how much a probe writes: room for a few pages and their
// WAL frames, so that readiness does not return for a last few bytes.
const probeSize = 256 << 10

// noRoom tells whether a SQLite error is one a full disk gives.
func noRoom(e sqlite3.Error) bool {
	switch e.ExtendedCode {
	case sqlite3.ErrIoErrWrite, sqlite3.ErrIoErrFsync, sqlite3.ErrIoErrSHMSize:
		return true
	}
	return e.Code == sqlite3.ErrFull
}

// noted marks the disk full when err is a want of room.
func (s *space) noted(e sqlite3.Error) {
	if noRoom(e) {
		s.full.Store(true)
	}
}

// ready is nil unless a write found no room and the directory still has
// none.
func (s *space) ready() error {
	if !s.full.Load() || s.dir == "" {
		return nil
	}
	if err := s.probe(s.dir); err != nil {
		// Err stays nil: the message is the readiness answer's reason.
		return &cms.Error{Code: cms.CodeUnavailable, Message: "the database's disk is full"}
	}
	s.full.Store(false)
	return nil
}

// probeRoom writes probeSize bytes to a file of its own in dir, then
// removes it.
func probeRoom(dir string) error {
	f, err := os.CreateTemp(dir, ".cms-space-probe-*")
	if err != nil {
		return err
	}
	_, err = f.Write(make([]byte, probeSize))
	return errors.Join(err, f.Close(), os.Remove(f.Name()))
}
