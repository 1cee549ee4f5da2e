package cms

import (
	"net/mail"
	"net/url"
	"regexp"
	"strings"
	"time"
)

// A rule is a named field rule beyond sizes and ranges, chosen with the cms
// struct tag. Its pattern is both checked here and written to the JSON
// Schema, so the two cannot drift apart. Patterns use only syntax that RE2
// and ECMA-262 read alike (no \s, no flags, no look-around).
type rule struct {
	name    string
	pattern *regexp.Regexp
	// format is the JSON Schema format. What it asks beyond the pattern is
	// checked by check (the e-mail pattern is narrower than its format).
	format string
	// match, when set, is a hand-written matcher of pattern's language
	// (faster; TestRuleMatchers proves them equal).
	match func(string) bool
	// limits are further patterns a value must match (the schema lists
	// them under allOf).
	limits []*regexp.Regexp
	// check is the part of the rule a pattern cannot say; nil when none.
	check func(string) bool
	// text is the problem reported when the value breaks the rule.
	text string
	// minLen and maxLen apply when the field's tags set no size (-1: none).
	minLen, maxLen int
	// file marks rules of file fields (left out by /excludeFiles).
	file bool
}

// Character classes shared by the patterns: a URL or alias has no ASCII
// control character or space.
const (
	// urlStart: scheme, optional userinfo, a host that is not empty (a
	// name, or an IPv6 literal without a zone), optional port.
	urlStart      = `^[hH][tT][tT][pP][sS]?://([^/?#@\x00-\x20\x7F]*@)?(\[[0-9A-Fa-f:.]+\]|[^/?#:@\[\]\x00-\x20\x7F]+)(:[0-9]*)?`
	urlRest       = `[^\x00-\x20\x7F]*`
	idPattern     = `[A-Za-z0-9_~:@-][A-Za-z0-9._~:@-]{2,79}`
	fileExtImage  = `([jJ][pP][eE]?[gG]|[pP][nN][gG]|[wW][eE][bB][pP])`
	fileExtLayer  = `([kK][mM][lLzZ])`
	fileExtTrack  = `([gG][pP][xX]|[kK][mM][lL])`
	filePathStart = `/[^?#\x00-\x20\x7F]*\.`
	fileEnd       = `([?#]` + urlRest + `)?$`
)

// aliasExcluded are the characters no urlAlias holds: ASCII and C1
// controls, every Unicode space, the backslash (browsers read "/\x" as
// "//x", another host), the zero-width characters (U+200B-U+200D,
// U+2060, U+FEFF), which make two aliases that look alike differ, and the
// bidirectional marks, embeddings, overrides and isolates (U+061C,
// U+200E, U+200F, U+202A-U+202E, U+2066-U+2069), which make an alias
// display other than it reads. The pattern holds the non-ASCII ones as
// literal characters, so RE2 and ECMA-262 read it alike.
const aliasExcluded = `\x00-\x20\x7F-` + "\u009F\u00A0\u061C\u1680\u2000-\u200F\u2028-\u202F\u205F\u2060\u2066-\u2069\u3000\uFEFF" + `\\`

// emailPattern is the bare address net/mail reads, contactEmail's rule: a
// dot-atom or a quoted string, "@", a dot-atom or an IPv4 literal; no
// display name, comment or space outside quotes. Atoms are printable ASCII
// but the specials, or any non-ASCII character, as in net/mail, which sets
// no length either (the field's 255 characters bound it). IPv6 literals are
// left out: net/mail takes [::1] but not the [IPv6:::1] of RFC 5321, and no
// contact address needs either. The pattern is what the schema says;
// isEmail asks net/mail itself.
const (
	emailAtext   = `[^\x00-\x20\x7F()<>\[\]:;@\\,."]`
	emailAtom    = emailAtext + `+(\.` + emailAtext + `+)*`
	emailQuoted  = `"([^"\\\x00-\x08\x0A-\x1F\x7F]|\\[^\x00-\x08\x0A-\x1F\x7F])+"`
	ipv4Octet    = `(25[0-5]|2[0-4][0-9]|1[0-9][0-9]|[1-9]?[0-9])`
	emailIPv4    = `\[` + ipv4Octet + `(\.` + ipv4Octet + `){3}\]`
	emailPattern = `^(` + emailAtom + `|` + emailQuoted + `)@(` + emailAtom + `|` + emailIPv4 + `)$`
)

func fileRule(name, ext string, exts []string, text string) *rule {
	return &rule{
		name:    name,
		pattern: regexp.MustCompile(urlStart + filePathStart + ext + fileEnd), match: fileMatcher(exts...),
		format: "uri", check: isHTTPURL, text: text, minLen: -1, maxLen: -1, file: true,
	}
}

// rules are immutable after package initialisation.
var rules = map[string]*rule{
	"id": {name: "id", pattern: regexp.MustCompile(`^` + idPattern + `$`), match: matchID,
		text: "must be 3 to 80 characters of A-Z a-z 0-9 . _ ~ : @ - not starting with .", minLen: 3, maxLen: 80},
	// ref names another record; a single reference may be "" (none).
	"ref": {name: "ref", pattern: regexp.MustCompile(`^` + idPattern + `$`), match: matchID,
		text: "must be a record id", minLen: -1, maxLen: -1},
	"uri": {name: "uri", pattern: regexp.MustCompile(urlStart + `([/?#]` + urlRest + `)?$`), match: matchHTTPURL, format: "uri",
		check: isHTTPURL, text: "must be an absolute http or https URL", minLen: -1, maxLen: -1},
	"image":     fileRule("image", fileExtImage, []string{"jpg", "jpeg", "png", "webp"}, "must be an http or https URL of a .jpg, .jpeg, .png or .webp file"),
	"layer":     fileRule("layer", fileExtLayer, []string{"kml", "kmz"}, "must be an http or https URL of a .kml or .kmz file"),
	"trackfile": fileRule("trackfile", fileExtTrack, []string{"gpx", "kml"}, "must be an http or https URL of a .gpx or .kml file"),
	"email": {name: "email", pattern: regexp.MustCompile(emailPattern), check: isEmail,
		text: "must be an e-mail address", minLen: -1, maxLen: -1},
	"alias": {name: "alias", pattern: regexp.MustCompile(`^/[^/` + aliasExcluded + `][^` + aliasExcluded + `]*$`), match: matchAlias,
		text: "must start with / (not //) and contain no spaces, control characters, backslashes, zero-width or bidirectional characters", minLen: -1, maxLen: -1},
	"color": {name: "color", pattern: regexp.MustCompile(`^#[0-9A-Fa-f]{6}$`), match: matchColor,
		text: "must be a colour of shape #RRGGBB", minLen: -1, maxLen: -1},
	"daylabel": {name: "daylabel", pattern: regexp.MustCompile(`^D[1-9][0-9]*$`), match: matchDayLabel,
		text: "must be a day label of shape D1, D2, ...", minLen: -1, maxLen: -1},
	"date": {name: "date", pattern: regexp.MustCompile(`^[0-9]{4}-[0-9]{2}-[0-9]{2}$`), match: shapeMatcher("0000-00-00"), format: "date",
		check: isDate, text: "must be a date of shape YYYY-MM-DD", minLen: -1, maxLen: -1},
	"timestamp": {name: "timestamp", pattern: regexp.MustCompile(`^[0-9]{4}-[0-9]{2}-[0-9]{2} [0-9]{2}:[0-9]{2}:[0-9]{2}$`),
		match: shapeMatcher("0000-00-00 00:00:00"), text: "must be a time of shape YYYY-MM-DD HH:MM:SS", minLen: -1, maxLen: -1},
	// term ids (Categories, regions, labels) are not checked against records.
	"term": {name: "term", text: "", minLen: 1, maxLen: 100},
}

// noNULPattern is the pattern of strings without a rule of their own.
var noNULPattern = regexp.MustCompile(`^[^\x00]*$`)

// singleRefPattern is the ref pattern of a single reference, where "" means
// none.
var singleRefPattern = regexp.MustCompile(`^(` + idPattern + `)?$`)

// The read options of the HTTP API (docs/api.md, Read): path keywords after
// a kind or an id list, each followed by its value but OptExcludeFiles. They
// are never record ids (IsReservedID); transport reads paths with these
// names.
const (
	// OptPublished filters by the published flag: /published/{1|0|*}.
	OptPublished = "published"
	// OptFields keeps only the wire names listed: /fields/a,b.
	OptFields = "fields"
	// OptIgnoreFields leaves out the wire names listed: /ignoreFields/a,b.
	OptIgnoreFields = "ignoreFields"
	// OptExcludeFiles leaves out every file field: /excludeFiles, no value.
	OptExcludeFiles = "excludeFiles"
	// OptMapID keeps the Resources assigned to a Map: /mapId/{id}.
	OptMapID = "mapId"
	// OptLimit stops after that many records: /limit/{1..1000}.
	OptLimit = "limit"
	// OptAfter keeps ids greater than it: /after/{id}.
	OptAfter = "after"
	// OptBBox keeps records located inside a box:
	// /bbox/{minLon},{minLat},{maxLon},{maxLat}.
	OptBBox = "bbox"
	// OptUpdatedSince keeps records updated at or after a wall time:
	// /updatedSince/{YYYY-MM-DDTHH:MM:SS}.
	OptUpdatedSince = "updatedSince"
)

// The path keywords of the HTTP API's other routes (clone, batch, schemas):
// like the read options, they are never record ids (IsReservedID).
const (
	// KeywordClone names the clone route: <kind>/clone[/{id}][/map/{mapId}].
	KeywordClone = "clone"
	// KeywordMap names the Map of a clone: .../map/{mapId}.
	KeywordMap = "map"
	// KeywordBatch names the batch routes: <kind>/batch[/{id}].
	KeywordBatch = "batch"
	// KeywordFull asks a schema with every record: <kind>/schema.json/full.
	KeywordFull = "full"
	// KeywordSchema names the JSON Schema of one record: <kind>/schema.json.
	KeywordSchema = "schema.json"
	// KeywordSchemaMultiple names the JSON Schema of a list of records:
	// <kind>/schema.multiple.json.
	KeywordSchemaMultiple = "schema.multiple.json"
	// KeywordOpenAPI names the OpenAPI document of the API: openapi.json,
	// beside the kinds.
	KeywordOpenAPI = "openapi.json"
)

// reservedIDs are the path keywords; they can never be record ids.
var reservedIDs = []string{OptPublished, OptFields, OptIgnoreFields, OptExcludeFiles, OptMapID, OptLimit,
	OptAfter, KeywordClone, KeywordBatch, KeywordFull, KeywordMap, OptBBox, OptUpdatedSince, KeywordSchema, KeywordSchemaMultiple,
	KeywordOpenAPI}

// IsReservedID reports whether s is a path keyword and so never an id.
func IsReservedID(s string) bool {
	for _, w := range reservedIDs {
		if s == w {
			return true
		}
	}
	return false
}

// ValidID reports whether s may be a record id: 3 to 80 characters of
// A-Z a-z 0-9 . _ ~ : @ -, not starting with ".", not a path keyword.
func ValidID(s string) bool {
	return matchID(s) && !IsReservedID(s)
}

func isHTTPURL(s string) bool {
	return plainHTTPURL(s) || parsedHTTPURL(s)
}

// plainHTTPURL recognises, without parsing, URLs that parsedHTTPURL always
// takes: http or https, a host of ASCII letters, digits, dots and hyphens
// with an optional port, no user info, and no percent sign, control or
// space. url.Parse took a tenth of a validating decode; TestPlainHTTPURL
// holds the two together.
func plainHTTPURL(s string) bool {
	s, ok := cutHTTPScheme(s)
	if !ok {
		return false
	}
	i := 0
	for i < len(s) && (isDigit(s[i]) || 'a' <= s[i]|0x20 && s[i]|0x20 <= 'z' || s[i] == '.' || s[i] == '-') {
		i++
	}
	if i == 0 {
		return false
	}
	if i < len(s) && s[i] == ':' {
		for i++; i < len(s) && isDigit(s[i]); i++ {
		}
	}
	if i < len(s) && s[i] != '/' && s[i] != '?' && s[i] != '#' {
		return false
	}
	for ; i < len(s); i++ {
		if c := s[i]; c <= 0x20 || c == 0x7F || c == '%' {
			return false
		}
	}
	return true
}

// parsedHTTPURL asks net/url whether s is an absolute http or https URL
// naming a host.
func parsedHTTPURL(s string) bool {
	u, err := url.Parse(s)
	// url.Parse lowercases the scheme; the pattern has already limited it.
	// A zone (%) names an interface of the client, never a server.
	return err == nil && (u.Scheme == "http" || u.Scheme == "https") && u.Hostname() != "" &&
		!strings.Contains(u.Host, "%")
}

// isEmail backs the pattern with net/mail itself: every address the
// pattern takes, net/mail reads as a bare address.
func isEmail(s string) bool {
	a, err := mail.ParseAddress(s)
	return err == nil && a.Name == ""
}

func isDate(s string) bool {
	_, err := time.Parse(time.DateOnly, s)
	return err == nil
}

// Hand-written matchers: the same languages as the patterns of their
// rules, without the regular-expression engine, which took a third of the
// time of decoding a record. TestRuleMatchers proves each equal to its
// pattern; the patterns stay the definition (and go to the schema).

// matchID matches idPattern anchored: 3 to 80 of A-Z a-z 0-9 . _ ~ : @ -,
// not starting with ".".
func matchID(s string) bool {
	if len(s) < 3 || len(s) > 80 || s[0] == '.' {
		return false
	}
	for i := 0; i < len(s); i++ {
		if !isIDByte(s[i]) {
			return false
		}
	}
	return true
}

func isIDByte(c byte) bool {
	return ('a' <= c && c <= 'z') || ('A' <= c && c <= 'Z') || ('0' <= c && c <= '9') ||
		c == '.' || c == '_' || c == '~' || c == ':' || c == '@' || c == '-'
}

// aliasExcludedRune reports whether r is in aliasExcluded.
func aliasExcludedRune(r rune) bool {
	switch {
	case r <= 0x20, 0x7F <= r && r <= 0xA0, r == 0x1680, 0x2000 <= r && r <= 0x200A:
		return true
	}
	return r == '\\' || r == 0x061C || 0x200B <= r && r <= 0x200F || 0x2028 <= r && r <= 0x202F || r == 0x205F || r == 0x2060 ||
		0x2066 <= r && r <= 0x2069 || r == 0x3000 || r == 0xFEFF
}

// matchNoNUL matches noNULPattern: every string field without a rule.
func matchNoNUL(s string) bool { return strings.IndexByte(s, 0) < 0 }

// matchColor matches the color pattern.
func matchColor(s string) bool {
	if len(s) != 7 || s[0] != '#' {
		return false
	}
	for i := 1; i < 7; i++ {
		if c := s[i] | 0x20; !isDigit(s[i]) && (c < 'a' || c > 'f') {
			return false
		}
	}
	return true
}

// matchDayLabel matches the daylabel pattern.
func matchDayLabel(s string) bool {
	if len(s) < 2 || s[0] != 'D' || s[1] == '0' {
		return false
	}
	for i := 1; i < len(s); i++ {
		if !isDigit(s[i]) {
			return false
		}
	}
	return true
}

// shapeMatcher matches strings of shape's length with a digit wherever
// shape has 0 and shape's own byte elsewhere.
func shapeMatcher(shape string) func(string) bool {
	return func(s string) bool {
		if len(s) != len(shape) {
			return false
		}
		for i := 0; i < len(s); i++ {
			if shape[i] == '0' && !isDigit(s[i]) || shape[i] != '0' && s[i] != shape[i] {
				return false
			}
		}
		return true
	}
}

func isDigit(c byte) bool { return '0' <= c && c <= '9' }

// matchAlias matches the alias pattern.
func matchAlias(s string) bool {
	if len(s) < 2 || s[0] != '/' || s[1] == '/' {
		return false
	}
	for _, r := range s[1:] {
		if aliasExcludedRune(r) {
			return false
		}
	}
	return true
}

// cutHTTPScheme removes "http://" or "https://", in any case, from s.
func cutHTTPScheme(s string) (string, bool) {
	switch {
	case len(s) >= 7 && equalFoldASCII(s[:7], "http://"):
		return s[7:], true
	case len(s) >= 8 && equalFoldASCII(s[:8], "https://"):
		return s[8:], true
	}
	return s, false
}

// splitHTTPURL matches urlStart and the absence of ASCII controls and
// spaces (urlRest) in s, and returns what follows the authority.
func splitHTTPURL(s string) (rest string, ok bool) {
	if s, ok = cutHTTPScheme(s); !ok {
		return "", false
	}
	for i := 0; i < len(s); i++ {
		if s[i] <= 0x20 || s[i] == 0x7F {
			return "", false
		}
	}
	end := strings.IndexAny(s, "/?#")
	if end < 0 {
		end = len(s)
	}
	authority, rest := s[:end], s[end:]
	if at := strings.IndexByte(authority, '@'); at >= 0 {
		authority = authority[at+1:] // userinfo: anything but "@"
	}
	host, port := authority, ""
	if strings.HasPrefix(authority, "[") {
		close := strings.IndexByte(authority, ']')
		if close < 0 {
			return "", false
		}
		host, port = authority[1:close], authority[close+1:]
		if host == "" || strings.Trim(host, "0123456789abcdefABCDEF:.") != "" {
			return "", false
		}
	} else {
		if colon := strings.IndexByte(authority, ':'); colon >= 0 {
			host, port = authority[:colon], authority[colon:]
		}
		if host == "" || strings.ContainsAny(host, "@[]") {
			return "", false
		}
	}
	if port != "" && (port[0] != ':' || strings.Trim(port[1:], "0123456789") != "") {
		return "", false
	}
	return rest, true
}

// matchHTTPURL matches the uri pattern.
func matchHTTPURL(s string) bool {
	_, ok := splitHTTPURL(s)
	return ok
}

// fileMatcher matches the pattern of fileRule for the given extensions
// (lower case).
func fileMatcher(exts ...string) func(string) bool {
	return func(s string) bool {
		rest, ok := splitHTTPURL(s)
		if !ok || !strings.HasPrefix(rest, "/") {
			return false
		}
		if end := strings.IndexAny(rest, "?#"); end >= 0 {
			rest = rest[:end]
		}
		for _, ext := range exts {
			n := len(rest) - len(ext) - 1
			if n >= 1 && rest[n] == '.' && equalFoldASCII(rest[n+1:], ext) {
				return true
			}
		}
		return false
	}
}

// equalFoldASCII reports whether s equals lower (lower-case ASCII) with
// ASCII letters of s in either case, as [hH] does in a pattern.
func equalFoldASCII(s, lower string) bool {
	if len(s) != len(lower) {
		return false
	}
	for i := 0; i < len(s); i++ {
		c := s[i]
		if 'A' <= c && c <= 'Z' {
			c += 'a' - 'A'
		}
		if c != lower[i] {
			return false
		}
	}
	return true
}
