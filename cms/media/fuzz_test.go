package media

import (
	"bytes"
	"encoding/binary"
	"errors"
	"io"
	"testing"
)

// FuzzDetect: Detect never panics, every refusal is a *FormatError or
// ErrTooLarge (the reader cannot fail), and what it accepts is consistent.
// Accepted images are thumbnailed too, which must not panic either.
func FuzzDetect(f *testing.F) {
	f.Add(encodeJPEG(f, photo(16, 8)))
	f.Add(withOrientation(encodeJPEG(f, photo(8, 16)), 6, binary.LittleEndian))
	f.Add(encodePNG(f, photo(8, 8)))
	f.Add(pngHeader(3, 2))
	f.Add(readTestdata(f, "opaque.webp"))
	f.Add(readTestdata(f, "alpha.webp"))
	f.Add(animatedWebP())
	f.Add(kmlDoc(2))
	f.Add(gpxDoc("1.1", 2))
	f.Add([]byte(`<?xml version="1.0"?><!DOCTYPE kml [<!ENTITY a "b">]><kml>&a;</kml>`))
	f.Add(makeZip(f, zipEntry{name: "doc.kml", data: kmlDoc(1)}, zipEntry{name: "files/a.png", data: []byte("x")}))
	f.Add(makeZip(f))
	f.Add([]byte("plain text"))
	f.Add([]byte{})
	lim := Limits{ImagePixels: 1 << 20, XMLBytes: 1 << 20, KMZUnpacked: 1 << 20}
	f.Fuzz(func(t *testing.T, data []byte) {
		info, err := detectBytes(data, lim)
		if err != nil {
			var fe *FormatError
			if !errors.As(err, &fe) && !errors.Is(err, ErrTooLarge) {
				t.Fatalf("refusal of another kind: %v (%T)", err, err)
			}
			if fe != nil && fe.Msg == "" {
				t.Fatal("a format error without a message")
			}
			return
		}
		if info.Ext == "" || info.Ext != Ext(info.Type) {
			t.Fatalf("accepted as %+v", info)
		}
		if IsImage(info.Type) != (info.Width > 0 && info.Height > 0) {
			t.Fatalf("accepted as %+v: dimensions only for images", info)
		}
		if (info.Type == KMZ) != (info.KML != nil) {
			t.Fatalf("accepted as %+v: KML only for a KMZ", info)
		}
		if IsImage(info.Type) {
			typ, err := ThumbnailWithin(io.Discard, bytes.NewReader(data), info.Type, 16, lim)
			if err == nil && typ != JPEG && typ != PNG {
				t.Fatalf("thumbnail of type %q", typ)
			}
		}
	})
}
