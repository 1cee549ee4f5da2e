package track

import (
	"bufio"
	"bytes"
	"encoding/json"
	"math"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
)

// The distances of the sample files are checked against GPSBabel, an
// independent tool: its xcsv writer prints the distance along each track
// (testdata/distance.style). GPSBabel measures on a sphere of 6,378,137 m
// (the WGS 84 equatorial radius), so its figures are scaled to the mean
// radius before the tight comparison; unscaled they must agree within 1%.
//
// testdata/reference.json records GPSBabel's figures with the command and
// version that made them, so the check runs where GPSBabel is missing;
// where it is installed, the test runs it too and checks the record.
// CMS_GPSBABEL_REQUIRED=1 makes a missing GPSBabel a failure.

// reference is testdata/reference.json.
type reference struct {
	About    string          `json:"about"`
	GPSBabel string          `json:"gpsbabel"` // the version that made the figures
	Radius   float64         `json:"radius"`   // the sphere GPSBabel measures on, meters
	Files    []referenceFile `json:"files"`
}

type referenceFile struct {
	File     string  `json:"file"`
	Command  string  `json:"command"`  // run in testdata/
	Distance float64 `json:"distance"` // meters, on GPSBabel's sphere
}

const gpsbabelRadius = 6_378_137.0

// gpsbabelCommand is the command that prints a file's distances.
func gpsbabelCommand(file string) string {
	format := "gpx"
	if strings.HasSuffix(file, ".kml") {
		format = "kml"
	}
	return "gpsbabel -t -i " + format + " -f " + file +
		" -x nuketypes,waypoints,routes -x track,seg2trk -o xcsv,style=distance.style -F -"
}

// runGPSBabel runs a command in dir and sums the distance of each track: the
// distance along a track only grows, and starts again at 0 on the next.
func runGPSBabel(tb testing.TB, dir, command string) float64 {
	tb.Helper()
	args := strings.Fields(command)
	cmd := exec.Command(args[0], args[1:]...)
	cmd.Dir = dir
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	out, err := cmd.Output()
	if err != nil {
		tb.Fatalf("%s: %v\n%s", command, err, stderr.Bytes())
	}
	total, prev, lines := 0.0, 0.0, 0
	sc := bufio.NewScanner(bytes.NewReader(out))
	for sc.Scan() {
		v, err := strconv.ParseFloat(strings.TrimSpace(sc.Text()), 64)
		if err != nil {
			tb.Fatalf("%s: line %q: %v", command, sc.Text(), err)
		}
		if v < prev {
			total += prev
		}
		prev = v
		lines++
	}
	if lines == 0 {
		tb.Fatalf("%s printed nothing", command)
	}
	return total + prev
}

func gpsbabelVersion(tb testing.TB) string {
	tb.Helper()
	out, err := exec.Command("gpsbabel", "-V").Output()
	if err != nil {
		tb.Fatal(err)
	}
	return strings.TrimSpace(string(out))
}

func readReference(tb testing.TB) reference {
	tb.Helper()
	b, err := os.ReadFile(filepath.Join("testdata", "reference.json"))
	if err != nil {
		tb.Fatal(err)
	}
	var ref reference
	if err := json.Unmarshal(b, &ref); err != nil {
		tb.Fatal(err)
	}
	return ref
}

func TestDistanceAgainstGPSBabel(t *testing.T) {
	_, lookErr := exec.LookPath("gpsbabel")
	have := lookErr == nil
	if *update {
		if !have {
			t.Fatal("-update needs gpsbabel on PATH (apt-get install gpsbabel)")
		}
		writeReference(t)
	}

	ref := readReference(t)
	if ref.Radius != gpsbabelRadius || len(ref.Files) != len(samples()) {
		t.Fatalf("reference.json: radius %v, %d files", ref.Radius, len(ref.Files))
	}
	for _, rf := range ref.Files {
		ours := Measure(readSample(t, rf.File)).Distance
		if rel := math.Abs(ours-rf.Distance) / rf.Distance; rel > 0.01 {
			t.Errorf("%s: %.1f m, GPSBabel %.1f m: %.2f%% apart", rf.File, ours, rf.Distance, 100*rel)
		}
		scaled := rf.Distance * EarthRadius / ref.Radius
		if math.Abs(ours-scaled) > 1e-6*scaled {
			t.Errorf("%s: %.4f m, GPSBabel on the mean radius %.4f m", rf.File, ours, scaled)
		}
	}

	if !have {
		if os.Getenv("CMS_GPSBABEL_REQUIRED") == "1" {
			t.Fatal("gpsbabel is not on PATH and CMS_GPSBABEL_REQUIRED=1 (apt-get install gpsbabel)")
		}
		t.Log("gpsbabel is not on PATH: checked against the recorded figures only")
		return
	}
	t.Logf("%s (recorded with %s)", gpsbabelVersion(t), ref.GPSBabel)
	for _, rf := range ref.Files {
		if rf.Command != gpsbabelCommand(rf.File) {
			t.Errorf("%s: recorded command %q, the test's is %q", rf.File, rf.Command, gpsbabelCommand(rf.File))
		}
		live := runGPSBabel(t, "testdata", rf.Command)
		if math.Abs(live-rf.Distance) > 1e-6*rf.Distance {
			t.Errorf("%s: gpsbabel now says %.4f m, reference.json %.4f m", rf.File, live, rf.Distance)
		}
	}

	// GPSBabel's sphere, measured: a degree of latitude.
	dir := t.TempDir()
	deg := gpxDoc(`<trk><trkseg><trkpt lat="45" lon="7"/><trkpt lat="46" lon="7"/></trkseg></trk>`)
	if err := os.WriteFile(filepath.Join(dir, "deg.gpx"), []byte(deg), 0o644); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(dir, "distance.style"), mustRead(t, "testdata/distance.style"), 0o644); err != nil {
		t.Fatal(err)
	}
	d := runGPSBabel(t, dir, gpsbabelCommand("deg.gpx"))
	if r := d * 180 / math.Pi; math.Abs(r-gpsbabelRadius) > 0.01 {
		t.Errorf("gpsbabel measures on a radius of %.3f m, not %.0f", r, gpsbabelRadius)
	}
}

func mustRead(tb testing.TB, path string) []byte {
	tb.Helper()
	b, err := os.ReadFile(path)
	if err != nil {
		tb.Fatal(err)
	}
	return b
}

// writeReference runs gpsbabel on the (re)generated samples and writes
// testdata/reference.json.
func writeReference(t *testing.T) {
	ref := reference{
		About: "Track lengths of the files beside this one as GPSBabel measures them (meters, on its sphere of `radius`), " +
			"each by its `command` run in this folder; written by `go test ./cms/track -run TestDistanceAgainstGPSBabel -update`.",
		GPSBabel: gpsbabelVersion(t),
		Radius:   gpsbabelRadius,
	}
	for _, s := range samples() {
		if err := os.WriteFile(filepath.Join("testdata", s.name), s.data, 0o644); err != nil {
			t.Fatal(err)
		}
		cmd := gpsbabelCommand(s.name)
		d := math.Round(runGPSBabel(t, "testdata", cmd)*1e4) / 1e4 // as printed
		ref.Files = append(ref.Files, referenceFile{File: s.name, Command: cmd, Distance: d})
	}
	b, err := json.MarshalIndent(ref, "", "  ")
	if err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join("testdata", "reference.json"), append(b, '\n'), 0o644); err != nil {
		t.Fatal(err)
	}
	t.Log("wrote testdata/reference.json")
}
