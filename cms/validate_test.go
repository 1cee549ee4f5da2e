package cms_test

import (
	"errors"
	"strings"
	"testing"

	"github.com/bwcms/cms/cms"
)

// aliasText is the urlAlias field's problem text.
const aliasText = "must start with / (not //) and contain no spaces, control characters, backslashes, zero-width or bidirectional characters"

func testCodec(tb testing.TB) *cms.Codec {
	tb.Helper()
	langs, err := cms.NewLanguages("en", "en", "it", "de")
	if err != nil {
		tb.Fatal(err)
	}
	c, err := cms.NewCodec(langs)
	if err != nil {
		tb.Fatal(err)
	}
	return c
}

// problemText decodes body as kind and returns the 409 text ("" when valid).
func problemText(tb testing.TB, c *cms.Codec, kind cms.Kind, body string) string {
	tb.Helper()
	err := c.Decode([]byte(body), cms.NewRecord(kind))
	if err == nil {
		return ""
	}
	var e *cms.Error
	if !errors.As(err, &e) || e.Code != cms.CodeInvalid {
		tb.Fatalf("Decode(%s) = %v, want nil or a CodeInvalid *cms.Error", body, err)
	}
	return e.ProblemText()
}

func TestDecodeFieldRules(t *testing.T) {
	t.Parallel()
	c := testCodec(t)
	long := func(n int) string { return strings.Repeat("é", n) }
	tests := []struct {
		name string
		kind cms.Kind
		body string
		want string
	}{
		{"minimal", cms.KindResource, `{"id":"abc"}`, ""},
		{"missing id", cms.KindResource, `{"title":"x"}`, "Resource (no id): id: is required"},
		{"id not a string", cms.KindMap, `{"id":5}`, "Map (no id): id: must be a string"},
		{"id too short", cms.KindResource, `{"id":"ab"}`, "Resource ab: id: must be 3 to 80 characters"},
		{"id too long", cms.KindResource, `{"id":"` + strings.Repeat("a", 81) + `"}`,
			"Resource " + strings.Repeat("a", 81) + ": id: must be 3 to 80 characters"},
		{"id bad character", cms.KindResource, `{"id":"a/b"}`,
			"Resource a/b: id: must be 3 to 80 characters of A-Z a-z 0-9 . _ ~ : @ - not starting with ."},
		{"id starts with dot", cms.KindResource, `{"id":".abc"}`,
			"Resource .abc: id: must be 3 to 80 characters of A-Z a-z 0-9 . _ ~ : @ - not starting with ."},
		{"id reserved", cms.KindLanding, `{"id":"schema.json"}`, "Landing schema.json: id: must not be a path keyword"},
		{"id empty string shown as sent", cms.KindResource, `{"id":""}`, "Resource : id: must be 3 to 80 characters"},
		{"id all allowed characters", cms.KindResource, `{"id":"A-z_0.9~:@x"}`, ""},
		{"title 100 characters", cms.KindResource, `{"id":"abc","title":"` + long(100) + `"}`, ""},
		{"title 101 characters", cms.KindResource, `{"id":"abc","title_it":"` + long(101) + `"}`,
			"Resource abc: title_it: must be at most 100 characters"},
		{"urlAlias too short", cms.KindMap, `{"id":"abc","urlAlias":"/"}`, "Map abc: urlAlias: must be 2 to 500 characters"},
		{"urlAlias shapes", cms.KindMap, `{"id":"abc","urlAlias":"//x","urlAlias_it":"/a b","urlAlias_de":"ab"}`,
			"Map abc: urlAlias: must start with / (not //) and contain no spaces, control characters, backslashes, zero-width or bidirectional characters\n" +
				"Map abc: urlAlias_it: must start with / (not //) and contain no spaces, control characters, backslashes, zero-width or bidirectional characters\n" +
				"Map abc: urlAlias_de: must start with / (not //) and contain no spaces, control characters, backslashes, zero-width or bidirectional characters"},
		{"urlAlias with a backslash, a control or a bidirectional override", cms.KindResource,
			`{"id":"abc","urlAlias":"/\\evil.example","urlAlias_it":"/\u202Egpj.exe","urlAlias_de":"/a\u0007b"}`,
			"Resource abc: urlAlias: " + aliasText + "\n" +
				"Resource abc: urlAlias_it: " + aliasText + "\n" +
				"Resource abc: urlAlias_de: " + aliasText},
		{"urlAlias with bidirectional isolates and embeddings", cms.KindMap,
			`{"id":"abc","urlAlias":"/a\u2066b","urlAlias_it":"/a\u202Ab","urlAlias_de":"/x\\"}`,
			"Map abc: urlAlias: " + aliasText + "\n" + "Map abc: urlAlias_it: " + aliasText + "\n" +
				"Map abc: urlAlias_de: " + aliasText},
		{"urlAlias with other Unicode", cms.KindMap, `{"id":"abc","urlAlias":"/caff\u00e8/\u0645\u0631\u062d\u0628\u0627"}`, ""},
		{"wrong JSON types", cms.KindResource, `{"id":"abc","title":1,"published":"yes","mapIds":{},"locationLat":"1","multimedia":["http://a.b/c.png",2]}`,
			"Resource abc: title: must be a string\n" +
				"Resource abc: published: must be a boolean\n" +
				"Resource abc: mapIds: must be an array of strings or null\n" +
				"Resource abc: locationLat: must be a number or null\n" +
				"Resource abc: multimedia[1]: must be a string"},
		{"null where not nullable", cms.KindMap, `{"id":"abc","title":null,"published":null,"urlAlias_it":null,"tourMultiday":null,"routePlannerWidth":null}`,
			"Map abc: title: must not be null\nMap abc: published: must not be null\nMap abc: urlAlias_it: must not be null\n" +
				"Map abc: tourMultiday: must not be null\nMap abc: routePlannerWidth: must not be null"},
		{"nulls where nullable", cms.KindResource, `{"id":"abc","shortDescription_de":null,"image":null,"mapIds":null,"locationZoom":null,"ctaOnMap":null}`, ""},
		{"unknown fields", cms.KindResource, `{"id":"abc","colour":1,"title_en":"x","title_fr":"x","Title":"x"}`,
			"Resource abc: colour: unknown field\nResource abc: title_en: unknown field\n" +
				"Resource abc: title_fr: unknown field\nResource abc: Title: unknown field"},
		{"nested item on the wrong kind", cms.KindResource, `{"id":"abc","tourMultiday":[]}`, "Resource abc: tourMultiday: unknown field"},
		{"latitude range", cms.KindResource, `{"id":"abc","locationLat":90,"locationLon":-180.5}`,
			"Resource abc: locationLon: must be between -180 and 180"},
		{"zoom integer range", cms.KindResource, `{"id":"abc","locationZoom":1}`, "Resource abc: locationZoom: must be an integer between 2 and 25"},
		{"zoom fraction", cms.KindMap, `{"id":"abc","mapMaxAutozoom":2.5}`, "Map abc: mapMaxAutozoom: must be an integer"},
		{"zoom 3.0 is an integer", cms.KindMap, `{"id":"abc","mapMaxAutozoom":3.0,"locationZoom":2e1}`, ""},
		{"huge number", cms.KindResource, `{"id":"abc","locationLat":1e400,"trackDurationMinutes":1e400,"resourceType":"TRACK"}`,
			"Resource abc: locationLat: must be between -90 and 90\n" +
				"Resource abc: trackDurationMinutes: must be an integer between 1 and 9007199254740991"},
		{"unbounded integers", cms.KindResource, `{"id":"abc","resourceType":"TRACK","trackDurationMinutes":0,"trackSlopeUp":-1,"trackSlopeDown":0}`,
			"Resource abc: trackDurationMinutes: must be an integer between 1 and 9007199254740991\n" +
				"Resource abc: trackSlopeUp: must be an integer between 0 and 9007199254740991"},
		{"trackDifficulty", cms.KindResource, `{"id":"abc","resourceType":"TRACK","trackDifficulty":6}`,
			"Resource abc: trackDifficulty: must be one of 1, 2, 3, 4, 5"},
		{"routePlannerWidth", cms.KindMap, `{"id":"abc","routePlannerWidth":4.5}`, "Map abc: routePlannerWidth: must be between 1 and 4"},
		{"routePlannerColor", cms.KindMap, `{"id":"abc","routePlannerColor":"#abc"}`, "Map abc: routePlannerColor: must be a colour of shape #RRGGBB"},
		{"routePlannerColor ok", cms.KindMap, `{"id":"abc","routePlannerColor":"#A0b1C2"}`, ""},
		{"dayLabels", cms.KindMap, `{"id":"abc","tourMultiday":[{"dayLabels":["D1","D12"]},{"dayLabels":["D0","d1"]}]}`,
			"Map abc: tourMultiday[1].dayLabels[0]: must be a day label of shape D1, D2, ...\n" +
				"Map abc: tourMultiday[1].dayLabels[1]: must be a day label of shape D1, D2, ..."},
		{"nested item problems", cms.KindLanding, `{"id":"abc","landingBlocks":[{"title_it":"` + long(201) + `","extra":1},3]}`,
			"Landing abc: landingBlocks[0].extra: unknown field\n" +
				"Landing abc: landingBlocks[1]: must be an object\n" +
				"Landing abc: landingBlocks[0].title_it: must be at most 200 characters"},
		{"uri", cms.KindResource, `{"id":"abc","contactUrl":"ftp://x.org","ctaUrl":"/relative","externalUrl":"","canonicalUrl_it":"https://x.org/a b"}`,
			"Resource abc: canonicalUrl_it: must be an absolute http or https URL\n" +
				"Resource abc: externalUrl: must be an absolute http or https URL\n" +
				"Resource abc: contactUrl: must be an absolute http or https URL\n" +
				"Resource abc: ctaUrl: must be an absolute http or https URL"},
		{"uri ok", cms.KindResource, `{"id":"abc","contactUrl":"HTTPS://Example.org/a?b=c#d","ctaUrl":"http://x.org"}`, ""},
		{"image extensions", cms.KindResource, `{"id":"abc","image":"https://x.org/a.JPEG?v=2#top","multimedia":["http://x.org/a.webp","http://x.org/a.gif","http://x.org"]}`,
			"Resource abc: multimedia[1]: must be an http or https URL of a .jpg, .jpeg, .png or .webp file\n" +
				"Resource abc: multimedia[2]: must be an http or https URL of a .jpg, .jpeg, .png or .webp file"},
		{"layer and track files", cms.KindResource, `{"id":"abc","resourceType":"TRACK","mapLayerFile":"https://x.org/l.gpx","trackFile":"https://x.org/t.kmz"}`,
			"Resource abc: mapLayerFile: must be an http or https URL of a .kml or .kmz file\n" +
				"Resource abc: trackFile: must be an http or https URL of a .gpx or .kml file"},
		{"layer and track files ok", cms.KindResource, `{"id":"abc","resourceType":"TRACK","mapLayerFile":"https://x.org/l.KMZ","trackFile":"https://x.org/t.gpx?x=1"}`, ""},
		{"email", cms.KindResource, `{"id":"abc","contactEmail":"Name <a@example.com>"}`, "Resource abc: contactEmail: must be an e-mail address"},
		{"email ok", cms.KindResource, `{"id":"abc","contactEmail":"a.b@example.com"}`, ""},
		{"names written with escapes", cms.KindResource, `{"\u0069d":"abc","t\u0069tle_it":"x","\u0078":1}`, "Resource abc: x: unknown field"},
		// net/mail's bare addresses, also the rare forms.
		{"email quoted local part", cms.KindResource, `{"id":"abc","contactEmail":"\"john doe\"@example.com"}`, ""},
		{"email long local part", cms.KindResource, `{"id":"abc","contactEmail":"` + strings.Repeat("a", 65) + `@example.com"}`, ""},
		{"email dotless domain", cms.KindResource, `{"id":"abc","contactEmail":"a@localhost"}`, ""},
		{"email IPv4 literal", cms.KindResource, `{"id":"abc","contactEmail":"a@[192.0.2.1]"}`, ""},
		{"email comment", cms.KindResource, `{"id":"abc","contactEmail":"a@example.com (office)"}`,
			"Resource abc: contactEmail: must be an e-mail address"},
		{"numbers judged exactly", cms.KindResource, `{"id":"abc","locationLat":90.00000000000000001,"locationZoom":2.0000000000000001}`,
			"Resource abc: locationLat: must be between -90 and 90\nResource abc: locationZoom: must be an integer"},
		{"URL hosts", cms.KindResource, `{"id":"abc","image":"https://[fe80::1%25en0]/a.jpg","ctaUrl":"https://:80/a"}`,
			"Resource abc: image: must be an http or https URL of a .jpg, .jpeg, .png or .webp file\n" +
				"Resource abc: ctaUrl: must be an absolute http or https URL"},
		{"urlAlias Unicode spaces", cms.KindMap, `{"id":"abc","urlAlias":"/a\u00a0b","urlAlias_it":"/a\u3000b","urlAlias_de":"/a\u0085b"}`,
			"Map abc: urlAlias: must start with / (not //) and contain no spaces, control characters, backslashes, zero-width or bidirectional characters\n" +
				"Map abc: urlAlias_it: must start with / (not //) and contain no spaces, control characters, backslashes, zero-width or bidirectional characters\n" +
				"Map abc: urlAlias_de: must start with / (not //) and contain no spaces, control characters, backslashes, zero-width or bidirectional characters"},
		{"expireDate", cms.KindProposal, `{"id":"abc","expireDate":"2026-02-30"}`, "Proposal abc: expireDate: must be a date of shape YYYY-MM-DD"},
		{"expireDate ok", cms.KindProposal, `{"id":"abc","expireDate":"2028-02-29"}`, ""},
		{"customerId size", cms.KindProposal, `{"id":"abc","customerId":"ab"}`, "Proposal abc: customerId: must be 3 to 80 characters"},
		{"references", cms.KindMap, `{"id":"abc","resourceIds":["r-1","x"],"trackResourceId":"a b"}`,
			"Map abc: resourceIds[1]: must be a record id\nMap abc: trackResourceId: must be a record id"},
		{"single reference may be empty", cms.KindLanding, `{"id":"abc","mapId":""}`, ""},
		{"term ids", cms.KindResource, `{"id":"abc","resourceCategories":["c1",""],"resourceRegions":["` + strings.Repeat("r", 101) + `"]}`,
			"Resource abc: resourceCategories[1]: must be 1 to 100 characters\nResource abc: resourceRegions[0]: must be 1 to 100 characters"},
		{"both roles in one body", cms.KindResource, `{"id":"abc","mapIds":["m-1"],"mapSecondaryIdsAdd":["m-2","m-1"]}`,
			"Resource abc: mapSecondaryIdsAdd[1]: Map m-1 is also given as PRIMARY"},
		{"both roles on a Map", cms.KindMap, `{"id":"abc","resourceIdsAdd":["r-1"],"secondaryResourceIds":["r-1"]}`,
			"Map abc: secondaryResourceIds[0]: Resource r-1 is also given as PRIMARY"},
		{"read-only fields with their shape", cms.KindProposal, `{"id":"abc","timeLastUpdate":"2026-01-01 10:00:00","statsAccess":3,"statsLastAccess":null}`, ""},
		{"read-only fields of the wrong shape", cms.KindProposal, `{"id":"abc","timeLastUpdate":"yesterday","statsAccess":-1}`,
			"Proposal abc: timeLastUpdate: must be a time of shape YYYY-MM-DD HH:MM:SS\nProposal abc: statsAccess: must be an integer between 0 and 9007199254740991"},
		{"statsAccess beyond 2^53-1", cms.KindProposal, `{"id":"abc","statsAccess":9007199254740992}`,
			"Proposal abc: statsAccess: must be an integer between 0 and 9007199254740991"},
		{"write-only fields", cms.KindResource, `{"id":"abc","mapIdsAdd":["m-1"],"deleteElementIrreversibly":true}`, ""},
		{"NUL character", cms.KindResource, `{"id":"abc","title_de":"a\u0000b","resourceCategories":["c\u0000"],"contactEmail":"a\u0000@b.org"}`,
			"Resource abc: title_de: must not contain the NUL character\n" +
				"Resource abc: resourceCategories[0]: must not contain the NUL character\n" +
				"Resource abc: contactEmail: must be an e-mail address"},
		{"free text size", cms.KindResource, `{"id":"abc","resourceType":"` + strings.Repeat("t", 101) + `"}`,
			"Resource abc: resourceType: must be at most 100 characters"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			if got := problemText(t, c, tt.kind, tt.body); got != tt.want {
				t.Errorf("problems:\n got: %s\nwant: %s", got, tt.want)
			}
		})
	}
}

func TestValidateTrackOnlyFields(t *testing.T) {
	t.Parallel()
	c := testCodec(t)
	r := &cms.Resource{
		ID:              "poi-1",
		ResourceType:    cms.Some("POI"),
		TrackDifficulty: cms.NullOf[int64](2),
		TrackCircular:   cms.Nil[bool](), // null is never a problem
		TrackStart:      cms.Langs[cms.Null[string]]{"it": cms.NullOf("Lago"), "en": cms.Nil[string]()},
		TrackFile:       cms.NullOf("https://x.org/t.gpx"),
	}
	err := c.Validate(r)
	want := "Resource poi-1: trackDifficulty: allowed only when resourceType is TRACK\n" +
		"Resource poi-1: trackStart_it: allowed only when resourceType is TRACK\n" +
		"Resource poi-1: trackFile: allowed only when resourceType is TRACK"
	var e *cms.Error
	if !errors.As(err, &e) || e.Code != cms.CodeInvalid || e.ProblemText() != want {
		t.Fatalf("Validate = %v\nwant problems:\n%s", err, want)
	}
	r.ResourceType = cms.Some(cms.ResourceTypeTrack)
	if err := c.Validate(r); err != nil {
		t.Fatalf("Validate of a TRACK = %v, want nil", err)
	}
}

func TestValidateGoRecord(t *testing.T) {
	t.Parallel()
	c := testCodec(t)
	m := &cms.Map{
		Title:        cms.Langs[string]{"en": "ok", "fr": "unknown language"},
		LocationZoom: cms.NullOf[int64](30),
		TourMultiday: cms.Some([]cms.TourDay{{DayLabels: cms.Some([]string{"D1", "Day 2"})}}),
	}
	want := "Map (no id): id: is required\nMap (no id): title_fr: unknown field\n" +
		"Map (no id): locationZoom: must be an integer between 2 and 25\n" +
		"Map (no id): tourMultiday[0].dayLabels[1]: must be a day label of shape D1, D2, ..."
	var e *cms.Error
	if err := c.Validate(m); !errors.As(err, &e) || e.ProblemText() != want {
		t.Fatalf("Validate = %v\nwant problems:\n%s", err, want)
	}
}

func TestDecodeMalformed(t *testing.T) {
	t.Parallel()
	c := testCodec(t)
	deep := func(n int) string {
		return `{"id":"abc","x":` + strings.Repeat("[", n-1) + strings.Repeat("]", n-1) + `}`
	}
	tests := []struct {
		name string
		body string
	}{
		{"empty", ``},
		{"not JSON", `id=abc`},
		{"array", `[{"id":"abc"}]`},
		{"string", `"abc"`},
		{"null", `null`},
		{"trailing value", `{"id":"abc"} {}`},
		{"trailing garbage after a content problem", `{"id":"a"}x`},
		{"duplicate key", `{"id":"abc","title":"a","title":"b"}`},
		{"duplicate key in a nested item", `{"id":"abc","tourMultiday":[{"image":null,"image":null}]}`},
		{"duplicate key written with an escape", `{"id":"abc","\u0069d":"abd"}`},
		{"duplicate language variant", `{"id":"abc","title_it":"a","title_it":"b"}`},
		{"duplicate unknown key", `{"id":"abc","x":1,"x":2}`},
		{"duplicate key inside an unknown field", `{"id":"abc","x":{"a":1,"a":2}}`},
		{"duplicate key inside a value of the wrong type", `{"id":"abc","title":[{"a":1,"a":2}]}`},
		{"duplicate key in the second nested item", `{"id":"abc","tourMultiday":[{"image":null},{"title":"a","title":"b"}]}`},
		{"invalid UTF-8", "{\"id\":\"abc\",\"title\":\"\xff\"}"},
		{"lone surrogate", `{"id":"abc","title":"\ud800"}`},
		{"depth 33", deep(33)},
		{"unterminated", `{"id":"abc"`},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			var r cms.Map
			err := c.Decode([]byte(tt.body), &r)
			if got := cms.ErrorCode(err); got != cms.CodeMalformed {
				t.Fatalf("Decode(%q) = %v, want code %q", tt.body, err, cms.CodeMalformed)
			}
		})
	}
	// 32 levels (the record object and 31 nested arrays) are allowed; the
	// unknown field is then the only problem.
	if got := problemText(t, c, cms.KindMap, deep(32)); got != "Map abc: x: unknown field" {
		t.Fatalf("depth 32: got %q", got)
	}
}

func TestProblemID(t *testing.T) {
	t.Parallel()
	p := cms.Problem{Kind: cms.KindProposal, ID: "(no id)", Field: "hotels[0].title_de", Text: "must be at most 200 characters"}
	if got, want := p.String(), "Proposal (no id): hotels[0].title_de: must be at most 200 characters"; got != want {
		t.Fatalf("got %q, want %q", got, want)
	}
}
