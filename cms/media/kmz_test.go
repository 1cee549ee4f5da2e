package media

import (
	"archive/zip"
	"bytes"
	"compress/flate"
	"fmt"
	"hash/crc32"
	"math/rand/v2"
	"testing"
)

func TestDetectKMZ(t *testing.T) {
	t.Parallel()
	doc := kmlDoc(200)
	icon := encodePNG(t, photo(32, 32))
	tests := []struct {
		name    string
		entries []zipEntry
	}{
		{"doc.kml alone", []zipEntry{{name: "doc.kml", data: doc}}},
		{"as Google Earth writes it", []zipEntry{{name: "doc.kml", data: doc}, {name: "files/"}, {name: "files/icon.png", data: icon}, {name: "files/photo.JPG", data: encodeJPEG(t, photo(64, 48))}}},
		{"the kml in a folder, images first", []zipEntry{{name: "images/a.webp", data: []byte("RIFF")}, {name: "images/b.gif", data: []byte("GIF89a")}, {name: "images/c.jpeg", data: []byte{0xFF, 0xD8}}, {name: "route/Route.KML", data: doc}}},
		{"stored, not deflated", []zipEntry{{name: "doc.kml", data: doc, method: zip.Store}}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			got, err := detectBytes(makeZip(t, tt.entries...), Limits{})
			if err != nil {
				t.Fatal(err)
			}
			if got.Type != KMZ || got.Ext != "kmz" || got.Width != 0 {
				t.Errorf("Detect = %+v, want a KMZ", got)
			}
			if !bytes.Equal(got.KML, doc) {
				t.Errorf("Info.KML is %d bytes, want the %d bytes of the .kml entry", len(got.KML), len(doc))
			}
		})
	}
}

func TestDetectRefusesKMZ(t *testing.T) {
	t.Parallel()
	doc := kmlDoc(20)
	deflated := func(b []byte) []byte {
		var out bytes.Buffer
		w, _ := flate.NewWriter(&out, flate.BestCompression)
		w.Write(b)
		w.Close()
		return out.Bytes()
	}
	manyEntries := []zipEntry{{name: "doc.kml", data: doc}}
	for i := range 1000 {
		manyEntries = append(manyEntries, zipEntry{name: fmt.Sprintf("files/%d.png", i), data: []byte("x")})
	}
	goodZip := makeZip(t, zipEntry{name: "doc.kml", data: doc})
	badCRC := append([]byte{}, goodZip...)
	// The central directory's checksum of the only entry.
	cd := bytes.Index(badCRC, []byte("PK\x01\x02"))
	badCRC[cd+16] ^= 0xFF

	tests := []struct {
		name     string
		data     []byte
		want     string
		limits   Limits
		tooLarge bool
	}{
		{"no kml", makeZip(t, zipEntry{name: "files/a.png", data: []byte("x")}), "the KMZ file holds no .kml document", Limits{}, false},
		{"an empty zip", makeZip(t), "the KMZ file holds no .kml document", Limits{}, false},
		{"two kml", makeZip(t, zipEntry{name: "doc.kml", data: doc}, zipEntry{name: "files/other.kml", data: doc}), `the KMZ file holds more than one .kml document ("doc.kml" and "files/other.kml")`, Limits{}, false},
		{"an exe", makeZip(t, zipEntry{name: "doc.kml", data: doc}, zipEntry{name: "files/setup.exe", data: []byte("MZ")}), `the KMZ file holds "files/setup.exe", which is neither a .kml document nor an image`, Limits{}, false},
		{"html", makeZip(t, zipEntry{name: "doc.kml", data: doc}, zipEntry{name: "index.html", data: []byte("<p>")}), `"index.html", which is neither`, Limits{}, false},
		{"parent folder", makeZip(t, zipEntry{name: "../doc.kml", data: doc}), `the KMZ file holds an entry with an unsafe name ("../doc.kml")`, Limits{}, false},
		{"parent folder inside", makeZip(t, zipEntry{name: "files/../../x.png", data: doc}, zipEntry{name: "doc.kml", data: doc}), `unsafe name ("files/../../x.png")`, Limits{}, false},
		{"absolute", makeZip(t, zipEntry{name: "/etc/doc.kml", data: doc}), `unsafe name ("/etc/doc.kml")`, Limits{}, false},
		{"backslashes", makeZip(t, zipEntry{name: `..\doc.kml`, data: doc}), `unsafe name`, Limits{}, false},
		{"drive", makeZip(t, zipEntry{name: `C:/doc.kml`, data: doc}), `unsafe name`, Limits{}, false},
		{"encrypted", makeZip(t, zipEntry{name: "doc.kml", data: doc, raw: true, method: zip.Store, flags: 0x1, crc: crc32.ChecksumIEEE(doc), size: uint64(len(doc))}), `the KMZ file holds an encrypted entry ("doc.kml"), which is not accepted`, Limits{}, false},
		{"bzip2", makeZip(t, zipEntry{name: "doc.kml", data: doc, raw: true, method: 12, crc: crc32.ChecksumIEEE(doc), size: uint64(len(doc))}), `the KMZ file holds "doc.kml", compressed by a method that is not supported`, Limits{}, false},
		{"1001 entries", makeZip(t, manyEntries...), "the KMZ file holds 1001 entries; at most 1000 are accepted", Limits{}, false},
		{"a checksum that does not match", badCRC, `the KMZ file is damaged: "doc.kml" cannot be unpacked`, Limits{}, false},
		{"a size that does not match", makeZip(t, zipEntry{name: "doc.kml", data: deflated(doc), raw: true, method: zip.Deflate, crc: crc32.ChecksumIEEE(doc), size: uint64(len(doc)) + 1}), `the KMZ file is damaged`, Limits{}, false},
		{"a broken deflate stream", makeZip(t, zipEntry{name: "doc.kml", data: []byte("not deflate at all, no"), raw: true, method: zip.Deflate, crc: 1, size: 100}), `the KMZ file is damaged`, Limits{}, false},
		{"zip magic then garbage", append([]byte("PK\x03\x04"), bytes.Repeat([]byte("junk"), 50)...), "the KMZ file is not a readable zip archive", Limits{}, false},
		{"cut short", goodZip[:len(goodZip)-30], "the KMZ file is not a readable zip archive", Limits{}, false},
		{"a gpx inside", makeZip(t, zipEntry{name: "doc.kml", data: gpxDoc("1.1", 5)}), "the .kml document in the KMZ file is not a KML document", Limits{}, false},
		{"a text inside", makeZip(t, zipEntry{name: "doc.kml", data: []byte("hello")}), "the .kml document in the KMZ file is not a KML document", Limits{}, false},
		{"a kml with a DTD inside", makeZip(t, zipEntry{name: "doc.kml", data: billionLaughs("kml")}), "the .kml document in the KMZ file declares a DTD, which is not accepted", Limits{}, false},
		{"a broken kml inside", makeZip(t, zipEntry{name: "doc.kml", data: doc[:len(doc)-20]}), "the .kml document in the KMZ file is not well-formed XML", Limits{}, false},
		{"sizes that would wrap a 64-bit sum", makeZip(t, zipEntry{name: "doc.kml", data: doc}, zipEntry{name: "a.png", raw: true, method: zip.Store, size: 1 << 63}, zipEntry{name: "b.png", raw: true, method: zip.Store, size: 1 << 63}, zipEntry{name: "c.png", raw: true, method: zip.Store, size: 1 << 63}, zipEntry{name: "d.png", raw: true, method: zip.Store, size: 1 << 63}), "", Limits{}, true},
		{"more entries than a lower limit", makeZip(t, zipEntry{name: "doc.kml", data: doc}, zipEntry{name: "a.png"}, zipEntry{name: "b.png"}), "the KMZ file holds 3 entries; at most 2 are accepted", Limits{KMZEntries: 2}, false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			got, err := detectBytes(tt.data, tt.limits)
			if tt.tooLarge {
				wantTooLarge(t, err)
			} else {
				wantFormatError(t, err, tt.want)
			}
			if got.Type != "" || got.KML != nil {
				t.Errorf("a refusal returned %+v", got)
			}
		})
	}
}

func TestDetectKMZSizeLimits(t *testing.T) {
	t.Parallel()
	doc := kmlDoc(20)
	// Over 2 MB as uploaded: a photograph stored uncompressed beside the KML.
	noise := make([]byte, 2<<20)
	rand.NewChaCha8([32]byte{1}).Read(noise)
	_, err := detectBytes(makeZip(t, zipEntry{name: "doc.kml", data: doc}, zipEntry{name: "files/big.jpg", data: noise, method: zip.Store}), Limits{})
	wantTooLarge(t, err)
	// At the limit exactly, accepted.
	kmz := makeZip(t, zipEntry{name: "doc.kml", data: doc}, zipEntry{name: "files/big.jpg", data: noise[:1<<20], method: zip.Store})
	if _, err := detectBytes(kmz, Limits{KMZBytes: int64(len(kmz))}); err != nil {
		t.Errorf("a KMZ at the packed limit: %v", err)
	}
	_, err = detectBytes(kmz, Limits{KMZBytes: int64(len(kmz) - 1)})
	wantTooLarge(t, err)

	// Small packed, over the unpacked limit in all (here 1 MB): honest
	// headers.
	const limit = 1 << 20
	lim := Limits{KMZUnpacked: limit}
	filler := bytes.Repeat([]byte("<!-- filler -->\n"), limit/2/16+1)
	_, err = detectBytes(makeZip(t, zipEntry{name: "doc.kml", data: doc}, zipEntry{name: "a.png", data: filler}, zipEntry{name: "b.png", data: filler}), lim)
	wantTooLarge(t, err)
	// Just under it in all: accepted.
	half := filler[:limit/2-len(doc)]
	if _, err := detectBytes(makeZip(t, zipEntry{name: "doc.kml", data: doc}, zipEntry{name: "a.png", data: half}, zipEntry{name: "b.png", data: half}), lim); err != nil {
		t.Errorf("a KMZ unpacking to its limit: %v", err)
	}
	// A .kml over the XML limit by itself.
	_, err = detectBytes(makeZip(t, zipEntry{name: "doc.kml", data: kmlDoc(1000)}), Limits{XMLBytes: 100_000})
	wantTooLarge(t, err)

	// Headers lying: an entry claims 100 bytes unpacked.
	liar := func(name string, b []byte) zipEntry {
		var out bytes.Buffer
		w, _ := flate.NewWriter(&out, flate.DefaultCompression)
		w.Write(b)
		w.Close()
		return zipEntry{name: name, data: out.Bytes(), raw: true, method: zip.Deflate, crc: crc32.ChecksumIEEE(b), size: 100}
	}
	twice := append(bytes.Clone(filler), filler...)
	_, err = detectBytes(makeZip(t, zipEntry{name: "doc.kml", data: doc}, liar("a.png", twice)), lim)
	wantTooLarge(t, err)
	_, err = detectBytes(makeZip(t, liar("doc.kml", kmlDoc(1000))), Limits{XMLBytes: 100_000})
	wantTooLarge(t, err)
	// Lying within the limit is a damaged archive.
	_, err = detectBytes(makeZip(t, zipEntry{name: "doc.kml", data: doc}, liar("a.png", filler)), lim)
	wantFormatError(t, err, `the KMZ file is damaged: "a.png" cannot be unpacked`)
}

// gigabyteOfZeros returns 1 GB of zeros deflated (about 1 MB) without
// compressing a gigabyte: each flushed megabyte of zeros after the first
// deflates to the same bytes (checked here on three), so the stream is the
// first block, 1023 copies of the second, and the closing block.
func gigabyteOfZeros(tb testing.TB) []byte {
	tb.Helper()
	var out bytes.Buffer
	w, err := flate.NewWriter(&out, flate.BestCompression)
	if err != nil {
		tb.Fatal(err)
	}
	chunk := make([]byte, 1<<20)
	var blocks [][]byte
	for range 3 {
		start := out.Len()
		w.Write(chunk)
		w.Flush()
		blocks = append(blocks, bytes.Clone(out.Bytes()[start:]))
	}
	start := out.Len()
	w.Close()
	closing := out.Bytes()[start:]
	if !bytes.Equal(blocks[1], blocks[2]) {
		tb.Fatal("flushed megabytes of zeros deflate differently; the bomb cannot be built this way")
	}
	bomb := bytes.Clone(blocks[0])
	for range 1023 {
		bomb = append(bomb, blocks[1]...)
	}
	return append(bomb, closing...)
}

// A zip bomb, 1 GB of zeros in about 1 MB, is refused in bounded memory,
// whether its header says how large it is or lies. Not parallel: the
// allocation count is this test's own.
func TestDetectRefusesZipBomb(t *testing.T) {
	zeros := gigabyteOfZeros(t)
	if len(zeros) > 2<<20 {
		t.Fatalf("bomb of %d bytes packed, want under 2 MB", len(zeros))
	}
	crc := crc32.ChecksumIEEE(nil) // wrong, and never reached
	for _, declared := range []uint64{1 << 30, 1000} {
		kmz := makeZip(t, zipEntry{name: "doc.kml", data: kmlDoc(5)}, zipEntry{name: "files/zeros.png", data: zeros, raw: true, method: zip.Deflate, crc: crc, size: declared})
		var err error
		n := allocated(func() { _, err = detectBytes(kmz, Limits{}) })
		wantTooLarge(t, err)
		// Reading the archive's directory and inflating within the 10 MB
		// limit into a discarding writer: a few buffers, never the output.
		if n > 4<<20 {
			t.Errorf("declared %d bytes: refusing the bomb allocated %d bytes, want under 4 MB", declared, n)
		}
	}
}
