package cmstest

import (
	"fmt"
	"reflect"
	"slices"
	"testing"
	"time"

	"github.com/bwcms/cms/cms"
)

// t1 is a later instant than t0, for second writes.
var t1 = t0.Add(time.Hour)

// bulkResource is a Resource with aliases in two languages and a
// reference, for the set writes.
func bulkResource(id, alias string, refs ...string) *cms.Resource {
	r := resource(id)
	r.URLAlias = cms.Langs[string]{"en": "/" + alias, "it": "/it/" + alias}
	if len(refs) > 0 {
		r.POIResourceIDs = cms.NullOf(refs)
	}
	return r
}

// wantBulk checks what bulkResource set on a record read back.
func wantBulk(tb testing.TB, e *cms.Entry, updated time.Time, alias string, refs ...string) {
	tb.Helper()
	r := e.Record.(*cms.Resource)
	want := bulkResource(r.ID, alias, refs...)
	if !sameTime(e.Updated, updated) || !reflect.DeepEqual(r.URLAlias, want.URLAlias) ||
		!reflect.DeepEqual(r.Title, want.Title) || !slices.Equal(r.POIResourceIDs.Value, want.POIResourceIDs.Value) {
		tb.Errorf("%s read back: updated %v, aliases %v, title %v, references %v; want %v, %v, %v, %v", r.ID,
			e.Updated, r.URLAlias, r.Title, r.POIResourceIDs.Value, updated, want.URLAlias, want.Title, want.POIResourceIDs.Value)
	}
}

func testBulk(t *testing.T, open func(t *testing.T) cms.Store) {
	t.Parallel()

	t.Run("PutRecords", func(t *testing.T) {
		// More records than one statement takes, each stored whole with
		// its aliases and references; a second put replaces them.
		t.Parallel()
		s := open(t)
		ctx := t.Context()
		const n = 600
		var entries []*cms.Entry
		for i := range n {
			entries = append(entries, entry("a", bulkResource(fmt.Sprintf("r-%03d", i), fmt.Sprintf("a%03d", i), "r-000"), t0.Add(time.Duration(i)*time.Microsecond)))
		}
		must(t, s.PutRecords(ctx, entries))
		for _, i := range []int{0, 1, 255, 256, 257, 599} {
			id := fmt.Sprintf("r-%03d", i)
			wantBulk(t, get(t, s, "a", cms.KindResource, id), entries[i].Updated, fmt.Sprintf("a%03d", i), "r-000")
			wantHolder(t, s, "a", cms.KindResource, "it", fmt.Sprintf("/it/a%03d", i), id)
		}
		if got, err := s.Referrers(ctx, "a", cms.ReferenceTargets(cms.KindResource), "r-000"); err != nil || len(got) != n {
			t.Errorf("Referrers(r-000): %d references, %v; want %d", len(got), err, n)
		}

		// Replacing: new aliases free the old ones, new references replace.
		again := []*cms.Entry{
			entry("a", bulkResource("r-000", "b000", "r-001"), t1),
			entry("a", bulkResource("r-001", "b001"), t1),
		}
		must(t, s.PutRecords(ctx, again))
		wantHolder(t, s, "a", cms.KindResource, "en", "/a000", "")
		wantHolder(t, s, "a", cms.KindResource, "en", "/b000", "r-000")
		wantReferrers(t, s, "a", cms.KindResource, "r-001", []cms.Reference{
			{FromKind: cms.KindResource, FromID: "r-000", Field: "poiResourceIds", ToKind: "resource", ToID: "r-001"}})
		if got, err := s.Referrers(ctx, "a", cms.ReferenceTargets(cms.KindResource), "r-000"); err != nil || len(got) != n-2 {
			t.Errorf("Referrers(r-000) after replacing: %d references, %v; want %d", len(got), err, n-2)
		}
	})

	t.Run("PutRecordsWritesGivenDocuments", func(t *testing.T) {
		// An entry's Document is written as given, its index still read
		// from Record; an entry without one is marshalled.
		t.Parallel()
		s := open(t)
		given := bulkResource("r-1", "one")
		given.Title = cms.Langs[string]{"en": "From the document"}
		withDoc := entry("a", bulkResource("r-1", "one"), t0)
		withDoc.Document = string(cms.NewDocumentCodec().Marshal(given))
		must(t, s.PutRecords(t.Context(), []*cms.Entry{withDoc, entry("a", bulkResource("r-2", "two"), t0)}))
		if got := get(t, s, "a", cms.KindResource, "r-1").Record.(*cms.Resource).Title; got["en"] != "From the document" {
			t.Errorf("r-1 read back with title %v; want the given document's", got)
		}
		wantHolder(t, s, "a", cms.KindResource, "it", "/it/one", "r-1")
		wantBulk(t, get(t, s, "a", cms.KindResource, "r-2"), t0, "two")
	})

	t.Run("PutRecordsSwapsAliases", func(t *testing.T) {
		t.Parallel()
		s := open(t)
		ctx := t.Context()
		must(t, s.PutRecords(ctx, []*cms.Entry{entry("a", bulkResource("r-1", "one"), t0), entry("a", bulkResource("r-2", "two"), t0)}))
		must(t, s.PutRecords(ctx, []*cms.Entry{entry("a", bulkResource("r-1", "two"), t1), entry("a", bulkResource("r-2", "one"), t1)}))
		wantHolder(t, s, "a", cms.KindResource, "en", "/one", "r-2")
		wantHolder(t, s, "a", cms.KindResource, "en", "/two", "r-1")
	})

	t.Run("PutRecordsRefusesTakenAliases", func(t *testing.T) {
		// A refused set writes nothing, even when its transaction goes on
		// and commits.
		t.Parallel()
		s := open(t)
		ctx := t.Context()
		put(t, s, "a", bulkResource("held", "taken"))
		put(t, s, "a", bulkResource("r-1", "first"))
		err := s.WithTx(ctx, func(tx cms.Store) error {
			err := tx.PutRecords(ctx, []*cms.Entry{
				entry("a", bulkResource("r-1", "changed"), t1),
				entry("a", bulkResource("r-2", "taken"), t1),
			})
			wantRace(t, err, "PutRecords of a held alias")
			return tx.PutRecord(ctx, entry("a", resource("after"), t1))
		})
		must(t, err)
		wantBulk(t, get(t, s, "a", cms.KindResource, "r-1"), t0, "first")
		wantMissing(t, s, "a", cms.KindResource, "r-2")
		wantHolder(t, s, "a", cms.KindResource, "en", "/first", "r-1")
		wantHolder(t, s, "a", cms.KindResource, "en", "/changed", "")
		get(t, s, "a", cms.KindResource, "after")

		err = s.PutRecords(ctx, []*cms.Entry{entry("a", bulkResource("r-3", "same"), t1), entry("a", bulkResource("r-4", "same"), t1)})
		wantCode(t, err, cms.CodeInternal, "PutRecords naming one alias twice")
		wantMissing(t, s, "a", cms.KindResource, "r-3")
	})

	t.Run("AliasHolders", func(t *testing.T) {
		t.Parallel()
		s := open(t)
		ctx := t.Context()
		put(t, s, "a", bulkResource("r-1", "one"))
		put(t, s, "a", bulkResource("r-2", "two"))
		put(t, s, "b", bulkResource("r-9", "nine"))
		got, err := s.AliasHolders(ctx, "a", cms.KindResource, "en", []string{"/one", "/two", "/nine", "/none", "/one"})
		must(t, err)
		if len(got) != 2 || got["/one"] != "r-1" || got["/two"] != "r-2" {
			t.Errorf("AliasHolders(en): %v, want /one r-1 and /two r-2 only", got)
		}
		if got, err := s.AliasHolders(ctx, "a", cms.KindMap, "en", []string{"/one"}); err != nil || len(got) != 0 {
			t.Errorf("AliasHolders of another kind: %v, %v", got, err)
		}
		if got, err := s.AliasHolders(ctx, "a", cms.KindResource, "it", []string{"/one", "/it/one"}); err != nil || len(got) != 1 || got["/it/one"] != "r-1" {
			t.Errorf("AliasHolders(it): %v, %v", got, err)
		}
	})

	t.Run("GetRecordsHoldsRows", func(t *testing.T) {
		// A read-modify-write through GetRecords loses no concurrent
		// update of the same record.
		t.Parallel()
		s := open(t)
		ctx := t.Context()
		put(t, s, "a", resource("r-1"))
		read := make(chan struct{})
		first := make(chan error, 1)
		go func() {
			first <- s.WithTx(ctx, func(tx cms.Store) error {
				got, err := tx.GetRecords(ctx, "a", cms.KindResource, []string{"r-1"})
				if err != nil || len(got) != 1 {
					return fmt.Errorf("GetRecords: %v, %v", got, err)
				}
				close(read)
				time.Sleep(100 * time.Millisecond) // the second writer reads meanwhile
				got[0].Record.(*cms.Resource).Title["en"] += " first"
				return tx.PutRecords(ctx, got)
			})
		}()
		<-read
		must(t, s.WithTx(ctx, func(tx cms.Store) error {
			e, err := tx.GetRecord(ctx, "a", cms.KindResource, "r-1")
			if err != nil {
				return err
			}
			e.Record.(*cms.Resource).Title["en"] += " second"
			return tx.PutRecord(ctx, e)
		}))
		must(t, <-first)
		if got := title(t, get(t, s, "a", cms.KindResource, "r-1")); got != "Resource r-1 first second" {
			t.Errorf("title after two writers: %q, want both changes", got)
		}
	})

	t.Run("LockKindHoldsNewIDs", func(t *testing.T) {
		// While a transaction holds the kind, a creator of an id it
		// creates waits, then sees its record.
		t.Parallel()
		s := open(t)
		ctx := t.Context()
		locked := make(chan struct{})
		first := make(chan error, 1)
		go func() {
			first <- s.WithTx(ctx, func(tx cms.Store) error {
				if err := tx.LockKind(ctx, "a", cms.KindResource); err != nil {
					return err
				}
				got, err := tx.GetRecords(ctx, "a", cms.KindResource, []string{"new-1"})
				if err != nil || len(got) != 0 {
					return fmt.Errorf("GetRecords of a new id: %v, %v", got, err)
				}
				close(locked)
				time.Sleep(100 * time.Millisecond) // the creator asks meanwhile
				return tx.PutRecords(ctx, []*cms.Entry{entry("a", resource("new-1"), t0)})
			})
		}()
		<-locked
		err := s.WithTx(ctx, func(tx cms.Store) error {
			_, err := tx.GetRecord(ctx, "a", cms.KindResource, "new-1")
			return err
		})
		if err != nil {
			t.Errorf("the creator did not see the record of the transaction holding the kind: %v", err)
		}
		must(t, <-first)
	})
}

// testAccountWrites: LockAccountWrites in a transaction waits for another
// transaction holding the account's writes, then sees what that one
// committed (where write transactions run one at a time, the transaction
// itself waits).
func testAccountWrites(t *testing.T, open func(t *testing.T) cms.Store) {
	t.Parallel()
	s := open(t)
	ctx := t.Context()
	locked := make(chan struct{})
	first := make(chan error, 1)
	go func() {
		first <- s.WithTx(ctx, func(tx cms.Store) error {
			if err := tx.LockAccountWrites(ctx, "a"); err != nil {
				return err
			}
			close(locked)
			time.Sleep(100 * time.Millisecond) // the second asks meanwhile
			return tx.PutRecord(ctx, entry("a", resource("r-1"), t0))
		})
	}()
	<-locked
	err := s.WithTx(ctx, func(tx cms.Store) error {
		if err := tx.LockAccountWrites(ctx, "a"); err != nil {
			return err
		}
		got, err := tx.ExistingIDs(ctx, "a", cms.KindResource, []string{"r-1"})
		if err == nil && len(got) != 1 {
			err = fmt.Errorf("LockAccountWrites did not wait for the transaction holding it: r-1 not seen")
		}
		return err
	})
	must(t, err)
	must(t, <-first)
}

// testAppendAssignments: AppendAssignments gives the lists that the Set
// calls, one after another, would, on both sides and with lists the other
// side already has.
func testAppendAssignments(t *testing.T, open func(t *testing.T) cms.Store) {
	t.Parallel()
	for _, owners := range []cms.Kind{cms.KindResource, cms.KindMap} {
		t.Run(string(owners), func(t *testing.T) {
			t.Parallel()
			s := open(t)
			ctx := t.Context()
			set := s.SetResourceMaps
			other := cms.KindMap
			if owners == cms.KindMap {
				set, other = s.SetMapResources, cms.KindResource
			}
			lists := []cms.AssignmentList{
				{Owner: "o-1", Role: cms.RolePrimary, IDs: []string{"x-1", "x-2"}},
				{Owner: "o-1", Role: cms.RoleSecondary, IDs: []string{"x-3"}},
				{Owner: "o-2", Role: cms.RolePrimary, IDs: []string{"x-2", "x-1", "x-2"}},
				{Owner: "o-3", Role: cms.RoleSecondary, IDs: []string{"x-1", "x-3"}},
			}
			for _, account := range []string{"seq", "bulk"} {
				// The other side has lists already: new ones go to their end.
				must(t, set(ctx, account, "o-9", cms.RolePrimary, []string{"x-1", "x-2"}))
				must(t, set(ctx, account, "o-9b", cms.RoleSecondary, []string{"x-1"}))
			}
			for _, l := range lists {
				must(t, set(ctx, "seq", l.Owner, l.Role, l.IDs))
			}
			must(t, s.AppendAssignments(ctx, "bulk", owners, lists))
			read := func(account string, kind cms.Kind, id string, role cms.Role) []string {
				list := s.ResourceMaps
				if kind == cms.KindMap {
					list = s.MapResources
				}
				ids, err := list(ctx, account, id, role)
				must(t, err)
				return ids
			}
			for _, side := range []struct {
				kind cms.Kind
				ids  []string
			}{{owners, []string{"o-9", "o-9b", "o-1", "o-2", "o-3"}}, {other, []string{"x-1", "x-2", "x-3"}}} {
				for _, id := range side.ids {
					for _, role := range []cms.Role{cms.RolePrimary, cms.RoleSecondary} {
						want, got := read("seq", side.kind, id, role), read("bulk", side.kind, id, role)
						if !slices.Equal(got, want) {
							t.Errorf("%s %s %s: %v, want %v as the Set calls give", side.kind, id, role, got, want)
						}
					}
				}
			}
		})
	}
}
