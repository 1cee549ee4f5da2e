package cmstest

import (
	"fmt"
	"runtime"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/bwcms/cms/cms"
)

// Bench runs the storage benchmarks on a store that open returns empty:
// single upserts, point reads, reads of 50 by id, a stream of 10,000
// records and a batch of 1,000 upserts in one transaction. Each adapter
// calls it from its own Benchmark function.
func Bench(b *testing.B, open func(b *testing.B) cms.Store) {
	b.Run("PutRecord", func(b *testing.B) {
		s := open(b)
		b.ReportAllocs()
		i := 0
		for b.Loop() {
			putBench(b, s, i)
			i++
		}
		b.ReportMetric(float64(b.N)/b.Elapsed().Seconds(), "records/s")
	})
	b.Run("PutRecordParallel", func(b *testing.B) {
		s := open(b)
		b.ReportAllocs()
		var next atomic.Uint64
		b.RunParallel(func(pb *testing.PB) {
			for pb.Next() {
				putBench(b, s, int(next.Add(1)))
			}
		})
		b.ReportMetric(float64(b.N)/b.Elapsed().Seconds(), "records/s")
	})
	b.Run("GetRecord", func(b *testing.B) {
		s := open(b)
		fillBench(b, s, 10000)
		b.ReportAllocs()
		i := 0
		for b.Loop() {
			getBench(b, s, i%10000)
			i++
		}
		b.ReportMetric(float64(b.N)/b.Elapsed().Seconds(), "reads/s")
	})
	b.Run("GetRecordParallel", func(b *testing.B) {
		s := open(b)
		fillBench(b, s, 10000)
		b.ReportAllocs()
		var next atomic.Uint64
		b.RunParallel(func(pb *testing.PB) {
			for pb.Next() {
				getBench(b, s, int(next.Add(1)%10000))
			}
		})
		b.ReportMetric(float64(b.N)/b.Elapsed().Seconds(), "reads/s")
	})
	b.Run("GetRecords50", func(b *testing.B) {
		s := open(b)
		fillBench(b, s, 10000)
		ids := make([]string, 50)
		b.ReportAllocs()
		i := 0
		for b.Loop() {
			for j := range ids {
				ids[j] = benchID((i*50 + j*37) % 10000)
			}
			got, err := s.GetRecords(b.Context(), "bench", cms.KindResource, ids)
			if err != nil || len(got) != 50 {
				b.Fatalf("GetRecords: %d, %v", len(got), err)
			}
			i++
		}
	})
	b.Run("Stream10000", func(b *testing.B) {
		s := open(b)
		fillBench(b, s, 10000)
		b.ReportAllocs()
		var peak uint64
		for b.Loop() {
			var base runtime.MemStats
			runtime.GC()
			runtime.ReadMemStats(&base)
			n := 0
			for _, err := range s.ListRecords(b.Context(), cms.ListParams{Account: "bench", Kind: cms.KindResource, Published: cms.PublishedAny}) {
				if err != nil {
					b.Fatal(err)
				}
				if n++; n%1000 == 0 {
					var m runtime.MemStats
					runtime.ReadMemStats(&m)
					if m.HeapAlloc > base.HeapAlloc {
						peak = max(peak, m.HeapAlloc-base.HeapAlloc)
					}
				}
			}
			if n != 10000 {
				b.Fatalf("streamed %d records, want 10000", n)
			}
		}
		b.ReportMetric(float64(peak)/(1<<20), "peak-heap-MB")
		b.ReportMetric(float64(b.N*10000)/b.Elapsed().Seconds(), "records/s")
	})
	b.Run("PutRecords1000InTx", func(b *testing.B) {
		s := open(b)
		b.ReportAllocs()
		round := 0
		for b.Loop() {
			err := s.WithTx(b.Context(), func(tx cms.Store) error {
				for i := range 1000 {
					if err := tx.PutRecord(b.Context(), benchEntry(i, round)); err != nil {
						return err
					}
				}
				return nil
			})
			if err != nil {
				b.Fatal(err)
			}
			round++
		}
		b.ReportMetric(float64(b.N*1000)/b.Elapsed().Seconds(), "records/s")
	})
}

func benchID(i int) string { return fmt.Sprintf("poi-%05d", i) }

// benchEntry is a Resource of about 3 KB in three languages.
func benchEntry(i, round int) *cms.Entry {
	text := func(lang string, n int) string {
		return strings.Repeat(fmt.Sprintf("%s text %d.%d ", lang, i, round), n)[:n]
	}
	langs := func(n int) cms.Langs[cms.Null[string]] {
		return cms.Langs[cms.Null[string]]{"en": cms.NullOf(text("en", n)), "it": cms.NullOf(text("it", n)), "de": cms.NullOf(text("de", n))}
	}
	r := &cms.Resource{
		ID:               benchID(i),
		Published:        cms.Some(true),
		Title:            cms.Langs[string]{"en": text("en", 60), "it": text("it", 60), "de": text("de", 60)},
		ShortDescription: langs(150),
		HTMLDescription:  langs(400),
		URLAlias:         cms.Langs[string]{"en": "/en/" + benchID(i), "it": "/it/" + benchID(i), "de": "/de/" + benchID(i)},
		Image:            cms.NullOf("https://example.org/img/" + benchID(i) + ".jpg"),
		Multimedia:       cms.NullOf([]string{"https://example.org/a.jpg", "https://example.org/b.png"}),
		LocationLat:      cms.NullOf(float64(i%170) - 85 + 0.5),
		LocationLon:      cms.NullOf(float64(i%350) - 175 + 0.5),
		LocationZoom:     cms.NullOf[int64](12),
		POIResourceIDs:   cms.NullOf([]string{benchID((i + 1) % 1000)}),
		ResourceType:     cms.Some("POI"),
		ContactCity:      cms.NullOf("Milano"),
		HeadTitle:        langs(90),
	}
	return &cms.Entry{Account: "bench", Record: r, Updated: time.Unix(1_700_000_000+int64(round), 0)}
}

func putBench(b *testing.B, s cms.Store, i int) {
	// The round changes the contents, so every put is a real update.
	if err := s.PutRecord(b.Context(), benchEntry(i%1000, i/1000+1)); err != nil {
		b.Fatal(err)
	}
}

func getBench(b *testing.B, s cms.Store, i int) {
	if _, err := s.GetRecord(b.Context(), "bench", cms.KindResource, benchID(i)); err != nil {
		b.Fatal(err)
	}
}

func fillBench(b *testing.B, s cms.Store, n int) {
	b.Helper()
	err := s.WithTx(b.Context(), func(tx cms.Store) error {
		for start := 0; start < n; start += 500 {
			entries := make([]*cms.Entry, 0, 500)
			for i := start; i < min(start+500, n); i++ {
				entries = append(entries, benchEntry(i, 0))
			}
			if err := tx.PutRecords(b.Context(), entries); err != nil {
				return err
			}
		}
		return nil
	})
	if err != nil {
		b.Fatal(err)
	}
	b.ResetTimer()
}
