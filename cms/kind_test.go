package cms

import (
	"reflect"
	"testing"
)

// TestCommon checks, for every kind, that Common points at the record's
// own fields of the same names: set through it, read back from the struct.
func TestCommon(t *testing.T) {
	t.Parallel()
	for _, kind := range Kinds() {
		rec := NewRecord(kind)
		c := rec.Common()
		*c.ID, *c.Published, *c.TimeLastUpdate = "x-1", Some(true), "2026-11-27 10:00:00"
		*c.Title, *c.URLAlias, *c.DeleteIrreversibly = Langs[string]{"en": "T"}, Langs[string]{"en": "/t"}, Some(true)
		v := reflect.ValueOf(rec).Elem()
		for name, want := range map[string]any{
			"ID": "x-1", "Published": Some(true), "TimeLastUpdate": "2026-11-27 10:00:00",
			"Title": Langs[string]{"en": "T"}, "URLAlias": Langs[string]{"en": "/t"}, "DeleteIrreversibly": Some(true),
		} {
			if got := v.FieldByName(name).Interface(); !reflect.DeepEqual(got, want) {
				t.Errorf("%s: %s = %v, want %v", kind, name, got, want)
			}
		}
		if rec.RecordID() != "x-1" || rec.Kind() != kind {
			t.Errorf("%s: RecordID %q, Kind %q", kind, rec.RecordID(), rec.Kind())
		}
	}
}

// TestKindParts checks which kinds have the parts only some kinds have,
// and that an assignment side names the record's own lists.
func TestKindParts(t *testing.T) {
	t.Parallel()
	for _, kind := range Kinds() {
		rec := NewRecord(kind)
		_, located := rec.(locatedRecord)
		_, assigning := rec.(assigningRecord)
		_, counted := rec.(countedRecord)
		twoSided := kind == KindResource || kind == KindMap
		if located != twoSided || assigning != twoSided || counted != (kind == KindProposal) {
			t.Errorf("%s: located %v, assigning %v, counted %v", kind, located, assigning, counted)
		}
	}
	r := &Resource{ID: "r", MapIDs: NullOf([]string{"m1"}), MapSecondaryIDs: NullOf([]string{"m2"})}
	if got := assignedLists(r); got[RolePrimary][0] != "m1" || got[RoleSecondary][0] != "m2" || assignedKind(KindResource) != KindMap {
		t.Errorf("Resource: lists %v, other side %q", got, assignedKind(KindResource))
	}
	m := newWithDefaults(KindMap, "m").(*Map)
	SetAssignmentLists(m, []string{"r1"}, nil)
	if m.ResourceIDs.Value[0] != "r1" || m.SecondaryResourceIDs.Valid || !m.SecondaryResourceIDs.Set || assignedKind(KindMap) != KindResource {
		t.Errorf("Map: primary %v, secondary %+v", m.ResourceIDs, m.SecondaryResourceIDs)
	}
	if m.Published != Some(false) || m.RoutePlannerColor != Some("#3388ff") || assignedKind(KindLanding) != "" {
		t.Errorf("Map defaults: published %v, colour %v", m.Published, m.RoutePlannerColor)
	}
}
