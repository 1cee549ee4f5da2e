package cmstest

import (
	"bytes"
	"fmt"
	"math"
	"math/rand/v2"
	"reflect"
	"strings"
	"testing"
	"time"

	"github.com/bwcms/cms/cms"
)

// testStoredReads: records read undecoded (cms.StoredStreamer,
// ListParams.Stored) are answered by cms.Service.AppendEntry, from their
// stored bytes, exactly as the same records read decoded: byte for byte,
// with the same ETag, for random records of every kind with assignment
// lists and access counters, in several language configurations, by ids
// and through every list option; and a projection, which decodes them,
// too.
func testStoredReads(t *testing.T, open func(t *testing.T) cms.Store) {
	t.Parallel()
	s := open(t)
	ctx := t.Context()
	streamer, ok := s.(cms.StoredStreamer)
	if !ok {
		t.Skip("the store reads no records undecoded")
	}
	svc, err := cms.NewService(s, nil)
	must(t, err)
	r := rand.New(rand.NewPCG(28, 2))
	const n = 40
	ids := map[cms.Kind][]string{}
	for _, kind := range cms.Kinds() {
		var entries []*cms.Entry
		for i := range n {
			id := fmt.Sprintf("%s-%02d", kind, i)
			rec := RandomRecord(r, kind, id)
			entries = append(entries, &cms.Entry{Account: "a", Record: rec,
				Updated: t0.Add(time.Duration(r.Int64N(1e6)) * time.Microsecond)})
			ids[kind] = append(ids[kind], id)
		}
		must(t, s.PutRecords(ctx, entries))
	}
	for i := range 4 {
		m := fmt.Sprintf("map-%02d", i)
		must(t, s.SetMapResources(ctx, "a", m, cms.RolePrimary, []string{"resource-03", "resource-01", "resource-0" + fmt.Sprint(4+i)}))
		must(t, s.SetMapResources(ctx, "a", m, cms.RoleSecondary, []string{"resource-1" + fmt.Sprint(i), "res\"quoted"}))
	}
	for i := range 10 {
		must(t, s.CountAccess(ctx, "a", cms.KindProposal, ids[cms.KindProposal][i], t0.Add(time.Duration(i)*time.Hour)))
	}

	var codecs []*cms.Codec
	for _, l := range [][]string{{"en", "en"}, {"en", "en", "it", "de"}, {"it", "en", "it", "fr"}} {
		langs, err := cms.NewLanguages(l[0], l[1:]...)
		must(t, err)
		c, err := cms.NewCodec(langs)
		must(t, err)
		codecs = append(codecs, c)
	}
	proj, err := codecs[1].NewProjection(cms.KindResource, nil, []string{"htmlContent", "title_it"}, true)
	must(t, err)
	answered, decodedDocs := 0, 0
	defer func() {
		if decodedDocs == 0 || decodedDocs*4 > answered {
			t.Errorf("%d of %d answers decoded their documents; want some, and most from the stored bytes", decodedDocs, answered)
		}
	}()
	compare := func(t *testing.T, what string, decoded, stored []*cms.Entry) {
		t.Helper()
		if len(decoded) != len(stored) {
			t.Fatalf("%s: %d records decoded, %d undecoded", what, len(decoded), len(stored))
		}
		for i := range decoded {
			d, st := decoded[i], stored[i]
			if st.Record != nil || st.Stored == nil {
				t.Fatalf("%s: record %d came decoded", what, i)
			}
			for _, c := range codecs {
				if a, b := cms.ETag(d, c.Languages()), cms.ETag(st, c.Languages()); a != b {
					t.Errorf("%s %s: ETag %s decoded, %s undecoded", what, d.Record.RecordID(), a, b)
				}
				want, err := svc.AppendEntry(nil, c, d, nil)
				must(t, err)
				got, err := svc.AppendEntry(nil, c, st, nil)
				must(t, err)
				if !bytes.Equal(got, want) {
					t.Fatalf("%s %s in %s:\nundecoded %s\n  decoded %s", what, d.Record.RecordID(), c.Languages(), got, want)
				}
				if st.Record != nil {
					if !strings.Contains(st.Stored.Document, `\u00`) {
						t.Fatalf("%s %s: AppendEntry decoded a document as the storage codec writes it: %s", what, d.Record.RecordID(), st.Stored.Document)
					}
					decodedDocs++
					st.Record = nil
				}
				answered++
			}
			if d.Record.Kind() == cms.KindResource {
				st := *st // the projection decodes it
				want, err := svc.AppendEntry(nil, codecs[1], d, proj)
				must(t, err)
				got, err := svc.AppendEntry(nil, codecs[1], &st, proj)
				must(t, err)
				if !bytes.Equal(got, want) {
					t.Fatalf("%s %s projected:\nundecoded %s\n  decoded %s", what, d.Record.RecordID(), got, want)
				}
			}
		}
	}
	collect := func(t *testing.T, seq func(func(*cms.Entry, error) bool)) []*cms.Entry {
		t.Helper()
		var out []*cms.Entry
		for e, err := range seq {
			must(t, err)
			out = append(out, e)
		}
		return out
	}
	for _, kind := range cms.Kinds() {
		t.Run(string(kind), func(t *testing.T) {
			asked := append([]string{"missing"}, ids[kind]...)
			r.Shuffle(len(asked), func(i, j int) { asked[i], asked[j] = asked[j], asked[i] })
			compare(t, "by ids", collect(t, s.StreamRecords(ctx, "a", kind, asked)), collect(t, streamer.StreamStored(ctx, "a", kind, asked)))
			terms, err := cms.SearchTerms("rec")
			must(t, err)
			for _, p := range []cms.ListParams{
				{Published: cms.PublishedAny},
				{},
				{Published: cms.UnpublishedOnly, After: ids[kind][5], Limit: 7},
				{Published: cms.PublishedAny, MapID: "map-01"},
				{Published: cms.PublishedAny, BBox: &cms.BBox{MinLon: -180, MinLat: -90, MaxLon: 180, MaxLat: 90}},
				{Published: cms.PublishedAny, UpdatedSince: t0.Add(500 * time.Millisecond)},
				{Published: cms.PublishedAny, Terms: terms},
			} {
				p.Account, p.Kind = "a", kind
				decoded := collect(t, s.ListRecords(ctx, p))
				p.Stored = true
				compare(t, fmt.Sprintf("list %+v", p), decoded, collect(t, s.ListRecords(ctx, p)))
			}
		})
	}
}

// RandomRecord is a record of kind with id whose every other field is
// left unset, set to null, or set at random, and so are its nested
// items': texts with characters JSON escapes, control characters,
// non-ASCII and U+2028; numbers of every magnitude and sign; language
// values in en, it, de and fr at random. Its urlAlias values are its own
// (/lang/id), so that records of one kind never share one.
func RandomRecord(r *rand.Rand, kind cms.Kind, id string) cms.Record {
	rec := cms.NewRecord(kind)
	v := reflect.ValueOf(rec).Elem()
	randomFields(r, v)
	v.FieldByName("ID").SetString(id)
	aliases := cms.Langs[string]{}
	for _, code := range []string{"en", "it", "de", "fr"} {
		if r.IntN(2) == 0 {
			aliases[code] = "/" + code + "/" + id
		}
	}
	v.FieldByName("URLAlias").Set(reflect.ValueOf(aliases))
	return rec
}

var randomPieces = []string{"a", "rec", "Lake Como", " ", "\"", "\\", "/", "\n", "\t", "\r", "\b", "\f", "é", "😀",
	"\u2028", "<p>&amp;</p>", "\x7f", "https://example.com/x.png", "\x01"}

func randomText(r *rand.Rand) string {
	var sb strings.Builder
	for range r.IntN(12) {
		p := randomPieces[r.IntN(len(randomPieces))]
		if p == "\x01" && r.IntN(20) != 0 {
			continue // rare: such a document is decoded (a \u0001 escape)
		}
		sb.WriteString(p)
	}
	return sb.String()
}

func randomTexts(r *rand.Rand) []string {
	list := []string{}
	for range r.IntN(4) {
		list = append(list, randomText(r))
	}
	return list
}

func randomNumber(r *rand.Rand) float64 {
	switch r.IntN(5) {
	case 0:
		return 0
	case 1:
		return float64(r.IntN(200) - 100)
	case 2:
		return (r.Float64() - 0.5) * 180
	case 3:
		return math.Ldexp(r.Float64(), r.IntN(160)-80)
	}
	return -r.Float64() * 1e-7
}

func randomInt(r *rand.Rand) int64 { return r.Int64N(1<<53) - 1<<52 }

func randomFields(r *rand.Rand, v reflect.Value) {
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
			*p = randomInt(r)
		case *cms.Opt[string]:
			*p = cms.Some(randomText(r))
		case *cms.Opt[bool]:
			*p = cms.Some(r.IntN(2) == 0)
		case *cms.Opt[float64]:
			*p = cms.Some(randomNumber(r))
		case *cms.Opt[[]string]:
			*p = cms.Some(randomTexts(r))
		case *cms.Null[string]:
			*p = randomNull(null, randomText(r))
		case *cms.Null[bool]:
			*p = randomNull(null, r.IntN(2) == 0)
		case *cms.Null[float64]:
			*p = randomNull(null, randomNumber(r))
		case *cms.Null[int64]:
			*p = randomNull(null, randomInt(r))
		case *cms.Null[[]string]:
			*p = randomNull(null, randomTexts(r))
		case *cms.Langs[string]:
			*p = cms.Langs[string]{}
			for _, code := range codes {
				if r.IntN(2) == 0 {
					(*p)[code] = randomText(r)
				}
			}
		case *cms.Langs[cms.Null[string]]:
			*p = cms.Langs[cms.Null[string]]{}
			for _, code := range codes {
				if k := r.IntN(3); k < 2 {
					(*p)[code] = randomNull(k == 1, randomText(r))
				}
			}
		default:
			// A list of nested items: Opt[[]Item].
			f := v.Field(i)
			list := reflect.MakeSlice(f.Field(0).Type(), r.IntN(3), 3)
			for j := range list.Len() {
				randomFields(r, list.Index(j))
			}
			f.Field(0).Set(list)
			f.Field(1).SetBool(true)
		}
	}
}

func randomNull[T any](null bool, v T) cms.Null[T] {
	if null {
		return cms.Nil[T]()
	}
	return cms.NullOf(v)
}
