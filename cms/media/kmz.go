package media

import (
	"archive/zip"
	"bytes"
	"compress/flate"
	"errors"
	"fmt"
	"hash/crc32"
	"io"
	"path"
	"strings"
)

// isImageEntry reports the extensions of the entries a KMZ may hold beside
// its .kml document: the pictures its placemarks and overlays show.
func isImageEntry(ext string) bool {
	switch ext {
	case ".jpg", ".jpeg", ".png", ".webp", ".gif":
		return true
	}
	return false
}

// detectKMZ judges a zip archive as a KMZ: exactly one .kml entry, in any
// folder, plus optional images; every entry unpacked within the limit,
// counting the bytes actually produced rather than the sizes declared.
func detectKMZ(r io.ReaderAt, size int64, lim Limits) (Info, error) {
	if size > lim.KMZBytes {
		return Info{}, tooLarge("KMZ file of %d bytes, the limit is %d", size, lim.KMZBytes)
	}
	rec := &recordingReaderAt{r: r, size: size}
	info, err := readKMZ(rec, size, lim)
	if rec.err != nil {
		return Info{}, fmt.Errorf("media: reading the file: %w", rec.err)
	}
	return info, err
}

func readKMZ(r io.ReaderAt, size int64, lim Limits) (Info, error) {
	zr, err := zip.NewReader(r, size)
	// Unsafe names are refused below with the name; the reader is usable.
	if err != nil && !errors.Is(err, zip.ErrInsecurePath) {
		return Info{}, formatError("the KMZ file is not a readable zip archive")
	}
	if len(zr.File) > lim.KMZEntries {
		return Info{}, formatError("the KMZ file holds %d entries; at most %d are accepted", len(zr.File), lim.KMZEntries)
	}

	var kml *zip.File
	var declared uint64
	for _, f := range zr.File {
		if !safeEntryName(f.Name) {
			return Info{}, formatError("the KMZ file holds an entry with an unsafe name (%s)", quoteName(f.Name))
		}
		if f.Flags&0x1 != 0 {
			return Info{}, formatError("the KMZ file holds an encrypted entry (%s), which is not accepted", quoteName(f.Name))
		}
		if f.Method != zip.Store && f.Method != zip.Deflate {
			return Info{}, formatError("the KMZ file holds %s, compressed by a method that is not supported (only stored and deflated entries are)", quoteName(f.Name))
		}
		declared = min(declared+min(f.UncompressedSize64, 1<<62), 1<<62) // saturates, never wraps
		if strings.HasSuffix(f.Name, "/") {
			continue // a folder
		}
		ext := strings.ToLower(path.Ext(f.Name))
		switch {
		case ext == ".kml":
			if kml != nil {
				return Info{}, formatError("the KMZ file holds more than one .kml document (%s and %s)", quoteName(kml.Name), quoteName(f.Name))
			}
			kml = f
		case isImageEntry(ext):
		default:
			return Info{}, formatError("the KMZ file holds %s, which is neither a .kml document nor an image (JPEG, PNG, WebP or GIF)", quoteName(f.Name))
		}
	}
	if kml == nil {
		return Info{}, formatError("the KMZ file holds no .kml document")
	}
	if declared > uint64(lim.KMZUnpacked) {
		return Info{}, tooLarge("KMZ file declaring %d bytes unpacked, the limit is %d", declared, lim.KMZUnpacked)
	}

	// Every entry is unpacked, so that what the archive really holds is
	// bounded and its checksums verified; only the .kml is kept.
	remaining := lim.KMZUnpacked
	var doc []byte
	for _, f := range zr.File {
		var dst io.Writer = io.Discard
		budget := remaining
		var buf *bytes.Buffer
		if f == kml {
			budget = min(remaining, lim.XMLBytes)
			buf = bytes.NewBuffer(make([]byte, 0, min(f.UncompressedSize64, uint64(budget))))
			dst = buf
		}
		n, err := unpackEntry(dst, f, budget)
		if err != nil {
			return Info{}, err
		}
		remaining -= n
		if buf != nil {
			doc = buf.Bytes()
		}
	}

	const subject = "the .kml document in the KMZ file"
	typ, err := checkXML(bytes.NewReader(bytes.TrimPrefix(doc, []byte(bomUTF8))), false, lim, subject)
	if err != nil {
		var fe *FormatError
		if errors.As(err, &fe) && fe.Msg == msgNotAccepted {
			return Info{}, formatError("%s is not a KML document", subject)
		}
		return Info{}, err
	}
	if typ != KML {
		return Info{}, formatError("%s is not a KML document", subject)
	}
	return Info{Type: KMZ, Ext: Ext(KMZ), KML: doc}, nil
}

// unpackEntry decompresses one entry into dst, producing at most budget
// bytes (ErrTooLarge beyond), and checks the size and checksum it declares.
// It inflates the raw data itself, so the bound holds whatever the headers
// say.
func unpackEntry(dst io.Writer, f *zip.File, budget int64) (int64, error) {
	raw, err := f.OpenRaw()
	if err != nil {
		return 0, damaged(f)
	}
	var data io.Reader = raw
	if f.Method == zip.Deflate {
		fr := flate.NewReader(raw)
		defer fr.Close()
		data = fr
	}
	sum := crc32.NewIEEE()
	n, err := io.Copy(io.MultiWriter(dst, sum), io.LimitReader(data, budget+1))
	if n > budget {
		return n, tooLarge("KMZ file unpacking to more than its limit")
	}
	if err != nil || uint64(n) != f.UncompressedSize64 || sum.Sum32() != f.CRC32 {
		return n, damaged(f)
	}
	return n, nil
}

func damaged(f *zip.File) error {
	return formatError("the KMZ file is damaged: %s cannot be unpacked", quoteName(f.Name))
}

// safeEntryName refuses names that would leave a folder if the archive
// were unpacked: absolute, with a parent element, a drive or a backslash.
func safeEntryName(name string) bool {
	if name == "" || strings.ContainsAny(name, "\\:\x00") || strings.HasPrefix(name, "/") {
		return false
	}
	for _, el := range strings.Split(name, "/") {
		if el == ".." {
			return false
		}
	}
	return true
}
