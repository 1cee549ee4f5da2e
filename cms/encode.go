package cms

import (
	"math"
	"reflect"
	"slices"
	"strconv"
	"unicode/utf8"
)

// Append appends rec to dst as one JSON object, as a read answers it: every
// readable field of the kind in the contract's order, every configured
// language variant, null for an unset nullable field and the zero value
// ("", false, 0, []) for an unset other one. Write-only fields never appear.
func (c *Codec) Append(dst []byte, rec Record) []byte {
	oc, v := c.kind(rec)
	return appendObject(dst, oc, v)
}

// Marshal returns rec as JSON; see Append.
func (c *Codec) Marshal(rec Record) []byte { return c.Append(make([]byte, 0, 4096), rec) }

// AppendPatch appends rec as a body would send it: only the fields that are
// set (absent ones left out, explicit nulls kept), write-only ones included.
// Decoding the result gives rec back.
func (c *Codec) AppendPatch(dst []byte, rec Record) []byte {
	oc, v := c.kind(rec)
	return appendPatch(dst, oc, v)
}

func appendObject(dst []byte, oc *objectCodec, v reflect.Value) []byte {
	dst = append(dst, '{')
	for i, b := range oc.out {
		if i > 0 {
			dst = append(dst, ',')
		}
		dst = append(dst, b.quoted...)
		dst = appendField(dst, b, v.Field(b.field.index))
	}
	return append(dst, '}')
}

func appendPatch(dst []byte, oc *objectCodec, v reflect.Value) []byte {
	dst = append(dst, '{')
	n := 0
	for _, f := range oc.spec.fields {
		for _, b := range oc.bindings[f] {
			fv := v.Field(f.index)
			if !isSet(fv, b) {
				continue
			}
			if n > 0 {
				dst = append(dst, ',')
			}
			n++
			dst = append(dst, b.quoted...)
			if b.item != nil {
				list := fv.Field(0)
				dst = append(dst, '[')
				for i := range list.Len() {
					if i > 0 {
						dst = append(dst, ',')
					}
					dst = appendPatch(dst, b.item, list.Index(i))
				}
				dst = append(dst, ']')
				continue
			}
			dst = appendField(dst, b, fv)
		}
	}
	return append(dst, '}')
}

// isSet reports whether field fv (in b's language) is present.
func isSet(fv reflect.Value, b binding) bool {
	switch p := fv.Addr().Interface().(type) {
	case *string:
		return *p != "" || b.field.required
	case *int64:
		return *p != 0
	case *Langs[string]:
		_, ok := (*p)[b.lang]
		return ok
	case *Langs[Null[string]]:
		return (*p)[b.lang].Set
	}
	return setFlag(fv)
}

// setFlag reads the Set field of an Opt or a Null: their last field (a look-up
// by name costs more than the rest of a merge).
func setFlag(fv reflect.Value) bool {
	return fv.Field(fv.NumField() - 1).Bool()
}

func appendField(dst []byte, b binding, fv reflect.Value) []byte {
	if b.langMap {
		return appendLangMap(dst, fv)
	}
	switch p := fv.Addr().Interface().(type) {
	case *string:
		return appendString(dst, *p)
	case *int64:
		return strconv.AppendInt(dst, *p, 10)
	case *Opt[string]:
		return appendString(dst, p.Value)
	case *Opt[bool]:
		return strconv.AppendBool(dst, p.Value)
	case *Opt[float64]:
		return appendNumber(dst, p.Value)
	case *Opt[[]string]:
		return appendStrings(dst, p.Value)
	case *Null[string]:
		if !p.Valid {
			return append(dst, "null"...)
		}
		return appendString(dst, p.Value)
	case *Null[bool]:
		if !p.Valid {
			return append(dst, "null"...)
		}
		return strconv.AppendBool(dst, p.Value)
	case *Null[float64]:
		if !p.Valid {
			return append(dst, "null"...)
		}
		return appendNumber(dst, p.Value)
	case *Null[int64]:
		if !p.Valid {
			return append(dst, "null"...)
		}
		return strconv.AppendInt(dst, p.Value, 10)
	case *Null[[]string]:
		if !p.Valid {
			return append(dst, "null"...)
		}
		return appendStrings(dst, p.Value)
	case *Langs[string]:
		return appendString(dst, (*p)[b.lang])
	case *Langs[Null[string]]:
		s := (*p)[b.lang]
		if !s.Valid {
			return append(dst, "null"...)
		}
		return appendString(dst, s.Value)
	}
	// A list of nested items: Opt[[]Item].
	list := fv.Field(0)
	dst = append(dst, '[')
	for i := range list.Len() {
		if i > 0 {
			dst = append(dst, ',')
		}
		dst = appendObject(dst, b.item, list.Index(i))
	}
	return append(dst, ']')
}

func appendString(dst []byte, s string) []byte {
	// Printable ASCII without quote or backslash (most text) is copied as
	// it is: a tenth of the time jsontext takes to look at it.
	if plainASCII(s) {
		dst = append(dst, '"')
		dst = append(dst, s...)
		return append(dst, '"')
	}
	return appendQuoted(dst, s)
}

// appendQuoted writes s quoted exactly as jsontext.AppendQuote does by
// default (short escapes, \u00XX for other control characters, nothing
// else escaped), with runs of plain ASCII copied eight bytes at a time:
// HTML content has a quote or a newline every few dozen bytes. Invalid
// UTF-8 (only possible in a record built in Go) is written as U+FFFD, so
// the output is always valid JSON.
func appendQuoted(dst []byte, s string) []byte {
	const ones, highs = 0x0101010101010101, 0x8080808080808080
	dst = slices.Grow(dst, len(s)+2)
	dst = append(dst, '"')
	i, n := 0, 0 // s[i:n] is plain, not yet written
	for n < len(s) {
		// Skip whole words of plain bytes (see plainASCII).
		for n+8 <= len(s) {
			w := uint64(s[n]) | uint64(s[n+1])<<8 | uint64(s[n+2])<<16 | uint64(s[n+3])<<24 |
				uint64(s[n+4])<<32 | uint64(s[n+5])<<40 | uint64(s[n+6])<<48 | uint64(s[n+7])<<56
			q, bs := w^(ones*'"'), w^(ones*'\\')
			if (w|(w-ones*0x20)|(q-ones)&^q|(bs-ones)&^bs)&highs != 0 {
				break
			}
			n += 8
		}
		if n == len(s) {
			break
		}
		c := s[n]
		if c >= utf8.RuneSelf {
			r, size := utf8.DecodeRuneInString(s[n:])
			if r == utf8.RuneError && size == 1 {
				dst = append(dst, s[i:n]...)
				dst = append(dst, "\ufffd"...)
				i = n + size
			}
			n += size
			continue
		}
		n++
		if c >= 0x20 && c != '"' && c != '\\' {
			continue
		}
		dst = append(dst, s[i:n-1]...)
		i = n
		switch c {
		case '"', '\\':
			dst = append(dst, '\\', c)
		case '\b':
			dst = append(dst, "\\b"...)
		case '\f':
			dst = append(dst, "\\f"...)
		case '\n':
			dst = append(dst, "\\n"...)
		case '\r':
			dst = append(dst, "\\r"...)
		case '\t':
			dst = append(dst, "\\t"...)
		default:
			const hex = "0123456789abcdef"
			dst = append(dst, '\\', 'u', '0', '0', hex[c>>4], hex[c&0xf])
		}
	}
	dst = append(dst, s[i:]...)
	return append(dst, '"')
}

// plainASCII reports whether s has only the ASCII characters JSON takes
// unescaped (as jsontext writes them): no control character below 0x20,
// quote, backslash or byte above 0x7F.
func plainASCII(s string) bool {
	// Eight bytes at a time: a byte is below 0x20 or above 0x7F when the
	// high bit of b-0x20 or of b is set; '"' and '\\' are found as zero
	// bytes of b^0x22.. and b^0x5C.. (the usual has-zero-byte test).
	const ones, highs = 0x0101010101010101, 0x8080808080808080
	i := 0
	for ; i+8 <= len(s); i += 8 {
		w := uint64(s[i]) | uint64(s[i+1])<<8 | uint64(s[i+2])<<16 | uint64(s[i+3])<<24 |
			uint64(s[i+4])<<32 | uint64(s[i+5])<<40 | uint64(s[i+6])<<48 | uint64(s[i+7])<<56
		q, bs := w^(ones*'"'), w^(ones*'\\')
		if (w|(w-ones*0x20)|(q-ones)&^q|(bs-ones)&^bs)&highs != 0 {
			return false
		}
	}
	for ; i < len(s); i++ {
		if c := s[i]; c < 0x20 || c >= 0x80 || c == '"' || c == '\\' {
			return false
		}
	}
	return true
}

func appendStrings(dst []byte, list []string) []byte {
	dst = append(dst, '[')
	for i, s := range list {
		if i > 0 {
			dst = append(dst, ',')
		}
		dst = appendString(dst, s)
	}
	return append(dst, ']')
}

func appendNumber(dst []byte, f float64) []byte {
	if math.IsNaN(f) || math.IsInf(f, 0) {
		// Not JSON; only a record built in Go and never validated has one.
		return append(dst, "null"...)
	}
	if f == 0 {
		f = 0 // a -0 stored by an earlier version reads as 0
	}
	// Plain decimals where they are readable, as encoding/json writes them.
	format := byte('f')
	if abs := math.Abs(f); abs != 0 && (abs < 1e-6 || abs >= 1e21) {
		format = 'e'
	}
	return strconv.AppendFloat(dst, f, format, -1, 64)
}

// sortedCodes appends the language codes of m to buf, sorted: a record has
// a few, so buf on the caller's stack saves allocating them.
func sortedCodes[V any](buf []string, m Langs[V]) []string {
	for code := range m {
		buf = append(buf, code)
	}
	slices.Sort(buf)
	return buf
}

// appendLangMap writes the storage form of a multi-language field: an
// object from language code to value, in code order.
func appendLangMap(dst []byte, fv reflect.Value) []byte {
	dst = append(dst, '{')
	switch p := fv.Addr().Interface().(type) {
	case *Langs[string]:
		var buf [8]string
		for i, code := range sortedCodes(buf[:0], *p) {
			if i > 0 {
				dst = append(dst, ',')
			}
			dst = appendString(dst, code)
			dst = append(dst, ':')
			dst = appendString(dst, (*p)[code])
		}
	case *Langs[Null[string]]:
		var buf [8]string
		i := 0
		for _, code := range sortedCodes(buf[:0], *p) {
			v := (*p)[code]
			if !v.Set {
				continue
			}
			if i > 0 {
				dst = append(dst, ',')
			}
			i++
			dst = appendString(dst, code)
			dst = append(dst, ':')
			if v.Valid {
				dst = appendString(dst, v.Value)
			} else {
				dst = append(dst, "null"...)
			}
		}
	}
	return append(dst, '}')
}
