package transport

import (
	"errors"
	"net/http"
	"net/url"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/bwcms/cms/cms"
)

// endpoint is what a record path asks for.
type endpoint uint8

const (
	endpointRead endpoint = iota
	endpointUpsert
	endpointDelete
	endpointClone
	endpointSchema
	endpointBatch
	endpointBatchStatus
	// endpointFiles and endpointFile are <base>/file and
	// <base>/file/{id} (file.go); they name no kind.
	endpointFiles
	endpointFile
	// endpointHistory is <base>/<kind>/{id}/history[/{rev}] (history.go).
	endpointHistory
	// endpointWebhooks, endpointWebhook, endpointDeliveries and
	// endpointRetry are the webhook routes (webhook.go); endpointAudit
	// is <base>/audit.
	endpointWebhooks
	endpointWebhook
	endpointDeliveries
	endpointRetry
	endpointAudit
)

// MaxIDs is the most ids one path may name, and the largest /limit.
const MaxIDs = 1000

// recordPath is a record path with its options, parsed once.
type recordPath struct {
	Kind     cms.Kind
	Endpoint endpoint
	// IDs: for reads nil when none is given; for delete at least one; for
	// clone (default Base) and batch status exactly one. Every id is
	// cms.ValidID.
	IDs []string
	// Single: a read named exactly one id (no comma): an object answers.
	Single bool
	// Published: /published/{1|0|*}; cms.PublishedOnly when not given.
	Published cms.Published
	// Fields and IgnoreFields: wire names as given, never empty; the
	// caller checks them against the kind.
	Fields       []string
	IgnoreFields []string
	ExcludeFiles bool
	// MapID: /mapId/{id} of a read, /map/{id} of a clone (Resources only).
	MapID string
	// Limit: /limit/{1..1000}; 0 when not given.
	Limit int
	// After: /after/{id}; "" when not given.
	After string
	// BBox: /bbox/minLon,minLat,maxLon,maxLat (Resources and Maps only).
	BBox *cms.BBox
	// UpdatedSince: /updatedSince/YYYY-MM-DDTHH:MM:SS in the service's
	// zone; zero when not given.
	UpdatedSince time.Time
	// Search: the query form's search (words, as given); "" when not
	// given.
	Search string
	// Multiple: schema.multiple.json; Full: /full.
	Multiple bool
	Full     bool
}

// methodError is a known path asked with a method it does not take: 405
// with Allow. allow is sorted.
type methodError struct{ allow []string }

func (e *methodError) Error() string {
	return "method not allowed; allow " + strings.Join(e.allow, ", ")
}

// The methods of each route, sorted as Allow lists them.
var (
	methodsKind   = []string{http.MethodGet, http.MethodPost}   // <kind>
	methodsIDs    = []string{http.MethodDelete, http.MethodGet} // <kind>/{ids}[/options]
	methodsRead   = []string{http.MethodGet}                    // <kind>/<option>...
	methodsClone  = []string{http.MethodGet, http.MethodPost}   // <kind>/clone[/{id}][/map/{id}]
	methodsSchema = []string{http.MethodGet}                    // <kind>/schema[.multiple].json[/full]
	methodsBatch  = []string{http.MethodPost}                   // <kind>/batch
	methodsStatus = []string{http.MethodGet}                    // <kind>/batch/{id}
)

// errRoute is the 404 of a path that names no route, new each time.
func errRoute() error { return &cms.Error{Code: cms.CodeNotFound, Message: textNotFound} }

// wrong is a malformed path in a known route: 400, with why for the log.
func wrong(why string) error {
	return &cms.Error{Code: cms.CodeMalformed, Message: "Wrong request", Err: errors.New(why)}
}

// The path keywords are cms's (cms.OptPublished, ..., cms.KeywordClone,
// ...). They match only as written: a percent-encoded keyword is not one (it
// reads as a reserved id, or an unknown option), so every reader of the raw
// path (rawEndpoint, which picks the permission) sees the same route as this
// parser.

// parsePath reads the path after "/api/bw/v2/" (r.URL.EscapedPath() with
// that prefix cut, still percent-encoded) for method.
//
// The path is split on '/' and id and name lists on ',' while still
// escaped; then each piece is unescaped and checked, so %2C or %2F is part
// of a (refused) id, never a separator. Kinds and keywords match only
// literally. Errors:
//   - no route (the first segment is not a kind): *cms.Error CodeNotFound
//     "Not found";
//   - a route asked with a method it does not take: *methodError;
//   - anything malformed in a route: *cms.Error CodeMalformed "Wrong
//     request". An empty segment is malformed; a trailing slash names the
//     route without it ("resource/" is the route of "resource", and 400
//     for GET and POST).
//
// A nil loc is UTC.
func parsePath(method, escaped string, loc *time.Location) (*recordPath, error) {
	kindSeg, tail, more := strings.Cut(escaped, "/")
	kind := cms.Kind(kindSeg)
	if !slices.Contains(cms.Kinds(), kind) {
		return nil, errRoute()
	}
	var rest []string
	if more {
		rest = strings.Split(tail, "/")
	}
	// A trailing slash: the same route, written wrong.
	trailing := len(rest) > 0 && rest[len(rest)-1] == ""
	if trailing {
		rest = rest[:len(rest)-1]
	}
	rp := &recordPath{Kind: kind}
	methods := routeOf(rp, rest)
	if !slices.Contains(methods, method) {
		return nil, &methodError{allow: slices.Clone(methods)}
	}
	if trailing {
		return nil, wrong("trailing slash")
	}
	var err error
	switch rp.Endpoint {
	case endpointClone:
		err = parseClone(rp, rest[1:])
	case endpointSchema:
		err = parseSchema(rp, rest)
	case endpointBatch:
	case endpointBatchStatus:
		if len(rest) != 2 {
			return nil, wrong("batch status takes one id")
		}
		var id string
		id, err = parseID(rest[1])
		rp.IDs = []string{id}
	default: // the kind alone, or ids and/or options
		switch {
		case len(rest) == 0 && method == http.MethodPost:
			rp.Endpoint = endpointUpsert
		case method == http.MethodDelete:
			rp.Endpoint = endpointDelete
			if len(rest) != 1 {
				return nil, wrong("delete takes ids only")
			}
			rp.IDs, err = parseIDs(rest[0])
		default:
			if len(rest) > 0 && !isKeyword(rest[0]) {
				rp.IDs, err = parseIDs(rest[0])
				rp.Single = len(rp.IDs) == 1
				rest = rest[1:]
			}
			if err == nil {
				err = parseReadOptions(rp, rest, loc)
			}
		}
	}
	if err != nil {
		return nil, err
	}
	return rp, nil
}

// routeOf sets rp.Endpoint from the segments after the kind, as far as the
// route says it, and returns the route's methods.
func routeOf(rp *recordPath, rest []string) []string {
	if len(rest) == 0 {
		return methodsKind // read of every record, or upsert
	}
	switch rest[0] {
	case cms.KeywordClone:
		rp.Endpoint = endpointClone
		return methodsClone
	case cms.KeywordSchema, cms.KeywordSchemaMultiple:
		rp.Endpoint = endpointSchema
		return methodsSchema
	case cms.KeywordBatch:
		if len(rest) == 1 {
			rp.Endpoint = endpointBatch
			return methodsBatch
		}
		rp.Endpoint = endpointBatchStatus
		return methodsStatus
	}
	if isKeyword(rest[0]) {
		return methodsRead // options without ids
	}
	return methodsIDs
}

func isKeyword(seg string) bool { return cms.IsReservedID(seg) }

// parseSchema reads schema.json or schema.multiple.json and /full.
func parseSchema(rp *recordPath, rest []string) error {
	rp.Multiple = rest[0] == cms.KeywordSchemaMultiple
	switch {
	case len(rest) == 1:
	case len(rest) == 2 && rest[1] == cms.KeywordFull:
		rp.Full = true
	default:
		return wrong("schema takes only /full")
	}
	return nil
}

// parseClone reads [/{id}][/map/{mapId}] after clone.
func parseClone(rp *recordPath, rest []string) error {
	rp.IDs = []string{"Base"} // the record a clone copies when the path names none
	if len(rest) > 0 && rest[0] != cms.KeywordMap {
		id, err := parseID(rest[0])
		if err != nil {
			return err
		}
		rp.IDs[0] = id
		rest = rest[1:]
	}
	if len(rest) == 0 {
		return nil
	}
	if rest[0] != cms.KeywordMap || len(rest) != 2 {
		return wrong("clone takes only /{id} and /map/{id}")
	}
	if rp.Kind != cms.KindResource {
		return wrong("clone /map applies to Resources only")
	}
	id, err := parseID(rest[1])
	if err != nil {
		return err
	}
	rp.MapID = id
	return nil
}

// parseReadOptions reads keyword[/value] options, in any order, each once.
func parseReadOptions(rp *recordPath, rest []string, loc *time.Location) error {
	var seen []string
	for len(rest) > 0 {
		key := rest[0]
		if slices.Contains(seen, key) {
			return wrong("option " + key + " given twice")
		}
		seen = append(seen, key)
		if key == cms.OptExcludeFiles {
			rp.ExcludeFiles = true
			rest = rest[1:]
			continue
		}
		if !isReadOption(key) {
			return wrong("unknown option")
		}
		if len(rest) < 2 {
			return wrong("option " + key + " needs a value")
		}
		pieces, err := splitEscaped(rest[1])
		if err != nil {
			return err
		}
		rest = rest[2:]
		if err := setReadOption(rp, key, pieces, loc); err != nil {
			return err
		}
	}
	return nil
}

// splitEscaped splits a still percent-encoded path value on its literal
// commas, then unescapes each piece: %2C is part of a piece, never a
// separator.
func splitEscaped(raw string) ([]string, error) {
	pieces := strings.Split(raw, ",")
	for i, p := range pieces {
		v, err := url.PathUnescape(p)
		if err != nil {
			return nil, wrong("bad percent-encoding")
		}
		pieces[i] = v
	}
	return pieces, nil
}

// setReadOption checks one option's value, given as its comma-separated
// pieces already unescaped, and sets it on rp. Options of one value
// refuse a comma. It is shared by the path form and the query form.
func setReadOption(rp *recordPath, key string, pieces []string, loc *time.Location) error {
	one := ""
	if len(pieces) == 1 {
		one = pieces[0]
	}
	var err error
	switch key {
	case cms.OptPublished:
		rp.Published, err = checkPublished(one)
	case cms.OptFields:
		rp.Fields, err = checkNames(pieces)
	case cms.OptIgnoreFields:
		rp.IgnoreFields, err = checkNames(pieces)
	case cms.OptMapID:
		if rp.Kind != cms.KindResource {
			return wrong("mapId applies to Resources only")
		}
		rp.MapID, err = checkID(one)
	case cms.OptLimit:
		rp.Limit, err = checkLimit(one)
	case cms.OptAfter:
		rp.After, err = checkID(one)
	case cms.OptBBox:
		if rp.Kind != cms.KindResource && rp.Kind != cms.KindMap {
			return wrong("bbox applies to Resources and Maps only")
		}
		rp.BBox, err = checkBBox(pieces)
	case cms.OptUpdatedSince:
		rp.UpdatedSince, err = checkSince(one, loc)
	default:
		err = wrong("unknown option")
	}
	return err
}

func isReadOption(key string) bool {
	switch key {
	case cms.OptPublished, cms.OptFields, cms.OptIgnoreFields, cms.OptMapID, cms.OptLimit, cms.OptAfter, cms.OptBBox, cms.OptUpdatedSince:
		return true
	}
	return false
}

// parseIDs reads a comma-separated id list: split on the literal commas,
// then each piece unescaped and checked, so an escaped comma is part of an
// (invalid) id. At most MaxIDs.
func parseIDs(raw string) ([]string, error) {
	if strings.Count(raw, ",") >= MaxIDs {
		return nil, wrong("more than 1000 ids")
	}
	pieces, err := splitEscaped(raw)
	if err != nil {
		return nil, err
	}
	return checkIDs(pieces)
}

// checkIDs checks a list of unescaped ids, at most MaxIDs.
func checkIDs(pieces []string) ([]string, error) {
	if len(pieces) > MaxIDs {
		return nil, wrong("more than 1000 ids")
	}
	for _, id := range pieces {
		if _, err := checkID(id); err != nil {
			return nil, err
		}
	}
	return pieces, nil
}

// parseID unescapes and checks one id.
func parseID(raw string) (string, error) {
	id, err := url.PathUnescape(raw)
	if err != nil {
		return "", wrong("bad id")
	}
	return checkID(id)
}

// checkID checks one unescaped id: a valid record id that is no path
// keyword.
func checkID(id string) (string, error) {
	if !cms.ValidID(id) {
		return "", wrong("bad id")
	}
	return id, nil
}

func checkPublished(v string) (cms.Published, error) {
	switch v {
	case "1":
		return cms.PublishedOnly, nil
	case "0":
		return cms.UnpublishedOnly, nil
	case "*":
		return cms.PublishedAny, nil
	}
	return 0, wrong("published: want 1, 0 or *")
}

// fieldName is the shape of a wire name: a name, then _<lang> for a
// language variant (title, title_it, ctaValueSufix).
var fieldName = regexp.MustCompile(`^[A-Za-z][A-Za-z0-9]{0,99}(_[a-z]{2})?$`)

// checkNames checks a list of wire names, kept as given.
func checkNames(pieces []string) ([]string, error) {
	for _, name := range pieces {
		if !fieldName.MatchString(name) {
			return nil, wrong("bad field name")
		}
	}
	return pieces, nil
}

// limitPattern is 1..1000 written plainly: no sign, no leading zero.
var limitPattern = regexp.MustCompile(`^[1-9][0-9]{0,3}$`)

func checkLimit(v string) (int, error) {
	if !limitPattern.MatchString(v) {
		return 0, wrong("limit: want an integer 1..1000")
	}
	n, err := strconv.Atoi(v)
	if err != nil || n > MaxIDs {
		return 0, wrong("limit: want an integer 1..1000")
	}
	return n, nil
}

// decimal is a plain decimal number: an optional -, an integer part
// without leading zeros, an optional fraction; no +, exponent, hex, NaN or
// Inf.
var decimal = regexp.MustCompile(`^-?(0|[1-9][0-9]{0,2})(\.[0-9]+)?$`)

// checkBBox reads minLon,minLat,maxLon,maxLat: each within its range,
// minLat <= maxLat; minLon > maxLon crosses the 180° meridian.
func checkBBox(parts []string) (*cms.BBox, error) {
	if len(parts) != 4 {
		return nil, wrong("bbox: want minLon,minLat,maxLon,maxLat")
	}
	var v [4]float64
	for i, s := range parts {
		if !decimal.MatchString(s) {
			return nil, wrong("bbox: not a decimal number")
		}
		var err error
		if v[i], err = strconv.ParseFloat(s, 64); err != nil {
			return nil, wrong("bbox: not a number")
		}
	}
	b := &cms.BBox{MinLon: v[0], MinLat: v[1], MaxLon: v[2], MaxLat: v[3]}
	lon := func(x float64) bool { return -180 <= x && x <= 180 }
	lat := func(x float64) bool { return -90 <= x && x <= 90 }
	if !lon(b.MinLon) || !lon(b.MaxLon) || !lat(b.MinLat) || !lat(b.MaxLat) || b.MinLat > b.MaxLat {
		return nil, wrong("bbox: outside the ranges")
	}
	return b, nil
}

// sinceLayout is the only shape /updatedSince takes.
const sinceLayout = "2006-01-02T15:04:05"

var sincePattern = regexp.MustCompile(`^[0-9]{4}-[0-9]{2}-[0-9]{2}T[0-9]{2}:[0-9]{2}:[0-9]{2}$`)

// checkSince reads a wall time of loc that exists there: a date and time
// skipped by a clock change is malformed. A wall time that comes twice
// (clocks put back) is its earlier instant, so a client syncing from the
// last time it saw never misses a record.
func checkSince(v string, loc *time.Location) (time.Time, error) {
	if loc == nil {
		loc = time.UTC
	}
	if !sincePattern.MatchString(v) {
		return time.Time{}, wrong("updatedSince: want YYYY-MM-DDTHH:MM:SS")
	}
	wall, err := time.Parse(sinceLayout, v) // the wall clock, read as UTC
	if err != nil {
		return time.Time{}, wrong("updatedSince: not a real date and time")
	}
	// Each offset loc has near that wall time gives a candidate instant;
	// the earliest whose wall clock in loc is v wins.
	var best time.Time
	found := false
	for _, d := range []time.Duration{-48 * time.Hour, 0, 48 * time.Hour} {
		_, off := wall.Add(d).In(loc).Zone()
		t := wall.Add(-time.Duration(off) * time.Second).In(loc)
		if t.Format(sinceLayout) == v && (!found || t.Before(best)) {
			best, found = t, true
		}
	}
	if !found {
		return time.Time{}, wrong("updatedSince: no such time in the zone")
	}
	return best, nil
}
