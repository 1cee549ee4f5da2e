package media

import (
	"image"
	stddraw "image/draw"
)

// shrink returns src reduced k times in each direction by averaging each
// k x k block (the blocks on the right and bottom edges may be smaller).
// It is the first step of a large reduction: a box filter is cheap and
// does not alias, and the kernel scaler that follows then works on an image
// a few times the target's size, instead of holding a buffer of 32 bytes
// for every target column and source row (over 200 MB from a 40
// megapixel photograph).
//
// Rows are converted to RGBA k at a time, through the standard library's
// fast paths for the decoders' image types; colours stay premultiplied by
// alpha, so transparent pixels do not darken their neighbours.
func shrink(src image.Image, k int) *image.RGBA {
	b := src.Bounds()
	sw, sh := b.Dx(), b.Dy()
	ow, oh := (sw+k-1)/k, (sh+k-1)/k
	dst := image.NewRGBA(image.Rect(0, 0, ow, oh))
	band := image.NewRGBA(image.Rect(0, 0, sw, k))
	sums := make([]uint32, ow*4)
	for oy := range oh {
		y0 := b.Min.Y + oy*k
		rows := min(k, b.Max.Y-y0)
		stddraw.Draw(band, image.Rect(0, 0, sw, rows), src, image.Pt(b.Min.X, y0), stddraw.Src)
		clear(sums)
		for r := range rows {
			row := band.Pix[r*band.Stride : r*band.Stride+sw*4]
			for x := 0; x < sw; x++ {
				s := sums[(x/k)*4 : (x/k)*4+4 : (x/k)*4+4]
				p := row[x*4 : x*4+4 : x*4+4]
				s[0] += uint32(p[0])
				s[1] += uint32(p[1])
				s[2] += uint32(p[2])
				s[3] += uint32(p[3])
			}
		}
		out := dst.Pix[oy*dst.Stride : oy*dst.Stride+ow*4]
		for ox := range ow {
			n := uint32(rows * min(k, sw-ox*k))
			for c := range 4 {
				out[ox*4+c] = uint8((sums[ox*4+c] + n/2) / n)
			}
		}
	}
	return dst
}
