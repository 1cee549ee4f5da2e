package media

import (
	"encoding/binary"
	"image"
	"io"
)

// orientation is a JPEG's EXIF Orientation tag (1 to 8): how the stored
// pixels are turned or mirrored before display.
type orientation uint8

const orientNormal orientation = 1

// swapsAxes reports an orientation that turns the image by a quarter, so
// its displayed width is its stored height.
func (o orientation) swapsAxes() bool { return o >= 5 && o <= 8 }

// exifOrientation reads the Orientation tag of a JPEG's EXIF block, or
// returns orientNormal when there is none or it cannot be read. Only the
// segments before the image data are looked at, each at most 64 KB.
func exifOrientation(r io.ReaderAt, size int64) orientation {
	off := int64(2) // after SOI
	for range 64 {
		var m [4]byte
		if off+4 > size {
			return orientNormal
		}
		if _, err := r.ReadAt(m[:], off); err != nil {
			return orientNormal
		}
		if m[0] != 0xFF {
			return orientNormal
		}
		switch marker := m[1]; {
		case marker == 0xFF: // fill byte
			off++
			continue
		case marker == 0xDA || marker == 0xD9: // start of scan, end of image
			return orientNormal
		case marker == 0x01 || (marker >= 0xD0 && marker <= 0xD7): // no length
			off += 2
			continue
		}
		n := int64(binary.BigEndian.Uint16(m[2:4]))
		if n < 2 {
			return orientNormal
		}
		if m[1] == 0xE1 && n >= 2+6+8 && off+2+n <= size {
			seg := make([]byte, n-2)
			if _, err := r.ReadAt(seg, off+4); err != nil {
				return orientNormal
			}
			if string(seg[:6]) == "Exif\x00\x00" {
				return tiffOrientation(seg[6:])
			}
		}
		off += 2 + n
	}
	return orientNormal
}

// tiffOrientation finds tag 0x0112 in IFD0 of a TIFF structure.
func tiffOrientation(t []byte) orientation {
	var bo binary.ByteOrder
	switch string(t[:2]) {
	case "II":
		bo = binary.LittleEndian
	case "MM":
		bo = binary.BigEndian
	default:
		return orientNormal
	}
	if bo.Uint16(t[2:4]) != 42 {
		return orientNormal
	}
	ifd := int64(bo.Uint32(t[4:8]))
	if ifd < 8 || ifd+2 > int64(len(t)) {
		return orientNormal
	}
	count := int64(bo.Uint16(t[ifd:]))
	for i := range count {
		e := ifd + 2 + 12*i
		if e+12 > int64(len(t)) {
			break
		}
		tag, typ := bo.Uint16(t[e:]), bo.Uint16(t[e+2:])
		if tag != 0x0112 {
			continue
		}
		if typ != 3 { // SHORT
			return orientNormal
		}
		if v := bo.Uint16(t[e+8:]); v >= 1 && v <= 8 {
			return orientation(v)
		}
		return orientNormal
	}
	return orientNormal
}

// apply returns m turned and mirrored for display. The thumbnail is turned
// after scaling, so this moves few pixels.
func (o orientation) apply(m *image.RGBA) *image.RGBA {
	if o <= orientNormal || o > 8 {
		return m
	}
	b := m.Bounds()
	w, h := b.Dx(), b.Dy()
	dw, dh := w, h
	if o.swapsAxes() {
		dw, dh = h, w
	}
	d := image.NewRGBA(image.Rect(0, 0, dw, dh))
	for y := range dh {
		for x := range dw {
			// (sx, sy) is the stored pixel shown at (x, y).
			var sx, sy int
			switch o {
			case 2: // mirrored left to right
				sx, sy = w-1-x, y
			case 3: // turned by a half
				sx, sy = w-1-x, h-1-y
			case 4: // mirrored top to bottom
				sx, sy = x, h-1-y
			case 5: // mirrored along the main diagonal
				sx, sy = y, x
			case 6: // to be turned a quarter clockwise
				sx, sy = y, h-1-x
			case 7: // mirrored along the other diagonal
				sx, sy = w-1-y, h-1-x
			case 8: // to be turned a quarter counter-clockwise
				sx, sy = w-1-y, x
			}
			si := m.PixOffset(b.Min.X+sx, b.Min.Y+sy)
			di := d.PixOffset(x, y)
			copy(d.Pix[di:di+4], m.Pix[si:si+4])
		}
	}
	return d
}
