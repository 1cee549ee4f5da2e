package media

import (
	"bytes"
	"encoding/binary"
	"errors"
	"hash/crc32"
	"image"
	"image/color"
	"io"
	"os"
	"path/filepath"
	"testing"
)

func TestDetectImages(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name string
		data []byte
		want Info
	}{
		{"jpeg", encodeJPEG(t, photo(2000, 1000)), Info{Type: JPEG, Ext: "jpg", Width: 2000, Height: 1000}},
		{"png", encodePNG(t, photo(640, 480)), Info{Type: PNG, Ext: "png", Width: 640, Height: 480}},
		{"paletted png", encodePNG(t, image.NewPaletted(image.Rect(0, 0, 30, 20), color.Palette{color.Black, color.White})), Info{Type: PNG, Ext: "png", Width: 30, Height: 20}},
		{"lossy webp", readTestdata(t, "opaque.webp"), Info{Type: WebP, Ext: "webp", Width: 150, Height: 100}},
		{"lossless webp with alpha", readTestdata(t, "alpha.webp"), Info{Type: WebP, Ext: "webp", Width: 75, Height: 100}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			got, err := detectBytes(tt.data, Limits{})
			if err != nil {
				t.Fatal(err)
			}
			if got.Type != tt.want.Type || got.Ext != tt.want.Ext || got.Width != tt.want.Width || got.Height != tt.want.Height || got.KML != nil {
				t.Errorf("Detect = %+v, want %+v", got, tt.want)
			}
		})
	}
}

// The name of a file is never consulted: a PNG saved as route.gpx and read
// from disk is a PNG.
func TestDetectIgnoresTheName(t *testing.T) {
	t.Parallel()
	p := filepath.Join(t.TempDir(), "route.gpx")
	if err := os.WriteFile(p, encodePNG(t, photo(64, 32)), 0o600); err != nil {
		t.Fatal(err)
	}
	f, err := os.Open(p)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	st, err := f.Stat()
	if err != nil {
		t.Fatal(err)
	}
	got, err := Detect(f, st.Size(), Limits{})
	if err != nil {
		t.Fatal(err)
	}
	if got.Type != PNG || got.Ext != "png" || got.Width != 64 || got.Height != 32 {
		t.Errorf("Detect = %+v, want a 64x32 PNG", got)
	}
}

func TestDetectRefusesBrokenImages(t *testing.T) {
	t.Parallel()
	good := encodeJPEG(t, photo(100, 80))
	tests := []struct {
		name string
		data []byte
		want string
	}{
		{"jpeg header then garbage", append([]byte{0xFF, 0xD8, 0xFF, 0xE0}, bytes.Repeat([]byte("garbage!"), 100)...), "the file starts like a JPEG image but is not a valid one"},
		{"jpeg magic only", []byte{0xFF, 0xD8, 0xFF}, "starts like a JPEG image"},
		{"jpeg cut in its header", good[:20], "starts like a JPEG image"},
		{"png signature then garbage", append([]byte(magicPNG), []byte("not a chunk at all")...), "the file starts like a PNG image but is not a valid one"},
		{"png of zero width", pngHeader(0, 100), "starts like a PNG image"},
		{"webp riff then garbage", []byte("RIFF\x20\x00\x00\x00WEBPjunkjunkjunkjunkjunkjunk"), "the file starts like a WebP image but is not a valid one"},
		{"animated webp", animatedWebP(), "animated WebP images are not accepted"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			_, err := detectBytes(tt.data, Limits{})
			wantFormatError(t, err, tt.want)
		})
	}
}

// pngHeader is a PNG signature and IHDR chunk declaring w x h RGBA pixels,
// with no pixel data at all: enough for a header reader, nothing for a
// decoder.
func pngHeader(w, h uint32) []byte {
	var b bytes.Buffer
	b.WriteString(magicPNG)
	ihdr := make([]byte, 13)
	binary.BigEndian.PutUint32(ihdr[0:], w)
	binary.BigEndian.PutUint32(ihdr[4:], h)
	ihdr[8], ihdr[9] = 8, 6 // 8 bits, RGBA
	writeChunk := func(typ string, data []byte) {
		binary.Write(&b, binary.BigEndian, uint32(len(data)))
		b.WriteString(typ)
		b.Write(data)
		binary.Write(&b, binary.BigEndian, crc32.ChecksumIEEE(append([]byte(typ), data...)))
	}
	writeChunk("IHDR", ihdr)
	writeChunk("IEND", nil)
	return b.Bytes()
}

// animatedWebP is the start of an animated WebP: a VP8X header with the
// animation flag and an ANIM chunk.
func animatedWebP() []byte {
	var body bytes.Buffer
	body.WriteString("WEBP")
	body.WriteString("VP8X")
	binary.Write(&body, binary.LittleEndian, uint32(10))
	body.Write([]byte{0x02, 0, 0, 0, 99, 0, 0, 49, 0, 0}) // animation; 100x50
	body.WriteString("ANIM")
	binary.Write(&body, binary.LittleEndian, uint32(6))
	body.Write(make([]byte, 6))
	return append(append([]byte("RIFF"), binary.LittleEndian.AppendUint32(nil, uint32(body.Len()))...), body.Bytes()...)
}

// A 10000 x 10000 image (100 megapixels, 400 MB once decoded) is refused
// from its header: the check allocates next to nothing. Not parallel, so
// the allocation count is this test's own.
func TestDetectRefusesTooManyPixelsWithoutDecoding(t *testing.T) {
	huge := pngHeader(10000, 10000)
	var err error
	n := allocated(func() { _, err = detectBytes(huge, Limits{}) })
	wantTooLarge(t, err)
	if n > 1<<20 {
		t.Errorf("refusing the header allocated %d bytes, want under 1 MB", n)
	}
	// Thumbnail and Verify refuse it the same way, before decoding.
	n = allocated(func() { _, err = Thumbnail(io.Discard, bytes.NewReader(huge), PNG, 160) })
	wantTooLarge(t, err)
	if n > 1<<20 {
		t.Errorf("Thumbnail allocated %d bytes refusing the header, want under 1 MB", n)
	}
	wantTooLarge(t, Verify(bytes.NewReader(huge), PNG, Limits{}))
}

func TestDetectImageLimits(t *testing.T) {
	t.Parallel()
	// Exactly at the pixel limit is accepted, one pixel over is not.
	if _, err := detectBytes(pngHeader(100, 100), Limits{ImagePixels: 10000}); err != nil {
		t.Errorf("100x100 at a limit of 10000 pixels: %v", err)
	}
	_, err := detectBytes(pngHeader(101, 100), Limits{ImagePixels: 10000})
	wantTooLarge(t, err)
	// The default: 40 megapixels.
	if _, err := detectBytes(pngHeader(8000, 5000), Limits{}); err != nil {
		t.Errorf("8000x5000 under the default limits: %v", err)
	}
	_, err = detectBytes(pngHeader(8000, 5001), Limits{})
	wantTooLarge(t, err)

	// Bytes: a JPEG larger than ImageBytes, whatever its pixels.
	j := encodeJPEG(t, photo(300, 200))
	_, err = detectBytes(j, Limits{ImageBytes: int64(len(j)) - 1})
	wantTooLarge(t, err)
	if _, err := detectBytes(j, Limits{ImageBytes: int64(len(j))}); err != nil {
		t.Errorf("a JPEG exactly at the byte limit: %v", err)
	}
}

// A file cut after its header passes Detect, which reads headers only;
// Verify decodes it and refuses it.
func TestVerify(t *testing.T) {
	t.Parallel()
	for _, tt := range []struct {
		typ  string
		data []byte
	}{
		{JPEG, encodeJPEG(t, photo(400, 300))},
		{PNG, encodePNG(t, photo(400, 300))},
		{WebP, readTestdata(t, "opaque.webp")},
	} {
		if err := Verify(bytes.NewReader(tt.data), tt.typ, Limits{}); err != nil {
			t.Errorf("%s: Verify of a whole image: %v", tt.typ, err)
		}
		cut := tt.data[:len(tt.data)*2/3]
		if _, err := detectBytes(cut, Limits{}); err != nil {
			t.Errorf("%s: Detect of a cut file: %v, want it to pass (headers only)", tt.typ, err)
		}
		wantFormatError(t, Verify(bytes.NewReader(cut), tt.typ, Limits{}), "is damaged: its pixels cannot be read")
	}
	// The declared type is the caller's: PNG bytes said to be a JPEG fail.
	wantFormatError(t, Verify(bytes.NewReader(encodePNG(t, photo(10, 10))), JPEG, Limits{}), "starts like a JPEG image but is not a valid one")
	if err := Verify(bytes.NewReader(nil), GPX, Limits{}); err == nil {
		t.Error("Verify of a GPX: no error")
	}
}

// failingReaderAt fails every read, as a broken disk would.
type failingReaderAt struct{}

var errDisk = errors.New("disk on fire")

func (failingReaderAt) ReadAt([]byte, int64) (int, error) { return 0, errDisk }

// A read error is the caller's to report as a failure, not a bad file.
func TestDetectReportsReadErrors(t *testing.T) {
	t.Parallel()
	_, err := Detect(failingReaderAt{}, 1000, Limits{})
	if !errors.Is(err, errDisk) {
		t.Fatalf("Detect = %v, want the read error", err)
	}
	var fe *FormatError
	if errors.As(err, &fe) {
		t.Fatalf("a read error reported as a format error: %v", err)
	}
	// The header reads, the rest does not.
	j := encodeJPEG(t, photo(200, 100))
	_, err = Detect(&halfReaderAt{data: j, upTo: 600}, int64(len(j)), Limits{})
	if !errors.Is(err, errDisk) {
		t.Fatalf("Detect of a JPEG failing halfway = %v, want the read error", err)
	}
	x := []byte(`<?xml version="1.0"?><kml xmlns="http://www.opengis.net/kml/2.2"><Document>` + string(bytes.Repeat([]byte("<Placemark><name>p</name></Placemark>"), 200)) + `</Document></kml>`)
	_, err = Detect(&halfReaderAt{data: x, upTo: 600}, int64(len(x)), Limits{})
	if !errors.Is(err, errDisk) {
		t.Fatalf("Detect of a KML failing halfway = %v, want the read error", err)
	}
}

// halfReaderAt serves data up to an offset, then fails.
type halfReaderAt struct {
	data []byte
	upTo int64
}

func (h *halfReaderAt) ReadAt(p []byte, off int64) (int, error) {
	if off+int64(len(p)) > h.upTo {
		return 0, errDisk
	}
	return copy(p, h.data[off:]), nil
}
