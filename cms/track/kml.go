package track

import (
	"encoding/xml"
	"fmt"
	"io"
	"strings"
	"time"
)

// ParseKML reads KML: every LineString (also inside MultiGeometry,
// gx:MultiTrack and nested Folders, Documents and Placemarks) and every
// gx:Track (its <when> and <gx:coord>, or KML 2.3's Track and coord), in
// document order, each one segment. Other geometry (Point, Polygon,
// LinearRing, Model) is not a track. Elements are matched by their local
// names, whatever their namespace.
//
// Altitudes: a line whose altitudes are all exactly 0 is taken as having
// none, since that is what drawing tools write for a line on the ground.
//
// The name is the first Document's or Folder's, else that of the first
// Placemark holding a line; the description likewise. Refusals are as for
// [ParseGPX].
func ParseKML(r io.Reader, lim Limits) (*Track, error) {
	lim = lim.withDefaults()
	f, err := newXMLFile(r, lim.MaxBytes, "KML")
	if err != nil {
		return nil, err
	}
	p := &kmlParser{f: f, lim: lim}
	if _, err := f.root("kml"); err != nil {
		return nil, err
	}
	if err := p.container(""); err != nil {
		return nil, err
	}
	if err := f.finish(); err != nil {
		return nil, err
	}
	t := &p.track
	t.Name = first(p.docName, p.placemarkName)
	t.Description = first(p.docDesc, p.placemarkDesc)
	if err := checkLines(t, "KML", "LineString or gx:Track"); err != nil {
		return nil, err
	}
	return t, nil
}

type kmlParser struct {
	f      *xmlFile
	lim    Limits
	track  Track
	points int

	docName, docDesc             string // of the first Document or Folder naming one
	placemarkName, placemarkDesc string // of the first Placemark with a line
}

// container reads the children of the element just started, named tag,
// looking for lines at any depth.
func (p *kmlParser) container(tag string) error {
	depth := p.f.depth()
	var name, desc string
	lines := len(p.track.Segments)
	for {
		tok, err := p.f.next()
		if err != nil {
			return p.f.unexpectedEnd(err)
		}
		switch tok.kind {
		case endToken:
			if p.f.depth() < depth {
				if tag == "Placemark" && len(p.track.Segments) > lines && p.placemarkName == "" && p.placemarkDesc == "" {
					p.placemarkName, p.placemarkDesc = name, desc
				}
				return nil
			}
		case startToken:
			if err := p.element(tok.start, tag, &name, &desc); err != nil {
				return err
			}
		}
	}
}

func (p *kmlParser) element(el xml.StartElement, parent string, name, desc *string) error {
	switch el.Name.Local {
	case "LineString":
		return p.lineString()
	case "Track":
		return p.gxTrack()
	case "name", "description":
		if parent != "Document" && parent != "Folder" && parent != "Placemark" {
			return p.f.skip()
		}
		s, err := p.f.text(maxRawText)
		if err != nil {
			return err
		}
		if el.Name.Local == "name" {
			*name = first(*name, plainText(s, maxName))
			if parent != "Placemark" && p.docName == "" {
				p.docName = *name
			}
		} else {
			*desc = first(*desc, plainText(s, maxDescription))
			if parent != "Placemark" && p.docDesc == "" {
				p.docDesc = *desc
			}
		}
		return nil
	case "Point", "Polygon", "LinearRing", "Model", "Style", "StyleMap", "ExtendedData", "Schema", "Region", "LookAt", "Camera":
		// No line inside; skipping is quicker than looking.
		return p.f.skip()
	}
	return p.container(el.Name.Local)
}

// lineString reads a LineString's <coordinates> into one segment.
func (p *kmlParser) lineString() error {
	var seg []Point
	err := p.f.children(func(el xml.StartElement) error {
		if el.Name.Local != "coordinates" {
			return p.f.skip()
		}
		text, err := p.f.text(int(p.lim.MaxBytes))
		if err != nil {
			return err
		}
		return kmlTuples(text, p.points+1, func(pt Point) error {
			if err := p.count(); err != nil {
				return err
			}
			seg = append(seg, pt)
			return nil
		})
	})
	p.add(seg)
	return err
}

// gxTrack reads a gx:Track: its <when>s and <gx:coord>s pair up in order.
// Without any <when> the points have no time; otherwise the counts must
// match.
func (p *kmlParser) gxTrack() error {
	var seg []Point
	var times []time.Time
	first := p.points + 1
	err := p.f.children(func(el xml.StartElement) error {
		switch el.Name.Local {
		case "coord":
			s, err := p.f.text(200)
			if err != nil {
				return err
			}
			if err := p.count(); err != nil {
				return err
			}
			pt, err := gxCoord(s, p.points)
			seg = append(seg, pt)
			return err
		case "when":
			s, err := p.f.text(100)
			if err != nil {
				return err
			}
			s = strings.TrimSpace(s)
			t, err := timestamp(s, first+len(times))
			times = append(times, t)
			return err
		}
		return p.f.skip()
	})
	if err != nil {
		return err
	}
	if len(times) > 0 {
		if len(times) != len(seg) {
			return formatError(fmt.Sprintf("a gx:Track has %d <when> and %d <gx:coord> (from point %d): they must pair up", len(times), len(seg), first))
		}
		for i := range seg {
			seg[i].Time = times[i]
		}
	}
	p.add(seg)
	return nil
}

// add keeps a non-empty segment, dropping altitudes that are all 0.
func (p *kmlParser) add(seg []Point) {
	if len(seg) == 0 {
		return
	}
	zero := true
	for _, pt := range seg {
		if !pt.HasEle || pt.Ele != 0 {
			zero = false
			break
		}
	}
	if zero {
		for i := range seg {
			seg[i].HasEle = false
		}
	}
	p.track.Segments = append(p.track.Segments, seg)
}

func (p *kmlParser) count() error {
	p.points++
	if p.points > p.lim.MaxPoints {
		return &tooLargeError{msg: fmt.Sprintf("the KML file has more than %d points", p.lim.MaxPoints)}
	}
	return nil
}
