package cmstest

import (
	"context"
	"errors"
	"fmt"
	"math"
	"runtime"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/bwcms/cms/cms"
)

// errRolledBack ends a transaction a test rolls back.
var errRolledBack = errors.New("rolled back")

func testList(t *testing.T, open func(t *testing.T) cms.Store) {
	t.Parallel()
	t.Run("ByteOrder", func(t *testing.T) {
		t.Parallel()
		s := open(t)
		// Every character ids may hold (A-Z a-z 0-9 . _ ~ : @ -), upper and
		// lower case: ascending id order is byte order, whatever the
		// database's locale.
		ids := []string{"a-1", "B-1", "0-1", "a.1", "a~1", "a_1", "a:1", "a@1", "A-1", "b-1", "Z-9",
			"a-10", "a-2", "a1b", "_-1", "~~~", "9.z", "aaa", "AAA", "a-1a", "a-1-"}
		for _, id := range ids {
			put(t, s, "a", resource(id))
		}
		want := slices.Sorted(slices.Values(ids))
		if got := listIDs(t, s, cms.ListParams{Account: "a", Kind: cms.KindResource}); !slices.Equal(got, want) {
			t.Errorf("ListRecords:\n got %v\nwant %v (byte order)", got, want)
		}
		for _, after := range []string{"B-1", "a-1", "a", "Z", "a-1-", "0"} {
			i, _ := slices.BinarySearch(want, after+"\x00")
			p := cms.ListParams{Account: "a", Kind: cms.KindResource, After: after}
			if got := listIDs(t, s, p); !slices.Equal(got, want[i:]) {
				t.Errorf("ListRecords after %q:\n got %v\nwant %v", after, got, want[i:])
			}
		}
	})

	t.Run("Filters", func(t *testing.T) {
		t.Parallel()
		s := open(t)
		ctx := t.Context()
		at := func(d time.Duration) time.Time { return t0.Add(d) }
		none := cms.Null[float64]{}
		type row struct {
			id        string
			published bool
			lat, lon  cms.Null[float64]
			updated   time.Time
		}
		of := cms.NullOf[float64]
		rows := []row{
			{"B-1", true, of(45.5), of(9.2), at(0)},
			{"a-1", true, of(46), of(10), at(time.Hour)}, // the box's north-east corner
			{"a-2", false, of(45.7), of(9.5), at(2 * time.Hour)},
			{"a-3", true, of(45), of(9), at(3 * time.Hour)}, // the south-west corner
			{"c.1", true, of(45.7), none, at(3 * time.Hour)},
			{"c~2", true, cms.Nil[float64](), of(9.5), at(4 * time.Hour)},
			{"c-3", true, of(46.0001), of(9.5), at(4 * time.Hour)},               // just north of the box
			{"d-1", true, of(10), of(179.5), at(5*time.Hour - time.Microsecond)}, // east of the 180° meridian
			{"d-2", true, of(10), of(-179.5), at(5 * time.Hour)},
			{"d-3", false, of(10), of(180), at(6 * time.Hour)},
			{"d-4", true, of(10), of(0), at(7 * time.Hour)},
			{"d-5", true, of(20), of(-179), at(8 * time.Hour)}, // corner of the box across the meridian
			{"0-1", true, of(-10), of(0), at(7 * time.Hour)},
		}
		for _, r := range rows {
			res := resource(r.id)
			res.Published, res.LocationLat, res.LocationLon = cms.Some(r.published), r.lat, r.lon
			must(t, s.PutRecord(ctx, entry("a", res, r.updated)))
		}
		m1, m2 := mapRecord("m-1"), mapRecord("m-2")
		m1.LocationLat, m1.LocationLon = of(45.5), of(9.5)
		m2.LocationLat, m2.LocationLon = of(0), of(0)
		put(t, s, "a", m1)
		put(t, s, "a", m2)
		put(t, s, "b", resource("x-1"))
		must(t, s.SetMapResources(ctx, "a", "m-1", cms.RolePrimary, []string{"d-1", "zz-9"})) // zz-9 is no record
		must(t, s.SetMapResources(ctx, "a", "m-1", cms.RoleSecondary, []string{"B-1", "0-1"}))
		must(t, s.SetMapResources(ctx, "a", "m-2", cms.RolePrimary, []string{"a-1"}))
		must(t, s.SetMapResources(ctx, "b", "m-1", cms.RolePrimary, []string{"x-1"}))

		all := cms.ListParams{Account: "a", Kind: cms.KindResource, Published: cms.PublishedAny}
		with := func(mod func(p *cms.ListParams)) cms.ListParams { p := all; mod(&p); return p }
		box := &cms.BBox{MinLon: 9, MinLat: 45, MaxLon: 10, MaxLat: 46}
		across := &cms.BBox{MinLon: 179, MinLat: 0, MaxLon: -179, MaxLat: 20}
		tests := []struct {
			name string
			p    cms.ListParams
			want []string
		}{
			{"any", all, []string{"0-1", "B-1", "a-1", "a-2", "a-3", "c-3", "c.1", "c~2", "d-1", "d-2", "d-3", "d-4", "d-5"}},
			{"published by default", cms.ListParams{Account: "a", Kind: cms.KindResource},
				[]string{"0-1", "B-1", "a-1", "a-3", "c-3", "c.1", "c~2", "d-1", "d-2", "d-4", "d-5"}},
			{"published only", with(func(p *cms.ListParams) { p.Published = cms.PublishedOnly }),
				[]string{"0-1", "B-1", "a-1", "a-3", "c-3", "c.1", "c~2", "d-1", "d-2", "d-4", "d-5"}},
			{"unpublished only", with(func(p *cms.ListParams) { p.Published = cms.UnpublishedOnly }), []string{"a-2", "d-3"}},
			{"after", with(func(p *cms.ListParams) { p.After = "c-3" }), []string{"c.1", "c~2", "d-1", "d-2", "d-3", "d-4", "d-5"}},
			{"after a missing id", with(func(p *cms.ListParams) { p.After = "b" }), []string{"c-3", "c.1", "c~2", "d-1", "d-2", "d-3", "d-4", "d-5"}},
			{"after the last", with(func(p *cms.ListParams) { p.After = "d-5" }), nil},
			{"limit", with(func(p *cms.ListParams) { p.Limit = 3 }), []string{"0-1", "B-1", "a-1"}},
			{"limit above the count", with(func(p *cms.ListParams) { p.Limit = 100 }), []string{"0-1", "B-1", "a-1", "a-2", "a-3", "c-3", "c.1", "c~2", "d-1", "d-2", "d-3", "d-4", "d-5"}},
			{"after and limit", with(func(p *cms.ListParams) { p.After = "B-1"; p.Limit = 2 }), []string{"a-1", "a-2"}},
			{"bbox, edges inside, both coordinates needed", with(func(p *cms.ListParams) { p.BBox = box }), []string{"B-1", "a-1", "a-2", "a-3"}},
			{"bbox across the 180° meridian", with(func(p *cms.ListParams) { p.BBox = across }), []string{"d-1", "d-2", "d-3", "d-5"}},
			{"updated since, inclusive", with(func(p *cms.ListParams) { p.UpdatedSince = at(5 * time.Hour) }), []string{"0-1", "d-2", "d-3", "d-4", "d-5"}},
			{"updated since, another zone", with(func(p *cms.ListParams) { p.UpdatedSince = at(7 * time.Hour).In(cet) }), []string{"0-1", "d-4", "d-5"}},
			{"map, either role", with(func(p *cms.ListParams) { p.MapID = "m-1" }), []string{"0-1", "B-1", "d-1"}},
			{"another map", with(func(p *cms.ListParams) { p.MapID = "m-2" }), []string{"a-1"}},
			{"a map without Resources", with(func(p *cms.ListParams) { p.MapID = "m-9" }), nil},
			{"bbox, published, updated since", with(func(p *cms.ListParams) {
				p.BBox, p.Published, p.UpdatedSince = box, cms.PublishedOnly, at(time.Hour)
			}), []string{"a-1", "a-3"}},
			{"map, after, limit", with(func(p *cms.ListParams) { p.MapID, p.After, p.Limit = "m-1", "0-1", 1 }), []string{"B-1"}},
			{"map and bbox", with(func(p *cms.ListParams) { p.MapID, p.BBox = "m-1", box }), []string{"B-1"}},
			{"across, published, updated since, limit", with(func(p *cms.ListParams) {
				p.BBox, p.Published, p.UpdatedSince, p.Limit = across, cms.PublishedOnly, at(5*time.Hour), 1
			}), []string{"d-2"}},
			{"across, unpublished, after", with(func(p *cms.ListParams) {
				p.BBox, p.Published, p.After = across, cms.UnpublishedOnly, "d-1"
			}), []string{"d-3"}},
			{"Maps in a bbox", with(func(p *cms.ListParams) { p.Kind, p.BBox = cms.KindMap, box }), []string{"m-1"}},
			{"Maps", with(func(p *cms.ListParams) { p.Kind = cms.KindMap }), []string{"m-1", "m-2"}},
			{"Landings", with(func(p *cms.ListParams) { p.Kind = cms.KindLanding }), nil},
			{"another account", with(func(p *cms.ListParams) { p.Account = "b" }), []string{"x-1"}},
			{"another account's map", with(func(p *cms.ListParams) { p.Account, p.MapID = "b", "m-1" }), []string{"x-1"}},
		}
		for _, tt := range tests {
			if got := listIDs(t, s, tt.p); !slices.Equal(got, tt.want) {
				t.Errorf("%s: got %v, want %v", tt.name, got, tt.want)
			}
		}
	})

	// BoxWrites: a box answers what the writes left, through whatever
	// location index the store keeps: records moved into and out of it by
	// an update, deleted, written by PutRecords, a write rolled back, and
	// records on its edges at coordinates no float32 holds (an index of
	// float32 boxes must not drop them), beside others just outside.
	t.Run("BoxWrites", func(t *testing.T) {
		t.Parallel()
		s := open(t)
		ctx := t.Context()
		of := cms.NullOf[float64]
		located := func(id string, lat, lon float64) *cms.Resource {
			r := resource(id)
			r.LocationLat, r.LocationLon = of(lat), of(lon)
			return r
		}
		// Edges of many digits; the records outside are a few float32
		// steps (about 4e-6 at these latitudes) or a double's away.
		box := &cms.BBox{MinLon: 9.123456789012, MinLat: 45.987654321098, MaxLon: 9.223456789012, MaxLat: 46.087654321098}
		next := math.Nextafter
		put(t, s, "a", located("edge-sw", box.MinLat, box.MinLon))
		put(t, s, "a", located("edge-ne", box.MaxLat, box.MaxLon))
		put(t, s, "a", located("edge-nw", box.MaxLat, box.MinLon))
		put(t, s, "a", located("edge-s", box.MinLat, 9.2))
		put(t, s, "a", located("out-s", next(box.MinLat, 0), 9.2))
		put(t, s, "a", located("out-n", next(box.MaxLat, 90), 9.2))
		put(t, s, "a", located("out-w", 46, box.MinLon-1e-9))
		put(t, s, "a", located("out-e", 46, box.MaxLon+2e-6))
		put(t, s, "a", located("mover", 40, 9.2))
		put(t, s, "a", located("leaver", 46, 9.2))
		put(t, s, "a", located("gone", 46.01, 9.2))
		put(t, s, "a", resource("unlocated"))
		put(t, s, "b", located("other", 46, 9.2)) // another account's, inside
		p := cms.ListParams{Account: "a", Kind: cms.KindResource, Published: cms.PublishedAny, BBox: box}
		check := func(when string, want ...string) {
			t.Helper()
			slices.Sort(want)
			if got := listIDs(t, s, p); !slices.Equal(got, want) {
				t.Errorf("%s: got %v, want %v", when, got, want)
			}
		}
		edges := []string{"edge-ne", "edge-nw", "edge-s", "edge-sw"}
		check("stored", append(edges, "gone", "leaver")...)

		put(t, s, "a", located("mover", 46.05, 9.15))
		put(t, s, "a", located("leaver", 46, 10))
		unlocated := resource("unlocated")
		unlocated.LocationLat, unlocated.LocationLon = of(46.02), of(9.2)
		put(t, s, "a", unlocated)
		must(t, s.DeleteRecord(ctx, "a", cms.KindResource, "gone"))
		check("updated and deleted", append(edges, "mover", "unlocated")...)

		// A location taken away, half of one (a record needs both), and
		// a batch's writes: two in, one out, one new.
		put(t, s, "a", resource("mover"))
		halved := located("unlocated", 46.02, 9.2)
		halved.LocationLon = cms.Null[float64]{}
		put(t, s, "a", halved)
		must(t, s.PutRecords(ctx, []*cms.Entry{
			entry("a", located("out-s", 46.03, 9.2), t0), entry("a", located("leaver", 46.04, 9.16), t0),
			entry("a", located("edge-s", 47, 9.2), t0), entry("a", located("batched", 46.05, 9.17), t0),
		}))
		check("cleared and batched", "batched", "edge-ne", "edge-nw", "edge-sw", "leaver", "out-s")

		// A write rolled back leaves the box as it was.
		err := s.WithTx(ctx, func(tx cms.Store) error {
			if err := tx.PutRecord(ctx, entry("a", located("batched", 10, 10), t0)); err != nil {
				return err
			}
			if err := tx.PutRecord(ctx, entry("a", located("rolled", 46, 9.2), t0)); err != nil {
				return err
			}
			return errRolledBack
		})
		if !errors.Is(err, errRolledBack) {
			t.Fatalf("WithTx: %v", err)
		}
		check("rolled back", "batched", "edge-ne", "edge-nw", "edge-sw", "leaver", "out-s")
		p.Account = "b"
		check("the other account", "other")
	})

	t.Run("Chunks", func(t *testing.T) {
		t.Parallel()
		s := open(t)
		const n = 1100 // more than one page of any sensible chunk size
		fill(t, s, "a", n, func(i int) cms.Record {
			r := resource(fmt.Sprintf("r-%04d", i))
			r.Published = cms.Some(i%2 == 0)
			return r
		})
		got := listIDs(t, s, cms.ListParams{Account: "a", Kind: cms.KindResource, Published: cms.PublishedAny})
		if len(got) != n || !slices.IsSorted(got) {
			t.Fatalf("streamed %d records (sorted: %v), want %d", len(got), slices.IsSorted(got), n)
		}
		if len(slices.Compact(slices.Clone(got))) != n {
			t.Fatalf("streamed a record twice")
		}
		got = listIDs(t, s, cms.ListParams{Account: "a", Kind: cms.KindResource, Published: cms.PublishedAny, After: "r-0299", Limit: 600})
		if len(got) != 600 || got[0] != "r-0300" || got[599] != "r-0899" {
			t.Errorf("after r-0299, limit 600: %d records, from %v to %v", len(got), got[:min(1, len(got))], got[max(0, len(got)-1):])
		}
		got = listIDs(t, s, cms.ListParams{Account: "a", Kind: cms.KindResource})
		if len(got) != n/2 || got[0] != "r-0000" || got[len(got)-1] != "r-1098" {
			t.Errorf("published only: %d records, want %d", len(got), n/2)
		}
	})

	t.Run("EarlyBreak", func(t *testing.T) {
		t.Parallel()
		s := open(t)
		fill(t, s, "a", 600, func(i int) cms.Record { return resource(fmt.Sprintf("r-%04d", i)) })
		// Breaking out must release what the sequence holds (a connection,
		// a read transaction, a lock): more breaks than any pool has
		// connections, then a write and a full read must go through. A
		// deadline turns a store that hangs into a failure.
		ctx, cancel := context.WithTimeout(t.Context(), time.Minute)
		defer cancel()
		for i := range 40 {
			n := 0
			for _, err := range s.ListRecords(ctx, cms.ListParams{Account: "a", Kind: cms.KindResource}) {
				must(t, err)
				if n++; n > i*13 {
					break
				}
			}
		}
		if err := s.PutRecord(ctx, entry("a", resource("z-1"), t0)); err != nil {
			t.Fatalf("PutRecord after early breaks: %v", err)
		}
		err := s.WithTx(ctx, func(tx cms.Store) error {
			for range tx.ListRecords(ctx, cms.ListParams{Account: "a", Kind: cms.KindResource}) {
				break
			}
			return tx.PutRecord(ctx, entry("a", resource("z-2"), t0))
		})
		if err != nil {
			t.Fatalf("WithTx after early breaks: %v", err)
		}
		n := 0
		for _, err := range s.ListRecords(ctx, cms.ListParams{Account: "a", Kind: cms.KindResource}) {
			must(t, err)
			n++
		}
		if n != 602 {
			t.Fatalf("full read after early breaks: %d records, want 602", n)
		}
	})

	t.Run("ErrorIsLast", func(t *testing.T) {
		t.Parallel()
		s := open(t)
		fill(t, s, "a", 600, func(i int) cms.Record { return resource(fmt.Sprintf("r-%04d", i)) })
		// A context cancelled before or during the stream: an error, if
		// any, comes once and ends the sequence.
		for _, cancelAt := range []int{0, 1, 300} {
			ctx, cancel := context.WithCancel(t.Context())
			if cancelAt == 0 {
				cancel()
			}
			n, errs, afterErr := 0, 0, 0
			for e, err := range s.ListRecords(ctx, cms.ListParams{Account: "a", Kind: cms.KindResource}) {
				if errs > 0 {
					afterErr++
				}
				if err != nil {
					errs++
					continue
				}
				if e == nil {
					t.Errorf("cancel at %d: a nil entry without an error", cancelAt)
				}
				if n++; n == cancelAt {
					cancel()
				}
			}
			cancel()
			if errs > 1 || afterErr > 0 {
				t.Errorf("cancel at %d: %d errors, %d elements after the first error; want at most one error, last", cancelAt, errs, afterErr)
			}
		}
	})

	t.Run("Stream10000", func(t *testing.T) {
		if testing.Short() {
			t.Skip("stores 50 MB of records")
		}
		t.Parallel()
		s := open(t)
		const n, size = 10000, 5000
		fill(t, s, "a", n, func(i int) cms.Record {
			r := resource(fmt.Sprintf("r-%05d", i))
			text := strings.Repeat(fmt.Sprintf("%05d ", i), size/6+1)[:size]
			r.HTMLContent = cms.Langs[cms.Null[string]]{"en": cms.NullOf(text)}
			return r
		})

		// Holding every record would take over 50 MB: the heap in use,
		// measured every 1,000 records, must stay far below that.
		const bound = 32 << 20
		var base, m runtime.MemStats
		runtime.GC()
		runtime.ReadMemStats(&base)
		var peak uint64
		count, last := 0, ""
		for e, err := range s.ListRecords(t.Context(), cms.ListParams{Account: "a", Kind: cms.KindResource}) {
			if err != nil {
				t.Fatalf("after %d records: %v", count, err)
			}
			if id := e.Record.RecordID(); id <= last {
				t.Fatalf("record %q after %q", id, last)
			} else {
				last = id
			}
			if count++; count%1000 == 0 {
				runtime.GC()
				runtime.ReadMemStats(&m)
				if m.HeapAlloc > base.HeapAlloc {
					peak = max(peak, m.HeapAlloc-base.HeapAlloc)
				}
			}
		}
		if count != n {
			t.Fatalf("streamed %d records, want %d", count, n)
		}
		t.Logf("heap growth while streaming %d MB of records: %.1f MB", n*size>>20, float64(peak)/(1<<20))
		if peak > bound {
			t.Fatalf("the heap grew by %.1f MB while streaming (bound %d MB): ListRecords holds the records", float64(peak)/(1<<20), bound>>20)
		}
	})
}

// fill stores n records made by rec in account, in one transaction.
func fill(tb testing.TB, s cms.Store, account string, n int, rec func(i int) cms.Record) {
	tb.Helper()
	ctx := tb.Context()
	err := s.WithTx(ctx, func(tx cms.Store) error {
		for i := range n {
			if err := tx.PutRecord(ctx, entry(account, rec(i), t0)); err != nil {
				return err
			}
		}
		return nil
	})
	if err != nil {
		tb.Fatalf("storing %d records: %v", n, err)
	}
}
