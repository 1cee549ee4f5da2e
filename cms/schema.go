package cms

import (
	"encoding/json"
	"fmt"
	"reflect"
	"strconv"
	"strings"

	"github.com/invopop/jsonschema"
)

// SchemaDialect is the JSON Schema dialect of every generated schema.
const SchemaDialect = "https://json-schema.org/draft/2020-12/schema"

// JSONSchema returns the schema.json document of kind for langs: JSON
// Schema draft 2020-12, generated from the struct tags (through
// invopop/jsonschema) and expanded with every language variant.
func JSONSchema(kind Kind, langs Languages) ([]byte, error) {
	s, err := recordSchema(kind, langs)
	if err != nil {
		return nil, err
	}
	s.Version = SchemaDialect
	return marshalSchema(s)
}

// JSONSchemaMultiple returns the schema.multiple.json document of kind for
// langs: an array of records as JSONSchema describes them (a batch body).
func JSONSchemaMultiple(kind Kind, langs Languages) ([]byte, error) {
	s, err := recordSchema(kind, langs)
	if err != nil {
		return nil, err
	}
	return marshalSchema(&jsonschema.Schema{
		Version:     SchemaDialect,
		Title:       kind.Plural(),
		Description: "A list of " + kind.Plural() + ", as sent to the batch endpoint.",
		Type:        "array",
		Items:       s,
	})
}

func marshalSchema(s *jsonschema.Schema) ([]byte, error) {
	b, err := json.MarshalIndent(s, "", "  ")
	if err != nil {
		return nil, fmt.Errorf("cms: marshal schema: %w", err)
	}
	return append(b, '\n'), nil
}

func recordSchema(kind Kind, langs Languages) (*jsonschema.Schema, error) {
	c, err := NewCodec(langs)
	if err != nil {
		return nil, err
	}
	oc := c.kinds[kind]
	if oc == nil {
		return nil, fmt.Errorf("cms: unknown kind %q", kind)
	}
	r := &jsonschema.Reflector{
		Anonymous:                  true,
		DoNotReference:             true,
		ExpandedStruct:             true,
		RequiredFromJSONSchemaTags: true,
	}
	s := r.ReflectFromType(reflect.TypeOf(NewRecord(kind)).Elem())
	s.Version = ""
	s.Title = kind.Title()
	if err := expandObject(s, oc, langs); err != nil {
		return nil, err
	}
	return s, nil
}

// expandObject completes the reflected object schema with what the tags say
// beyond invopop's vocabulary (rules, null, readOnly, writeOnly, reserved
// ids) and with one property per language variant, in write order.
func expandObject(s *jsonschema.Schema, oc *objectCodec, langs Languages) error {
	props := jsonschema.NewProperties()
	for _, f := range oc.spec.fields {
		p, ok := s.Properties.Get(f.name)
		if !ok {
			return fmt.Errorf("cms: schema of %s has no property %q", oc.spec.goType.Name(), f.name)
		}
		if err := completeProperty(p, f, oc, langs); err != nil {
			return err
		}
		props.Set(f.name, p)
		if !f.multiLang {
			continue
		}
		description := p.Description
		p.Description = description + " (language " + langs.Default + ", the default)"
		for _, lang := range langs.Others() {
			variant := *p
			variant.Description = description + " (language " + lang + ")"
			props.Set(langs.WireName(f.name, lang), &variant)
		}
	}
	s.Properties = props
	return nil
}

func completeProperty(p *jsonschema.Schema, f *fieldSpec, oc *objectCodec, langs Languages) error {
	p.ReadOnly = f.readOnly
	p.WriteOnly = f.writeOnly
	target := p // the schema of the strings the rule applies to
	if f.typ == typeStrings {
		target = p.Items
	}
	if f.item != nil {
		if err := expandObject(p.Items, oc.names[f.name].item, langs); err != nil {
			return err
		}
	}
	if re := f.pattern(); re != nil {
		target.Pattern = re.String()
	}
	if f.maxItems >= 0 {
		p.MaxItems = ptr(uint64(f.maxItems))
	}
	if r := f.rule; r != nil {
		target.Format = r.format
		if target.MinLength == nil && f.minLen > 0 {
			target.MinLength = ptr(uint64(f.minLen))
		}
		if target.MaxLength == nil && f.maxLen >= 0 {
			target.MaxLength = ptr(uint64(f.maxLen))
		}
		if r.name == "id" {
			reserved := make([]any, len(reservedIDs))
			for i, w := range reservedIDs {
				reserved[i] = w
			}
			target.Not = &jsonschema.Schema{Enum: reserved}
		}
	}
	// Generators read a number without format as float32 and an integer
	// as their platform int: give the Go types' widths.
	switch f.typ {
	case typeNumber:
		p.Format = "double"
	case typeInteger:
		p.Format = "int64"
	}
	if f.nullable {
		boundEnum(p)
		// invopop's Type is one string; the ["type","null"] form goes in
		// Extras, which it writes as plain keywords.
		p.Extras = map[string]any{"type": []string{p.Type, "null"}}
		p.Type = ""
		if p.Enum != nil {
			p.Enum = append(p.Enum, nil)
		}
	}
	if strings.TrimSpace(p.Description) == "" {
		return fmt.Errorf("cms: field %q has no description", f.name)
	}
	return nil
}

// boundEnum writes an enum of consecutive integers as minimum and
// maximum: the same values, and generators that refuse null in an
// integer enum read it (trackDifficulty: 1 to 5, or null).
func boundEnum(p *jsonschema.Schema) {
	if len(p.Enum) == 0 {
		return
	}
	var lo, hi int64
	for i, v := range p.Enum {
		num, ok := v.(json.Number) // as invopop reads enum= tags
		n, err := num.Int64()
		if !ok || err != nil || (i > 0 && n != hi+1) {
			return
		}
		if i == 0 {
			lo = n
		}
		hi = n
	}
	p.Enum = nil
	p.Minimum = json.Number(strconv.FormatInt(lo, 10))
	p.Maximum = json.Number(strconv.FormatInt(hi, 10))
}

func ptr[T any](v T) *T { return &v }
