package track

import (
	"bytes"
	"encoding/json"
	"errors"
	"math"
	"testing"
)

// feature is the documented shape of GeoJSON's output.
type feature struct {
	Type     string     `json:"type"`
	BBox     [4]float64 `json:"bbox"`
	Geometry struct {
		Type        string          `json:"type"`
		Coordinates json.RawMessage `json:"coordinates"`
	} `json:"geometry"`
	Properties map[string]any `json:"properties"`
}

func geoJSON(tb testing.TB, tr *Track) (feature, [][][]float64, []byte) {
	tb.Helper()
	var buf bytes.Buffer
	if err := GeoJSON(&buf, tr, Measure(tr)); err != nil {
		tb.Fatal(err)
	}
	if !json.Valid(buf.Bytes()) {
		tb.Fatalf("not JSON: %.200s", buf.Bytes())
	}
	var f feature
	dec := json.NewDecoder(bytes.NewReader(buf.Bytes()))
	dec.DisallowUnknownFields()
	if err := dec.Decode(&f); err != nil {
		tb.Fatalf("%v: %.300s", err, buf.Bytes())
	}
	var lines [][][]float64
	switch f.Geometry.Type {
	case "LineString":
		var l [][]float64
		if err := json.Unmarshal(f.Geometry.Coordinates, &l); err != nil {
			tb.Fatal(err)
		}
		lines = [][][]float64{l}
	case "MultiLineString":
		if err := json.Unmarshal(f.Geometry.Coordinates, &lines); err != nil {
			tb.Fatal(err)
		}
	default:
		tb.Fatalf("geometry type %q", f.Geometry.Type)
	}
	return f, lines, buf.Bytes()
}

func TestGeoJSONHike(t *testing.T) {
	t.Parallel()
	tr := readSample(t, "hike.gpx")
	s := Measure(tr)
	f, lines, _ := geoJSON(t, tr)
	if f.Type != "Feature" || f.Geometry.Type != "LineString" || len(lines) != 1 {
		t.Fatalf("type %q, geometry %q", f.Type, f.Geometry.Type)
	}
	if f.BBox[0] != round6(s.BBox[0]) || f.BBox[3] != round6(s.BBox[3]) {
		t.Errorf("bbox %v, summary's %v", f.BBox, s.BBox)
	}
	line := lines[0]
	if len(line) < 100 || len(line) >= tr.Points() {
		t.Errorf("%d positions for %d points", len(line), tr.Points())
	}
	first := tr.Segments[0][0]
	if p := line[0]; len(p) != 3 || p[0] != first.Lon || p[1] != first.Lat || p[2] != first.Ele {
		t.Errorf("first position %v, want [lon, lat, ele] of %+v", p, first)
	}
	for _, p := range line {
		if len(p) != 3 || p[0] < s.BBox[0] || p[0] > s.BBox[2] || p[1] < s.BBox[1] || p[1] > s.BBox[3] {
			t.Fatalf("position %v outside the bbox or without elevation", p)
		}
	}
	props := f.Properties
	r := func(v, scale float64) float64 { return math.Round(v*scale) / scale }
	if props["name"] != "Round of the Alpe & lakes" || props["distance"] != r(s.Distance, 10) || props["hasElevation"] != true ||
		props["circular"] != true || props["points"] != float64(2600) || props["simplifiedPoints"] != float64(len(line)) ||
		props["duration"] != r(*s.Duration, 100) || props["ascent"] != r(s.Ascent, 10) || props["descent"] != r(s.Descent, 10) {
		t.Errorf("properties = %v", props)
	}
	start, _ := props["start"].(map[string]any)
	if start["lon"] != first.Lon || start["lat"] != first.Lat || start["ele"] != first.Ele {
		t.Errorf("start = %v", start)
	}
	if _, ok := props["end"].(map[string]any); !ok {
		t.Errorf("no end: %v", props)
	}
}

func round6(v float64) float64 { return math.Round(v*1e6) / 1e6 }

func TestGeoJSONMultiLineWithoutElevation(t *testing.T) {
	t.Parallel()
	tr := readSample(t, "multi.kml")
	f, lines, raw := geoJSON(t, tr)
	if f.Geometry.Type != "MultiLineString" || len(lines) != 3 {
		t.Fatalf("geometry %q with %d lines, want a MultiLineString of 3", f.Geometry.Type, len(lines))
	}
	for _, l := range lines {
		if len(l) < 2 {
			t.Errorf("a line of %d positions", len(l))
		}
		for _, p := range l {
			if len(p) != 2 {
				t.Fatalf("position %v: want [lon, lat] without an elevation", p)
			}
		}
	}
	if f.Properties["hasElevation"] != false || f.Properties["duration"] != nil {
		t.Errorf("properties = %v", f.Properties)
	}
	if _, ok := f.Properties["start"].(map[string]any)["ele"]; ok {
		t.Errorf("start has an elevation: %s", raw[len(raw)-300:])
	}
}

func TestGeoJSONLargeTrack(t *testing.T) {
	t.Parallel()
	tr := walk(100_000, 1)
	_, lines, raw := geoJSON(t, tr)
	if n := len(lines[0]); n > 5000 || n < 4900 {
		t.Errorf("%d positions for 100,000 points, want at most 5,000", n)
	}
	if len(raw) > 250_000 {
		t.Errorf("%d bytes for 5,000 positions", len(raw))
	}
}

func TestGeoJSONFillsElevation(t *testing.T) {
	t.Parallel()
	// 20 points climbing 10 m each, elevation missing on the first and
	// on the 11th: still 90% with one, so every position gets one.
	pts := meridian(7, 45, 45.2, 20)
	for i := range pts {
		// A zig-zag, so that simplifying keeps every point.
		if i%2 == 1 {
			pts[i].Lon += 0.01
		}
		pts[i].Ele, pts[i].HasEle = float64(100+10*i), i != 0 && i != 10
	}
	tr := &Track{Segments: [][]Point{pts}}
	_, lines, _ := geoJSON(t, tr)
	line := lines[0]
	if len(line) != 20 {
		t.Fatalf("%d positions, want 20", len(line))
	}
	if line[0][2] != 110 || line[10][2] != 200 || line[19][2] != 290 {
		t.Errorf("elevations %v, %v, %v: want the first from its neighbour (110), the 11th interpolated (200)", line[0][2], line[10][2], line[19][2])
	}
}

type failWriter struct{}

func (failWriter) Write([]byte) (int, error) { return 0, errors.New("disk full") }

func TestGeoJSONWriteError(t *testing.T) {
	t.Parallel()
	tr := walk(100, 1)
	if err := GeoJSON(failWriter{}, tr, Measure(tr)); err == nil || err.Error() != "disk full" {
		t.Errorf("error = %v, want the writer's", err)
	}
}
