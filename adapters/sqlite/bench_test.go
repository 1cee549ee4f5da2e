package sqlite

import (
	"path/filepath"
	"testing"

	"github.com/bwcms/cms/cms"
	"github.com/bwcms/cms/cms/cmstest"
)

func BenchmarkStore(b *testing.B) {
	cmstest.Bench(b, func(b *testing.B) cms.Store { return openTestStore(b) })
}

// BenchmarkChanges: see cmstest.BenchChanges.
func BenchmarkChanges(b *testing.B) {
	cmstest.BenchChanges(b, func(b *testing.B) cms.Store { return openTestStore(b) })
}

// BenchmarkCreatesParallel compares creates from many writers with group
// commit (the default) and with a commit each (Options.NoGroupCommit).
func BenchmarkCreatesParallel(b *testing.B) {
	open := func(noGroup bool) func(b *testing.B) cms.Store {
		return func(b *testing.B) cms.Store {
			s, err := Open(b.Context(), filepath.Join(b.TempDir(), "cms.db"), &Options{NoGroupCommit: noGroup})
			if err != nil {
				b.Fatal(err)
			}
			b.Cleanup(func() { s.Close() })
			return s
		}
	}
	cmstest.BenchCreatesParallel(b, map[string]func(b *testing.B) cms.Store{"grouped": open(false), "separate": open(true)})
}
