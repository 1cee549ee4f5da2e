package cms

import (
	"fmt"
	"reflect"
	"strings"
	"testing"
)

// testLangs are the three languages of the fully populated fixtures.
func testLangs(tb testing.TB) Languages {
	tb.Helper()
	l, err := NewLanguages("en", "en", "it", "de")
	if err != nil {
		tb.Fatal(err)
	}
	return l
}

// fullRecord returns a record of kind with every readable field set to a
// valid value other than its default, in every language of langs, with two
// fully populated nested items per list. It is built from the field specs,
// so a field added later is covered without touching this file.
func fullRecord(tb testing.TB, kind Kind, langs Languages) Record {
	tb.Helper()
	oc := mustCodec(tb, langs).kinds[kind]
	rec := NewRecord(kind)
	fillObject(tb, oc.spec, reflect.ValueOf(rec).Elem(), langs, string(kind))
	if r, ok := rec.(*Resource); ok {
		r.ResourceType = Some(ResourceTypeTrack) // so the TRACK-only fields may hold values
	}
	return rec
}

func mustCodec(tb testing.TB, langs Languages) *Codec {
	tb.Helper()
	c, err := NewCodec(langs)
	if err != nil {
		tb.Fatal(err)
	}
	return c
}

func fillObject(tb testing.TB, spec *typeSpec, v reflect.Value, langs Languages, seed string) {
	for _, f := range spec.fields {
		if f.writeOnly {
			continue
		}
		fv := v.Field(f.index)
		switch p := fv.Addr().Interface().(type) {
		case *string:
			*p = sampleText(f, seed, "")
		case *int64:
			*p = 7
		case *Opt[string]:
			*p = Some(sampleText(f, seed, ""))
		case *Null[string]:
			*p = NullOf(sampleText(f, seed, ""))
		case *Opt[bool]:
			*p = Some(true)
		case *Null[bool]:
			*p = NullOf(true)
		case *Opt[float64]:
			*p = Some(sampleNumber(f))
		case *Null[float64]:
			*p = NullOf(sampleNumber(f))
		case *Null[int64]:
			*p = NullOf(int64(sampleNumber(f)))
		case *Opt[[]string]:
			*p = Some(sampleTexts(f, seed))
		case *Null[[]string]:
			*p = NullOf(sampleTexts(f, seed))
		case *Langs[string]:
			*p = Langs[string]{}
			for _, lang := range langs.All {
				(*p)[lang] = sampleText(f, seed, lang)
			}
		case *Langs[Null[string]]:
			*p = Langs[Null[string]]{}
			for _, lang := range langs.All {
				(*p)[lang] = NullOf(sampleText(f, seed, lang))
			}
		default:
			if f.item == nil {
				tb.Fatalf("fullRecord: no sample for %s", f.name)
			}
			list := reflect.MakeSlice(fv.Field(0).Type(), 2, 2)
			for i := range 2 {
				fillObject(tb, f.item, list.Index(i), langs, fmt.Sprintf("%s-%s-%d", seed, f.name, i))
			}
			fv.Field(0).Set(list)
			fv.Field(1).SetBool(true)
		}
	}
}

// sampleText is a valid string for f, different per field, seed and
// language, with non-ASCII characters and HTML where HTML is allowed.
func sampleText(f *fieldSpec, seed, lang string) string {
	name := strings.ToLower(f.name)
	if f.rule != nil {
		switch f.rule.name {
		case "id":
			return "full-" + seed
		case "ref":
			return "ref-" + name + lang
		case "uri":
			return "https://example.org/" + name + "/" + lang + "?q=1#top"
		case "image":
			return "https://example.org/img/" + seed + "-" + name + ".webp"
		case "layer":
			return "https://example.org/layer/" + seed + ".kmz"
		case "trackfile":
			return "https://example.org/track/" + seed + ".gpx"
		case "email":
			return "info@example.org"
		case "alias":
			return "/" + lang + "/" + strings.ReplaceAll(seed, " ", "-")
		case "color":
			return "#A0B1C2"
		case "date":
			return "2027-03-01"
		case "timestamp":
			return "2026-11-22 12:00:00"
		}
	}
	text := fmt.Sprintf("%s %s %s: caffè «naïve» ✓", seed, f.name, lang)
	if f.html {
		text = "<p>" + text + "</p>"
	}
	if f.maxLen >= 0 && len([]rune(text)) > f.maxLen {
		text = string([]rune(text)[:f.maxLen])
	}
	for len([]rune(text)) < f.minLen {
		text += "x"
	}
	return text
}

func sampleTexts(f *fieldSpec, seed string) []string {
	if f.rule != nil && f.rule.name == "daylabel" {
		return []string{"D1", "D2"}
	}
	return []string{sampleText(f, seed+"-1", "1"), sampleText(f, seed+"-2", "2")}
}

func sampleNumber(f *fieldSpec) float64 {
	switch {
	case len(f.enum) > 0:
		return f.enum[len(f.enum)-1]
	case f.typ == typeInteger && f.hasMin:
		return f.minimum + 3
	case f.hasMin && f.hasMax:
		return f.minimum + (f.maximum-f.minimum)/4 + 0.125
	}
	return 42.5
}

// TestFullRecordsSetEveryField guards the fixtures: every readable field,
// every language and every nested item field holds a value that is not the
// field's default.
func TestFullRecordsSetEveryField(t *testing.T) {
	t.Parallel()
	langs := testLangs(t)
	c := mustCodec(t, langs)
	for _, kind := range Kinds() {
		rec := fullRecord(t, kind, langs)
		out := string(c.Marshal(rec))
		for _, b := range c.kinds[kind].out {
			if strings.Contains(out, string(b.quoted)+"null") || strings.Contains(out, string(b.quoted)+`""`) ||
				strings.Contains(out, string(b.quoted)+"false") || strings.Contains(out, string(b.quoted)+"[]") {
				t.Errorf("%s: %s holds a default value in the full fixture", kind, b.wire)
			}
		}
	}
}

func TestRoundTrip(t *testing.T) {
	t.Parallel()
	langs := testLangs(t)
	c := mustCodec(t, langs)
	docs := NewDocumentCodec()
	for _, kind := range Kinds() {
		t.Run(string(kind), func(t *testing.T) {
			t.Parallel()
			want := fullRecord(t, kind, langs)
			if err := c.Validate(want); err != nil {
				t.Fatalf("full fixture invalid: %v", err)
			}
			first := c.Marshal(want)
			got := NewRecord(kind)
			if err := c.Decode(first, got); err != nil {
				t.Fatalf("decode own output: %v", err)
			}
			if !reflect.DeepEqual(got, want) {
				t.Fatalf("decode(encode(x)) differs from x\n got: %+v\nwant: %+v", got, want)
			}
			if second := c.Marshal(got); string(second) != string(first) {
				t.Fatalf("second encoding differs:\n%s\n%s", first, second)
			}
			if kind == KindResource {
				t.Logf("full Resource in three languages: %d bytes", len(first))
			}

			// The storage form keeps everything but read-only, write-only and
			// assignment fields, whatever the languages.
			stored := NewRecord(kind)
			if err := docs.Decode(docs.Marshal(want), stored); err != nil {
				t.Fatalf("document round trip: %v", err)
			}
			if string(c.Marshal(stored)) != string(c.Marshal(withoutStoredElsewhere(want))) {
				t.Fatalf("document round trip lost data:\n%s\n%s", c.Marshal(stored), c.Marshal(withoutStoredElsewhere(want)))
			}
		})
	}
}

// withoutStoredElsewhere clears what a document does not hold.
func withoutStoredElsewhere(rec Record) Record {
	switch r := rec.(type) {
	case *Resource:
		c := *r
		c.TimeLastUpdate, c.MapIDs, c.MapSecondaryIDs = "", Null[[]string]{}, Null[[]string]{}
		return &c
	case *Map:
		c := *r
		c.TimeLastUpdate, c.ResourceIDs, c.SecondaryResourceIDs = "", Null[[]string]{}, Null[[]string]{}
		return &c
	case *Landing:
		c := *r
		c.TimeLastUpdate = ""
		return &c
	case *Proposal:
		c := *r
		c.TimeLastUpdate, c.StatsAccess, c.StatsLastAccess = "", 0, Null[string]{}
		return &c
	}
	return rec
}

func TestRoundTripKeepsNulls(t *testing.T) {
	t.Parallel()
	c := mustCodec(t, testLangs(t))
	want := &Resource{ID: "nulls", URLAlias: Langs[string]{"en": "/n", "it": "/n", "de": "/n"}, Image: Nil[string](), Multimedia: Nil[[]string](), LocationZoom: Nil[int64](),
		ShortDescription: Langs[Null[string]]{"en": Nil[string](), "it": NullOf("breve")}, CTAOnMap: Nil[bool]()}
	got := &Resource{}
	if err := c.Decode(c.Marshal(want), got); err != nil {
		t.Fatal(err)
	}
	for name, f := range map[string]struct{ set, valid bool }{
		"image": {got.Image.Set, got.Image.Valid}, "multimedia": {got.Multimedia.Set, got.Multimedia.Valid},
		"locationZoom": {got.LocationZoom.Set, got.LocationZoom.Valid}, "ctaOnMap": {got.CTAOnMap.Set, got.CTAOnMap.Valid},
		"shortDescription": {got.ShortDescription["en"].Set, got.ShortDescription["en"].Valid},
	} {
		if !f.set || f.valid {
			t.Errorf("%s: got set=%v valid=%v, want an explicit null", name, f.set, f.valid)
		}
	}
	if got.ShortDescription["it"] != NullOf("breve") {
		t.Errorf("shortDescription_it = %+v", got.ShortDescription["it"])
	}
}
