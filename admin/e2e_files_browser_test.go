//go:build browser

package admin

import (
	"bytes"
	"image"
	"image/png"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/chromedp/chromedp"
	"github.com/chromedp/chromedp/kb"

	"github.com/bwcms/cms/admin/internal/browsertest"
)

// e2eFiles writes files for the browser's file inputs and returns their
// paths by name.
func e2eFiles(t *testing.T, files map[string][]byte) map[string]string {
	t.Helper()
	dir := t.TempDir()
	out := map[string]string{}
	for name, body := range files {
		p := filepath.Join(dir, name)
		if err := os.WriteFile(p, body, 0o644); err != nil {
			t.Fatal(err)
		}
		out[name] = p
	}
	return out
}

// setFiles puts files in the file input sel, as choosing them in the
// browser's dialog does (its change event fires).
func (x *e2eTab) setFiles(sel string, paths ...string) {
	x.t.Helper()
	if err := chromedp.Do(x.ctx, chromedp.SetUploadFiles(chromedp.CSS(sel), paths)); err != nil {
		x.t.Fatalf("files into %s: %v", sel, err)
	}
}

// TestE2EUploadATrackAndUseIt uploads a GPX and a refused file through
// the media library (the scripts' per-file progress and results), looks
// at the library and the track's page (axe, screenshots), then on a new
// TRACK Resource uploads the track through trackFile's control, chooses
// an image from the files by keyboard, saves, and reads back the
// distance the service derived from the file.
func TestE2EUploadATrackAndUseIt(t *testing.T) {
	e := newEnv(t, envOptions{prefix: "/admin"})
	e.uploadFile("Harbour at dawn.png", pngOf(t, 1200, 800))
	e.clock.Advance(1e9)
	e.uploadFile("Old town map.png", pngOf(t, 800, 1000))
	e.clock.Advance(1e9)
	e.uploadFile("Castle <b>tour<b> & more.kml", []byte(`<?xml version="1.0"?><kml xmlns="http://www.opengis.net/kml/2.2"><Document><Placemark><Point><coordinates>7.68,45.07</coordinates></Point></Placemark></Document></kml>`))
	e.clock.Advance(1e9)
	paths := e2eFiles(t, map[string][]byte{"north.gpx": gpxNorth(100), "notes.txt": []byte(strings.Repeat("not a file the service keeps\n", 50))})
	b := browsertest.New(t)
	x := e2eEditor(t, e, b, "admin")

	x.open("/file/", 200)
	x.audit()
	x.setFiles("#f-file", paths["north.gpx"], paths["notes.txt"])
	x.tap(`#file-upload button[type=submit]`)
	if err := x.poll(`document.getElementById("upload-summary").textContent !== ""`); err != nil {
		t.Fatalf("the uploads did not finish: %v; the page says %q", err, x.mainText())
	}
	progress := x.text("#upload-progress")
	if !strings.Contains(progress, "north.gpx uploaded as") || !strings.Contains(progress, "notes.txt") || !strings.Contains(progress, "nothing was stored") {
		t.Errorf("progress says %q", progress)
	}
	if got := x.text("#upload-progress li.refused .upload-status"); got == "" || got == "(nothing was stored)" {
		t.Errorf("the refused file shows no reason: %q", got)
	}
	if got := x.text(`ul.file-grid li.file-card:first-child .file-name`); got != "north.gpx" {
		t.Errorf("the first card is %q, want the new track", got)
	}
	files := e.files()
	if len(files) != 4 || files[0].Name != "north.gpx" || files[0].Track == nil {
		t.Fatalf("stored %v", files)
	}
	gpx := files[0]
	x.audit(409)

	x.open("/file/", 200)
	x.audit()
	x.shot("files", 900)
	x.open("/file/"+gpx.ID, 200)
	if got := x.text(".file-preview"); !strings.Contains(got, "11.1 km") {
		t.Errorf("the track's page says %q", got)
	}
	x.tap("button.copy-url")
	x.audit()
	x.shot("file", 0)

	// A TRACK Resource: the track uploaded through its field's control.
	x.open("/resource/new", 200)
	x.fill(e2eCtl("id"), "north-walk")
	x.fill(e2eCtl("title"), "North walk")
	if err := chromedp.Do(x.ctx, chromedp.SetValue(chromedp.CSS(e2eCtl("resourceType")), "TRACK")); err != nil {
		t.Fatal(err)
	}
	if x.attr(".file-tools[data-for=f-trackFile] .file-upload-send", "hidden") == "(no element)" {
		t.Fatal("no upload control beside trackFile")
	}
	x.setFiles("#f-trackFile-upload", paths["north.gpx"])
	if err := x.poll(`document.getElementById("f-trackFile").value !== ""`); err != nil {
		t.Fatalf("trackFile was not filled: %v; status %q", err, x.text("#f-trackFile-file-status"))
	}
	if got, want := x.value("#f-trackFile"), e.fileURL(&gpx); got != want {
		t.Errorf("trackFile %q, want %q", got, want)
	}
	if got := x.text("#f-trackFile-track"); !strings.Contains(got, "11.1 km") {
		t.Errorf("beside trackFile: %q", got)
	}
	if n := len(e.files()); n != 4 {
		t.Errorf("%d files after uploading the same track again, want 4", n)
	}

	// The image chosen from the files, by keyboard.
	x.tabTo(`.file-tools[data-for=f-image] button.file-choose`, 80)
	x.pressEnter()
	if err := x.poll(`document.activeElement && document.activeElement.matches(".file-tools[data-for=f-image] [role=listbox]") && document.activeElement.children.length === 2`); err != nil {
		t.Fatalf("the picker did not open with the two images: %v (focus on %s)", err, x.focused())
	}
	x.audit()
	x.shotOf("choose-image", `.file-tools[data-for=f-image]`, 120)
	x.key(kb.ArrowDown) // the second image (the older one)
	x.pressEnter()
	if got := x.value("#f-image"); !strings.HasSuffix(got, "/harbour-at-dawn.png") {
		t.Errorf("image %q, want the harbour picture", got)
	}
	if got := x.focused(); got != "button.file-choose" {
		t.Errorf("after choosing, the focus is on %s", got)
	}

	x.saved(x.click(`.form-bar button[name="_action"][value="save"]`), "save")
	if got := x.value(e2eCtl("trackTravelDistance")); got != "11120" {
		t.Errorf("derived distance %q, want 11120 (0.1° of latitude)", got)
	}
	if got := x.text("#f-trackFile-track"); !strings.Contains(got, "11.1 km") {
		t.Errorf("after the save, beside trackFile: %q", got)
	}
	x.audit()
}

// shotOf saves a screenshot of the page cut to the rows of the element
// sel and margin pixels above and below it: a part of a long form.
func (x *e2eTab) shotOf(name, sel string, margin int) {
	x.t.Helper()
	box := e2eEval[[]float64](x, `(() => { const r = document.querySelector(`+e2eJS(sel)+`).getBoundingClientRect();
		return [r.top + scrollY, r.bottom + scrollY, devicePixelRatio]; })()`)
	file := browsertest.Screenshot(x.t, x.ctx, name)
	raw, err := os.ReadFile(file)
	if err != nil {
		x.t.Fatal(err)
	}
	img, err := png.Decode(bytes.NewReader(raw))
	if err != nil {
		x.t.Fatal(err)
	}
	b := img.Bounds()
	y0 := max(b.Min.Y, int((box[0]-float64(margin))*box[2]))
	y1 := min(b.Max.Y, int((box[1]+float64(margin))*box[2]))
	sub := img.(interface {
		SubImage(r image.Rectangle) image.Image
	}).SubImage(image.Rect(b.Min.X, y0, b.Max.X, y1))
	var out bytes.Buffer
	enc := png.Encoder{CompressionLevel: png.BestCompression}
	if err := enc.Encode(&out, sub); err != nil {
		x.t.Fatal(err)
	}
	if err := os.WriteFile(file, out.Bytes(), 0o644); err != nil {
		x.t.Fatal(err)
	}
}
