package media

import (
	"bytes"
	"image"
	"image/color"
	"image/jpeg"
	"image/png"
	"io"
	"testing"

	"golang.org/x/image/draw"
)

// decodeThumb decodes a thumbnail as the type it claims to be, so a wrong
// claim fails.
func decodeThumb(tb testing.TB, typ string, b []byte) image.Image {
	tb.Helper()
	var m image.Image
	var err error
	switch typ {
	case JPEG:
		m, err = jpeg.Decode(bytes.NewReader(b))
	case PNG:
		m, err = png.Decode(bytes.NewReader(b))
	default:
		tb.Fatalf("thumbnail type %q", typ)
	}
	if err != nil {
		tb.Fatalf("the thumbnail does not decode as %s: %v", typ, err)
	}
	if info, err := detectBytes(b, Limits{}); err != nil || info.Type != typ {
		tb.Fatalf("Detect of the thumbnail = %+v, %v; want %s", info, err, typ)
	}
	return m
}

func TestThumbnailWidths(t *testing.T) {
	t.Parallel()
	for _, tt := range []struct {
		typ  string
		data []byte
	}{{JPEG, encodeJPEG(t, photo(2000, 1000))}, {PNG, encodePNG(t, graphic(2000, 1000))}} {
		for _, w := range []int{160, 320, 640, 1280} {
			var out bytes.Buffer
			typ, err := Thumbnail(&out, bytes.NewReader(tt.data), tt.typ, w)
			if err != nil {
				t.Fatalf("%s at %d: %v", tt.typ, w, err)
			}
			if typ != tt.typ {
				t.Errorf("%s at %d: wrote %s, want %s", tt.typ, w, typ, tt.typ)
			}
			m := decodeThumb(t, typ, out.Bytes())
			if got := m.Bounds().Size(); got != image.Pt(w, w/2) {
				t.Errorf("%s at %d: %v, want %dx%d", tt.typ, w, got, w, w/2)
			}
			if int64(out.Len()) >= int64(len(tt.data)) {
				t.Errorf("%s at %d: thumbnail of %d bytes, not smaller than the original's %d", tt.typ, w, out.Len(), len(tt.data))
			}
		}
	}
}

// The thumbnail looks like the original: compared with the Catmull-Rom
// kernel applied in one step (slow, large buffers), the two steps differ
// by less than one level in 255 on average.
func TestThumbnailQuality(t *testing.T) {
	t.Parallel()
	src := photo(3000, 2000)
	for _, w := range []int{160, 1280} {
		ref := image.NewRGBA(image.Rect(0, 0, w, (2000*w+1500)/3000)) // rounded
		draw.CatmullRom.Scale(ref, ref.Bounds(), src, src.Bounds(), draw.Src, nil)
		got := scaleImage(src, orientNormal, w, draw.CatmullRom)
		if got.Bounds() != ref.Bounds() {
			t.Fatalf("width %d: %v, want %v", w, got.Bounds(), ref.Bounds())
		}
		var sum, worst int
		for i := range ref.Pix {
			d := int(ref.Pix[i]) - int(got.Pix[i])
			d = max(d, -d)
			sum += d
			worst = max(worst, d)
		}
		t.Logf("width %d: mean %.3f worst %d", w, float64(sum)/float64(len(ref.Pix)), worst)
		if mean := float64(sum) / float64(len(ref.Pix)); mean >= 1 || worst > 12 {
			t.Errorf("width %d: mean difference %.2f, worst %d; want under 1 and at most 12", w, mean, worst)
		}
	}
}

func TestThumbnailDoesNotEnlarge(t *testing.T) {
	t.Parallel()
	for _, tt := range []struct {
		typ  string
		data []byte
	}{{JPEG, encodeJPEG(t, photo(100, 50))}, {PNG, encodePNG(t, photo(100, 50))}} {
		for _, w := range []int{100, 160, 1280} {
			var out bytes.Buffer
			typ, err := Thumbnail(&out, bytes.NewReader(tt.data), tt.typ, w)
			if err != nil {
				t.Fatal(err)
			}
			if got := decodeThumb(t, typ, out.Bytes()).Bounds().Size(); got != image.Pt(100, 50) {
				t.Errorf("%s of 100x50 at %d: %v, want 100x50", tt.typ, w, got)
			}
		}
	}
	// A very wide strip keeps at least one row.
	var out bytes.Buffer
	typ, err := Thumbnail(&out, bytes.NewReader(encodePNG(t, photo(3000, 7))), PNG, 160)
	if err != nil {
		t.Fatal(err)
	}
	if got := decodeThumb(t, typ, out.Bytes()).Bounds().Size(); got != image.Pt(160, 1) {
		t.Errorf("3000x7 at 160: %v, want 160x1", got)
	}
}

func TestThumbnailWebP(t *testing.T) {
	t.Parallel()
	tests := []struct {
		file     string
		width    int
		wantType string
		wantSize image.Point
	}{
		{"opaque.webp", 160, JPEG, image.Pt(150, 100)}, // not enlarged
		{"opaque.webp", 75, JPEG, image.Pt(75, 50)},
		{"alpha.webp", 160, PNG, image.Pt(75, 100)},
		{"alpha.webp", 50, PNG, image.Pt(50, 67)}, // 100 * 50 / 75 rounded
	}
	for _, tt := range tests {
		var out bytes.Buffer
		typ, err := Thumbnail(&out, bytes.NewReader(readTestdata(t, tt.file)), WebP, tt.width)
		if err != nil {
			t.Fatalf("%s at %d: %v", tt.file, tt.width, err)
		}
		if typ != tt.wantType {
			t.Errorf("%s at %d: wrote %s, want %s", tt.file, tt.width, typ, tt.wantType)
		}
		m := decodeThumb(t, typ, out.Bytes())
		if got := m.Bounds().Size(); got != tt.wantSize {
			t.Errorf("%s at %d: %v, want %v", tt.file, tt.width, got, tt.wantSize)
		}
		if tt.wantType == PNG && opaque(m) {
			t.Errorf("%s at %d: the transparency was lost", tt.file, tt.width)
		}
	}
}

// A transparent PNG stays transparent where it was, at every size.
func TestThumbnailKeepsTransparency(t *testing.T) {
	t.Parallel()
	src := solid(400, 200, color.NRGBA{200, 30, 30, 255})
	for y := range 200 {
		for x := 200; x < 400; x++ {
			src.Set(x, y, color.Transparent)
		}
	}
	var out bytes.Buffer
	typ, err := Thumbnail(&out, bytes.NewReader(encodePNG(t, src)), PNG, 160)
	if err != nil || typ != PNG {
		t.Fatalf("Thumbnail = %q, %v", typ, err)
	}
	m := decodeThumb(t, PNG, out.Bytes())
	if _, _, _, a := m.At(20, 40).RGBA(); a != 0xFFFF {
		t.Errorf("left half: alpha %d, want opaque", a)
	}
	if _, _, _, a := m.At(140, 40).RGBA(); a != 0 {
		t.Errorf("right half: alpha %d, want transparent", a)
	}
	// The colour of the opaque half is kept (no darkening by the
	// transparent half's black).
	if r, g, _, _ := m.At(20, 40).RGBA(); r>>8 < 190 || g>>8 > 40 {
		t.Errorf("left half: red %d green %d, want about 200, 30", r>>8, g>>8)
	}
}

func TestThumbnailRefusals(t *testing.T) {
	t.Parallel()
	j := encodeJPEG(t, photo(300, 200))
	if _, err := Thumbnail(io.Discard, bytes.NewReader(j), JPEG, 0); err == nil {
		t.Error("width 0: no error")
	}
	if _, err := Thumbnail(io.Discard, bytes.NewReader(kmlDoc(2)), KML, 160); err == nil {
		t.Error("a KML: no error")
	}
	var out bytes.Buffer
	_, err := Thumbnail(&out, bytes.NewReader(j[:len(j)/2]), JPEG, 160)
	wantFormatError(t, err, "the JPEG image is damaged")
	if out.Len() != 0 {
		t.Errorf("a failed thumbnail wrote %d bytes", out.Len())
	}
	_, err = ThumbnailWithin(io.Discard, bytes.NewReader(j), JPEG, 160, Limits{ImagePixels: 300*200 - 1})
	wantTooLarge(t, err)
	_, err = ThumbnailWithin(io.Discard, bytes.NewReader(j), JPEG, 160, Limits{ImageBytes: int64(len(j) - 1)})
	wantTooLarge(t, err)
	if _, err := ThumbnailWithin(io.Discard, bytes.NewReader(j), JPEG, 160, Limits{ImagePixels: 300 * 200}); err != nil {
		t.Errorf("at the pixel limit: %v", err)
	}
}
