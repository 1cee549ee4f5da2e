package media

import (
	"fmt"
	"image"
	"image/jpeg"
	"image/png"
	"io"

	"golang.org/x/image/draw"
)

// jpegQuality is the quality of JPEG thumbnails: visually close to the
// original at a fraction of its bytes.
const jpegQuality = 82

// Scaling is done in two steps: whole k x k blocks averaged first (cheap,
// no aliasing), then the Catmull-Rom kernel for the rest. The first step
// stops while the image is still minGap times the target's width, so the
// kernel, which is what makes the result sharp and clean, still does a
// real reduction (on photographs the two steps differ from the kernel
// alone by less than one level in 255 on average). The kernel holds 32
// bytes for every target column and intermediate row; when that would pass
// kernelBudget the blocks grow, but never so much that the intermediate
// image is narrower than the target.
const (
	minGap       = 1.5
	kernelBudget = 64 << 20
)

// Thumbnail writes the image read from src, of type typ ([JPEG], [PNG] or
// [WebP]), scaled to width pixels wide with its aspect ratio kept, and
// returns the type it wrote. An image narrower than width is written at its
// own size, never enlarged. A JPEG stays a JPEG (quality 82) and is turned
// upright by its EXIF orientation, a PNG stays a PNG, a WebP becomes a PNG
// when it has transparent pixels and a JPEG otherwise. Nothing of the
// original's metadata is kept.
//
// The image is checked against the default [Limits] before it is decoded;
// use [ThumbnailWithin] for others. A decode holds the whole image (about 4
// bytes a pixel): callers bound how many run at once.
func Thumbnail(w io.Writer, src io.Reader, typ string, width int) (outType string, err error) {
	return ThumbnailWithin(w, src, typ, width, Limits{})
}

// ThumbnailWithin is [Thumbnail] with the byte and pixel limits of lim (its
// other fields are not used).
func ThumbnailWithin(w io.Writer, src io.Reader, typ string, width int, lim Limits) (outType string, err error) {
	if width <= 0 {
		return "", fmt.Errorf("media: thumbnail width %d is not positive", width)
	}
	img, orient, err := loadImage(src, typ, lim.withDefaults())
	if err != nil {
		return "", err
	}
	thumb := scaleImage(img, orient, width, draw.CatmullRom)

	outType = typ
	if typ == WebP {
		outType = JPEG
		if !opaque(img) {
			outType = PNG
		}
	}
	switch outType {
	case JPEG:
		err = jpeg.Encode(w, thumb, &jpeg.Options{Quality: jpegQuality})
	default:
		err = (&png.Encoder{CompressionLevel: png.DefaultCompression}).Encode(w, thumb)
	}
	if err != nil {
		return "", fmt.Errorf("media: writing the thumbnail: %w", err)
	}
	return outType, nil
}

// scaleImage returns img at width pixels wide as displayed (or its own
// width if narrower), turned upright by orient.
func scaleImage(img image.Image, orient orientation, width int, scaler draw.Scaler) *image.RGBA {
	b := img.Bounds()
	dw, dh := b.Dx(), b.Dy() // as displayed
	if orient.swapsAxes() {
		dw, dh = dh, dw
	}
	tw := min(width, dw)
	th := max(1, int((int64(dh)*int64(tw)+int64(dw)/2)/int64(dw)))
	// Scaled in the stored orientation, turned afterwards: turning the
	// small image moves fewer pixels.
	sw, sh := tw, th
	if orient.swapsAxes() {
		sw, sh = th, tw
	}
	dst := image.NewRGBA(image.Rect(0, 0, sw, sh))
	if sw == b.Dx() && sh == b.Dy() {
		draw.Copy(dst, image.Point{}, img, b, draw.Src, nil)
		return orient.apply(dst)
	}
	if k := shrinkFactor(b.Dx(), b.Dy(), sw); k >= 2 {
		img = shrink(img, k)
		b = img.Bounds()
	}
	scaler.Scale(dst, dst.Bounds(), img, b, draw.Src, nil)
	return orient.apply(dst)
}

// shrinkFactor chooses the block size of the first step, scaling a w x h
// image to tw pixels wide (see minGap).
func shrinkFactor(w, h, tw int) int {
	whole := w / tw
	k := int(float64(w) / float64(tw) / minGap)
	for k < whole && int64(tw)*int64(h/max(k, 1))*32 > kernelBudget {
		k++
	}
	return k
}

// opaque reports whether every pixel of m is fully opaque.
func opaque(m image.Image) bool {
	if o, ok := m.(interface{ Opaque() bool }); ok {
		return o.Opaque()
	}
	b := m.Bounds()
	for y := b.Min.Y; y < b.Max.Y; y++ {
		for x := b.Min.X; x < b.Max.X; x++ {
			if _, _, _, a := m.At(x, y).RGBA(); a != 0xFFFF {
				return false
			}
		}
	}
	return true
}
