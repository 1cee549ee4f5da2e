package track

import (
	"math"
	"testing"
)

// offLine is the distance in meters from p to the chord a-b, measured on
// a tangent plane at a (the test's own geometry, apart from the code's).
func offLine(p, a, b Point) float64 {
	const r = 6_371_008.8 * math.Pi / 180
	k := math.Cos(a.Lat * math.Pi / 180)
	bx, by := (b.Lon-a.Lon)*r*k, (b.Lat-a.Lat)*r
	px, py := (p.Lon-a.Lon)*r*k, (p.Lat-a.Lat)*r
	l2 := bx*bx + by*by
	u := 0.0
	if l2 > 0 {
		u = math.Max(0, math.Min(1, (px*bx+py*by)/l2))
	}
	return math.Hypot(px-u*bx, py-u*by)
}

// checkSubsequence checks that each simplified segment keeps the ends of
// its original and a subsequence of its points unchanged, and returns the
// largest distance of a dropped point from the simplified line.
func checkSubsequence(tb testing.TB, orig, simple [][]Point) float64 {
	tb.Helper()
	if len(orig) != len(simple) {
		tb.Fatalf("%d segments became %d", len(orig), len(simple))
	}
	worst := 0.0
	for s := range orig {
		o, l := orig[s], simple[s]
		if l[0] != o[0] || l[len(l)-1] != o[len(o)-1] {
			tb.Fatalf("segment %d: ends not kept", s)
		}
		j := 0
		for i := 1; i < len(l); i++ {
			start := j
			for j++; j < len(o) && o[j] != l[i]; j++ {
			}
			if j == len(o) {
				tb.Fatalf("segment %d: point %d is not one of the original's, in order", s, i)
			}
			for k := start + 1; k < j; k++ {
				worst = math.Max(worst, offLine(o[k], o[start], o[j]))
			}
		}
	}
	return worst
}

func TestSimplifyLargeTrack(t *testing.T) {
	t.Parallel()
	tr := walk(100_000, 3)
	out := Simplify(tr, 0)
	n := 0
	for _, l := range out {
		n += len(l)
	}
	if n > 5000 || n < 4900 {
		t.Errorf("%d points kept of 100,000; want at most 5,000 and the tolerance raised no more than needed", n)
	}
	worst := checkSubsequence(t, tr.Segments, out)
	if worst > 50 {
		t.Errorf("a dropped point is %.1f m off the line", worst)
	}
	t.Logf("100,000 points -> %d, farthest dropped point %.2f m off", n, worst)
}

func TestSimplifyMinTolerance(t *testing.T) {
	t.Parallel()
	tr := walk(3000, 1)
	out := Simplify(tr, 5000)
	n := len(out[0])
	if n >= 3000 || n < 100 {
		t.Errorf("%d of 3,000 points kept", n)
	}
	if worst := checkSubsequence(t, tr.Segments, out); worst > MinTolerance*1.01 {
		t.Errorf("a dropped point is %.3f m off the line; the tolerance is %v m", worst, MinTolerance)
	}
	// Every point kept that the tolerance did not need: a tighter budget
	// keeps fewer.
	if tight := Simplify(tr, 50); len(tight[0]) > 50 || len(tight[0]) < 45 {
		t.Errorf("maxPoints 50: %d points", len(tight[0]))
	}
}

func TestSimplifyStraightLine(t *testing.T) {
	t.Parallel()
	out := Simplify(&Track{Segments: [][]Point{meridian(7, 45, 46, 10_000)}}, 0)
	if len(out) != 1 || len(out[0]) != 2 {
		t.Errorf("a straight line kept %d points, want its two ends", len(out[0]))
	}
}

func TestSimplifyKeepsValues(t *testing.T) {
	t.Parallel()
	tr := walk(20_000, 2)
	for _, l := range Simplify(tr, 1000) {
		for _, p := range l {
			if !p.HasEle || p.Time.IsZero() {
				t.Fatalf("a point lost its elevation or time: %+v", p)
			}
		}
	}
}

func TestSimplifySegments(t *testing.T) {
	t.Parallel()
	single := []Point{{Lat: 1, Lon: 1}}
	tr := &Track{Segments: [][]Point{single, meridian(7, 45, 45.1, 10), single, meridian(8, 45, 45.1, 10)}}
	out := Simplify(tr, 0)
	if len(out) != 2 || out[0][0].Lon != 7 || out[1][0].Lon != 8 {
		t.Errorf("single points not dropped, or order lost: %v", out)
	}

	// 4,000 two-point segments, their lengths 1..4000 m in a shuffled
	// order: the 2,500 longest fit in 5,000 points, in their order.
	var segs [][]Point
	for i := 0; i < 4000; i++ {
		length := float64((i*1237)%4000 + 1)
		segs = append(segs, []Point{{Lat: 10, Lon: float64(i) / 100}, {Lat: 10 + length/oneDegree, Lon: float64(i) / 100}})
	}
	out = Simplify(&Track{Segments: segs}, 5000)
	if len(out) != 2500 {
		t.Fatalf("%d segments kept, want 2,500", len(out))
	}
	prev := -1.0
	for _, l := range out {
		if l[0].Lon <= prev {
			t.Fatal("segments out of order")
		}
		prev = l[0].Lon
		if d := distance(l[0], l[1]); d < 1500 {
			t.Fatalf("a segment of %.0f m kept over longer ones", d)
		}
	}
	if out := Simplify(tr, 1); len(out) != 1 || len(out[0]) != 2 {
		t.Errorf("maxPoints 1: %v, want one segment's two ends", out)
	}
}

// A regular zig-zag is Douglas-Peucker's worst case (each split peels one
// point): it must be caught by the work budget and thinned, while a real
// track of the same size stays within the budget and is not thinned.
func TestSimplifyZigZag(t *testing.T) {
	t.Parallel()
	const n = 100_000
	pts := make([]Point, n)
	for i := range pts {
		lon := 7.0
		if i%2 == 1 {
			lon += 0.001
		}
		// Slightly tilted, so that no exact tie splits in the middle.
		pts[i] = Point{Lat: 45 + float64(i)*1e-6, Lon: lon + float64(i)*1e-9}
	}
	zig := [][]Point{pts}
	if _, ok := importances(zig, newProjection(zig), workBudget(n)); ok {
		t.Error("the zig-zag stayed within the work budget")
	}
	out := Simplify(&Track{Segments: zig}, 0)
	if k := len(out[0]); k > 5000 || k < 100 {
		t.Errorf("%d points", k)
	}
	if out[0][0] != pts[0] || out[0][len(out[0])-1] != pts[n-1] {
		t.Error("ends not kept")
	}

	// Exact ties split in the middle: the same zig-zag untilted is cheap.
	for i := range pts {
		if i%2 == 0 {
			pts[i].Lon = 7
		} else {
			pts[i].Lon = 7.001
		}
	}
	if _, ok := importances(zig, newProjection(zig), workBudget(n)); !ok {
		t.Error("a regular zig-zag with exact ties ran out of the work budget")
	}

	real := walk(n, 1).Segments
	if _, ok := importances(real, newProjection(real), workBudget(n)); !ok {
		t.Error("a real track of 100,000 points ran out of the work budget")
	}
}
