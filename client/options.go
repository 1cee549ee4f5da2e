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
)

// path is the read path of kind for ids (none: a list) with the options,
// escaped, under the API's root; limit and after, when given, replace the
// options' own.
func (o *readOptions) path(c *Client, kind cms.Kind, ids []string, limit int, after string) string {
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
