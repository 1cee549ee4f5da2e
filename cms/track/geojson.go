package track

import (
	"encoding/json"
	"io"
	"math"
	"strconv"
)

// GeoJSON writes the track as one GeoJSON Feature (RFC 7946):
//
//	{"type":"Feature",
//	 "bbox":[minLon,minLat,maxLon,maxLat],
//	 "geometry":{"type":"LineString","coordinates":[[lon,lat,ele],...]},
//	 "properties":{"name":"...","distance":...,"ascent":...,"descent":...,
//	   "hasElevation":true,"duration":...,"circular":false,"bbox":[...],
//	   "start":{"lon":...,"lat":...,"ele":...},"end":{...},"points":...,
//	   "simplifiedPoints":...}}
//
// The geometry is the line of [Simplify] at its default of at most 5,000
// points: a LineString for one segment, a MultiLineString (one line per
// segment) for several. Positions are [lon, lat] in degrees rounded to 6
// decimals (about 0.1 m), with the elevation in meters rounded to 0.1 as a
// third number when s.HasElevation; a point without one in such a track
// gets it interpolated between its neighbours along the line. The
// properties are s in its JSON form (as [Summary] documents it) rounded
// like the positions (meters to 0.1, minutes to 0.01), the track's name when
// it has one, and simplifiedPoints, the number of positions written.
func GeoJSON(w io.Writer, t *Track, s Summary) error {
	lines := Simplify(t, MaxSimplified)
	n := 0
	for _, l := range lines {
		n += len(l)
	}
	props, err := json.Marshal(struct {
		Name string `json:"name,omitempty"`
		Summary
		SimplifiedPoints int `json:"simplifiedPoints"`
	}{t.Name, rounded(s), n})
	if err != nil {
		return err
	}
	var eles []float64
	if s.HasElevation {
		eles = fillElevations(lines, n)
	}

	b := make([]byte, 0, 64+n*36+len(props))
	b = append(b, `{"type":"Feature","bbox":[`...)
	for i, v := range s.BBox {
		if i > 0 {
			b = append(b, ',')
		}
		b = appendRounded(b, v, 1e6)
	}
	b = append(b, `],"geometry":{"type":`...)
	if len(lines) == 1 {
		b = append(b, `"LineString","coordinates":`...)
	} else {
		b = append(b, `"MultiLineString","coordinates":[`...)
	}
	k := 0
	for i, l := range lines {
		if i > 0 {
			b = append(b, ',')
		}
		b = append(b, '[')
		for j, p := range l {
			if j > 0 {
				b = append(b, ',')
			}
			b = append(b, '[')
			b = appendRounded(b, p.Lon, 1e6)
			b = append(b, ',')
			b = appendRounded(b, p.Lat, 1e6)
			if eles != nil {
				b = append(b, ',')
				b = appendRounded(b, eles[k], 10)
			}
			b = append(b, ']')
			k++
		}
		b = append(b, ']')
	}
	if len(lines) != 1 {
		b = append(b, ']')
	}
	b = append(b, `},"properties":`...)
	b = append(b, props...)
	b = append(b, "}\n"...)
	_, err = w.Write(b)
	return err
}

// rounded is s as GeoJSON shows it: meters to 0.1, minutes to 0.01,
// degrees to 6 decimals.
func rounded(s Summary) Summary {
	r := func(v, scale float64) float64 { return math.Round(v*scale) / scale }
	s.Distance, s.Ascent, s.Descent = r(s.Distance, 10), r(s.Ascent, 10), r(s.Descent, 10)
	if s.Duration != nil {
		d := r(*s.Duration, 100)
		s.Duration = &d
	}
	for i := range s.BBox {
		s.BBox[i] = r(s.BBox[i], 1e6)
	}
	for _, p := range []*Position{&s.Start, &s.End} {
		p.Lon, p.Lat = r(p.Lon, 1e6), r(p.Lat, 1e6)
		if p.Ele != nil {
			e := r(*p.Ele, 10)
			p.Ele = &e
		}
	}
	return s
}

// fillElevations lists the elevations of the lines' points in order,
// interpolating (by position in the list) those a point lacks between the
// nearest known ones, and taking the nearest known one at either end.
func fillElevations(lines [][]Point, n int) []float64 {
	eles := make([]float64, 0, n)
	known := make([]bool, 0, n)
	for _, l := range lines {
		for _, p := range l {
			eles = append(eles, p.Ele)
			known = append(known, p.HasEle)
		}
	}
	prev := -1
	for i := range eles {
		if !known[i] {
			continue
		}
		switch {
		case prev < 0:
			for j := 0; j < i; j++ {
				eles[j] = eles[i]
			}
		case i-prev > 1:
			for j := prev + 1; j < i; j++ {
				f := float64(j-prev) / float64(i-prev)
				eles[j] = eles[prev] + f*(eles[i]-eles[prev])
			}
		}
		prev = i
	}
	if prev >= 0 {
		for j := prev + 1; j < len(eles); j++ {
			eles[j] = eles[prev]
		}
	}
	return eles
}

// appendRounded appends v rounded to 1/scale, in the shortest form.
func appendRounded(b []byte, v, scale float64) []byte {
	r := math.Round(v*scale) / scale
	if r == 0 {
		r = 0 // no "-0"
	}
	return strconv.AppendFloat(b, r, 'f', -1, 64)
}
