package cms

import (
	"errors"
	"math/big"
	"math/rand/v2"
	"strings"
	"testing"
	"time"
)

// randomLiteral returns a JSON number literal built from few distinct
// digits, so that equal values and values a digit apart come up often.
func randomLiteral(r *rand.Rand) string {
	digits := func(n int) string {
		var b strings.Builder
		for range n {
			b.WriteByte("0019"[r.IntN(4)])
		}
		return b.String()
	}
	var b strings.Builder
	if r.IntN(3) == 0 {
		b.WriteByte('-')
	}
	ip := digits(1 + r.IntN(4))
	if len(ip) > 1 && ip[0] == '0' {
		ip = ip[1:]
	}
	if ip[0] == '0' {
		ip = "0"
	}
	b.WriteString(ip)
	if r.IntN(2) == 0 {
		b.WriteString("." + digits(1+r.IntN(5)))
	}
	if r.IntN(2) == 0 {
		b.WriteString([]string{"e", "E", "e+", "e-", "E-"}[r.IntN(5)])
		b.WriteString(digits(1 + r.IntN(2)))
	}
	return b.String()
}

// TestDecimalAgainstBigRat compares the linear-time reading of literals
// with math/big's exact one.
func TestDecimalAgainstBigRat(t *testing.T) {
	t.Parallel()
	r := rand.New(rand.NewPCG(1, 2))
	for range 20000 {
		a, b := randomLiteral(r), randomLiteral(r)
		da, okA := parseDecimal(a)
		db, okB := parseDecimal(b)
		ra, _ := new(big.Rat).SetString(a)
		rb, _ := new(big.Rat).SetString(b)
		if !okA || !okB {
			t.Fatalf("parseDecimal(%q) = %v, parseDecimal(%q) = %v, want both read", a, okA, b, okB)
		}
		if got, want := cmpDecimal(da, db), ra.Cmp(rb); got != want {
			t.Fatalf("cmpDecimal(%s, %s) = %d, want %d", a, b, got, want)
		}
		if got, want := da.isInteger(), ra.IsInt(); got != want {
			t.Fatalf("isInteger(%s) = %v, want %v", a, got, want)
		}
	}
}

func TestDecimalCases(t *testing.T) {
	t.Parallel()
	for _, tt := range []struct {
		a, b string
		cmp  int
	}{
		{"90", "90.0", 0},
		{"90.00000000000000001", "90", 1},
		{"-90.00000000000000001", "-90", -1},
		{"9e1", "90", 0},
		{"900e-1", "90", 0},
		{"0.9E+2", "90", 0},
		{"-0", "0", 0},
		{"-0.0e5", "0", 0},
		{"1e-400", "0", 1},
		{"-1e-400", "0", -1},
		{"1e400", "9007199254740991", 1},
		{"1e99999999999999999999", "9007199254740991", 1}, // saturated exponent
		{"-1e-99999999999999999999", "0", -1},
		{"9007199254740991.0000000001", "9007199254740991", 1},
		{"4.0000000000000001", "4", 1},
		{"3.9999999999999999", "4", -1},
	} {
		a, okA := parseDecimal(tt.a)
		b, okB := parseDecimal(tt.b)
		if !okA || !okB {
			t.Fatalf("parseDecimal(%q, %q): not read", tt.a, tt.b)
		}
		if got := cmpDecimal(a, b); got != tt.cmp {
			t.Errorf("cmpDecimal(%s, %s) = %d, want %d", tt.a, tt.b, got, tt.cmp)
		}
	}
	for _, s := range []string{"", "-", "1.", ".5", "1e", "1e+", "0x10", "1.2.3", "NaN", "1_000", "+1"} {
		if _, ok := parseDecimal(s); ok {
			t.Errorf("parseDecimal(%q) read a number, want false", s)
		}
	}
}

// TestDecodeLongNumberLiteral: a number of two million digits that rounds
// onto a bound or an integer is judged exactly, in linear time (math/big
// took seconds for it: a cheap way to burn a server's CPU).
func TestDecodeLongNumberLiteral(t *testing.T) {
	t.Parallel()
	c := agreementCodec(t)
	zeros := strings.Repeat("0", 2_000_000)
	for _, tt := range []struct {
		name, field, literal, want string
	}{
		{"beyond a bound", "locationLat", "90." + zeros + "1", "Resource abc: locationLat: must be between -90 and 90"},
		{"not an integer", "locationZoom", "3." + zeros + "1", "Resource abc: locationZoom: must be an integer"},
		{"on a bound", "locationLat", "-90." + zeros, ""},
		{"an integer", "locationZoom", "25." + zeros, ""},
	} {
		start := time.Now()
		got := ""
		var e *Error
		if err := c.Decode([]byte(`{"id":"abc","`+tt.field+`":`+tt.literal+`}`), NewRecord(KindResource)); errors.As(err, &e) {
			got = e.ProblemText()
		} else if err != nil {
			t.Fatalf("%s: Decode = %v, want a content problem", tt.name, err)
		}
		if got != tt.want {
			t.Errorf("%s: problems %q, want %q", tt.name, got, tt.want)
		}
		if d := time.Since(start); d > 3*time.Second {
			t.Errorf("%s: decoding took %v, want linear time (well under a second)", tt.name, d)
		}
	}
}
