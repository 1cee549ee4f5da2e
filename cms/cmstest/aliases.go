package cmstest

import (
	"fmt"
	"reflect"
	"slices"
	"sync"
	"testing"
	"time"

	"github.com/bwcms/cms/cms"
)

// record is a small published record of kind with aliases.
func record(kind cms.Kind, id string, aliases cms.Langs[string]) cms.Record {
	rec := cms.NewRecord(kind)
	v := reflect.ValueOf(rec).Elem()
	v.FieldByName("ID").SetString(id)
	v.FieldByName("Published").Set(reflect.ValueOf(cms.Some(true)))
	v.FieldByName("Title").Set(reflect.ValueOf(cms.Langs[string]{"en": kind.Title() + " " + id}))
	v.FieldByName("URLAlias").Set(reflect.ValueOf(aliases))
	if m, ok := rec.(*cms.Map); ok {
		m.RoutePlannerAuto, m.RoutePlannerColor, m.RoutePlannerWidth = cms.Some(false), cms.Some("#3388ff"), cms.Some(3.0)
	}
	return rec
}

// wantHolder checks AliasHolder: holder "" means none (CodeNotFound).
func wantHolder(tb testing.TB, s cms.Store, account string, kind cms.Kind, lang, alias, want string) {
	tb.Helper()
	got, err := s.AliasHolder(tb.Context(), account, kind, lang, alias)
	if want == "" {
		if cms.ErrorCode(err) != cms.CodeNotFound {
			tb.Errorf("AliasHolder(%s, %s, %s, %q): got %q, %v; want CodeNotFound", account, kind, lang, alias, got, err)
		}
		return
	}
	if err != nil || got != want {
		tb.Errorf("AliasHolder(%s, %s, %s, %q): got %q, %v; want %q", account, kind, lang, alias, got, err, want)
	}
}

// wantRace checks that err is PutRecord's answer to an alias another
// record holds: a race (the caller's check missed a concurrent writer).
func wantRace(tb testing.TB, err error, what string) {
	tb.Helper()
	if !cms.IsRace(err) || cms.ErrorCode(err) != cms.CodeUnavailable {
		tb.Errorf("%s: got %v (code %q), want a race", what, err, cms.ErrorCode(err))
	}
}

func testAliases(t *testing.T, open func(t *testing.T) cms.Store) {
	t.Parallel()
	t.Run("Holder", func(t *testing.T) {
		t.Parallel()
		s := open(t)
		put(t, s, "a", record(cms.KindResource, "r-1", cms.Langs[string]{"en": "/lake", "it": "/lago", "de": "/see"}))
		wantHolder(t, s, "a", cms.KindResource, "en", "/lake", "r-1")
		wantHolder(t, s, "a", cms.KindResource, "it", "/lago", "r-1")
		wantHolder(t, s, "a", cms.KindResource, "de", "/see", "r-1")
		wantHolder(t, s, "a", cms.KindResource, "de", "/lago", "")
		wantHolder(t, s, "a", cms.KindResource, "it", "/lake", "")
		wantHolder(t, s, "a", cms.KindResource, "it", "/Lago", "")
		wantHolder(t, s, "a", cms.KindMap, "it", "/lago", "")
		wantHolder(t, s, "b", cms.KindResource, "it", "/lago", "")

		// The same alias in another language, kind or account is no clash;
		// neither is a record put again with its own aliases.
		put(t, s, "a", record(cms.KindResource, "r-2", cms.Langs[string]{"de": "/lago"}))
		for _, kind := range []cms.Kind{cms.KindMap, cms.KindLanding, cms.KindProposal} {
			put(t, s, "a", record(kind, "x-1", cms.Langs[string]{"it": "/lago"}))
			wantHolder(t, s, "a", kind, "it", "/lago", "x-1")
		}
		put(t, s, "b", record(cms.KindResource, "r-9", cms.Langs[string]{"it": "/lago"}))
		put(t, s, "a", record(cms.KindResource, "r-1", cms.Langs[string]{"en": "/lake", "it": "/lago", "de": "/see"}))
		wantHolder(t, s, "a", cms.KindResource, "de", "/lago", "r-2")
		wantHolder(t, s, "a", cms.KindResource, "it", "/lago", "r-1")
		wantHolder(t, s, "b", cms.KindResource, "it", "/lago", "r-9")

		// An empty alias is not indexed (cms.Codec.Index), so it never clashes.
		put(t, s, "a", record(cms.KindResource, "r-3", cms.Langs[string]{"en": ""}))
		put(t, s, "a", record(cms.KindResource, "r-4", cms.Langs[string]{"en": ""}))
		wantHolder(t, s, "a", cms.KindResource, "en", "", "")
	})

	t.Run("Clash", func(t *testing.T) {
		t.Parallel()
		s := open(t)
		ctx := t.Context()
		put(t, s, "a", record(cms.KindResource, "r-1", cms.Langs[string]{"en": "/lake", "it": "/lago"}))

		// PutRecord does not check aliases (the service does, in its
		// transaction): one taken is a race, and the put is refused whole.
		// A new record:
		r2 := record(cms.KindResource, "r-2", cms.Langs[string]{"en": "/other", "it": "/lago", "de": "/r2"}).(*cms.Resource)
		r2.POIResourceIDs = cms.NullOf([]string{"r-1"})
		err := s.PutRecord(ctx, entry("a", r2, t0))
		wantRace(t, err, "new record, alias taken")
		wantMissing(t, s, "a", cms.KindResource, "r-2")
		wantHolder(t, s, "a", cms.KindResource, "en", "/other", "")
		wantHolder(t, s, "a", cms.KindResource, "de", "/r2", "")
		wantHolder(t, s, "a", cms.KindResource, "it", "/lago", "r-1")
		if refs, err := s.Referrers(ctx, "a", cms.ReferenceTargets(cms.KindResource), "r-1"); err != nil || len(refs) != 0 {
			t.Errorf("references of the refused record: %+v, %v", refs, err)
		}

		// A replacement: the stored version stays whole.
		r3 := record(cms.KindResource, "r-3", cms.Langs[string]{"en": "/r3"})
		put(t, s, "a", r3)
		changed := record(cms.KindResource, "r-3", cms.Langs[string]{"en": "/r3-new", "it": "/lago"}).(*cms.Resource)
		changed.Title["en"] = "changed"
		changed.POIResourceIDs = cms.NullOf([]string{"r-1"})
		err = s.PutRecord(ctx, entry("a", changed, t0.Add(time.Minute)))
		wantRace(t, err, "replacement, alias taken")
		if got := get(t, s, "a", cms.KindResource, "r-3"); title(t, got) != "Resource r-3" || !got.Updated.Equal(t0) {
			t.Errorf("the refused replacement changed the record: title %q, updated %v", title(t, got), got.Updated)
		}
		wantHolder(t, s, "a", cms.KindResource, "en", "/r3", "r-3")
		wantHolder(t, s, "a", cms.KindResource, "en", "/r3-new", "")
		if refs, err := s.Referrers(ctx, "a", cms.ReferenceTargets(cms.KindResource), "r-1"); err != nil || len(refs) != 0 {
			t.Errorf("references of the refused replacement: %+v, %v", refs, err)
		}

		// Every kind keeps its aliases unique.
		for _, kind := range cms.Kinds() {
			put(t, s, "a", record(kind, "k-1", cms.Langs[string]{"de": "/same"}))
			err := s.PutRecord(ctx, entry("a", record(kind, "k-2", cms.Langs[string]{"en": "/free", "de": "/same"}), t0))
			wantRace(t, err, string(kind)+" alias taken")
			wantMissing(t, s, "a", kind, "k-2")
		}
	})

	t.Run("Numbers", func(t *testing.T) {
		t.Parallel()
		s := open(t)
		ctx := t.Context()
		split := map[string]int64{} // the highest numbers as cms.SplitAlias reads the aliases
		for i, alias := range []string{"/t", "/t-2", "/t-7", "/t-02", "/t-1", "/route-66", "/route-66-3",
			"/x-999999999999999999", "/x-1000000000000000000", "/caffè-4"} {
			put(t, s, "a", record(cms.KindResource, fmt.Sprintf("r-%d", i), cms.Langs[string]{"en": alias}))
			base, n := cms.SplitAlias(alias)
			split[base] = max(split[base], n)
		}
		// The same base elsewhere counts not.
		put(t, s, "a", record(cms.KindResource, "other-lang", cms.Langs[string]{"it": "/t-50"}))
		put(t, s, "a", record(cms.KindMap, "other-kind", cms.Langs[string]{"en": "/t-60"}))
		put(t, s, "b", record(cms.KindResource, "other-account", cms.Langs[string]{"en": "/t-70"}))
		numbers := func(skip []int64, bases ...string) map[string]int64 {
			t.Helper()
			got, err := s.AliasNumbers(ctx, cms.AliasNumberParams{Account: "a", Kind: cms.KindResource, Lang: "en", Bases: bases, Skip: skip})
			if err != nil {
				t.Fatal(err)
			}
			return got
		}
		want := map[string]int64{"/t": 7, "/route-66": 3, "/route": 66, "/x": 999999999999999999,
			"/x-1000000000000000000": 1, "/t-02": 1, "/t-1": 1, "/caffè": 4}
		got := numbers(nil, "/t", "/route-66", "/route", "/x", "/x-1000000000000000000", "/t-02", "/t-1", "/caffè", "/none", "/t")
		if !reflect.DeepEqual(got, want) || !reflect.DeepEqual(split, want) {
			t.Errorf("AliasNumbers = %v, want %v (cms.SplitAlias: %v)", got, want, split)
		}
		if got := numbers([]int64{7}, "/t"); got["/t"] != 2 {
			t.Errorf("AliasNumbers skipping 7 = %v, want /t 2", got)
		}
		if got := numbers([]int64{7, 2, 1}, "/t"); len(got) != 0 {
			t.Errorf("AliasNumbers skipping every number = %v, want none", got)
		}
		below := func(below int64, skip []int64, base string) int64 {
			t.Helper()
			got, err := s.AliasNumbers(ctx, cms.AliasNumberParams{Account: "a", Kind: cms.KindResource, Lang: "en",
				Bases: []string{base}, Skip: skip, Below: below})
			if err != nil {
				t.Fatal(err)
			}
			return got[base]
		}
		for _, c := range []struct {
			below int64
			skip  []int64
			base  string
			want  int64
		}{{7, nil, "/t", 2}, {8, nil, "/t", 7}, {2, nil, "/t", 1}, {1, nil, "/t", 0}, {7, []int64{2}, "/t", 1},
			{999999999999999999, nil, "/x", 0}} {
			if got := below(c.below, c.skip, c.base); got != c.want {
				t.Errorf("AliasNumbers of %s below %d skipping %v = %d, want %d", c.base, c.below, c.skip, got, c.want)
			}
		}
		// A released alias counts no more.
		put(t, s, "a", record(cms.KindResource, "r-2", cms.Langs[string]{"en": "/moved"}))
		must(t, s.DeleteRecord(ctx, "a", cms.KindResource, "r-1"))
		if got := numbers(nil, "/t"); got["/t"] != 1 {
			t.Errorf("AliasNumbers after releases = %v, want /t 1", got)
		}
	})

	t.Run("Release", func(t *testing.T) {
		t.Parallel()
		s := open(t)
		ctx := t.Context()
		put(t, s, "a", record(cms.KindResource, "r-1", cms.Langs[string]{"en": "/lake", "it": "/lago"}))

		// Replacing a record releases the aliases it no longer has.
		put(t, s, "a", record(cms.KindResource, "r-1", cms.Langs[string]{"en": "/lake", "it": "/lago-nuovo"}))
		wantHolder(t, s, "a", cms.KindResource, "it", "/lago", "")
		wantHolder(t, s, "a", cms.KindResource, "it", "/lago-nuovo", "r-1")
		put(t, s, "a", record(cms.KindResource, "r-2", cms.Langs[string]{"it": "/lago"}))
		put(t, s, "a", record(cms.KindResource, "r-1", cms.Langs[string]{"it": "/lago-nuovo"}))
		wantHolder(t, s, "a", cms.KindResource, "en", "/lake", "")
		put(t, s, "a", record(cms.KindResource, "r-3", cms.Langs[string]{"en": "/lake"}))

		// Deleting a record releases all its aliases.
		must(t, s.DeleteRecord(ctx, "a", cms.KindResource, "r-2"))
		wantHolder(t, s, "a", cms.KindResource, "it", "/lago", "")
		put(t, s, "a", record(cms.KindResource, "r-4", cms.Langs[string]{"it": "/lago"}))
		wantHolder(t, s, "a", cms.KindResource, "it", "/lago", "r-4")
	})

	t.Run("NewRecords", func(t *testing.T) {
		t.Parallel()
		s := open(t)
		ctx := t.Context()
		newEntry := func(rec cms.Record) *cms.Entry {
			e := entry("a", rec, time.Now())
			e.New = true
			return e
		}
		// A new record's put indexes its aliases and references as any put
		// does; in a set, the stored records' old ones are still released.
		put(t, s, "a", record(cms.KindResource, "r-1", cms.Langs[string]{"en": "/lake", "it": "/lago"}))
		r2 := record(cms.KindResource, "r-2", cms.Langs[string]{"en": "/lake-2"}).(*cms.Resource)
		r2.POIResourceIDs = cms.NullOf([]string{"r-1"})
		must(t, s.PutRecords(ctx, []*cms.Entry{
			entry("a", record(cms.KindResource, "r-1", cms.Langs[string]{"en": "/lake-1"}), time.Now()),
			newEntry(r2),
			newEntry(record(cms.KindResource, "r-3", cms.Langs[string]{"en": "/lake", "it": "/lago"})),
		}))
		wantHolder(t, s, "a", cms.KindResource, "en", "/lake-1", "r-1")
		wantHolder(t, s, "a", cms.KindResource, "en", "/lake-2", "r-2")
		wantHolder(t, s, "a", cms.KindResource, "en", "/lake", "r-3")
		wantHolder(t, s, "a", cms.KindResource, "it", "/lago", "r-3")
		must(t, s.PutRecord(ctx, newEntry(record(cms.KindMap, "m-1", cms.Langs[string]{"en": "/lake"}))))
		wantHolder(t, s, "a", cms.KindMap, "en", "/lake", "m-1")
		refs, err := s.Referrers(ctx, "a", cms.ReferenceTargets(cms.KindResource), "r-1")
		if err != nil || len(refs) != 1 || refs[0].FromID != "r-2" {
			t.Fatalf("Referrers of r-1: %+v, %v", refs, err)
		}
		// Stored, it is put as any record: its old aliases and references go.
		put(t, s, "a", record(cms.KindResource, "r-2", cms.Langs[string]{"en": "/lake-two"}))
		wantHolder(t, s, "a", cms.KindResource, "en", "/lake-2", "")
		wantHolder(t, s, "a", cms.KindResource, "en", "/lake-two", "r-2")
		if refs, err := s.Referrers(ctx, "a", cms.ReferenceTargets(cms.KindResource), "r-1"); err != nil || len(refs) != 0 {
			t.Fatalf("Referrers of r-1 after r-2 dropped it: %+v, %v", refs, err)
		}
	})

	t.Run("IndexedKept", func(t *testing.T) {
		t.Parallel()
		s := open(t)
		ctx := t.Context()
		codec := cms.NewDocumentCodec()
		r1 := record(cms.KindResource, "r-1", cms.Langs[string]{"en": "/lake"}).(*cms.Resource)
		r1.POIResourceIDs = cms.NullOf([]string{"r-0"})
		put(t, s, "a", r1)
		// update is a put of rec with the index stored now, as an update
		// reads it in its transaction.
		update := func(rec cms.Record) {
			t.Helper()
			stored, err := s.GetRecord(ctx, "a", rec.Kind(), rec.RecordID())
			if err != nil {
				t.Fatal(err)
			}
			ix := codec.Index(stored.Record)
			e := entry("a", rec, time.Now())
			e.Indexed = &ix
			must(t, s.PutRecord(ctx, e))
		}
		wantRefs := func(to string, from ...string) {
			t.Helper()
			refs, err := s.Referrers(ctx, "a", cms.ReferenceTargets(cms.KindResource), to)
			var got []string
			for _, r := range refs {
				got = append(got, r.FromID)
			}
			if err != nil || !slices.Equal(got, from) {
				t.Fatalf("Referrers of %s: %v, %v; want %v", to, got, err, from)
			}
		}
		// Unchanged aliases and references stay, whatever else changes.
		same := record(cms.KindResource, "r-1", cms.Langs[string]{"en": "/lake"}).(*cms.Resource)
		same.POIResourceIDs = cms.NullOf([]string{"r-0"})
		same.Title = cms.Langs[string]{"en": "Another title"}
		update(same)
		wantHolder(t, s, "a", cms.KindResource, "en", "/lake", "r-1")
		wantRefs("r-0", "r-1")
		// Changed ones are written again; the others stay.
		moved := record(cms.KindResource, "r-1", cms.Langs[string]{"en": "/lake-shore", "it": "/lago"}).(*cms.Resource)
		moved.POIResourceIDs = cms.NullOf([]string{"r-0"})
		update(moved)
		wantHolder(t, s, "a", cms.KindResource, "en", "/lake", "")
		wantHolder(t, s, "a", cms.KindResource, "en", "/lake-shore", "r-1")
		wantHolder(t, s, "a", cms.KindResource, "it", "/lago", "r-1")
		wantRefs("r-0", "r-1")
		renamed := record(cms.KindResource, "r-1", cms.Langs[string]{"en": "/lake-shore", "it": "/lago"}).(*cms.Resource)
		renamed.POIResourceIDs = cms.NullOf([]string{"r-9"})
		update(renamed)
		wantRefs("r-0")
		wantRefs("r-9", "r-1")
		wantHolder(t, s, "a", cms.KindResource, "it", "/lago", "r-1")
	})

	t.Run("ConcurrentClash", func(t *testing.T) {
		t.Parallel()
		s := open(t)
		ctx := t.Context()
		errs := make([]error, 16)
		var wg sync.WaitGroup
		for i := range errs {
			wg.Go(func() {
				r := record(cms.KindResource, fmt.Sprintf("r-%02d", i), cms.Langs[string]{"en": "/same", "it": fmt.Sprintf("/own-%02d", i)})
				errs[i] = s.PutRecord(ctx, entry("a", r, t0))
			})
		}
		wg.Wait()
		winner := ""
		for i, err := range errs {
			if err == nil {
				if winner != "" {
					t.Errorf("r-%02d and %s both hold /same", i, winner)
				}
				winner = fmt.Sprintf("r-%02d", i)
			}
		}
		if winner == "" {
			t.Fatalf("no put succeeded: %v", errs)
		}
		for i, err := range errs {
			if err != nil {
				wantRace(t, err, fmt.Sprintf("concurrent put of r-%02d", i))
				wantHolder(t, s, "a", cms.KindResource, "it", fmt.Sprintf("/own-%02d", i), "")
			}
		}
		wantHolder(t, s, "a", cms.KindResource, "en", "/same", winner)
		if got := listIDs(t, s, cms.ListParams{Account: "a", Kind: cms.KindResource}); len(got) != 1 || got[0] != winner {
			t.Errorf("stored %v, want only %s", got, winner)
		}
	})
}
