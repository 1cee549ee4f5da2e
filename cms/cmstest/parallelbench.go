package cmstest

import (
	"fmt"
	"sync/atomic"
	"testing"

	"github.com/bwcms/cms/cms"
)

// BenchCreatesParallel measures creates of Resources naming two Maps
// through the service (change records written), from 8 writers a CPU at
// once: what a busy server's creates cost when they wait on each other
// for the database's one writer (SQLite) or its locks. Each open names a
// configuration of the store; the benchmark runs each under that name.
func BenchCreatesParallel(b *testing.B, opens map[string]func(b *testing.B) cms.Store) {
	for name, open := range opens {
		b.Run(name, func(b *testing.B) {
			svc, ctx := BenchService(b, open(b), &cms.Options{})
			var next atomic.Int64
			b.SetParallelism(8)
			b.ReportAllocs()
			start, ok := processCPU()
			b.RunParallel(func(pb *testing.PB) {
				for pb.Next() {
					id := fmt.Sprintf("par%07d", next.Add(1))
					if _, err := svc.Upsert(ctx, cms.KindResource, []byte(ChangeBenchRecord(id, "Create "+id)), nil); err != nil {
						b.Error(err)
						return
					}
				}
			})
			if end, ok2 := processCPU(); ok && ok2 && b.N > 0 {
				b.ReportMetric(float64((end-start).Microseconds())/1000/float64(b.N), "cpu-ms/op")
			}
			b.ReportMetric(float64(b.N)/b.Elapsed().Seconds(), "creates/s")
		})
	}
}
