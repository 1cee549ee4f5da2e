package cms

import "strings"

// A JSON number is exact; float64 is not. A literal that rounds onto a
// bound (90.00000000000000001 -> 90) or onto an integer (2.0000000000000001,
// 1e-400 -> 0) is judged by its exact value, as a JSON Schema validator
// judges it. The literal is read as decimal digits, in time linear in its
// length: a body of megabytes of digits costs no more than reading it
// (math/big would take quadratic time).

// decimal is a JSON number literal: ±(ip.fp) × 10^exp, where ip and fp are
// the digits before and after the point, as written.
type decimal struct {
	neg    bool
	ip, fp string
	exp    int64 // saturated at ±maxDecimalExp
}

// maxDecimalExp bounds exponents far beyond any literal a body can hold,
// so that sums of positions never overflow.
const maxDecimalExp = 1 << 40

// parseDecimal reads a JSON number literal (RFC 8259 grammar); false when
// s is not one.
func parseDecimal(s string) (decimal, bool) {
	var d decimal
	if strings.HasPrefix(s, "-") {
		d.neg, s = true, s[1:]
	}
	if i := strings.IndexAny(s, "eE"); i >= 0 {
		e := s[i+1:]
		s = s[:i]
		neg := false
		if e != "" && (e[0] == '+' || e[0] == '-') {
			neg, e = e[0] == '-', e[1:]
		}
		if e == "" || !allDigits(e) {
			return d, false
		}
		for _, c := range []byte(e) {
			d.exp = min(d.exp*10+int64(c-'0'), maxDecimalExp)
		}
		if neg {
			d.exp = -d.exp
		}
	}
	d.ip, d.fp, _ = strings.Cut(s, ".")
	if d.ip == "" || !allDigits(d.ip) || !allDigits(d.fp) || (strings.Contains(s, ".") && d.fp == "") {
		return d, false
	}
	return d, true
}

func allDigits(s string) bool {
	for _, c := range []byte(s) {
		if c < '0' || c > '9' {
			return false
		}
	}
	return true
}

// digit returns the i-th digit of ip followed by fp.
func (d decimal) digit(i int) byte {
	if i < len(d.ip) {
		return d.ip[i]
	}
	return d.fp[i-len(d.ip)]
}

// significant returns the indexes (into ip followed by fp) of the first and
// last non-zero digits; ok is false for zero.
func (d decimal) significant() (first, last int, ok bool) {
	n := len(d.ip) + len(d.fp)
	first = 0
	for first < n && d.digit(first) == '0' {
		first++
	}
	if first == n {
		return 0, 0, false
	}
	last = n - 1
	for d.digit(last) == '0' {
		last--
	}
	return first, last, true
}

// isInteger reports whether d is an integer: no non-zero digit after the
// point once the exponent has moved it.
func (d decimal) isInteger() bool {
	_, last, ok := d.significant()
	return !ok || int64(last) < int64(len(d.ip))+d.exp
}

// cmpDecimal returns -1, 0 or +1 as a is less than, equal to or greater
// than b; -0 equals 0.
func cmpDecimal(a, b decimal) int {
	af, al, aNonZero := a.significant()
	bf, bl, bNonZero := b.significant()
	sign := func(neg, nonZero bool) int {
		switch {
		case !nonZero:
			return 0
		case neg:
			return -1
		}
		return 1
	}
	as, bs := sign(a.neg, aNonZero), sign(b.neg, bNonZero)
	if as != bs || as == 0 {
		return cmpInt(as, bs)
	}
	// Same sign, both non-zero: compare magnitudes, then flip for negatives.
	// lead is the power of ten just above the first significant digit.
	aLead := int64(len(a.ip)) + a.exp - int64(af)
	bLead := int64(len(b.ip)) + b.exp - int64(bf)
	mag := 0
	switch {
	case aLead != bLead:
		mag = cmpInt(aLead, bLead)
	default:
		i, j := af, bf
		for ; i <= al && j <= bl && mag == 0; i, j = i+1, j+1 {
			mag = cmpInt(a.digit(i), b.digit(j))
		}
		if mag == 0 {
			// One is a prefix of the other; the longer has a non-zero
			// digit more.
			mag = cmpInt(al-i, bl-j)
		}
	}
	return as * mag
}

func cmpInt[T int | int64 | byte](a, b T) int {
	switch {
	case a < b:
		return -1
	case a > b:
		return 1
	}
	return 0
}

// onBound reports whether n equals one of the field's bounds. A float
// strictly inside the bounds needs no second look: rounding to the nearest
// float64 keeps order, so a value beyond a bound never rounds to inside it.
func (f *fieldSpec) onBound(n float64) bool {
	return (f.hasMin && n == f.minimum) || (f.hasMax && n == f.maximum)
}

// exactlyInRange reports whether a number literal lies within its field's
// bounds exactly; it is asked only of numbers on a bound (onBound).
func exactlyInRange(f *fieldSpec, literal string) bool {
	exact, ok := parseDecimal(literal)
	return ok && (!f.hasMin || cmpDecimal(exact, f.minExact) >= 0) &&
		(!f.hasMax || cmpDecimal(exact, f.maxExact) <= 0)
}

// exactInteger reports whether a number literal is an integer exactly;
// plain digits need no second look.
func exactInteger(literal string) bool {
	if !strings.ContainsAny(literal, ".eE") {
		return true
	}
	exact, ok := parseDecimal(literal)
	return ok && exact.isInteger()
}
