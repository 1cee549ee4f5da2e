package client

import (
	"errors"
	"net/url"
	"strconv"
	"strings"
	"time"

	"github.com/bwcms/cms/cms"
)

// ReadOption is an option of a read: the path options of GET <kind>
// (/published, /fields, ...), and IfNoneMatch for Get.
type ReadOption func(*readOptions)

type readOptions struct {
	published    string // "", "1", "0" or "*"
	fields       []string
	ignoreFields []string
	excludeFiles bool
	mapID        string
	bbox         *cms.BBox
	since        time.Time
	limit        int
	after        string
	pageSize     int
	ifNoneMatch  string
	search       string
	searched     bool // Search given, even ""
}

// Published chooses records by their published flag: cms.PublishedOnly
// (the API's default), cms.UnpublishedOnly or cms.PublishedAny
// (/published/{1|0|*}).
func Published(p cms.Published) ReadOption {
	return func(o *readOptions) {
		switch p {
		case cms.PublishedOnly:
			o.published = "1"
		case cms.UnpublishedOnly:
			o.published = "0"
		case cms.PublishedAny:
			o.published = "*"
		default:
			o.published = "?" + strconv.Itoa(int(p))
		}
	}
}

// Fields keeps only these fields, by wire name (language variants
// included: "title_it"); id always comes (/fields/a,b).
func Fields(names ...string) ReadOption {
	return func(o *readOptions) { o.fields = append(o.fields, names...) }
}

// IgnoreFields leaves these fields out, after Fields (/ignoreFields/a,b).
func IgnoreFields(names ...string) ReadOption {
	return func(o *readOptions) { o.ignoreFields = append(o.ignoreFields, names...) }
}

// ExcludeFiles leaves out every file field (/excludeFiles).
func ExcludeFiles() ReadOption { return func(o *readOptions) { o.excludeFiles = true } }

// MapID keeps the Resources assigned to that Map, in either role
// (/mapId/{id}; Resources only).
func MapID(id string) ReadOption { return func(o *readOptions) { o.mapID = id } }

// BBox keeps the records located inside b, edges included; MinLon >
// MaxLon crosses the 180° meridian (/bbox/...; Resources and Maps only).
func BBox(b cms.BBox) ReadOption { return func(o *readOptions) { o.bbox = &b } }

// UpdatedSince keeps the records updated at or after t
// (/updatedSince/...), written in Options.Location to the second, rounded
// down, so nothing at t is missed.
func UpdatedSince(t time.Time) ReadOption { return func(o *readOptions) { o.since = t } }

// Limit is the most records a list answers: for ListPage the /limit of
// its one request (1 to 1000), for List the most it yields in all.
func Limit(n int) ReadOption { return func(o *readOptions) { o.limit = n } }

// After keeps the ids greater than id (byte order): the page after it
// (/after/{id}); List starts after it.
func After(id string) ReadOption { return func(o *readOptions) { o.after = id } }

// Search keeps the records with a word of their id or of their title (in
// any language) starting with each of the words of search, case and
// accents folded: "città di" finds "Città di Castello" (DECISIONS §14).
// The records still come in ascending id order, so Limit, After and List
// page them. Search has no path form: a read with it sends every option
// in the query form (GET <kind>?search=...). Lists only: Get refuses it,
// GetMany answers through lists. An empty search, or one the server
// refuses (no letter or digit, over cms.MaxSearchLength characters or
// cms.MaxSearchWords words), is an *Error 400.
func Search(search string) ReadOption {
	return func(o *readOptions) { o.search = search; o.searched = true }
}

// PageSize is how many records each request of List asks for (1 to 1000);
// default Options.PageSize.
func PageSize(n int) ReadOption { return func(o *readOptions) { o.pageSize = n } }

// IfNoneMatch makes Get answer ErrNotModified when the record still has
// that ETag (If-None-Match). Get only.
func IfNoneMatch(etag string) ReadOption { return func(o *readOptions) { o.ifNoneMatch = etag } }

// WriteOption is an option of Upsert.
type WriteOption func(*writeOptions)

type writeOptions struct {
	ifMatch string
}

// IfMatch lets Upsert through only while the record has that ETag (from
// Get), else it fails with an *Error 412 (ErrPreconditionFailed); "*"
// only while the record exists (If-Match).
func IfMatch(etag string) WriteOption { return func(o *writeOptions) { o.ifMatch = etag } }

func readOpts(opts []ReadOption) *readOptions {
	o := new(readOptions)
	for _, opt := range opts {
		opt(o)
	}
	return o
}

var (
	errIfNoneMatch = errors.New("client: IfNoneMatch applies to Get only")
	errPageSize    = errors.New("client: PageSize applies to List only")
	errSearchGet   = errors.New("client: Search applies to lists (List, ListPage, GetMany), not Get")
)

// path is the read path of kind for ids (none: a list) with the options,
// escaped, under the API's root; limit and after, when given, replace the
// options' own.
func (o *readOptions) path(c *Client, kind cms.Kind, ids []string, limit int, after string) string {
	if o.searched {
		return o.query(c, kind, ids, limit, after)
	}
	var b strings.Builder
	b.WriteString(string(kind))
	if len(ids) > 0 {
		b.WriteByte('/')
		writeList(&b, ids)
	}
	opt := func(key string, values ...string) {
		b.WriteByte('/')
		b.WriteString(key)
		if len(values) > 0 {
			b.WriteByte('/')
			writeList(&b, values)
		}
	}
	if o.published != "" {
		v := o.published
		if v != "*" { // written as it is, not %2A
			v = url.PathEscape(v)
		}
		opt(cms.OptPublished)
		b.WriteString("/" + v)
	}
	if len(o.fields) > 0 {
		opt(cms.OptFields, o.fields...)
	}
	if len(o.ignoreFields) > 0 {
		opt(cms.OptIgnoreFields, o.ignoreFields...)
	}
	if o.excludeFiles {
		opt(cms.OptExcludeFiles)
	}
	if o.mapID != "" {
		opt(cms.OptMapID, o.mapID)
	}
	if o.bbox != nil {
		f := func(v float64) string { return strconv.FormatFloat(v, 'f', -1, 64) }
		opt(cms.OptBBox, f(o.bbox.MinLon), f(o.bbox.MinLat), f(o.bbox.MaxLon), f(o.bbox.MaxLat))
	}
	if !o.since.IsZero() {
		opt(cms.OptUpdatedSince, o.since.In(c.loc).Format("2006-01-02T15:04:05"))
	}
	if limit > 0 {
		opt(cms.OptLimit, strconv.Itoa(limit))
	}
	if after != "" {
		opt(cms.OptAfter, after)
	}
	return b.String()
}

// query is path in the query form (DECISIONS §14), which a search needs:
// every option a query parameter, lists comma-separated, ids always
// answering an array.
func (o *readOptions) query(c *Client, kind cms.Kind, ids []string, limit int, after string) string {
	var params []string
	add := func(key string, values ...string) {
		params = append(params, key+"="+url.QueryEscape(strings.Join(values, ",")))
	}
	if len(ids) > 0 {
		add("ids", ids...)
	}
	if o.published != "" {
		add(cms.OptPublished, o.published)
	}
	if len(o.fields) > 0 {
		add(cms.OptFields, o.fields...)
	}
	if len(o.ignoreFields) > 0 {
		add(cms.OptIgnoreFields, o.ignoreFields...)
	}
	if o.excludeFiles {
		add(cms.OptExcludeFiles, "1")
	}
	if o.mapID != "" {
		add(cms.OptMapID, o.mapID)
	}
	if o.bbox != nil {
		f := func(v float64) string { return strconv.FormatFloat(v, 'f', -1, 64) }
		add(cms.OptBBox, f(o.bbox.MinLon), f(o.bbox.MinLat), f(o.bbox.MaxLon), f(o.bbox.MaxLat))
	}
	if !o.since.IsZero() {
		add(cms.OptUpdatedSince, o.since.In(c.loc).Format("2006-01-02T15:04:05"))
	}
	if limit > 0 {
		add(cms.OptLimit, strconv.Itoa(limit))
	}
	if after != "" {
		add(cms.OptAfter, after)
	}
	add("search", o.search)
	return url.PathEscape(string(kind)) + "?" + strings.Join(params, "&")
}

// writeList writes values comma-separated, each escaped as a path segment
// (a comma inside a value is escaped, so it never separates).
func writeList(b *strings.Builder, values []string) {
	for i, v := range values {
		if i > 0 {
			b.WriteByte(',')
		}
		b.WriteString(url.PathEscape(v))
	}
}
