package track

import (
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"
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
