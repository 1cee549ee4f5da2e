package track

import (
	"errors"
	"math"
	"math/rand/v2"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

// readSample parses a file of testdata/ with the parser its extension names.
func readSample(tb testing.TB, name string) *Track {
	tb.Helper()
	f, err := os.Open(filepath.Join("testdata", name))
	if err != nil {
		tb.Fatal(err)
	}
	defer f.Close()
	var t *Track
	if strings.HasSuffix(name, ".gpx") {
		t, err = ParseGPX(f, Limits{})
	} else {
		t, err = ParseKML(f, Limits{})
	}
	if err != nil {
		tb.Fatalf("%s: %v", name, err)
	}
	return t
}

// sampleOf returns what the generator knows of a testdata file.
func sampleOf(tb testing.TB, name string) sample {
	tb.Helper()
	for _, s := range samples() {
		if s.name == name {
			return s
		}
	}
	tb.Fatalf("no sample %s", name)
	return sample{}
}

// wantFormatError checks that err is a *FormatError with exactly msg.
func wantFormatError(tb testing.TB, err error, msg string) {
	tb.Helper()
	var fe *FormatError
	if !errors.As(err, &fe) {
		tb.Fatalf("error = %v (%T), want a *FormatError %q", err, err, msg)
	}
	if fe.Msg != msg {
		tb.Fatalf("error = %q\n want %q", fe.Msg, msg)
	}
	if errors.Is(err, ErrTooLarge) {
		tb.Fatalf("a format error is ErrTooLarge: %v", err)
	}
}

// walk makes a realistic track of n points in segs segments: a walker with
// a drifting heading, 3-8 m steps, receiver noise, a rolling elevation and
// a time every 4 s.
func walk(n, segs int) *Track {
	w := &walker{rnd: rand.New(rand.NewPCG(uint64(n), uint64(segs))), lat: 46.5, lon: 8.0}
	t0 := time.Date(2024, 7, 1, 6, 0, 0, 0, time.UTC)
	tr := &Track{Name: "Walk"}
	per := n / segs
	for s := 0; s < segs; s++ {
		k := per
		if s == segs-1 {
			k = n - per*(segs-1)
		}
		seg := make([]Point, k)
		for i := range seg {
			w.step(3 + w.rnd.Float64()*5)
			j := s*per + i
			lat, lon := w.noisy()
			seg[i] = Point{Lat: lat, Lon: lon, Ele: 1500 + 300*math.Sin(float64(j)/3000) + w.rnd.Float64()*4 - 2, HasEle: true,
				Time: t0.Add(time.Duration(j) * 4 * time.Second)}
		}
		tr.Segments = append(tr.Segments, seg)
	}
	return tr
}

func TestTrackPoints(t *testing.T) {
	t.Parallel()
	tr := &Track{Segments: [][]Point{make([]Point, 3), make([]Point, 4)}}
	if got := tr.Points(); got != 7 {
		t.Errorf("Points() = %d, want 7", got)
	}
}

func TestLimitsDefaults(t *testing.T) {
	t.Parallel()
	got := Limits{}.withDefaults()
	if got.MaxBytes != 10<<20 || got.MaxPoints != 2_000_000 {
		t.Errorf("defaults = %+v", got)
	}
	got = Limits{MaxBytes: 5, MaxPoints: 7}.withDefaults()
	if got.MaxBytes != 5 || got.MaxPoints != 7 {
		t.Errorf("set limits changed: %+v", got)
	}
}
