package cmstest

import (
	"context"
	"fmt"
	"reflect"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/bwcms/cms/cms"
)

func testRecords(t *testing.T, open func(t *testing.T) cms.Store) {
	t.Parallel()
	t.Run("RoundTrip", func(t *testing.T) {
		t.Parallel()
		s := open(t)
		ctx := t.Context()
		// A full record with its stats, and one whose every nullable field
		// is an explicit null and that was never read (StatsLastAccess zero).
		updated := time.Date(2026, 11, 22, 11, 2, 3, 456789000, cet)
		cases := []struct {
			name  string
			build func(cms.Kind, string) cms.Record
			entry cms.Entry
		}{
			{"full", fullRecord, cms.Entry{Updated: updated, StatsAccess: 3, StatsLastAccess: updated.Add(time.Hour + time.Microsecond)}},
			{"nulls", nullRecord, cms.Entry{Updated: updated.Add(time.Second)}},
		}
		for _, kind := range cms.Kinds() {
			for _, c := range cases {
				id := c.name + "-1"
				e := c.entry
				e.Account, e.Record = "acc", c.build(kind, id)
				must(t, s.PutRecord(ctx, &e))
				want := c.build(kind, id)

				got := get(t, s, "acc", kind, id)
				checkEntry(t, fmt.Sprintf("GetRecord %s %s", kind, c.name), got, &e, want)
				many, err := s.GetRecords(ctx, "acc", kind, []string{id})
				if err != nil || len(many) != 1 {
					t.Fatalf("GetRecords %s %s: %d records, %v", kind, c.name, len(many), err)
				}
				checkEntry(t, fmt.Sprintf("GetRecords %s %s", kind, c.name), many[0], &e, want)
			}
			n := 0
			for got, err := range s.ListRecords(ctx, cms.ListParams{Account: "acc", Kind: kind, Published: cms.PublishedAny}) {
				must(t, err)
				c := cases[n%2] // "full-1" sorts before "nulls-1"
				e := c.entry
				e.Account = "acc"
				checkEntry(t, fmt.Sprintf("ListRecords %s %s", kind, c.name), got, &e, c.build(kind, c.name+"-1"))
				n++
			}
			if n != 2 {
				t.Errorf("ListRecords %s: %d records, want 2", kind, n)
			}
		}
	})

	t.Run("Sparse", func(t *testing.T) {
		t.Parallel()
		s := open(t)
		ctx := t.Context()
		// A record holding nothing but its id, as a store may be given one:
		// it reads back, and its absent published flag is false.
		for _, kind := range cms.Kinds() {
			rec := cms.NewRecord(kind)
			reflect.ValueOf(rec).Elem().FieldByName("ID").SetString("bare")
			must(t, s.PutRecord(ctx, entry("a", rec, t0)))
			if e, err := s.GetRecord(ctx, "a", kind, "bare"); err != nil || e.Record.RecordID() != "bare" || e.Record.Kind() != kind {
				t.Errorf("GetRecord of a bare %s: %+v, %v; a store reads back every record it accepted", kind, e, err)
			}
			if got := listIDs(t, s, cms.ListParams{Account: "a", Kind: kind, Published: cms.UnpublishedOnly}); !slices.Equal(got, []string{"bare"}) {
				t.Errorf("ListRecords of unpublished %ss: %v", kind, got)
			}
		}
	})

	t.Run("Identity", func(t *testing.T) {
		t.Parallel()
		s := open(t)
		ctx := t.Context()
		// Ids are unique per (account, kind): a second put replaces, the
		// same id in another kind or account is another record.
		first := resource("same")
		first.Title["en"] = "first"
		put(t, s, "a", first)
		second := resource("same")
		second.Title["en"] = "second"
		must(t, s.PutRecord(ctx, &cms.Entry{Account: "a", Record: second, Updated: t0.Add(time.Hour), StatsAccess: 5}))
		sameMap := mapRecord("same")
		sameMap.Title["en"] = "a map"
		others := map[string]*cms.Entry{
			"a map":      {Account: "a", Record: sameMap},
			"a landing":  {Account: "a", Record: &cms.Landing{ID: "same", Title: cms.Langs[string]{"en": "a landing"}}},
			"a proposal": {Account: "a", Record: &cms.Proposal{ID: "same", Title: cms.Langs[string]{"en": "a proposal"}}},
			"b resource": {Account: "b", Record: &cms.Resource{ID: "same", Title: cms.Langs[string]{"en": "b resource"}}},
		}
		for _, e := range others {
			e.Updated = t0
			must(t, s.PutRecord(ctx, e))
		}

		got := get(t, s, "a", cms.KindResource, "same")
		if title(t, got) != "second" || !got.Updated.Equal(t0.Add(time.Hour)) || got.StatsAccess != 5 {
			t.Errorf("replaced Resource: title %q, updated %v, stats %d; want the second put", title(t, got), got.Updated, got.StatsAccess)
		}
		for want, e := range others {
			if got := get(t, s, e.Account, e.Record.Kind(), "same"); title(t, got) != want {
				t.Errorf("%s: title %q", want, title(t, got))
			}
		}
		for _, kind := range cms.Kinds() {
			if got := listIDs(t, s, cms.ListParams{Account: "a", Kind: kind, Published: cms.PublishedAny}); !slices.Equal(got, []string{"same"}) {
				t.Errorf("ListRecords(a, %s): %v, want one record", kind, got)
			}
		}

		must(t, s.DeleteRecord(ctx, "a", cms.KindMap, "same"))
		wantMissing(t, s, "a", cms.KindMap, "same")
		wantCode(t, s.DeleteRecord(ctx, "a", cms.KindMap, "same"), cms.CodeNotFound, "second DeleteRecord")
		wantCode(t, s.DeleteRecord(ctx, "a", cms.KindMap, "never"), cms.CodeNotFound, "DeleteRecord of an unknown id")
		for _, kind := range []cms.Kind{cms.KindResource, cms.KindLanding, cms.KindProposal} {
			get(t, s, "a", kind, "same")
		}
		get(t, s, "b", cms.KindResource, "same")
	})

	t.Run("AccountIsolation", func(t *testing.T) {
		t.Parallel()
		s := open(t)
		ctx := t.Context()
		// Two accounts with the same ids in every kind, the same aliases,
		// references and assignments.
		for _, acc := range []string{"acc-a", "acc-b"} {
			r1, r2 := resource("r-1"), resource("r-2")
			r1.Title["en"], r2.Title["en"] = acc+" r-1", acc+" r-2"
			holder := map[string]*cms.Resource{"acc-a": r1, "acc-b": r2}[acc]
			holder.URLAlias["en"] = "/shared"
			put(t, s, acc, r1)
			put(t, s, acc, r2)
			m := mapRecord("m-1")
			m.Title["en"] = acc + " m-1"
			m.POIResourceIDs = cms.NullOf([]string{map[string]string{"acc-a": "r-1", "acc-b": "r-2"}[acc]})
			put(t, s, acc, m)
			put(t, s, acc, &cms.Landing{ID: "l-1", Title: cms.Langs[string]{"en": acc + " l-1"}, MapID: cms.Some("m-1")})
			put(t, s, acc, &cms.Proposal{ID: "p-1", Title: cms.Langs[string]{"en": acc + " p-1"}})
			must(t, s.SetMapResources(ctx, acc, "m-1", cms.RolePrimary, []string{holder.ID}))
		}
		must(t, s.CountAccess(ctx, "acc-b", cms.KindProposal, "p-1", t0))
		must(t, s.TouchRecord(ctx, "acc-b", cms.KindProposal, "p-1", t0.Add(time.Hour)))

		for _, kind := range cms.Kinds() {
			for _, id := range []string{"r-1", "r-2", "m-1", "l-1", "p-1"} {
				if e, err := s.GetRecord(ctx, "acc-a", kind, id); err == nil {
					if want := "acc-a " + id; title(t, e) != want || e.Account != "acc-a" {
						t.Errorf("GetRecord(acc-a, %s, %s): account %q, title %q, want %q", kind, id, e.Account, title(t, e), want)
					}
				}
			}
			list, err := s.GetRecords(ctx, "acc-a", kind, []string{"r-1", "r-2", "m-1", "l-1", "p-1"})
			must(t, err)
			for e, err := range s.ListRecords(ctx, cms.ListParams{Account: "acc-a", Kind: kind, Published: cms.PublishedAny}) {
				must(t, err)
				list = append(list, e)
			}
			for _, e := range list {
				if e.Account != "acc-a" || title(t, e) != "acc-a "+e.Record.RecordID() {
					t.Errorf("account acc-a read %s %s of account %q titled %q", kind, e.Record.RecordID(), e.Account, title(t, e))
				}
			}
		}
		if e := get(t, s, "acc-a", cms.KindProposal, "p-1"); e.StatsAccess != 0 || !e.Updated.Equal(t0) {
			t.Errorf("CountAccess/TouchRecord in acc-b changed acc-a's Proposal: %d accesses, updated %v", e.StatsAccess, e.Updated)
		}
		if holder, err := s.AliasHolder(ctx, "acc-a", cms.KindResource, "en", "/shared"); err != nil || holder != "r-1" {
			t.Errorf("AliasHolder(acc-a): %q, %v; want r-1", holder, err)
		}
		if holder, err := s.AliasHolder(ctx, "acc-b", cms.KindResource, "en", "/shared"); err != nil || holder != "r-2" {
			t.Errorf("AliasHolder(acc-b): %q, %v; want r-2", holder, err)
		}
		_, err := s.AliasHolder(ctx, "acc-c", cms.KindResource, "en", "/shared")
		wantCode(t, err, cms.CodeNotFound, "AliasHolder in an account without records")
		if refs, err := s.Referrers(ctx, "acc-a", cms.ReferenceTargets(cms.KindResource), "r-2"); err != nil || len(refs) != 0 {
			t.Errorf("Referrers(acc-a, r-2): %+v, %v; the reference is acc-b's", refs, err)
		}
		if refs, err := s.Referrers(ctx, "acc-a", cms.ReferenceTargets(cms.KindMap), "m-1"); err != nil || len(refs) != 1 || refs[0].FromID != "l-1" {
			t.Errorf("Referrers(acc-a, m-1): %+v, %v; want acc-a's l-1 only", refs, err)
		}
		if got, err := s.MapResources(ctx, "acc-a", "m-1", cms.RolePrimary); err != nil || !slices.Equal(got, []string{"r-1"}) {
			t.Errorf("MapResources(acc-a, m-1): %v, %v; want [r-1]", got, err)
		}
		if got, err := s.ResourceMaps(ctx, "acc-a", "r-2", cms.RolePrimary); err != nil || len(got) != 0 {
			t.Errorf("ResourceMaps(acc-a, r-2): %v, %v; the assignment is acc-b's", got, err)
		}
		if got := listIDs(t, s, cms.ListParams{Account: "acc-a", Kind: cms.KindResource, MapID: "m-1"}); !slices.Equal(got, []string{"r-1"}) {
			t.Errorf("ListRecords(acc-a, MapID m-1): %v, want [r-1]", got)
		}
		wantAssignments(t, "GetRecord(acc-a, m-1)", get(t, s, "acc-a", cms.KindMap, "m-1").Record, []string{"r-1"}, nil)

		// An account that has nothing sees nothing.
		wantMissing(t, s, "acc-c", cms.KindResource, "r-1")
		if got, err := s.GetRecords(ctx, "acc-c", cms.KindResource, []string{"r-1", "r-2"}); err != nil || len(got) != 0 {
			t.Errorf("GetRecords(acc-c): %d records, %v", len(got), err)
		}
		if got, err := s.ExistingIDs(ctx, "acc-c", cms.KindResource, []string{"r-1", "r-2"}); err != nil || len(got) != 0 {
			t.Errorf("ExistingIDs(acc-c): %v, %v", got, err)
		}
		got, err := s.ExistingIDs(ctx, "acc-a", cms.KindResource, []string{"r-2", "zz-9", "r-1", "r-1", "m-1"})
		slices.Sort(got)
		if err != nil || !slices.Equal(got, []string{"r-1", "r-2"}) {
			t.Errorf("ExistingIDs(acc-a): %v, %v; want r-1 and r-2 (m-1 is a Map)", got, err)
		}
		if got := listIDs(t, s, cms.ListParams{Account: "acc-c", Kind: cms.KindResource, Published: cms.PublishedAny}); len(got) != 0 {
			t.Errorf("ListRecords(acc-c): %v", got)
		}
		wantCode(t, s.DeleteRecord(ctx, "acc-c", cms.KindResource, "r-1"), cms.CodeNotFound, "DeleteRecord in another account")
		wantCode(t, s.TouchRecord(ctx, "acc-c", cms.KindResource, "r-1", t0), cms.CodeNotFound, "TouchRecord in another account")
		wantCode(t, s.CountAccess(ctx, "acc-c", cms.KindResource, "r-1", t0), cms.CodeNotFound, "CountAccess in another account")

		// Deleting everything of acc-a leaves acc-b whole.
		for _, rec := range []struct {
			kind cms.Kind
			id   string
		}{{cms.KindResource, "r-1"}, {cms.KindResource, "r-2"}, {cms.KindMap, "m-1"}, {cms.KindLanding, "l-1"}, {cms.KindProposal, "p-1"}} {
			must(t, s.DeleteRecord(ctx, "acc-a", rec.kind, rec.id))
			if e := get(t, s, "acc-b", rec.kind, rec.id); title(t, e) != "acc-b "+rec.id {
				t.Errorf("acc-b %s %s after acc-a's delete: title %q", rec.kind, rec.id, title(t, e))
			}
		}
		if holder, err := s.AliasHolder(ctx, "acc-b", cms.KindResource, "en", "/shared"); err != nil || holder != "r-2" {
			t.Errorf("AliasHolder(acc-b) after acc-a's delete: %q, %v", holder, err)
		}
		if refs, err := s.Referrers(ctx, "acc-b", cms.ReferenceTargets(cms.KindResource), "r-2"); err != nil || len(refs) != 1 {
			t.Errorf("Referrers(acc-b, r-2) after acc-a's delete: %+v, %v", refs, err)
		}
		if got, err := s.MapResources(ctx, "acc-b", "m-1", cms.RolePrimary); err != nil || !slices.Equal(got, []string{"r-2"}) {
			t.Errorf("MapResources(acc-b, m-1) after acc-a's delete: %v, %v", got, err)
		}
		if e := get(t, s, "acc-b", cms.KindProposal, "p-1"); e.StatsAccess != 1 || !e.Updated.Equal(t0.Add(time.Hour)) {
			t.Errorf("acc-b's Proposal: %d accesses, updated %v", e.StatsAccess, e.Updated)
		}
	})

	t.Run("GetRecords", func(t *testing.T) {
		t.Parallel()
		s := open(t)
		ctx := t.Context()
		for _, id := range []string{"r-1", "r-2", "r-3", "r-4"} {
			put(t, s, "a", resource(id))
		}
		put(t, s, "a", mapRecord("m-1"))
		for _, tt := range []struct {
			ids, want []string
		}{
			{[]string{"r-3", "r-1", "r-2"}, []string{"r-3", "r-1", "r-2"}},
			{[]string{"r-3", "missing", "r-1", "r-3", "r-2", "r-1"}, []string{"r-3", "r-1", "r-2"}},
			{[]string{"r-4"}, []string{"r-4"}},
			{[]string{"m-1", "r-2"}, []string{"r-2"}}, // a Map is not a Resource
			{[]string{"x-1", "x-2"}, nil},
			{[]string{}, nil},
			{nil, nil},
		} {
			got, err := s.GetRecords(ctx, "a", cms.KindResource, tt.ids)
			if err != nil {
				t.Errorf("GetRecords(%v): %v", tt.ids, err)
				continue
			}
			if ids := idsOf(got); !slices.Equal(ids, tt.want) {
				t.Errorf("GetRecords(%v): %v, want %v", tt.ids, ids, tt.want)
			}
		}
	})

	t.Run("StreamRecords", func(t *testing.T) {
		// Records of every size (some too large to come with their
		// group), in the order asked, across groups, with their
		// assignments, of the account asked only.
		t.Parallel()
		s := open(t)
		ctx := t.Context()
		var ids []string
		for i := range 150 {
			r := resource(fmt.Sprintf("r-%03d", i))
			if i%4 == 1 {
				r.HTMLContent = cms.Langs[cms.Null[string]]{"en": cms.NullOf(strings.Repeat("large ", 10000))}
			}
			put(t, s, "a", r)
			ids = append(ids, r.ID)
		}
		put(t, s, "b", resource("r-other"))
		put(t, s, "a", mapRecord("m-1"))
		must(t, s.SetMapResources(ctx, "a", "m-1", cms.RolePrimary, []string{"r-001", "r-002"}))
		asked := []string{"r-other", "missing"}
		for i := len(ids) - 1; i >= 0; i-- {
			asked = append(asked, ids[i])
		}
		asked = append(asked, "r-001", "m-1")
		var got []string
		for e, err := range s.StreamRecords(ctx, "a", cms.KindResource, asked) {
			if err != nil {
				t.Fatalf("StreamRecords: %v", err)
			}
			r := e.Record.(*cms.Resource)
			if e.Account != "a" || (r.ID == "r-001" && !slices.Equal(r.MapIDs.Value, []string{"m-1"})) {
				t.Errorf("%s: account %q, mapIds %v", r.ID, e.Account, r.MapIDs)
			}
			if want := strings.Repeat("large ", 10000); (r.HTMLContent["en"].Value == want) != (slices.Index(ids, r.ID)%4 == 1) {
				t.Errorf("%s: htmlContent of %d bytes", r.ID, len(r.HTMLContent["en"].Value))
			}
			got = append(got, r.ID)
		}
		want := slices.Clone(ids)
		slices.Reverse(want)
		if !slices.Equal(got, want) {
			t.Errorf("StreamRecords:\n got %v\nwant %v", got, want)
		}
		for range s.StreamRecords(ctx, "a", cms.KindResource, []string{"x-1", "r-other"}) {
			t.Errorf("StreamRecords of missing ids yielded a record")
		}
		n := 0
		for range s.StreamRecords(ctx, "a", cms.KindResource, ids) {
			if n++; n == 3 {
				break // a stopped stream stops
			}
		}
		// A stream whose context ends stops with an error before its
		// next group, though a group's read may not watch the context.
		cctx, cancel := context.WithCancel(ctx)
		n, failed := 0, false
		for _, err := range s.StreamRecords(cctx, "a", cms.KindResource, ids) {
			if err != nil {
				failed = true
				break
			}
			if n++; n == 1 {
				cancel()
			}
		}
		cancel()
		if !failed || n >= len(ids) {
			t.Errorf("a stream cancelled after its first record: %d records, error %v; want fewer than %d and an error", n, failed, len(ids))
		}
	})

	t.Run("TouchAndCountAccess", func(t *testing.T) {
		t.Parallel()
		s := open(t)
		ctx := t.Context()
		want := fullRecord(cms.KindProposal, "p-1")
		must(t, s.PutRecord(ctx, entry("a", want, t0)))
		before := get(t, s, "a", cms.KindProposal, "p-1")

		must(t, s.TouchRecord(ctx, "a", cms.KindProposal, "p-1", t0.Add(time.Minute)))
		touched := get(t, s, "a", cms.KindProposal, "p-1")
		if !touched.Updated.Equal(t0.Add(time.Minute)) || touched.StatsAccess != 0 || !touched.StatsLastAccess.IsZero() {
			t.Errorf("after TouchRecord: updated %v, stats %d at %v", touched.Updated, touched.StatsAccess, touched.StatsLastAccess)
		}
		if !reflect.DeepEqual(touched.Record, before.Record) {
			t.Errorf("TouchRecord changed the document:%s", fieldDiff(touched.Record, before.Record))
		}

		must(t, s.CountAccess(ctx, "a", cms.KindProposal, "p-1", t0.Add(2*time.Minute)))
		must(t, s.CountAccess(ctx, "a", cms.KindProposal, "p-1", t0.Add(3*time.Minute)))
		counted := get(t, s, "a", cms.KindProposal, "p-1")
		if counted.StatsAccess != 2 || !counted.StatsLastAccess.Equal(t0.Add(3*time.Minute)) || !counted.Updated.Equal(t0.Add(time.Minute)) {
			t.Errorf("after two CountAccess: stats %d at %v, updated %v; want 2 at %v, updated unchanged",
				counted.StatsAccess, counted.StatsLastAccess, counted.Updated, t0.Add(3*time.Minute))
		}
		if !reflect.DeepEqual(counted.Record, before.Record) {
			t.Errorf("CountAccess changed the document:%s", fieldDiff(counted.Record, before.Record))
		}

		// Atomic: concurrent counts are all counted.
		var wg sync.WaitGroup
		for i := range 20 {
			wg.Go(func() {
				if err := s.CountAccess(ctx, "a", cms.KindProposal, "p-1", t0.Add(time.Hour+time.Duration(i)*time.Second)); err != nil {
					t.Errorf("concurrent CountAccess: %v", err)
				}
			})
		}
		wg.Wait()
		if got := get(t, s, "a", cms.KindProposal, "p-1"); got.StatsAccess != 22 {
			t.Errorf("after 20 concurrent CountAccess: %d accesses, want 22", got.StatsAccess)
		}

		put(t, s, "a", resource("r-1"))
		must(t, s.CountAccess(ctx, "a", cms.KindResource, "r-1", t0.Add(time.Minute)))
		must(t, s.TouchRecord(ctx, "a", cms.KindResource, "r-1", t0.Add(2*time.Minute)))
		if got := get(t, s, "a", cms.KindResource, "r-1"); got.StatsAccess != 1 || !got.Updated.Equal(t0.Add(2*time.Minute)) {
			t.Errorf("Resource after CountAccess and TouchRecord: %d accesses, updated %v", got.StatsAccess, got.Updated)
		}
		for _, tt := range []struct {
			account string
			kind    cms.Kind
			id      string
		}{{"a", cms.KindProposal, "p-2"}, {"a", cms.KindLanding, "p-1"}, {"b", cms.KindProposal, "p-1"}} {
			what := fmt.Sprintf("(%s, %s, %s)", tt.account, tt.kind, tt.id)
			wantCode(t, s.TouchRecord(ctx, tt.account, tt.kind, tt.id, t0), cms.CodeNotFound, "TouchRecord"+what)
			wantCode(t, s.CountAccess(ctx, tt.account, tt.kind, tt.id, t0), cms.CodeNotFound, "CountAccess"+what)
		}
	})
}

// checkEntry compares an entry read from a store with the entry put and
// the stored form of want, the record put. The assignment lists must be empty (no
// assignment was made) and are left out of the comparison.
func checkEntry(tb testing.TB, what string, got, put *cms.Entry, want cms.Record) {
	tb.Helper()
	if got.Account != put.Account {
		tb.Errorf("%s: account %q, want %q", what, got.Account, put.Account)
	}
	if !sameTime(got.Updated, put.Updated) || got.StatsAccess != put.StatsAccess || !sameTime(got.StatsLastAccess, put.StatsLastAccess) {
		tb.Errorf("%s: updated %v, stats %d at %v; want updated %v, stats %d at %v", what,
			got.Updated, got.StatsAccess, got.StatsLastAccess, put.Updated, put.StatsAccess, put.StatsLastAccess)
	}
	rec := got.Record
	if p, s := takeAssignments(tb, rec); len(p) != 0 || len(s) != 0 {
		tb.Errorf("%s: assignment lists %v and %v without assignments: PutRecord must ignore them", what, p, s)
	}
	want = storedForm(want)
	if p, s := assignmentLists(want); p != nil {
		*p, *s = cms.Null[[]string]{}, cms.Null[[]string]{}
	}
	if !reflect.DeepEqual(rec, want) {
		tb.Errorf("%s: the record read differs from the record put:%s", what, fieldDiff(rec, want))
	}
}
