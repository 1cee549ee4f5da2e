package sqlite

import (
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
