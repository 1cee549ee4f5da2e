package sqlite

import (
	"fmt"
	"path/filepath"
	"testing"
	"time"

	"github.com/bwcms/cms/cms"
	"github.com/bwcms/cms/cms/cmstest"
)

// TestWALWritesGathered: the writer passes each commit's WAL writes on
// in one call or a few (walvfs.c), every commit is in the file for the
// other connections as soon as it returns, and the file is whole
// afterwards, also for a store that writes the WAL the way SQLite does
// by itself. Not parallel: the VFS counts the process's writes.
func TestWALWritesGathered(t *testing.T) {
	if walVFSName == "" {
		t.Skip("the WAL VFS is built for Linux and macOS only")
	}
	creates := func(t *testing.T, path string, opts *Options, n int) (made, passed int64) {
		s, err := Open(t.Context(), path, opts)
		if err != nil {
			t.Fatal(err)
		}
		defer s.Close()
		svc, ctx := cmstest.BenchService(t, s, &cms.Options{})
		made0, passed0 := walWrites()
		for i := range n {
			id := fmt.Sprintf("r%04d", i)
			if _, err := svc.Upsert(ctx, cms.KindResource, []byte(cmstest.ChangeBenchRecord(id, "Title "+id)), nil); err != nil {
				t.Fatal(err)
			}
			// The read pool's connections read the WAL through files of
			// their own: a commit still in the writer's buffer would be
			// missing for them.
			var title string
			if err := s.read.QueryRowContext(t.Context(), "SELECT json_extract(doc, '$.title.en') FROM records WHERE kind = 'resource' AND id = ?", id).
				Scan(&title); err != nil || title != "Title "+id {
				t.Fatalf("the read pool after create %s: %q, %v", id, title, err)
			}
		}
		made1, passed1 := walWrites()
		return made1 - made0, passed1 - passed0
	}
	const n = 100
	gathered, separate := filepath.Join(t.TempDir(), "cms.db"), filepath.Join(t.TempDir(), "cms.db")
	made, passed := creates(t, gathered, &Options{CheckpointEvery: time.Hour}, n)
	// A create onto two Maps writes 20 to 36 WAL pages, two writes each.
	if made < 40*n || passed > 3*n {
		t.Errorf("%d creates: SQLite made %d WAL writes and %d were passed on; want at least %d made, at most %d passed",
			n, made, passed, 40*n, 3*n)
	}
	t.Logf("%d creates: %d WAL writes made, %d passed on", n, made, passed)

	made, passed = creates(t, separate, &Options{SeparateWALWrites: true}, n)
	if made != 0 || passed != 0 {
		t.Errorf("SeparateWALWrites: %d WAL writes went through the VFS (%d passed on); want none", made, passed)
	}

	// Each file opened again the other way: whole, every create kept.
	for path, opts := range map[string]*Options{gathered: {SeparateWALWrites: true}, separate: nil} {
		s, err := Open(t.Context(), path, opts)
		if err != nil {
			t.Fatal(err)
		}
		var check string
		var count int
		if err := s.Write().QueryRowContext(t.Context(), "PRAGMA integrity_check").Scan(&check); err != nil || check != "ok" {
			t.Errorf("integrity_check: %q, %v", check, err)
		}
		if err := s.Write().QueryRowContext(t.Context(), "SELECT count(*) FROM records WHERE kind = 'resource'").Scan(&count); err != nil || count != n {
			t.Errorf("Resources stored: %d, %v; want %d", count, err, n)
		}
		s.Close()
	}
}
