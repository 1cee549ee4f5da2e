package cms

import (
	"reflect"
	"slices"
)

// FieldInfo is what the struct tags say about a field that its JSON
// Schema property cannot, for forms that edit records (the admin): which
// fields hold HTML, which name records and of what kind, which are one
// property per language, and the fields of nested items. Types,
// nullability, bounds and descriptions are the schema's (JSONSchema).
type FieldInfo struct {
	// Name is the wire name; for a multi-language field, that of the
	// default language (the others are Languages.WireName(Name, code)).
	Name string
	// MultiLang marks a field with one property per account language.
	MultiLang bool
	// HTML marks sanitized HTML (DECISIONS §5).
	HTML bool
	// Ref is what the field's ids name: a kind ("resource", "map") or
	// RefMapOrLanding; "" for a field that names no record. A string
	// field holds one id ("" or null: none), a list of strings several,
	// in order.
	Ref string
	// ReadOnly fields are answered and ignored on write; WriteOnly ones
	// (the ...Add lists, deleteElementIrreversibly) are never answered.
	ReadOnly, WriteOnly bool
	// TrackOnly fields hold a value only on a Resource whose resourceType
	// is TRACK.
	TrackOnly bool
	// Enum lists the only values of a number field, when its tags list
	// them (the schema writes consecutive ones as minimum and maximum).
	Enum []float64
	// Items are the fields of each item of a nested item list
	// (landingBlocks, tourMultiday, ...), in order; nil for other fields.
	Items []FieldInfo
}

// FormFields returns the fields of kind in the order of its schema's
// properties (nil for an unknown kind), read from the struct tags like
// the schema itself, so the two cannot drift.
func FormFields(kind Kind) []FieldInfo {
	rec := NewRecord(kind)
	if rec == nil {
		return nil
	}
	spec, err := specOf(reflect.TypeOf(rec).Elem())
	if err != nil {
		return nil // the tags are fixed at compile time; NewCodec reports them
	}
	return fieldInfos(spec)
}

func fieldInfos(spec *typeSpec) []FieldInfo {
	out := make([]FieldInfo, 0, len(spec.fields))
	for _, f := range spec.fields {
		fi := FieldInfo{Name: f.name, MultiLang: f.multiLang, HTML: f.html, Ref: f.refKind,
			ReadOnly: f.readOnly, WriteOnly: f.writeOnly, TrackOnly: f.trackOnly, Enum: slices.Clone(f.enum)}
		if f.item != nil {
			fi.Items = fieldInfos(f.item)
		}
		out = append(out, fi)
	}
	return out
}
