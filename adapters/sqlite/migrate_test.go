package sqlite

import (
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/bwcms/cms/adapters/internal/bunstoretest"
)

// TestMigrationAllOrNothing: pending migrations whose last one fails
// leave the file as it was (no table of any of them, the applied ones
// still applied), and it opens again.
func TestMigrationAllOrNothing(t *testing.T) {
	t.Parallel()
	ctx := t.Context()
	path := filepath.Join(t.TempDir(), "cms.db")
	old, err := Open(ctx, path, &Options{migrations: firstMigrations(t, 3)})
	if err != nil {
		t.Fatal(err)
	}
	tables := func(s *Store) []string {
		var names []string
		if err := s.Write().NewRaw("SELECT name FROM sqlite_master WHERE type = 'table' ORDER BY name").Scan(ctx, &names); err != nil {
			t.Fatal(err)
		}
		return names
	}
	before, appliedBefore := tables(old), applied(t, old)
	old.Close()

	if _, err := Open(ctx, path, &Options{migrations: bunstoretest.WithBrokenMigration(firstMigrations(t, 8))}); err == nil || !strings.Contains(err.Error(), "no_such_column") {
		t.Fatalf("open with a broken migration: %v", err)
	}
	s, err := Open(ctx, path, &Options{migrations: firstMigrations(t, 3)})
	if err != nil {
		t.Fatal(err)
	}
	if got := tables(s); !slices.Equal(got, before) {
		t.Errorf("after the failed migration: tables %v, want %v", got, before)
	}
	if got := applied(t, s); !slices.Equal(got, appliedBefore) {
		t.Errorf("after the failed migration: applied %v, want %v", got, appliedBefore)
	}
	s.Close()
	if s, err = Open(ctx, path, nil); err != nil {
		t.Fatal(err)
	}
	s.Close()
}
