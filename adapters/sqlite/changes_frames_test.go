package sqlite

import (
	"fmt"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/bwcms/cms/cms"
	"github.com/bwcms/cms/cms/cmstest"
)

// BenchmarkChangeFrames counts the WAL frames (pages) a create of a
// Resource onto two Maps writes, with the change records and without
// (cms.Options.BenchmarkWithoutChanges), as BenchmarkChanges' create:
// 300 creates, the WAL emptied, b.N creates, the WAL's frames counted.
// Unlike the time, the count does not move with the machine's load.
// unlocated is the create with the changes of a Resource without a
// location (no row in the location index), spread one whose location
// differs from the others' (the same point for all, else).
func BenchmarkChangeFrames(b *testing.B) {
	for _, name := range []string{"changes", "without", "unlocated", "spread"} {
		without := name == "without"
		b.Run(name, func(b *testing.B) {
			s, err := Open(b.Context(), filepath.Join(b.TempDir(), "cms.db"), &Options{CheckpointEvery: time.Hour})
			if err != nil {
				b.Fatal(err)
			}
			defer s.Close()
			svc, ctx := cmstest.BenchService(b, s, &cms.Options{BenchmarkWithoutChanges: without})
			i := 0
			create := func() {
				i++
				id := fmt.Sprintf("new%07d", i)
				body := cmstest.ChangeBenchRecord(id, "Create "+id)
				switch name {
				case "unlocated":
					body = strings.Replace(body, `"locationLat":45.1,"locationLon":7.6,`, "", 1)
				case "spread":
					// A grid of 1,000 columns of 0.001°, in no order.
					k := i * 7919 % 1000003
					body = strings.Replace(body, `"locationLat":45.1,"locationLon":7.6,`,
						fmt.Sprintf(`"locationLat":%.3f,"locationLon":%.3f,`, 45+float64(k/1000)/1000, 7+float64(k%1000)/1000), 1)
				}
				if _, err := svc.Upsert(ctx, cms.KindResource, []byte(body), nil); err != nil {
					b.Fatal(err)
				}
			}
			for range 300 {
				create()
			}
			var busy, frames, copied int
			if err := s.Write().QueryRowContext(b.Context(), "PRAGMA wal_checkpoint(TRUNCATE)").Scan(&busy, &frames, &copied); err != nil || busy != 0 {
				b.Fatalf("checkpoint: busy %d, %v", busy, err)
			}
			n := 0
			for b.Loop() {
				create()
				n++
			}
			if err := s.Write().QueryRowContext(b.Context(), "PRAGMA wal_checkpoint(PASSIVE)").Scan(&busy, &frames, &copied); err != nil {
				b.Fatal(err)
			}
			b.ReportMetric(float64(frames)/float64(n), "wal-frames/op")
		})
	}
}
