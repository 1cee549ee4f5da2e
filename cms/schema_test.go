package cms

import (
	"bytes"
	"encoding/json"
	"flag"
	"maps"
	"os"
	"path/filepath"
	"reflect"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"testing"
)

var update = flag.Bool("update", false, "rewrite docs/schemas/*.json from the struct tags (languages en,it,de)")

// schemaDialect is the dialect every schema root declares (draft 2020-12),
// spelt out rather than taken from SchemaDialect.
const schemaDialect = "https://json-schema.org/draft/2020-12/schema"

// schemaTestLangs are the languages of the committed schemas.
func schemaTestLangs(tb testing.TB) Languages {
	tb.Helper()
	langs, err := NewLanguages("en", "en", "it", "de")
	if err != nil {
		tb.Fatal(err)
	}
	return langs
}

// schemaGenerators are the two documents of each kind, by file suffix.
var schemaGenerators = []struct {
	suffix string
	gen    func(Kind, Languages) ([]byte, error)
}{
	{".schema.json", JSONSchema},
	{".schema.multiple.json", JSONSchemaMultiple},
}

// TestSchemaFilesFresh checks that docs/schemas holds what the struct tags
// generate for en,it,de. Regenerate with
//
//	go test ./cms -run TestSchemaFilesFresh -update
func TestSchemaFilesFresh(t *testing.T) {
	t.Parallel()
	langs := schemaTestLangs(t)
	dir := filepath.Join("..", "docs", "schemas")
	for _, kind := range Kinds() {
		for _, g := range schemaGenerators {
			path := filepath.Join(dir, string(kind)+g.suffix)
			want, err := g.gen(kind, langs)
			if err != nil {
				t.Fatalf("%s: %v", path, err)
			}
			if *update {
				if err := os.WriteFile(path, want, 0o644); err != nil {
					t.Fatal(err)
				}
				continue
			}
			got, err := os.ReadFile(path)
			if err != nil {
				t.Errorf("%v (run go test ./cms -run TestSchemaFilesFresh -update)", err)
				continue
			}
			if !bytes.Equal(got, want) {
				t.Errorf("%s is stale, first difference on line %d: run go test ./cms -run TestSchemaFilesFresh -update",
					path, firstDifferentLine(got, want))
			}
		}
	}
}

func firstDifferentLine(got, want []byte) int {
	g, w := bytes.Split(got, []byte("\n")), bytes.Split(want, []byte("\n"))
	for i := range min(len(g), len(w)) {
		if !bytes.Equal(g[i], w[i]) {
			return i + 1
		}
	}
	return min(len(g), len(w)) + 1
}

// The contract, copied verbatim from the API's specification: the field
// tables (Field | Type | Constraints | Meaning), the item descriptions
// written as prose, and the lists of multi-language fields.
var contractTables = map[string]string{
	"resource": `
| id | string | required; size (3, 80) | unique key |
| published | boolean | | visibility |
| timeLastUpdate | string | size 19; YYYY-MM-DD HH:MM:SS; time zone CET (UTC+1) | last update |
| title | string | size (0, 100); multi-language | title |
| shortDescription | string | nullable; size (0, 160); multi-language | brief snippet |
| htmlDescription | string | nullable; size (0, 1000); multi-language | summary, HTML allowed |
| htmlContent | string | nullable; size (0, 32000); multi-language | full content, HTML allowed |
| image | uri | nullable; jpg, png or webp | featured image |
| multimedia | array of uri | nullable; sorted; jpg, png or webp | gallery images |
| multimediaTitle | string | size (0, 100) | gallery title |
| urlAlias | string | size (2, 500); starts with /; no protocol or the service; multi-language | URL of the record |
| canonicalUrl | uri | nullable; size (0, 500); multi-language | equivalent external resource |
| externalUrl | uri | nullable; size (0, 500); multi-language | target of the learn-more button |
| externalUrlLabel | string | nullable; size (0, 250); multi-language | label of that button |
| redirectLoadTo | string | nullable | redirect on load: to an external URL, an internal Map, a Landing, or no redirect |
| locationLat | number | nullable; size (-90, 90) | latitude |
| locationLon | number | nullable; size (-180, 180) | longitude |
| locationZoom | integer | nullable; size (2, 25) | zoom level when the record is opened |
| mapIds | array of string | nullable | ids of Maps where the Resource is PRIMARY; replaces assignments, so it appears only in these |
| mapIdsAdd | array of string | nullable | ids of Maps where it is PRIMARY; keeps existing assignments |
| mapSecondaryIds | array of string | nullable | ids of Maps where it is SECONDARY; replaces assignments |
| mapSecondaryIdsAdd | array of string | nullable | SECONDARY; keeps existing assignments |
| poiResourceIds | array of string | nullable; sorted | complementary POI Resource ids; replaces existing |
| poiResourceIdsAdd | array of string | nullable; sorted | complementary POI Resource ids; added to existing |
| hideInList | boolean | default false | hide in widget list |
| resourceType | string | | type of Resource (TRACK is a type) |
| resourceCategories | array of string | nullable; sorted | Category term ids; the first defines the marker icon |
| resourceRegions | array of string | nullable | geographic area ids |
| resourceStage | array of string | nullable | label ids used as stickers |
| resourceMapLayerType | string | | geographic map layer type used when the Resource is opened |
| mapLayerFile | uri | nullable; KML or KMZ file up to 2MB | overlay layer |
| contactAddress | string | nullable; size (0, 200) | street address |
| contactCity | string | nullable; size (0, 60) | city |
| contactPostalCode | string | nullable; size (0, 8) | postal code |
| contactProvince | string | nullable; size (0, 60) | province, state or region |
| contactPhone | string | nullable; size (0, 40) | phone number |
| contactEmail | email | nullable; size (0, 255) | e-mail address |
| contactUrl | uri | nullable; size (0, 2000); should start with http:// or https:// | website |
| openingTimes | string | nullable; size (0, 2000); multi-language | opening times |
| ctaOnMap | boolean | nullable | floating CTA button on the map |
| ctaOnImage | boolean | nullable | floating CTA button on the image |
| ctaUrl | uri | nullable; size (0, 2000) | CTA target |
| ctaLabel | string | nullable; size (0, 20); multi-language | CTA text |
| ctaValuePrefix | string | nullable; size (0, 20); multi-language | CTA intro or price prefix |
| ctaValue | string | nullable; size (0, 20); multi-language | CTA intro or price label |
| ctaValueSufix | string | nullable; size (0, 20); multi-language | CTA intro or price suffix |
| trackCircular | boolean | nullable; TRACK only | route is a loop |
| trackEffortDataShow | boolean | nullable; TRACK only | show effort information |
| trackAltitudeShow | boolean | nullable | show the elevation graph; for track files with elevation data |
| trackHoverShow | boolean | nullable | true: track shown when hovering or tapping the start marker; false: track always shown |
| trackDurationMinutes | integer | nullable; size (1, *); minutes; TRACK only | duration |
| trackTravelDistance | integer | nullable; size (1, *); meters; TRACK only | length |
| trackSlopeUp | integer | nullable; size (0, *); meters; TRACK only | ascent |
| trackSlopeDown | integer | nullable; size (0, *); meters; TRACK only | descent |
| trackDifficulty | integer | nullable; one of null, 1, 2, 3, 4, 5 (1 very low, 5 extreme); TRACK only | difficulty |
| trackStart | string | nullable; size (0, 100); multi-language; TRACK only | start place name |
| trackEnd | string | nullable; size (0, 100); multi-language; TRACK only | end place name |
| trackFile | uri | nullable; GPX or KML; TRACK only | track to import |
| headTitle | string | nullable; size (0, 100); multi-language | SEO title; falls back to title |
| headDescription | string | nullable; size (0, 150); multi-language | SEO description; falls back to shortDescription |
| headKeywords | string | nullable; size (0, 150); multi-language | SEO keywords |
| deleteElementIrreversibly | boolean | | true deletes the Resource irreversibly |
`,
	"map": `
| id | string | required; size (3, 80) | unique key |
| published | boolean | | visibility for non-authenticated users |
| timeLastUpdate | string | size 19; YYYY-MM-DD HH:MM:SS; CET (UTC+1) | last update |
| title | string | size (0, 100); multi-language | title |
| shortDescription | string | nullable; size (0, 160); multi-language | snippet |
| image | uri | nullable; jpg, png or webp | featured image |
| urlAlias | string | size (2, 500); starts with /; multi-language | URL |
| canonicalUrl | uri | nullable; size (0, 500) | equivalent external resource |
| locationLat | number | nullable; size (-90, 90) | initial centre latitude |
| locationLon | number | nullable; size (-180, 180) | initial centre longitude |
| locationZoom | integer | nullable; size (2, 25) | initial zoom |
| mapLayerFile | uri | nullable; KML or KMZ up to 2MB | overlay layer |
| ctaOnMap | boolean | nullable | floating CTA on map |
| ctaOnImage | boolean | nullable | floating CTA on image |
| ctaUrl | uri | nullable; size (0, 1500) | CTA target |
| ctaLabel | string | nullable; size (0, 20); multi-language | CTA text |
| ctaValuePrefix | string | nullable; size (0, 20); multi-language | prefix |
| ctaValue | string | nullable; size (0, 20); multi-language | label |
| ctaValueSufix | string | nullable; size (0, 20); multi-language | suffix |
| resourceIds | array of string | nullable; sorted | PRIMARY Resource ids; replaces all existing |
| resourceIdsAdd | array of string | nullable; sorted | PRIMARY Resource ids; added to existing |
| tourMultiday | array of object | items as in the tourMultiday table | per-day information of a multi-day tour |
| secondaryResourceIds | array of string | nullable; sorted | SECONDARY Resource ids; replaces all |
| secondaryResourceIdsAdd | array of string | nullable; sorted | SECONDARY Resource ids; added |
| poiResourceIds | array of string | nullable; sorted | POI Resource ids; replaces all |
| poiResourceIdsAdd | array of string | nullable; sorted | POI Resource ids; added |
| brandedPoiIds | array of string | nullable; sorted | branded POI Resource ids; replaces all |
| trackResourceId | string | nullable | id of a TRACK-type Resource shown on the map |
| routePlannerAuto | boolean | | automatic route planner |
| routePlannerMethod | string | | route calculation method |
| routePlannerColor | string | HTML hex format #RRGGBB | route line colour |
| routePlannerWidth | number | size (1, 4); pixels | route line width |
| mapClusterize | boolean | nullable | cluster markers |
| mapLabel | string | nullable; size (0, 40); multi-language | short label |
| customFilterFile | uri | nullable; jpg, png or webp | custom filter icon |
| customHeaderFile | uri | nullable; jpg, png or webp | custom header image |
| customBrandedPoiFile | uri | nullable; jpg, png or webp | custom branded POI marker icon |
| customLoaderFile | uri | nullable; jpg, png or webp | custom loader image |
| mapLayerType | string | | geographic layer type at initialization |
| mapMaxAutozoom | integer | nullable; size (2, 25) | maximum zoom of auto-zoom after a filter |
| mapIsTour | boolean | nullable | tour mode |
| trackResourceShowEffort | boolean | nullable | show effort information for the trackResourceId Resource |
| mapShowFilter | boolean | nullable | enable filter controls |
| mapFilterType | string | | filter control configuration |
| mapFilterCategorySwitch | boolean | nullable | filter by Category |
| mapFilterDifficultySwitch | boolean | nullable | filter by difficulty |
| mapFilterDistanceSwitch | boolean | nullable | filter by distance |
| mapFilterCircularSwitch | boolean | nullable | filter by circular |
| mapFilterCategories | array of string | nullable; sorted | Categories of the filter; when absent, all Categories used in the map |
| mapFilterCategoriesSecondary | array of string | nullable; sorted | secondary filter Categories |
| mapCategories | array of string | nullable; sorted | Categories for sorting and filtering Maps in the admin table |
| mapShowList | boolean | nullable | enable the Resource gallery |
| headTitle | string | nullable; size (0, 100); multi-language | SEO title; falls back to title |
| headDescription | string | nullable; size (0, 150); multi-language | SEO description; falls back to shortDescription |
| headKeywords | string | nullable; size (0, 150); multi-language | SEO keywords |
| deleteElementIrreversibly | boolean | | true deletes the Map irreversibly |
`,
	"map.tourMultiday": `
| dayLabels | array of string | labels of shape D1, D2, ... | days covered |
| title | string | nullable; size (0, 100); multi-language | day title |
| shortDescription | string | nullable; size (0, 160); multi-language | day intro |
| htmlContent | string | nullable; size (0, 32000); multi-language | day HTML text |
| image | uri | nullable; jpg, png or webp | gallery image |
| resourceIds | array of string | nullable; sorted | Resources visited that day |
`,
	"landing": `
| id | string | required; size (3, 80) | unique key |
| published | boolean | | visibility |
| timeLastUpdate | string | size 19; YYYY-MM-DD HH:MM:SS; CET (UTC+1) | last update |
| title | string | size (0, 100) | title |
| shortDescription | string | nullable; size (0, 160) | snippet |
| htmlDescription | string | nullable; size (0, 1000) | summary, HTML |
| htmlContent | string | nullable; size (0, 32000) | full content, HTML |
| image | uri | nullable; jpg, png or webp | featured image |
| urlAlias | string | size (2, 500); starts with / | URL |
| canonicalUrl | uri | nullable; size (0, 500) | equivalent external Landing |
| alternativeView | string | nullable; default null | alternative view |
| proposal | boolean | | proposal flag |
| proposalSummary | string | nullable; size (0, 2000); HTML | proposal summary |
| proposalCalendar | string | nullable; size (0, 2000); HTML | proposal calendar |
| proposalDescription | string | nullable; size (0, 2000); HTML | proposal description |
| landingCategories | array of string | nullable; sorted | Categories for the admin table |
| landingBlocks | array of object | items as below | content blocks |
| landingHotels | array of object | items as below | hotels section |
| buttonViewMapLabel | string | nullable; size (0, 200) | view-map button label |
| mapIntro | string | nullable; size (0, 250) | map intro text |
| mapId | string | | Map displayed |
| ctaOnMap | boolean | nullable | floating CTA on map |
| ctaUrl | uri | nullable; size (0, 2000) | CTA target |
| ctaLabel | string | nullable; size (0, 20) | CTA text |
| ctaValuePrefix | string | nullable; size (0, 20) | prefix |
| ctaValue | string | nullable; size (0, 20) | label |
| ctaValueSufix | string | nullable; size (0, 20) | suffix |
| headTitle | string | nullable; size (0, 100) | SEO title; falls back to title |
| headDescription | string | nullable; size (0, 150) | SEO description; falls back to shortDescription |
| headKeywords | string | nullable; size (0, 150) | SEO keywords |
| deleteElementIrreversibly | boolean | | true deletes the Landing irreversibly |
`,
	"proposal": `
| id | string | required; size (3, 80) | unique key |
| published | boolean | | visibility |
| timeLastUpdate | string | size 19; YYYY-MM-DD HH:MM:SS; CET (UTC+1) | last update |
| title | string | size (0, 100) | title |
| shortDescription | string | nullable; size (0, 160) | snippet |
| htmlDescription | string | nullable; size (0, 1000) | summary, HTML |
| htmlContent | string | nullable; size (0, 32000) | full content, HTML |
| image | uri | nullable; jpg, png or webp | featured image |
| urlAlias | string | size (2, 500); starts with / | URL |
| canonicalUrl | uri | nullable; size (0, 500) | equivalent external Proposal |
| infoSummary | string | nullable; size (0, 2000); HTML | summary |
| relatedContents | array of object | items as below | related content |
| hotels | array of object | items as below | hotel sections |
| buttonViewMapLabel | string | nullable; size (0, 200) | view-map button label |
| mapId | string | | Map displayed |
| ctaUrl | uri | nullable; size (0, 2000) | CTA target |
| ctaLabel | string | nullable; size (0, 20) | CTA text |
| ctaValuePrefix | string | nullable; size (0, 20) | prefix |
| ctaValue | string | nullable; size (0, 20) | label |
| ctaValueSufix | string | nullable; size (0, 20) | suffix |
| customerId | string | nullable; size (3, 80) | customer of the Proposal; template Proposals have none |
| groupName | string | nullable; size (0, 100) | group name |
| tripDates | string | nullable; size (0, 100) | trip dates |
| paxNum | string | nullable; size (0, 100) | number of passengers |
| roomsNum | string | nullable; size (0, 100) | number of rooms |
| pricing | string | nullable; size (0, 1000); HTML | pricing |
| expireDate | string | nullable; size 10 | expiry date; format beyond the size is not shown |
| typeSchema | string | | type of the Proposal |
| statsAccess | integer | read only | number of accesses |
| statsLastAccess | string | read only; size 19; YYYY-MM-DD HH:MM:SS; CET (UTC+1) | last access |
`,
}

var contractItemProse = map[string]string{
	"landing.landingBlocks":    `landingBlocks item: title (string, size (0, 200)); shortDescription (string, nullable, size (0, 200), plain text); htmlContent (string, nullable, size (0, 32000), HTML); resourceIds (array of string, nullable, sorted; ids of Maps or Landings shown in the block).`,
	"landing.landingHotels":    `landingHotels item: title (string, size (0, 200)); shortDescription (string, nullable, size (0, 200), plain text); htmlContent (string, nullable, size (0, 32000), HTML); resourceIds (array of string, nullable, sorted; ids of hotel Resources).`,
	"proposal.relatedContents": `relatedContents item: title (string, size (0, 200)); shortDescription (string, nullable, size (0, 200), plain text); htmlContent (string, nullable, size (0, 32000), HTML).`,
	"proposal.hotels":          `hotels item: title (string, size (0, 200)); shortDescription (string, nullable, size (0, 200), plain text); htmlContent (string, nullable, size (0, 32000), HTML); resourceIds (array of string, nullable, sorted; hotel Resource ids).`,
}

var contractMultiLangLists = map[Kind]string{
	KindResource: `Multi-language Resource fields: title, shortDescription, htmlDescription, htmlContent, urlAlias, canonicalUrl, externalUrl, externalUrlLabel, ctaValuePrefix, ctaValue, ctaValueSufix, ctaLabel, openingTimes, trackStart, trackEnd, headKeywords, headTitle, headDescription.`,
	KindMap:      `Multi-language Map fields: title, shortDescription, urlAlias, ctaValuePrefix, ctaValue, ctaValueSufix, ctaLabel, mapLabel, tourMultiday.title, tourMultiday.shortDescription, tourMultiday.htmlContent, headKeywords, headTitle, headDescription.`,
	KindLanding:  `Multi-language Landing fields: title, shortDescription, htmlDescription, htmlContent, urlAlias, canonicalUrl, landingBlocks.title, landingBlocks.shortDescription, landingBlocks.htmlContent, landingHotels.title, landingHotels.shortDescription, landingHotels.htmlContent, proposalSummary, proposalCalendar, proposalDescription, buttonViewMapLabel, mapIntro, ctaValuePrefix, ctaValue, ctaValueSufix, ctaLabel, headKeywords, headTitle, headDescription.`,
	KindProposal: `Multi-language Proposal fields: title, shortDescription, htmlDescription, htmlContent, urlAlias, canonicalUrl, relatedContents.title, relatedContents.shortDescription, relatedContents.htmlContent, hotels.title, hotels.shortDescription, hotels.htmlContent, infoSummary, buttonViewMapLabel, ctaValuePrefix, ctaValue, ctaValueSufix, ctaLabel.`,
}

// contractExtras are properties the schema has beyond the contract tables:
// deleteElementIrreversibly applies to Proposals too, as to every kind.
var contractExtras = map[string][]string{"proposal": {"deleteElementIrreversibly"}}

// contractNullExceptions are fields the contract does not mark nullable
// that read as null: a Proposal never read by id has statsLastAccess null.
var contractNullExceptions = map[string]bool{"proposal.statsLastAccess": true}

// tableField is one field of a contract table.
type tableField struct {
	name        string
	typ         string // "string", "uri", "array of string", ...
	constraints string
	nullable    bool
	// markedMultiLang: the constraints say multi-language (only some
	// tables do; the lists are authoritative).
	markedMultiLang bool
}

// contractObject is a record kind ("map") or a nested item type
// ("map.tourMultiday") of the contract.
type contractObject struct {
	path      string
	kind      Kind
	item      string // "" for the record itself
	fields    []tableField
	multiLang []string
}

func (o contractObject) isMultiLang(name string) bool { return slices.Contains(o.multiLang, name) }

var nullableWord = regexp.MustCompile(`\bnullable\b`)

func newTableField(tb testing.TB, name, typ, constraints string) tableField {
	tb.Helper()
	if name == "" || typ == "" {
		tb.Fatalf("contract: bad field %q of type %q", name, typ)
	}
	return tableField{
		name: name, typ: typ, constraints: constraints,
		nullable:        nullableWord.MatchString(constraints),
		markedMultiLang: strings.Contains(constraints, "multi-language"),
	}
}

// parseContractTable reads the rows "| field | type | constraints | meaning |".
func parseContractTable(tb testing.TB, text string) []tableField {
	tb.Helper()
	var fields []tableField
	for _, row := range strings.Split(strings.TrimSpace(text), "\n") {
		cells := strings.Split(strings.Trim(strings.TrimSpace(row), "|"), "|")
		if len(cells) != 4 {
			tb.Fatalf("contract: row %q has %d cells, want 4", row, len(cells))
		}
		fields = append(fields, newTableField(tb, strings.TrimSpace(cells[0]), strings.TrimSpace(cells[1]), strings.TrimSpace(cells[2])))
	}
	return fields
}

// parseContractProse reads "<item> item: name (type, constraints); ...".
func parseContractProse(tb testing.TB, text string) []tableField {
	tb.Helper()
	_, list, ok := strings.Cut(strings.TrimSuffix(text, "."), " item: ")
	if !ok {
		tb.Fatalf("contract: %q has no item list", text)
	}
	// Split on "; " outside parentheses.
	var entries []string
	depth, start := 0, 0
	for i, ch := range list {
		switch {
		case ch == '(':
			depth++
		case ch == ')':
			depth--
		case ch == ';' && depth == 0:
			entries = append(entries, list[start:i])
			start = i + 1
		}
	}
	entries = append(entries, list[start:])
	var fields []tableField
	for _, e := range entries {
		name, rest, ok := strings.Cut(strings.TrimSpace(e), " (")
		if !ok || !strings.HasSuffix(rest, ")") {
			tb.Fatalf("contract: bad item entry %q", e)
		}
		typ, constraints, _ := strings.Cut(strings.TrimSuffix(rest, ")"), ", ")
		fields = append(fields, newTableField(tb, name, typ, constraints))
	}
	return fields
}

func parseMultiLangList(tb testing.TB, text string) []string {
	tb.Helper()
	_, list, ok := strings.Cut(strings.TrimSuffix(text, "."), " fields: ")
	if !ok {
		tb.Fatalf("contract: %q is not a multi-language list", text)
	}
	return strings.Split(list, ", ")
}

// contractObjects returns every object of the contract, records first.
func contractObjects(tb testing.TB) []contractObject {
	tb.Helper()
	var objects []contractObject
	add := func(path string, fields []tableField) {
		kindName, item, _ := strings.Cut(path, ".")
		kind := Kind(kindName)
		o := contractObject{path: path, kind: kind, item: item, fields: fields}
		prefix := ""
		if item != "" {
			prefix = item + "."
		}
		for _, name := range parseMultiLangList(tb, contractMultiLangLists[kind]) {
			if rest, ok := strings.CutPrefix(name, prefix); ok && !strings.Contains(rest, ".") {
				o.multiLang = append(o.multiLang, rest)
			}
		}
		objects = append(objects, o)
	}
	for _, kind := range Kinds() {
		add(string(kind), parseContractTable(tb, contractTables[string(kind)]))
	}
	for _, path := range slices.Sorted(maps.Keys(contractTables)) {
		if strings.Contains(path, ".") {
			add(path, parseContractTable(tb, contractTables[path]))
		}
	}
	for _, path := range slices.Sorted(maps.Keys(contractItemProse)) {
		add(path, parseContractProse(tb, contractItemProse[path]))
	}
	return objects
}

// TestContractCopy guards the copy of the contract above: every list names
// fields that exist, and a field a table marks multi-language is listed.
func TestContractCopy(t *testing.T) {
	t.Parallel()
	objects := contractObjects(t)
	byPath := map[string]contractObject{}
	for _, o := range objects {
		byPath[o.path] = o
	}
	if len(objects) != 9 {
		t.Errorf("contract: %d objects, want 4 kinds and 5 item types", len(objects))
	}
	for _, kind := range Kinds() {
		for _, name := range parseMultiLangList(t, contractMultiLangLists[kind]) {
			path, field := string(kind), name
			if item, rest, ok := strings.Cut(name, "."); ok {
				path, field = string(kind)+"."+item, rest
			}
			if !slices.ContainsFunc(byPath[path].fields, func(f tableField) bool { return f.name == field }) {
				t.Errorf("contract: multi-language %s of %s is no field of %s", name, kind, path)
			}
		}
	}
	for _, o := range objects {
		for _, f := range o.fields {
			if f.markedMultiLang && !o.isMultiLang(f.name) {
				t.Errorf("contract: %s.%s is marked multi-language but not listed", o.path, f.name)
			}
		}
	}
}

// schemaNode is one decoded JSON Schema object.
type schemaNode = map[string]any

func decodeSchema(tb testing.TB, doc []byte) schemaNode {
	tb.Helper()
	var n schemaNode
	if err := json.Unmarshal(doc, &n); err != nil {
		tb.Fatalf("schema is not JSON: %v", err)
	}
	return n
}

// nodeTypes returns the type keyword as a list.
func nodeTypes(n schemaNode) []string {
	switch t := n["type"].(type) {
	case string:
		return []string{t}
	case []any:
		var types []string
		for _, x := range t {
			s, _ := x.(string)
			types = append(types, s)
		}
		return types
	}
	return nil
}

func nodeProperties(tb testing.TB, where string, n schemaNode) map[string]schemaNode {
	tb.Helper()
	raw, ok := n["properties"].(map[string]any)
	if !ok {
		tb.Fatalf("%s: no properties", where)
	}
	props := make(map[string]schemaNode, len(raw))
	for name, p := range raw {
		node, ok := p.(map[string]any)
		if !ok {
			tb.Fatalf("%s.%s: not a schema object", where, name)
		}
		props[name] = node
	}
	return props
}

// walkSchema calls visit for every schema object in n, with its JSON
// pointer.
func walkSchema(n any, pointer string, visit func(pointer string, n schemaNode)) {
	switch v := n.(type) {
	case map[string]any:
		visit(pointer, v)
		for key, child := range v {
			switch key {
			case "enum", "const", "required", "type":
				continue // values, not schemas
			case "properties", "$defs":
				if m, ok := child.(map[string]any); ok {
					for name, sub := range m {
						walkSchema(sub, pointer+"/"+key+"/"+name, visit)
					}
				}
				continue
			}
			walkSchema(child, pointer+"/"+key, visit)
		}
	case []any:
		for i, child := range v {
			walkSchema(child, pointer+"/"+strconv.Itoa(i), visit)
		}
	}
}

// TestSchemaStructure checks the generated schema of every kind for en,it,de
// against the contract tables and what docs/records.md (JSON Schemas) says
// every schema has.
func TestSchemaStructure(t *testing.T) {
	t.Parallel()
	langs := schemaTestLangs(t)
	objects := contractObjects(t)
	for _, kind := range Kinds() {
		t.Run(string(kind), func(t *testing.T) {
			t.Parallel()
			doc, err := JSONSchema(kind, langs)
			if err != nil {
				t.Fatal(err)
			}
			root := decodeSchema(t, doc)
			checkSchemaTree(t, string(kind)+".schema.json", root)
			if got, _ := json.Marshal(root["required"]); string(got) != `["id"]` {
				t.Errorf("required = %s, want [\"id\"]", got)
			}
			for _, o := range objects {
				if o.kind != kind {
					continue
				}
				node := root
				if o.item != "" {
					items, _ := nodeProperties(t, string(kind), root)[o.item]["items"].(map[string]any)
					if items == nil {
						t.Errorf("%s: no items schema", o.path)
						continue
					}
					node = items
					if _, has := node["required"]; has {
						t.Errorf("%s: items have required %v, want none", o.path, node["required"])
					}
				}
				checkContractObject(t, o, node, langs)
			}
			checkReadWriteOnly(t, string(kind), nodeProperties(t, string(kind), root))
		})
	}
}

// checkSchemaTree checks what holds everywhere in one document: $schema at
// the root only, closed objects, a description on every property.
func checkSchemaTree(tb testing.TB, name string, root schemaNode) {
	tb.Helper()
	if root["$schema"] != schemaDialect {
		tb.Errorf("%s: $schema = %v, want %s", name, root["$schema"], schemaDialect)
	}
	walkSchema(root, "", func(pointer string, n schemaNode) {
		if _, has := n["$schema"]; has && pointer != "" {
			tb.Errorf("%s: $schema at %s, want it at the root only", name, pointer)
		}
		props, ok := n["properties"].(map[string]any)
		if !ok {
			return
		}
		if !slices.Contains(nodeTypes(n), "object") {
			tb.Errorf("%s%s: type %v, want object", name, pointer, n["type"])
		}
		if n["additionalProperties"] != false {
			tb.Errorf("%s%s: additionalProperties = %v, want false", name, pointer, n["additionalProperties"])
		}
		for prop, p := range props {
			d, _ := p.(map[string]any)["description"].(string)
			if strings.TrimSpace(d) == "" {
				tb.Errorf("%s%s/properties/%s: no description", name, pointer, prop)
			}
		}
	})
}

// checkContractObject compares the properties of one object schema with
// its contract table.
func checkContractObject(tb testing.TB, o contractObject, node schemaNode, langs Languages) {
	tb.Helper()
	props := nodeProperties(tb, o.path, node)
	want := map[string]bool{}
	for _, name := range contractExtras[o.path] {
		want[name] = true
	}
	for _, f := range o.fields {
		want[f.name] = true
		p, ok := props[f.name]
		if !ok {
			tb.Errorf("%s.%s: field of the contract is not in the schema", o.path, f.name)
			continue
		}
		checkContractField(tb, o.path+"."+f.name, f, p)
		for _, lang := range langs.All {
			variant := f.name + "_" + lang
			_, has := props[variant]
			switch {
			case lang == langs.Default && has:
				tb.Errorf("%s.%s: %s is the default language, the field has no variant for it", o.path, variant, lang)
			case lang != langs.Default && o.isMultiLang(f.name) && !has:
				tb.Errorf("%s.%s: multi-language field has no variant %s", o.path, f.name, variant)
			case !o.isMultiLang(f.name) && has:
				tb.Errorf("%s.%s: field is not multi-language, yet has %s", o.path, f.name, variant)
			}
			if has {
				want[variant] = true
				if !sameBesidesDescription(p, props[variant]) {
					tb.Errorf("%s.%s: schema differs from %s beyond the description", o.path, variant, f.name)
				}
			}
		}
	}
	for name := range props {
		if !want[name] {
			tb.Errorf("%s.%s: property is not in the contract", o.path, name)
		}
	}
}

func sameBesidesDescription(a, b schemaNode) bool {
	strip := func(n schemaNode) schemaNode {
		c := make(schemaNode, len(n))
		for k, v := range n {
			if k != "description" {
				c[k] = v
			}
		}
		return c
	}
	return reflect.DeepEqual(strip(a), strip(b))
}

var (
	sizeRange = regexp.MustCompile(`\bsize \((-?[0-9]+), (-?[0-9]+|\*)\)`)
	// maxSafeJSONInteger is the bound of integers without an upper size.
	maxSafeJSONInteger = float64(1<<53 - 1)
)

// checkContractField checks type, null, format and size of one property.
func checkContractField(tb testing.TB, where string, f tableField, p schemaNode) {
	tb.Helper()
	types := nodeTypes(p)
	hasNull := slices.Contains(types, "null")
	switch {
	case f.nullable && !hasNull:
		tb.Errorf("%s: nullable in the contract, type %v", where, p["type"])
	case !f.nullable && hasNull && !contractNullExceptions[where]:
		tb.Errorf("%s: not nullable in the contract, type %v", where, p["type"])
	}
	base := slices.DeleteFunc(slices.Clone(types), func(s string) bool { return s == "null" })
	wantType, itemType, format := "", "", ""
	switch f.typ {
	case "string":
		wantType = "string"
	case "uri":
		wantType, format = "string", "uri"
	case "email":
		// net/mail's bare address as a pattern, the rule of contactEmail:
		// format "email" reads another grammar.
		wantType = "string"
		if pat, _ := p["pattern"].(string); pat != emailPattern {
			tb.Errorf("%s: pattern %v, want the net/mail address pattern", where, p["pattern"])
		}
	case "boolean", "number", "integer":
		wantType = f.typ
	case "array of string":
		wantType, itemType = "array", "string"
	case "array of uri":
		wantType, itemType, format = "array", "string", "uri"
	case "array of object":
		wantType, itemType = "array", "object"
	default:
		tb.Fatalf("%s: contract type %q unknown to the test", where, f.typ)
	}
	if len(base) != 1 || base[0] != wantType {
		tb.Errorf("%s: type %v, want %s (contract: %s)", where, p["type"], wantType, f.typ)
	}
	target := p // what format and sizes apply to
	if itemType != "" {
		items, _ := p["items"].(map[string]any)
		if items == nil || !slices.Equal(nodeTypes(items), []string{itemType}) {
			tb.Errorf("%s: items %v, want type %s", where, p["items"], itemType)
			return
		}
		target = items
	}
	if format != "" && target["format"] != format {
		tb.Errorf("%s: format %v, want %s", where, target["format"], format)
	}
	m := sizeRange.FindStringSubmatch(f.constraints)
	if m == nil || itemType != "" {
		return
	}
	lo, _ := strconv.ParseFloat(m[1], 64)
	num := func(key string) (float64, bool) { v, ok := target[key].(float64); return v, ok }
	switch wantType {
	case "string":
		hi, _ := strconv.ParseFloat(m[2], 64)
		if got, _ := num("maxLength"); got != hi {
			tb.Errorf("%s: maxLength %v, want %v (contract: %s)", where, target["maxLength"], hi, f.constraints)
		}
		if got, ok := num("minLength"); (lo > 0 && got != lo) || (lo == 0 && ok && got != 0) {
			tb.Errorf("%s: minLength %v, want %v (contract: %s)", where, target["minLength"], lo, f.constraints)
		}
	case "number", "integer":
		if got, ok := num("minimum"); !ok || got != lo {
			tb.Errorf("%s: minimum %v, want %v (contract: %s)", where, target["minimum"], lo, f.constraints)
		}
		got, ok := num("maximum")
		if m[2] == "*" {
			if ok && got != maxSafeJSONInteger {
				tb.Errorf("%s: maximum %v, want none or %v (contract: %s)", where, target["maximum"], maxSafeJSONInteger, f.constraints)
			}
			break
		}
		hi, _ := strconv.ParseFloat(m[2], 64)
		if !ok || got != hi {
			tb.Errorf("%s: maximum %v, want %v (contract: %s)", where, target["maximum"], hi, f.constraints)
		}
	}
}

// checkReadWriteOnly checks readOnly and writeOnly on a record's
// properties: the stats and timeLastUpdate are read-only, the ...Add lists
// and deleteElementIrreversibly write-only.
func checkReadWriteOnly(tb testing.TB, where string, props map[string]schemaNode) {
	tb.Helper()
	readOnly := []string{"timeLastUpdate", "statsAccess", "statsLastAccess"}
	for name, p := range props {
		wantRO := slices.Contains(readOnly, name)
		wantWO := strings.HasSuffix(name, "Add") || name == "deleteElementIrreversibly"
		if got := p["readOnly"] == true; got != wantRO {
			tb.Errorf("%s.%s: readOnly %v, want %v", where, name, p["readOnly"], wantRO)
		}
		if got := p["writeOnly"] == true; got != wantWO {
			tb.Errorf("%s.%s: writeOnly %v, want %v", where, name, p["writeOnly"], wantWO)
		}
	}
	if _, ok := props["deleteElementIrreversibly"]; !ok {
		tb.Errorf("%s: no deleteElementIrreversibly (every kind has it)", where)
	}
	if _, ok := props["timeLastUpdate"]; !ok {
		tb.Errorf("%s: no timeLastUpdate", where)
	}
}

// TestSchemaMultipleStructure checks schema.multiple.json: an array whose
// items are schema.json without its $schema.
func TestSchemaMultipleStructure(t *testing.T) {
	t.Parallel()
	langs := schemaTestLangs(t)
	for _, kind := range Kinds() {
		single, err := JSONSchema(kind, langs)
		if err != nil {
			t.Fatal(err)
		}
		multi, err := JSONSchemaMultiple(kind, langs)
		if err != nil {
			t.Fatal(err)
		}
		name := string(kind) + ".schema.multiple.json"
		root := decodeSchema(t, multi)
		checkSchemaTree(t, name, root)
		if root["type"] != "array" {
			t.Errorf("%s: type %v, want array", name, root["type"])
		}
		items, _ := root["items"].(map[string]any)
		want := decodeSchema(t, single)
		delete(want, "$schema")
		if !reflect.DeepEqual(items, want) {
			t.Errorf("%s: items differ from %s.schema.json without $schema", name, kind)
		}
	}
}
