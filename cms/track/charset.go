package track

import (
	"bufio"
	"io"
	"strings"
	"unicode/utf8"
)

// charsetError is a declared encoding the parsers do not read.
type charsetError struct{ name string }

func (e *charsetError) Error() string { return "unsupported character encoding " + e.name }

// CharsetReader is an encoding/xml Decoder's CharsetReader for the
// encodings the parsers read: besides UTF-8 (which the decoder reads
// itself) US-ASCII, a subset of UTF-8, and the two single-byte encodings
// older GPS software writes, ISO-8859-1 and Windows-1252, whose conversion
// is a table. Any other name is an error.
func CharsetReader(name string, input io.Reader) (io.Reader, error) {
	switch strings.ToLower(strings.TrimSpace(name)) {
	case "us-ascii", "ascii", "utf8":
		return input, nil
	case "iso-8859-1", "iso8859-1", "latin1", "latin-1", "l1", "iso_8859-1":
		return &singleByteReader{src: bufio.NewReader(input)}, nil
	case "windows-1252", "cp1252", "x-cp1252":
		return &singleByteReader{src: bufio.NewReader(input), table: &cp1252}, nil
	}
	return nil, &charsetError{name: name}
}

// singleByteReader converts a single-byte encoding to UTF-8: bytes below
// 0x80 are ASCII, 0xA0-0xFF are the Latin-1 code points, and 0x80-0x9F are
// either the C1 controls (ISO-8859-1) or the table's (Windows-1252).
type singleByteReader struct {
	src     io.ByteReader
	table   *[32]rune
	pending []byte // encoded bytes not yet returned
}

func (s *singleByteReader) Read(p []byte) (int, error) {
	n := copy(p, s.pending)
	s.pending = s.pending[n:]
	for n < len(p) {
		b, err := s.src.ReadByte()
		if err != nil {
			return n, err
		}
		if b < utf8.RuneSelf {
			p[n] = b
			n++
			continue
		}
		r := rune(b)
		if s.table != nil && b >= 0x80 && b < 0xA0 {
			r = s.table[b-0x80]
		}
		var buf [utf8.UTFMax]byte
		w := utf8.EncodeRune(buf[:], r)
		c := copy(p[n:], buf[:w])
		n += c
		if c < w {
			s.pending = append(s.pending[:0], buf[c:w]...)
			return n, nil
		}
	}
	return n, nil
}

// cp1252 maps Windows-1252 bytes 0x80-0x9F; the five unassigned ones become
// U+FFFD.
var cp1252 = [32]rune{
	'€', '\uFFFD', '‚', 'ƒ', '„', '…', '†', '‡', 'ˆ', '‰', 'Š', '‹', 'Œ', '\uFFFD', 'Ž', '\uFFFD',
	'\uFFFD', '‘', '’', '“', '”', '•', '–', '—', '˜', '™', 'š', '›', 'œ', '\uFFFD', 'ž', 'Ÿ',
}
