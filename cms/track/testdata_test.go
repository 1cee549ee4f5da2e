package track

import (
	"bytes"
	"flag"
	"fmt"
	"math"
	"math/rand/v2"
	"os"
	"path/filepath"
	"strconv"
	"testing"
	"time"
)

// go test ./cms/track -update rewrites testdata/ (the sample files and,
// with gpsbabel on PATH, reference.json).
var update = flag.Bool("update", false, "rewrite testdata/ and its gpsbabel reference figures")

// sample is a generated test file and what its generator knows about it.
type sample struct {
	name string
	data []byte
	// The noise-free elevation profile's ascent and descent, summed over
	// segments; what Measure should find within a few meters.
	ascent, descent float64
	points          int
	segments        int
}

// samples makes the test files; the same bytes every run.
func samples() []sample {
	return []sample{hikeGPX(2600), rideGPX(1500), lineKML(2000), multiKML(900), gxTrackKML(1400)}
}

// TestTestdataCurrent proves the committed files are what the generator
// makes (go test -update rewrites them).
func TestTestdataCurrent(t *testing.T) {
	for _, s := range samples() {
		path := filepath.Join("testdata", s.name)
		if *update {
			if err := os.WriteFile(path, s.data, 0o644); err != nil {
				t.Fatal(err)
			}
			continue
		}
		got, err := os.ReadFile(path)
		if err != nil {
			t.Fatalf("%v (run go test -update)", err)
		}
		if !bytes.Equal(got, s.data) {
			t.Errorf("%s differs from what the generator makes (run go test -update)", path)
		}
		if len(got) > 300<<10 {
			t.Errorf("%s is %d bytes; keep test files under 300 KB", path, len(got))
		}
	}
}

// walker makes a plausible GPS path: steps of varying length with a heading
// that drifts, plus receiver noise of about a meter.
type walker struct {
	rnd      *rand.Rand
	lat, lon float64
	heading  float64 // radians from north
}

func (w *walker) step(meters float64) {
	w.heading += w.rnd.NormFloat64() * 0.15
	dn := meters * math.Cos(w.heading)
	de := meters * math.Sin(w.heading)
	w.lat += dn / 111_195
	w.lon += de / (111_195 * math.Cos(w.lat*math.Pi/180))
}

// noisy returns the position with receiver noise.
func (w *walker) noisy() (lat, lon float64) {
	return w.lat + w.rnd.NormFloat64()*1/111_195, w.lon + w.rnd.NormFloat64()*1/(111_195*math.Cos(w.lat*math.Pi/180))
}

// profile sums the rises and drops of a noise-free elevation sequence.
type profile struct {
	last            float64
	started         bool
	ascent, descent float64
}

func (p *profile) add(e float64) {
	if p.started {
		if e > p.last {
			p.ascent += e - p.last
		} else {
			p.descent += p.last - e
		}
	}
	p.last, p.started = e, true
}

func f6(v float64) string { return strconv.FormatFloat(v, 'f', 6, 64) }
func f1(v float64) string { return strconv.FormatFloat(v, 'f', 1, 64) }

// start is when the generated recordings begin.
func startTime() time.Time { return time.Date(2024, 6, 1, 7, 30, 0, 0, time.UTC) }

// hikeGPX: GPX 1.1, a loop of about 20 km in n points with elevation
// (a 450 m climb with rolling ground) and a time on every point, a few
// extensions and a waypoint.
func hikeGPX(n int) sample {
	rnd := rand.New(rand.NewPCG(1, 2))
	var b bytes.Buffer
	b.WriteString(`<?xml version="1.0" encoding="UTF-8"?>
<gpx version="1.1" creator="track generator" xmlns="http://www.topografix.com/GPX/1/1" xmlns:gpxtpx="http://www.garmin.com/xmlschemas/TrackPointExtension/v1">
  <metadata>
    <name>Round of the Alpe &amp; lakes</name>
    <desc>&lt;p&gt;A loop past &lt;b&gt;three lakes&lt;/b&gt;.&lt;/p&gt;</desc>
    <time>2024-06-01T07:30:00Z</time>
  </metadata>
  <wpt lat="46.1" lon="7.6"><ele>2000</ele><name>Hut</name></wpt>
  <trk>
    <name>Loop</name>
    <trkseg>
`)
	var prof profile
	tm := startTime()
	for i := 0; i < n; i++ {
		th := 2 * math.Pi * float64(i) / float64(n-1)
		r := 2200 * (1 + 0.25*math.Sin(3*th) + 0.08*math.Sin(11*th+1))
		north := r*math.Sin(th) + rnd.NormFloat64()*1.2
		east := r*(1-math.Cos(th)) + rnd.NormFloat64()*1.2
		lat := 46.0 + north/111_195
		lon := 7.5 + east/(111_195*math.Cos(46*math.Pi/180))
		ele := 1200 + 225*(1-math.Cos(th)) + 40*math.Sin(6*th)
		prof.add(ele)
		ele += rnd.Float64()*4 - 2 // barometer noise, +-2 m
		fmt.Fprintf(&b, `      <trkpt lat="%s" lon="%s"><ele>%s</ele><time>%s</time>`, f6(lat), f6(lon), f1(ele), tm.Format(time.RFC3339))
		if i%50 == 0 {
			fmt.Fprintf(&b, `<extensions><gpxtpx:TrackPointExtension><gpxtpx:hr>%d</gpxtpx:hr><gpxtpx:ele>9999</gpxtpx:ele></gpxtpx:TrackPointExtension></extensions>`, 100+rnd.IntN(60))
		}
		b.WriteString("</trkpt>\n")
		tm = tm.Add(time.Duration(4+rnd.IntN(5)) * time.Second)
	}
	b.WriteString("    </trkseg>\n  </trk>\n</gpx>\n")
	return sample{name: "hike.gpx", data: b.Bytes(), ascent: prof.ascent, descent: prof.descent, points: n, segments: 1}
}

// rideGPX: GPX 1.0, n points in two tracks, the first in two segments
// with a 2 km gap between them (the receiver off), times and elevations,
// course and speed.
func rideGPX(n int) sample {
	rnd := rand.New(rand.NewPCG(3, 4))
	w := &walker{rnd: rnd, lat: 45.4, lon: 11.9, heading: 0.7}
	var b bytes.Buffer
	b.WriteString(`<?xml version="1.0" encoding="UTF-8" standalone="yes"?>
<gpx version="1.0" creator="track generator" xmlns:xsi="http://www.w3.org/2001/XMLSchema-instance" xmlns="http://www.topografix.com/GPX/1/0" xsi:schemaLocation="http://www.topografix.com/GPX/1/0 http://www.topografix.com/GPX/1/0/gpx.xsd">
<name>Morning ride</name>
<desc>Along the river</desc>
<time>2024-06-01T07:30:00Z</time>
<bounds minlat="45.0" minlon="11.0" maxlat="46.0" maxlon="13.0"/>
`)
	var prof profile
	tm := startTime()
	ele, points := 30.0, 0
	seg := func(n int) {
		b.WriteString("<trkseg>\n")
		var p profile
		for i := 0; i < n; i++ {
			w.step(12 + rnd.Float64()*6)
			ele += math.Sin(float64(points)/60) * 0.8
			p.add(ele)
			lat, lon := w.noisy()
			fmt.Fprintf(&b, "<trkpt lat=\"%s\" lon=\"%s\">\n  <ele>%s</ele>\n  <time>%s</time>\n  <course>%.1f</course>\n  <speed>%.2f</speed>\n</trkpt>\n",
				f6(lat), f6(lon), f1(ele+rnd.Float64()*3-1.5), tm.Format(time.RFC3339), math.Mod(w.heading*180/math.Pi+720, 360), 4+rnd.Float64())
			tm = tm.Add(3 * time.Second)
			points++
		}
		prof.ascent += p.ascent
		prof.descent += p.descent
		b.WriteString("</trkseg>\n")
	}
	b.WriteString("<trk>\n<name>Out</name>\n<number>1</number>\n")
	seg(n * 6 / 15)
	for i := 0; i < 130; i++ { // the receiver off for 2 km
		w.step(15)
		tm = tm.Add(3 * time.Second)
	}
	seg(n * 4 / 15)
	b.WriteString("</trk>\n<trk>\n<name>Back</name>\n")
	w.heading += math.Pi
	seg(n - n*6/15 - n*4/15)
	b.WriteString("</trk>\n</gpx>\n")
	return sample{name: "ride.gpx", data: b.Bytes(), ascent: prof.ascent, descent: prof.descent, points: n, segments: 3}
}

// lineKML: n points in a KML LineString (lon,lat,alt tuples on lines and runs of
// spaces) in a Document with an HTML description, after a Point placemark
// that is not part of the track.
func lineKML(n int) sample {
	rnd := rand.New(rand.NewPCG(5, 6))
	w := &walker{rnd: rnd, lat: 44.1, lon: 9.7, heading: 2}
	var b bytes.Buffer
	b.WriteString(`<?xml version="1.0" encoding="UTF-8"?>
<kml xmlns="http://www.opengis.net/kml/2.2">
<Document>
  <name>Coast path</name>
  <description><![CDATA[<p>From the <b>harbour</b> to the lighthouse &amp; back.</p><script>alert(1)</script>]]></description>
  <Style id="line"><LineStyle><color>ff0000ff</color><width>4</width></LineStyle></Style>
  <Placemark>
    <name>Start</name>
    <Point><coordinates>9.7,44.1,0</coordinates></Point>
  </Placemark>
  <Placemark>
    <name>Coast path line</name>
    <styleUrl>#line</styleUrl>
    <LineString>
      <tessellate>1</tessellate>
      <altitudeMode>clampToGround</altitudeMode>
      <coordinates>
`)
	var prof profile
	for i := 0; i < n; i++ {
		w.step(6 + rnd.Float64()*4)
		ele := 5 + 120*math.Abs(math.Sin(float64(i)/float64(n)*3*math.Pi))
		prof.add(ele)
		lat, lon := w.noisy()
		sep := "\n        "
		if i%4 != 0 {
			sep = "  "
		}
		fmt.Fprintf(&b, "%s,%s,%s%s", f6(lon), f6(lat), f1(ele+rnd.Float64()*4-2), sep)
	}
	b.WriteString("</coordinates>\n    </LineString>\n  </Placemark>\n</Document>\n</kml>\n")
	return sample{name: "line.kml", data: b.Bytes(), ascent: prof.ascent, descent: prof.descent, points: n, segments: 1}
}

// multiKML: n points in nested Folders holding a Placemark whose MultiGeometry has
// three LineStrings with altitudes all 0 (a line drawn on a map) and a
// Point that is not track.
func multiKML(n int) sample {
	rnd := rand.New(rand.NewPCG(7, 8))
	w := &walker{rnd: rnd, lat: 47.3, lon: 8.5, heading: -1}
	var b bytes.Buffer
	b.WriteString(`<?xml version="1.0" encoding="UTF-8"?>
<kml xmlns="http://www.opengis.net/kml/2.2" xmlns:gx="http://www.google.com/kml/ext/2.2">
<Document>
<Folder><Folder>
<Placemark>
<name>Three stages</name>
<description>Stage one, two &amp; three.</description>
<MultiGeometry>
<Point><coordinates>8.5,47.3,0</coordinates></Point>
`)
	for s := 0; s < 3; s++ {
		b.WriteString("<LineString><coordinates>")
		for i := 0; i < n/3; i++ {
			w.step(20 + rnd.Float64()*10)
			lat, lon := w.noisy()
			if i > 0 {
				b.WriteByte(' ')
			}
			fmt.Fprintf(&b, "%s,%s,0", f6(lon), f6(lat))
		}
		b.WriteString("</coordinates></LineString>\n")
		for i := 0; i < 100; i++ { // a transfer between stages
			w.step(30)
		}
	}
	b.WriteString("</MultiGeometry>\n</Placemark>\n</Folder></Folder>\n</Document>\n</kml>\n")
	return sample{name: "multi.kml", data: b.Bytes(), points: n / 3 * 3, segments: 3}
}

// gxTrackKML: n points in a gx:MultiTrack of two gx:Tracks, <when> and <gx:coord>
// pairs with elevations, and per-point extended data.
func gxTrackKML(n int) sample {
	rnd := rand.New(rand.NewPCG(9, 10))
	w := &walker{rnd: rnd, lat: 43.7, lon: 10.4, heading: 0.3}
	var b bytes.Buffer
	b.WriteString(`<?xml version="1.0" encoding="UTF-8"?>
<kml xmlns="http://www.opengis.net/kml/2.2" xmlns:gx="http://www.google.com/kml/ext/2.2">
<Document>
<name>Recorded walk</name>
<Placemark>
<name>Walk</name>
<gx:MultiTrack>
<altitudeMode>absolute</altitudeMode>
<gx:interpolate>0</gx:interpolate>
`)
	var prof profile
	tm := startTime()
	for s := 0; s < 2; s++ {
		var p profile
		per := n / 2
		b.WriteString("<gx:Track>\n")
		var coords bytes.Buffer
		ele := 200.0 + float64(s)*150
		for i := 0; i < per; i++ {
			w.step(4 + rnd.Float64()*3)
			ele += 0.35 * math.Cos(float64(i)/float64(per)*2*math.Pi*(1+float64(s)))
			p.add(ele)
			lat, lon := w.noisy()
			fmt.Fprintf(&b, "<when>%s</when>\n", tm.Format("2006-01-02T15:04:05.000Z"))
			fmt.Fprintf(&coords, "<gx:coord>%s %s %s</gx:coord>\n", f6(lon), f6(lat), f1(ele+rnd.Float64()*4-2))
			tm = tm.Add(5 * time.Second)
		}
		b.Write(coords.Bytes())
		b.WriteString("<ExtendedData><SchemaData schemaUrl=\"#hr\"><gx:SimpleArrayData name=\"heartrate\">")
		for i := 0; i < 20; i++ {
			fmt.Fprintf(&b, "<gx:value>%d</gx:value>", 90+i)
		}
		b.WriteString("</gx:SimpleArrayData></SchemaData></ExtendedData>\n</gx:Track>\n")
		prof.ascent += p.ascent
		prof.descent += p.descent
		tm = tm.Add(20 * time.Minute) // a rest, the recording paused
	}
	b.WriteString("</gx:MultiTrack>\n</Placemark>\n</Document>\n</kml>\n")
	return sample{name: "gxtrack.kml", data: b.Bytes(), ascent: prof.ascent, descent: prof.descent, points: n / 2 * 2, segments: 2}
}
