package cms

import (
	"reflect"
	"strings"
	"testing"
)

// documentSeeds are stored documents of every kind, full and sparse, with
// text that needs escapes, and variants the quick reading leaves to Decode.
func documentSeeds(tb testing.TB) []string {
	tb.Helper()
	docs := NewDocumentCodec()
	var seeds []string
	for _, kind := range Kinds() {
		full := string(docs.Marshal(fullRecord(tb, kind)))
		sparse := NewRecord(kind)
		seeds = append(seeds, full, string(docs.Marshal(sparse)), string(docs.AppendPatch(nil, fullRecord(tb, kind))))
		seeds = append(seeds,
			" \n"+full+"\t ",
			strings.Replace(full, `"id":`, ` "id" : `, 1),
			full+"x",
			full[:len(full)-1],
			strings.Replace(full, `":"`, `":"\"quoted\" \\ \/ \b\f\n\r\t `, 3),
			strings.Replace(full, `":"`, `":"\u00e9\ud83d\ude00 `, 2),
			strings.Replace(full, `":"`, "\":\"\x01", 1),
			strings.Replace(full, `":"`, "\":\"\xff", 1),
			strings.Replace(full, `":"`, `":"\x`, 1),
			strings.Replace(full, `":"`, `":"é ü 😀`, 4),
			strings.Replace(full, `"id"`, `"i\u0064"`, 1),
			strings.Replace(full, `:null`, `:1`, 1),
			strings.Replace(full, `:null`, `:-0`, 3),
			strings.Replace(full, `:null`, `:12.5e-3`, 3),
			strings.Replace(full, `:null`, `:1e400`, 3),
			strings.Replace(full, `:null`, `:01`, 3),
			strings.Replace(full, `:null`, `:true`, 3),
			strings.Replace(full, `:null`, `:[]`, 3),
			strings.Replace(full, `:null`, `:{}`, 3),
			strings.Replace(full, `:null`, `:{"en":null,"it":"x","en":"y"}`, 3),
			strings.Replace(full, `{`, `{"unknown":1,`, 1),
			strings.Replace(full, `,`, `,,`, 1),
			`{}`, `[]`, `null`, ``, `{"id":"a","id":"b"}`,
		)
	}
	return seeds
}

// FuzzDecodeDocument: the quick reading of a stored document decides as
// Decode does, and reads the same record.
func FuzzDecodeDocument(f *testing.F) {
	for _, s := range documentSeeds(f) {
		f.Add(s)
	}
	docs := NewDocumentCodec()
	f.Fuzz(func(t *testing.T, doc string) {
		for _, kind := range Kinds() {
			want, got := NewRecord(kind), NewRecord(kind)
			wantErr := docs.Decode([]byte(doc), want)
			gotErr := docs.DecodeDocument(doc, got)
			if verdict(gotErr) != verdict(wantErr) {
				t.Fatalf("%s %q: DecodeDocument says %v, Decode %v", kind, doc, gotErr, wantErr)
			}
			if wantErr == nil && !reflect.DeepEqual(got, want) {
				t.Fatalf("%s %q: DecodeDocument reads\n%+v\nDecode\n%+v", kind, doc, got, want)
			}
		}
	})
}

// TestDecodeDocumentQuick: documents as the storage codec writes them are
// read without the general decoder, and their plain strings are the
// document's.
func TestDecodeDocumentQuick(t *testing.T) {
	docs := NewDocumentCodec()
	for _, kind := range Kinds() {
		doc := string(docs.Marshal(fullRecord(t, kind)))
		oc, v := docs.kind(NewRecord(kind))
		d := docScanner{s: doc}
		if !d.document(oc, v) {
			t.Fatalf("%s: the quick reading gives up on %s", kind, doc)
		}
	}
	if n := testing.AllocsPerRun(100, func() {
		var r Resource
		if err := docs.DecodeDocument(`{"id":"r1","ctaUrl":"https://example.com","image":null}`, &r); err != nil {
			t.Fatal(err)
		}
	}); n > 1 {
		t.Errorf("%v allocations to read two plain strings, want at most 1 (the record)", n)
	}
}
