package media

import (
	"bytes"
	"image"
	"io"
	"strconv"
	"testing"

	"golang.org/x/image/draw"
)

// BenchmarkThumbnail makes each thumbnail width of a 4000x3000 JPEG, the
// size of a phone's photograph.
func BenchmarkThumbnail(b *testing.B) {
	src := encodeJPEG(b, photo(4000, 3000))
	for _, w := range []int{160, 1280} {
		b.Run(strconv.Itoa(w), func(b *testing.B) {
			b.ReportAllocs()
			for b.Loop() {
				if _, err := Thumbnail(io.Discard, bytes.NewReader(src), JPEG, w); err != nil {
					b.Fatal(err)
				}
			}
		})
	}
}

// BenchmarkScale compares, on a decoded 4000x3000 JPEG (without the
// decode and encode around them), the two steps Thumbnail uses with the
// x/image/draw scalers applied directly.
func BenchmarkScale(b *testing.B) {
	img, _, err := loadImage(bytes.NewReader(encodeJPEG(b, photo(4000, 3000))), JPEG, Limits{}.withDefaults())
	if err != nil {
		b.Fatal(err)
	}
	for _, w := range []int{160, 1280} {
		b.Run("TwoSteps/"+strconv.Itoa(w), func(b *testing.B) {
			b.ReportAllocs()
			for b.Loop() {
				scaleImage(img, orientNormal, w, draw.CatmullRom)
			}
		})
	}
	scalers := []struct {
		name string
		s    draw.Scaler
	}{{"CatmullRom", draw.CatmullRom}, {"ApproxBiLinear", draw.ApproxBiLinear}}
	for _, s := range scalers {
		for _, w := range []int{160, 1280} {
			b.Run("Direct"+s.name+"/"+strconv.Itoa(w), func(b *testing.B) {
				b.ReportAllocs()
				for b.Loop() {
					dst := image.NewRGBA(image.Rect(0, 0, w, w*3/4))
					s.s.Scale(dst, dst.Bounds(), img, img.Bounds(), draw.Src, nil)
				}
			})
		}
	}
}

// BenchmarkDecodeJPEG is the decode alone, to read the thumbnail figures.
func BenchmarkDecodeJPEG(b *testing.B) {
	src := encodeJPEG(b, photo(4000, 3000))
	b.ReportAllocs()
	for b.Loop() {
		if err := Verify(bytes.NewReader(src), JPEG, Limits{}); err != nil {
			b.Fatal(err)
		}
	}
}

// BenchmarkDetectKML reads a KML of almost 10 MB, the limit, whole.
func BenchmarkDetectKML(b *testing.B) {
	doc := kmlDoc(1)
	doc = kmlDoc((10<<20 - 100) / (len(doc) - 100) * 95 / 100)
	b.SetBytes(int64(len(doc)))
	b.ReportAllocs()
	for b.Loop() {
		if _, err := detectBytes(doc, Limits{}); err != nil {
			b.Fatal(err)
		}
	}
}

// BenchmarkDetectKMZ unpacks a KMZ holding a KML of about 5 MB and a few
// images.
func BenchmarkDetectKMZ(b *testing.B) {
	kmz := makeZip(b, zipEntry{name: "doc.kml", data: kmlDoc(25000)},
		zipEntry{name: "files/a.png", data: encodePNG(b, photo(200, 200))},
		zipEntry{name: "files/b.jpg", data: encodeJPEG(b, photo(400, 300))})
	b.SetBytes(int64(len(kmz)))
	b.ReportAllocs()
	for b.Loop() {
		if _, err := detectBytes(kmz, Limits{}); err != nil {
			b.Fatal(err)
		}
	}
}

// BenchmarkDetectJPEG reads a 4000x3000 JPEG's header.
func BenchmarkDetectJPEG(b *testing.B) {
	src := encodeJPEG(b, photo(4000, 3000))
	b.ReportAllocs()
	for b.Loop() {
		if _, err := detectBytes(src, Limits{}); err != nil {
			b.Fatal(err)
		}
	}
}
