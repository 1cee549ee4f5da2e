package cms

import (
	"bytes"
	"errors"
	"flag"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"reflect"
	"slices"
	"strconv"
	"strings"
	"testing"

	"github.com/go-json-experiment/json/jsontext"
)

var writeFuzzSeeds = flag.Bool("writefuzzseeds", false, "write the FuzzDecode seeds to testdata/fuzz/FuzzDecode")

// trackOnlyText is the problem of the one rule Decode leaves to the merged
// record.
const trackOnlyText = "allowed only when resourceType is TRACK"

type fuzzSeed struct {
	name string
	data []byte
}

// fuzzSeeds are the inputs FuzzDecode starts from: the encoded full
// fixtures, minimal bodies, and the syntax Decode must reject or accept
// exactly (docs/records.md, Decoding).
func fuzzSeeds(tb testing.TB) []fuzzSeed {
	tb.Helper()
	c := mustCodec(tb, testLangs(tb))
	var seeds []fuzzSeed
	for _, kind := range Kinds() {
		seeds = append(seeds, fuzzSeed{"full-" + string(kind), c.Marshal(fullRecord(tb, kind))})
	}
	// nested gives n levels of arrays (or objects) in an unknown field: the
	// record object is depth 1, so the deepest value is at depth n+1.
	nested := func(n int, open, empty, close string) string {
		return `{"id":"abc","unknown":` + strings.Repeat(open, n-1) + empty + strings.Repeat(close, n-1) + `}`
	}
	for _, s := range []struct{ name, body string }{
		{"empty", ``},
		{"null", `null`},
		{"array", `[]`},
		{"array-of-record", `[{"id":"abc"}]`},
		{"string", `"abc"`},
		{"empty-object", `{}`},
		{"minimal", `{"id":"abc"}`},
		{"minimal-languages", `{"id":"abc","title":"T","title_it":"T it","title_de":"T de","urlAlias":"/a","urlAlias_it":"/a-it","urlAlias_de":"/a-de"}`},
		{"items-map", `{"id":"abc","tourMultiday":[{},{"dayLabels":["D1","D12"],"title_it":null,"image":"https://x.org/a.png"}]}`},
		{"items-landing", `{"id":"abc","landingBlocks":[{}],"landingHotels":[{"title_de":"H","resourceIds":null}]}`},
		{"items-proposal", `{"id":"abc","relatedContents":[{"title":""}],"hotels":[{},{"resourceIds":["r-1"]}]}`},
		{"items-empty", `{"id":"abc","tourMultiday":[],"landingBlocks":[],"relatedContents":[]}`},
		{"nulls", `{"id":"abc","image":null,"shortDescription_it":null,"multimedia":null,"locationZoom":null,"ctaOnMap":null,"trackFile":null}`},
		{"null-not-nullable", `{"id":"abc","title":null,"published":null,"tourMultiday":null}`},
		{"whitespace", " \t\r\n{ \"id\" : \"abc\" }\n "},
		{"duplicate-key", `{"id":"abc","id":"abd"}`},
		{"duplicate-key-language", `{"id":"abc","title_it":"a","title_it":"b"}`},
		{"duplicate-key-item", `{"id":"abc","tourMultiday":[{"image":null,"image":null}]}`},
		{"duplicate-key-unknown", `{"id":"abc","x":{"a":1,"a":2}}`},
		{"trailing-data", `{"id":"abc"} x`},
		{"trailing-object", `{"id":"abc"}{}`},
		{"trailing-comma", `{"id":"abc",}`},
		{"invalid-utf8", "{\"id\":\"ab\xff\"}"},
		{"invalid-utf8-key", "{\"id\":\"abc\",\"\xc3\x28\":1}"},
		{"invalid-utf8-outside", "{\"id\":\"abc\"}\xff"},
		{"bom", "\xef\xbb\xbf{\"id\":\"abc\"}"},
		{"lone-surrogate", `{"id":"abc","title":"\ud800"}`},
		{"lone-low-surrogate", `{"id":"abc","title":"\udc00x"}`},
		{"surrogate-pair", `{"id":"abc","title":"\ud83d\ude00"}`},
		{"escapes", `{"id":"abc","title":"a\"b\\c\/\u00e9\n\t\u2028"}`},
		{"nul-character", `{"id":"abc","title":"a\u0000b"}`},
		{"depth-32", nested(31, "[", "[]", "]")},
		{"depth-33", nested(32, "[", "[]", "]")},
		{"depth-32-objects", nested(31, `{"a":`, "{}", "}")},
		{"depth-33-objects", nested(32, `{"a":`, "{}", "}")},
		{"depth-33-in-item", `{"id":"abc","tourMultiday":[{"unknown":` + strings.Repeat("[", 30) + strings.Repeat("]", 30) + `}]}`},
		{"huge-number", `{"id":"abc","locationLat":1e400}`},
		{"huge-integer", `{"id":"abc","locationZoom":1e400,"statsAccess":9223372036854775807,"trackDurationMinutes":9007199254740993}`},
		{"minus-zero", `{"id":"abc","locationLat":-0,"locationLon":-0.0,"trackSlopeUp":-0}`},
		{"minus-zero-integer", `{"id":"abc","statsAccess":-0,"locationZoom":-0}`},
		{"integer-as-decimal", `{"id":"abc","locationZoom":2.0,"trackDifficulty":1.0}`},
		{"integer-as-exponent", `{"id":"abc","mapMaxAutozoom":1.0e1,"statsAccess":1E2}`},
		{"integer-fraction", `{"id":"abc","locationZoom":2.5}`},
		{"tiny-number", `{"id":"abc","locationLat":1e-400,"routePlannerWidth":1.0000000000000002}`},
		{"wrong-types", `{"id":5,"title":true,"multimedia":"x","tourMultiday":{},"mapIds":[1,null],"landingBlocks":[1]}`},
		{"unknown-language", `{"id":"abc","title_fr":"x","title_":"y","title_en":"z"}`},
		{"track-only", `{"id":"abc","resourceType":"POI","trackDifficulty":3,"trackStart_it":"Como"}`},
		{"both-roles", `{"id":"abc","mapIds":["m-1"],"mapSecondaryIds":["m-1"],"mapSecondaryIdsAdd":["m-1"]}`},
		{"write-only", `{"id":"abc","mapIdsAdd":["m-1"],"resourceIdsAdd":null,"deleteElementIrreversibly":true}`},
		{"read-only", `{"id":"abc","timeLastUpdate":"","statsAccess":0,"statsLastAccess":null}`},
	} {
		seeds = append(seeds, fuzzSeed{s.name, []byte(s.body)})
	}
	return seeds
}

// FuzzDecode: Decode never panics; it rejects only with a *Error of code
// CodeMalformed or CodeInvalid; it keeps no reference to its input and
// gives the same answer twice; what it accepts passes Validate (but for
// the TRACK-only rule, which is judged on the merged record); and nothing
// accepted is lost: merged onto a full record, as an update does, it
// encodes, decodes back to the same record and encodes to the same bytes.
func FuzzDecode(f *testing.F) {
	for _, s := range fuzzSeeds(f) {
		f.Add(s.data)
	}
	for _, fx := range agreementFixtures {
		f.Add([]byte(fx.body))
	}
	c := mustCodec(f, testLangs(f))
	full := map[Kind]Record{}
	for _, kind := range Kinds() {
		full[kind] = fullRecord(f, kind)
	}
	f.Fuzz(func(t *testing.T, data []byte) {
		for _, kind := range Kinds() {
			checkDecode(t, c, full[kind], data)
		}
	})
}

func checkDecode(t *testing.T, c *Codec, full Record, data []byte) {
	t.Helper()
	kind := full.Kind()
	scratch := slices.Clone(data)
	got := NewRecord(kind)
	err := c.Decode(scratch, got)
	for i := range scratch {
		scratch[i] = '#' // Decode must have copied what it keeps
	}
	// The same with a new jsontext.Decoder, free of the pooled one's
	// history.
	again := NewRecord(kind)
	errAgain := decodeFresh(c, data, again)
	if !reflect.DeepEqual(got, again) || verdict(err) != verdict(errAgain) {
		t.Fatalf("%s: decoding twice differs (input retained? state kept in the pooled decoder?):\n%+v: %v\n%+v: %v",
			kind, got, err, again, errAgain)
	}
	if err != nil {
		var e *Error
		if !errors.As(err, &e) || (e.Code != CodeMalformed && e.Code != CodeInvalid) {
			t.Fatalf("%s: rejection %v (%T) is not a *Error of code malformed or invalid", kind, err, err)
		}
		if e.Code == CodeInvalid && len(e.Problems) == 0 {
			t.Fatalf("%s: invalid without problems: %v", kind, err)
		}
		for _, p := range e.Problems {
			// Field may be empty: the name of an unknown member "".
			if p.Kind != kind || p.Text == "" {
				t.Fatalf("%s: incomplete problem %+v", kind, p)
			}
		}
		return
	}

	// Validate agrees with Decode, except for the rule Decode leaves to the
	// merged record.
	if problems := problemsOf(t, c.Validate(got), false); len(problems) > 0 {
		t.Fatalf("%s: Decode accepts what Validate rejects: %q", kind, problems)
	}

	// Merge onto the full record, as an update does, and round-trip it
	// through the read form: decoded and written again, nothing changes.
	merged := cloneRecord(t, full)
	overlay(reflect.ValueOf(merged).Elem(), reflect.ValueOf(got).Elem())
	readForm(reflect.ValueOf(merged).Elem(), c.Languages().All, false)
	first := c.Marshal(merged)
	back := NewRecord(kind)
	backErr := c.Decode(first, back)
	if ErrorCode(backErr) == CodeMalformed {
		t.Fatalf("%s: own output malformed: %v\n%s", kind, backErr, first)
	}
	// The merged record can break a rule between fields (an id in both
	// roles of an assignment, half from the body, half from the full
	// record); Decode must then find exactly what Validate finds.
	wantProblems := problemsOf(t, c.Validate(merged), false)
	if gotProblems := problemsOf(t, backErr, true); !slices.Equal(gotProblems, wantProblems) {
		t.Fatalf("%s: decoding the encoded merged record finds %q, Validate finds %q\n%s", kind, gotProblems, wantProblems, first)
	}
	if backErr != nil {
		return
	}
	if !reflect.DeepEqual(back, merged) {
		t.Fatalf("%s: round trip changed the record:\n got: %+v\nwant: %+v\n%s", kind, back, merged, first)
	}
	if second := c.Marshal(back); string(second) != string(first) {
		t.Fatalf("%s: output changed on a second round:\n%s\n%s", kind, first, second)
	}
}

// decodeFresh is Decode with a decoder of its own.
func decodeFresh(c *Codec, data []byte, rec Record) error {
	dec := jsontext.NewDecoder(bytes.NewReader(data))
	err := c.DecodeFrom(dec, rec)
	if ErrorCode(err) == CodeMalformed {
		return err
	}
	if _, tailErr := dec.ReadToken(); tailErr != io.EOF {
		return &Error{Code: CodeMalformed, Message: "Wrong request", Err: tailErr}
	}
	return err
}

// verdict is what a client sees of a Decode error: the code, the message
// and the problems. The cause (Err) is left out: it is only logged, and
// jsontext's JSON Pointer in it depends on the decoder's history.
func verdict(err error) string {
	var e *Error
	if !errors.As(err, &e) {
		return fmt.Sprint(err)
	}
	return fmt.Sprintf("%s %q %q", e.Code, e.Message, e.Problems)
}

// problemsOf returns the sorted problems of err (nil or a CodeInvalid
// *Error), leaving out the TRACK-only ones unless withTrack.
func problemsOf(tb testing.TB, err error, withTrack bool) []string {
	tb.Helper()
	if err == nil {
		return nil
	}
	var e *Error
	if !errors.As(err, &e) || e.Code != CodeInvalid {
		tb.Fatalf("got %v, want nil or a CodeInvalid *Error", err)
	}
	var list []string
	for _, p := range e.Problems {
		if withTrack || p.Text != trackOnlyText {
			list = append(list, p.String())
		}
	}
	slices.Sort(list)
	return list
}

// cloneRecord deep-copies the readable fields of rec (all of a full
// fixture's fields).
func cloneRecord(tb testing.TB, rec Record) Record {
	tb.Helper()
	clone := NewRecord(rec.Kind())
	overlay(reflect.ValueOf(clone).Elem(), reflect.ValueOf(rec).Elem())
	return clone
}

// overlay merges the record or item src onto dst as an update merges a
// body onto the stored record: every field src holds replaces dst's (a
// multi-language field language by language, a nested list whole). Write-
// only fields, never stored, are left out. Slices and maps are copied.
func overlay(dst, src reflect.Value) {
	t := src.Type()
	for i := range t.NumField() {
		if slices.Contains(strings.Split(t.Field(i).Tag.Get("cms"), ","), "writeonly") {
			continue
		}
		sv, dv := src.Field(i), dst.Field(i)
		switch {
		case sv.Kind() == reflect.Map: // Langs
			if sv.Len() == 0 {
				continue
			}
			if dv.IsNil() {
				dv.Set(reflect.MakeMap(dv.Type()))
			} else {
				dv.Set(reflect.ValueOf(cloneLangs(dv.Interface())))
			}
			for _, key := range sv.MapKeys() {
				dv.SetMapIndex(key, sv.MapIndex(key))
			}
		case sv.Kind() == reflect.Struct: // Opt, Null
			if !sv.FieldByName("Set").Bool() {
				continue
			}
			dv.Set(sv)
			value := dv.Field(0)
			if value.Kind() != reflect.Slice || value.IsNil() {
				continue
			}
			list := reflect.MakeSlice(value.Type(), value.Len(), value.Len())
			for j := range value.Len() {
				if value.Type().Elem().Kind() == reflect.Struct {
					overlay(list.Index(j), value.Index(j))
				} else {
					list.Index(j).Set(value.Index(j))
				}
			}
			value.Set(list)
		default: // plain string or int64: its zero value is absent
			if !sv.IsZero() {
				dv.Set(sv)
			}
		}
	}
}

// readForm gives the nested items of struct v the form a read gives
// them: a list is replaced whole, so inside an item an absent field is the
// same as its read default (null, "" or an empty list), and a read writes
// every field of every item.
func readForm(v reflect.Value, langs []string, item bool) {
	t := v.Type()
	for i := range t.NumField() {
		fv := v.Field(i)
		switch {
		case fv.Kind() == reflect.Map: // Langs
			if !item {
				continue
			}
			if fv.IsNil() {
				fv.Set(reflect.MakeMapWithSize(fv.Type(), len(langs)))
			}
			for _, lang := range langs {
				key := reflect.ValueOf(lang)
				if !fv.MapIndex(key).IsValid() {
					zero := reflect.New(fv.Type().Elem()).Elem()
					if zero.Kind() == reflect.Struct {
						zero.FieldByName("Set").SetBool(true) // an explicit null
					}
					fv.SetMapIndex(key, zero)
				}
			}
		case fv.Kind() == reflect.Struct: // Opt, Null
			set := fv.FieldByName("Set")
			if item && !set.Bool() {
				set.SetBool(true)
				if fv.FieldByName("Valid").IsValid() {
					continue // null
				}
				if value := fv.Field(0); value.Kind() == reflect.Slice {
					value.Set(reflect.MakeSlice(value.Type(), 0, 0)) // []
				}
			}
			if value := fv.Field(0); value.Kind() == reflect.Slice && value.Type().Elem().Kind() == reflect.Struct {
				for j := range value.Len() {
					readForm(value.Index(j), langs, true)
				}
			}
		}
	}
}

func cloneLangs(m any) any {
	switch m := m.(type) {
	case Langs[string]:
		return Langs[string](cloneMap(m))
	case Langs[Null[string]]:
		return Langs[Null[string]](cloneMap(m))
	}
	panic("cloneLangs: " + reflect.TypeOf(m).String())
}

func cloneMap[T any](m map[string]T) map[string]T {
	c := make(map[string]T, len(m))
	for k, v := range m {
		c[k] = v
	}
	return c
}

// TestOverlay checks the merge FuzzDecode relies on.
func TestOverlay(t *testing.T) {
	t.Parallel()
	base := fullMap(t)
	body := &Map{ID: "other-map", Image: Nil[string](), Title: Langs[string]{"it": "Nuovo"},
		TourMultiday: Some([]TourDay{{Title: Langs[Null[string]]{"de": Nil[string]()}}}), ResourceIDsAdd: NullOf([]string{"x-1"})}
	got := cloneRecord(t, base).(*Map)
	overlay(reflect.ValueOf(got).Elem(), reflect.ValueOf(body).Elem())
	want := fullMap(t)
	want.ID, want.Image, want.Title["it"] = "other-map", Nil[string](), "Nuovo"
	want.TourMultiday = Some([]TourDay{{Title: Langs[Null[string]]{"de": Nil[string]()}}})
	if !reflect.DeepEqual(got, want) {
		t.Errorf("overlay:\n got: %+v\nwant: %+v", got, want)
	}
	if !reflect.DeepEqual(base, fullMap(t)) {
		t.Errorf("overlay changed the record it was cloned from")
	}
}

// TestWriteFuzzSeeds writes the seeds as the committed seed corpus of
// FuzzDecode, in the format go test reads:
//
//	go test ./cms -run TestWriteFuzzSeeds -writefuzzseeds
func TestWriteFuzzSeeds(t *testing.T) {
	if !*writeFuzzSeeds {
		t.Skip("run with -writefuzzseeds to rewrite testdata/fuzz/FuzzDecode/seed-*")
	}
	dir := filepath.Join("testdata", "fuzz", "FuzzDecode")
	if err := os.MkdirAll(dir, 0o755); err != nil {
		t.Fatal(err)
	}
	for _, s := range fuzzSeeds(t) {
		content := "go test fuzz v1\n[]byte(" + strconv.Quote(string(s.data)) + ")\n"
		if err := os.WriteFile(filepath.Join(dir, "seed-"+s.name), []byte(content), 0o644); err != nil {
			t.Fatal(err)
		}
	}
}
