package track

import (
	"bytes"
	"fmt"
	"io"
	"testing"
	"time"
)

// gpxBytes writes a track as GPX 1.1, as a device would.
func gpxBytes(tr *Track) []byte {
	var b bytes.Buffer
	b.WriteString(`<?xml version="1.0" encoding="UTF-8"?>` + "\n" + `<gpx version="1.1" creator="bench" xmlns="http://www.topografix.com/GPX/1/1"><trk><name>Bench</name>` + "\n")
	for _, s := range tr.Segments {
		b.WriteString("<trkseg>\n")
		for _, p := range s {
			fmt.Fprintf(&b, "<trkpt lat=\"%.7f\" lon=\"%.7f\"><ele>%.1f</ele><time>%s</time></trkpt>\n", p.Lat, p.Lon, p.Ele, p.Time.Format(time.RFC3339))
		}
		b.WriteString("</trkseg>\n")
	}
	b.WriteString("</trk></gpx>\n")
	return b.Bytes()
}

// kmlBytes writes a track as KML LineStrings.
func kmlBytes(tr *Track) []byte {
	var b bytes.Buffer
	b.WriteString(`<?xml version="1.0" encoding="UTF-8"?>` + "\n" + `<kml xmlns="http://www.opengis.net/kml/2.2"><Document><Placemark><MultiGeometry>` + "\n")
	for _, s := range tr.Segments {
		b.WriteString("<LineString><coordinates>\n")
		for _, p := range s {
			fmt.Fprintf(&b, "%.7f,%.7f,%.1f\n", p.Lon, p.Lat, p.Ele)
		}
		b.WriteString("</coordinates></LineString>\n")
	}
	b.WriteString("</MultiGeometry></Placemark></Document></kml>\n")
	return b.Bytes()
}

var benchLimits = Limits{MaxBytes: 64 << 20}

func BenchmarkParseGPX100k(b *testing.B) {
	data := gpxBytes(walk(100_000, 1))
	b.SetBytes(int64(len(data)))
	b.ReportAllocs()
	for b.Loop() {
		if _, err := ParseGPX(bytes.NewReader(data), benchLimits); err != nil {
			b.Fatal(err)
		}
	}
}

func BenchmarkParseKML100k(b *testing.B) {
	data := kmlBytes(walk(100_000, 1))
	b.SetBytes(int64(len(data)))
	b.ReportAllocs()
	for b.Loop() {
		if _, err := ParseKML(bytes.NewReader(data), benchLimits); err != nil {
			b.Fatal(err)
		}
	}
}

func BenchmarkMeasure100k(b *testing.B) {
	tr := walk(100_000, 1)
	b.ReportAllocs()
	for b.Loop() {
		Measure(tr)
	}
}

func BenchmarkSimplify100k(b *testing.B) {
	tr := walk(100_000, 1)
	b.ReportAllocs()
	for b.Loop() {
		Simplify(tr, 0)
	}
}

func BenchmarkGeoJSON100k(b *testing.B) {
	tr := walk(100_000, 1)
	s := Measure(tr)
	b.ReportAllocs()
	for b.Loop() {
		if err := GeoJSON(io.Discard, tr, s); err != nil {
			b.Fatal(err)
		}
	}
}

// TestBenchmarkInputs keeps the benchmarks' files honest: they parse back
// to the track they were written from.
func TestBenchmarkInputs(t *testing.T) {
	t.Parallel()
	tr := walk(2000, 2)
	for name, parse := range map[string]func() (*Track, error){
		"GPX": func() (*Track, error) { return ParseGPX(bytes.NewReader(gpxBytes(tr)), Limits{}) },
		"KML": func() (*Track, error) { return ParseKML(bytes.NewReader(kmlBytes(tr)), Limits{}) },
	} {
		got, err := parse()
		if err != nil {
			t.Fatalf("%s: %v", name, err)
		}
		if got.Points() != 2000 || len(got.Segments) != 2 {
			t.Fatalf("%s: %d points in %d segments", name, got.Points(), len(got.Segments))
		}
		want, have := Measure(tr).Distance, Measure(got).Distance
		if d := want - have; d > 0.01*want || d < -0.01*want {
			t.Errorf("%s: distance %.1f, want %.1f", name, have, want)
		}
	}
}
