package cmstest

import (
	"cmp"
	"reflect"
	"slices"
	"testing"

	"github.com/bwcms/cms/cms"
)

// wantReferrers checks Referrers(account, ReferenceTargets(kind), id):
// the references of want, in (kind, id, field) order. The order of the
// kinds is not fixed by the interface: each kind's references come
// together, ordered by id and field.
func wantReferrers(tb testing.TB, s cms.Store, account string, kind cms.Kind, id string, want []cms.Reference) {
	tb.Helper()
	got, err := s.Referrers(tb.Context(), account, cms.ReferenceTargets(kind), id)
	if err != nil {
		tb.Errorf("Referrers(%s, %s, %s): %v", account, kind, id, err)
		return
	}
	if !reflect.DeepEqual(sortedRefs(got), sortedRefs(want)) {
		tb.Errorf("Referrers(%s, %s, %s):\n got %+v\nwant %+v", account, kind, id, got, want)
		return
	}
	var done []cms.Kind
	for i, r := range got {
		if i > 0 && r.FromKind == got[i-1].FromKind {
			if prev := got[i-1]; cmp.Or(cmp.Compare(prev.FromID, r.FromID), cmp.Compare(prev.Field, r.Field)) > 0 {
				tb.Errorf("Referrers(%s, %s, %s): %+v before %+v, want (kind, id, field) order", account, kind, id, prev, r)
			}
			continue
		}
		if slices.Contains(done, r.FromKind) {
			tb.Errorf("Referrers(%s, %s, %s): the references of %s records are apart: %+v", account, kind, id, r.FromKind, got)
		}
		done = append(done, r.FromKind)
	}
}

func testReferences(t *testing.T, open func(t *testing.T) cms.Store) {
	t.Parallel()
	s := open(t)
	ctx := t.Context()
	ids := func(ids ...string) cms.Null[[]string] { return cms.NullOf(ids) }
	for _, id := range []string{"r-1", "r-2", "r-3"} {
		put(t, s, "a", resource(id))
	}
	r0 := resource("r-0")
	r0.POIResourceIDs = ids("r-1")
	r0.MapIDs, r0.MapSecondaryIDs = ids("m-1"), ids("m-2") // assignments: no references
	r0.MapIDsAdd = ids("m-2")                              // write-only: no reference
	put(t, s, "a", r0)
	m1 := mapRecord("m-1")
	m1.TrackResourceID = cms.NullOf("r-1")
	m1.POIResourceIDs = ids("r-1", "r-2", "r-1")
	m1.BrandedPOIIDs = ids("r-1")
	m1.TourMultiday = cms.Some([]cms.TourDay{{ResourceIDs: ids("r-1")}, {ResourceIDs: ids("r-1", "r-2")}})
	m1.ResourceIDs, m1.SecondaryResourceIDs = ids("r-3"), ids("r-3")
	m1.ResourceIDsAdd, m1.SecondaryResourceIDsAdd, m1.POIResourceIDsAdd = ids("r-3"), ids("r-3"), ids("r-3")
	put(t, s, "a", m1)
	m2 := mapRecord("m-2")
	m2.POIResourceIDs = ids("r-1")
	put(t, s, "a", m2)
	put(t, s, "a", &cms.Landing{ID: "l-1", MapID: cms.Some("m-1"),
		LandingBlocks: cms.Some([]cms.LandingBlock{{ResourceIDs: ids("m-1", "l-2")}, {ResourceIDs: ids("m-1")}}),
		LandingHotels: cms.Some([]cms.LandingHotel{{ResourceIDs: ids("r-1")}})})
	put(t, s, "a", &cms.Landing{ID: "l-3", MapID: cms.Some("")}) // "" names no Map
	put(t, s, "a", &cms.Proposal{ID: "p-1", MapID: cms.Some("m-1"), Hotels: cms.Some([]cms.Hotel{{ResourceIDs: ids("r-2")}})})
	put(t, s, "b", &cms.Landing{ID: "l-1", MapID: cms.Some("m-1")})

	const R, M, L, P = cms.KindResource, cms.KindMap, cms.KindLanding, cms.KindProposal
	ref := func(from cms.Kind, fromID, field, toKind, toID string, single bool) cms.Reference {
		return cms.Reference{FromKind: from, FromID: fromID, Field: field, ToKind: toKind, ToID: toID, Single: single}
	}
	wantReferrers(t, s, "a", R, "r-1", []cms.Reference{
		ref(R, "r-0", "poiResourceIds", "resource", "r-1", false),
		ref(M, "m-1", "brandedPoiIds", "resource", "r-1", false),
		ref(M, "m-1", "poiResourceIds", "resource", "r-1", false),
		ref(M, "m-1", "tourMultiday.resourceIds", "resource", "r-1", false),
		ref(M, "m-1", "trackResourceId", "resource", "r-1", true),
		ref(M, "m-2", "poiResourceIds", "resource", "r-1", false),
		ref(L, "l-1", "landingHotels.resourceIds", "resource", "r-1", false),
	})
	wantReferrers(t, s, "a", R, "r-2", []cms.Reference{
		ref(M, "m-1", "poiResourceIds", "resource", "r-2", false),
		ref(M, "m-1", "tourMultiday.resourceIds", "resource", "r-2", false),
		ref(P, "p-1", "hotels.resourceIds", "resource", "r-2", false),
	})
	wantReferrers(t, s, "a", M, "m-1", []cms.Reference{
		ref(L, "l-1", "landingBlocks.resourceIds", cms.RefMapOrLanding, "m-1", false),
		ref(L, "l-1", "mapId", "map", "m-1", true),
		ref(P, "p-1", "mapId", "map", "m-1", true),
	})
	wantReferrers(t, s, "a", L, "l-2", []cms.Reference{
		ref(L, "l-1", "landingBlocks.resourceIds", cms.RefMapOrLanding, "l-2", false),
	})
	wantReferrers(t, s, "a", R, "r-3", nil) // assignment and write-only lists only
	wantReferrers(t, s, "a", M, "m-2", nil) // r-0's assignment lists only
	wantReferrers(t, s, "a", R, "m-1", nil) // a Map id is no Resource
	wantReferrers(t, s, "a", P, "m-1", nil)
	wantReferrers(t, s, "a", M, "", nil)
	wantReferrers(t, s, "b", M, "m-1", []cms.Reference{ref(L, "l-1", "mapId", "map", "m-1", true)})
	wantReferrers(t, s, "b", R, "r-1", nil)
	// A store answers the targets asked, not the kinds it takes them for.
	for _, c := range []struct {
		targets []string
		want    []cms.Reference
	}{
		{[]string{cms.RefMapOrLanding}, []cms.Reference{ref(L, "l-1", "landingBlocks.resourceIds", cms.RefMapOrLanding, "m-1", false)}},
		{[]string{string(M)}, []cms.Reference{ref(L, "l-1", "mapId", "map", "m-1", true), ref(P, "p-1", "mapId", "map", "m-1", true)}},
		{nil, []cms.Reference{}},
	} {
		got, err := s.Referrers(t.Context(), "a", c.targets, "m-1")
		if err != nil || !reflect.DeepEqual(sortedRefs(got), sortedRefs(c.want)) {
			t.Errorf("Referrers(a, %v, m-1): %+v, %v; want %+v", c.targets, got, err, c.want)
		}
	}

	// Replacing the referring record replaces its references.
	m1.TrackResourceID = cms.Nil[string]()
	m1.POIResourceIDs = ids("r-2")
	m1.BrandedPOIIDs = cms.Null[[]string]{}
	m1.TourMultiday = cms.Some([]cms.TourDay{{ResourceIDs: ids("r-3")}})
	put(t, s, "a", m1)
	wantReferrers(t, s, "a", R, "r-1", []cms.Reference{
		ref(R, "r-0", "poiResourceIds", "resource", "r-1", false),
		ref(M, "m-2", "poiResourceIds", "resource", "r-1", false),
		ref(L, "l-1", "landingHotels.resourceIds", "resource", "r-1", false),
	})
	wantReferrers(t, s, "a", R, "r-2", []cms.Reference{
		ref(M, "m-1", "poiResourceIds", "resource", "r-2", false),
		ref(P, "p-1", "hotels.resourceIds", "resource", "r-2", false),
	})
	wantReferrers(t, s, "a", R, "r-3", []cms.Reference{
		ref(M, "m-1", "tourMultiday.resourceIds", "resource", "r-3", false),
	})

	// Deleting the referring record removes its references; deleting the
	// record referred to leaves the references others' documents make.
	must(t, s.DeleteRecord(ctx, "a", L, "l-1"))
	wantReferrers(t, s, "a", M, "m-1", []cms.Reference{ref(P, "p-1", "mapId", "map", "m-1", true)})
	wantReferrers(t, s, "a", L, "l-2", nil)
	wantReferrers(t, s, "a", R, "r-1", []cms.Reference{
		ref(R, "r-0", "poiResourceIds", "resource", "r-1", false),
		ref(M, "m-2", "poiResourceIds", "resource", "r-1", false),
	})
	must(t, s.DeleteRecord(ctx, "a", R, "r-2"))
	wantReferrers(t, s, "a", R, "r-2", []cms.Reference{
		ref(M, "m-1", "poiResourceIds", "resource", "r-2", false),
		ref(P, "p-1", "hotels.resourceIds", "resource", "r-2", false),
	})
	wantReferrers(t, s, "b", M, "m-1", []cms.Reference{ref(L, "l-1", "mapId", "map", "m-1", true)})
}
