package sqlite

import (
	"path/filepath"
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
