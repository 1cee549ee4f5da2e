package cmstest

import (
	"fmt"
	"slices"
	"strings"
	"testing"

	"github.com/bwcms/cms/cms"
)

// testPoints checks PointRows: the located Resources of one account, in
// id order, over chunk boundaries, with each filter alone and together,
// through both of its ways (a rare term's candidates, the key's walk),
// and a document too large for a chunk.
func testPoints(t *testing.T, open func(t *testing.T) cms.Store) {
	t.Parallel()
	s := open(t)
	ctx := t.Context()
	of := cms.NullOf[float64]
	type want struct {
		published bool
		lat, lon  float64
		title     string
	}
	located := map[string]want{}
	var bulk []*cms.Entry
	// 1,203 located Resources of a common type (more than a chunk and
	// than a term's candidates), every third unpublished.
	for i := range 1203 {
		id := fmt.Sprintf("p-%04d", i)
		r := resource(id)
		r.Published = cms.Some(i%3 != 0)
		r.LocationLat, r.LocationLon = of(45+float64(i)/10000), of(9-float64(i)/10000)
		r.ResourceType = cms.Some("common")
		bulk = append(bulk, &cms.Entry{Account: "a", Record: r, Updated: t0, New: true})
		located[id] = want{i%3 != 0, 45 + float64(i)/10000, 9 - float64(i)/10000, "Resource " + id}
	}
	must(t, s.PutRecords(ctx, bulk))
	rare := resource("rare-1")
	rare.LocationLat, rare.LocationLon = of(-33.5), of(151.25)
	rare.ResourceType, rare.ResourceCategories = cms.Some("rare"), cms.NullOf([]string{"lakes", "hills"})
	rare.Title = cms.Langs[string]{"en": `Lake <img src=x onerror=alert(1)> "quoted"`, "it": "Lago"}
	put(t, s, "a", rare)
	located["rare-1"] = want{true, -33.5, 151.25, rare.Title["en"]}
	large := resource("large-1")
	large.LocationLat, large.LocationLon = of(0), of(0)
	long := cms.NullOf("<p>" + strings.Repeat("long text ", 1500) + "</p>")
	large.HTMLContent = cms.Langs[cms.Null[string]]{"en": long, "it": long, "de": long} // over 32 KiB
	put(t, s, "a", large)
	located["large-1"] = want{true, 0, 0, "Resource large-1"}
	// Not on the map: one coordinate or none.
	for i, loc := range [][2]cms.Null[float64]{{of(45), {}}, {{}, of(9)}, {}} {
		r := resource(fmt.Sprintf("off-%d", i))
		r.LocationLat, r.LocationLon = loc[0], loc[1]
		put(t, s, "a", r)
	}
	other := resource("p-0001")
	other.LocationLat, other.LocationLon = of(1), of(1)
	put(t, s, "b", other)
	put(t, s, "a", mapRecord("m-1"))
	must(t, s.SetMapResources(ctx, "a", "m-1", cms.RolePrimary, []string{"rare-1", "p-0005", "off-0", "p-0003"}))

	docs := cms.NewDocumentCodec()
	read := func(q cms.PointQuery) []string {
		t.Helper()
		var ids []string
		for row, err := range s.PointRows(ctx, q) {
			if err != nil {
				t.Fatalf("PointRows %+v: %v", q, err)
			}
			w, ok := located[row.ID]
			if !ok {
				t.Fatalf("PointRows %+v: %s is not a located Resource of the account", q, row.ID)
			}
			if row.Published != w.published || row.Lat != w.lat || row.Lon != w.lon {
				t.Errorf("%s: published %v at %v,%v; want %v at %v,%v", row.ID, row.Published, row.Lat, row.Lon, w.published, w.lat, w.lon)
			}
			rec := new(cms.Resource)
			if err := docs.DecodeDocument(row.Document, rec); err != nil || rec.Title["en"] != w.title {
				t.Errorf("%s: document %.80q: %v, title %q", row.ID, row.Document, err, rec.Title["en"])
			}
			ids = append(ids, row.ID)
		}
		if !slices.IsSorted(ids) {
			t.Errorf("PointRows %+v: not in id order", q)
		}
		return ids
	}
	all := slices.Sorted(func(yield func(string) bool) {
		for id := range located {
			if !yield(id) {
				return
			}
		}
	})
	keep := func(f func(id string, w want) bool) []string {
		var out []string
		for _, id := range all {
			if f(id, located[id]) {
				out = append(out, id)
			}
		}
		return out
	}
	search, err := cms.SearchTerms("lake")
	must(t, err)
	for _, c := range []struct {
		name string
		q    cms.PointQuery
		want []string
	}{
		{"all", cms.PointQuery{Account: "a", Published: cms.PublishedAny}, all},
		{"published", cms.PointQuery{Account: "a"}, keep(func(_ string, w want) bool { return w.published })},
		{"unpublished", cms.PointQuery{Account: "a", Published: cms.UnpublishedOnly}, keep(func(_ string, w want) bool { return !w.published })},
		{"map", cms.PointQuery{Account: "a", Published: cms.PublishedAny, MapID: "m-1"}, []string{"p-0003", "p-0005", "rare-1"}},
		{"map published", cms.PointQuery{Account: "a", MapID: "m-1"}, []string{"p-0005", "rare-1"}},
		{"rare type", cms.PointQuery{Account: "a", Published: cms.PublishedAny, Terms: []cms.TermRange{cms.TypeTerm("rare")}}, []string{"rare-1"}},
		{"category", cms.PointQuery{Account: "a", Published: cms.PublishedAny, Terms: []cms.TermRange{cms.CategoryTerm("hills")}}, []string{"rare-1"}},
		{"common type", cms.PointQuery{Account: "a", Published: cms.UnpublishedOnly, Terms: []cms.TermRange{cms.TypeTerm("common")}},
			keep(func(id string, w want) bool { return strings.HasPrefix(id, "p-") && !w.published })},
		{"search", cms.PointQuery{Account: "a", Published: cms.PublishedAny, Terms: search}, []string{"rare-1"}},
		{"type and map", cms.PointQuery{Account: "a", Published: cms.PublishedAny, MapID: "m-1", Terms: []cms.TermRange{cms.TypeTerm("common")}},
			[]string{"p-0003", "p-0005"}},
		{"no such type", cms.PointQuery{Account: "a", Published: cms.PublishedAny, Terms: []cms.TermRange{cms.TypeTerm("none")}}, nil},
		{"other account", cms.PointQuery{Account: "nobody", Published: cms.PublishedAny}, nil},
	} {
		if got := read(c.q); !slices.Equal(got, c.want) {
			t.Errorf("%s: %d points, want %d\n got %.300v\nwant %.300v", c.name, len(got), len(c.want), got, c.want)
		}
	}
	// The caller may stop early.
	n := 0
	for _, err := range s.PointRows(ctx, cms.PointQuery{Account: "a", Published: cms.PublishedAny}) {
		must(t, err)
		if n++; n == 3 {
			break
		}
	}
}
