package track

import (
	"math"
	"unicode/utf8"
)

// EarthRadius is the mean Earth radius (IUGG) in meters on which distances
// are measured.
const EarthRadius = 6_371_008.8

// Hysteresis is the elevation change, in meters, below which ascent and
// descent ignore a change (see the package documentation).
const Hysteresis = 5.0

// CircularWithin is the greatest distance, in meters, between start and end
// of a circular track.
const CircularWithin = 100.0

// elevatedShare is the share of points that must carry an elevation for a
// track to have one (see Summary.HasElevation).
const elevatedShare = 0.9

// Summary is the measurement of a track, computed once by Measure. Its JSON
// form is stable: it is stored and sent to clients.
type Summary struct {
	// Distance in meters: the great circle distance on a sphere of
	// EarthRadius between consecutive points of each segment, summed
	// (never across two segments).
	Distance float64 `json:"distance"`
	// Ascent and Descent in meters, elevation changes summed with a 5 m
	// hysteresis, within each segment; 0 when HasElevation is false.
	Ascent  float64 `json:"ascent"`
	Descent float64 `json:"descent"`
	// HasElevation: at least 90% of the points carry an elevation (a
	// device may miss a few, such as the first fix). Points without one
	// are skipped by Ascent and Descent.
	HasElevation bool `json:"hasElevation"`
	// Duration in minutes from the first point's time to the last's, only
	// when every point has a time and the last is not before the first;
	// null otherwise.
	Duration *float64 `json:"duration"`
	// Circular: the start and the end are within 100 m of each other.
	Circular bool `json:"circular"`
	// BBox is [minLon, minLat, maxLon, maxLat] of all points, in degrees
	// (a plain minimum and maximum: a track across the 180th meridian gets
	// a box round the world).
	BBox [4]float64 `json:"bbox"`
	// Start is the first point, End the last.
	Start Position `json:"start"`
	End   Position `json:"end"`
	// Points is the number of points read.
	Points int `json:"points"`
	// Name and Description are the file's own texts (Track.Name and
	// Description), plain text, cut to MaxName and MaxDescription
	// characters; empty when the file has none. Show them as text, never
	// as HTML.
	Name        string `json:"name,omitempty"`
	Description string `json:"description,omitempty"`
}

// The longest Summary.Name and Description kept, in characters.
const (
	MaxName        = 200
	MaxDescription = 2000
)

// Position is a point of a Summary: longitude and latitude in degrees, and
// the elevation in meters when the point has one (omitted from JSON
// otherwise).
type Position struct {
	Lon float64  `json:"lon"`
	Lat float64  `json:"lat"`
	Ele *float64 `json:"ele,omitempty"`
}

// Measure computes the summary of t. A track without points gives the zero
// Summary.
func Measure(t *Track) Summary {
	var s Summary
	var firstPt, lastPt *Point
	elevated, timed := 0, 0
	s.BBox = [4]float64{math.Inf(1), math.Inf(1), math.Inf(-1), math.Inf(-1)}
	for _, seg := range t.Segments {
		var climb hysteresis
		for i := range seg {
			p := &seg[i]
			if firstPt == nil {
				firstPt = p
			}
			lastPt = p
			s.Points++
			if i > 0 {
				s.Distance += distance(seg[i-1], *p)
			}
			if p.HasEle {
				elevated++
				climb.add(p.Ele)
			}
			if !p.Time.IsZero() {
				timed++
			}
			s.BBox[0] = math.Min(s.BBox[0], p.Lon)
			s.BBox[1] = math.Min(s.BBox[1], p.Lat)
			s.BBox[2] = math.Max(s.BBox[2], p.Lon)
			s.BBox[3] = math.Max(s.BBox[3], p.Lat)
		}
		s.Ascent += climb.ascent
		s.Descent += climb.descent
	}
	if s.Points == 0 {
		return Summary{}
	}
	s.HasElevation = float64(elevated) >= elevatedShare*float64(s.Points)
	if !s.HasElevation {
		s.Ascent, s.Descent = 0, 0
	}
	if timed == s.Points {
		if d := lastPt.Time.Sub(firstPt.Time); d >= 0 {
			minutes := d.Minutes()
			s.Duration = &minutes
		}
	}
	s.Circular = s.Points >= 2 && distance(*firstPt, *lastPt) <= CircularWithin
	s.Start = position(*firstPt)
	s.End = position(*lastPt)
	s.Name, s.Description = cutText(t.Name, MaxName), cutText(t.Description, MaxDescription)
	return s
}

// cutText cuts s to at most n characters.
func cutText(s string, n int) string {
	if utf8.RuneCountInString(s) <= n {
		return s
	}
	return string([]rune(s)[:n])
}

func position(p Point) Position {
	pos := Position{Lon: p.Lon, Lat: p.Lat}
	if p.HasEle {
		e := p.Ele
		pos.Ele = &e
	}
	return pos
}

// distance is the great circle distance between a and b in meters, by the
// haversine formula (exact on the sphere, and well conditioned for the
// short steps of a track).
func distance(a, b Point) float64 {
	const rad = math.Pi / 180
	lat1, lat2 := a.Lat*rad, b.Lat*rad
	sinLat := math.Sin((lat2 - lat1) / 2)
	sinLon := math.Sin((b.Lon - a.Lon) * rad / 2)
	h := sinLat*sinLat + math.Cos(lat1)*math.Cos(lat2)*sinLon*sinLon
	return 2 * EarthRadius * math.Asin(math.Sqrt(math.Min(1, h)))
}

// hysteresis sums the climbs and drops of an elevation profile, ignoring
// changes smaller than Hysteresis: it keeps a reference elevation (the
// first); an elevation at least Hysteresis above it adds the difference to
// the ascent and becomes the reference, one at least Hysteresis below adds
// to the descent likewise, and anything between changes nothing.
type hysteresis struct {
	ref             float64
	started         bool
	ascent, descent float64
}

func (h *hysteresis) add(ele float64) {
	switch {
	case !h.started:
		h.ref, h.started = ele, true
	case ele >= h.ref+Hysteresis:
		h.ascent += ele - h.ref
		h.ref = ele
	case ele <= h.ref-Hysteresis:
		h.descent += h.ref - ele
		h.ref = ele
	}
}
