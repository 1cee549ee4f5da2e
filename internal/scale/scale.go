// Package scale is the data set of the scale measurements (transport's
// BenchmarkScale and loadgen's scale scenario): Resources of the typical
// shape (the full example Resource in one language, about 2.9 KB) on 20
// Maps, each Resource assigned to two of them, and 1,000 Landings and
// 1,000 Proposals (by default) pointing at the Maps. The Resources lie on a grid over
// one square degree, so a box of 10 x 10 cells holds 100 of them whatever
// their number: the box shrinks as the data grows, as a map view over a
// denser region does.
package scale

import (
	"fmt"
	"math"
	"strings"

	"github.com/bwcms/cms/cms"
)

const (
	// Maps is the number of Maps the Resources are assigned to.
	Maps = 20
	// Others is how many Landings, and how many Proposals, a set holds
	// unless told otherwise.
	Others = 1000
	// Touched is how many Resources (the last ones) a touch revises, so
	// that an updatedSince window from the touch holds that many.
	Touched = 100
	// BoxCells is the side of a box in grid cells: BoxCells² Resources.
	BoxCells = 10
	// Named is how many Resources (the first ones) the Landings' and
	// Proposals' hotels name: the Resources after them are named by their
	// successor alone, so deleting one costs the same at any size.
	Named = 400
	// secondaryOffset separates a Resource's SECONDARY Map from its PRIMARY
	// one, so each Map holds Resources/10 in its two lists.
	secondaryOffset = 7
)

// Set builds the bodies of one data set; it is not safe for concurrent use.
type Set struct {
	prefix    string
	resources int
	others    int
	cols      int     // grid columns (and rows, the last one partial)
	cell      float64 // a grid cell's side in degrees
	codec     *cms.Codec
	res       *cms.Resource
	landing   *cms.Landing
	proposal  *cms.Proposal
}

// New describes a set of resources Resources and others Landings and
// Proposals (each) whose ids start with prefix (which may be empty),
// written in the default language lang only.
func New(prefix string, resources, others int, lang string) (*Set, error) {
	if resources < Named {
		return nil, fmt.Errorf("scale: %d Resources: want at least %d", resources, Named)
	}
	if others < 1 {
		return nil, fmt.Errorf("scale: %d Landings and Proposals: want at least 1", others)
	}
	langs, err := cms.NewLanguages(lang, lang)
	if err != nil {
		return nil, err
	}
	codec, err := cms.NewCodec(langs)
	if err != nil {
		return nil, err
	}
	cols := int(math.Ceil(math.Sqrt(float64(resources))))
	s := &Set{prefix: prefix, resources: resources, others: others, cols: cols, cell: 1 / float64(cols), codec: codec,
		res:      cms.SampleRecord(cms.KindResource, langs).(*cms.Resource),
		landing:  cms.SampleRecord(cms.KindLanding, langs).(*cms.Landing),
		proposal: cms.SampleRecord(cms.KindProposal, langs).(*cms.Proposal)}
	return s, nil
}

// Resources is the number of Resources of the set; Others the number of
// Landings, and of Proposals.
func (s *Set) Resources() int { return s.resources }
func (s *Set) Others() int    { return s.others }

// MapID, ResourceID, LandingID and ProposalID are the ids of the set's
// records; NewID is the id of the k-th Resource created beside them.
func (s *Set) MapID(k int) string      { return fmt.Sprintf("%sm%02d", s.prefix, k%Maps) }
func (s *Set) ResourceID(i int) string { return fmt.Sprintf("%sr%06d", s.prefix, i) }
func (s *Set) LandingID(i int) string  { return fmt.Sprintf("%sl%04d", s.prefix, i) }
func (s *Set) ProposalID(i int) string { return fmt.Sprintf("%sp%04d", s.prefix, i) }
func (s *Set) NewID(tag string, k int) string {
	return fmt.Sprintf("%sn%s-%07d", s.prefix, tag, k)
}

// PrimaryMap and SecondaryMap are the Maps Resource i is assigned to.
func (s *Set) PrimaryMap(i int) int   { return i % Maps }
func (s *Set) SecondaryMap(i int) int { return (i + secondaryOffset) % Maps }

// AppendMaps appends the JSON array of the Maps to dst.
func (s *Set) AppendMaps(dst []byte) []byte {
	dst = append(dst, '[')
	for k := range Maps {
		if k > 0 {
			dst = append(dst, ',')
		}
		dst = fmt.Appendf(dst, `{"id":%q,"title":"Scale map %d","published":true,"urlAlias":"/%s"}`,
			s.MapID(k), k, s.MapID(k))
	}
	return append(dst, ']')
}

// AppendResources appends a JSON array of the Resources from to from+n-1.
func (s *Set) AppendResources(dst []byte, from, n int) []byte {
	dst = append(dst, '[')
	for i := from; i < from+n; i++ {
		if i > from {
			dst = append(dst, ',')
		}
		dst = s.AppendResource(dst, i)
	}
	return append(dst, ']')
}

// AppendResource appends Resource i: the example with its own id, title,
// alias and grid location, PRIMARY on one Map and SECONDARY on another,
// naming the Resource before it as its POI.
func (s *Set) AppendResource(dst []byte, i int) []byte {
	lat, lon := s.location(i)
	var poi []string
	if i > 0 {
		poi = []string{s.ResourceID(i - 1)}
	}
	return s.appendResource(dst, s.ResourceID(i), i, lat, lon, poi)
}

// AppendNew appends a Resource of the set's shape with id, off the grid
// (south of it, so no box of the grid holds it), on the Maps of Resource
// i, naming Resource i as its POI.
func (s *Set) AppendNew(dst []byte, id string, i int) []byte {
	return s.appendResource(dst, id, i, 44.5, 9.5, []string{s.ResourceID(i)})
}

func (s *Set) appendResource(dst []byte, id string, i int, lat, lon float64, poi []string) []byte {
	r := s.res
	lang := s.codec.Languages().Default
	r.ID = id
	r.Title[lang] = "Scale resource " + id
	r.URLAlias[lang] = "/" + id
	r.LocationLat, r.LocationLon = cms.NullOf(lat), cms.NullOf(lon)
	r.MapIDs = cms.NullOf([]string{s.MapID(s.PrimaryMap(i))})
	r.MapSecondaryIDs = cms.NullOf([]string{s.MapID(s.SecondaryMap(i))})
	r.POIResourceIDs = cms.NullOf(poi)
	return s.codec.AppendPatch(dst, r)
}

// AppendTouch appends a JSON array that revises the title of the last
// Touched Resources; tag makes the titles differ from a touch before.
func (s *Set) AppendTouch(dst []byte, tag string) []byte {
	dst = append(dst, '[')
	for i := s.resources - Touched; i < s.resources; i++ {
		if i > s.resources-Touched {
			dst = append(dst, ',')
		}
		dst = fmt.Appendf(dst, `{"id":%q,"title":"Scale resource %s, revised %s"}`, s.ResourceID(i), s.ResourceID(i), tag)
	}
	return append(dst, ']')
}

// Touchable says whether Resource i is one a touch revises.
func (s *Set) Touchable(i int) bool { return i >= s.resources-Touched }

// AppendLandings appends a JSON array of the Landings from to from+n-1,
// each showing one Map and naming two of the first Named Resources in its
// hotels.
func (s *Set) AppendLandings(dst []byte, from, n int) []byte {
	lang := s.codec.Languages().Default
	dst = append(dst, '[')
	for i := from; i < from+n; i++ {
		if i > from {
			dst = append(dst, ',')
		}
		l := s.landing
		l.ID = s.LandingID(i)
		l.Title[lang] = "Scale landing " + l.ID
		l.URLAlias[lang] = "/" + l.ID
		l.MapID = cms.Some(s.MapID(i))
		for b := range l.LandingBlocks.Value {
			l.LandingBlocks.Value[b].ResourceIDs = cms.NullOf([]string{s.MapID(i + b)})
		}
		for h := range l.LandingHotels.Value {
			l.LandingHotels.Value[h].ResourceIDs = cms.NullOf([]string{s.ResourceID((i + h) % Named)})
		}
		dst = s.codec.AppendPatch(dst, l)
	}
	return append(dst, ']')
}

// AppendProposals appends a JSON array of the Proposals from to from+n-1,
// each showing one Map and naming two of the first Named Resources in its
// hotels.
func (s *Set) AppendProposals(dst []byte, from, n int) []byte {
	lang := s.codec.Languages().Default
	dst = append(dst, '[')
	for i := from; i < from+n; i++ {
		if i > from {
			dst = append(dst, ',')
		}
		p := s.proposal
		p.ID = s.ProposalID(i)
		p.Title[lang] = "Scale proposal " + p.ID
		p.URLAlias[lang] = "/" + p.ID
		p.MapID = cms.Some(s.MapID(i))
		for h := range p.Hotels.Value {
			p.Hotels.Value[h].ResourceIDs = cms.NullOf([]string{s.ResourceID((i + h) % Named)})
		}
		dst = s.codec.AppendPatch(dst, p)
	}
	return append(dst, ']')
}

// location is the centre of Resource i's grid cell: rows of cols cells
// from (45, 9) north and east.
func (s *Set) location(i int) (lat, lon float64) {
	row, col := i/s.cols, i%s.cols
	return 45 + (float64(row)+0.5)*s.cell, 9 + (float64(col)+0.5)*s.cell
}

// Boxes is the number of distinct boxes Box answers.
func (s *Set) Boxes() int {
	return (s.resources/s.cols - BoxCells + 1) * (s.cols - BoxCells + 1)
}

// Box is the k-th box (modulo Boxes) of BoxCells x BoxCells cells inside
// the full rows of the grid, as the bbox option's value
// minLon,minLat,maxLon,maxLat: its edges lie between cells, so it holds
// BoxCells² Resources of the set.
func (s *Set) Box(k int) string {
	across := s.cols - BoxCells + 1
	k %= s.Boxes()
	row, col := k/across, k%across
	minLat, minLon := 45+float64(row)*s.cell, 9+float64(col)*s.cell
	side := BoxCells * s.cell
	// A quarter cell inside each edge: a grid point never falls on one.
	q := s.cell / 4
	return fmt.Sprintf("%.7f,%.7f,%.7f,%.7f", minLon+q, minLat+q, minLon+side-q, minLat+side-q)
}

// IDs joins ids for a path.
func IDs(ids []string) string { return strings.Join(ids, ",") }
