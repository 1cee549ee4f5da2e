package sqlite

import (
	"path/filepath"
	"slices"
	"testing"
	"time"

	"github.com/bwcms/cms/cms"
	"github.com/bwcms/cms/cms/cmstest"
)

// TestOptionsRefused: Open refuses every negative option that is not its
// sentinel, with the field named, and creates no file.
func TestOptionsRefused(t *testing.T) {
	t.Parallel()
	for _, c := range []struct {
		opts Options
		want string
	}{
		{Options{ReadConns: -1}, "sqlite: Options.ReadConns is -1: must be 0 (default the number of CPUs, at least 2) or more"},
		{Options{BusyTimeout: -time.Second}, "sqlite: Options.BusyTimeout is -1s: must be 0 (default 10s) or more"},
		{Options{CheckpointEvery: -time.Second}, "sqlite: Options.CheckpointEvery is -1s: must be 0 (default 200ms), sqlite.AutoCheckpoints or more"},
	} {
		s, err := Open(t.Context(), filepath.Join(t.TempDir(), "cms.db"), &c.opts)
		if err == nil || err.Error() != c.want {
			t.Errorf("got %v, %v; want error %q", s, err, c.want)
		}
	}
}

// TestTrimThreshold: Open sets the C allocator's trim threshold to the
// option (64 MiB by default) and leaves it alone with KeepTrimThreshold;
// a negative value that is not the sentinel is refused.
func TestTrimThreshold(t *testing.T) {
	t.Parallel()
	for _, c := range []struct {
		set  int
		want []int
	}{{0, []int{DefaultTrimThreshold}}, {1 << 30, []int{1 << 30}}, {KeepTrimThreshold, nil}} {
		var got []int
		s, err := Open(t.Context(), Memory, &Options{TrimThreshold: c.set, setTrim: func(n int) bool { got = append(got, n); return true }})
		if err != nil {
			t.Fatal(err)
		}
		s.Close()
		if !slices.Equal(got, c.want) {
			t.Errorf("TrimThreshold %d: set %v, want %v", c.set, got, c.want)
		}
	}
	_, err := Open(t.Context(), Memory, &Options{TrimThreshold: -2})
	if want := "sqlite: Options.TrimThreshold is -2: must be 0 (default 67108864), sqlite.KeepTrimThreshold or more"; err == nil || err.Error() != want {
		t.Errorf("TrimThreshold -2: %v, want %q", err, want)
	}
	if !setTrimThreshold(DefaultTrimThreshold) {
		t.Log("the C library has no mallopt: nothing set")
	}
}

// TestAllocatorAndExecOptions: a store writes and reads the same with
// SQLite's allocator and statements as they come (KeepSQLiteAllocator,
// DriverExec) as by default: a Resource created onto two Maps, updated,
// its revisions recorded, and an account created twice refused.
func TestAllocatorAndExecOptions(t *testing.T) {
	t.Parallel()
	for _, opts := range []*Options{nil, {KeepSQLiteAllocator: true, DriverExec: true}} {
		s, err := Open(t.Context(), filepath.Join(t.TempDir(), "cms.db"), opts)
		if err != nil {
			t.Fatal(err)
		}
		svc, ctx := cmstest.BenchService(t, s, nil)
		for _, title := range []string{"First", "Second"} {
			if _, err := svc.Upsert(ctx, cms.KindResource, []byte(cmstest.ChangeBenchRecord("res-1", title)), nil); err != nil {
				t.Fatalf("%+v: %s: %v", opts, title, err)
			}
		}
		seq, err := svc.Read(ctx, cms.KindResource, cms.ReadParams{IDs: []string{"res-1"}, Published: cms.PublishedAny})
		if err != nil {
			t.Fatal(err)
		}
		var titles []string
		for e, err := range seq {
			if err != nil {
				t.Fatal(err)
			}
			titles = append(titles, e.Record.(*cms.Resource).Title["en"])
		}
		if !slices.Equal(titles, []string{"Second"}) {
			t.Errorf("%+v: read %v", opts, titles)
		}
		page, err := svc.History(ctx, cms.KindResource, "res-1", cms.HistoryParams{})
		if err != nil || len(page.Revisions) != 2 || page.Revisions[0].Rev != 2 {
			t.Errorf("%+v: history %+v, %v", opts, page, err)
		}
		if err := s.CreateAccount(ctx, cms.Account{ID: "acc", Langs: cms.Languages{Default: "en", All: []string{"en"}}}); cms.ErrorCode(err) != cms.CodeConflict {
			t.Errorf("%+v: the account again: %v", opts, err)
		}
		s.Close()
	}
}
