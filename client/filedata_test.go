package client_test

import (
	"bytes"
	"fmt"
	"image"
	"image/color"
	"image/jpeg"
	"image/png"
	"io"
	"math"
	"math/rand/v2"
	"strings"
	"testing"
	"time"
)

// photo is a JPEG of w×h pixels of noise over a gradient (noise keeps it
// large, as a camera's photo is), the same for the same seed.
func photo(tb testing.TB, w, h int, seed uint64) []byte {
	tb.Helper()
	rng := rand.New(rand.NewPCG(seed, 1))
	img := image.NewRGBA(image.Rect(0, 0, w, h))
	for y := range h {
		for x := range w {
			n := uint8(rng.IntN(64))
			img.Pix[img.PixOffset(x, y)+0] = uint8(x*255/w) ^ n
			img.Pix[img.PixOffset(x, y)+1] = uint8(y*255/h) ^ n
			img.Pix[img.PixOffset(x, y)+2] = n * 3
			img.Pix[img.PixOffset(x, y)+3] = 255
		}
	}
	var b bytes.Buffer
	if err := jpeg.Encode(&b, img, &jpeg.Options{Quality: 92}); err != nil {
		tb.Fatal(err)
	}
	return b.Bytes()
}

// icon is a small PNG, different for each seed.
func icon(tb testing.TB, seed int) []byte {
	tb.Helper()
	img := image.NewNRGBA(image.Rect(0, 0, 64, 48))
	for y := range 48 {
		for x := range 64 {
			img.Set(x, y, color.NRGBA{uint8(seed), uint8(x * 4), uint8(y * 5), 255})
		}
	}
	var b bytes.Buffer
	if err := png.Encode(&b, img); err != nil {
		tb.Fatal(err)
	}
	return b.Bytes()
}

// loop is a GPX track of n points round a circle of radius meters near
// Lake Como, a point every 5 seconds, climbing 100 m and back down: it
// starts where it ends.
func loop(n int, radius float64) string {
	var b strings.Builder
	b.WriteString(`<?xml version="1.0" encoding="UTF-8"?>
<gpx version="1.1" creator="client test" xmlns="http://www.topografix.com/GPX/1/1"><trk><name>Loop</name><trkseg>
`)
	const lat0, lon0 = 45.85, 9.10
	start := time.Date(2026, 6, 1, 8, 0, 0, 0, time.UTC)
	for i := range n {
		a := 2 * math.Pi * float64(i) / float64(n-1)
		lat := lat0 + radius*math.Sin(a)/111_195
		lon := lon0 + radius*math.Cos(a)/(111_195*math.Cos(lat0*math.Pi/180))
		ele := 200 + 100*math.Sin(a/2)
		fmt.Fprintf(&b, "<trkpt lat=\"%.7f\" lon=\"%.7f\"><ele>%.1f</ele><time>%s</time></trkpt>\n",
			lat, lon, ele, start.Add(time.Duration(i)*5*time.Second).Format(time.RFC3339))
	}
	b.WriteString("</trkseg></trk></gpx>\n")
	return b.String()
}

// onlyReader hides every method but Read (an io.Seeker, an io.WriterTo),
// as a network stream has none.
type onlyReader struct{ r io.Reader }

func (o onlyReader) Read(p []byte) (int, error) { return o.r.Read(p) }

func stream(b []byte) io.Reader { return onlyReader{bytes.NewReader(b)} }

// sized yields n bytes of a repeating pattern without holding them.
type sized struct{ left int64 }

func (s *sized) Read(p []byte) (int, error) {
	if s.left <= 0 {
		return 0, io.EOF
	}
	n := int(min(int64(len(p)), s.left))
	for i := range n {
		p[i] = byte('a' + i%26)
	}
	s.left -= int64(n)
	return n, nil
}
