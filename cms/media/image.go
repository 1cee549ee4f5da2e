package media

import (
	"bytes"
	"errors"
	"fmt"
	"image"
	"image/jpeg"
	"image/png"
	"io"

	"golang.org/x/image/webp"
)

// typeName names a type in messages.
func typeName(typ string) string {
	switch typ {
	case JPEG:
		return "JPEG"
	case PNG:
		return "PNG"
	case WebP:
		return "WebP"
	case KML:
		return "KML"
	case KMZ:
		return "KMZ"
	case GPX:
		return "GPX"
	}
	return "unknown"
}

// detectImage reads an image's header: its size in pixels, and for a JPEG
// its EXIF orientation. No pixel is decoded.
func detectImage(r io.ReaderAt, size int64, lim Limits, typ string) (Info, error) {
	if size > lim.ImageBytes {
		return Info{}, tooLarge("%s image of %d bytes, the limit is %d", typeName(typ), size, lim.ImageBytes)
	}
	rec := &recordingReaderAt{r: r, size: size}
	cfg, err := decodeConfig(io.NewSectionReader(rec, 0, size), typ)
	if rec.err != nil {
		return Info{}, fmt.Errorf("media: reading the file: %w", rec.err)
	}
	if err != nil || cfg.Width <= 0 || cfg.Height <= 0 {
		return Info{}, unreadableImage(typ)
	}
	if px := int64(cfg.Width) * int64(cfg.Height); px > lim.ImagePixels {
		return Info{}, tooLarge("%s image of %dx%d pixels, the limit is %d pixels", typeName(typ), cfg.Width, cfg.Height, lim.ImagePixels)
	}
	info := Info{Type: typ, Ext: Ext(typ), Width: cfg.Width, Height: cfg.Height}
	switch typ {
	case WebP:
		if animated, err := webpAnimated(rec, size); err != nil {
			return Info{}, unreadableImage(typ)
		} else if animated {
			// The decoder reads no animation: neither a thumbnail nor a
			// check of the pixels could be made.
			return Info{}, formatError("animated WebP images are not accepted")
		}
	case JPEG:
		if exifOrientation(rec, size).swapsAxes() {
			info.Width, info.Height = info.Height, info.Width
		}
	}
	if rec.err != nil {
		return Info{}, fmt.Errorf("media: reading the file: %w", rec.err)
	}
	return info, nil
}

func unreadableImage(typ string) error {
	return formatError("the file starts like a %s image but is not a valid one", typeName(typ))
}

func decodeConfig(r io.Reader, typ string) (image.Config, error) {
	switch typ {
	case JPEG:
		return jpeg.DecodeConfig(r)
	case PNG:
		return png.DecodeConfig(r)
	case WebP:
		return webp.DecodeConfig(r)
	}
	return image.Config{}, fmt.Errorf("media: %q is not an image type", typ)
}

func decodeImage(r io.Reader, typ string) (image.Image, error) {
	switch typ {
	case JPEG:
		return jpeg.Decode(r)
	case PNG:
		return png.Decode(r)
	case WebP:
		return webp.Decode(r)
	}
	return nil, fmt.Errorf("media: %q is not an image type", typ)
}

// webpAnimated reports whether a WebP file declares an animation in its
// extended header (a VP8X chunk first, animation flag set).
func webpAnimated(r io.ReaderAt, size int64) (bool, error) {
	if size < 21 {
		return false, io.ErrUnexpectedEOF
	}
	var b [9]byte // chunk id, chunk length, first flags byte
	if _, err := r.ReadAt(b[:], 12); err != nil {
		return false, err
	}
	return string(b[:4]) == "VP8X" && b[8]&0x02 != 0, nil
}

// Verify decodes a whole image of type typ to prove its pixel data reads,
// which [Detect] does not: Detect reads headers only, so a truncated file
// passes it. The header is checked against lim first, so a decode never
// goes over the pixel limit. Verify costs a full decode (about 4 bytes a
// pixel for a moment); callers bound how many run at once.
func Verify(src io.Reader, typ string, lim Limits) error {
	_, _, err := loadImage(src, typ, lim.withDefaults())
	return err
}

// loadImage reads an image file whole (within the byte limit), checks its
// header against the pixel limit, then decodes it. It returns the image as
// stored and, for a JPEG, the EXIF orientation to apply for display.
func loadImage(src io.Reader, typ string, lim Limits) (image.Image, orientation, error) {
	if !IsImage(typ) {
		return nil, 0, fmt.Errorf("media: %q is not an image type", typ)
	}
	data, err := io.ReadAll(io.LimitReader(src, lim.ImageBytes+1))
	if err != nil {
		return nil, 0, fmt.Errorf("media: reading the image: %w", err)
	}
	if int64(len(data)) > lim.ImageBytes {
		return nil, 0, tooLarge("%s image over %d bytes", typeName(typ), lim.ImageBytes)
	}
	cfg, err := decodeConfig(bytes.NewReader(data), typ)
	if err != nil || cfg.Width <= 0 || cfg.Height <= 0 {
		return nil, 0, unreadableImage(typ)
	}
	if px := int64(cfg.Width) * int64(cfg.Height); px > lim.ImagePixels {
		return nil, 0, tooLarge("%s image of %dx%d pixels, the limit is %d pixels", typeName(typ), cfg.Width, cfg.Height, lim.ImagePixels)
	}
	img, err := decodeImage(bytes.NewReader(data), typ)
	if err != nil {
		return nil, 0, formatError("the %s image is damaged: its pixels cannot be read", typeName(typ))
	}
	if b := img.Bounds(); b.Dx() != cfg.Width || b.Dy() != cfg.Height {
		// The header and the pixel data disagree (a WebP whose VP8X and
		// frame sizes differ is refused by the decoder; this is a guard).
		return nil, 0, unreadableImage(typ)
	}
	o := orientNormal
	if typ == JPEG {
		o = exifOrientation(bytes.NewReader(data), int64(len(data)))
	}
	return img, o, nil
}

// recordingReaderAt keeps the first error of the underlying reader that is
// not the end of the file, so a failing disk is not reported as a bad file.
// Reads outside [0, size), which only a malformed file leads a parser to,
// answer io.EOF without reaching the underlying reader.
type recordingReaderAt struct {
	r    io.ReaderAt
	size int64
	err  error
}

func (r *recordingReaderAt) ReadAt(p []byte, off int64) (int, error) {
	if off < 0 || off >= r.size {
		return 0, io.EOF
	}
	if len(p) > 0 && int64(len(p)) > r.size-off {
		n, err := r.ReadAt(p[:r.size-off], off)
		if err == nil {
			err = io.EOF
		}
		return n, err
	}
	n, err := r.r.ReadAt(p, off)
	if err != nil && !errors.Is(err, io.EOF) && r.err == nil {
		r.err = err
	}
	return n, err
}
