package admin

import (
	"encoding/json"
	"slices"
	"strconv"
	"strings"
	"unicode"

	"github.com/bwcms/cms/cms"
)

// The mapping of a GeoJSON file's properties to Resource fields: the
// fields offered, a guess for each property from its name, and how a
// property's value becomes the field's. A value that does not fit a
// field's type is passed on as it is, so that the dry run names the
// problem in the service's words instead of the import dropping it.

// importTarget is a Resource field a property may fill.
type importTarget struct {
	Field string // wire name: "title", "title_it"
	Label string
	shape targetShape
}

type targetShape int

const (
	shapeText targetShape = iota
	shapeList             // an array of strings: a list, or a text split at commas
	shapeBool
	shapeInt
)

// importFields are the Resource fields offered, in the order shown; lang
// marks multi-language ones, offered once per account language.
var importFields = []struct {
	field, label string
	shape        targetShape
	lang         bool
}{
	{"id", "Id", shapeText, false},
	{"title", "Title", shapeText, true},
	{"shortDescription", "Short description", shapeText, true},
	{"htmlDescription", "Description (HTML)", shapeText, true},
	{"openingTimes", "Opening times", shapeText, true},
	{"resourceType", "Type", shapeText, false},
	{"resourceCategories", "Categories", shapeList, false},
	{"resourceRegions", "Regions", shapeList, false},
	{"resourceStage", "Labels", shapeList, false},
	{"contactAddress", "Address", shapeText, false},
	{"contactCity", "City", shapeText, false},
	{"contactPostalCode", "Postal code", shapeText, false},
	{"contactProvince", "Province", shapeText, false},
	{"contactPhone", "Phone", shapeText, false},
	{"contactEmail", "E-mail", shapeText, false},
	{"contactUrl", "Website", shapeText, false},
	{"externalUrl", "Learn-more link", shapeText, true},
	{"image", "Image (URL)", shapeText, false},
	{"published", "Published", shapeBool, false},
	{"hideInList", "Hidden in lists", shapeBool, false},
	{"locationZoom", "Zoom", shapeInt, false},
}

// importTargets are the fields offered for an account's languages: a
// multi-language field in the default language first, then the others.
func importTargets(langs cms.Languages) []importTarget {
	var out []importTarget
	for _, f := range importFields {
		if !f.lang {
			out = append(out, importTarget{f.field, f.label, f.shape})
			continue
		}
		out = append(out, importTarget{f.field, f.label + " (" + languageName(langs.Default) + ")", f.shape})
		for _, l := range langs.All {
			if l != langs.Default {
				out = append(out, importTarget{f.field + "_" + l, f.label + " (" + languageName(l) + ")", f.shape})
			}
		}
	}
	return out
}

// guessNames are the property names (lower case, letters and digits
// only) taken for a field; a language suffix (name_it, name:de) picks
// that language's field.
var guessNames = map[string][]string{
	"id":                 {"id", "ref", "identifier", "uid"},
	"title":              {"name", "title", "nome", "titolo", "titel", "nom", "titre"},
	"shortDescription":   {"description", "desc", "descrizione", "beschreibung", "summary"},
	"openingTimes":       {"openinghours", "openingtimes", "hours", "orari"},
	"resourceType":       {"type", "resourcetype", "kind", "tipo", "typ"},
	"resourceCategories": {"category", "categories", "categoria", "categorie", "kategorie", "tags"},
	"resourceRegions":    {"region", "regions", "regione", "area"},
	"contactAddress":     {"address", "addrstreet", "street", "indirizzo", "adresse", "strasse"},
	"contactCity":        {"city", "addrcity", "town", "citta", "comune", "stadt", "ort"},
	"contactPostalCode":  {"postcode", "postalcode", "zip", "zipcode", "addrpostcode", "cap", "plz"},
	"contactProvince":    {"province", "provincia", "state", "county"},
	"contactPhone":       {"phone", "telephone", "tel", "telefono", "contactphone"},
	"contactEmail":       {"email", "mail", "contactemail"},
	"contactUrl":         {"website", "url", "web", "contactwebsite", "homepage"},
	"image":              {"image", "photo", "picture", "img"},
	"published":          {"published", "visible"},
	"locationZoom":       {"zoom"},
}

// guessTarget is the field a property named name likely fills, or "".
func guessTarget(name string, langs cms.Languages) string {
	base, lang := name, ""
	if i := strings.LastIndexAny(name, "_:-"); i > 0 && len(name)-i == 3 && slices.Contains(langs.All, strings.ToLower(name[i+1:])) {
		base, lang = name[:i], strings.ToLower(name[i+1:])
	}
	key := strings.Map(func(r rune) rune {
		if r < unicode.MaxASCII && (unicode.IsLetter(r) || unicode.IsDigit(r)) {
			return unicode.ToLower(r)
		}
		return -1
	}, base)
	for field, names := range guessNames {
		for _, n := range names {
			if n != key {
				continue
			}
			if lang == "" || lang == langs.Default {
				return field
			}
			if multiLanguageImport(field) {
				return field + "_" + lang
			}
			return ""
		}
	}
	return ""
}

func multiLanguageImport(field string) bool {
	for _, f := range importFields {
		if f.field == field {
			return f.lang
		}
	}
	return false
}

// importMapping is the chosen field of each property; "" leaves it out.
type importMapping struct {
	props []string
	to    map[string]string
	shape map[string]targetShape // by field
}

// newImportMapping checks chosen (property -> field) against the
// targets: an unknown field, or one chosen twice, is left out.
func newImportMapping(props []string, chosen map[string]string, targets []importTarget) importMapping {
	m := importMapping{props: props, to: map[string]string{}, shape: map[string]targetShape{}}
	for _, t := range targets {
		m.shape[t.Field] = t.shape
	}
	taken := map[string]bool{}
	for _, p := range props {
		f := chosen[p]
		if _, ok := m.shape[f]; !ok || taken[f] {
			continue
		}
		taken[f] = true
		m.to[p] = f
	}
	return m
}

// fields are the fields mapped, in the order of the properties.
func (m importMapping) fields() []string {
	var out []string
	for _, p := range m.props {
		if f := m.to[p]; f != "" {
			out = append(out, f)
		}
	}
	return out
}

// value is v (a property's value, numbers as json.Number) as field's.
// ok false: nothing to set (null, an empty text).
func (m importMapping) value(field string, v any) (any, bool) {
	switch v := v.(type) {
	case nil:
		return nil, false
	case string:
		v = strings.TrimSpace(v)
		if v == "" {
			return nil, false
		}
		switch m.shape[field] {
		case shapeList:
			var out []string
			for part := range strings.FieldsFuncSeq(v, func(r rune) bool { return r == ',' || r == ';' }) {
				if part = strings.TrimSpace(part); part != "" {
					out = append(out, part)
				}
			}
			return out, len(out) > 0
		case shapeBool:
			switch strings.ToLower(v) {
			case "true", "yes", "y", "1", "si", "sì", "ja", "oui":
				return true, true
			case "false", "no", "n", "0", "nein", "non":
				return false, true
			}
		case shapeInt:
			if n, err := strconv.Atoi(v); err == nil {
				return n, true
			}
		}
		return v, true
	case json.Number:
		if m.shape[field] == shapeText {
			return v.String(), true
		}
		if m.shape[field] == shapeList {
			return []string{v.String()}, true
		}
		return v, true
	case bool:
		if m.shape[field] == shapeText {
			return strconv.FormatBool(v), true
		}
		return v, true
	case []any:
		if m.shape[field] != shapeList {
			return v, true
		}
		out := []string{}
		for _, x := range v {
			switch x := x.(type) {
			case string:
				if x = strings.TrimSpace(x); x != "" {
					out = append(out, x)
				}
			case json.Number:
				out = append(out, x.String())
			}
		}
		return out, len(out) > 0
	}
	return v, true
}
