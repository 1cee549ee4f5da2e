package track

import (
	"encoding/json"
	"math"
	"math/rand/v2"
	"strings"
	"testing"
	"time"
)

// oneDegree is the length of a degree of a great circle on the mean Earth
// radius: pi * 6,371,008.8 / 180, worked out apart from the code.
const oneDegree = 111_195.0802

// meridian makes n points from lat0 to lat1 along the meridian lon.
func meridian(lon, lat0, lat1 float64, n int) []Point {
	pts := make([]Point, n)
	for i := range pts {
		pts[i] = Point{Lat: lat0 + (lat1-lat0)*float64(i)/float64(n-1), Lon: lon}
	}
	return pts
}

func near(got, want, tol float64) bool { return math.Abs(got-want) <= tol }

func TestDistanceKnown(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name string
		segs [][]Point
		want float64
	}{
		{"a degree of latitude", [][]Point{meridian(7, 45, 46, 1000)}, oneDegree},
		{"two points a degree apart", [][]Point{meridian(-120, -10, -9, 2)}, oneDegree},
		{"a degree of the equator", [][]Point{{{Lat: 0, Lon: 10}, {Lat: 0, Lon: 10.5}, {Lat: 0, Lon: 11}}}, oneDegree},
		{"across the 180th meridian", [][]Point{{{Lat: 0, Lon: 179.5}, {Lat: 0, Lon: -179.5}}}, oneDegree},
		{"pole to pole", [][]Point{meridian(0, -90, 90, 2)}, 180 * oneDegree},
		{"segments not bridged", [][]Point{meridian(7, 45, 46, 100), meridian(7, 50, 51, 100)}, 2 * oneDegree},
		{"the same point", [][]Point{{{Lat: 1, Lon: 1}, {Lat: 1, Lon: 1}}}, 0},
	}
	for _, tt := range tests {
		s := Measure(&Track{Segments: tt.segs})
		if !near(s.Distance, tt.want, tt.want*1e-7+1e-9) {
			t.Errorf("%s: distance %.4f, want %.4f", tt.name, s.Distance, tt.want)
		}
	}
}

// profileTrack lays elevations along a meridian, 10 m apart.
func profileTrack(eles []float64) *Track {
	pts := make([]Point, len(eles))
	for i, e := range eles {
		pts[i] = Point{Lat: 45 + float64(i)*10/oneDegree, Lon: 7, Ele: e, HasEle: true}
	}
	return &Track{Segments: [][]Point{pts}}
}

// noise is uniform in [-2, 2] m, deterministic.
func noise(seed uint64) func() float64 {
	r := rand.New(rand.NewPCG(seed, seed))
	return func() float64 { return r.Float64()*4 - 2 }
}

func TestHysteresisClimbAndDescent(t *testing.T) {
	t.Parallel()
	for seed := uint64(1); seed <= 20; seed++ {
		n := noise(seed)
		var eles []float64
		for i := 0; i <= 1000; i++ { // 500 m up, half a meter a point
			eles = append(eles, 1000+float64(i)/2+n())
		}
		for i := 1; i <= 600; i++ { // 300 m down
			eles = append(eles, 1500-float64(i)/2+n())
		}
		s := Measure(profileTrack(eles))
		// The noise moves where the first and the last reference fall by
		// up to 2 m, and the last step below the hysteresis can be missed.
		if !near(s.Ascent, 500, 9) || !near(s.Descent, 300, 9) {
			t.Errorf("seed %d: ascent %.1f, descent %.1f; want about 500 and 300", seed, s.Ascent, s.Descent)
		}
		if !s.HasElevation {
			t.Errorf("seed %d: HasElevation false", seed)
		}
	}
}

func TestHysteresisFlatNoise(t *testing.T) {
	t.Parallel()
	n := noise(42)
	eles := make([]float64, 5000)
	for i := range eles {
		eles[i] = 350 + n()
	}
	s := Measure(profileTrack(eles))
	if s.Ascent != 0 || s.Descent != 0 {
		t.Errorf("flat track with +-2 m noise: ascent %v, descent %v; want 0", s.Ascent, s.Descent)
	}
	// Without the hysteresis the noise would have added up to kilometers.
	raw := 0.0
	for i := 1; i < len(eles); i++ {
		raw += math.Max(0, eles[i]-eles[i-1])
	}
	if raw < 1000 {
		t.Fatalf("the noise is too small to test anything: %.0f m", raw)
	}
}

func TestHysteresisSteps(t *testing.T) {
	t.Parallel()
	tests := []struct {
		eles            []float64
		ascent, descent float64
	}{
		{[]float64{100, 104.9, 100, 104.9}, 0, 0},
		{[]float64{100, 105}, 5, 0},
		{[]float64{100, 103, 106, 109, 112}, 12, 0}, // counted at 106 and at 112
		{[]float64{100, 120, 95, 96, 90}, 20, 30},
		{[]float64{100, 96, 101, 95}, 0, 5},
	}
	for _, tt := range tests {
		s := Measure(profileTrack(tt.eles))
		if !near(s.Ascent, tt.ascent, 1e-9) || !near(s.Descent, tt.descent, 1e-9) {
			t.Errorf("%v: ascent %v, descent %v; want %v, %v", tt.eles, s.Ascent, s.Descent, tt.ascent, tt.descent)
		}
	}
}

func TestHysteresisPerSegment(t *testing.T) {
	t.Parallel()
	a := profileTrack([]float64{100, 101, 100}).Segments[0]
	b := profileTrack([]float64{300, 299, 300}).Segments[0]
	s := Measure(&Track{Segments: [][]Point{a, b}})
	if s.Ascent != 0 || s.Descent != 0 {
		t.Errorf("the step between segments counted: ascent %v, descent %v", s.Ascent, s.Descent)
	}
}

func TestHasElevation(t *testing.T) {
	t.Parallel()
	climb := func(every int) *Track {
		eles := make([]float64, 1000)
		for i := range eles {
			eles[i] = float64(i)
		}
		tr := profileTrack(eles)
		for i := range tr.Segments[0] {
			if every > 0 && i%every == 0 {
				tr.Segments[0][i].HasEle = false
			}
		}
		return tr
	}
	if s := Measure(climb(0)); !s.HasElevation || !near(s.Ascent, 999, 5) {
		t.Errorf("every point: %v, %v", s.HasElevation, s.Ascent)
	}
	if s := Measure(climb(20)); !s.HasElevation || !near(s.Ascent, 999, 5) {
		t.Errorf("95%% of the points: HasElevation %v, ascent %v; want true and the points without skipped", s.HasElevation, s.Ascent)
	}
	if s := Measure(climb(3)); s.HasElevation || s.Ascent != 0 || s.Descent != 0 {
		t.Errorf("two thirds of the points: HasElevation %v, ascent %v; want false and 0", s.HasElevation, s.Ascent)
	}
	if s := Measure(&Track{Segments: [][]Point{meridian(7, 45, 46, 10)}}); s.HasElevation || s.Start.Ele != nil {
		t.Errorf("no elevation: %+v", s)
	}
}

func TestDuration(t *testing.T) {
	t.Parallel()
	t0 := time.Date(2024, 5, 1, 8, 0, 0, 0, time.UTC)
	timed := func() *Track {
		a, b := meridian(7, 45, 45.01, 50), meridian(7, 45.02, 45.03, 50)
		for i := range a {
			a[i].Time = t0.Add(time.Duration(i) * 10 * time.Second)
			b[i].Time = t0.Add(time.Hour + time.Duration(i)*10*time.Second)
		}
		return &Track{Segments: [][]Point{a, b}}
	}
	s := Measure(timed())
	if s.Duration == nil || !near(*s.Duration, 60+49*10/60.0, 1e-9) {
		t.Errorf("duration = %v, want %v minutes (first to last, pauses included)", s.Duration, 60+49*10/60.0)
	}
	tr := timed()
	tr.Segments[1][17].Time = time.Time{}
	if s := Measure(tr); s.Duration != nil {
		t.Errorf("one point without time: duration %v, want nil", *s.Duration)
	}
	tr = timed()
	tr.Segments[0][0].Time = t0.Add(5 * time.Hour)
	if s := Measure(tr); s.Duration != nil {
		t.Errorf("last before first: duration %v, want nil", *s.Duration)
	}
	if s := Measure(&Track{Segments: [][]Point{meridian(7, 45, 46, 10)}}); s.Duration != nil {
		t.Errorf("no times: duration %v", *s.Duration)
	}
}

func TestCircular(t *testing.T) {
	t.Parallel()
	loop := func(gap float64) *Track {
		// Out 1 km north, 1 km east, and back south to gap meters east of
		// the start.
		out := meridian(7, 45, 45+1000/oneDegree, 50)
		dlon := 1000 / (oneDegree * math.Cos(45*math.Pi/180))
		back := meridian(7+gap/(oneDegree*math.Cos(45*math.Pi/180)), 45+1000/oneDegree, 45, 50)
		across := []Point{out[49], {Lat: out[49].Lat, Lon: 7 + dlon}, back[0]}
		return &Track{Segments: [][]Point{out, across, back}}
	}
	if s := Measure(loop(99)); !s.Circular {
		t.Errorf("end 99 m from the start: not circular")
	}
	if s := Measure(loop(101)); s.Circular {
		t.Errorf("end 101 m from the start: circular")
	}
	if s := Measure(&Track{Segments: [][]Point{meridian(7, 45, 46, 10)}}); s.Circular {
		t.Errorf("a straight line: circular")
	}
}

func TestBBoxStartEnd(t *testing.T) {
	t.Parallel()
	tr := &Track{Segments: [][]Point{
		{{Lat: 45, Lon: 7, Ele: 300, HasEle: true}, {Lat: 44.5, Lon: 8}},
		{{Lat: 46, Lon: 6.5}, {Lat: 45.5, Lon: 7.5, Ele: -3.5, HasEle: true}},
	}}
	s := Measure(tr)
	if s.BBox != [4]float64{6.5, 44.5, 8, 46} {
		t.Errorf("bbox = %v", s.BBox)
	}
	if s.Points != 4 || s.Start.Lon != 7 || s.Start.Lat != 45 || s.Start.Ele == nil || *s.Start.Ele != 300 ||
		s.End.Lon != 7.5 || s.End.Lat != 45.5 || s.End.Ele == nil || *s.End.Ele != -3.5 {
		t.Errorf("summary = %+v", s)
	}
	if got := Measure(&Track{}); got.Points != 0 || got.BBox != [4]float64{} || got.Duration != nil {
		t.Errorf("empty track: %+v", got)
	}
}

func TestSummaryJSON(t *testing.T) {
	t.Parallel()
	d := 90.5
	e := 1200.0
	s := Summary{Distance: 12345.5, Ascent: 800, Descent: 790.25, HasElevation: true, Duration: &d, Circular: true,
		BBox: [4]float64{7, 45, 7.5, 45.5}, Start: Position{Lon: 7, Lat: 45, Ele: &e}, End: Position{Lon: 7.5, Lat: 45.5}, Points: 2600}
	b, err := json.Marshal(s)
	if err != nil {
		t.Fatal(err)
	}
	want := `{"distance":12345.5,"ascent":800,"descent":790.25,"hasElevation":true,"duration":90.5,"circular":true,"bbox":[7,45,7.5,45.5],"start":{"lon":7,"lat":45,"ele":1200},"end":{"lon":7.5,"lat":45.5},"points":2600}`
	if string(b) != want {
		t.Errorf("JSON\n got %s\nwant %s", b, want)
	}
	var back Summary
	if err := json.Unmarshal(b, &back); err != nil || back.Duration == nil || *back.Duration != d || *back.Start.Ele != e || back.End.Ele != nil {
		t.Errorf("round trip: %+v, %v", back, err)
	}
	s.Duration = nil
	if b, _ := json.Marshal(s); !json.Valid(b) || !strings.Contains(string(b), `"duration":null`) {
		t.Errorf("no duration: %s", b)
	}
}

// TestMeasureSamples checks the generated files against what their
// generator knows.
func TestMeasureSamples(t *testing.T) {
	t.Parallel()
	for _, smp := range samples() {
		tr := readSample(t, smp.name)
		s := Measure(tr)
		if s.Points != smp.points || len(tr.Segments) != smp.segments {
			t.Errorf("%s: %d points in %d segments, want %d in %d", smp.name, s.Points, len(tr.Segments), smp.points, smp.segments)
		}
		// The noise-free profile counts every wiggle; the hysteresis
		// misses up to 5 m at each turn of the gentle ones.
		if !near(s.Ascent, smp.ascent, 0.1*smp.ascent+1) || !near(s.Descent, smp.descent, 0.1*smp.descent+1) {
			t.Errorf("%s: ascent %.1f, descent %.1f; the profile's are %.1f, %.1f", smp.name, s.Ascent, s.Descent, smp.ascent, smp.descent)
		}
	}
	hike := Measure(readSample(t, "hike.gpx"))
	if !hike.Circular || !hike.HasElevation || hike.Duration == nil || *hike.Duration < 150 || *hike.Duration > 300 {
		t.Errorf("hike: %+v", hike)
	}
	ride := Measure(readSample(t, "ride.gpx"))
	if ride.Circular || ride.Duration == nil {
		t.Errorf("ride: circular %v, duration %v", ride.Circular, ride.Duration)
	}
	multi := Measure(readSample(t, "multi.kml"))
	if multi.HasElevation || multi.Ascent != 0 || multi.Duration != nil {
		t.Errorf("multi: %+v", multi)
	}
	gx := Measure(readSample(t, "gxtrack.kml"))
	if gx.Duration == nil || !near(*gx.Duration, (1399*5+20*60)/60.0, 1e-9) {
		t.Errorf("gx:Track duration = %v, want %v", gx.Duration, (1399*5+20*60)/60.0)
	}
}
