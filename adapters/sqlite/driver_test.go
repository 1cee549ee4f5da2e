package sqlite

import (
	"path/filepath"
	"strings"
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
	other := openDB(path, false, time.Second, writer, false, 0)
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

// TestConnectionPragmas checks the writer keeps its temporary storage
// in memory (the statement journals of grouped writes' savepoints and
// multi-row statements were files before: about 30 writes to a temporary
// file a create, docs/performance.md), and that the writer and the read
// connections keep Options.PageCache bytes of pages (32 MiB by default),
// refusing a negative size.
func TestConnectionPragmas(t *testing.T) {
	t.Parallel()
	for _, c := range []struct{ set, wantKiB int }{{0, DefaultPageCache >> 10}, {8 << 20, 8 << 10}} {
		s, err := Open(t.Context(), filepath.Join(t.TempDir(), "cms.db"), &Options{PageCache: c.set})
		if err != nil {
			t.Fatal(err)
		}
		var store, wcache, rcache int
		if err := s.Write().QueryRowContext(t.Context(), "PRAGMA temp_store").Scan(&store); err != nil {
			t.Fatal(err)
		}
		if store != 2 {
			t.Errorf("writer's temp_store = %d, want 2 (memory)", store)
		}
		if err := s.Write().QueryRowContext(t.Context(), "PRAGMA cache_size").Scan(&wcache); err != nil {
			t.Fatal(err)
		}
		if err := s.read.QueryRowContext(t.Context(), "PRAGMA cache_size").Scan(&rcache); err != nil {
			t.Fatal(err)
		}
		if wcache != -c.wantKiB || rcache != -c.wantKiB {
			t.Errorf("PageCache %d: cache_size writer %d, reader %d; want -%d (KiB)", c.set, wcache, rcache, c.wantKiB)
		}
		s.Close()
	}
	if _, err := Open(t.Context(), Memory, &Options{PageCache: -1}); err == nil || !strings.Contains(err.Error(), "Options.PageCache") {
		t.Errorf("PageCache -1: %v, want refused", err)
	}
}
