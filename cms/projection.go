package cms

import (
	"reflect"
	"slices"
)

// Projection selects the fields of a read: /fields keeps only the names
// given, /ignoreFields leaves names out (after /fields), /excludeFiles
// leaves out every file field, nested items' images included. id is always
// written.
type Projection struct {
	keep         map[string]bool // wire names; nil: all
	excludeFiles bool
}

// NewProjection checks the wire names of fields and ignore against kind
// (language variants included; write-only names are unknown) and returns
// the projection. CodeMalformed for an unknown name. A nil *Projection
// writes everything.
func (c *Codec) NewProjection(kind Kind, fields, ignore []string, excludeFiles bool) (*Projection, error) {
	if fields == nil && ignore == nil && !excludeFiles {
		return nil, nil
	}
	oc := c.kinds[kind]
	readable := make(map[string]bool, len(oc.out))
	for _, b := range oc.out {
		readable[b.wire] = true
	}
	for _, name := range slices.Concat(fields, ignore) {
		if !readable[name] {
			return nil, &Error{Code: CodeMalformed, Message: "Wrong request", Err: errUnknownField(name)}
		}
	}
	keep := readable
	if fields != nil {
		keep = map[string]bool{"id": true}
		for _, name := range fields {
			keep[name] = true
		}
	}
	for _, name := range ignore {
		if name != "id" {
			delete(keep, name)
		}
	}
	return &Projection{keep: keep, excludeFiles: excludeFiles}, nil
}

type errUnknownField string

func (e errUnknownField) Error() string { return "unknown field " + string(e) }

// AppendProjected appends rec like Append, with only the fields p keeps.
func (c *Codec) AppendProjected(dst []byte, rec Record, p *Projection) []byte {
	if p == nil {
		return c.Append(dst, rec)
	}
	oc, v := c.kind(rec)
	return appendProjected(dst, oc, v, p, true)
}

func appendProjected(dst []byte, oc *objectCodec, v reflect.Value, p *Projection, top bool) []byte {
	dst = append(dst, '{')
	n := 0
	for _, b := range oc.out {
		if top && !p.keep[b.wire] || p.excludeFiles && b.field.file() {
			continue
		}
		if n > 0 {
			dst = append(dst, ',')
		}
		n++
		dst = append(dst, b.quoted...)
		fv := v.Field(b.field.index)
		if b.item == nil || !p.excludeFiles {
			dst = appendField(dst, b, fv)
			continue
		}
		list := fv.Field(0)
		dst = append(dst, '[')
		for i := range list.Len() {
			if i > 0 {
				dst = append(dst, ',')
			}
			dst = appendProjected(dst, b.item, list.Index(i), p, false)
		}
		dst = append(dst, ']')
	}
	return append(dst, '}')
}
