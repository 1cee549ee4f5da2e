package track

import (
	"bytes"
	"encoding/json"
	"errors"
	"flag"
	"math"
	"path/filepath"
	"testing"
)

// fuzzLimits keep each run quick.
var fuzzLimits = Limits{MaxBytes: 1 << 20, MaxPoints: 50_000}

func FuzzParseGPX(f *testing.F) {
	addSamples(f, hikeGPX(30), rideGPX(20))
	for _, s := range []string{
		gpxDoc(`<trk><trkseg><trkpt lat="1" lon="1"><ele>1</ele><time>2024-01-01T00:00:00Z</time></trkpt><trkpt lat="1.1" lon="1"/></trkseg></trk>`),
		gpxDoc(`<rte><rtept lat="1" lon="1"/><rtept lat="-1" lon="-1"/></rte>`),
		gpxDoc(`<metadata><name>a &amp; b</name><desc><![CDATA[<p>x</p>]]></desc></metadata>`),
		`<?xml version="1.0" encoding="ISO-8859-1"?><gpx><trk><trkseg><trkpt lat="1" lon="1"/><trkpt lat="2" lon="2"/></trkseg></trk></gpx>`,
		billionLaughs("gpx"),
		"<html><body></body></html>",
	} {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, data []byte) {
		tr, err := ParseGPX(bytes.NewReader(data), fuzzLimits)
		checkParsed(t, tr, err)
	})
}

func FuzzParseKML(f *testing.F) {
	addSamples(f, lineKML(30), multiKML(15), gxTrackKML(20))
	for _, s := range []string{
		kmlDoc(`<Placemark><name>x</name><LineString><coordinates>1,1,1 2,2,2</coordinates></LineString></Placemark>`),
		kmlDoc(`<Folder><Placemark><MultiGeometry><LineString><coordinates>1,1 2,2</coordinates></LineString><Point><coordinates>1,1</coordinates></Point></MultiGeometry></Placemark></Folder>`),
		kmlDoc(`<gx:Track><when>2024-01-01T00:00:00Z</when><when>2024-01-01T00:00:01Z</when><gx:coord>1 1 1</gx:coord><gx:coord>1 2 1</gx:coord></gx:Track>`),
		billionLaughs("kml"),
	} {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, data []byte) {
		tr, err := ParseKML(bytes.NewReader(data), fuzzLimits)
		checkParsed(t, tr, err)
	})
}

// addSamples seeds a fuzz target with small files of the testdata
// generator and, when not fuzzing, with the committed files of testdata/ of
// the same kinds (as seeds for the fuzzer they are too large: it spends its
// time minimizing them).
func addSamples(f *testing.F, small ...sample) {
	for _, s := range small {
		f.Add(s.data)
		if fl := flag.Lookup("test.fuzz"); fl == nil || fl.Value.String() == "" {
			f.Add(mustRead(f, filepath.Join("testdata", s.name)))
		}
	}
}

// checkParsed: a refusal is a FormatError or ErrTooLarge and comes without
// a track; an accepted track is valid, and measuring, simplifying and
// writing it work.
func checkParsed(t *testing.T, tr *Track, err error) {
	if err != nil {
		var fe *FormatError
		if !errors.As(err, &fe) && !errors.Is(err, ErrTooLarge) {
			t.Fatalf("an error that is neither a FormatError nor ErrTooLarge: %v", err)
		}
		if errors.As(err, &fe) && fe.Msg == "" {
			t.Fatal("an empty message")
		}
		if tr != nil {
			t.Fatal("a track with an error")
		}
		return
	}
	line := false
	for _, s := range tr.Segments {
		if len(s) == 0 {
			t.Fatal("an empty segment")
		}
		line = line || len(s) >= 2
		for _, p := range s {
			if !(p.Lat >= -90 && p.Lat <= 90 && p.Lon >= -180 && p.Lon <= 180) || (p.HasEle && math.IsNaN(p.Ele)) {
				t.Fatalf("invalid point %+v", p)
			}
		}
	}
	if !line {
		t.Fatal("accepted without a line of two points")
	}
	s := Measure(tr)
	if s.Points != tr.Points() || math.IsNaN(s.Distance) || s.Distance < 0 || s.Ascent < 0 || s.Descent < 0 {
		t.Fatalf("summary %+v", s)
	}
	for _, l := range Simplify(tr, 20) {
		if len(l) < 2 {
			t.Fatalf("a simplified line of %d points", len(l))
		}
	}
	var buf bytes.Buffer
	if err := GeoJSON(&buf, tr, s); err != nil || !json.Valid(buf.Bytes()) {
		t.Fatalf("GeoJSON: %v, %.200s", err, buf.Bytes())
	}
}
