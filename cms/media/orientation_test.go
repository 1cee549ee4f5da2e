package media

import (
	"bytes"
	"encoding/binary"
	"image"
	"image/color"
	"image/jpeg"
	"testing"
)

// withOrientation inserts an EXIF block with the Orientation tag o right
// after a JPEG's start marker, in the byte order given.
func withOrientation(j []byte, o uint16, order binary.ByteOrder) []byte {
	var tiff bytes.Buffer
	if order == binary.LittleEndian {
		tiff.WriteString("II")
	} else {
		tiff.WriteString("MM")
	}
	w := func(v any) { binary.Write(&tiff, order, v) }
	w(uint16(42))
	w(uint32(8)) // IFD0 right after the header
	w(uint16(2)) // two entries: another tag first, then Orientation
	w(uint16(0x010F))
	w(uint16(2)) // ASCII "Make", value in place
	w(uint32(4))
	tiff.WriteString("Cam\x00")
	w(uint16(0x0112))
	w(uint16(3)) // SHORT
	w(uint32(1))
	w(o)
	w(uint16(0))
	w(uint32(0)) // no next IFD
	seg := append([]byte("Exif\x00\x00"), tiff.Bytes()...)
	out := []byte{0xFF, 0xD8, 0xFF, 0xE1}
	out = binary.BigEndian.AppendUint16(out, uint16(len(seg)+2))
	out = append(out, seg...)
	return append(out, j[2:]...)
}

// quadrants paints a w x h image: red top left, green top right, blue below.
func quadrants(w, h int) *image.RGBA {
	m := image.NewRGBA(image.Rect(0, 0, w, h))
	for y := range h {
		for x := range w {
			c := color.RGBA{0, 0, 255, 255}
			if y < h/2 {
				c = color.RGBA{255, 0, 0, 255}
				if x >= w/2 {
					c = color.RGBA{0, 255, 0, 255}
				}
			}
			m.Set(x, y, c)
		}
	}
	return m
}

// colourName names the strongest channel of a pixel.
func colourName(c color.Color) string {
	r, g, b, _ := c.RGBA()
	switch {
	case r > g && r > b:
		return "R"
	case g > r && g > b:
		return "G"
	default:
		return "B"
	}
}

// A JPEG's EXIF orientation is applied: Detect reports the dimensions as
// shown, and thumbnails are turned upright. The expected quadrants follow
// the EXIF definitions (2 mirrors left to right, 6 is turned a quarter
// clockwise for display, ...), from a 200x100 picture red top left, green
// top right, blue below.
func TestOrientation(t *testing.T) {
	t.Parallel()
	stored := encodeJPEG(t, quadrants(200, 100))
	tests := []struct {
		o      uint16
		w, h   int
		layout string // top left, top right, bottom left, bottom right
	}{
		{1, 200, 100, "RGBB"},
		{2, 200, 100, "GRBB"},
		{3, 200, 100, "BBGR"},
		{4, 200, 100, "BBRG"},
		{5, 100, 200, "RBGB"},
		{6, 100, 200, "BRBG"},
		{7, 100, 200, "BGBR"},
		{8, 100, 200, "GBRB"},
		{0, 200, 100, "RGBB"}, // out of range: ignored
		{9, 200, 100, "RGBB"},
	}
	for _, tt := range tests {
		for _, order := range []binary.ByteOrder{binary.BigEndian, binary.LittleEndian} {
			data := withOrientation(stored, tt.o, order)
			info, err := detectBytes(data, Limits{})
			if err != nil {
				t.Fatalf("orientation %d: %v", tt.o, err)
			}
			if info.Width != tt.w || info.Height != tt.h {
				t.Errorf("orientation %d (%v): Detect says %dx%d, want %dx%d", tt.o, order, info.Width, info.Height, tt.w, tt.h)
			}
			// At its own size and scaled down, the layout is the same.
			for _, width := range []int{1280, tt.w / 2} {
				var out bytes.Buffer
				typ, err := Thumbnail(&out, bytes.NewReader(data), JPEG, width)
				if err != nil || typ != JPEG {
					t.Fatalf("orientation %d: Thumbnail = %q, %v", tt.o, typ, err)
				}
				m, err := jpeg.Decode(&out)
				if err != nil {
					t.Fatal(err)
				}
				b := m.Bounds()
				wantW := min(width, tt.w)
				if b.Dx() != wantW || b.Dy() != tt.h*wantW/tt.w {
					t.Errorf("orientation %d width %d: thumbnail %dx%d, want %dx%d", tt.o, width, b.Dx(), b.Dy(), wantW, tt.h*wantW/tt.w)
				}
				qx, qy := b.Dx()/4, b.Dy()/4
				got := colourName(m.At(qx, qy)) + colourName(m.At(3*qx, qy)) + colourName(m.At(qx, 3*qy)) + colourName(m.At(3*qx, 3*qy))
				if got != tt.layout {
					t.Errorf("orientation %d width %d: quadrants %s, want %s", tt.o, width, got, tt.layout)
				}
			}
		}
	}
}

// Broken EXIF blocks are ignored, never a reason to refuse a JPEG.
func TestOrientationBrokenEXIF(t *testing.T) {
	t.Parallel()
	j := encodeJPEG(t, photo(40, 20))
	good := withOrientation(j, 6, binary.BigEndian)
	seg := bytes.Index(good, []byte("Exif"))
	for name, mutate := range map[string]func([]byte){
		"byte order":   func(b []byte) { b[seg+6] = 'X' },
		"magic":        func(b []byte) { b[seg+9] = 7 },
		"IFD offset":   func(b []byte) { b[seg+13] = 0xF0 },
		"entry count":  func(b []byte) { b[seg+15] = 1 },                                              // Orientation left out
		"huge count":   func(b []byte) { b[seg+14] = 0xFF; b[seg+15] = 0xFF; b[seg+6+8+2+12] = 0x77 }, // past the end, no Orientation
		"value type":   func(b []byte) { b[seg+6+8+2+12+3] = 4 },
		"segment size": func(b []byte) { b[5] = 4 }, // the decoder skips to the next marker
	} {
		data := append([]byte{}, good...)
		mutate(data)
		info, err := detectBytes(data, Limits{})
		if err != nil {
			t.Errorf("%s: %v", name, err)
			continue
		}
		if info.Width != 40 || info.Height != 20 {
			t.Errorf("%s: %dx%d, want 40x20 (orientation ignored)", name, info.Width, info.Height)
		}
	}
}
