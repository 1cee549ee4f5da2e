package cms_test

import (
	"bytes"
	"encoding/json"
	"slices"
	"testing"

	"github.com/bwcms/cms/cms"
	"github.com/bwcms/cms/internal/testenv"
)

// schemaProperties reads the property names of a schema object in order,
// with the item properties of each array of objects.
func schemaProperties(t *testing.T, raw json.RawMessage) (names []string, items map[string][]string) {
	t.Helper()
	var obj struct {
		Properties json.RawMessage `json:"properties"`
	}
	if err := json.Unmarshal(raw, &obj); err != nil {
		t.Fatal(err)
	}
	dec := json.NewDecoder(bytes.NewReader(obj.Properties))
	if _, err := dec.Token(); err != nil { // {
		t.Fatal(err)
	}
	items = map[string][]string{}
	for dec.More() {
		tok, err := dec.Token()
		if err != nil {
			t.Fatal(err)
		}
		name := tok.(string)
		var prop struct {
			Items json.RawMessage `json:"items"`
		}
		var val json.RawMessage
		if err := dec.Decode(&val); err != nil {
			t.Fatal(err)
		}
		names = append(names, name)
		if err := json.Unmarshal(val, &prop); err == nil && bytes.Contains(prop.Items, []byte(`"properties"`)) {
			items[name], _ = schemaProperties(t, prop.Items)
		}
	}
	return names, items
}

// TestFormFieldsFollowTheSchema: FormFields expanded with the languages
// names exactly the schema's properties, in its order, nested items too.
func TestFormFieldsFollowTheSchema(t *testing.T) {
	t.Parallel()
	langs := testenv.Langs("en", "it", "de")
	wire := func(fields []cms.FieldInfo) []string {
		var out []string
		for _, f := range fields {
			if !f.MultiLang {
				out = append(out, f.Name)
				continue
			}
			for _, code := range append([]string{langs.Default}, langs.Others()...) {
				out = append(out, langs.WireName(f.Name, code))
			}
		}
		return out
	}
	for _, kind := range cms.Kinds() {
		schema, err := cms.JSONSchema(kind, langs)
		if err != nil {
			t.Fatal(err)
		}
		props, items := schemaProperties(t, schema)
		fields := cms.FormFields(kind)
		if got := wire(fields); !slices.Equal(got, props) {
			t.Errorf("%s: FormFields name\n%v\nthe schema\n%v", kind, got, props)
		}
		for _, f := range fields {
			if (f.Items != nil) != (items[f.Name] != nil) {
				t.Errorf("%s.%s: Items %v, schema items %v", kind, f.Name, f.Items != nil, items[f.Name] != nil)
			}
			if f.Items != nil && !slices.Equal(wire(f.Items), items[f.Name]) {
				t.Errorf("%s.%s: item fields %v, schema %v", kind, f.Name, wire(f.Items), items[f.Name])
			}
		}
	}
	if cms.FormFields("nothing") != nil {
		t.Error("an unknown kind has fields")
	}
}

// TestFormFieldsSayWhatTheSchemaCannot checks the tags' extras on known
// fields of each kind.
func TestFormFieldsSayWhatTheSchemaCannot(t *testing.T) {
	t.Parallel()
	find := func(fields []cms.FieldInfo, name string) cms.FieldInfo {
		t.Helper()
		for _, f := range fields {
			if f.Name == name {
				return f
			}
		}
		t.Fatalf("no field %s", name)
		return cms.FieldInfo{}
	}
	res := cms.FormFields(cms.KindResource)
	if f := find(res, "htmlContent"); !f.HTML || !f.MultiLang || f.Ref != "" {
		t.Errorf("htmlContent: %+v", f)
	}
	if f := find(res, "title"); f.HTML || !f.MultiLang {
		t.Errorf("title: %+v", f)
	}
	if f := find(res, "poiResourceIds"); f.Ref != "resource" || f.WriteOnly {
		t.Errorf("poiResourceIds: %+v", f)
	}
	if f := find(res, "poiResourceIdsAdd"); f.Ref != "resource" || !f.WriteOnly {
		t.Errorf("poiResourceIdsAdd: %+v", f)
	}
	if f := find(res, "mapIds"); f.Ref != "map" {
		t.Errorf("mapIds: %+v", f)
	}
	if f := find(res, "timeLastUpdate"); !f.ReadOnly {
		t.Errorf("timeLastUpdate: %+v", f)
	}
	if f := find(res, "trackDifficulty"); !f.TrackOnly || !slices.Equal(f.Enum, []float64{1, 2, 3, 4, 5}) {
		t.Errorf("trackDifficulty: %+v", f)
	}
	blocks := find(cms.FormFields(cms.KindLanding), "landingBlocks")
	if f := find(blocks.Items, "resourceIds"); f.Ref != cms.RefMapOrLanding {
		t.Errorf("landingBlocks.resourceIds: %+v", f)
	}
	if f := find(blocks.Items, "htmlContent"); !f.HTML || !f.MultiLang {
		t.Errorf("landingBlocks.htmlContent: %+v", f)
	}
	if f := find(cms.FormFields(cms.KindMap), "trackResourceId"); f.Ref != "resource" {
		t.Errorf("trackResourceId: %+v", f)
	}
	if f := find(cms.FormFields(cms.KindProposal), "statsAccess"); !f.ReadOnly {
		t.Errorf("statsAccess: %+v", f)
	}
	// The result is the caller's: changing it changes no later answer.
	res[0].Name = "changed"
	if cms.FormFields(cms.KindResource)[0].Name != "id" {
		t.Error("FormFields shares its answer")
	}
}
