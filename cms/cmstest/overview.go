package cmstest

import (
	"fmt"
	"maps"
	"slices"
	"testing"
	"time"

	"github.com/bwcms/cms/cms"
)

// testOverview checks cms.OverviewStore: counts of records and of index
// terms per account and kind, an account's newest changes (of some
// kinds), an account's unfinished batches.
func testOverview(t *testing.T, open func(t *testing.T) cms.Store) {
	t.Parallel()

	t.Run("Counts", func(t *testing.T) {
		t.Parallel()
		s := open(t)
		b := newBrowser(t, s, "acme", "en", "it", "de")
		other := newBrowser(t, s, "other", "en")
		b.upsert(cms.KindResource, `{"id":"lake","published":true,"title":"Lake","title_it":"Lago"}`)
		b.upsert(cms.KindResource, `{"id":"hill","title_it":"Collina"}`)
		b.upsert(cms.KindResource, `{"id":"bare"}`)
		b.upsert(cms.KindMap, `{"id":"tour","published":true,"title":"Tour"}`)
		other.upsert(cms.KindResource, `{"id":"lake","title":"Other lake"}`)
		other.upsert(cms.KindResource, `{"id":"sea"}`)

		wantCounts := func(what string, kind cms.Kind, total, unpublished int, missing map[string]int) {
			t.Helper()
			n, err := s.CountRecords(t.Context(), "acme", kind)
			if err != nil || n != total {
				t.Errorf("%s: CountRecords(%s) = %d, %v; want %d", what, kind, n, err, total)
			}
			u, err := s.CountTerms(t.Context(), "acme", kind, cms.UnpublishedTerm())
			if want := map[string]int{"u:": unpublished}; err != nil || !maps.Equal(u, want) && !(unpublished == 0 && len(u) == 0) {
				t.Errorf("%s: CountTerms(%s, unpublished) = %v, %v; want %v", what, kind, u, err, want)
			}
			m, err := s.CountTerms(t.Context(), "acme", kind, cms.MissingTermsRange())
			wantM := map[string]int{}
			for lang, n := range missing {
				if n > 0 {
					wantM["m:"+lang] = n
				}
			}
			if err != nil || !maps.Equal(m, wantM) {
				t.Errorf("%s: CountTerms(%s, missing) = %v, %v; want %v", what, kind, m, err, wantM)
			}
			c, err := b.svc.CountKind(b.ctx(), kind)
			wantC := cms.KindCounts{Kind: kind, Published: total - unpublished, Unpublished: unpublished, Missing: missing}
			if err != nil || fmt.Sprint(c) != fmt.Sprint(wantC) {
				t.Errorf("%s: CountKind(%s) = %+v, %v; want %+v", what, kind, c, err, wantC)
			}
		}
		wantCounts("created", cms.KindResource, 3, 2, map[string]int{"en": 2, "it": 1, "de": 3})
		wantCounts("created", cms.KindMap, 1, 0, map[string]int{"en": 0, "it": 1, "de": 1})
		wantCounts("none", cms.KindLanding, 0, 0, map[string]int{"en": 0, "it": 0, "de": 0})

		b.upsert(cms.KindResource, `{"id":"hill","published":true,"title_de":"Hügel"}`)
		wantCounts("published and translated", cms.KindResource, 3, 1, map[string]int{"en": 2, "it": 1, "de": 2})
		if _, err := b.svc.Delete(b.ctx(), cms.KindResource, []string{"bare"}, nil); err != nil {
			t.Fatal(err)
		}
		wantCounts("deleted", cms.KindResource, 2, 0, map[string]int{"en": 1, "it": 0, "de": 1})
		if n, err := s.CountRecords(t.Context(), "other", cms.KindResource); err != nil || n != 2 {
			t.Errorf("the other account: CountRecords = %d, %v; want 2", n, err)
		}

		reader := cms.WithPrincipal(t.Context(), cms.Principal{Account: "acme", User: "u", Perms: []string{"map:read"}, Langs: b.langs})
		_, err := b.svc.CountKind(reader, cms.KindResource)
		wantCode(t, err, cms.CodeForbidden, "CountKind without read permission")
		_, err = b.svc.CountKind(t.Context(), cms.KindResource)
		wantCode(t, err, cms.CodeUnauthorized, "CountKind without a principal")
	})

	t.Run("RecentChanges", func(t *testing.T) {
		t.Parallel()
		s := open(t)
		at := func(m int) time.Time { return t0.Add(time.Duration(m) * time.Minute) }
		putChanged(t, s, "a", at(1), resource("r-1"))
		putChanged(t, s, "a", at(2), mapRecord("m-1"), resource("r-2"))
		putChanged(t, s, "b", at(3), resource("r-9"))
		deleteChanged(t, s, "a", at(4), cms.KindResource, "r-1")
		putChanged(t, s, "a", at(5), mapRecord("m-1"))

		recent := func(kinds []cms.Kind, limit int) []cms.Change {
			t.Helper()
			got, err := s.RecentChanges(t.Context(), "a", kinds, limit)
			if err != nil {
				t.Fatalf("RecentChanges(%v, %d): %v", kinds, limit, err)
			}
			for _, c := range got {
				if c.Account != "a" || c.Document != "" {
					t.Errorf("RecentChanges: %+v; want account a, no document", c)
				}
			}
			return got
		}
		names := func(changes []cms.Change) []string {
			out := make([]string, len(changes))
			for i, c := range changes {
				out[i] = fmt.Sprintf("%s %s %d %s %s", c.Kind, c.ID, c.Rev, c.Op, c.Author)
			}
			return out
		}
		all := recent(nil, 10)
		want := []string{"map m-1 2 upsert ann", "resource r-1 2 delete bob", "resource r-2 1 upsert ann",
			"map m-1 1 upsert ann", "resource r-1 1 upsert ann"}
		// Two changes of one transaction share their time and are in
		// the feed's order, reversed.
		if got := names(all); !slices.Equal(got, want) {
			t.Errorf("RecentChanges:\n got %q\nwant %q", got, want)
		}
		if len(all) == len(want) && (!all[0].Time.Equal(at(5)) || !all[1].Time.Equal(at(4))) {
			t.Errorf("times: %v, %v; want %v, %v", all[0].Time, all[1].Time, at(5), at(4))
		}
		if got := names(recent(nil, 2)); !slices.Equal(got, want[:2]) {
			t.Errorf("limit 2: %q, want %q", got, want[:2])
		}
		if got := names(recent([]cms.Kind{cms.KindResource}, 10)); !slices.Equal(got,
			[]string{"resource r-1 2 delete bob", "resource r-2 1 upsert ann", "resource r-1 1 upsert ann"}) {
			t.Errorf("Resources: %q", got)
		}
		if got := names(recent([]cms.Kind{cms.KindMap, cms.KindResource}, 3)); !slices.Equal(got, want[:3]) {
			t.Errorf("Maps and Resources, limit 3: %q, want %q", got, want[:3])
		}
		if got := recent([]cms.Kind{cms.KindLanding}, 10); len(got) != 0 {
			t.Errorf("Landings: %q, want none", names(got))
		}
		if got, err := s.RecentChanges(t.Context(), "none", nil, 10); err != nil || len(got) != 0 {
			t.Errorf("an account without changes: %v, %v", got, err)
		}
		// The newest first are also the last of the feed read forwards.
		feed := feedAll(t, s, "a", cms.ChangeCursor{}, 1000)
		slices.Reverse(feed)
		for i, c := range all {
			if i < len(feed) && c.Cursor != feed[i].Cursor {
				t.Errorf("change %d: cursor %v, the feed's %v", i, c.Cursor, feed[i].Cursor)
			}
		}
	})

	t.Run("RunningBatches", func(t *testing.T) {
		t.Parallel()
		s := open(t)
		for i, acc := range []string{"a", "a", "b", "a", "a"} {
			at := t0.Add(time.Duration(i) * time.Minute)
			enqueue(t, s, &cms.Batch{ID: fmt.Sprintf("bt-%d", i), Account: acc, Kind: cms.KindMap, Payload: []byte(`[{"id":"m"},{"id":"n"}]`),
				Count: 2, Status: cms.BatchWaiting, Requested: at, StatusAt: at})
		}
		// bt-0 done, bt-1 processing, bt-2 another account's; bt-3 and
		// bt-4 waiting.
		now := t0.Add(time.Hour)
		b := claim(t, s, "w1", now, now.Add(time.Minute))
		if b.ID != "bt-0" {
			t.Fatalf("claimed %s, want bt-0", b.ID)
		}
		must(t, s.FinishBatch(t.Context(), "bt-0", "w1", cms.BatchDone, cms.BatchResult{Created: 2}, now))
		if b = claim(t, s, "w1", now, now.Add(time.Minute)); b.ID != "bt-1" {
			t.Fatalf("claimed %s, want bt-1", b.ID)
		}
		got, err := s.RunningBatches(t.Context(), "a", 10)
		if err != nil {
			t.Fatal(err)
		}
		var ids []string
		for _, b := range got {
			ids = append(ids, fmt.Sprintf("%s %s", b.ID, b.Status))
			if b.Account != "a" || b.Kind != cms.KindMap || b.Count != 2 || len(b.Payload) != 0 {
				t.Errorf("batch %+v: want account a's batch of 2 Maps, no payload", b)
			}
		}
		if want := []string{"bt-1 processing", "bt-3 waiting", "bt-4 waiting"}; !slices.Equal(ids, want) {
			t.Errorf("RunningBatches: %q, want %q", ids, want)
		}
		if len(got) > 0 && (!got[0].Requested.Equal(t0.Add(time.Minute)) || !got[0].StatusAt.Equal(now) || got[0].Owner != "w1") {
			t.Errorf("bt-1: %+v; requested %v, status at %v by w1", got[0], t0.Add(time.Minute), now)
		}
		if got, err := s.RunningBatches(t.Context(), "a", 1); err != nil || len(got) != 1 || got[0].ID != "bt-1" {
			t.Errorf("limit 1: %v, %v", got, err)
		}
		if got, err := s.RunningBatches(t.Context(), "c", 10); err != nil || len(got) != 0 {
			t.Errorf("an account without batches: %v, %v", got, err)
		}
	})
}

// OverviewOperations runs the overview's store calls on account "a" of
// a store filled by bunstoretest.FillAssigned (its languages English and
// Italian): counts, the newest changes (of every kind and of some) and
// the running batches. Plan tests explain what it ran.
func OverviewOperations(tb testing.TB, s cms.Store) {
	tb.Helper()
	ctx := tb.Context()
	for _, kind := range []cms.Kind{cms.KindResource, cms.KindMap} {
		if _, err := s.CountRecords(ctx, "a", kind); err != nil {
			tb.Fatal(err)
		}
		if _, err := s.CountTerms(ctx, "a", kind, cms.UnpublishedTerm()); err != nil {
			tb.Fatal(err)
		}
		if _, err := s.CountTerms(ctx, "a", kind, cms.MissingTermsRange()); err != nil {
			tb.Fatal(err)
		}
	}
	if _, err := s.RecentChanges(ctx, "a", nil, 20); err != nil {
		tb.Fatal(err)
	}
	if _, err := s.RecentChanges(ctx, "a", []cms.Kind{cms.KindResource, cms.KindMap}, 20); err != nil {
		tb.Fatal(err)
	}
	if _, err := s.RunningBatches(ctx, "a", 100); err != nil {
		tb.Fatal(err)
	}
}
