package cmstest

import (
	"cmp"
	"errors"
	"fmt"
	"reflect"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/bwcms/cms/cms"
)

// t0 is the suite's clock. Every time the suite stores has whole
// microseconds; stores keep at least that precision.
var t0 = time.Date(2026, 11, 22, 10, 0, 0, 0, time.UTC)

// cet is a zone other than UTC: a store keeps instants, not zones.
var cet = time.FixedZone("CET", 3600)

// langs3 is the language configuration of the fully populated records.
func langs3() cms.Languages {
	l, err := cms.NewLanguages("en", "en", "it", "de")
	if err != nil {
		panic(err)
	}
	return l
}

// fullRecord is cms.SampleRecord of kind (every readable field set, in en,
// it and de, two items in each nested list) with its own id and aliases.
func fullRecord(kind cms.Kind, id string) cms.Record {
	rec := cms.SampleRecord(kind, langs3())
	v := reflect.ValueOf(rec).Elem()
	v.FieldByName("ID").SetString(id)
	aliases := cms.Langs[string]{}
	for _, lang := range langs3().All {
		aliases[lang] = "/" + lang + "/" + string(kind) + "/" + id
	}
	v.FieldByName("URLAlias").Set(reflect.ValueOf(aliases))
	return rec
}

// nullRecord is fullRecord with every nullable field an explicit null,
// in the record and in its nested items.
func nullRecord(kind cms.Kind, id string) cms.Record {
	rec := fullRecord(kind, id)
	nullify(reflect.ValueOf(rec).Elem())
	return rec
}

func nullify(v reflect.Value) {
	langNulls := reflect.TypeFor[cms.Langs[cms.Null[string]]]()
	for i := range v.NumField() {
		f := v.Field(i)
		switch {
		case isNull(f.Type()):
			f.Set(reflect.Zero(f.Type()))
			f.FieldByName("Set").SetBool(true)
		case f.Type() == langNulls:
			for _, k := range f.MapKeys() {
				f.SetMapIndex(k, reflect.ValueOf(cms.Nil[string]()))
			}
		case isOpt(f.Type()) && f.Field(0).Kind() == reflect.Slice && f.Field(0).Type().Elem().Kind() == reflect.Struct:
			for j := range f.Field(0).Len() {
				nullify(f.Field(0).Index(j))
			}
		}
	}
}

// isNull reports whether t is a cms.Null[T]; isOpt whether it is a
// cms.Opt[T].
func isNull(t reflect.Type) bool {
	return t.Kind() == reflect.Struct && strings.HasPrefix(t.Name(), "Null[") && t.PkgPath() == reflect.TypeFor[cms.Kind]().PkgPath()
}

func isOpt(t reflect.Type) bool {
	return t.Kind() == reflect.Struct && strings.HasPrefix(t.Name(), "Opt[") && t.PkgPath() == reflect.TypeFor[cms.Kind]().PkgPath()
}

// storedForm is what a store gives back of rec, but for the assignment
// lists (see takeAssignments): the read-only fields are not in the
// document, and write-only fields are never kept.
func storedForm(rec cms.Record) cms.Record {
	v := reflect.New(reflect.TypeOf(rec).Elem())
	v.Elem().Set(reflect.ValueOf(rec).Elem())
	for _, f := range reflect.VisibleFields(v.Elem().Type()) {
		if hasOption(f, "readonly") || hasOption(f, "writeonly") {
			v.Elem().FieldByIndex(f.Index).SetZero()
		}
	}
	return v.Interface().(cms.Record)
}

// assignmentLists returns pointers to the two assignment lists of a
// Resource (mapIds, mapSecondaryIds) or a Map (resourceIds,
// secondaryResourceIds): the fields tagged assign, primary first; nil for
// the other kinds.
func assignmentLists(rec cms.Record) (primary, secondary *cms.Null[[]string]) {
	v := reflect.ValueOf(rec).Elem()
	var lists []*cms.Null[[]string]
	for _, f := range reflect.VisibleFields(v.Type()) {
		if hasOption(f, "assign") {
			lists = append(lists, v.FieldByIndex(f.Index).Addr().Interface().(*cms.Null[[]string]))
		}
	}
	if len(lists) != 2 {
		return nil, nil
	}
	return lists[0], lists[1]
}

// hasOption reports whether f's cms tag names option.
func hasOption(f reflect.StructField, option string) bool {
	return slices.Contains(strings.Split(f.Tag.Get("cms"), ","), option)
}

// takeAssignments returns the assignment lists of a record read from a
// store and clears them in the record. An empty list reads as null, an
// absent or null one as nil.
func takeAssignments(tb testing.TB, rec cms.Record) (primary, secondary []string) {
	tb.Helper()
	p, s := assignmentLists(rec)
	if p == nil {
		return nil, nil
	}
	take := func(name string, l *cms.Null[[]string]) []string {
		if l.Valid && len(l.Value) == 0 {
			tb.Errorf("%s %s: %s reads as [], want null", rec.Kind(), rec.RecordID(), name)
		}
		v := l.Value
		*l = cms.Null[[]string]{}
		return v
	}
	return take("primary assignment list", p), take("secondary assignment list", s)
}

// wantAssignments checks the assignment lists a read filled in rec: an
// empty list reads as null (or, in a record not read, as absent).
func wantAssignments(tb testing.TB, what string, rec cms.Record, wantPrimary, wantSecondary []string) {
	tb.Helper()
	p, s := assignmentLists(rec)
	if p == nil {
		tb.Fatalf("%s: %T has no assignment lists", what, rec)
	}
	for _, l := range []struct {
		name string
		got  *cms.Null[[]string]
		want []string
	}{{"primary", p, wantPrimary}, {"secondary", s, wantSecondary}} {
		// An empty list reads null.
		empty := len(l.want) == 0 && !l.got.Valid
		if !empty && (!l.got.Valid || !slices.Equal(l.got.Value, l.want)) {
			tb.Errorf("%s: %s %s list %+v, want %v", what, rec.Kind(), l.name, l.got, l.want)
		}
	}
}

// fieldDiff names the fields in which got and want (records or nested
// items of the same type) differ, with both values.
func fieldDiff(got, want any) string {
	gv, wv := reflect.ValueOf(got), reflect.ValueOf(want)
	if gv.Type() != wv.Type() {
		return fmt.Sprintf("got a %T, want a %T", got, want)
	}
	for gv.Kind() == reflect.Pointer {
		gv, wv = gv.Elem(), wv.Elem()
	}
	var b strings.Builder
	for i := range gv.NumField() {
		g, w := gv.Field(i).Interface(), wv.Field(i).Interface()
		if !reflect.DeepEqual(g, w) {
			fmt.Fprintf(&b, "\n  %s:\n     got %#v\n    want %#v", gv.Type().Field(i).Name, g, w)
		}
	}
	return b.String()
}

// resource is a small published Resource with a title and an alias in
// English.
func resource(id string) *cms.Resource {
	return &cms.Resource{ID: id, Published: cms.Some(true), Title: cms.Langs[string]{"en": "Resource " + id},
		URLAlias: cms.Langs[string]{"en": "/resource/" + id}}
}

// mapRecord is a small published Map with the route planner settings
// every Map gets when it is created.
func mapRecord(id string) *cms.Map {
	return &cms.Map{ID: id, Published: cms.Some(true), Title: cms.Langs[string]{"en": "Map " + id},
		URLAlias: cms.Langs[string]{"en": "/map/" + id}, RoutePlannerAuto: cms.Some(false),
		RoutePlannerColor: cms.Some("#3388ff"), RoutePlannerWidth: cms.Some(3.0)}
}

func entry(account string, rec cms.Record, updated time.Time) *cms.Entry {
	return &cms.Entry{Account: account, Record: rec, Updated: updated}
}

// put stores rec in account, updated at t0.
func put(tb testing.TB, s cms.Store, account string, rec cms.Record) {
	tb.Helper()
	if err := s.PutRecord(tb.Context(), entry(account, rec, t0)); err != nil {
		tb.Fatalf("PutRecord(%s, %s %s): %v", account, rec.Kind(), rec.RecordID(), err)
	}
}

// get reads a record that must exist.
func get(tb testing.TB, s cms.Store, account string, kind cms.Kind, id string) *cms.Entry {
	tb.Helper()
	e, err := s.GetRecord(tb.Context(), account, kind, id)
	if err != nil {
		tb.Fatalf("GetRecord(%s, %s, %s): %v", account, kind, id, err)
	}
	return e
}

// wantMissing checks that a record does not exist.
func wantMissing(tb testing.TB, s cms.Store, account string, kind cms.Kind, id string) {
	tb.Helper()
	e, err := s.GetRecord(tb.Context(), account, kind, id)
	if cms.ErrorCode(err) != cms.CodeNotFound {
		tb.Errorf("GetRecord(%s, %s, %s): got %v, %v; want CodeNotFound", account, kind, id, e, err)
	}
}

// title returns the English title of a record.
func title(tb testing.TB, e *cms.Entry) string {
	tb.Helper()
	return reflect.ValueOf(e.Record).Elem().FieldByName("Title").Interface().(cms.Langs[string])["en"]
}

// listIDs streams p to the end and returns the ids, in the order given.
func listIDs(tb testing.TB, s cms.Store, p cms.ListParams) []string {
	tb.Helper()
	ids := []string{}
	for e, err := range s.ListRecords(tb.Context(), p) {
		if err != nil {
			tb.Fatalf("ListRecords(%+v): %v", p, err)
		}
		ids = append(ids, e.Record.RecordID())
	}
	return ids
}

func idsOf(entries []*cms.Entry) []string {
	ids := make([]string, len(entries))
	for i, e := range entries {
		ids[i] = e.Record.RecordID()
	}
	return ids
}

func must(tb testing.TB, err error) {
	tb.Helper()
	if err != nil {
		tb.Fatal(err)
	}
}

// wantCode checks that err is a *cms.Error (or wraps one) of code want.
func wantCode(tb testing.TB, err error, want cms.Code, what string) {
	tb.Helper()
	if err == nil {
		tb.Errorf("%s: got no error, want code %q", what, want)
		return
	}
	if _, ok := errors.AsType[*cms.Error](err); !ok {
		tb.Errorf("%s: got %v (%T), want a *cms.Error of code %q", what, err, err, want)
		return
	}
	if got := cms.ErrorCode(err); got != want {
		tb.Errorf("%s: got %v (code %q), want code %q", what, err, got, want)
	}
}

// sameTime reports whether got is the instant want (both zero counts).
func sameTime(got, want time.Time) bool {
	return got.Equal(want) || got.IsZero() && want.IsZero()
}

// sortedRefs returns refs sorted by every field, to compare as sets.
func sortedRefs(refs []cms.Reference) []cms.Reference {
	return slices.SortedFunc(slices.Values(refs), func(a, b cms.Reference) int {
		return cmp.Or(cmp.Compare(a.FromKind, b.FromKind), cmp.Compare(a.FromID, b.FromID),
			cmp.Compare(a.Field, b.Field), cmp.Compare(a.ToKind, b.ToKind), cmp.Compare(a.ToID, b.ToID))
	})
}
