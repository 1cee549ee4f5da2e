package cms

import (
	"bytes"
	"errors"
	"fmt"
	"strings"
	"sync"
	"testing"

	"github.com/santhosh-tekuri/jsonschema/v6"
)

// The Go validator (Codec.Decode) and the generated JSON Schemas, read by an
// independent validator (santhosh-tekuri/jsonschema, formats asserted), must
// give every body the same verdict, and the verdict each fixture states.
//
// Left out, because the schema cannot state them: syntax (duplicate keys,
// depth, UTF-8; Decode answers CodeMalformed), TRACK-only fields (judged on
// the merged record, so fixtures that set them say resourceType TRACK), an
// id in both roles of one Resource-Map assignment, and storage rules.

// agreementFixture is a body and its verdict, which both sides must give.
type agreementFixture struct {
	kind  Kind
	name  string
	body  string
	valid bool
}

// agreementFixtures also seed FuzzDecode.
var agreementFixtures = buildAgreementFixtures()

func rep(s string, n int) string { return strings.Repeat(s, n) }

// fixtureSet collects the fixtures of one kind.
type fixtureSet struct {
	kind Kind
	list []agreementFixture
}

func (s *fixtureSet) ok(name, body string) {
	s.list = append(s.list, agreementFixture{kind: s.kind, name: name, body: body, valid: true})
}

func (s *fixtureSet) bad(name, body string) {
	s.list = append(s.list, agreementFixture{kind: s.kind, name: name, body: body})
}

// field returns a body of id abc with one more member; value is raw JSON.
func field(name, value string) string { return `{"id":"abc","` + name + `":` + value + `}` }

// str quotes s as a JSON string (s holds no quote, backslash or control
// character; fixtures that need them write the escape themselves).
func str(s string) string { return `"` + s + `"` }

func buildAgreementFixtures() []agreementFixture {
	var all []agreementFixture
	for _, kind := range Kinds() {
		s := &fixtureSet{kind: kind}
		commonFixtures(s)
		switch kind {
		case KindResource:
			resourceFixtures(s)
		case KindMap:
			mapFixtures(s)
		case KindLanding:
			landingFixtures(s)
		case KindProposal:
			proposalFixtures(s)
		}
		all = append(all, s.list...)
	}
	return all
}

// commonFixtures are the rules every kind shares: id, title, urlAlias,
// published, image, ctaUrl, timeLastUpdate, deleteElementIrreversibly,
// unknown fields and languages.
func commonFixtures(s *fixtureSet) {
	s.ok("minimal", `{"id":"abc"}`)
	s.ok("id 80", `{"id":"`+rep("a", 80)+`"}`)
	s.ok("id every character", `{"id":"A-z_0.9~:@x"}`)
	s.ok("id dot inside", `{"id":"a.b"}`)
	s.ok("id starts with -", `{"id":"-ab"}`)
	s.bad("missing id", `{}`)
	s.bad("missing id with fields", `{"title":"no id","published":true}`)
	s.bad("id null", `{"id":null}`)
	s.bad("id number", `{"id":123}`)
	s.bad("id array", `{"id":["abc"]}`)
	s.bad("id empty", `{"id":""}`)
	s.bad("id too short", `{"id":"ab"}`)
	s.bad("id too long", `{"id":"`+rep("a", 81)+`"}`)
	s.bad("id space", `{"id":"a b"}`)
	s.bad("id slash", `{"id":"a/b"}`)
	s.bad("id hash", `{"id":"ab#"}`)
	s.bad("id comma", `{"id":"a,b"}`)
	s.bad("id non-ASCII", `{"id":"abé"}`)
	s.bad("id newline", `{"id":"abc\n"}`)
	s.bad("id starts with dot", `{"id":".abc"}`)
	s.bad("id reserved published", `{"id":"published"}`)
	s.bad("id reserved schema.json", `{"id":"schema.json"}`)
	s.bad("id reserved schema.multiple.json", `{"id":"schema.multiple.json"}`)
	s.bad("id reserved batch", `{"id":"batch"}`)
	s.bad("id reserved excludeFiles", `{"id":"excludeFiles"}`)

	// Sizes count Unicode characters, not bytes.
	s.ok("title 100 two-byte", field("title", str(rep("é", 100))))
	s.ok("title_it 100 three-byte", field("title_it", str(rep("日", 100))))
	s.ok("title_de 100 four-byte", field("title_de", str(rep("😀", 100))))
	s.ok("title empty", field("title", `""`))
	s.bad("title 101 two-byte", field("title", str(rep("é", 101))))
	s.bad("title_it 101", field("title_it", str(rep("ü", 101))))
	s.bad("title_de 101 four-byte", field("title_de", str(rep("😀", 101))))
	s.bad("title NUL", field("title", `"a\u0000b"`))

	// JSON types and null.
	s.bad("title number", field("title", `1`))
	s.bad("title boolean", field("title", `true`))
	s.bad("title array", field("title", `["x"]`))
	s.bad("title object", field("title", `{"en":"x"}`))
	s.bad("title null", field("title", `null`))
	s.bad("title_it null", field("title_it", `null`))
	s.ok("published true", field("published", `true`))
	s.bad("published string", field("published", `"yes"`))
	s.bad("published number", field("published", `1`))
	s.bad("published null", field("published", `null`))
	s.ok("shortDescription null", `{"id":"abc","shortDescription":null,"shortDescription_it":null,"shortDescription_de":"x"}`)
	s.bad("shortDescription number", field("shortDescription", `5`))

	// Unknown fields and languages.
	s.bad("unknown field", field("colour", `"red"`))
	s.bad("field name case", field("Title", `"x"`))
	s.bad("unknown language", field("title_fr", `"x"`))
	s.bad("default language suffix", field("title_en", `"x"`))
	s.bad("suffix on a single-language field", field("published_it", `true`))
	s.bad("suffix on id", `{"id":"abc","id_de":"abd"}`)

	// urlAlias.
	s.ok("urlAlias", field("urlAlias", `"/a"`))
	s.ok("urlAlias languages", `{"id":"abc","urlAlias":"/castle","urlAlias_it":"/castello?x=1#y","urlAlias_de":"/schlöss"}`)
	s.ok("urlAlias 500", field("urlAlias", str("/"+rep("a", 499))))
	s.bad("urlAlias 501", field("urlAlias", str("/"+rep("a", 500))))
	s.bad("urlAlias / too short", field("urlAlias", `"/"`))
	s.bad("urlAlias //", field("urlAlias", `"//x"`))
	s.bad("urlAlias space", field("urlAlias", `"/a b"`))
	s.bad("urlAlias tab", field("urlAlias", `"/a\tb"`))
	s.bad("urlAlias DEL", field("urlAlias", `"/a\u007fb"`))
	s.bad("urlAlias relative", field("urlAlias", `"a"`))
	s.bad("urlAlias_de relative", field("urlAlias_de", `"ab"`))
	s.bad("urlAlias with scheme", field("urlAlias", `"https://x.org/a"`))
	s.bad("urlAlias empty", field("urlAlias", `""`))
	s.bad("urlAlias null", field("urlAlias", `null`))
	s.bad("urlAlias_it null", field("urlAlias_it", `null`))
	// The urlAlias rule says no whitespace, the rule text no control
	// character; both validators only exclude ASCII ones.
	s.bad("urlAlias no-break space", field("urlAlias", `"/a\u00a0b"`))
	s.bad("urlAlias ideographic space", field("urlAlias", `"/a\u3000b"`))
	s.bad("urlAlias line separator", field("urlAlias", `"/a\u2028b"`))
	s.bad("urlAlias byte order mark", field("urlAlias", `"/\ufeffa"`))
	s.ok("urlAlias non-ASCII letters", field("urlAlias", `"/caffè/città"`))
	s.bad("urlAlias C1 control NEL", field("urlAlias", `"/a\u0085b"`))

	// image: http(s) URL of a .jpg/.jpeg/.png/.webp file.
	s.ok("image jpg", field("image", `"https://x.org/a.jpg"`))
	s.ok("image JPEG query fragment", field("image", `"https://x.org/dir/a.JPEG?v=2#top"`))
	s.ok("image png query", field("image", `"http://x.org/a.png?w=1&h=2"`))
	s.ok("image webp fragment", field("image", `"https://x.org/a.webp#f"`))
	s.ok("image uppercase scheme", field("image", `"HTTP://X.ORG/A.Jpg"`))
	s.ok("image port and userinfo", field("image", `"https://u@x.org:8080/a.jpeg"`))
	s.ok("image null", field("image", `null`))
	s.bad("image gif", field("image", `"https://x.org/a.gif"`))
	s.bad("image no path", field("image", `"https://x.org"`))
	s.bad("image root path", field("image", `"https://x.org/"`))
	s.bad("image extension in query only", field("image", `"https://x.org?a.jpg"`))
	s.bad("image extension then slash", field("image", `"https://x.org/a.png/"`))
	s.bad("image longer extension", field("image", `"https://x.org/a.pngx"`))
	s.bad("image jpe", field("image", `"https://x.org/a.jpe"`))
	s.bad("image ftp", field("image", `"ftp://x.org/a.jpg"`))
	s.bad("image relative", field("image", `"/a.jpg"`))
	s.bad("image empty", field("image", `""`))
	s.bad("image space", field("image", `"https://x.org/a b.jpg"`))
	s.bad("image bad escape", field("image", `"https://x.org/a%zz.jpg"`))
	s.bad("image number", field("image", `1`))
	// An IPv6 zone: net/url takes it, the uri format (RFC 3986) does not.
	s.bad("image IPv6 zone", field("image", `"https://[fe80::1%25en0]/a.jpg"`))
	// An empty host: RFC 9110 forbids it in http(s) URIs.
	s.bad("image empty host", field("image", `"https://:80/a.jpg"`))
	s.bad("image empty host with userinfo", field("image", `"https://u@/a.jpg"`))
	s.bad("image port not a number", field("image", `"https://x.org:8o/a.jpg"`))
	s.ok("image IPv6 host and port", field("image", `"https://[2001:db8::1]:8443/a.png"`))

	// ctaUrl: absolute http(s) URL.
	s.ok("ctaUrl", field("ctaUrl", `"HTTP://Example.org/a?b=c#d"`))
	s.ok("ctaUrl host only", field("ctaUrl", `"https://x.org"`))
	s.ok("ctaUrl null", field("ctaUrl", `null`))
	s.bad("ctaUrl ftp", field("ctaUrl", `"ftp://x.org"`))
	s.bad("ctaUrl relative", field("ctaUrl", `"/relative"`))
	s.bad("ctaUrl no scheme", field("ctaUrl", `"x.org/a"`))
	s.bad("ctaUrl empty", field("ctaUrl", `""`))
	s.bad("ctaUrl space", field("ctaUrl", `"https://x.org/a b"`))
	s.bad("ctaUrl space in host", field("ctaUrl", `"https://x y.org/"`))
	s.bad("ctaUrl bad port", field("ctaUrl", `"https://x.org:abc/"`))
	s.bad("ctaUrl javascript", field("ctaUrl", `"javascript:alert(1)"`))
	s.bad("ctaUrl boolean", field("ctaUrl", `true`))
	// Bracketed hosts are IPv6 addresses, checked as such by both sides.
	s.ok("ctaUrl IPv4-mapped IPv6 host", field("ctaUrl", `"https://[::ffff:192.0.2.1]/a"`))
	s.bad("ctaUrl IPv6 host not an address", field("ctaUrl", `"https://[::::]/a"`))
	s.bad("ctaUrl IPv6 host without a colon", field("ctaUrl", `"https://[1]/a"`))
	s.bad("ctaUrl IPv4 host in brackets", field("ctaUrl", `"https://[192.0.2.1]/a"`))
	s.bad("ctaUrl IPv6 zone", field("ctaUrl", `"https://[fe80::1%25eth0]:8080/a"`))
	s.bad("ctaUrl empty host", field("ctaUrl", `"https://:443"`))
	s.bad("ctaUrl two ports", field("ctaUrl", `"https://x.org:8080:80/a"`))
	s.bad("ctaUrl percent-encoded host", field("ctaUrl", `"https://%41.org/a"`))

	// Read-only fields: accepted (and ignored) with the right shape.
	s.ok("timeLastUpdate", field("timeLastUpdate", `"2026-01-01 10:00:00"`))
	s.bad("timeLastUpdate ISO", field("timeLastUpdate", `"2026-01-01T10:00:00"`))
	s.bad("timeLastUpdate date only", field("timeLastUpdate", `"2026-01-01"`))
	s.bad("timeLastUpdate number", field("timeLastUpdate", `1767261600`))
	s.bad("timeLastUpdate null", field("timeLastUpdate", `null`))

	// Write-only.
	s.ok("deleteElementIrreversibly true", field("deleteElementIrreversibly", `true`))
	s.ok("deleteElementIrreversibly false", field("deleteElementIrreversibly", `false`))
	s.bad("deleteElementIrreversibly string", field("deleteElementIrreversibly", `"true"`))
	s.bad("deleteElementIrreversibly null", field("deleteElementIrreversibly", `null`))
}

// emailFixtures: contactEmail is "a bare address that net/mail accepts"
// (docs/records.md, Choices where the contract is silent); the schema says
// format email. The two grammars differ.
func emailFixtures(s *fixtureSet) {
	s.ok("contactEmail", field("contactEmail", `"a@example.com"`))
	s.ok("contactEmail plus", field("contactEmail", `"first.last+tag@sub.example.org"`))
	s.ok("contactEmail dotless domain", field("contactEmail", `"a@localhost"`))
	s.ok("contactEmail IPv4 literal", field("contactEmail", `"a@[127.0.0.1]"`))
	s.ok("contactEmail null", field("contactEmail", `null`))
	s.bad("contactEmail with name", field("contactEmail", `"Name <a@example.com>"`))
	s.bad("contactEmail angle brackets", field("contactEmail", `"<a@example.com>"`))
	s.bad("contactEmail no at", field("contactEmail", `"no-at"`))
	s.bad("contactEmail two ats", field("contactEmail", `"a@b@example.com"`))
	s.bad("contactEmail space", field("contactEmail", `"a b@example.com"`))
	s.bad("contactEmail leading space", field("contactEmail", `" a@example.com"`))
	s.bad("contactEmail comment", field("contactEmail", `"a@example.com (c)"`))
	s.bad("contactEmail double dot", field("contactEmail", `"a..b@example.com"`))
	s.bad("contactEmail leading dot", field("contactEmail", `".a@example.com"`))
	s.bad("contactEmail empty", field("contactEmail", `""`))
	s.bad("contactEmail number", field("contactEmail", `5`))
	// net/mail's grammar, not format "email"'s.
	s.ok("contactEmail underscore in domain", field("contactEmail", `"a@exa_mple.com"`))
	s.ok("contactEmail domain label starts with -", field("contactEmail", `"a@-x.com"`))
	s.ok("contactEmail non-ASCII local part", field("contactEmail", `"ü@example.com"`))
	s.ok("contactEmail non-ASCII domain", field("contactEmail", `"a@exämple.com"`))
	s.ok("contactEmail local part 65", field("contactEmail", str(rep("a", 65)+"@example.com")))
	s.ok("contactEmail domain label 64", field("contactEmail", str("a@"+rep("b", 64)+".com")))
	s.ok("contactEmail 255 characters", field("contactEmail", str(rep("a", 60)+"@"+rep("b", 60)+"."+rep("c", 60)+"."+rep("d", 60)+"."+rep("e", 11))))
	s.bad("contactEmail trailing dot", field("contactEmail", `"a@example.com."`))
	s.bad("contactEmail IPv6 literal", field("contactEmail", `"a@[IPv6:::1]"`))
	s.ok("contactEmail quoted local part", field("contactEmail", `"\"john\"@example.com"`))
	s.ok("contactEmail quoted local part with space", field("contactEmail", `"\"john doe\"@example.com"`))
	s.ok("contactEmail quoted pair", field("contactEmail", `"\"a\\\"b\"@example.com"`))
	s.bad("contactEmail empty quotes", field("contactEmail", `"\"\"@example.com"`))
	s.bad("contactEmail IPv4 octet 256", field("contactEmail", `"a@[256.0.0.1]"`))
	s.bad("contactEmail IPv6 literal without tag", field("contactEmail", `"a@[::1]"`))
	s.bad("contactEmail space after at", field("contactEmail", `"a@ example.com"`))
	s.bad("contactEmail tab", field("contactEmail", `"a\t@example.com"`))
	s.bad("contactEmail trailing newline", field("contactEmail", `"a@example.com\n"`))
	s.bad("contactEmail dot before at", field("contactEmail", `"a.@example.com"`))
	s.bad("contactEmail empty local part", field("contactEmail", `"@example.com"`))
	s.bad("contactEmail empty label", field("contactEmail", `"a@example..com"`))
	s.ok("contactEmail every atext character", field("contactEmail", "\"!#$%&'*+-/=?^_`{|}~.A-Z@example.org\""))
	s.ok("contactEmail single-label domain", field("contactEmail", `"a@b"`))
}

// list is a JSON array of n copies of the JSON value item.
func list(n int, item string) string { return "[" + strings.TrimSuffix(rep(item+",", n), ",") + "]" }

// boundFixtures are the bounds DECISIONS §13 sets where the contract gives
// none: 2,000 characters for a URL field, 100 items for multimedia and the
// lists of category, region, stage or label ids.
func boundFixtures(s *fixtureSet, urls, lists []string) {
	image := func(n int) string { return str("https://x.org/" + rep("a", n-len("https://x.org/.jpg")) + ".jpg") }
	for _, name := range urls {
		s.ok(name+" 2000", field(name, image(2000)))
		s.bad(name+" 2001", field(name, image(2001)))
	}
	for _, name := range lists {
		item := str("t")
		if name == "multimedia" {
			item = image(30)
		}
		s.ok(name+" 100 items", field(name, list(100, item)))
		s.bad(name+" 101 items", field(name, list(101, item)))
	}
}

func resourceFixtures(s *fixtureSet) {
	boundFixtures(s, []string{"image"}, []string{"multimedia", "resourceCategories", "resourceRegions", "resourceStage"})
	s.ok("multimedia item 2000", field("multimedia", "["+str("https://x.org/"+rep("a", 1982)+".jpg")+"]"))
	s.bad("multimedia item 2001", field("multimedia", "["+str("https://x.org/"+rep("a", 1983)+".jpg")+"]"))
	s.bad("trackFile 2001", `{"id":"abc","resourceType":"TRACK","trackFile":"https://x.org/`+rep("a", 1983)+`.gpx"}`)
	s.ok("poiResourceIds 150", field("poiResourceIds", list(150, str("r-1"))))
	s.ok("full", `{
		"id":"res-1.a_b~c:d@e","published":true,"timeLastUpdate":"2026-01-01 10:00:00",
		"title":"Castle","title_it":"Castello","title_de":"Schloss",
		"shortDescription":"A castle","shortDescription_it":null,"shortDescription_de":"Eine Burg",
		"htmlDescription":"<p>x</p>","htmlDescription_it":"<p>y</p>","htmlDescription_de":null,
		"htmlContent":"<h1>x</h1>","htmlContent_it":null,"htmlContent_de":"<b>z</b>",
		"image":"https://cdn.example.org/img/castle.webp?w=800#main",
		"multimedia":["https://cdn.example.org/a.jpg","HTTP://cdn.example.org/b.JPEG","https://cdn.example.org/c.png?x=1"],
		"multimediaTitle":"Gallery",
		"urlAlias":"/castle","urlAlias_it":"/castello","urlAlias_de":"/schloss",
		"canonicalUrl":"https://example.org/castle","canonicalUrl_it":null,"canonicalUrl_de":"https://example.de/schloss",
		"externalUrl":"https://example.org/more","externalUrl_it":"http://example.it/","externalUrl_de":null,
		"externalUrlLabel":"More","externalUrlLabel_it":"Altro","externalUrlLabel_de":null,
		"redirectLoadTo":null,"locationLat":45.4642,"locationLon":-9.19,"locationZoom":12,
		"mapIds":["map-1","map-2"],"mapIdsAdd":["map-3"],"mapSecondaryIds":["map-4"],"mapSecondaryIdsAdd":null,
		"poiResourceIds":["poi-1"],"poiResourceIdsAdd":[],
		"hideInList":false,"resourceType":"TRACK",
		"resourceCategories":["cat-1","Kategorie ü"],"resourceRegions":null,"resourceStage":["new"],
		"resourceMapLayerType":"satellite","mapLayerFile":"https://example.org/layer.kmz",
		"contactAddress":"Via Roma 1","contactCity":"Milano","contactPostalCode":"20121","contactProvince":"MI",
		"contactPhone":"+39 02 1234567","contactEmail":"info@example.org","contactUrl":"https://example.org",
		"openingTimes":"9-18","openingTimes_it":"9-18","openingTimes_de":null,
		"ctaOnMap":true,"ctaOnImage":null,"ctaUrl":"https://example.org/book",
		"ctaLabel":"Book","ctaLabel_it":"Prenota","ctaLabel_de":"Buchen",
		"ctaValuePrefix":"from","ctaValuePrefix_it":"da","ctaValuePrefix_de":null,
		"ctaValue":"10","ctaValue_it":"10","ctaValue_de":"10",
		"ctaValueSufix":"EUR","ctaValueSufix_it":null,"ctaValueSufix_de":"EUR",
		"trackCircular":true,"trackEffortDataShow":false,"trackAltitudeShow":null,"trackHoverShow":true,
		"trackDurationMinutes":90,"trackTravelDistance":12000,"trackSlopeUp":0,"trackSlopeDown":350,"trackDifficulty":3,
		"trackStart":"Gate","trackStart_it":"Porta","trackStart_de":null,
		"trackEnd":"Top","trackEnd_it":null,"trackEnd_de":"Gipfel",
		"trackFile":"https://example.org/track.GPX",
		"headTitle":"Castle","headTitle_it":"Castello","headTitle_de":null,
		"headDescription":null,"headDescription_it":"desc","headDescription_de":"Beschreibung",
		"headKeywords":"castle","headKeywords_it":null,"headKeywords_de":"burg",
		"deleteElementIrreversibly":false}`)
	emailFixtures(s)

	// Sizes of plain strings.
	s.ok("ctaLabel 20", field("ctaLabel", str(rep("ß", 20))))
	s.bad("ctaLabel 21", field("ctaLabel", str(rep("ß", 21))))
	s.bad("ctaValue_it 21", field("ctaValue_it", str(rep("a", 21))))
	s.ok("contactPostalCode 8", field("contactPostalCode", `"12345678"`))
	s.bad("contactPostalCode 9", field("contactPostalCode", `"123456789"`))
	s.ok("headDescription_de 150", field("headDescription_de", str(rep("ä", 150))))
	s.bad("headDescription_de 151", field("headDescription_de", str(rep("ä", 151))))
	s.bad("multimediaTitle null", field("multimediaTitle", `null`))
	s.bad("resourceType null", field("resourceType", `null`))
	s.bad("hideInList null", field("hideInList", `null`))
	s.bad("ctaOnMap string", field("ctaOnMap", `"yes"`))

	// Arrays.
	s.ok("multimedia", field("multimedia", `["https://x.org/a.jpg","https://x.org/b.webp"]`))
	s.ok("multimedia empty", field("multimedia", `[]`))
	s.ok("multimedia null", field("multimedia", `null`))
	s.bad("multimedia object", field("multimedia", `{"0":"https://x.org/a.jpg"}`))
	s.bad("multimedia string", field("multimedia", `"https://x.org/a.jpg"`))
	s.bad("multimedia item number", field("multimedia", `["https://x.org/a.png",2]`))
	s.bad("multimedia item null", field("multimedia", `[null]`))
	s.bad("multimedia item gif", field("multimedia", `["https://x.org/a.png","https://x.org/b.gif"]`))

	// References.
	s.ok("mapIds", field("mapIds", `["map-1","m.2"]`))
	s.ok("mapIds null", field("mapIds", `null`))
	s.bad("mapIds short id", field("mapIds", `["x"]`))
	s.bad("mapIds empty id", field("mapIds", `[""]`))
	s.bad("mapIds reserved-shape id", field("mapIds", `[".map"]`))
	s.bad("mapIds number", field("mapIds", `[1]`))
	s.bad("mapIds object", field("mapIds", `{}`))
	s.ok("write-only assignments", `{"id":"abc","mapIdsAdd":["map-1"],"mapSecondaryIdsAdd":["map-2"],"poiResourceIdsAdd":["poi-1"],"deleteElementIrreversibly":true}`)
	s.bad("mapIdsAdd short id", field("mapIdsAdd", `["x"]`))
	s.bad("poiResourceIds space", field("poiResourceIds", `["a b"]`))

	// Term ids.
	s.ok("resourceCategories", field("resourceCategories", `["c1","Kategorie ü"]`))
	s.ok("resourceRegions 100", field("resourceRegions", `["`+rep("r", 100)+`"]`))
	s.bad("resourceCategories empty item", field("resourceCategories", `[""]`))
	s.bad("resourceRegions 101", field("resourceRegions", `["`+rep("r", 101)+`"]`))
	s.bad("resourceStage null item", field("resourceStage", `[null]`))
	s.bad("resourceStage NUL", field("resourceStage", `["a\u0000"]`))

	// Numbers.
	s.ok("locationLat 90", field("locationLat", `90`))
	s.ok("locationLat -90", field("locationLat", `-90`))
	s.ok("locationLat 90.0", field("locationLat", `90.0`))
	s.ok("locationLat exponent", field("locationLat", `4.5e1`))
	s.ok("locationLat null", field("locationLat", `null`))
	s.bad("locationLat 90.0001", field("locationLat", `90.0001`))
	s.bad("locationLat -90.0001", field("locationLat", `-90.0001`))
	s.bad("locationLat huge", field("locationLat", `1e400`))
	s.bad("locationLat string", field("locationLat", `"45"`))
	s.ok("locationLon 180", field("locationLon", `-180`))
	s.bad("locationLon 180.5", field("locationLon", `180.5`))
	s.ok("locationZoom 2", field("locationZoom", `2`))
	s.ok("locationZoom 3.0", field("locationZoom", `3.0`))
	s.ok("locationZoom 25", field("locationZoom", `25`))
	s.ok("locationZoom 2e1", field("locationZoom", `2e1`))
	s.bad("locationZoom 1", field("locationZoom", `1`))
	s.bad("locationZoom 26", field("locationZoom", `26`))
	s.bad("locationZoom 2.5", field("locationZoom", `2.5`))
	s.bad("locationZoom string", field("locationZoom", `"3"`))
	// Numbers are judged exactly as written, not after rounding to float64.
	s.bad("locationLat 90 plus 1e-17", field("locationLat", `90.00000000000000001`))
	s.bad("locationLat -90 minus 1e-17", field("locationLat", `-90.00000000000000001`))
	s.bad("locationLon 180 plus 1e-30", field("locationLon", `1.80000000000000000000000000000001e2`))
	s.ok("locationLat 90 with trailing zeros", field("locationLat", `90.000000000000000000000`))
	s.ok("locationLat 900e-1", field("locationLat", `900e-1`))
	s.ok("locationLat 0.9E+2", field("locationLat", `0.9E+2`))
	s.ok("locationLat -0", field("locationLat", `-0`))
	// An underflow is a tiny number inside the range: valid, stored as 0.
	s.ok("locationLat underflow 1e-400", field("locationLat", `1e-400`))
	s.ok("locationLat underflow -1e-400", field("locationLat", `-1e-400`))
	s.bad("locationZoom 2 plus 1e-16", field("locationZoom", `2.0000000000000001`))
	s.bad("locationZoom 25 minus 1e-16", field("locationZoom", `24.9999999999999999`))
	s.bad("locationZoom 3 plus 1e-1000", field("locationZoom", `3.`+rep("0", 999)+`1`))
	s.ok("locationZoom 25 with trailing zeros", field("locationZoom", `25.`+rep("0", 1000)))
	s.ok("locationZoom 2500e-2", field("locationZoom", `2500e-2`))
	s.bad("locationZoom 25 plus 1e-20", field("locationZoom", `25.00000000000000000001`))

	// TRACK fields (resourceType TRACK, so the TRACK-only rule is not at issue).
	track := func(name, value string) string {
		return `{"id":"abc","resourceType":"TRACK","` + name + `":` + value + `}`
	}
	s.ok("trackDurationMinutes 1", track("trackDurationMinutes", `1`))
	s.ok("trackDurationMinutes max safe", track("trackDurationMinutes", `9007199254740991`))
	s.ok("trackDurationMinutes null", track("trackDurationMinutes", `null`))
	s.bad("trackDurationMinutes 0", track("trackDurationMinutes", `0`))
	s.bad("trackDurationMinutes -1", track("trackDurationMinutes", `-1`))
	s.bad("trackDurationMinutes 1.5", track("trackDurationMinutes", `1.5`))
	s.bad("trackDurationMinutes beyond safe", track("trackDurationMinutes", `9007199254740992`))
	s.bad("trackDurationMinutes huge", track("trackDurationMinutes", `1e300`))
	s.ok("trackTravelDistance 1", track("trackTravelDistance", `1`))
	s.bad("trackTravelDistance 0", track("trackTravelDistance", `0`))
	s.ok("trackSlopeUp 0", track("trackSlopeUp", `0`))
	s.ok("trackSlopeDown -0", track("trackSlopeDown", `-0`))
	s.bad("trackSlopeUp -1", track("trackSlopeUp", `-1`))
	s.bad("trackSlopeUp underflow 1e-400", track("trackSlopeUp", `1e-400`))
	s.bad("trackSlopeUp underflow -1e-400", track("trackSlopeUp", `-1e-400`))
	s.ok("trackSlopeUp -0.0", track("trackSlopeUp", `-0.0`))
	s.ok("trackDurationMinutes max safe with exponent", track("trackDurationMinutes", `9.007199254740991e15`))
	s.bad("trackDurationMinutes max safe plus a fraction", track("trackDurationMinutes", `9007199254740991.0000001`))
	s.bad("trackDurationMinutes max safe plus 1 written 9.007199254740992e15", track("trackDurationMinutes", `9.007199254740992e15`))
	for _, v := range []string{"1", "2", "3", "4", "5", "3.0", "null"} {
		s.ok("trackDifficulty "+v, track("trackDifficulty", v))
	}
	for _, v := range []string{"0", "6", "-1", "2.5", `"3"`, "true"} {
		s.bad("trackDifficulty "+v, track("trackDifficulty", v))
	}
	s.ok("trackFile gpx", track("trackFile", `"https://x.org/t.gpx"`))
	s.ok("trackFile KML query", track("trackFile", `"https://x.org/t.KML?dl=1"`))
	s.bad("trackFile kmz", track("trackFile", `"https://x.org/t.kmz"`))
	s.bad("trackFile jpg", track("trackFile", `"https://x.org/t.jpg"`))
	s.ok("trackStart languages", `{"id":"abc","resourceType":"TRACK","trackStart":"a","trackStart_it":null,"trackStart_de":"`+rep("ö", 100)+`"}`)
	s.bad("trackEnd_it 101", track("trackEnd_it", str(rep("x", 101))))
	s.ok("trackCircular", track("trackCircular", `false`))
	s.bad("trackCircular number", track("trackCircular", `0`))
	s.ok("track fields null without TRACK", `{"id":"abc","trackCircular":null,"trackFile":null,"trackDifficulty":null,"trackStart_it":null}`)

	// Layer and URL fields.
	s.ok("mapLayerFile kml", field("mapLayerFile", `"https://x.org/l.kml"`))
	s.ok("mapLayerFile KMZ", field("mapLayerFile", `"https://x.org/l.KMZ#x"`))
	s.bad("mapLayerFile gpx", field("mapLayerFile", `"https://x.org/l.gpx"`))
	s.bad("mapLayerFile kml.html", field("mapLayerFile", `"https://x.org/l.kml.html"`))
	s.ok("contactUrl", field("contactUrl", `"https://example.org/a?b=c"`))
	s.ok("contactUrl non-ASCII path", field("contactUrl", `"https://x.org/ä"`))
	s.bad("contactUrl ftp", field("contactUrl", `"ftp://x.org"`))
	s.bad("contactUrl bad escape", field("contactUrl", `"https://x.org/%zz"`))
	s.bad("contactUrl bad IPv6", field("contactUrl", `"https://[zz]/"`))
	s.ok("canonicalUrl_it", field("canonicalUrl_it", `"https://x.org/a"`))
	s.bad("canonicalUrl_it space", field("canonicalUrl_it", `"https://x.org/a b"`))
	s.bad("externalUrl_de relative", field("externalUrl_de", `"/a"`))
	s.bad("canonicalUrl 501", field("canonicalUrl", str("https://x.org/"+rep("a", 487))))
}

func mapFixtures(s *fixtureSet) {
	boundFixtures(s, []string{"customHeaderFile", "customLoaderFile"}, []string{"mapCategories", "mapFilterCategories", "mapFilterCategoriesSecondary"})
	s.ok("dayLabels 100", field("tourMultiday", `[{"dayLabels":`+list(100, str("D1"))+`}]`))
	s.bad("dayLabels 101", field("tourMultiday", `[{"dayLabels":`+list(101, str("D1"))+`}]`))
	s.bad("mapLayerFile 2001", field("mapLayerFile", str("https://x.org/"+rep("a", 1983)+".kml")))
	s.ok("full", `{
		"id":"map-1","published":false,"timeLastUpdate":"2026-01-01 10:00:00",
		"title":"Tour","title_it":"Giro","title_de":"Tour",
		"shortDescription":null,"shortDescription_it":"breve","shortDescription_de":null,
		"image":"https://x.org/m.png","urlAlias":"/tour","urlAlias_it":"/giro","urlAlias_de":"/tour-de",
		"canonicalUrl":null,"locationLat":-45.5,"locationLon":179.9,"locationZoom":25,
		"mapLayerFile":"https://x.org/layer.KML","ctaOnMap":false,"ctaOnImage":true,"ctaUrl":"https://x.org/cta",
		"ctaLabel":"Go","ctaLabel_it":"Vai","ctaLabel_de":null,
		"ctaValuePrefix":null,"ctaValuePrefix_it":null,"ctaValuePrefix_de":"ab",
		"ctaValue":"1","ctaValue_it":"1","ctaValue_de":"1","ctaValueSufix":"x","ctaValueSufix_it":"y","ctaValueSufix_de":"z",
		"resourceIds":["res-1","res-2"],"resourceIdsAdd":["res-3"],
		"tourMultiday":[
			{"dayLabels":["D1","D2"],"title":"Day 1","title_it":"Giorno 1","title_de":null,
			 "shortDescription":"s","shortDescription_it":null,"shortDescription_de":"k",
			 "htmlContent":"<p>1</p>","htmlContent_it":"<p>1</p>","htmlContent_de":null,
			 "image":"https://x.org/d1.webp","resourceIds":["res-1"]},
			{"dayLabels":["D12"],"title":null,"image":null,"resourceIds":null},
			{}],
		"secondaryResourceIds":["res-4"],"secondaryResourceIdsAdd":null,
		"poiResourceIds":[],"poiResourceIdsAdd":["poi-1"],"brandedPoiIds":["poi-2"],
		"trackResourceId":"track-1","routePlannerAuto":true,"routePlannerMethod":"foot",
		"routePlannerColor":"#A0b1C2","routePlannerWidth":2.5,"mapClusterize":null,
		"mapLabel":"Label","mapLabel_it":"Etichetta","mapLabel_de":null,
		"customFilterFile":"https://x.org/f.png","customHeaderFile":null,
		"customBrandedPoiFile":"https://x.org/p.jpeg","customLoaderFile":"https://x.org/l.webp",
		"mapLayerType":"terrain","mapMaxAutozoom":18,"mapIsTour":true,"trackResourceShowEffort":false,
		"mapShowFilter":true,"mapFilterType":"chips","mapFilterCategorySwitch":true,
		"mapFilterDifficultySwitch":null,"mapFilterDistanceSwitch":false,"mapFilterCircularSwitch":true,
		"mapFilterCategories":["c1"],"mapFilterCategoriesSecondary":null,"mapCategories":["admin"],
		"mapShowList":true,"headTitle":"T","headTitle_it":null,"headTitle_de":"T",
		"headDescription":"d","headDescription_it":"d","headDescription_de":"d",
		"headKeywords":null,"headKeywords_it":null,"headKeywords_de":null,
		"deleteElementIrreversibly":false}`)

	// tourMultiday.
	s.ok("tourMultiday empty", field("tourMultiday", `[]`))
	s.ok("tourMultiday empty item", field("tourMultiday", `[{}]`))
	s.ok("dayLabels D1 D12", field("tourMultiday", `[{"dayLabels":["D1","D12"]}]`))
	s.ok("dayLabels empty", field("tourMultiday", `[{"dayLabels":[]}]`))
	s.bad("dayLabels D0", field("tourMultiday", `[{"dayLabels":["D0"]}]`))
	s.bad("dayLabels d1", field("tourMultiday", `[{"dayLabels":["d1"]}]`))
	s.bad("dayLabels X", field("tourMultiday", `[{"dayLabels":["X"]}]`))
	s.bad("dayLabels D01", field("tourMultiday", `[{"dayLabels":["D01"]}]`))
	s.bad("dayLabels D", field("tourMultiday", `[{"dayLabels":["D"]}]`))
	s.bad("dayLabels trailing newline", field("tourMultiday", `[{"dayLabels":["D1\n"]}]`))
	s.bad("dayLabels string", field("tourMultiday", `[{"dayLabels":"D1"}]`))
	s.bad("dayLabels null", field("tourMultiday", `[{"dayLabels":null}]`))
	s.bad("dayLabels number item", field("tourMultiday", `[{"dayLabels":[1]}]`))
	s.ok("tourMultiday title null", field("tourMultiday", `[{"title":null,"title_it":null,"title_de":"x"}]`))
	s.bad("tourMultiday title 101", field("tourMultiday", `[{"title_de":"`+rep("ü", 101)+`"}]`))
	s.bad("tourMultiday title_en", field("tourMultiday", `[{"title_en":"x"}]`))
	s.bad("tourMultiday unknown field", field("tourMultiday", `[{"id":"x"}]`))
	s.bad("tourMultiday image gif", field("tourMultiday", `[{"image":"https://x.org/a.gif"}]`))
	s.bad("tourMultiday resourceIds short", field("tourMultiday", `[{"resourceIds":["x"]}]`))
	s.bad("tourMultiday null", field("tourMultiday", `null`))
	s.bad("tourMultiday object", field("tourMultiday", `{"dayLabels":["D1"]}`))
	s.bad("tourMultiday item number", field("tourMultiday", `[{},5]`))
	s.bad("tourMultiday item null", field("tourMultiday", `[null]`))

	// routePlanner.
	s.ok("routePlannerWidth 1", field("routePlannerWidth", `1`))
	s.ok("routePlannerWidth 4", field("routePlannerWidth", `4`))
	s.ok("routePlannerWidth 2.5", field("routePlannerWidth", `2.5`))
	s.bad("routePlannerWidth 0.99", field("routePlannerWidth", `0.99`))
	s.bad("routePlannerWidth 4.5", field("routePlannerWidth", `4.5`))
	s.bad("routePlannerWidth null", field("routePlannerWidth", `null`))
	s.bad("routePlannerWidth string", field("routePlannerWidth", `"2"`))
	s.ok("routePlannerColor", field("routePlannerColor", `"#A0b1C2"`))
	s.bad("routePlannerColor short", field("routePlannerColor", `"#abc"`))
	s.bad("routePlannerColor no hash", field("routePlannerColor", `"A0b1C2"`))
	s.bad("routePlannerColor not hex", field("routePlannerColor", `"#GGGGGG"`))
	s.bad("routePlannerColor newline", field("routePlannerColor", `"#A0b1C2\n"`))
	s.bad("routePlannerColor null", field("routePlannerColor", `null`))
	s.bad("routePlannerAuto null", field("routePlannerAuto", `null`))
	s.bad("routePlannerWidth 4 plus 1e-16", field("routePlannerWidth", `4.0000000000000001`))
	s.bad("routePlannerWidth 1 minus 1e-17", field("routePlannerWidth", `0.99999999999999999`))
	s.ok("routePlannerWidth 4.000", field("routePlannerWidth", `4.000`))

	s.ok("mapMaxAutozoom null", field("mapMaxAutozoom", `null`))
	s.bad("mapMaxAutozoom 26", field("mapMaxAutozoom", `26`))
	s.bad("mapMaxAutozoom 1", field("mapMaxAutozoom", `1`))

	// Single reference: "" is none.
	s.ok("trackResourceId", field("trackResourceId", `"track-1"`))
	s.ok("trackResourceId empty", field("trackResourceId", `""`))
	s.ok("trackResourceId null", field("trackResourceId", `null`))
	s.bad("trackResourceId short", field("trackResourceId", `"x"`))
	s.bad("trackResourceId space", field("trackResourceId", `"a b"`))
	s.bad("trackResourceId array", field("trackResourceId", `["track-1"]`))

	s.ok("write-only", `{"id":"abc","resourceIdsAdd":["res-1"],"secondaryResourceIdsAdd":["res-2"],"poiResourceIdsAdd":["res-3"],"deleteElementIrreversibly":true}`)
	s.bad("brandedPoiIds short", field("brandedPoiIds", `["p"]`))
	s.bad("mapFilterCategories empty item", field("mapFilterCategories", `[""]`))
	s.ok("customHeaderFile", field("customHeaderFile", `"https://x.org/h.JPG"`))
	s.bad("customLoaderFile html", field("customLoaderFile", `"https://x.org/l.jpg.html"`))
	s.ok("mapLayerFile KMZ", field("mapLayerFile", `"https://x.org/l.KMZ"`))
	s.bad("mapLayerFile gpx", field("mapLayerFile", `"https://x.org/l.gpx"`))
	s.ok("mapLabel_it 40", field("mapLabel_it", str(rep("à", 40))))
	s.bad("mapLabel_it 41", field("mapLabel_it", str(rep("à", 41))))
	s.bad("canonicalUrl is single-language", field("canonicalUrl_it", `"https://x.org/"`))
	s.bad("ctaUrl 1501", field("ctaUrl", str("https://x.org/"+rep("a", 1487))))
}

func landingFixtures(s *fixtureSet) {
	boundFixtures(s, []string{"image"}, []string{"landingCategories"})
	s.ok("full", `{
		"id":"landing-1","published":true,"timeLastUpdate":"2026-01-01 10:00:00",
		"title":"Summer","title_it":"Estate","title_de":"Sommer",
		"shortDescription":"s","shortDescription_it":null,"shortDescription_de":"s",
		"htmlDescription":null,"htmlDescription_it":"<p>d</p>","htmlDescription_de":null,
		"htmlContent":"<p>c</p>","htmlContent_it":"<p>c</p>","htmlContent_de":"<p>c</p>",
		"image":"https://x.org/l.webp","urlAlias":"/summer","urlAlias_it":"/estate","urlAlias_de":"/sommer",
		"canonicalUrl":null,"canonicalUrl_it":"https://x.it/","canonicalUrl_de":null,
		"alternativeView":null,"proposal":true,
		"proposalSummary":"<b>s</b>","proposalSummary_it":null,"proposalSummary_de":"x",
		"proposalCalendar":null,"proposalCalendar_it":"c","proposalCalendar_de":null,
		"proposalDescription":"d","proposalDescription_it":"d","proposalDescription_de":"d",
		"landingCategories":["summer"],
		"landingBlocks":[
			{"title":"Block","title_it":"Blocco","title_de":"Block",
			 "shortDescription":null,"shortDescription_it":"b","shortDescription_de":null,
			 "htmlContent":"<p>b</p>","htmlContent_it":null,"htmlContent_de":"<p>b</p>",
			 "resourceIds":["map-1","landing-2"]},
			{"title":"","resourceIds":null}],
		"landingHotels":[{"title_de":"Hotel","htmlContent":null,"resourceIds":["hotel-1"]},{}],
		"buttonViewMapLabel":"Map","buttonViewMapLabel_it":"Mappa","buttonViewMapLabel_de":null,
		"mapIntro":null,"mapIntro_it":"intro","mapIntro_de":"`+rep("é", 250)+`",
		"mapId":"map-1","ctaOnMap":null,"ctaUrl":"https://x.org/",
		"ctaLabel":"a","ctaLabel_it":"b","ctaLabel_de":"c","ctaValuePrefix":null,"ctaValuePrefix_it":null,"ctaValuePrefix_de":null,
		"ctaValue":"v","ctaValue_it":"v","ctaValue_de":"v","ctaValueSufix":"s","ctaValueSufix_it":"s","ctaValueSufix_de":"s",
		"headTitle":"h","headTitle_it":"h","headTitle_de":null,"headDescription":null,"headDescription_it":null,"headDescription_de":"d",
		"headKeywords":"k","headKeywords_it":"k","headKeywords_de":"k","deleteElementIrreversibly":false}`)

	s.ok("landingBlocks title_it", field("landingBlocks", `[{"title":"b","title_it":"c","resourceIds":["m-1"]}]`))
	s.ok("landingBlocks title 200", field("landingBlocks", `[{"title":"`+rep("ä", 200)+`"}]`))
	s.bad("landingBlocks title 201", field("landingBlocks", `[{"title":"`+rep("ä", 201)+`"}]`))
	s.bad("landingBlocks title null", field("landingBlocks", `[{"title":null}]`))
	s.bad("landingBlocks title_it null", field("landingBlocks", `[{"title_it":null}]`))
	s.ok("landingBlocks shortDescription null", field("landingBlocks", `[{"shortDescription":null,"shortDescription_de":null}]`))
	s.bad("landingBlocks shortDescription 201", field("landingBlocks", `[{"shortDescription_it":"`+rep("x", 201)+`"}]`))
	s.bad("landingBlocks unknown field", field("landingBlocks", `[{"title":"b","extra":1}]`))
	s.bad("landingBlocks title_fr", field("landingBlocks", `[{"title_fr":"b"}]`))
	s.bad("landingBlocks item number", field("landingBlocks", `[5]`))
	s.bad("landingBlocks object", field("landingBlocks", `{}`))
	s.bad("landingBlocks null", field("landingBlocks", `null`))
	s.bad("landingBlocks resourceIds short", field("landingBlocks", `[{"resourceIds":["m1"]}]`))
	s.ok("landingHotels", field("landingHotels", `[{"title_de":"h","htmlContent":null,"resourceIds":["hotel-1"]}]`))
	s.bad("landingHotels htmlContent number", field("landingHotels", `[{"htmlContent":1}]`))
	s.bad("landingHotels resourceIds object", field("landingHotels", `[{"resourceIds":{}}]`))
	s.bad("landingHotels null", field("landingHotels", `null`))

	// Single reference: "" is none; ids are 3 to 80 characters, so "m1"
	// can name no record.
	s.ok("mapId empty", field("mapId", `""`))
	s.ok("mapId", field("mapId", `"m-1"`))
	s.bad("mapId two characters", field("mapId", `"m1"`))
	s.bad("mapId space", field("mapId", `"a b"`))
	s.bad("mapId null", field("mapId", `null`))

	s.ok("mapIntro 250", field("mapIntro", str(rep("x", 250))))
	s.bad("mapIntro 251", field("mapIntro", str(rep("x", 251))))
	s.ok("alternativeView null", field("alternativeView", `null`))
	s.bad("proposal null", field("proposal", `null`))
	s.bad("proposal string", field("proposal", `"true"`))
	s.bad("landingCategories empty item", field("landingCategories", `[""]`))
	s.ok("proposalSummary_it", field("proposalSummary_it", `"<b>x</b>"`))
	s.bad("proposalSummary_it 2001", field("proposalSummary_it", str(rep("x", 2001))))
	s.bad("no mapIds on a Landing", field("mapIds", `["map-1"]`))
}

func proposalFixtures(s *fixtureSet) {
	s.ok("full", `{
		"id":"prop-1","published":true,"timeLastUpdate":"2026-01-01 10:00:00",
		"title":"Offer","title_it":"Offerta","title_de":"Angebot",
		"shortDescription":null,"shortDescription_it":"s","shortDescription_de":null,
		"htmlDescription":"<p>d</p>","htmlDescription_it":null,"htmlDescription_de":"<p>d</p>",
		"htmlContent":null,"htmlContent_it":null,"htmlContent_de":null,
		"image":"https://x.org/p.jpg","urlAlias":"/offer","urlAlias_it":"/offerta","urlAlias_de":"/angebot",
		"canonicalUrl":"https://x.org/o","canonicalUrl_it":null,"canonicalUrl_de":"https://x.de/o",
		"infoSummary":"<p>i</p>","infoSummary_it":null,"infoSummary_de":"i",
		"relatedContents":[
			{"title":"Related","title_it":"Correlato","title_de":"Verwandt","shortDescription_it":null,"shortDescription":"s","htmlContent":"<p>r</p>","htmlContent_de":null},
			{}],
		"hotels":[
			{"title":"Hotel","title_it":"Albergo","shortDescription_it":"breve","shortDescription_de":null,"htmlContent":null,"resourceIds":["hotel-1"]},
			{"resourceIds":null}],
		"buttonViewMapLabel":"Map","buttonViewMapLabel_it":null,"buttonViewMapLabel_de":"Karte",
		"mapId":"","ctaUrl":null,"ctaLabel":"a","ctaLabel_it":"b","ctaLabel_de":null,
		"ctaValuePrefix":"p","ctaValuePrefix_it":"p","ctaValuePrefix_de":"p","ctaValue":null,"ctaValue_it":null,"ctaValue_de":null,
		"ctaValueSufix":"s","ctaValueSufix_it":"s","ctaValueSufix_de":"s",
		"customerId":"cust-1","groupName":"Group","tripDates":"1-7 May","paxNum":"4","roomsNum":"2",
		"pricing":"<p>100 EUR</p>","expireDate":"2026-02-28","typeSchema":"standard",
		"statsAccess":3,"statsLastAccess":null,"deleteElementIrreversibly":false}`)

	s.ok("expireDate", field("expireDate", `"2026-02-28"`))
	s.ok("expireDate leap day", field("expireDate", `"2028-02-29"`))
	s.ok("expireDate null", field("expireDate", `null`))
	s.bad("expireDate 30 February", field("expireDate", `"2026-02-30"`))
	s.bad("expireDate 29 February non-leap", field("expireDate", `"2026-02-29"`))
	s.bad("expireDate month 13", field("expireDate", `"2026-13-01"`))
	s.bad("expireDate short fields", field("expireDate", `"2026-2-1"`))
	s.bad("expireDate with time", field("expireDate", `"2026-02-28 10:00:00"`))
	s.bad("expireDate trailing newline", field("expireDate", `"2026-02-28\n"`))
	s.bad("expireDate number", field("expireDate", `20260228`))

	s.ok("customerId 3", field("customerId", `"abc"`))
	s.ok("customerId 80", field("customerId", str(rep("c", 80))))
	s.ok("customerId null", field("customerId", `null`))
	s.bad("customerId 2", field("customerId", `"ab"`))
	s.bad("customerId empty", field("customerId", `""`))
	s.bad("customerId 81", field("customerId", str(rep("c", 81))))

	// Read-only fields with the right shape are accepted, else not.
	s.ok("read-only fields", `{"id":"abc","timeLastUpdate":"2026-01-01 10:00:00","statsAccess":3,"statsLastAccess":null}`)
	s.ok("statsLastAccess", field("statsLastAccess", `"2026-01-01 10:00:00"`))
	s.ok("statsAccess 0", field("statsAccess", `0`))
	s.bad("timeLastUpdate yesterday", field("timeLastUpdate", `"yesterday"`))
	s.bad("statsAccess -1", field("statsAccess", `-1`))
	s.bad("statsAccess 1.5", field("statsAccess", `1.5`))
	s.bad("statsAccess string", field("statsAccess", `"3"`))
	s.bad("statsAccess null", field("statsAccess", `null`))
	s.bad("statsLastAccess date only", field("statsLastAccess", `"2026-01-01"`))
	s.bad("statsLastAccess number", field("statsLastAccess", `0`))
	// statsAccess stops at 2^53-1 like every integer without a size.
	s.ok("statsAccess max safe", field("statsAccess", `9007199254740991`))
	s.bad("statsAccess max safe plus 1", field("statsAccess", `9007199254740992`))
	s.bad("statsAccess 1e20", field("statsAccess", `1e20`))
	s.bad("statsAccess max int64", field("statsAccess", `9223372036854775807`))
	s.bad("statsAccess 2^63", field("statsAccess", `9223372036854775808`))
	s.bad("statsAccess max safe plus 1e-10", field("statsAccess", `9007199254740991.0000000001`))

	s.ok("relatedContents", field("relatedContents", `[{"title":"t","title_it":"t","shortDescription_de":null}]`))
	s.bad("relatedContents title 201", field("relatedContents", `[{"title":"`+rep("t", 201)+`"}]`))
	s.bad("relatedContents resourceIds", field("relatedContents", `[{"resourceIds":["res-1"]}]`))
	s.bad("relatedContents title null", field("relatedContents", `[{"title":null}]`))
	s.bad("relatedContents string", field("relatedContents", `"x"`))
	s.ok("hotels", field("hotels", `[{"shortDescription_it":"breve","resourceIds":["hotel-1"]}]`))
	s.bad("hotels resourceIds short", field("hotels", `[{"resourceIds":["h"]}]`))
	s.bad("hotels htmlContent_de 32001", field("hotels", `[{"htmlContent_de":"`+rep("x", 32001)+`"}]`))
	s.bad("hotels item array", field("hotels", `[[]]`))

	s.ok("mapId", field("mapId", `"map-1"`))
	s.ok("mapId empty", field("mapId", `""`))
	s.bad("mapId space", field("mapId", `"a b"`))
	s.bad("mapId two characters", field("mapId", `"m1"`))
	s.ok("pricing 1000", field("pricing", str(rep("x", 1000))))
	s.bad("pricing 1001", field("pricing", str(rep("x", 1001))))
	s.ok("infoSummary_de", field("infoSummary_de", `"<p>x</p>"`))
	s.bad("no headTitle on a Proposal", field("headTitle", `"x"`))
	s.bad("no ctaOnMap on a Proposal", field("ctaOnMap", `true`))
	s.bad("typeSchema null", field("typeSchema", `null`))
}

// agreementSchemas compiles the schema.json of every kind once.
var agreementSchemas = sync.OnceValues(func() (map[Kind]*jsonschema.Schema, error) {
	langs, err := NewLanguages("en", "en", "it", "de")
	if err != nil {
		return nil, err
	}
	schemas := map[Kind]*jsonschema.Schema{}
	for _, kind := range Kinds() {
		doc, err := JSONSchema(kind, langs)
		if err != nil {
			return nil, err
		}
		if schemas[kind], err = compileJSONSchema(string(kind)+".schema.json", doc); err != nil {
			return nil, err
		}
	}
	return schemas, nil
})

// compileJSONSchema compiles doc with santhosh-tekuri/jsonschema, formats
// asserted and Go's regexp engine.
func compileJSONSchema(name string, doc []byte) (*jsonschema.Schema, error) {
	parsed, err := jsonschema.UnmarshalJSON(bytes.NewReader(doc))
	if err != nil {
		return nil, fmt.Errorf("%s: %w", name, err)
	}
	c := jsonschema.NewCompiler()
	c.AssertFormat()
	url := "https://schemas.bwcms.test/" + name
	if err := c.AddResource(url, parsed); err != nil {
		return nil, fmt.Errorf("%s: %w", name, err)
	}
	return c.Compile(url)
}

func agreementCodec(tb testing.TB) *Codec {
	tb.Helper()
	langs, err := NewLanguages("en", "en", "it", "de")
	if err != nil {
		tb.Fatal(err)
	}
	c, err := NewCodec(langs)
	if err != nil {
		tb.Fatal(err)
	}
	return c
}

func compiledSchemas(tb testing.TB) map[Kind]*jsonschema.Schema {
	tb.Helper()
	schemas, err := agreementSchemas()
	if err != nil {
		tb.Fatal(err)
	}
	return schemas
}

// goVerdict decodes body; a rejection must be a content problem
// (CodeInvalid), never a syntax one: fixtures are strict JSON.
func goVerdict(tb testing.TB, c *Codec, kind Kind, body string) (bool, error) {
	tb.Helper()
	err := c.Decode([]byte(body), NewRecord(kind))
	var e *Error
	if err != nil && (!errors.As(err, &e) || e.Code != CodeInvalid) {
		tb.Fatalf("Decode(%s) = %v, want nil or CodeInvalid: the fixture is a syntax question", body, err)
	}
	return err == nil, err
}

func schemaVerdict(tb testing.TB, sch *jsonschema.Schema, body string) (bool, error) {
	tb.Helper()
	doc, err := jsonschema.UnmarshalJSON(strings.NewReader(body))
	if err != nil {
		tb.Fatalf("fixture is not JSON: %v\n%s", err, body)
	}
	err = sch.Validate(doc)
	return err == nil, err
}

func TestSchemaAgreesWithDecode(t *testing.T) {
	t.Parallel()
	c := agreementCodec(t)
	schemas := compiledSchemas(t)
	for _, f := range agreementFixtures {
		t.Run(string(f.kind)+"/"+f.name, func(t *testing.T) {
			t.Parallel()
			gotGo, goErr := goVerdict(t, c, f.kind, f.body)
			gotSchema, schemaErr := schemaVerdict(t, schemas[f.kind], f.body)
			if gotGo != f.valid || gotSchema != f.valid {
				t.Errorf("want valid=%v\n  Go:     valid=%v (%v)\n  schema: valid=%v (%v)\nbody: %s",
					f.valid, gotGo, goErr, gotSchema, schemaErr, shorten(f.body))
			}
		})
	}
}

func shorten(s string) string {
	if len(s) > 300 {
		return s[:300] + "..."
	}
	return s
}

// TestAgreementFixtureCounts keeps every kind covered.
func TestAgreementFixtureCounts(t *testing.T) {
	t.Parallel()
	counts := map[Kind][2]int{}
	for _, f := range agreementFixtures {
		n := counts[f.kind]
		if f.valid {
			n[0]++
		} else {
			n[1]++
		}
		counts[f.kind] = n
	}
	for _, kind := range Kinds() {
		if n := counts[kind]; n[0] < 20 || n[1] < 50 {
			t.Errorf("%s: %d valid and %d invalid fixtures, want at least 20 and 50", kind, n[0], n[1])
		}
		t.Logf("%s: %d valid, %d invalid fixtures", kind, counts[kind][0], counts[kind][1])
	}
}

// TestSchemaAgreesOnNulls sets null, field by field, on every field of the
// contract tables: accepted exactly where the contract says nullable (and
// on statsLastAccess, null until a Proposal is first read by id), by both
// validators.
func TestSchemaAgreesOnNulls(t *testing.T) {
	t.Parallel()
	c := agreementCodec(t)
	schemas := compiledSchemas(t)
	for _, o := range contractObjects(t) {
		for _, f := range o.fields {
			names := []string{f.name}
			if o.isMultiLang(f.name) {
				names = append(names, f.name+"_it", f.name+"_de")
			}
			for _, name := range names {
				body := field(name, "null")
				switch {
				case name == "id":
					body = `{"id":null}`
				case o.item != "":
					body = field(o.item, `[{"`+name+`":null}]`)
				}
				want := f.nullable || contractNullExceptions[o.path+"."+f.name]
				gotGo, goErr := goVerdict(t, c, o.kind, body)
				gotSchema, schemaErr := schemaVerdict(t, schemas[o.kind], body)
				if gotGo != want || gotSchema != want {
					t.Errorf("%s: %s null: want valid=%v; Go %v (%v); schema %v (%v)", o.path, name, want, gotGo, goErr, gotSchema, schemaErr)
				}
			}
		}
	}
}

// TestSchemaAgreesOnExamples: the fully populated Example of every kind,
// as the codec writes it, is valid to both.
func TestSchemaAgreesOnExamples(t *testing.T) {
	t.Parallel()
	c := agreementCodec(t)
	schemas := compiledSchemas(t)
	for _, kind := range Kinds() {
		body := string(c.Marshal(SampleRecord(kind, c.Languages())))
		gotGo, goErr := goVerdict(t, c, kind, body)
		gotSchema, schemaErr := schemaVerdict(t, schemas[kind], body)
		if !gotGo || !gotSchema {
			t.Errorf("%s Example: Go valid=%v (%v), schema valid=%v (%v)", kind, gotGo, goErr, gotSchema, schemaErr)
		}
	}
}

// TestSchemaMultipleAgrees runs batch bodies through schema.multiple.json;
// the Go verdict of a batch is that every element decodes.
func TestSchemaMultipleAgrees(t *testing.T) {
	t.Parallel()
	c := agreementCodec(t)
	langs := c.Languages()
	for _, kind := range Kinds() {
		doc, err := JSONSchemaMultiple(kind, langs)
		if err != nil {
			t.Fatal(err)
		}
		sch, err := compileJSONSchema(string(kind)+".schema.multiple.json", doc)
		if err != nil {
			t.Fatal(err)
		}
		valid := []string{`{"id":"one"}`, `{"id":"two","title":"Two","title_it":"Due","title_de":"Zwei","shortDescription_de":null}`}
		for _, fx := range agreementFixtures {
			if fx.kind == kind && fx.name == "full" {
				valid = append(valid, fx.body)
			}
		}
		invalid := []string{`{"id":"x"}`, `{"title":"no id"}`, `{"id":"abc","title_fr":"x"}`, `5`}
		for _, tc := range []struct {
			name  string
			items []string
			valid bool
		}{
			{"two valid", valid[:2], true},
			{"full and minimal", []string{valid[2], valid[0]}, true},
			{"valid then short id", []string{valid[0], invalid[0]}, false},
			{"no id then valid", []string{invalid[1], valid[1]}, false},
			{"valid then unknown language", []string{valid[2], invalid[2]}, false},
			{"valid then number", []string{valid[0], invalid[3]}, false},
		} {
			gotGo := true
			for _, item := range tc.items {
				if item == `5` {
					gotGo = false // not an object: Decode calls it malformed
					continue
				}
				ok, _ := goVerdict(t, c, kind, item)
				gotGo = gotGo && ok
			}
			body := "[" + strings.Join(tc.items, ",") + "]"
			gotSchema, schemaErr := schemaVerdict(t, sch, body)
			if gotGo != tc.valid || gotSchema != tc.valid {
				t.Errorf("%s multiple, %s: want valid=%v; Go %v; schema %v (%v)", kind, tc.name, tc.valid, gotGo, gotSchema, schemaErr)
			}
		}
		if ok, _ := schemaVerdict(t, sch, valid[0]); ok {
			t.Errorf("%s multiple: a single object is valid, want an array", kind)
		}
	}
}
