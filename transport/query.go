package transport

import (
	"net/url"
	"slices"
	"strings"
	"time"

	"github.com/bwcms/cms/cms"
)

// The query form of the read options (DECISIONS §14): the path options as
// query parameters, for generated clients (OpenAPI has no optional path
// segments), and two names of its own.
const (
	// queryIDs names the ids; with it the answer is always an array.
	queryIDs = "ids"
	// querySearch names the words of a search (cms.SearchTerms): query
	// form only, no path keyword.
	querySearch = "search"
)

// parseRequest is parsePath, then for a read the options of the query
// form in rawQuery (the request's query, still encoded). The two forms are
// never mixed: a query option on a path with option segments is 400.
func parseRequest(method, escaped, rawQuery string, loc *time.Location) (*recordPath, error) {
	rp, err := parsePath(method, escaped, loc)
	if err != nil || rp.Endpoint != endpointRead || rawQuery == "" {
		return rp, err
	}
	segments := strings.Count(escaped, "/") // after the kind: ids and options
	if rp.IDs != nil {
		segments--
	}
	if err := parseQueryOptions(rp, rawQuery, segments > 0, loc); err != nil {
		return nil, err
	}
	return rp, nil
}

// queryOption is one option of the query form, its value unescaped.
type queryOption struct{ key, value string }

// parseQueryOptions reads the read options of rawQuery into rp.
// Parameters that are no option are ignored when no option is there (a
// cache-busting parameter keeps working) and refused beside one, as a
// repeated option is. Values are unescaped whole, then split on ',': a
// generated client escapes the commas of a list (%2C), and no id, name or
// number holds a comma.
func parseQueryOptions(rp *recordPath, rawQuery string, pathOptions bool, loc *time.Location) error {
	var opts []queryOption
	others := false
	for part := range strings.SplitSeq(rawQuery, "&") {
		if part == "" {
			continue
		}
		rawKey, rawValue, _ := strings.Cut(part, "=")
		key, err := url.QueryUnescape(rawKey)
		if err != nil || !isQueryOption(key) {
			others = true
			continue
		}
		if slices.ContainsFunc(opts, func(o queryOption) bool { return o.key == key }) {
			return wrong("query option " + key + " given twice")
		}
		value, err := url.QueryUnescape(rawValue)
		if err != nil {
			return wrong("query option " + key + ": bad percent-encoding")
		}
		opts = append(opts, queryOption{key, value})
	}
	switch {
	case len(opts) == 0:
		return nil
	case others:
		return wrong("a query parameter that is no option beside options")
	case pathOptions:
		return wrong("options in both the path and the query")
	}
	for _, o := range opts {
		if err := setQueryOption(rp, o, loc); err != nil {
			return err
		}
	}
	return nil
}

func setQueryOption(rp *recordPath, o queryOption, loc *time.Location) error {
	switch o.key {
	case queryIDs:
		if rp.IDs != nil {
			return wrong("ids in both the path and the query")
		}
		ids, err := checkIDs(strings.Split(o.value, ","))
		if err != nil {
			return err
		}
		rp.IDs, rp.Single = ids, false
		return nil
	case cms.OptExcludeFiles:
		if o.value != "1" && o.value != "true" {
			return wrong("excludeFiles: want 1 or true")
		}
		rp.ExcludeFiles = true
		return nil
	case querySearch:
		// Checked here as the service checks it: an empty search, one
		// without a letter or digit, or over the limits is 400.
		if _, err := cms.SearchTerms(o.value); err != nil {
			return wrong("search: " + err.Error())
		}
		rp.Search = o.value
		return nil
	}
	return setReadOption(rp, o.key, strings.Split(o.value, ","), loc)
}

func isQueryOption(key string) bool {
	return key == queryIDs || key == querySearch || key == cms.OptExcludeFiles || isReadOption(key)
}
