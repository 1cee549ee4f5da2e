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
)

// MaxIDs is the most ids one path may name.
const MaxIDs = 1000

// recordPath is a record path with its options, parsed once (DECISIONS §3).
type recordPath struct {
	Kind     cms.Kind
	Endpoint endpoint
	// IDs: for reads nil when none is given; for delete at least one; for
	// clone and batch status exactly one.
	IDs []string
	// Single: a read named exactly one id (no comma): an object answers.
	Single       bool
	Published    cms.Published
	Fields       []string
	IgnoreFields []string
	ExcludeFiles bool
	// MapID: /mapId/{id} of a read, /map/{id} of a clone.
	MapID        string
	Limit        int
	After        string
	BBox         *cms.BBox
	UpdatedSince time.Time
	// Multiple: schema.multiple.json; Full: /full.
	Multiple bool
	Full     bool
}

// methodError is a known path asked with a method it does not take.
type methodError struct{ allow []string }

func (e *methodError) Error() string {
	return "method not allowed; allow " + strings.Join(e.allow, ", ")
}

var (
	errRoute    = &cms.Error{Code: cms.CodeNotFound, Message: textNotFound}
	errWrongReq = &cms.Error{Code: cms.CodeMalformed, Message: "Wrong request"}
)

func wrong(why string) error {
	return &cms.Error{Code: cms.CodeMalformed, Message: "Wrong request", Err: errors.New(why)}
}

// The option keywords of reads.
const (
	optPublished    = "published"
	optFields       = "fields"
	optIgnoreFields = "ignoreFields"
	optExcludeFiles = "excludeFiles"
	optMapID        = "mapId"
	optLimit        = "limit"
	optAfter        = "after"
	optBBox         = "bbox"
	optUpdatedSince = "updatedSince"
)

// parsePath reads the path after /api/bw/v2/ (still percent-encoded) for
// method. A path naming no route is CodeNotFound; a route asked with
// another method a *methodError; anything malformed in a known route
// CodeMalformed.
func parsePath(method, escaped string, loc *time.Location) (*recordPath, error) {
	segs := strings.Split(escaped, "/")
	kind := cms.Kind(segs[0])
	if !slices.Contains(cms.Kinds(), kind) {
		return nil, errRoute
	}
	rp := &recordPath{Kind: kind}
	rest := segs[1:]
	head := ""
	if len(rest) > 0 {
		head = rest[0]
	}
	switch head {
	case "clone":
		if err := allow(method, http.MethodGet, http.MethodPost); err != nil {
			return nil, err
		}
		rp.Endpoint = endpointClone
		return rp, parseClone(rp, rest[1:])
	case "schema.json", "schema.multiple.json":
		if err := allow(method, http.MethodGet); err != nil {
			return nil, err
		}
		rp.Endpoint, rp.Multiple = endpointSchema, head == "schema.multiple.json"
		switch {
		case len(rest) == 1:
		case len(rest) == 2 && rest[1] == "full":
			rp.Full = true
		default:
			return nil, wrong("unknown schema option")
		}
		return rp, nil
	case "batch":
		if len(rest) == 1 {
			if err := allow(method, http.MethodPost); err != nil {
				return nil, err
			}
			rp.Endpoint = endpointBatch
			return rp, nil
		}
		if err := allow(method, http.MethodGet); err != nil {
			return nil, err
		}
		rp.Endpoint = endpointBatchStatus
		if len(rest) != 2 {
			return nil, wrong("batch status takes one id")
		}
		id, err := parseID(rest[1])
		if err != nil {
			return nil, err
		}
		rp.IDs = []string{id}
		return rp, nil
	}
	if len(rest) == 0 {
		// The kind alone: create/update, or a read of every record.
		if err := allow(method, http.MethodGet, http.MethodPost); err != nil {
			return nil, err
		}
		if method == http.MethodPost {
			rp.Endpoint = endpointUpsert
		}
		return rp, nil
	}
	// The kind with ids and/or options: a read, or a delete.
	hasIDs := !isKeyword(rest[0])
	if err := allowFor(method, hasIDs); err != nil {
		return nil, err
	}
	if method == http.MethodDelete {
		rp.Endpoint = endpointDelete
		if len(rest) != 1 {
			return nil, wrong("delete takes ids only")
		}
		ids, err := parseIDs(rest[0])
		if err != nil {
			return nil, err
		}
		rp.IDs = ids
		return rp, nil
	}
	rp.Endpoint = endpointRead
	if hasIDs {
		ids, err := parseIDs(rest[0])
		if err != nil {
			return nil, err
		}
		rp.IDs, rp.Single = ids, !strings.Contains(rest[0], ",")
		rest = rest[1:]
	}
	return rp, parseReadOptions(rp, rest, loc)
}

// allow returns a *methodError unless method is one of methods.
func allow(method string, methods ...string) error {
	if slices.Contains(methods, method) {
		return nil
	}
	return &methodError{allow: methods}
}

// allowFor is allow for <kind>/{ids}[/options] (DELETE only with ids).
func allowFor(method string, hasIDs bool) error {
	if hasIDs {
		return allow(method, http.MethodDelete, http.MethodGet)
	}
	return allow(method, http.MethodGet)
}

func isKeyword(seg string) bool { return cms.IsReservedID(seg) }

func parseClone(rp *recordPath, rest []string) error {
	rp.IDs = []string{"Base"}
	if len(rest) > 0 && rest[0] != "map" {
		id, err := parseID(rest[0])
		if err != nil {
			return err
		}
		rp.IDs = []string{id}
		rest = rest[1:]
	}
	if len(rest) == 0 {
		return nil
	}
	if rest[0] != "map" || rp.Kind != cms.KindResource || len(rest) != 2 {
		return wrong("clone takes only /map/{id}, on Resources")
	}
	id, err := parseID(rest[1])
	if err != nil {
		return err
	}
	rp.MapID = id
	return nil
}

// parseReadOptions reads keyword/value pairs, in any order, each once.
func parseReadOptions(rp *recordPath, rest []string, loc *time.Location) error {
	seen := map[string]bool{}
	for len(rest) > 0 {
		key := rest[0]
		if seen[key] {
			return wrong("option " + key + " given twice")
		}
		seen[key] = true
		if key == optExcludeFiles {
			rp.ExcludeFiles = true
			rest = rest[1:]
			continue
		}
		if len(rest) < 2 {
			return wrong("option " + key + " needs a value")
		}
		raw := rest[1]
		rest = rest[2:]
		value, err := url.PathUnescape(raw)
		if err != nil || value == "" {
			return wrong("option " + key + ": bad value")
		}
		switch key {
		case optPublished:
			switch value {
			case "1":
				rp.Published = cms.PublishedOnly
			case "0":
				rp.Published = cms.UnpublishedOnly
			case "*":
				rp.Published = cms.PublishedAny
			default:
				return wrong("published: want 1, 0 or *")
			}
		case optFields, optIgnoreFields:
			names, err := parseNames(raw)
			if err != nil {
				return err
			}
			if key == optFields {
				rp.Fields = names
			} else {
				rp.IgnoreFields = names
			}
		case optMapID:
			if rp.Kind != cms.KindResource {
				return wrong("mapId applies to Resources only")
			}
			id, err := parseID(raw)
			if err != nil {
				return err
			}
			rp.MapID = id
		case optLimit:
			n, err := strconv.Atoi(value)
			if err != nil || n < 1 || n > MaxIDs || strconv.Itoa(n) != value {
				return wrong("limit: want an integer 1..1000")
			}
			rp.Limit = n
		case optAfter:
			id, err := parseID(raw)
			if err != nil {
				return err
			}
			rp.After = id
		case optBBox:
			if rp.Kind != cms.KindResource && rp.Kind != cms.KindMap {
				return wrong("bbox applies to Resources and Maps only")
			}
			b, err := parseBBox(value)
			if err != nil {
				return err
			}
			rp.BBox = b
		case optUpdatedSince:
			t, err := parseSince(value, loc)
			if err != nil {
				return err
			}
			rp.UpdatedSince = t
		default:
			return wrong("unknown option " + key)
		}
	}
	return nil
}

// parseIDs reads a comma-separated id list: split on the literal commas,
// then each piece unescaped and checked, so an escaped comma is part of an
// (invalid) id.
func parseIDs(raw string) ([]string, error) {
	pieces := strings.Split(raw, ",")
	if len(pieces) > MaxIDs {
		return nil, wrong("more than 1000 ids")
	}
	ids := make([]string, len(pieces))
	for i, p := range pieces {
		id, err := parseID(p)
		if err != nil {
			return nil, err
		}
		ids[i] = id
	}
	return ids, nil
}

// parseID unescapes and checks one id (DECISIONS §3).
func parseID(raw string) (string, error) {
	id, err := url.PathUnescape(raw)
	if err != nil || !cms.ValidID(id) || cms.IsReservedID(id) {
		return "", errWrongReq
	}
	return id, nil
}

// fieldName is the shape of a wire name (title, title_it, ctaValueSufix).
var fieldName = regexp.MustCompile(`^[A-Za-z][A-Za-z0-9]*(_[a-z]{2})?$`)

func parseNames(raw string) ([]string, error) {
	var names []string
	for _, p := range strings.Split(raw, ",") {
		name, err := url.PathUnescape(p)
		if err != nil || !fieldName.MatchString(name) {
			return nil, wrong("bad field name")
		}
		names = append(names, name)
	}
	return names, nil
}

// decimal is a plain decimal number: no exponent, no hex, no sign but -.
var decimal = regexp.MustCompile(`^-?(0|[1-9][0-9]{0,2})(\.[0-9]{1,15})?$`)

func parseBBox(value string) (*cms.BBox, error) {
	parts := strings.Split(value, ",")
	if len(parts) != 4 {
		return nil, wrong("bbox: want minLon,minLat,maxLon,maxLat")
	}
	var v [4]float64
	for i, p := range parts {
		if !decimal.MatchString(p) {
			return nil, wrong("bbox: not a decimal number")
		}
		f, err := strconv.ParseFloat(p, 64)
		if err != nil {
			return nil, wrong("bbox: not a number")
		}
		v[i] = f
	}
	b := &cms.BBox{MinLon: v[0], MinLat: v[1], MaxLon: v[2], MaxLat: v[3]}
	if b.MinLon < -180 || b.MinLon > 180 || b.MaxLon < -180 || b.MaxLon > 180 ||
		b.MinLat < -90 || b.MinLat > 90 || b.MaxLat < -90 || b.MaxLat > 90 || b.MinLat > b.MaxLat {
		return nil, wrong("bbox: outside the ranges")
	}
	return b, nil
}

// sinceLayout is the only shape /updatedSince takes.
const sinceLayout = "2006-01-02T15:04:05"

func parseSince(value string, loc *time.Location) (time.Time, error) {
	t, err := time.ParseInLocation(sinceLayout, value, loc)
	if err != nil || t.Format(sinceLayout) != value {
		return time.Time{}, wrong("updatedSince: want YYYY-MM-DDTHH:MM:SS")
	}
	return t, nil
}
