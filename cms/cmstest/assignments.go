package cmstest

import (
	"fmt"
	"maps"
	"slices"
	"testing"

	"github.com/bwcms/cms/cms"
)

const (
	primary   = cms.RolePrimary
	secondary = cms.RoleSecondary
)

// lists are the primary and secondary lists of one side of assignments.
type lists [2][]string

// assignmentState is the expected state of every id of a test: each Map's
// lists of Resources and each Resource's lists of Maps. An id not named
// has empty lists.
type assignmentState struct {
	maps, resources map[string]lists
}

// check reads both sides of every Map in mapIDs and every Resource in
// resourceIDs, compares them with want, and checks that the two sides
// hold the same facts.
func (want assignmentState) check(tb testing.TB, s cms.Store, account, step string, mapIDs, resourceIDs []string) {
	tb.Helper()
	ctx := tb.Context()
	type fact struct {
		mapID, resourceID string
		role              cms.Role
	}
	fromMaps, fromResources := map[fact]bool{}, map[fact]bool{}
	for i, role := range []cms.Role{primary, secondary} {
		for _, m := range mapIDs {
			got, err := s.MapResources(ctx, account, m, role)
			if err != nil {
				tb.Fatalf("%s: MapResources(%s, %s): %v", step, m, role, err)
			}
			if w := want.maps[m][i]; !slices.Equal(got, w) {
				tb.Errorf("%s: Map %s, %s Resources %v, want %v", step, m, role, got, w)
			}
			for _, r := range got {
				fromMaps[fact{m, r, role}] = true
			}
		}
		for _, r := range resourceIDs {
			got, err := s.ResourceMaps(ctx, account, r, role)
			if err != nil {
				tb.Fatalf("%s: ResourceMaps(%s, %s): %v", step, r, role, err)
			}
			if w := want.resources[r][i]; !slices.Equal(got, w) {
				tb.Errorf("%s: Resource %s, %s Maps %v, want %v", step, r, role, got, w)
			}
			for _, m := range got {
				fromResources[fact{m, r, role}] = true
			}
		}
	}
	if !maps.Equal(fromMaps, fromResources) {
		tb.Errorf("%s: the two sides disagree:\n from the Maps      %v\n from the Resources %v", step, fromMaps, fromResources)
	}
}

func testAssignments(t *testing.T, open func(t *testing.T) cms.Store) {
	t.Parallel()
	t.Run("Semantics", func(t *testing.T) {
		t.Parallel()
		s := open(t)
		ctx := t.Context()
		mapIDs := []string{"m-1", "m-2", "m-3", "m-4"}
		resourceIDs := []string{"r-1", "r-2", "r-3", "r-4", "r-5"}
		must(t, s.SetMapResources(ctx, "b", "m-1", primary, []string{"r-1"}))
		steps := []struct {
			name  string
			do    func() error
			state assignmentState
		}{
			{"a Map's list, an id given twice counts once at its first place",
				func() error { return s.SetMapResources(ctx, "a", "m-1", primary, []string{"r-3", "r-1", "r-3", "r-2"}) },
				assignmentState{
					maps:      map[string]lists{"m-1": {{"r-3", "r-1", "r-2"}}},
					resources: map[string]lists{"r-1": {{"m-1"}}, "r-2": {{"m-1"}}, "r-3": {{"m-1"}}}}},
			{"a Resource's list: the Resource goes to the end of a new Map's list, keeps its place in the others",
				func() error { return s.SetResourceMaps(ctx, "a", "r-1", primary, []string{"m-2", "m-1"}) },
				assignmentState{
					maps:      map[string]lists{"m-1": {{"r-3", "r-1", "r-2"}}, "m-2": {{"r-1"}}},
					resources: map[string]lists{"r-1": {{"m-2", "m-1"}}, "r-2": {{"m-1"}}, "r-3": {{"m-1"}}}}},
			{"a Map new to a Resource goes to the end of the Resource's list",
				func() error { return s.SetMapResources(ctx, "a", "m-3", primary, []string{"r-1"}) },
				assignmentState{
					maps:      map[string]lists{"m-1": {{"r-3", "r-1", "r-2"}}, "m-2": {{"r-1"}}, "m-3": {{"r-1"}}},
					resources: map[string]lists{"r-1": {{"m-2", "m-1", "m-3"}}, "r-2": {{"m-1"}}, "r-3": {{"m-1"}}}}},
			{"a Resource kept in a Map's list keeps its own order",
				func() error { return s.SetMapResources(ctx, "a", "m-2", primary, []string{"r-2", "r-1"}) },
				assignmentState{
					maps:      map[string]lists{"m-1": {{"r-3", "r-1", "r-2"}}, "m-2": {{"r-2", "r-1"}}, "m-3": {{"r-1"}}},
					resources: map[string]lists{"r-1": {{"m-2", "m-1", "m-3"}}, "r-2": {{"m-1", "m-2"}}, "r-3": {{"m-1"}}}}},
			{"secondary removes primary of the same pair",
				func() error { return s.SetMapResources(ctx, "a", "m-1", secondary, []string{"r-1"}) },
				assignmentState{
					maps:      map[string]lists{"m-1": {{"r-3", "r-2"}, {"r-1"}}, "m-2": {{"r-2", "r-1"}}, "m-3": {{"r-1"}}},
					resources: map[string]lists{"r-1": {{"m-2", "m-3"}, {"m-1"}}, "r-2": {{"m-1", "m-2"}}, "r-3": {{"m-1"}}}}},
			{"primary from the Resource's side removes secondary and appends to the Map's list",
				func() error { return s.SetResourceMaps(ctx, "a", "r-1", primary, []string{"m-2", "m-3", "m-1"}) },
				assignmentState{
					maps:      map[string]lists{"m-1": {{"r-3", "r-2", "r-1"}}, "m-2": {{"r-2", "r-1"}}, "m-3": {{"r-1"}}},
					resources: map[string]lists{"r-1": {{"m-2", "m-3", "m-1"}}, "r-2": {{"m-1", "m-2"}}, "r-3": {{"m-1"}}}}},
			{"a shorter list removes the others from both sides",
				func() error { return s.SetMapResources(ctx, "a", "m-1", primary, []string{"r-2"}) },
				assignmentState{
					maps:      map[string]lists{"m-1": {{"r-2"}}, "m-2": {{"r-2", "r-1"}}, "m-3": {{"r-1"}}},
					resources: map[string]lists{"r-1": {{"m-2", "m-3"}}, "r-2": {{"m-1", "m-2"}}}}},
			{"reordering a Map's list leaves the Resources' lists",
				func() error { return s.SetMapResources(ctx, "a", "m-2", primary, []string{"r-1", "r-2"}) },
				assignmentState{
					maps:      map[string]lists{"m-1": {{"r-2"}}, "m-2": {{"r-1", "r-2"}}, "m-3": {{"r-1"}}},
					resources: map[string]lists{"r-1": {{"m-2", "m-3"}}, "r-2": {{"m-1", "m-2"}}}}},
			{"reordering a Resource's list leaves the Maps' lists",
				func() error { return s.SetResourceMaps(ctx, "a", "r-2", primary, []string{"m-2", "m-1"}) },
				assignmentState{
					maps:      map[string]lists{"m-1": {{"r-2"}}, "m-2": {{"r-1", "r-2"}}, "m-3": {{"r-1"}}},
					resources: map[string]lists{"r-1": {{"m-2", "m-3"}}, "r-2": {{"m-2", "m-1"}}}}},
			{"a Resource's secondary list, an id given twice",
				func() error { return s.SetResourceMaps(ctx, "a", "r-4", secondary, []string{"m-1", "m-2", "m-1"}) },
				assignmentState{
					maps:      map[string]lists{"m-1": {{"r-2"}, {"r-4"}}, "m-2": {{"r-1", "r-2"}, {"r-4"}}, "m-3": {{"r-1"}}},
					resources: map[string]lists{"r-1": {{"m-2", "m-3"}}, "r-2": {{"m-2", "m-1"}}, "r-4": {nil, {"m-1", "m-2"}}}}},
			{"a Map's secondary list",
				func() error { return s.SetMapResources(ctx, "a", "m-2", secondary, []string{"r-5", "r-4"}) },
				assignmentState{
					maps:      map[string]lists{"m-1": {{"r-2"}, {"r-4"}}, "m-2": {{"r-1", "r-2"}, {"r-5", "r-4"}}, "m-3": {{"r-1"}}},
					resources: map[string]lists{"r-1": {{"m-2", "m-3"}}, "r-2": {{"m-2", "m-1"}}, "r-4": {nil, {"m-1", "m-2"}}, "r-5": {nil, {"m-2"}}}}},
			{"primary from the Map's side removes secondary",
				func() error { return s.SetMapResources(ctx, "a", "m-2", primary, []string{"r-1", "r-2", "r-4"}) },
				assignmentState{
					maps:      map[string]lists{"m-1": {{"r-2"}, {"r-4"}}, "m-2": {{"r-1", "r-2", "r-4"}, {"r-5"}}, "m-3": {{"r-1"}}},
					resources: map[string]lists{"r-1": {{"m-2", "m-3"}}, "r-2": {{"m-2", "m-1"}}, "r-4": {{"m-2"}, {"m-1"}}, "r-5": {nil, {"m-2"}}}}},
			{"empty lists remove every fact of their role only",
				func() error {
					if err := s.SetResourceMaps(ctx, "a", "r-2", primary, nil); err != nil {
						return err
					}
					if err := s.SetMapResources(ctx, "a", "m-3", secondary, []string{}); err != nil {
						return err
					}
					return s.SetMapResources(ctx, "a", "m-4", primary, nil)
				},
				assignmentState{
					maps:      map[string]lists{"m-1": {nil, {"r-4"}}, "m-2": {{"r-1", "r-4"}, {"r-5"}}, "m-3": {{"r-1"}}},
					resources: map[string]lists{"r-1": {{"m-2", "m-3"}}, "r-4": {{"m-2"}, {"m-1"}}, "r-5": {nil, {"m-2"}}}}},
			{"deleting a Map removes its assignments",
				func() error {
					put(t, s, "a", mapRecord("m-2"))
					return s.DeleteRecord(ctx, "a", cms.KindMap, "m-2")
				},
				assignmentState{
					maps:      map[string]lists{"m-1": {nil, {"r-4"}}, "m-3": {{"r-1"}}},
					resources: map[string]lists{"r-1": {{"m-3"}}, "r-4": {nil, {"m-1"}}}}},
			{"deleting a Resource removes its assignments",
				func() error {
					put(t, s, "a", resource("r-4"))
					return s.DeleteRecord(ctx, "a", cms.KindResource, "r-4")
				},
				assignmentState{
					maps:      map[string]lists{"m-3": {{"r-1"}}},
					resources: map[string]lists{"r-1": {{"m-3"}}}}},
		}
		for i, step := range steps {
			name := fmt.Sprintf("step %d (%s)", i+1, step.name)
			if err := step.do(); err != nil {
				t.Fatalf("%s: %v", name, err)
			}
			step.state.check(t, s, "a", name, mapIDs, resourceIDs)
		}
		// A new record under a deleted id has no assignments.
		put(t, s, "a", mapRecord("m-2"))
		wantAssignments(t, "Map m-2 put again", get(t, s, "a", cms.KindMap, "m-2").Record, nil, nil)
		// Account b's assignment was never touched.
		assignmentState{maps: map[string]lists{"m-1": {{"r-1"}}}, resources: map[string]lists{"r-1": {{"m-1"}}}}.
			check(t, s, "b", "account b", mapIDs, resourceIDs)
	})

	t.Run("ReadsFillLists", func(t *testing.T) {
		t.Parallel()
		s := open(t)
		ctx := t.Context()
		stale := cms.NullOf([]string{"x-9"}) // PutRecord ignores the lists it is given
		for _, id := range []string{"r-1", "r-2", "r-3", "r-4"} {
			r := resource(id)
			r.MapIDs, r.MapSecondaryIDs = stale, stale
			put(t, s, "a", r)
		}
		for _, id := range []string{"m-1", "m-2"} {
			m := mapRecord(id)
			m.ResourceIDs, m.SecondaryResourceIDs = stale, stale
			put(t, s, "a", m)
		}
		must(t, s.SetMapResources(ctx, "a", "m-1", primary, []string{"r-2", "r-1"}))
		must(t, s.SetMapResources(ctx, "a", "m-2", primary, []string{"r-1"}))
		must(t, s.SetResourceMaps(ctx, "a", "r-1", secondary, []string{"m-3"})) // m-3 is no record
		must(t, s.SetMapResources(ctx, "a", "m-1", secondary, []string{"r-3"}))
		must(t, s.SetResourceMaps(ctx, "a", "r-1", primary, []string{"m-2", "m-1"}))
		r1 := resource("r-1")
		r1.MapIDs, r1.MapSecondaryIDs = cms.NullOf([]string{}), cms.Nil[[]string]()
		put(t, s, "a", r1) // changes no assignment

		want := map[cms.Kind]map[string]lists{
			cms.KindResource: {"r-1": {{"m-2", "m-1"}, {"m-3"}}, "r-2": {{"m-1"}}, "r-3": {nil, {"m-1"}}, "r-4": {}},
			cms.KindMap:      {"m-1": {{"r-2", "r-1"}, {"r-3"}}, "m-2": {{"r-1"}}},
		}
		for kind, byID := range want {
			ids := slices.Sorted(maps.Keys(byID))
			for _, id := range ids {
				wantAssignments(t, "GetRecord "+id, get(t, s, "a", kind, id).Record, byID[id][0], byID[id][1])
			}
			reversed := slices.Clone(ids)
			slices.Reverse(reversed)
			entries, err := s.GetRecords(ctx, "a", kind, reversed)
			must(t, err)
			if got := idsOf(entries); !slices.Equal(got, reversed) {
				t.Fatalf("GetRecords(%v): %v", reversed, got)
			}
			for _, e := range entries {
				id := e.Record.RecordID()
				wantAssignments(t, "GetRecords "+id, e.Record, byID[id][0], byID[id][1])
			}
			n := 0
			for e, err := range s.ListRecords(ctx, cms.ListParams{Account: "a", Kind: kind}) {
				must(t, err)
				id := e.Record.RecordID()
				wantAssignments(t, "ListRecords "+id, e.Record, byID[id][0], byID[id][1])
				n++
			}
			if n != len(ids) {
				t.Errorf("ListRecords %s: %d records, want %d", kind, n, len(ids))
			}
		}
	})
}
