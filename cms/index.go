package cms

import (
	"reflect"
	"slices"
)

// RecordIndex is what a store keeps beside a record's document, so that it
// can filter and look up without reading documents.
type RecordIndex struct {
	// Published is the record's published flag, which reads filter on.
	Published bool
	// Lat and Lon are the location; a record is on the map only when both
	// are valid.
	Lat, Lon Null[float64]
	// Aliases maps a language code to the record's non-empty urlAlias.
	Aliases map[string]string
	// Refs are the ids the document names (assignment lists excluded),
	// and the service's files it names (ToKind RefFile).
	Refs []Reference
	// Terms are the record's index terms but the m: ones, sorted, each
	// once (search.go): a store keeps them with the record, with the
	// MissingTerms of its account's languages.
	Terms []string
}

// Index returns the index of rec. Adapters call it (on their document
// codec); it decides what is indexed so that every adapter indexes the same.
func (c *Codec) Index(rec Record) RecordIndex {
	oc, v := c.kind(rec)
	ix := recordIndex(rec)
	ix.Aliases = aliases(*rec.Common().URLAlias)
	ix.Refs = fileReferences(rec, oc.spec, v, references(rec, oc.spec, v, "", nil))
	ix.Terms = indexTerms(rec)
	return ix
}

func aliases(l Langs[string]) map[string]string {
	m := make(map[string]string, len(l))
	for code, alias := range l {
		if alias != "" {
			m[code] = alias
		}
	}
	return m
}

// references collects the ids named by ref fields, each (field, id) once.
func references(rec Record, spec *typeSpec, v reflect.Value, prefix string, refs []Reference) []Reference {
	add := func(f *fieldSpec, id string, single bool) {
		r := Reference{FromKind: rec.Kind(), FromID: rec.RecordID(), Field: prefix + f.name,
			ToKind: f.refKind, ToID: id, Single: single}
		if id != "" && !slices.Contains(refs, r) {
			refs = append(refs, r)
		}
	}
	for _, f := range spec.fields {
		if f.writeOnly || f.assign {
			continue
		}
		fv := v.Field(f.index)
		if f.item != nil {
			list := fv.Field(0)
			for i := range list.Len() {
				refs = references(rec, f.item, list.Index(i), prefix+f.name+".", refs)
			}
			continue
		}
		if f.refKind == "" {
			continue
		}
		switch p := fv.Addr().Interface().(type) {
		case *Opt[string]:
			add(f, p.Value, true)
		case *Null[string]:
			if p.Valid {
				add(f, p.Value, true)
			}
		case *Null[[]string]:
			for _, id := range p.Value {
				add(f, id, false)
			}
		}
	}
	return refs
}
