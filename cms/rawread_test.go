package cms

import (
	"bytes"
	"math"
	"math/rand/v2"
	"reflect"
	"strings"
	"testing"
	"time"
)

// rawLangs are the language configurations the equivalence tests answer
// in: one language, several, another default, one the records lack.
func rawLangs(tb testing.TB) []Languages {
	tb.Helper()
	var all []Languages
	for _, l := range [][]string{{"en", "en"}, {"en", "en", "it", "de"}, {"it", "en", "it"}, {"fr", "fr", "de"}} {
		langs, err := NewLanguages(l[0], l[1:]...)
		if err != nil {
			tb.Fatal(err)
		}
		all = append(all, langs)
	}
	return all
}

// storedEntry is the entry of doc as a store reads it undecoded, with
// read-only values and assignment lists of its own.
func storedEntry(kind Kind, doc string, r *rand.Rand) *Entry {
	e := &Entry{Account: "a", Updated: time.UnixMicro(1_790_000_000_000_000 + r.Int64N(1e12)).UTC(),
		Stored: &StoredRecord{Kind: kind, ID: "x", Document: doc}}
	if r.IntN(2) == 0 {
		e.StatsAccess = r.Int64N(1000)
		e.StatsLastAccess = e.Updated.Add(time.Duration(r.Int64N(1e12)))
	}
	for i := range r.IntN(4) {
		e.Stored.Primary = append(e.Stored.Primary, "p-"+string(rune('a'+i)))
	}
	for i := range r.IntN(3) {
		e.Stored.Secondary = append(e.Stored.Secondary, "s\"-"+string(rune('a'+i)))
	}
	return e
}

// bothPaths answers e from its stored bytes and by decoding it: fast is
// nil when the stored bytes path gives up.
func bothPaths(t *testing.T, s *Service, c *Codec, e *Entry) (fast, slow []byte, slowErr error) {
	t.Helper()
	stored := *e.Stored
	fe := *e
	fe.Stored = &stored
	if out, ok := s.appendStored([]byte("prefix"), c, &fe); ok {
		if !bytes.HasPrefix(out, []byte("prefix")) {
			t.Fatalf("appendStored lost what dst held: %.40q", out)
		}
		fast = out[len("prefix"):]
	} else if string(out) != "prefix" {
		t.Fatalf("appendStored gave up but changed dst: %.80q", out)
	}
	// AppendEntry itself takes the stored bytes path when it can.
	se := *e
	se.Stored = &stored
	if got, err := s.AppendEntry(nil, c, &se, nil); fast != nil && (err != nil || !bytes.Equal(got, fast)) {
		t.Fatalf("AppendEntry differs from appendStored (%v)", err)
	}
	// The decoding path: decode, then write.
	de := *e
	de.Stored = &stored
	if slowErr = s.decodeStored(&de); slowErr != nil {
		return fast, nil, slowErr
	}
	return fast, c.Append(nil, s.Wire(&de)), nil
}

func rawService() *Service {
	return &Service{doc: NewDocumentCodec(), opts: Options{Location: time.FixedZone("CET", 3600)}}
}

// TestAppendStoredEquivalence: records of every kind, full, sparse, with
// explicit nulls and at random, written by the storage codec, are
// answered from their stored bytes (never given up) exactly as the
// decoding path answers them, in every language configuration.
func TestAppendStoredEquivalence(t *testing.T) {
	s := rawService()
	r := rand.New(rand.NewPCG(7, 28))
	for _, langs := range rawLangs(t) {
		c := mustCodec(t, langs)
		for _, kind := range Kinds() {
			records := []Record{fullRecord(t, kind), NewRecord(kind), nulled(fullRecord(t, kind))}
			for range 300 {
				records = append(records, randomRecord(r, kind))
			}
			for i, rec := range records {
				doc := string(s.doc.Marshal(rec))
				fast, slow, err := bothPaths(t, s, c, storedEntry(kind, doc, r))
				if err != nil {
					t.Fatalf("%s %s #%d: the decoding path fails: %v", langs, kind, i, err)
				}
				if fast == nil {
					if strings.Contains(doc, `\u00`) {
						continue // a control character: left to the decoding path
					}
					t.Fatalf("%s %s #%d: the stored bytes path gives up on %s", langs, kind, i, doc)
				}
				if !bytes.Equal(fast, slow) {
					t.Fatalf("%s %s #%d: from the stored bytes\n%s\ndecoded\n%s", langs, kind, i, fast, slow)
				}
			}
		}
	}
}

// TestAppendStoredGivesUp: documents in another form than the storage
// codec's (whitespace, other escapes and spellings, duplicates, unknown
// names, what Decode refuses) are either answered exactly as decoded or
// left to the decoding path; an unreadable one is CodeInternal.
func TestAppendStoredGivesUp(t *testing.T) {
	s := rawService()
	c := mustCodec(t, testLangs(t))
	r := rand.New(rand.NewPCG(1, 2))
	gaveUp := 0
	for _, doc := range documentSeeds(t) {
		for _, kind := range Kinds() {
			fast, slow, err := bothPaths(t, s, c, storedEntry(kind, doc, r))
			switch {
			case err != nil && fast != nil:
				t.Errorf("%s %q: answered from the stored bytes, but the decoding path fails: %v", kind, doc, err)
			case err != nil && ErrorCode(err) != CodeInternal:
				t.Errorf("%s %q: %v, want CodeInternal", kind, doc, err)
			case fast == nil:
				gaveUp++
			case !bytes.Equal(fast, slow):
				t.Errorf("%s %q:\nfrom the stored bytes\n%s\ndecoded\n%s", kind, doc, fast, slow)
			}
		}
	}
	if gaveUp == 0 {
		t.Error("no seed was left to the decoding path")
	}
}

// FuzzAppendStored: whatever the stored document, the answer from its
// bytes, when given, is the decoding path's.
func FuzzAppendStored(f *testing.F) {
	for _, doc := range documentSeeds(f) {
		f.Add(doc)
	}
	s := rawService()
	c := mustCodec(f, testLangs(f))
	f.Fuzz(func(t *testing.T, doc string) {
		r := rand.New(rand.NewPCG(uint64(len(doc)), 1))
		for _, kind := range Kinds() {
			fast, slow, err := bothPaths(t, s, c, storedEntry(kind, doc, r))
			if fast != nil && (err != nil || !bytes.Equal(fast, slow)) {
				t.Fatalf("%s %q:\nfrom the stored bytes\n%s\ndecoded (%v)\n%s", kind, doc, fast, err, slow)
			}
		}
	})
}

// nulled sets every nullable field of rec (and of its items) to an
// explicit null, every language value of a nullable one too.
func nulled(rec Record) Record {
	var walk func(v reflect.Value)
	walk = func(v reflect.Value) {
		for i := range v.NumField() {
			switch p := v.Field(i).Addr().Interface().(type) {
			case *Null[string]:
				*p = Nil[string]()
			case *Null[bool]:
				*p = Nil[bool]()
			case *Null[float64]:
				*p = Nil[float64]()
			case *Null[int64]:
				*p = Nil[int64]()
			case *Null[[]string]:
				*p = Nil[[]string]()
			case *Langs[Null[string]]:
				for k := range *p {
					(*p)[k] = Nil[string]()
				}
			default:
				if f := v.Field(i); f.Kind() == reflect.Struct && f.NumField() == 2 && f.Field(0).Kind() == reflect.Slice &&
					f.Field(0).Type().Elem().Kind() == reflect.Struct {
					for j := range f.Field(0).Len() {
						walk(f.Field(0).Index(j))
					}
				}
			}
		}
	}
	walk(reflect.ValueOf(rec).Elem())
	return rec
}

// randomText is a string of printable ASCII, characters JSON escapes,
// control characters, non-ASCII and U+2028, sometimes empty.
func randomText(r *rand.Rand) string {
	pieces := []string{"a", "Lake Como", " ", "\"", "\\", "/", "\n", "\t", "\r", "\b", "\f", "é", "😀", "\u2028",
		"<p>&amp;</p>", "\x7f", "https://example.com/x.png", "\x01"}
	var sb strings.Builder
	for range r.IntN(12) {
		p := pieces[r.IntN(len(pieces))]
		if p == "\x01" && r.IntN(8) != 0 {
			continue // rare: such a document is left to the decoding path
		}
		sb.WriteString(p)
	}
	return sb.String()
}

// randomNumber is a float of any magnitude and sign, an integer, or zero.
func randomNumber(r *rand.Rand) float64 {
	switch r.IntN(5) {
	case 0:
		return 0
	case 1:
		return float64(r.IntN(200) - 100)
	case 2:
		return (r.Float64() - 0.5) * 360
	case 3:
		return math.Ldexp(r.Float64(), r.IntN(160)-80)
	}
	return -r.Float64() * 1e-7
}

// randomRecord is a record of kind whose every field is left unset, set to
// null, or set at random (its language values in en, it, de and fr at
// random), and so are its nested items.
func randomRecord(r *rand.Rand, kind Kind) Record {
	rec := NewRecord(kind)
	fill(r, reflect.ValueOf(rec).Elem())
	reflect.ValueOf(rec).Elem().Field(0).SetString("rec-" + randomText(r))
	return rec
}

func fill(r *rand.Rand, v reflect.Value) {
	codes := []string{"en", "it", "de", "fr"}
	for i := range v.NumField() {
		if r.IntN(3) == 0 {
			continue // unset
		}
		null := r.IntN(4) == 0
		switch p := v.Field(i).Addr().Interface().(type) {
		case *string:
			*p = randomText(r)
		case *int64:
			*p = r.Int64N(1<<53) - 1<<52
		case *Opt[string]:
			*p = Some(randomText(r))
		case *Opt[bool]:
			*p = Some(r.IntN(2) == 0)
		case *Opt[float64]:
			*p = Some(randomNumber(r))
		case *Opt[[]string]:
			*p = Some(randomTexts(r))
		case *Null[string]:
			*p = NullOf(randomText(r))
			if null {
				*p = Nil[string]()
			}
		case *Null[bool]:
			*p = NullOf(r.IntN(2) == 0)
			if null {
				*p = Nil[bool]()
			}
		case *Null[float64]:
			*p = NullOf(randomNumber(r))
			if null {
				*p = Nil[float64]()
			}
		case *Null[int64]:
			*p = NullOf(r.Int64N(1<<53) - 1<<52)
			if null {
				*p = Nil[int64]()
			}
		case *Null[[]string]:
			*p = NullOf(randomTexts(r))
			if null {
				*p = Nil[[]string]()
			}
		case *Langs[string]:
			*p = Langs[string]{}
			for _, code := range codes {
				if r.IntN(2) == 0 {
					(*p)[code] = randomText(r)
				}
			}
		case *Langs[Null[string]]:
			*p = Langs[Null[string]]{}
			for _, code := range codes {
				switch r.IntN(3) {
				case 0:
					(*p)[code] = NullOf(randomText(r))
				case 1:
					(*p)[code] = Nil[string]()
				}
			}
		default:
			// A list of nested items: Opt[[]Item].
			f := v.Field(i)
			list := reflect.MakeSlice(f.Field(0).Type(), r.IntN(3), 3)
			for j := range list.Len() {
				fill(r, list.Index(j))
			}
			f.Field(0).Set(list)
			f.Field(1).SetBool(true)
		}
	}
}

func randomTexts(r *rand.Rand) []string {
	list := []string{}
	for range r.IntN(4) {
		list = append(list, randomText(r))
	}
	return list
}

// BenchmarkAppendEntry writes the full Resource read undecoded, from its
// stored bytes and by decoding it (the path before), in one language and
// in three.
func BenchmarkAppendEntry(b *testing.B) {
	s := rawService()
	doc := string(s.doc.Marshal(fullRecord(b, KindResource)))
	for _, langs := range rawLangs(b)[:2] {
		c := mustCodec(b, langs)
		for _, decode := range []bool{false, true} {
			name := langs.String() + "/stored"
			if decode {
				name = langs.String() + "/decoded"
			}
			b.Run(name, func(b *testing.B) {
				buf := make([]byte, 0, 16<<10)
				b.ReportAllocs()
				for b.Loop() {
					e := &Entry{Updated: time.Unix(1_790_000_000, 0), Stored: &StoredRecord{Kind: KindResource, ID: "full-resource",
						Document: doc, Primary: []string{"map-1", "map-2"}}}
					if decode {
						if err := s.decodeStored(e); err != nil {
							b.Fatal(err)
						}
					}
					var err error
					if buf, err = s.AppendEntry(buf[:0], c, e, nil); err != nil {
						b.Fatal(err)
					}
				}
			})
		}
	}
}
