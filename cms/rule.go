package cms

import (
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
// controls, and every Unicode space (the pattern holds them as literal
// characters, so RE2 and ECMA-262 read it alike).
const aliasExcluded = `\x00-\x20\x7F-` + "\u009F\u00A0\u1680\u2000-\u200A\u2028\u2029\u202F\u205F\u3000\uFEFF"

// The e-mail grammar (contactEmail) is a practical subset of RFC 5321's
// mailbox, the one of HTML's <input type=email> and of common "email"
// format checks, with SMTP's lengths: a dot-atom local part of ASCII atext
// (no quoted string), "@", and a domain name of at least two LDH labels
// (letters, digits and "-" inside, 1 to 63 characters each; an IDN domain
// in its xn-- form). No IP literal, no comment, no display name. Local part
// at most 64 characters, whole address at most 254: a regular expression
// cannot bound the length of parts it also shapes, so the lengths are
// patterns of their own (emailLimits). Every address it takes is a bare
// address net/mail reads unchanged (DECISIONS §5) and valid to the JSON
// Schema format "email".
const (
	emailAtext   = "[A-Za-z0-9!#$%&'*+/=?^_`{|}~-]"
	emailLabel   = `[A-Za-z0-9]([A-Za-z0-9-]{0,61}[A-Za-z0-9])?`
	emailPattern = `^` + emailAtext + `+(\.` + emailAtext + `+)*@` + emailLabel + `(\.` + emailLabel + `)+$`
)

// emailLimits are the lengths of the e-mail grammar: local part, whole
// address (printable ASCII, as the pattern has it).
var emailLimits = []*regexp.Regexp{
	regexp.MustCompile(`^[\x21-\x3F\x41-\x7E]{1,64}@`),
	regexp.MustCompile(`^[\x21-\x7E]{1,254}$`),
}

func fileRule(name, ext, text string) *rule {
	return &rule{
		name:    name,
		pattern: regexp.MustCompile(urlStart + filePathStart + ext + fileEnd),
		format:  "uri", check: isHTTPURL, text: text, minLen: -1, maxLen: -1, file: true,
	}
}

// rules are immutable after package initialisation.
var rules = map[string]*rule{
	"id": {name: "id", pattern: regexp.MustCompile(`^` + idPattern + `$`),
		text: "must be 3 to 80 characters of A-Z a-z 0-9 . _ ~ : @ - not starting with .", minLen: 3, maxLen: 80},
	// ref names another record; a single reference may be "" (none).
	"ref": {name: "ref", pattern: regexp.MustCompile(`^` + idPattern + `$`),
		text: "must be a record id", minLen: -1, maxLen: -1},
	"uri": {name: "uri", pattern: regexp.MustCompile(urlStart + `([/?#]` + urlRest + `)?$`), format: "uri",
		check: isHTTPURL, text: "must be an absolute http or https URL", minLen: -1, maxLen: -1},
	"image":     fileRule("image", fileExtImage, "must be an http or https URL of a .jpg, .jpeg, .png or .webp file"),
	"layer":     fileRule("layer", fileExtLayer, "must be an http or https URL of a .kml or .kmz file"),
	"trackfile": fileRule("trackfile", fileExtTrack, "must be an http or https URL of a .gpx or .kml file"),
	"email": {name: "email", pattern: regexp.MustCompile(emailPattern), limits: emailLimits, format: "email",
		text: "must be an e-mail address", minLen: -1, maxLen: -1},
	"alias": {name: "alias", pattern: regexp.MustCompile(`^/[^/` + aliasExcluded + `][^` + aliasExcluded + `]*$`),
		text: "must start with / (not //) and contain no spaces or control characters", minLen: -1, maxLen: -1},
	"color": {name: "color", pattern: regexp.MustCompile(`^#[0-9A-Fa-f]{6}$`),
		text: "must be a colour of shape #RRGGBB", minLen: -1, maxLen: -1},
	"daylabel": {name: "daylabel", pattern: regexp.MustCompile(`^D[1-9][0-9]*$`),
		text: "must be a day label of shape D1, D2, ...", minLen: -1, maxLen: -1},
	"date": {name: "date", pattern: regexp.MustCompile(`^[0-9]{4}-[0-9]{2}-[0-9]{2}$`), format: "date",
		check: isDate, text: "must be a date of shape YYYY-MM-DD", minLen: -1, maxLen: -1},
	"timestamp": {name: "timestamp", pattern: regexp.MustCompile(`^[0-9]{4}-[0-9]{2}-[0-9]{2} [0-9]{2}:[0-9]{2}:[0-9]{2}$`),
		text: "must be a time of shape YYYY-MM-DD HH:MM:SS", minLen: -1, maxLen: -1},
	// term ids (Categories, regions, labels) are not checked against records.
	"term": {name: "term", text: "", minLen: 1, maxLen: 100},
}

// noNULPattern is the pattern of strings without a rule of their own.
var noNULPattern = regexp.MustCompile(`^[^\x00]*$`)

// singleRefPattern is the ref pattern of a single reference, where "" means
// none.
var singleRefPattern = regexp.MustCompile(`^(` + idPattern + `)?$`)

// reservedIDs are the path keywords; they can never be record ids.
var reservedIDs = []string{"published", "fields", "ignoreFields", "excludeFiles", "mapId", "limit",
	"after", "clone", "batch", "full", "map", "bbox", "updatedSince", "schema.json", "schema.multiple.json"}

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
	return rules["id"].pattern.MatchString(s) && !IsReservedID(s)
}

func isHTTPURL(s string) bool {
	u, err := url.Parse(s)
	// url.Parse lowercases the scheme; the pattern has already limited it.
	// A zone (%) names an interface of the client, never a server.
	return err == nil && (u.Scheme == "http" || u.Scheme == "https") && u.Hostname() != "" &&
		!strings.Contains(u.Host, "%")
}

func isDate(s string) bool {
	_, err := time.Parse(time.DateOnly, s)
	return err == nil
}
