package cms

import (
	"strings"
	"testing"
)

// pointSeeds are stored Resource documents: the full and sparse ones, with
// escapes in the fields a point reads and in those it skips.
func pointSeeds(tb testing.TB) []string {
	docs := NewDocumentCodec()
	full := string(docs.Marshal(fullRecord(tb, KindResource)))
	r := fullRecord(tb, KindResource).(*Resource)
	r.Title = Langs[string]{"en": `<img src=x onerror=alert(1)> "q" \ é`, "it": "\u00e9\u0001"}
	r.ResourceCategories = NullOf([]string{`a"b`, "c"})
	escaped := string(docs.Marshal(r))
	seeds := []string{full, escaped, string(docs.Marshal(NewRecord(KindResource)))}
	for _, d := range []string{full, escaped} {
		seeds = append(seeds,
			strings.Replace(d, `"resourceCategories":[`, `"resourceCategories":[ `, 1),
			strings.Replace(d, `"title":{`, `"title":{"fr":null,`, 1),
			strings.Replace(d, `"title":{`, `"title" : { "x\u0079":"z",`, 1),
			strings.Replace(d, `"resourceType":`, `"resourceType":null,"r":`, 1),
			strings.Replace(d, `"title":{`, `"title":null,"t":{`, 1),
			strings.Replace(d, `"resourceCategories":[`, `"resourceCategories":[null,`, 1),
			strings.Replace(d, `"published":true`, `"published":[{"a":[1,-2.5e3,"\"]"]},true,false,null]`, 1),
			d+" ",
			d[:len(d)-1],
		)
	}
	return seeds
}

// TestScanPointAgreesWithDecode: what the quick scan of a document reads
// is what the decoded record holds, and a document it cannot read (or
// that is no Resource) goes to the decoder.
func TestScanPointAgreesWithDecode(t *testing.T) {
	docs := NewDocumentCodec()
	langs := Languages{Default: "en", All: []string{"en", "it", "de"}}
	if _, ok := scanPoint(pointSeeds(t)[0]); !ok {
		t.Fatal("the quick scan does not read a full stored Resource")
	}
	for _, doc := range pointSeeds(t) {
		rec := new(Resource)
		decodeErr := docs.DecodeDocument(doc, rec)
		// The scan reads stored documents, which the codec wrote: it may
		// take what Decode refuses (a null it skips, an unknown member),
		// and must agree with Decode on what Decode takes.
		_, ok := scanPoint(doc)
		pt, err := docs.point(PointRow{ID: "x", Document: doc}, langs)
		if decodeErr != nil {
			if err == nil && !ok {
				t.Errorf("no error for a bad document: %.120s", doc)
			}
			continue
		}
		if err != nil {
			t.Errorf("point of a good document: %v", err)
			continue
		}
		wantTitle, wantLang := pointTitle(langs, map[string]string(rec.Title))
		var wantCat string
		if c := rec.ResourceCategories.Value; len(c) > 0 {
			wantCat = c[0]
		}
		if pt.Title != wantTitle || pt.TitleLang != wantLang || pt.Type != rec.ResourceType.Value || pt.Category != wantCat {
			t.Errorf("scanned %v: %+v, decoded title %q %q type %q category %q\n%.200s", ok, pt, wantTitle, wantLang,
				rec.ResourceType.Value, wantCat, doc)
		}
	}
}

// FuzzScanPoint: the quick scan never reads what Decode refuses, and
// agrees with it on what it reads.
func FuzzScanPoint(f *testing.F) {
	for _, s := range pointSeeds(f) {
		f.Add(s)
	}
	docs := NewDocumentCodec()
	f.Fuzz(func(t *testing.T, doc string) {
		f, ok := scanPoint(doc)
		if !ok {
			return
		}
		rec := new(Resource)
		if err := docs.DecodeDocument(doc, rec); err != nil {
			return // the scan skips what it does not read: it may take more than Decode
		}
		for l, title := range f.titles {
			if rec.Title[l] != title {
				t.Errorf("title %s: scanned %q, decoded %q", l, title, rec.Title[l])
			}
		}
		if f.typ != rec.ResourceType.Value {
			t.Errorf("type: scanned %q, decoded %q", f.typ, rec.ResourceType.Value)
		}
	})
}
