package sqlite

import (
	"database/sql"
	"fmt"
	"io"
	"os"
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
		t.Skip("the WAL VFS is built for Linux only")
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

// TestWALCommitSurvivesCrash: right after a commit returns, with the
// store still open, the database and WAL files as they are (what a
// process killed then leaves) hold the commit. A transaction too large
// for the page cache writes frames before it commits and then writes
// some again (their checksums too, the commit frame's header last, with
// no write after it); creates commit with the background checkpoints
// running. A commit frame's header left in the buffer made SQLite's
// recovery drop the whole transaction.
func TestWALCommitSurvivesCrash(t *testing.T) {
	if walVFSName == "" {
		t.Skip("the WAL VFS is built for Linux only")
	}
	t.Parallel()
	crashCount := func(t *testing.T, path string) int {
		t.Helper()
		dir := t.TempDir()
		for _, suffix := range []string{"", "-wal"} {
			copyFile(t, path+suffix, filepath.Join(dir, "cms.db"+suffix))
		}
		db, err := sql.Open("sqlite3", "file:"+filepath.Join(dir, "cms.db"))
		if err != nil {
			t.Fatal(err)
		}
		defer db.Close()
		var check string
		if err := db.QueryRow("PRAGMA integrity_check").Scan(&check); err != nil || check != "ok" {
			t.Fatalf("integrity_check of the files left: %q, %v", check, err)
		}
		var n int
		if err := db.QueryRow("SELECT count(*) FROM records WHERE kind = 'resource'").Scan(&n); err != nil {
			t.Fatal(err)
		}
		return n
	}
	// Whether a transaction writes a frame again after its cache spilled
	// depends on the pages its keys land on: several shapes.
	for i, shape := range []struct {
		format string
		n      int
	}{{"res-%05d", 4000}, {"r%05d", 4000}, {"res-%05d", 3000}, {"x%06d", 6000}} {
		t.Run(fmt.Sprintf("spilled%d", i), func(t *testing.T) { // no '#' in the path: a URI's fragment
			path := filepath.Join(t.TempDir(), "cms.db")
			s, err := Open(t.Context(), path, &Options{CheckpointEvery: time.Hour})
			if err != nil {
				t.Fatal(err)
			}
			defer s.Close()
			err = s.WithTx(cms.WithBatchWork(t.Context()), func(tx cms.Store) error {
				for i := range shape.n {
					id := fmt.Sprintf(shape.format, i*7919%shape.n) // in no order: pages written again
					if err := tx.PutRecord(t.Context(), &cms.Entry{Account: "a", Record: &cms.Resource{ID: id}, Updated: time.Now()}); err != nil {
						return err
					}
				}
				return nil
			})
			if err != nil {
				t.Fatal(err)
			}
			if got := crashCount(t, path); got != shape.n {
				t.Errorf("after a crash: %d Resources; want the %d committed", got, shape.n)
			}
		})
	}
	t.Run("checkpointed", func(t *testing.T) {
		path := filepath.Join(t.TempDir(), "cms.db")
		s, err := Open(t.Context(), path, &Options{CheckpointEvery: time.Millisecond})
		if err != nil {
			t.Fatal(err)
		}
		defer s.Close()
		svc, ctx := cmstest.BenchService(t, s, &cms.Options{})
		for i := range 200 {
			id := fmt.Sprintf("r%04d", i)
			if _, err := svc.Upsert(ctx, cms.KindResource, []byte(cmstest.ChangeBenchRecord(id, "Title "+id)), nil); err != nil {
				t.Fatal(err)
			}
			if i%40 == 39 {
				if got := crashCount(t, path); got != i+1 {
					t.Fatalf("after a crash following create %d: %d Resources", i+1, got)
				}
			}
		}
	})
}

func copyFile(t *testing.T, from, to string) {
	t.Helper()
	in, err := os.Open(from)
	if err != nil {
		t.Fatal(err)
	}
	defer in.Close()
	out, err := os.Create(to)
	if err != nil {
		t.Fatal(err)
	}
	defer out.Close()
	if _, err := io.Copy(out, in); err != nil {
		t.Fatal(err)
	}
}
