package cms

import (
	"fmt"
	"reflect"
	"strings"
)

// SampleRecord returns a record of kind with every readable field set to a
// valid value other than its default, in every language of langs, with two
// fully populated items in each nested list: for documentation, and for
// tests (the storage conformance suite stores it). It is built from the
// struct tags, so a field added later is covered too. Write-only fields are
// left unset.
func SampleRecord(kind Kind, langs Languages) Record {
	spec, err := specOf(reflect.TypeOf(NewRecord(kind)).Elem())
	if err != nil {
		panic(err) // the tags are fixed at compile time; NewCodec checks them
	}
	rec := NewRecord(kind)
	fillObject(spec, reflect.ValueOf(rec).Elem(), langs, string(kind))
	if r, ok := rec.(*Resource); ok {
		r.ResourceType = Some(ResourceTypeTrack) // so the TRACK-only fields may hold values
	}
	return rec
}

func fillObject(spec *typeSpec, v reflect.Value, langs Languages, seed string) {
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
				panic("cms: Example has no sample for " + f.name)
			}
			list := reflect.MakeSlice(fv.Field(0).Type(), 2, 2)
			for i := range 2 {
				fillObject(f.item, list.Index(i), langs, fmt.Sprintf("%s-%s-%d", seed, f.name, i))
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
