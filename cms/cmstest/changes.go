package cmstest

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"maps"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/bwcms/cms/cms"
)

// inChanges runs fn in a transaction that ends with the change records of
// refs in account, by author, deletes dated at: what the service's
// tracked transactions do.
func inChanges(tb testing.TB, s cms.Store, account, author string, at time.Time, refs []cms.ChangeRef, fn func(tx cms.Store) error) {
	tb.Helper()
	err := s.WithTx(tb.Context(), func(tx cms.Store) error {
		if fn != nil {
			if err := fn(tx); err != nil {
				return err
			}
		}
		return tx.AppendChanges(tb.Context(), cms.ChangeSet{Account: account, Author: author, Time: at, Refs: refs})
	})
	if err != nil {
		tb.Fatalf("a transaction of changes %v: %v", refs, err)
	}
}

// putChanged stores recs in account (updated at at) and their changes.
func putChanged(tb testing.TB, s cms.Store, account string, at time.Time, recs ...cms.Record) {
	tb.Helper()
	refs := make([]cms.ChangeRef, len(recs))
	for i, rec := range recs {
		refs[i] = cms.ChangeRef{Kind: rec.Kind(), ID: rec.RecordID(), Op: cms.ChangeUpsert}
	}
	inChanges(tb, s, account, "ann", at, refs, func(tx cms.Store) error {
		for _, rec := range recs {
			if err := tx.PutRecord(tb.Context(), entry(account, rec, at)); err != nil {
				return err
			}
		}
		return nil
	})
}

// deleteChanged deletes records of kind in account and writes their
// changes, dated at.
func deleteChanged(tb testing.TB, s cms.Store, account string, at time.Time, kind cms.Kind, ids ...string) {
	tb.Helper()
	refs := make([]cms.ChangeRef, len(ids))
	for i, id := range ids {
		refs[i] = cms.ChangeRef{Kind: kind, ID: id, Op: cms.ChangeDelete}
	}
	inChanges(tb, s, account, "bob", at, refs, func(tx cms.Store) error {
		for _, id := range ids {
			if err := tx.DeleteRecord(tb.Context(), account, kind, id); err != nil {
				return err
			}
		}
		return nil
	})
}

// docTitle is the English title of a change's document, "" when it has
// none.
func docTitle(tb testing.TB, c cms.Change) string {
	tb.Helper()
	if c.Document == "" {
		return ""
	}
	rec := cms.NewRecord(c.Kind)
	if err := cms.NewDocumentCodec().DecodeDocument(c.Document, rec); err != nil {
		tb.Fatalf("the document of %s %s rev %d: %v", c.Kind, c.ID, c.Rev, err)
	}
	return title(tb, &cms.Entry{Record: rec})
}

// history is a record's whole history, newest first, with documents.
func history(tb testing.TB, s cms.Store, account string, kind cms.Kind, id string) []cms.Change {
	tb.Helper()
	h, err := s.RecordHistory(tb.Context(), cms.HistoryQuery{Account: account, Kind: kind, ID: id, Limit: 1000, Documents: true})
	if err != nil {
		tb.Fatalf("RecordHistory(%s %s): %v", kind, id, err)
	}
	return h
}

// revs are the revision numbers of changes, in their order.
func revs(changes []cms.Change) []int64 {
	r := make([]int64, len(changes))
	for i, c := range changes {
		r[i] = c.Rev
	}
	return r
}

// feedAll reads account's changes up to a fresh fence, a page of limit
// at a time from after, and checks that cursors only grow.
func feedAll(tb testing.TB, s cms.Store, account string, after cms.ChangeCursor, limit int, kinds ...cms.Kind) []cms.Change {
	tb.Helper()
	fence, err := s.ChangeFence(tb.Context(), account)
	if err != nil {
		tb.Fatalf("ChangeFence(%s): %v", account, err)
	}
	var all []cms.Change
	for range 100_000 {
		page, err := s.Changes(tb.Context(), cms.ChangeQuery{Account: account, After: after, UpTo: fence, Kinds: kinds, Limit: limit})
		if err != nil {
			tb.Fatalf("Changes(after %v): %v", after, err)
		}
		if len(page) > limit {
			tb.Fatalf("Changes: %d changes, more than the limit %d", len(page), limit)
		}
		for _, c := range page {
			if !after.Less(c.Cursor) {
				tb.Fatalf("Changes: cursor %v after %v", c.Cursor, after)
			}
			if c.Cursor.Seq > fence {
				tb.Fatalf("Changes: cursor %v past the fence %d", c.Cursor, fence)
			}
			if c.Document != "" || c.Lists != nil {
				tb.Fatalf("Changes: %s %s rev %d came with its document", c.Kind, c.ID, c.Rev)
			}
			after = c.Cursor
		}
		all = append(all, page...)
		if len(page) < limit {
			return all
		}
	}
	tb.Fatal("Changes: no end")
	return nil
}

// changeNames are "kind id rev op" of changes, in their order.
func changeNames(changes []cms.Change) []string {
	n := make([]string, len(changes))
	for i, c := range changes {
		n[i] = fmt.Sprintf("%s %s %d %s", c.Kind, c.ID, c.Rev, c.Op)
	}
	return n
}

func testChanges(t *testing.T, open func(t *testing.T) cms.Store) {
	t.Parallel()
	t.Run("Revisions", func(t *testing.T) {
		t.Parallel()
		s := open(t)
		ctx := t.Context()
		at := func(m int) time.Time { return t0.Add(time.Duration(m) * time.Minute) }
		r := resource("r-1")
		putChanged(t, s, "a", at(1), r)
		putChanged(t, s, "b", at(1), resource("r-1")) // another account numbers its own
		r.Title = cms.Langs[string]{"en": "Second"}
		putChanged(t, s, "a", at(2), r)
		r.Title = cms.Langs[string]{"en": "Third"}
		putChanged(t, s, "a", at(3), r)

		last, err := s.LastRevision(ctx, "a", cms.KindResource, "r-1")
		if err != nil || last.Rev != 3 || last.Op != cms.ChangeUpsert || last.Author != "ann" || !last.Time.Equal(at(3)) ||
			last.Document != "" || last.Account != "a" || last.Kind != cms.KindResource || last.ID != "r-1" {
			t.Fatalf("LastRevision: %+v, %v; want rev 3, an upsert by ann at %v, no document", last, err, at(3))
		}
		for rev, want := range map[int64]string{1: "Resource r-1", 2: "Second", 3: "Third"} {
			c, err := s.RecordRevision(ctx, "a", cms.KindResource, "r-1", rev)
			if err != nil || c.Rev != rev || docTitle(t, c) != want || !c.Time.Equal(at(int(rev))) {
				t.Errorf("RecordRevision(%d): %+v, %v; want title %q at %v", rev, c, err, want, at(int(rev)))
			}
		}

		deleteChanged(t, s, "a", at(4), cms.KindResource, "r-1")
		put(t, s, "a", resource("r-1")) // re-created: its changes go on from 4
		inChanges(t, s, "a", "", at(5), []cms.ChangeRef{{Kind: cms.KindResource, ID: "r-1", Op: cms.ChangeUpsert}}, nil)
		h := history(t, s, "a", cms.KindResource, "r-1")
		if got := revs(h); !slices.Equal(got, []int64{5, 4, 3, 2, 1}) {
			t.Fatalf("history after a delete and a re-create: revs %v, want 5 4 3 2 1", got)
		}
		if h[1].Op != cms.ChangeDelete || !h[1].Time.Equal(at(4)) || h[1].Author != "bob" || h[1].Document != "" {
			t.Errorf("the delete: %+v; want a tombstone by bob at %v", h[1], at(4))
		}
		for _, c := range h[1:] {
			if c.Document != "" || c.Lists != nil {
				t.Errorf("rev %d before the delete kept its document %q, lists %v", c.Rev, c.Document, c.Lists)
			}
		}
		if docTitle(t, h[0]) != "Resource r-1" || h[0].Author != "" || !h[0].Time.Equal(t0) {
			t.Errorf("the re-creation: %+v; want the new document, no author, the record's time %v", h[0], t0)
		}
		if got := revs(history(t, s, "b", cms.KindResource, "r-1")); !slices.Equal(got, []int64{1}) {
			t.Errorf("account b's r-1: revs %v, want 1", got)
		}

		page, err := s.RecordHistory(ctx, cms.HistoryQuery{Account: "a", Kind: cms.KindResource, ID: "r-1", Before: 4, Limit: 2})
		if err != nil || !slices.Equal(revs(page), []int64{3, 2}) || page[0].Document != "" {
			t.Errorf("RecordHistory before 4, 2 of them, no documents: %+v, %v; want revs 3 2", page, err)
		}
		_, err = s.RecordRevision(ctx, "a", cms.KindResource, "r-1", 6)
		wantCode(t, err, cms.CodeNotFound, "RecordRevision of a revision to come")
		_, err = s.RecordRevision(ctx, "a", cms.KindMap, "r-1", 1)
		wantCode(t, err, cms.CodeNotFound, "RecordRevision of another kind")
		_, err = s.LastRevision(ctx, "c", cms.KindResource, "r-1")
		wantCode(t, err, cms.CodeNotFound, "LastRevision in an account without it")
		// An upsert of a record that has no row writes no change.
		inChanges(t, s, "a", "", at(6), []cms.ChangeRef{{Kind: cms.KindResource, ID: "ghost", Op: cms.ChangeUpsert}}, nil)
		_, err = s.LastRevision(ctx, "a", cms.KindResource, "ghost")
		wantCode(t, err, cms.CodeNotFound, "LastRevision of an upsert without a record")
	})

	t.Run("Lists", func(t *testing.T) {
		t.Parallel()
		s := open(t)
		ctx := t.Context()
		for _, id := range []string{"m-1", "m-2", "m-3"} {
			put(t, s, "a", mapRecord(id))
		}
		for _, id := range []string{"r-1", "r-2"} {
			put(t, s, "a", resource(id))
		}
		landing := &cms.Landing{ID: "l-1", Title: cms.Langs[string]{"en": "Landing l-1"}}
		put(t, s, "a", landing)
		must(t, s.SetResourceMaps(ctx, "a", "r-1", cms.RolePrimary, []string{"m-2", "m-1"}))
		must(t, s.SetResourceMaps(ctx, "a", "r-1", cms.RoleSecondary, []string{"m-3"}))
		must(t, s.SetMapResources(ctx, "a", "m-1", cms.RolePrimary, []string{"r-2", "r-1"}))
		inChanges(t, s, "a", "ann", t0, []cms.ChangeRef{
			{Kind: cms.KindResource, ID: "r-1", Op: cms.ChangeUpsert}, {Kind: cms.KindMap, ID: "m-1", Op: cms.ChangeUpsert},
			{Kind: cms.KindMap, ID: "m-2", Op: cms.ChangeUpsert}, {Kind: cms.KindLanding, ID: "l-1", Op: cms.ChangeUpsert},
		}, nil)
		want := map[string]map[cms.Role][]string{
			"r-1": {cms.RolePrimary: {"m-2", "m-1"}, cms.RoleSecondary: {"m-3"}},
			"m-1": {cms.RolePrimary: {"r-2", "r-1"}, cms.RoleSecondary: {}},
			"m-2": {cms.RolePrimary: {"r-1"}, cms.RoleSecondary: {}},
		}
		for id, lists := range want {
			kind := cms.KindMap
			if id == "r-1" {
				kind = cms.KindResource
			}
			c, err := s.RecordRevision(ctx, "a", kind, id, 1)
			if err != nil || !maps.EqualFunc(c.Lists, lists, slices.Equal) || c.Document == "" {
				t.Errorf("%s %s: lists %v, document %d bytes, %v; want %v", kind, id, c.Lists, len(c.Document), err, lists)
			}
		}
		c, err := s.RecordRevision(ctx, "a", cms.KindLanding, "l-1", 1)
		if err != nil || c.Lists != nil || docTitle(t, c) != "Landing l-1" {
			t.Errorf("a Landing: lists %v, title %q, %v; want no lists and its document", c.Lists, docTitle(t, c), err)
		}
	})

	t.Run("Touched", func(t *testing.T) {
		t.Parallel()
		s := open(t)
		ctx := t.Context()
		at := func(m int) time.Time { return t0.Add(time.Duration(m) * time.Minute) }
		m := mapRecord("m-1")
		putChanged(t, s, "a", at(1), m, resource("r-1"))
		must(t, s.SetMapResources(ctx, "a", "m-1", cms.RolePrimary, []string{"r-1"}))
		touch := func(minute int, kind cms.Kind, id string) {
			t.Helper()
			inChanges(t, s, "a", "ann", at(minute), []cms.ChangeRef{{Kind: kind, ID: id, Op: cms.ChangeUpsert, Touched: true}},
				func(tx cms.Store) error { return tx.TouchRecord(ctx, "a", kind, id, at(minute)) })
		}
		touch(2, cms.KindMap, "m-1")
		touch(2, cms.KindResource, "r-1")
		touch(3, cms.KindMap, "m-1")
		m.Title = cms.Langs[string]{"en": "Second"}
		putChanged(t, s, "a", at(4), m)
		touch(5, cms.KindMap, "m-1")

		// A touch leaves the document as it was: each revision reads it,
		// dated by the touch.
		h := history(t, s, "a", cms.KindMap, "m-1")
		want := map[int64]string{5: "Second", 4: "Second", 3: "Map m-1", 2: "Map m-1", 1: "Map m-1"}
		if !slices.Equal(revs(h), []int64{5, 4, 3, 2, 1}) {
			t.Fatalf("m-1's history: revs %v, want 5 4 3 2 1", revs(h))
		}
		for _, c := range h {
			if docTitle(t, c) != want[c.Rev] || !c.Time.Equal(at(int(c.Rev))) {
				t.Errorf("m-1's history, rev %d: title %q at %v; want %q at %v", c.Rev, docTitle(t, c), c.Time, want[c.Rev], at(int(c.Rev)))
			}
		}
		for rev, title := range want {
			if c, err := s.RecordRevision(ctx, "a", cms.KindMap, "m-1", rev); err != nil || docTitle(t, c) != title {
				t.Errorf("RecordRevision(m-1, %d): title %q, %v; want %q", rev, docTitle(t, c), err, title)
			}
		}
		c, err := s.RecordRevision(ctx, "a", cms.KindResource, "r-1", 2)
		if err != nil || docTitle(t, c) != "Resource r-1" || !slices.Equal(c.Lists[cms.RolePrimary], []string{"m-1"}) {
			t.Errorf("the touched Resource's revision: title %q, lists %v, %v; want its document and its Map", docTitle(t, c), c.Lists, err)
		}

		// The purge keeps each record's newest revision, with its document.
		removed := 0
		for {
			n, err := s.PurgeChanges(ctx, at(10), 100)
			if err != nil {
				t.Fatal(err)
			}
			if n == 0 {
				break
			}
			removed += n
		}
		if h := history(t, s, "a", cms.KindMap, "m-1"); !slices.Equal(revs(h), []int64{5}) || removed != 5 || docTitle(t, h[0]) != "Second" {
			t.Errorf("m-1 after the purge (%d removed, want 5: m-1's 1 to 4, r-1's 1): revs %v; want 5, titled Second", removed, revs(h))
		}
		if h := history(t, s, "a", cms.KindResource, "r-1"); !slices.Equal(revs(h), []int64{2}) || docTitle(t, h[0]) != "Resource r-1" {
			t.Errorf("r-1 after the purge: revs %v; want 2, with its document", revs(h))
		}

		// A record stored before any change of it: its touch keeps the
		// document.
		put(t, s, "a", mapRecord("m-2"))
		touch(6, cms.KindMap, "m-2")
		if c, err := s.RecordRevision(ctx, "a", cms.KindMap, "m-2", 1); err != nil || docTitle(t, c) != "Map m-2" {
			t.Errorf("a touch of a Map without revisions: title %q, %v; want its document", docTitle(t, c), err)
		}

		// A delete leaves no document to any revision, the touched ones
		// included.
		deleteChanged(t, s, "a", at(7), cms.KindMap, "m-1")
		deleteChanged(t, s, "a", at(7), cms.KindResource, "r-1")
		for _, rec := range []struct {
			kind cms.Kind
			id   string
		}{{cms.KindMap, "m-1"}, {cms.KindResource, "r-1"}} {
			for _, c := range history(t, s, "a", rec.kind, rec.id) {
				if c.Document != "" || c.Lists != nil {
					t.Errorf("%s %s rev %d after the delete: document %q, lists %v", rec.kind, rec.id, c.Rev, c.Document, c.Lists)
				}
			}
		}
	})

	t.Run("Feed", func(t *testing.T) {
		t.Parallel()
		s := open(t)
		ctx := t.Context()
		if got := feedAll(t, s, "a", cms.ChangeCursor{}, 10); len(got) != 0 {
			t.Fatalf("an empty store's feed: %v", changeNames(got))
		}
		putChanged(t, s, "a", t0, resource("r-1"), mapRecord("m-1"), resource("r-2"))
		putChanged(t, s, "b", t0, resource("r-1"))
		putChanged(t, s, "a", t0, mapRecord("m-1"))
		deleteChanged(t, s, "a", t0, cms.KindResource, "r-1", "r-2")
		want := []string{"resource r-1 1 upsert", "map m-1 1 upsert", "resource r-2 1 upsert", "map m-1 2 upsert",
			"resource r-1 2 delete", "resource r-2 2 delete"}
		for _, limit := range []int{1, 2, 4, 1000} {
			if got := changeNames(feedAll(t, s, "a", cms.ChangeCursor{}, limit)); !slices.Equal(got, want) {
				t.Errorf("the feed in pages of %d:\n got %v\nwant %v", limit, got, want)
			}
		}
		if got := changeNames(feedAll(t, s, "a", cms.ChangeCursor{}, 3, cms.KindMap)); !slices.Equal(got, []string{"map m-1 1 upsert", "map m-1 2 upsert"}) {
			t.Errorf("the feed of Maps: %v", got)
		}
		all := feedAll(t, s, "a", cms.ChangeCursor{}, 10)
		if got := changeNames(feedAll(t, s, "a", all[0].Cursor, 10)); !slices.Equal(got, want[1:]) {
			t.Errorf("the feed after the first change: %v, want %v", got, want[1:])
		}
		if got := changeNames(feedAll(t, s, "a", cms.EndOfCommit(all[0].Cursor.Seq), 10)); !slices.Equal(got, want[3:]) &&
			!slices.Equal(got, want[1:]) { // SQLite: a change is a commit position of its own
			t.Errorf("the feed after the first commit: %v, want %v", got, want[3:])
		}
		if got := changeNames(feedAll(t, s, "b", cms.ChangeCursor{}, 10)); !slices.Equal(got, []string{"resource r-1 1 upsert"}) {
			t.Errorf("account b's feed: %v", got)
		}

		// A fence: changes committed after it are past it.
		fence, err := s.ChangeFence(ctx, "a")
		must(t, err)
		putChanged(t, s, "a", t0, resource("r-3"))
		page, err := s.Changes(ctx, cms.ChangeQuery{Account: "a", UpTo: fence, Limit: 100})
		if err != nil || !slices.Equal(changeNames(page), want) {
			t.Errorf("Changes up to the fence taken before r-3: %v, %v; want %v", changeNames(page), err, want)
		}
		later, err := s.ChangeFence(ctx, "a")
		if err != nil || later <= fence {
			t.Errorf("the fence after a commit: %d, %v; want above %d", later, err, fence)
		}
		page, err = s.Changes(ctx, cms.ChangeQuery{Account: "a", After: all[len(all)-1].Cursor, UpTo: later, Limit: 100})
		if err != nil || !slices.Equal(changeNames(page), []string{"resource r-3 1 upsert"}) {
			t.Errorf("Changes after the last up to the new fence: %v, %v", changeNames(page), err)
		}
		_, err = s.Changes(ctx, cms.ChangeQuery{Account: "a", UpTo: later, Limit: 0})
		if err == nil {
			t.Error("Changes with a limit of 0: no error")
		}
		h, err := s.ChangeHorizon(ctx, "a")
		if err != nil || h != (cms.ChangeCursor{}) {
			t.Errorf("ChangeHorizon before any purge: %v, %v; want the zero cursor", h, err)
		}
	})

	t.Run("Batch", func(t *testing.T) {
		t.Parallel()
		s := open(t)
		const n = 2500
		entries := make([]*cms.Entry, n)
		refs := make([]cms.ChangeRef, n)
		for i := range n {
			id := fmt.Sprintf("r-%05d", n-i) // not in id order: the feed keeps the refs'
			entries[i] = entry("a", resource(id), t0)
			refs[i] = cms.ChangeRef{Kind: cms.KindResource, ID: id, Op: cms.ChangeUpsert}
		}
		inChanges(t, s, "a", "batch b-1", t0, refs, func(tx cms.Store) error { return tx.PutRecords(t.Context(), entries) })
		got := feedAll(t, s, "a", cms.ChangeCursor{}, 1000)
		if len(got) != n {
			t.Fatalf("the feed of a batch of %d: %d changes", n, len(got))
		}
		for i, c := range got {
			if c.ID != refs[i].ID || c.Rev != 1 || c.Author != "batch b-1" {
				t.Fatalf("change %d: %s rev %d by %q; want %s rev 1 by batch b-1", i, c.ID, c.Rev, c.Author, refs[i].ID)
			}
		}
		ids := make([]string, n)
		for i, r := range refs {
			ids[i] = r.ID
		}
		deleteChanged(t, s, "a", t0.Add(time.Hour), cms.KindResource, ids...)
		for _, id := range []string{ids[0], ids[n/2], ids[n-1]} {
			if h := history(t, s, "a", cms.KindResource, id); !slices.Equal(revs(h), []int64{2, 1}) || h[1].Document != "" {
				t.Errorf("%s after a delete of the batch: revs %v, first document %d bytes", id, revs(h), len(h[1].Document))
			}
		}
	})

	t.Run("Rollback", func(t *testing.T) {
		t.Parallel()
		s := open(t)
		ctx := t.Context()
		putChanged(t, s, "a", t0, resource("r-1"))
		fence, err := s.ChangeFence(ctx, "a")
		must(t, err)
		refused := errors.New("refused")
		err = s.WithTx(ctx, func(tx cms.Store) error {
			if err := tx.PutRecord(ctx, entry("a", resource("r-2"), t0)); err != nil {
				return err
			}
			if err := tx.DeleteRecord(ctx, "a", cms.KindResource, "r-1"); err != nil {
				return err
			}
			if err := tx.AppendChanges(ctx, cms.ChangeSet{Account: "a", Time: t0, Refs: []cms.ChangeRef{
				{Kind: cms.KindResource, ID: "r-2", Op: cms.ChangeUpsert}, {Kind: cms.KindResource, ID: "r-1", Op: cms.ChangeDelete}}}); err != nil {
				return err
			}
			return refused
		})
		if !errors.Is(err, refused) {
			t.Fatalf("the transaction: %v, want refused", err)
		}
		_, err = s.LastRevision(ctx, "a", cms.KindResource, "r-2")
		wantCode(t, err, cms.CodeNotFound, "LastRevision of a record whose transaction rolled back")
		if h := history(t, s, "a", cms.KindResource, "r-1"); !slices.Equal(revs(h), []int64{1}) || h[0].Document == "" {
			t.Errorf("r-1 after a rolled back delete: revs %v, document %d bytes; want rev 1 with its document", revs(h), len(h[0].Document))
		}
		if got := changeNames(feedAll(t, s, "a", cms.ChangeCursor{}, 10)); !slices.Equal(got, []string{"resource r-1 1 upsert"}) {
			t.Errorf("the feed after a rollback: %v", got)
		}
		if later, err := s.ChangeFence(ctx, "a"); err != nil || later < fence {
			t.Errorf("the fence after a rollback: %d, %v; want at least %d", later, err, fence)
		}
		wantCode(t, s.WithTx(ctx, func(tx cms.Store) error {
			_, err := tx.ChangeFence(ctx, "a")
			return err
		}), cms.CodeInternal, "ChangeFence inside a transaction")
	})

	t.Run("Purge", func(t *testing.T) {
		t.Parallel()
		s := open(t)
		ctx := t.Context()
		at := func(m int) time.Time { return t0.Add(time.Duration(m) * time.Minute) }
		r := resource("r-1")
		putChanged(t, s, "a", at(0), resource("r-2")) // old, but its newest
		for m := 1; m <= 3; m++ {
			putChanged(t, s, "a", at(m), r) // revs 1, 2, 3 at minutes 1, 2, 3
			if m < 3 {
				putChanged(t, s, "b", at(m), r)
			}
		}
		// Written after a change dated at minute 3, dated before it: the
		// purge's walk in the order of writing ends before them.
		putChanged(t, s, "b", at(2), resource("r-3"))
		putChanged(t, s, "b", at(2), resource("r-3"))
		before := feedAll(t, s, "a", cms.ChangeCursor{}, 100)

		n, err := s.PurgeChanges(ctx, at(3), 1)
		if err != nil || n != 1 {
			t.Fatalf("PurgeChanges(limit 1): %d, %v; want 1", n, err)
		}
		n, err = s.PurgeChanges(ctx, at(3), 10)
		if err != nil || n != 2 {
			t.Fatalf("PurgeChanges(limit 10): %d, %v; want 2 (a's rev 2 of r-1, b's rev 1)", n, err)
		}
		if n, err := s.PurgeChanges(ctx, at(3), 10); err != nil || n != 0 {
			t.Errorf("PurgeChanges again: %d, %v; want 0", n, err)
		}
		if got := revs(history(t, s, "a", cms.KindResource, "r-1")); !slices.Equal(got, []int64{3}) {
			t.Errorf("a's r-1 after the purge: revs %v, want 3", got)
		}
		if got := revs(history(t, s, "b", cms.KindResource, "r-3")); !slices.Equal(got, []int64{2, 1}) {
			t.Errorf("b's r-3, written after the walk's end: revs %v, want 2 1", got)
		}
		if got := revs(history(t, s, "a", cms.KindResource, "r-2")); !slices.Equal(got, []int64{1}) {
			t.Errorf("a's r-2, old but its newest: revs %v, want 1", got)
		}
		if got := revs(history(t, s, "b", cms.KindResource, "r-1")); !slices.Equal(got, []int64{2}) {
			t.Errorf("b's r-1 after the purge: revs %v, want 2", got)
		}
		h, err := s.ChangeHorizon(ctx, "a")
		if err != nil || h != before[2].Cursor {
			t.Errorf("a's horizon: %v, %v; want %v, the cursor of r-1 rev 2", h, err, before[2].Cursor)
		}
		if h, err := s.ChangeHorizon(ctx, "b"); err != nil || h == (cms.ChangeCursor{}) {
			t.Errorf("b's horizon: %v, %v; want raised", h, err)
		}
		putChanged(t, s, "a", at(4), r)
		if got := revs(history(t, s, "a", cms.KindResource, "r-1")); !slices.Equal(got, []int64{4, 3}) {
			t.Errorf("a's r-1 changed after the purge: revs %v, want 4 3", got)
		}
		if _, err := s.PurgeChanges(ctx, at(10), 0); err == nil {
			t.Error("PurgeChanges with a limit of 0: no error")
		}
	})
}

// ChangeOperations calls every method of cms.ChangeStore on s, in
// account, as the service and the feed's readers do: appends of one
// record, of several and of deletes (Resource r-1, Map m-1, Resource
// r-2), a fence and pages of the feed (of every kind and of Resources),
// the horizon, a record's history, revisions and last revision, and a
// purge. Plan tests run it over a filled store and explain what it ran.
func ChangeOperations(tb testing.TB, s cms.Store, account string) {
	tb.Helper()
	ctx := tb.Context()
	putChanged(tb, s, account, t0, resource("r-1"))
	putChanged(tb, s, account, t0, mapRecord("m-1"), resource("r-2"))
	deleteChanged(tb, s, account, t0, cms.KindResource, "r-1")
	putChanged(tb, s, account, t0, resource("r-1"))
	deleteChanged(tb, s, account, t0, cms.KindResource, "r-1", "r-2")
	all := feedAll(tb, s, account, cms.ChangeCursor{}, 1000)
	if len(all) == 0 {
		tb.Fatal("ChangeOperations: no changes in the feed")
	}
	feedAll(tb, s, account, all[len(all)/2].Cursor, 100, cms.KindResource)
	if _, err := s.ChangeHorizon(ctx, account); err != nil {
		tb.Fatal(err)
	}
	if _, err := s.RecordHistory(ctx, cms.HistoryQuery{Account: account, Kind: cms.KindMap, ID: "m-1", Limit: 10, Documents: true}); err != nil {
		tb.Fatal(err)
	}
	if _, err := s.RecordHistory(ctx, cms.HistoryQuery{Account: account, Kind: cms.KindResource, ID: "r-1", Before: 3, Limit: 10}); err != nil {
		tb.Fatal(err)
	}
	if _, err := s.RecordRevision(ctx, account, cms.KindMap, "m-1", 1); err != nil {
		tb.Fatal(err)
	}
	if _, err := s.LastRevision(ctx, account, cms.KindResource, "r-1"); err != nil {
		tb.Fatal(err)
	}
	if _, err := s.PurgeChanges(ctx, t0.Add(time.Hour), 100); err != nil {
		tb.Fatal(err)
	}
}

// ChangeBenchRecord is a Resource body of the load tool's shape: title,
// short description, 2 KB of HTML, location, two Maps, categories.
func ChangeBenchRecord(id, title string) string {
	html, _ := json.Marshal("<p>" + strings.Repeat("Lorem ipsum dolor sit amet. ", 73) + "</p>")
	return `{"id":"` + id + `","title":"` + title + `","shortDescription":"Short description of ` + id +
		`","htmlContent":` + string(html) + `,"published":true,"locationLat":45.1,"locationLon":7.6,"locationZoom":12` +
		`,"mapIds":["map-1","map-2"],"resourceCategories":["cat-a","cat-b"],"contactEmail":"contact@example.com"}`
}

// BenchChanges measures what the change records cost the service's
// writes: a create of a Resource naming two Maps (three records
// changed), an update of its title, and a batch of 1,000 such Resources
// submitted and applied, each with the changes written and with
// cms.Options.BenchmarkWithoutChanges.
func BenchChanges(b *testing.B, open func(b *testing.B) cms.Store) {
	service := func(b *testing.B, without bool) (*cms.Service, context.Context) {
		return BenchService(b, open(b), &cms.Options{BenchmarkWithoutChanges: without})
	}
	modes := []struct {
		name    string
		without bool
	}{{"changes", false}, {"without", true}}
	// cpu reports the process's CPU time an operation (the database's
	// own included on SQLite, only the client's on PostgreSQL), steadier
	// than the time taken when other work shares the machine.
	cpu := func(b *testing.B) func() {
		start, ok := processCPU()
		return func() {
			if end, ok2 := processCPU(); ok && ok2 && b.N > 0 {
				b.ReportMetric(float64((end-start).Microseconds())/1000/float64(b.N), "cpu-ms/op")
			}
		}
	}
	for _, m := range modes {
		b.Run("create/"+m.name, func(b *testing.B) {
			svc, ctx := service(b, m.without)
			b.ReportAllocs()
			defer cpu(b)()
			i := 0
			for b.Loop() {
				i++
				id := fmt.Sprintf("new%07d", i)
				if _, err := svc.Upsert(ctx, cms.KindResource, []byte(ChangeBenchRecord(id, "Create "+id)), nil); err != nil {
					b.Fatal(err)
				}
			}
		})
	}
	for _, m := range modes {
		b.Run("update/"+m.name, func(b *testing.B) {
			svc, ctx := service(b, m.without)
			if _, err := svc.Upsert(ctx, cms.KindResource, []byte(ChangeBenchRecord("upd", "First")), nil); err != nil {
				b.Fatal(err)
			}
			b.ReportAllocs()
			defer cpu(b)()
			i := 0
			for b.Loop() {
				i++
				if _, err := svc.Upsert(ctx, cms.KindResource, []byte(ChangeBenchRecord("upd", fmt.Sprintf("Updated %d", i))), nil); err != nil {
					b.Fatal(err)
				}
			}
		})
	}
	for _, m := range modes {
		b.Run("batch1000/"+m.name, func(b *testing.B) {
			svc, ctx := service(b, m.without)
			b.ReportAllocs()
			defer cpu(b)()
			n := 0
			for b.Loop() {
				var body strings.Builder
				body.WriteByte('[')
				for i := range 1000 {
					if i > 0 {
						body.WriteByte(',')
					}
					n++
					id := fmt.Sprintf("bulk%07d", n)
					body.WriteString(ChangeBenchRecord(id, "Bulk "+id))
				}
				body.WriteByte(']')
				if _, err := svc.SubmitBatch(ctx, cms.KindResource, []byte(body.String())); err != nil {
					b.Fatal(err)
				}
				if ok, err := svc.ProcessBatch(ctx, "bench"); err != nil || !ok {
					b.Fatalf("ProcessBatch: %v, %v", ok, err)
				}
			}
		})
	}
}

// BenchService is a service over store with an account "acc", the Maps
// map-1 and map-2 that ChangeBenchRecord's Resources join, and the
// context of a user who may do everything there (benchmarks, and tests
// of what a store does under the service's writes).
func BenchService(b testing.TB, store cms.Store, opts *cms.Options) (*cms.Service, context.Context) {
	svc, err := cms.NewService(store, opts)
	if err != nil {
		b.Fatal(err)
	}
	en, _ := cms.NewLanguages("en")
	if err := svc.CreateAccount(b.Context(), "acc", en); err != nil {
		b.Fatal(err)
	}
	ctx := cms.WithPrincipal(b.Context(), cms.Principal{Account: "acc", User: "u", Perms: []string{"*"}, Langs: en})
	for _, m := range []string{"map-1", "map-2"} {
		if _, err := svc.Upsert(ctx, cms.KindMap, []byte(`{"id":"`+m+`","title":"`+m+`","published":true}`), nil); err != nil {
			b.Fatal(err)
		}
	}
	return svc, ctx
}
