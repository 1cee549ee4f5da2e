package cms

import (
	"bytes"
	"io"
	"math/rand/v2"
	"strings"
	"testing"

	"github.com/go-json-experiment/json/jsontext"
)

// splitByReader is the splitter's oracle: the records of a batch body as
// a strict JSON reader of the whole array cuts them (how checkBatch read
// a batch before the splitter).
func splitByReader(body []byte) ([][]byte, error) {
	dec := jsontext.NewDecoder(bytes.NewReader(body))
	if dec.PeekKind() != '[' {
		return nil, malformed(errBatchShape)
	}
	if _, err := dec.ReadToken(); err != nil {
		return nil, malformed(err)
	}
	var out [][]byte
	for dec.PeekKind() != ']' {
		if dec.PeekKind() != '{' {
			if _, err := dec.ReadValue(); err != nil {
				return nil, malformed(err)
			}
			return nil, malformed(errNotObject)
		}
		raw, err := dec.ReadValue()
		if err != nil {
			return nil, malformed(err)
		}
		if dec.StackDepth()+rawDepth(raw) > MaxDepth {
			return nil, malformed(errTooDeep)
		}
		out = append(out, raw.Clone())
	}
	if _, err := dec.ReadToken(); err != nil {
		return nil, malformed(err)
	}
	if _, err := dec.ReadToken(); err != io.EOF {
		return nil, malformed(errTrailing)
	}
	return out, nil
}

// splitBySplitter is what checkBatch does now: cut with the splitter, then
// decode each record strictly; a record that is not one strict JSON object
// refuses the body.
func splitBySplitter(codec *Codec, body []byte) ([][]byte, error) {
	split, err := newRecordSplitter(body)
	if err != nil {
		return nil, err
	}
	var out [][]byte
	for {
		raw, err := split.next()
		if err != nil {
			return nil, err
		}
		if raw == nil {
			return out, nil
		}
		if err := codec.Decode(raw, NewRecord(KindResource)); ErrorCode(err) == CodeMalformed {
			return nil, err
		}
		out = append(out, raw)
	}
}

// agreeOnSplit fails unless the splitter and the reader refuse body alike,
// or cut it into the same records.
func agreeOnSplit(t *testing.T, codec *Codec, body []byte) {
	t.Helper()
	want, werr := splitByReader(body)
	got, gerr := splitBySplitter(codec, body)
	if (werr == nil) != (gerr == nil) {
		t.Fatalf("%q: the reader says %v, the splitter %v", body, werr, gerr)
	}
	if werr != nil {
		if ErrorCode(gerr) != CodeMalformed {
			t.Fatalf("%q: the splitter refuses with %v, want CodeMalformed", body, gerr)
		}
		return
	}
	if len(got) != len(want) {
		t.Fatalf("%q: %d records, the reader cuts %d", body, len(got), len(want))
	}
	for i := range got {
		if !bytes.Equal(got[i], want[i]) {
			t.Fatalf("%q: record %d is %q, the reader cuts %q", body, i, got[i], want[i])
		}
	}
}

// splitSeeds are bodies where a splitter could go wrong.
func splitSeeds() []string {
	deep := func(n int) string { return strings.Repeat(`{"a":`, n-1) + `{}` + strings.Repeat(`}`, n-1) }
	return []string{
		`[]`, ` [ ] `, "\t[\n]\r\n", `[{}]`, `[{"id":"a"},{"id":"b"}]`, ` [ {"id":"a"} , {"id":"b"} ] `,
		`[{"title":"a ] } [ {"}]`, `[{"title":"a \" ] }"}]`, `[{"title":"a \\"},{"id":"b"}]`,
		`[{"t":"\\\\\""}]`, `[{"resourceCategories":["a",["b"],{"c":"]"}]}]`,
		`[`, `[{}`, `[{},`, `[{},]`, `[,{}]`, `[{}{}]`, `[{} {}]`, `[1]`, `[{},1]`, `["a"]`, `[[]]`, `[null]`,
		`{}`, `[{}]x`, `[{}] ]`, `[{}]]`, `[{"a":1,"a":2}]`, `[{"a":"\xff"}]`, "[{}]\xff", "\xef\xbb\xbf[{}]",
		`[{"a":}]`, `[{"a" 1}]`, `[{]`, `[{"a":[}]`, `[{"a":1]}]`, `[{"a":"x}]`, `[{"a":"x\"}]`,
		"[{\"a\":\"\x01\"}]", `[{"a":1}, {"b":[1,2,{"c":{}}]}]`,
		"[" + deep(31) + "]", "[" + deep(32) + "]", "[" + deep(33) + "]",
		`[{"a":[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]}]`,
		"\x00", ``, ` `, `[ {"a":1} ,, {"b":2} ]`, `[{"a":1}] [{"b":2}]`,
	}
}

// TestSplitterAgrees runs the seeds and mutations of them: the splitter
// refuses and cuts exactly as a strict reader of the whole array.
func TestSplitterAgrees(t *testing.T) {
	t.Parallel()
	codec := testCodec(t)
	r := rand.New(rand.NewPCG(7, 8))
	alphabet := []byte(`{}[],:" \\ab1` + "\n\x00\xff")
	for _, seed := range splitSeeds() {
		agreeOnSplit(t, codec, []byte(seed))
		for range 300 {
			b := []byte(seed)
			for range 1 + r.IntN(3) {
				switch i := r.IntN(len(b) + 1); r.IntN(3) {
				case 0: // insert
					b = append(b[:i], append([]byte{alphabet[r.IntN(len(alphabet))]}, b[i:]...)...)
				case 1: // delete
					if i < len(b) {
						b = append(b[:i], b[i+1:]...)
					}
				default: // replace
					if i < len(b) {
						b[i] = alphabet[r.IntN(len(alphabet))]
					}
				}
			}
			agreeOnSplit(t, codec, b)
		}
	}
}

// FuzzSplitter: go test ./cms -run X -fuzz FuzzSplitter.
func FuzzSplitter(f *testing.F) {
	for _, s := range splitSeeds() {
		f.Add([]byte(s))
	}
	codec, err := NewCodec(Languages{Default: "en", All: []string{"en"}})
	if err != nil {
		f.Fatal(err)
	}
	f.Fuzz(func(t *testing.T, body []byte) {
		agreeOnSplit(t, codec, body)
	})
}

func testCodec(t *testing.T) *Codec {
	t.Helper()
	codec, err := NewCodec(Languages{Default: "en", All: []string{"en"}})
	if err != nil {
		t.Fatal(err)
	}
	return codec
}
