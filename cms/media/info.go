package media

import (
	"fmt"
	"io"
	"strings"
)

// The accepted types, as media types.
const (
	JPEG = "image/jpeg"
	PNG  = "image/png"
	WebP = "image/webp"
	KML  = "application/vnd.google-earth.kml+xml"
	KMZ  = "application/vnd.google-earth.kmz"
	GPX  = "application/gpx+xml"
)

// Info is what [Detect] found.
type Info struct {
	// Type is one of the constants [JPEG], [PNG], [WebP], [KML], [KMZ], [GPX].
	Type string
	// Ext is the type's file name extension without its dot: "jpg", "png",
	// "webp", "kml", "kmz" or "gpx".
	Ext string
	// Width and Height are an image's size in pixels as it is displayed: a
	// JPEG whose EXIF orientation turns it by a quarter reports its
	// dimensions swapped, as browsers show it. Zero for other types.
	Width, Height int
	// KML is, for a KMZ, its inner .kml document (at most the XML limit),
	// so the caller can read it as a track or a map layer; nil otherwise.
	KML []byte
}

// Ext returns the file name extension (without a dot) of an accepted type,
// or "" for any other.
func Ext(typ string) string {
	switch typ {
	case JPEG:
		return "jpg"
	case PNG:
		return "png"
	case WebP:
		return "webp"
	case KML:
		return "kml"
	case KMZ:
		return "kmz"
	case GPX:
		return "gpx"
	}
	return ""
}

// IsImage reports whether typ is one of the image types.
func IsImage(typ string) bool { return typ == JPEG || typ == PNG || typ == WebP }

// Magic numbers of the binary types.
const (
	magicJPEG = "\xFF\xD8\xFF"
	magicPNG  = "\x89PNG\r\n\x1A\n"
	magicZip  = "PK\x03\x04"
	// An archive without entries starts with its end record.
	magicEmptyZip = "PK\x05\x06"
)

// sniffLen is how much of the start of a file decides its type.
const sniffLen = 512

// Detect judges a file of size bytes, read through r, from its content
// alone: a file name or a declared type is never consulted. It returns what
// it found, or an error wrapping [ErrTooLarge] when the file is over its
// type's limit, or a [*FormatError] saying in a sentence why the file is
// refused. Images are judged from their headers (no pixel is decoded, see
// [Verify]); KML and GPX documents are read whole and must be well-formed
// XML without a DTD; a KMZ is unpacked within its limits and its .kml
// document checked like a KML file.
//
// Detect reads r only within [0, size) and keeps at most one XML document
// (the XML limit) in memory.
func Detect(r io.ReaderAt, size int64, lim Limits) (Info, error) {
	lim = lim.withDefaults()
	if size <= 0 {
		return Info{}, formatError("the file is empty")
	}
	head := make([]byte, min(size, sniffLen))
	n, err := r.ReadAt(head, 0)
	if n < len(head) {
		if err == nil || err == io.EOF {
			err = io.ErrUnexpectedEOF
		}
		return Info{}, fmt.Errorf("media: reading the file: %w", err)
	}
	switch h := string(head[:min(len(head), 16)]); {
	case strings.HasPrefix(h, magicJPEG):
		return detectImage(r, size, lim, JPEG)
	case strings.HasPrefix(h, magicPNG):
		return detectImage(r, size, lim, PNG)
	case isWebP(head):
		return detectImage(r, size, lim, WebP)
	case strings.HasPrefix(h, magicZip), strings.HasPrefix(h, magicEmptyZip):
		return detectKMZ(r, size, lim)
	}
	return detectXML(r, size, lim, head)
}

// isWebP reports a RIFF container of form type WEBP.
func isWebP(head []byte) bool {
	return len(head) >= 12 && string(head[0:4]) == "RIFF" && string(head[8:12]) == "WEBP"
}
