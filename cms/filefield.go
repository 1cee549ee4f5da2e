package cms

import (
	"maps"
	"reflect"
	"slices"
	"strconv"
	"strings"

	"golang.org/x/net/html"
)

// fileUse is one URL a record names where a file may be: a file field
// (image, multimedia, mapLayerFile, trackFile, ...) or an <img src> in an
// HTML field.
type fileUse struct {
	path  string // wire path with indexes: "multimedia[2]", "landingBlocks[0].image"
	field string // wire path without indexes and language (Reference.Field)
	rule  string // the file field's rule ("image", "layer", "trackfile"); "" for an <img>
	url   string
}

// fileUses lists the URLs v's file fields name and, with imgs, the <img
// src> of its HTML fields, set fields only (a patch's absent fields name
// nothing).
func fileUses(spec *typeSpec, v reflect.Value, prefix, field string, imgs bool, uses []fileUse) []fileUse {
	for _, f := range spec.fields {
		fv := v.Field(f.index)
		if f.item != nil {
			list := fv.Field(0)
			for i := range list.Len() {
				uses = fileUses(f.item, list.Index(i), prefix+f.name+"["+strconv.Itoa(i)+"].", field+f.name+".", imgs, uses)
			}
			continue
		}
		switch {
		case f.file():
			switch p := fv.Addr().Interface().(type) {
			case *Null[string]:
				if p.Valid && p.Value != "" {
					uses = append(uses, fileUse{prefix + f.name, field + f.name, f.rule.name, p.Value})
				}
			case *Null[[]string]:
				for i, u := range p.Value {
					uses = append(uses, fileUse{prefix + f.name + "[" + strconv.Itoa(i) + "]", field + f.name, f.rule.name, u})
				}
			}
		case f.html && imgs:
			// An HTML field is a language map, or one text for every
			// language (a Proposal's pricing).
			var texts []Null[string]
			switch v := fv.Interface().(type) {
			case Langs[Null[string]]:
				for _, code := range slices.Sorted(maps.Keys(v)) {
					texts = append(texts, v[code])
				}
			case Null[string]:
				texts = append(texts, v)
			}
			for _, s := range texts {
				if !s.Valid {
					continue
				}
				for _, src := range imageSources(s.Value) {
					uses = append(uses, fileUse{prefix + f.name, field + f.name, "", src})
				}
			}
		}
	}
	return uses
}

// imageSources returns the src of every <img> in a sanitized HTML
// fragment that may name a file (its text holds "/file/": the others are
// not tokenized, so writes without files pay nothing).
func imageSources(fragment string) []string {
	if !strings.Contains(fragment, "/file/") {
		return nil
	}
	var srcs []string
	z := html.NewTokenizer(strings.NewReader(fragment))
	for {
		switch z.Next() {
		case html.ErrorToken:
			return srcs
		case html.StartTagToken, html.SelfClosingTagToken:
			name, attrs := z.TagName()
			if string(name) != "img" {
				continue
			}
			for attrs {
				var k, v []byte
				k, v, attrs = z.TagAttr()
				if string(k) == "src" {
					srcs = append(srcs, string(v))
				}
			}
		}
	}
}

// fileReferences are the references rec's file fields and HTML images
// make to the service's files (by the shape of their urls), each (field,
// id) once: a store keeps them with the record's other references, so the
// records using a file are found from an index.
func fileReferences(rec Record, spec *typeSpec, v reflect.Value, refs []Reference) []Reference {
	for _, u := range fileUses(spec, v, "", "", true, nil) {
		id, ok := fileIDOf(u.url)
		if !ok {
			continue
		}
		r := Reference{FromKind: rec.Kind(), FromID: rec.RecordID(), Field: u.field, ToKind: RefFile, ToID: id}
		if !slices.Contains(refs, r) {
			refs = append(refs, r)
		}
	}
	return refs
}
