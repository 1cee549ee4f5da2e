package cms

import "testing"

// The benchmarks run on the full Resource fixture in en, it and de (about
// 4 KB of JSON): the per-request work of an upsert body and of a read.

// BenchmarkResourceDecodeValidateEncode is the work of one upsert body:
// strict decode with the field rules, the whole-record rules (Validate),
// and the encoding of the answer into a reused buffer.
func BenchmarkResourceDecodeValidateEncode(b *testing.B) {
	c := mustCodec(b, testLangs(b))
	body := c.Marshal(fullResource(b))
	buf := make([]byte, 0, 2*len(body))
	b.SetBytes(int64(len(body)))
	b.ReportAllocs()
	for b.Loop() {
		var r Resource
		if err := c.Decode(body, &r); err != nil {
			b.Fatal(err)
		}
		if err := c.Validate(&r); err != nil {
			b.Fatal(err)
		}
		buf = c.Append(buf[:0], &r)
	}
}

func BenchmarkResourceDecode(b *testing.B) {
	c := mustCodec(b, testLangs(b))
	body := c.Marshal(fullResource(b))
	b.SetBytes(int64(len(body)))
	b.ReportAllocs()
	for b.Loop() {
		var r Resource
		if err := c.Decode(body, &r); err != nil {
			b.Fatal(err)
		}
	}
}

func BenchmarkResourceValidate(b *testing.B) {
	c := mustCodec(b, testLangs(b))
	r := fullResource(b)
	b.ReportAllocs()
	for b.Loop() {
		if err := c.Validate(r); err != nil {
			b.Fatal(err)
		}
	}
}

// BenchmarkResourceEncode appends into a reused buffer, as a server
// answering many reads would.
func BenchmarkResourceEncode(b *testing.B) {
	c := mustCodec(b, testLangs(b))
	r := fullResource(b)
	buf := c.Marshal(r)
	b.SetBytes(int64(len(buf)))
	b.ReportAllocs()
	for b.Loop() {
		buf = c.Append(buf[:0], r)
	}
}

// BenchmarkDocumentRoundTrip is the storage form written and read back.
func BenchmarkDocumentRoundTrip(b *testing.B) {
	docs := NewDocumentCodec()
	r := fullResource(b)
	buf := docs.Marshal(r)
	b.SetBytes(int64(len(buf)))
	b.ReportAllocs()
	for b.Loop() {
		buf = docs.Append(buf[:0], r)
		var got Resource
		if err := docs.Decode(buf, &got); err != nil {
			b.Fatal(err)
		}
	}
}

// BenchmarkDocumentRead is a stored full Resource read back, by the
// general decoder and by DecodeDocument, then written as a read answers it.
func BenchmarkDocumentRead(b *testing.B) {
	docs := NewDocumentCodec()
	c := mustCodec(b, testLangs(b))
	doc := string(docs.Marshal(fullResource(b)))
	b.Run("Decode", func(b *testing.B) {
		b.SetBytes(int64(len(doc)))
		b.ReportAllocs()
		for b.Loop() {
			var got Resource
			if err := docs.Decode([]byte(doc), &got); err != nil {
				b.Fatal(err)
			}
		}
	})
	b.Run("DecodeDocument", func(b *testing.B) {
		b.SetBytes(int64(len(doc)))
		b.ReportAllocs()
		for b.Loop() {
			var got Resource
			if err := docs.DecodeDocument(doc, &got); err != nil {
				b.Fatal(err)
			}
		}
	})
	b.Run("Append", func(b *testing.B) {
		var r Resource
		if err := docs.DecodeDocument(doc, &r); err != nil {
			b.Fatal(err)
		}
		buf := c.Append(nil, &r)
		b.SetBytes(int64(len(buf)))
		b.ReportAllocs()
		for b.Loop() {
			buf = c.Append(buf[:0], &r)
		}
	})
}

// BenchmarkNewCodec is the cost of building a codec (reflection over the
// four kinds), paid once per language configuration.
func BenchmarkNewCodec(b *testing.B) {
	langs := testLangs(b)
	b.ReportAllocs()
	for b.Loop() {
		if _, err := NewCodec(langs); err != nil {
			b.Fatal(err)
		}
	}
}

func BenchmarkJSONSchema(b *testing.B) {
	langs := testLangs(b)
	b.ReportAllocs()
	for b.Loop() {
		if _, err := JSONSchema(KindResource, langs); err != nil {
			b.Fatal(err)
		}
	}
}

// BenchmarkMergeIntoNew is the merge of a body into a record that does
// not exist yet, as most records of a batch are: the patch is decoded
// each round (a merge may take its maps), only the merge is timed.
func BenchmarkMergeIntoNew(b *testing.B) {
	c := mustCodec(b, testLangs(b))
	body := c.Marshal(fullResource(b))
	spec := NewDocumentCodec().kinds[KindResource].spec
	b.ReportAllocs()
	for b.Loop() {
		b.StopTimer()
		var patch Resource
		if err := c.Decode(body, &patch); err != nil {
			b.Fatal(err)
		}
		b.StartTimer()
		mergeRecord(spec, newWithDefaults(KindResource, patch.ID), &patch)
	}
}
