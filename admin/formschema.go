package admin

import (
	"encoding/json"
	"fmt"
	"strconv"
	"strings"

	"github.com/bwcms/cms/cms"
)

// propSchema is what the form reads from one property of the account's
// JSON Schema of a kind (cms.JSONSchema): the type, whether null is
// allowed, bounds, the description (the control's hint), and for arrays
// of objects their item properties.
type propSchema struct {
	Type        string // "string", "boolean", "number", "integer", "array", "object"
	Nullable    bool
	ReadOnly    bool
	WriteOnly   bool
	Description string
	Format      string
	Pattern     string
	MinLength   *int
	MaxLength   *int
	MaxItems    *int
	Minimum     json.Number
	Maximum     json.Number
	// Items is the schema of an array's items; Properties that of an
	// object (the items of a nested list).
	Items      *propSchema
	Properties map[string]*propSchema
	// File is what a file field takes (fileAccepts); nil for a field that
	// is no file field.
	File *fileAccept
}

// UnmarshalJSON reads "type" as one name or a [name, "null"] pair.
func (p *propSchema) UnmarshalJSON(b []byte) error {
	var raw struct {
		Type        json.RawMessage        `json:"type"`
		ReadOnly    bool                   `json:"readOnly"`
		WriteOnly   bool                   `json:"writeOnly"`
		Description string                 `json:"description"`
		Format      string                 `json:"format"`
		Pattern     string                 `json:"pattern"`
		MinLength   *int                   `json:"minLength"`
		MaxLength   *int                   `json:"maxLength"`
		MaxItems    *int                   `json:"maxItems"`
		Minimum     json.Number            `json:"minimum"`
		Maximum     json.Number            `json:"maximum"`
		Items       *propSchema            `json:"items"`
		Properties  map[string]*propSchema `json:"properties"`
	}
	if err := json.Unmarshal(b, &raw); err != nil {
		return err
	}
	*p = propSchema{ReadOnly: raw.ReadOnly, WriteOnly: raw.WriteOnly, Description: raw.Description,
		Format: raw.Format, Pattern: raw.Pattern, MinLength: raw.MinLength, MaxLength: raw.MaxLength, MaxItems: raw.MaxItems,
		Minimum: raw.Minimum, Maximum: raw.Maximum, Items: raw.Items, Properties: raw.Properties}
	if len(raw.Type) == 0 {
		return nil
	}
	var one string
	if err := json.Unmarshal(raw.Type, &one); err == nil {
		p.Type = one
		return nil
	}
	var many []string
	if err := json.Unmarshal(raw.Type, &many); err != nil {
		return fmt.Errorf("schema type %s: %w", raw.Type, err)
	}
	for _, t := range many {
		if t == "null" {
			p.Nullable = true
		} else {
			p.Type = t
		}
	}
	return nil
}

// kindSchema is the schema of a kind for an account's languages, with
// what the struct tags say beyond it (cms.FormFields).
type kindSchema struct {
	kind   cms.Kind
	langs  cms.Languages
	props  map[string]*propSchema
	fields []cms.FieldInfo
}

// schemaOf reads the account's schema of kind.
func schemaOf(kind cms.Kind, langs cms.Languages) (*kindSchema, error) {
	raw, err := cms.JSONSchema(kind, langs)
	if err != nil {
		return nil, err
	}
	var doc propSchema
	if err := json.Unmarshal(raw, &doc); err != nil {
		return nil, fmt.Errorf("admin: schema of %s: %w", kind, err)
	}
	ks := &kindSchema{kind: kind, langs: langs, props: doc.Properties, fields: cms.FormFields(kind)}
	if err := ks.check(ks.fields, ks.props, kind.Title()); err != nil {
		return nil, err
	}
	markFileFields(ks.props)
	return ks, nil
}

// check makes sure every field the tags name has its schema property in
// every language (they come from the same tags; a mismatch is a bug).
func (ks *kindSchema) check(fields []cms.FieldInfo, props map[string]*propSchema, where string) error {
	for _, f := range fields {
		for _, lang := range ks.fieldLangs(f) {
			p := props[ks.wire(f, lang)]
			if p == nil {
				return fmt.Errorf("admin: %s has no schema property %s", where, ks.wire(f, lang))
			}
			if f.Items != nil {
				if p.Items == nil || p.Items.Properties == nil {
					return fmt.Errorf("admin: %s.%s has no item schema", where, f.Name)
				}
				if err := ks.check(f.Items, p.Items.Properties, where+"."+f.Name); err != nil {
					return err
				}
			}
		}
	}
	return nil
}

// allLangs is the default language, then the others in account order.
func (ks *kindSchema) allLangs() []string {
	return append([]string{ks.langs.Default}, ks.langs.Others()...)
}

// fieldLangs are the languages of f's properties: every language for a
// multi-language field, "" for the others.
func (ks *kindSchema) fieldLangs(f cms.FieldInfo) []string {
	if !f.MultiLang {
		return []string{""}
	}
	return ks.allLangs()
}

// wire is the property name of f in lang ("" for a field of one value).
func (ks *kindSchema) wire(f cms.FieldInfo, lang string) string {
	if lang == "" {
		return f.Name
	}
	return ks.langs.WireName(f.Name, lang)
}

// topField finds the field and language of a top-level property name
// (title_it -> title, "it").
func (ks *kindSchema) topField(wire string) (cms.FieldInfo, string, bool) {
	return ks.findIn(ks.fields, wire)
}

func (ks *kindSchema) findIn(fields []cms.FieldInfo, wire string) (cms.FieldInfo, string, bool) {
	for _, f := range fields {
		for _, lang := range ks.fieldLangs(f) {
			if ks.wire(f, lang) == wire {
				return f, lang, true
			}
		}
	}
	return cms.FieldInfo{}, "", false
}

// fieldAt finds the field of a control name: a top-level property
// (title_it), or one of an item (landingBlocks[0].title_it).
func (ks *kindSchema) fieldAt(name string) (cms.FieldInfo, *propSchema, bool) {
	top, rest, nested := strings.Cut(name, ".")
	if !nested {
		f, _, ok := ks.topField(name)
		if !ok {
			return cms.FieldInfo{}, nil, false
		}
		return f, ks.props[name], true
	}
	list, _, ok := splitIndex(top)
	if !ok {
		return cms.FieldInfo{}, nil, false
	}
	lf, _, ok := ks.topField(list)
	if !ok || lf.Items == nil {
		return cms.FieldInfo{}, nil, false
	}
	f, _, ok := ks.findIn(lf.Items, rest)
	if !ok {
		return cms.FieldInfo{}, nil, false
	}
	return f, ks.props[list].Items.Properties[rest], true
}

// splitIndex reads "name[3]" as name and 3.
func splitIndex(s string) (string, int, bool) {
	open := strings.LastIndexByte(s, '[')
	if open <= 0 || !strings.HasSuffix(s, "]") {
		return "", 0, false
	}
	i, err := strconv.Atoi(s[open+1 : len(s)-1])
	if err != nil || i < 0 {
		return "", 0, false
	}
	return s[:open], i, true
}

// langOf is the language of a control or problem name (title_it,
// landingBlocks[0].title_it, multimedia[1]): "" for a field of one value
// or a name the schema does not have.
func (ks *kindSchema) langOf(name string) string {
	if base, _, ok := splitIndex(name); ok && !strings.HasSuffix(base, "]") {
		if _, _, known := ks.fieldAt(name); !known {
			name = base
		}
	}
	top, rest, nested := strings.Cut(name, ".")
	if !nested {
		_, lang, _ := ks.topField(top)
		return lang
	}
	list, _, ok := splitIndex(top)
	if !ok {
		return ""
	}
	lf, _, ok := ks.topField(list)
	if !ok || lf.Items == nil {
		return ""
	}
	_, lang, _ := ks.findIn(lf.Items, rest)
	return lang
}
