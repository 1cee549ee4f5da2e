package sqlite

import (
	"path/filepath"
	"slices"
	"testing"
	"time"
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
