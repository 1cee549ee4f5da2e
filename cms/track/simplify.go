package track

import (
	"math"
	"math/bits"
	"slices"
)

// The simplified line's bounds.
const (
	// MaxSimplified is the most points Simplify keeps by default.
	MaxSimplified = 5000
	// MinTolerance is the smallest tolerance of Simplify, in meters:
	// below what a GPS receiver can tell apart, so dropping those points
	// changes nothing a map shows.
	MinTolerance = 2.0
)

// Simplify returns the track's line with fewer points, by Douglas-Peucker:
// a point is dropped when the line without it passes within the tolerance
// of it, distances measured in meters on a local equirectangular projection
// centered on the track. The tolerance is MinTolerance (2 m), raised to the
// smallest value that leaves at most maxPoints points in all (maxPoints <=
// 0 means MaxSimplified, 5,000; less than 2 means 2). The ends of every
// segment are kept, points keep their elevation and time, and segments of a
// single point are left out (they draw nothing).
//
// When the segments are so many that their ends alone pass maxPoints, the
// longest segments that fit are kept, in their order. A line on which the
// method would take quadratic time (a regular zig-zag, say) is first thinned
// to every k-th point, about 10,000 in all, which bounds the work.
func Simplify(t *Track, maxPoints int) [][]Point {
	if maxPoints <= 0 {
		maxPoints = MaxSimplified
	}
	maxPoints = max(maxPoints, 2)
	segs := make([][]Point, 0, len(t.Segments))
	for _, s := range t.Segments {
		if len(s) >= 2 {
			segs = append(segs, s)
		}
	}
	if 2*len(segs) > maxPoints {
		segs = longest(segs, maxPoints/2)
	}
	proj := newProjection(segs)

	// Each inner point's importance: the tolerance below which
	// Douglas-Peucker keeps it (its own distance, capped by the
	// importance of the split that led to it).
	imps, ok := importances(segs, proj, workBudget(total(segs)))
	if !ok {
		// A pathological line, on which the method takes quadratic time:
		// thin it first, so the work stays bounded.
		segs = thin(segs, maxThinned)
		imps, _ = importances(segs, proj, math.MaxInt)
	}
	var all []float64
	ends := 0
	for i, s := range segs {
		all = append(all, imps[i][1:len(s)-1]...)
		ends += 2
	}
	tol := MinTolerance
	if budget := maxPoints - ends; len(all) > budget {
		// Keep the budget most important: the tolerance is the next one's.
		slices.Sort(all)
		tol = max(tol, all[len(all)-budget-1])
	}
	out := make([][]Point, len(segs))
	for i, s := range segs {
		line := make([]Point, 0, 16)
		for j, p := range s {
			if imps[i][j] > tol {
				line = append(line, p)
			}
		}
		out[i] = line
	}
	return out
}

// maxThinned is the most points of a pathological line, after thinning.
const maxThinned = 10_000

// workBudget bounds Douglas-Peucker's work on n points: a real track needs
// about n log2 n point-to-line distances (100,000 points of a walk take
// 18 per point); past twice that and more the line is taken as
// pathological, thinned to maxThinned points (every k-th, the ends kept)
// and simplified again, which bounds the worst case.
func workBudget(n int) int { return n * (2*bits.Len(uint(n)) + 16) }

// importances runs importance on each segment, sharing a budget of
// point-to-line distances; false when the budget ran out.
func importances(segs [][]Point, proj projection, budget int) ([][]float64, bool) {
	imps := make([][]float64, len(segs))
	for i, s := range segs {
		if imps[i] = importance(s, proj, &budget); imps[i] == nil {
			return nil, false
		}
	}
	return imps, true
}

func total(segs [][]Point) int {
	n := 0
	for _, s := range segs {
		n += len(s)
	}
	return n
}

// thin keeps every k-th point of each segment and its ends, so that about
// n points remain in all.
func thin(segs [][]Point, n int) [][]Point {
	k := total(segs)/n + 1
	out := make([][]Point, len(segs))
	for i, s := range segs {
		line := make([]Point, 0, len(s)/k+2)
		for j := 0; j < len(s)-1; j += k {
			line = append(line, s[j])
		}
		out[i] = append(line, s[len(s)-1])
	}
	return out
}

// importance runs Douglas-Peucker once down to tolerance 0 and records, for
// every point, the largest tolerance at which it would still be kept; the
// ends are +Inf. A point is kept at tolerance t exactly when its importance
// is above t.
// It spends budget, one per distance, and returns nil when that runs out.
// Among points equally far the one nearest the middle splits, so a
// regular zig-zag splits evenly.
func importance(s []Point, proj projection, budget *int) []float64 {
	xy := make([][2]float64, len(s))
	for i, p := range s {
		xy[i] = proj.xy(p)
	}
	imp := make([]float64, len(s))
	imp[0], imp[len(s)-1] = math.Inf(1), math.Inf(1)
	type span struct {
		a, b int
		cap  float64
	}
	stack := []span{{0, len(s) - 1, math.Inf(1)}}
	for len(stack) > 0 {
		sp := stack[len(stack)-1]
		stack = stack[:len(stack)-1]
		if sp.b-sp.a < 2 {
			continue
		}
		if *budget -= sp.b - sp.a - 1; *budget < 0 {
			return nil
		}
		far, d2 := sp.a+1, -1.0
		mid := (sp.a + sp.b) / 2
		for k := sp.a + 1; k < sp.b; k++ {
			dk := segmentDistance2(xy[k], xy[sp.a], xy[sp.b])
			if dk > d2 || (dk == d2 && abs(k-mid) < abs(far-mid)) {
				far, d2 = k, dk
			}
		}
		imp[far] = math.Min(math.Sqrt(d2), sp.cap)
		stack = append(stack, span{sp.a, far, imp[far]}, span{far, sp.b, imp[far]})
	}
	return imp
}

// segmentDistance2 is the square of the distance from p to the segment a-b
// on the plane.
func segmentDistance2(p, a, b [2]float64) float64 {
	dx, dy := b[0]-a[0], b[1]-a[1]
	px, py := p[0]-a[0], p[1]-a[1]
	if l := dx*dx + dy*dy; l > 0 {
		u := (px*dx + py*dy) / l
		u = math.Max(0, math.Min(1, u))
		px, py = px-u*dx, py-u*dy
	}
	return px*px + py*py
}

// projection maps degrees to meters around a reference latitude
// (equirectangular): good to a fraction of a percent over the extent of a
// hike or a day's ride, which is all a tolerance needs.
type projection struct{ kx, ky float64 }

func newProjection(segs [][]Point) projection {
	lo, hi := math.Inf(1), math.Inf(-1)
	for _, s := range segs {
		for _, p := range s {
			lo, hi = math.Min(lo, p.Lat), math.Max(hi, p.Lat)
		}
	}
	lat := 0.0
	if lo <= hi {
		lat = (lo + hi) / 2
	}
	const rad = math.Pi / 180
	return projection{kx: EarthRadius * rad * math.Cos(lat*rad), ky: EarthRadius * rad}
}

func (p projection) xy(pt Point) [2]float64 { return [2]float64{pt.Lon * p.kx, pt.Lat * p.ky} }

// longest keeps the n longest segments (by distance), in their order.
func longest(segs [][]Point, n int) [][]Point {
	type ranked struct {
		i   int
		len float64
	}
	r := make([]ranked, len(segs))
	for i, s := range segs {
		r[i].i = i
		for j := 1; j < len(s); j++ {
			r[i].len += distance(s[j-1], s[j])
		}
	}
	slices.SortStableFunc(r, func(a, b ranked) int {
		switch {
		case a.len > b.len:
			return -1
		case a.len < b.len:
			return 1
		}
		return 0
	})
	r = r[:n]
	slices.SortFunc(r, func(a, b ranked) int { return a.i - b.i })
	out := make([][]Point, n)
	for k, x := range r {
		out[k] = segs[x.i]
	}
	return out
}

func abs(n int) int {
	if n < 0 {
		return -n
	}
	return n
}
