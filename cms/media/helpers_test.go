package media

import (
	"archive/zip"
	"bytes"
	"errors"
	"image"
	"image/color"
	"image/jpeg"
	"image/png"
	"math/rand/v2"
	"os"
	"path/filepath"
	"runtime"
	"strings"
	"testing"
)

// photo draws a w x h picture with gradients and noise, so it compresses
// like a photograph rather than like a flat colour.
func photo(w, h int) *image.RGBA {
	m := image.NewRGBA(image.Rect(0, 0, w, h))
	rnd := rand.New(rand.NewPCG(uint64(w), uint64(h)))
	for y := range h {
		for x := range w {
			n := uint8(rnd.IntN(24))
			i := m.PixOffset(x, y)
			m.Pix[i+0] = uint8(x*200/w) + n
			m.Pix[i+1] = uint8(y*200/h) + n
			m.Pix[i+2] = uint8((x+y)*100/(w+h)) + n
			m.Pix[i+3] = 0xFF
		}
	}
	return m
}

// graphic draws a w x h picture of flat bands and a soft gradient, like a
// map or a chart: a PNG's usual content.
func graphic(w, h int) *image.RGBA {
	m := image.NewRGBA(image.Rect(0, 0, w, h))
	for y := range h {
		for x := range w {
			i := m.PixOffset(x, y)
			m.Pix[i+0] = uint8(x * 255 / w)
			m.Pix[i+1] = uint8((y / 50 % 2) * 200)
			m.Pix[i+2] = uint8((x / 100 % 3) * 100)
			m.Pix[i+3] = 0xFF
		}
	}
	return m
}

func encodeJPEG(tb testing.TB, m image.Image) []byte {
	tb.Helper()
	var b bytes.Buffer
	if err := jpeg.Encode(&b, m, &jpeg.Options{Quality: 90}); err != nil {
		tb.Fatal(err)
	}
	return b.Bytes()
}

func encodePNG(tb testing.TB, m image.Image) []byte {
	tb.Helper()
	var b bytes.Buffer
	if err := png.Encode(&b, m); err != nil {
		tb.Fatal(err)
	}
	return b.Bytes()
}

func readTestdata(tb testing.TB, name string) []byte {
	tb.Helper()
	b, err := os.ReadFile(filepath.Join("testdata", name))
	if err != nil {
		tb.Fatal(err)
	}
	return b
}

func detectBytes(b []byte, lim Limits) (Info, error) {
	return Detect(bytes.NewReader(b), int64(len(b)), lim)
}

// wantFormatError checks err is a *FormatError whose message holds want.
func wantFormatError(tb testing.TB, err error, want string) {
	tb.Helper()
	var fe *FormatError
	if !errors.As(err, &fe) {
		tb.Fatalf("error = %v (%T), want a *FormatError saying %q", err, err, want)
	}
	if !strings.Contains(fe.Msg, want) {
		tb.Fatalf("message = %q, want it to hold %q", fe.Msg, want)
	}
	if errors.Is(err, ErrTooLarge) {
		tb.Fatalf("a format error also matches ErrTooLarge: %v", err)
	}
}

func wantTooLarge(tb testing.TB, err error) {
	tb.Helper()
	if !errors.Is(err, ErrTooLarge) {
		tb.Fatalf("error = %v, want ErrTooLarge", err)
	}
	var fe *FormatError
	if errors.As(err, &fe) {
		tb.Fatalf("ErrTooLarge also matches *FormatError: %v", err)
	}
}

// allocated returns the bytes allocated while f ran. Tests using it do not
// run in parallel, so little else allocates meanwhile.
func allocated(f func()) uint64 {
	var before, after runtime.MemStats
	runtime.GC()
	runtime.ReadMemStats(&before)
	f()
	runtime.ReadMemStats(&after)
	return after.TotalAlloc - before.TotalAlloc
}

// zipEntry is one entry of a test archive. With raw set, data is written
// as already compressed by method and the header carries crc and size as
// given, to make archives that lie.
type zipEntry struct {
	name   string
	data   []byte
	method uint16
	raw    bool
	crc    uint32
	size   uint64
	flags  uint16
}

func makeZip(tb testing.TB, entries ...zipEntry) []byte {
	tb.Helper()
	var b bytes.Buffer
	zw := zip.NewWriter(&b)
	for _, e := range entries {
		if e.raw {
			w, err := zw.CreateRaw(&zip.FileHeader{
				Name: e.name, Method: e.method, Flags: e.flags, CRC32: e.crc,
				CompressedSize64: uint64(len(e.data)), UncompressedSize64: e.size,
			})
			if err != nil {
				tb.Fatal(err)
			}
			if _, err := w.Write(e.data); err != nil {
				tb.Fatal(err)
			}
			continue
		}
		method := e.method
		if method == 0 && !strings.HasSuffix(e.name, "/") {
			method = zip.Deflate
		}
		w, err := zw.CreateHeader(&zip.FileHeader{Name: e.name, Method: method})
		if err != nil {
			tb.Fatal(err)
		}
		if _, err := w.Write(e.data); err != nil {
			tb.Fatal(err)
		}
	}
	if err := zw.Close(); err != nil {
		tb.Fatal(err)
	}
	return b.Bytes()
}

// solid is a w x h image of one colour.
func solid(w, h int, c color.Color) *image.RGBA {
	m := image.NewRGBA(image.Rect(0, 0, w, h))
	for y := range h {
		for x := range w {
			m.Set(x, y, c)
		}
	}
	return m
}
