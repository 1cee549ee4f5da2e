package sqlite

import (
	"context"
	"fmt"
	"path/filepath"
	"strings"
	"sync/atomic"
	"syscall"
	"testing"

	"github.com/bwcms/cms/cms"
)

// limitPages caps the database at its current size on the writer (the
// store's one write connection), so a write that needs a new page fails
// with SQLITE_FULL as on a full disk; 0 lifts the cap.
func limitPages(t testing.TB, s *Store, on bool) {
	t.Helper()
	ctx := context.Background()
	q := "PRAGMA max_page_count = 1073741823"
	if on {
		var pages int64
		if err := s.Write().QueryRowContext(ctx, "PRAGMA page_count").Scan(&pages); err != nil {
			t.Fatal(err)
		}
		q = fmt.Sprintf("PRAGMA max_page_count = %d", pages)
	}
	if _, err := s.Write().ExecContext(ctx, q); err != nil {
		t.Fatal(err)
	}
}

// TestDiskFullIsUnavailable: a write that finds no room (SQLITE_FULL) is
// CodeUnavailable, as an outage, not an internal error; the store is not
// ready while its directory has no room, and ready again, and writing,
// once there is.
func TestDiskFullIsUnavailable(t *testing.T) {
	t.Parallel()
	ctx := t.Context()
	var full atomic.Bool
	s, err := Open(ctx, filepath.Join(t.TempDir(), "cms.db"), &Options{spaceProbe: func(string) error {
		if full.Load() {
			return syscall.ENOSPC
		}
		return nil
	}})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { s.Close() })
	put := func(id string) error {
		return s.PutRecord(ctx, &cms.Entry{Account: "a", New: true, Record: &cms.Resource{ID: id,
			Title: cms.Langs[string]{"en": strings.Repeat("x", 64<<10)}}})
	}
	if err := put("before"); err != nil {
		t.Fatal(err)
	}
	full.Store(true)
	limitPages(t, s, true)
	err = put("during")
	if cms.ErrorCode(err) != cms.CodeUnavailable {
		t.Fatalf("write with no room: %v, want CodeUnavailable", err)
	}
	if !strings.Contains(err.Error(), "full") {
		t.Errorf("the cause is lost: %v", err)
	}
	err = s.Ready(ctx)
	if e, ok := err.(*cms.Error); !ok || e.Code != cms.CodeUnavailable || !strings.Contains(e.Message, "disk is full") {
		t.Errorf("Ready with no room: %v", err)
	}
	full.Store(false)
	limitPages(t, s, false)
	if err := s.Ready(ctx); err != nil {
		t.Errorf("Ready once there is room: %v", err)
	}
	if err := put("after"); err != nil {
		t.Errorf("write once there is room: %v", err)
	}
	if _, err := s.GetRecord(ctx, "a", cms.KindResource, "during"); cms.ErrorCode(err) != cms.CodeNotFound {
		t.Errorf("the failed write is stored: %v", err)
	}
}
