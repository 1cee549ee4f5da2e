package cms

import (
	"reflect"
	"strconv"
	"strings"
	"unicode/utf8"
)

// DecodeDocument reads a stored document, as the codec of
// NewDocumentCodec appends it, into rec (which should be empty), with the
// rules and errors of Decode. The strings of rec may share doc's memory:
// a string is immutable, so what rec holds never changes.
func (c *Codec) DecodeDocument(doc string, rec Record) error {
	if c.document {
		oc, v := c.kind(rec)
		d := docScanner{s: doc}
		if d.document(oc, v) {
			return nil
		}
		// Something the quick reading does not take (an escape it leaves
		// to jsontext, a value of the wrong shape): the general decoder
		// reads it again from scratch and says what is wrong, if anything.
		v.SetZero()
	}
	return c.Decode([]byte(doc), rec)
}

// docScanner reads the documents that the storage codec writes, a tenth
// of the work of a jsontext.Decoder: no token objects, no state machine,
// strings without escapes taken as substrings of the document. It gives up
// (returns false) on anything but plain, valid JSON of the expected shape,
// and leaves that to Decode, so it never decides anything Decode would
// decide otherwise.
type docScanner struct {
	s string
	i int
}

// document reads the whole document: one object of oc, then nothing but
// whitespace.
func (d *docScanner) document(oc *objectCodec, v reflect.Value) bool {
	if !d.consume('{') || !d.object(oc, v) {
		return false
	}
	d.space()
	return d.i == len(d.s)
}

func (d *docScanner) space() {
	for d.i < len(d.s) {
		switch d.s[d.i] {
		case ' ', '\t', '\n', '\r':
			d.i++
		default:
			return
		}
	}
}

// peek returns the next byte after whitespace, or 0 at the end.
func (d *docScanner) peek() byte {
	d.space()
	if d.i == len(d.s) {
		return 0
	}
	return d.s[d.i]
}

// consume reads the byte c after whitespace.
func (d *docScanner) consume(c byte) bool {
	if d.peek() != c {
		return false
	}
	d.i++
	return true
}

// literal reads word (true, false, null) after whitespace.
func (d *docScanner) literal(word string) bool {
	d.space()
	if len(d.s)-d.i < len(word) || d.s[d.i:d.i+len(word)] != word {
		return false
	}
	d.i += len(word)
	return true
}

// object reads the members of an object whose '{' has been read, up to
// its '}'.
func (d *docScanner) object(oc *objectCodec, v reflect.Value) bool {
	if d.consume('}') {
		return true
	}
	// The codec writes the members in oc.out's order: the one after the
	// last is tried before the look-up by name.
	next := 0
	for {
		name, ok := d.name()
		if !ok || !d.consume(':') {
			return false
		}
		var b *binding
		if next < len(oc.out) && oc.out[next].wire == name {
			b = &oc.out[next]
			next++
		} else if known, ok := oc.names[name]; ok {
			b = &known
		} else {
			return false
		}
		if !d.value(b, v.Field(b.field.index)) {
			return false
		}
		if d.consume('}') {
			return true
		}
		if !d.consume(',') {
			return false
		}
	}
}

// name reads a member name without escapes (every name the codec writes):
// a substring of the document. Whether it is valid text is left to the
// caller: a field's name is valid when it is known.
func (d *docScanner) name() (string, bool) {
	if !d.consume('"') {
		return "", false
	}
	start := d.i
	for d.i < len(d.s) {
		switch c := d.s[d.i]; {
		case c == '"':
			d.i++
			return d.s[start : d.i-1], true
		case c == '\\':
			return "", false
		}
		d.i++
	}
	return "", false
}

// validText reports whether s may stand unescaped in a JSON string: valid
// UTF-8 without control characters.
func validText(s string) bool {
	// Eight bytes at a time while they are all printable ASCII (as in
	// plainASCII; a flag may be false, never missing).
	const ones, highs = 0x0101010101010101, 0x8080808080808080
	i := 0
	for ; i+8 <= len(s); i += 8 {
		w := uint64(s[i]) | uint64(s[i+1])<<8 | uint64(s[i+2])<<16 | uint64(s[i+3])<<24 |
			uint64(s[i+4])<<32 | uint64(s[i+5])<<40 | uint64(s[i+6])<<48 | uint64(s[i+7])<<56
		if (w|(w-ones*0x20))&highs != 0 {
			break
		}
	}
	for ; i < len(s); i++ {
		if c := s[i]; c < 0x20 {
			return false
		} else if c >= utf8.RuneSelf {
			return utf8.ValidString(s[i:]) && noControl(s[i:])
		}
	}
	return true
}

func noControl(s string) bool {
	for i := 0; i < len(s); i++ {
		if s[i] < 0x20 {
			return false
		}
	}
	return true
}

// str reads a string value: a substring of the document when it has no
// escape. Escapes other than the short ones (\" \\ \/ \b \f \n \r \t)
// are left to Decode.
func (d *docScanner) str() (string, bool) {
	if !d.consume('"') {
		return "", false
	}
	start, end := d.i, d.i
	for {
		k := strings.IndexByte(d.s[end:], '"')
		if k < 0 {
			return "", false
		}
		end += k
		// The quote ends the string unless an odd run of backslashes
		// escapes it.
		n := 0
		for j := end - 1; j >= start && d.s[j] == '\\'; j-- {
			n++
		}
		if n%2 == 0 {
			break
		}
		end++
	}
	raw := d.s[start:end]
	if !validText(raw) {
		return "", false
	}
	d.i = end + 1
	if strings.IndexByte(raw, '\\') < 0 {
		return raw, true
	}
	return unescape(raw)
}

// unescape returns the text of a string's raw content with short escapes.
func unescape(raw string) (string, bool) {
	// One allocation, of the escaped length (an upper bound), which
	// becomes the string.
	var buf strings.Builder
	buf.Grow(len(raw))
	for {
		k := strings.IndexByte(raw, '\\')
		if k < 0 {
			buf.WriteString(raw)
			return buf.String(), true
		}
		buf.WriteString(raw[:k])
		switch e := raw[k+1]; e {
		case '"', '\\', '/':
			buf.WriteByte(e)
		case 'b':
			buf.WriteByte('\b')
		case 'f':
			buf.WriteByte('\f')
		case 'n':
			buf.WriteByte('\n')
		case 'r':
			buf.WriteByte('\r')
		case 't':
			buf.WriteByte('\t')
		default:
			return "", false // \u: left to Decode
		}
		raw = raw[k+2:]
	}
}

// number reads a number as JSON writes it.
func (d *docScanner) number() (float64, bool) {
	d.space()
	start, s := d.i, d.s
	i := start
	if i < len(s) && s[i] == '-' {
		i++
	}
	switch {
	case i < len(s) && s[i] == '0':
		i++
	case i < len(s) && s[i] >= '1' && s[i] <= '9':
		i = digits(s, i)
	default:
		return 0, false
	}
	if i < len(s) && s[i] == '.' {
		if j := digits(s, i+1); j > i+1 {
			i = j
		} else {
			return 0, false
		}
	}
	if i < len(s) && (s[i] == 'e' || s[i] == 'E') {
		i++
		if i < len(s) && (s[i] == '+' || s[i] == '-') {
			i++
		}
		j := digits(s, i)
		if j == i {
			return 0, false
		}
		i = j
	}
	d.i = i
	n, err := strconv.ParseFloat(s[start:i], 64)
	return n, err == nil
}

func digits(s string, i int) int {
	for i < len(s) && s[i] >= '0' && s[i] <= '9' {
		i++
	}
	return i
}

// value reads one member value into field fv, as decodeState.value does
// for a trusted document.
func (d *docScanner) value(b *binding, fv reflect.Value) bool {
	if next := d.peek(); b.langMap && next != 'n' {
		return next == '{' && d.langObject(b, fv)
	}
	return d.plain(b, b.lang, fv)
}

// plain reads a value that is not a language map into fv, in language
// lang.
func (d *docScanner) plain(b *binding, lang string, fv reflect.Value) bool {
	f := b.field
	next := d.peek()
	if next == 'n' {
		if !d.literal("null") || !f.nullable {
			return false
		}
		setNull(fv, lang)
		return true
	}
	switch f.typ {
	case typeString:
		s, ok := d.str()
		if ok {
			setString(fv, lang, s)
		}
		return ok
	case typeBool:
		switch next {
		case 't':
			if d.literal("true") {
				setBool(fv, true)
				return true
			}
		case 'f':
			if d.literal("false") {
				setBool(fv, false)
				return true
			}
		}
		return false
	case typeNumber:
		n, ok := d.number()
		if ok {
			if n == 0 {
				n = 0 // -0 is 0, as Decode reads it
			}
			setNumber(fv, n)
		}
		return ok
	case typeInteger:
		n, ok := d.number()
		if !ok || n >= 1<<63 || n <= -(1<<63) || n != float64(int64(n)) {
			return false
		}
		setInteger(fv, int64(n))
		return true
	case typeStrings:
		return d.strings(fv)
	case typeItems:
		return d.items(b, fv)
	}
	return false
}

// langObject reads a language map: an object from language code to value.
func (d *docScanner) langObject(b *binding, fv reflect.Value) bool {
	d.i++ // '{'
	if d.consume('}') {
		return true
	}
	for {
		code, ok := d.name()
		if !ok || !validText(code) || !d.consume(':') || !d.plain(b, code, fv) {
			return false
		}
		if d.consume('}') {
			return true
		}
		if !d.consume(',') {
			return false
		}
	}
}

// strings reads an array of strings.
func (d *docScanner) strings(fv reflect.Value) bool {
	if !d.consume('[') {
		return false
	}
	list := []string{}
	if !d.consume(']') {
		for {
			s, ok := d.str()
			if !ok {
				return false
			}
			list = append(list, s)
			if d.consume(']') {
				break
			}
			if !d.consume(',') {
				return false
			}
		}
	}
	setStrings(fv, list)
	return true
}

// items reads an array of nested item objects.
func (d *docScanner) items(b *binding, fv reflect.Value) bool {
	if !d.consume('[') {
		return false
	}
	list := reflect.MakeSlice(fv.Field(0).Type(), 0, 4)
	if !d.consume(']') {
		for {
			if !d.consume('{') {
				return false
			}
			item := reflect.New(b.item.spec.goType).Elem()
			if !d.object(b.item, item) {
				return false
			}
			list = reflect.Append(list, item)
			if d.consume(']') {
				break
			}
			if !d.consume(',') {
				return false
			}
		}
	}
	fv.Field(0).Set(list)
	fv.Field(1).SetBool(true)
	return true
}
