package sqlite

import (
	"path/filepath"
	"testing"
	"time"

	"github.com/bwcms/cms/cms"
)

// TestBusyIsUnavailable: while another process holds the write lock past
// the busy timeout, a write fails with CodeUnavailable (the same request
// may succeed later), not as an internal error; once the lock is released
// the same store writes again.
func TestBusyIsUnavailable(t *testing.T) {
	t.Parallel()
	ctx := t.Context()
	path := filepath.Join(t.TempDir(), "cms.db")
	s, err := Open(ctx, path, &Options{BusyTimeout: 50 * time.Millisecond})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { s.Close() })
	// Another process: a connection of its own, holding the write lock.
	other := openDB(path, false, time.Second, writer, false, "", 0)
	t.Cleanup(func() { other.Close() })
	conn, err := other.Conn(ctx)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := conn.ExecContext(ctx, "BEGIN IMMEDIATE"); err != nil {
		t.Fatal(err)
	}
	put := func(id string) error {
		return s.PutRecord(ctx, &cms.Entry{Account: "a", Record: &cms.Resource{ID: id}, Updated: time.Now()})
	}
	if err := put("r-1"); cms.ErrorCode(err) != cms.CodeUnavailable {
		t.Errorf("write while the lock is held: %v, want CodeUnavailable", err)
	}
	if _, err := conn.ExecContext(ctx, "ROLLBACK"); err != nil {
		t.Fatal(err)
	}
	conn.Close()
	if err := put("r-2"); err != nil {
		t.Errorf("write after the lock is released: %v", err)
	}
}

// TestWriterTempInMemory checks the writer keeps its temporary storage
// in memory: the statement journals of grouped writes' savepoints and
// multi-row statements were files before, about 30 writes to a temporary
// file a create (docs/performance.md).
func TestWriterTempInMemory(t *testing.T) {
	t.Parallel()
	s, err := Open(t.Context(), filepath.Join(t.TempDir(), "cms.db"), nil)
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	var store int
	if err := s.Write().QueryRowContext(t.Context(), "PRAGMA temp_store").Scan(&store); err != nil {
		t.Fatal(err)
	}
	if store != 2 {
		t.Errorf("writer's temp_store = %d, want 2 (memory)", store)
	}
}
