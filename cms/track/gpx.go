package track

import (
	"bytes"
	"encoding/xml"
	"fmt"
	"io"
	"strings"
)

// ParseGPX reads GPX 1.0 or 1.1: every <trk> and its <trkseg>s in order
// (and, only when its tracks hold no point at all, its <rte> routes'
// <rtept>s, one segment per route). Waypoints (<wpt>) are not track points.
// Elements are matched by their local names, so the namespace (1.0, 1.1 or
// none) does not matter, and extensions are skipped.
//
// The file must hold at least one segment of two points or more. A refused
// file is a *FormatError that says what was wrong, or an error for which
// errors.Is(err, ErrTooLarge) holds; any other error is the reader's.
func ParseGPX(r io.Reader, lim Limits) (*Track, error) {
	lim = lim.withDefaults()
	f, err := newXMLFile(r, lim.MaxBytes, "GPX")
	if err != nil {
		return nil, err
	}
	p := &gpxParser{f: f, lim: lim}
	if _, err := f.root("gpx"); err != nil {
		return nil, err
	}
	if err := p.gpx(); err != nil {
		return nil, err
	}
	if err := f.finish(); err != nil {
		return nil, err
	}
	t := &p.track
	if len(p.track.Segments) == 0 {
		t.Segments = p.routes
		if t.Name == "" {
			t.Name = p.routeName
		}
		if t.Description == "" {
			t.Description = p.routeDesc
		}
	}
	if err := checkLines(t, "GPX", "track points"); err != nil {
		return nil, err
	}
	return t, nil
}

type gpxParser struct {
	f      *xmlFile
	lim    Limits
	track  Track
	points int // points read so far, tracks and routes

	routes               [][]Point
	routeName, routeDesc string
}

// gpx reads the root's children.
func (p *gpxParser) gpx() error {
	return p.f.children(func(el xml.StartElement) error {
		switch el.Name.Local {
		case "metadata": // GPX 1.1
			return p.f.children(func(el xml.StartElement) error {
				return p.texts(el, &p.track.Name, &p.track.Description)
			})
		case "name", "desc": // GPX 1.0 keeps them on the root
			return p.texts(el, &p.track.Name, &p.track.Description)
		case "trk":
			var name, desc string
			err := p.f.children(func(el xml.StartElement) error {
				if el.Name.Local == "trkseg" {
					seg, err := p.segment("trkpt")
					if len(seg) > 0 {
						p.track.Segments = append(p.track.Segments, seg)
					}
					return err
				}
				return p.texts(el, &name, &desc)
			})
			p.track.Name = first(p.track.Name, name)
			p.track.Description = first(p.track.Description, desc)
			return err
		case "rte":
			var name, desc string
			var seg []Point
			err := p.f.children(func(el xml.StartElement) error {
				if el.Name.Local == "rtept" {
					pt, err := p.point(el)
					seg = append(seg, pt)
					return err
				}
				return p.texts(el, &name, &desc)
			})
			if len(seg) > 0 {
				p.routes = append(p.routes, seg)
			}
			p.routeName = first(p.routeName, name)
			p.routeDesc = first(p.routeDesc, desc)
			return err
		}
		return p.f.skip()
	})
}

// texts reads a <name> or <desc> into the first empty of name and desc,
// and skips any other element.
func (p *gpxParser) texts(el xml.StartElement, name, desc *string) error {
	var dst *string
	max := maxName
	switch el.Name.Local {
	case "name":
		dst = name
	case "desc":
		dst, max = desc, maxDescription
	default:
		return p.f.skip()
	}
	s, err := p.f.text(maxRawText)
	if err != nil {
		return err
	}
	if *dst == "" {
		*dst = plainText(s, max)
	}
	return nil
}

// segment reads a segment's children named tag.
func (p *gpxParser) segment(tag string) ([]Point, error) {
	var seg []Point
	err := p.f.children(func(el xml.StartElement) error {
		if el.Name.Local != tag {
			return p.f.skip()
		}
		pt, err := p.point(el)
		if err != nil {
			return err
		}
		seg = append(seg, pt)
		return nil
	})
	return seg, err
}

// point reads a trkpt or rtept: lat and lon attributes, optional <ele>
// and <time> children.
func (p *gpxParser) point(el xml.StartElement) (Point, error) {
	p.points++
	n := p.points
	if n > p.lim.MaxPoints {
		return Point{}, &tooLargeError{msg: fmt.Sprintf("the GPX file has more than %d points", p.lim.MaxPoints)}
	}
	var lat, lon string
	var hasLat, hasLon bool
	for _, a := range el.Attr {
		switch a.Name.Local {
		case "lat":
			lat, hasLat = strings.TrimSpace(a.Value), true
		case "lon":
			lon, hasLon = strings.TrimSpace(a.Value), true
		}
	}
	if !hasLat || !hasLon {
		return Point{}, formatError(fmt.Sprintf("point %d has no lat or lon attribute", n))
	}
	var pt Point
	var err error
	if pt.Lat, pt.Lon, err = latLon(lat, lon, n); err != nil {
		return Point{}, err
	}
	err = p.f.children(func(el xml.StartElement) error {
		switch el.Name.Local {
		case "ele", "time":
		default:
			return p.f.skip()
		}
		b, err := p.f.textBytes(100)
		if err != nil {
			return err
		}
		if b = bytes.TrimSpace(b); len(b) == 0 {
			return nil // an empty element is a missing value
		}
		// string(b) does not escape here, so short values are not copied
		// to the heap.
		if el.Name.Local == "ele" {
			pt.Ele, err = elevation(string(b), n)
			pt.HasEle = err == nil
		} else {
			pt.Time, err = timestamp(string(b), n)
		}
		return err
	})
	return pt, err
}

// checkLines refuses a track without a line to measure: no points, or no
// segment of two.
func checkLines(t *Track, kind, what string) error {
	if t.Points() == 0 {
		return &FormatError{Msg: fmt.Sprintf("the %s file has no %s", kind, what), noLine: true}
	}
	for _, s := range t.Segments {
		if len(s) >= 2 {
			return nil
		}
	}
	return &FormatError{Msg: fmt.Sprintf("the %s file has no line of two points or more", kind), noLine: true}
}

func first(a, b string) string {
	if a != "" {
		return a
	}
	return b
}
