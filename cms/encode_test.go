package cms

import (
	"bytes"
	"strings"
	"testing"

	"github.com/go-json-experiment/json/jsontext"
)

// TestAppendStringAgrees holds the copy of plain ASCII to jsontext's
// quoting: every byte value, at every position of the eight-byte words
// and of the tail.
func TestAppendStringAgrees(t *testing.T) {
	var cases []string
	for _, n := range []int{0, 1, 7, 8, 9, 16, 17} {
		base := strings.Repeat("a", n)
		cases = append(cases, base)
		for pos := range n {
			for c := range 256 {
				cases = append(cases, base[:pos]+string(rune(c))+base[pos+1:], base[:pos]+string([]byte{byte(c)})+base[pos+1:])
			}
		}
	}
	cases = append(cases, "<p>Text with \"quotes\"</p>", "tab\there", "città", "\u2028", "\x7f", "back\\slash", "\xff\xfe")
	for _, s := range cases {
		wantQuoted(t, s)
	}
}

func FuzzAppendString(f *testing.F) {
	for _, s := range []string{"", "plain text", "<p>\"q\"</p>", "città", "\x00\x1f\x7f", "\xff"} {
		f.Add(s)
	}
	f.Fuzz(wantQuoted)
}

func wantQuoted(t *testing.T, s string) {
	t.Helper()
	want, _ := jsontext.AppendQuote(nil, s)
	if got := appendString(nil, s); !bytes.Equal(got, want) {
		t.Fatalf("appendString(%q) = %q; jsontext writes %q", s, got, want)
	}
}
