package admin

import (
	"bytes"
	"compress/gzip"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"io"
	"iter"
	"math"
	"net/http"
	"net/url"
	"strconv"
	"strings"

	"github.com/bwcms/cms/cms"
)

// The Resource map: <prefix>/resource/?view=map shows every Resource of
// the account with a location, clustered in the browser (mapview.js,
// with supercluster over Leaflet), with the list's filters in its query
// string, and beside it a list of what is in view. The points come from
// <prefix>/resource/points with the same query, in a compact form
// (pointsBody) that a browser keeps: its ETag is the account's position
// in the changes feed, so an account that has not changed answers 304
// without reading a record.

// mapRoutes registers the map's points.
func (h *Handler) mapRoutes(mux *http.ServeMux) {
	mux.HandleFunc("GET /resource/points", h.signedIn(h.points))
}

// mapPage is the data of the map page.
type mapPage struct {
	listPage
	// Points is the address of the points of the page's filters.
	Points string
	// EditBase is the form address of a Resource without its id and
	// "/edit": the script appends them.
	EditBase string
}

// viewSwitch are the addresses of the list and the map of q.
func (h *Handler) viewSwitch(q listQuery) (list, mapView string) {
	v := q.values()
	list = h.url("/resource/") + encodeQuery(v)
	m := mapValues(q)
	m.Set("view", "map")
	return list, h.url("/resource/") + encodeQuery(m)
}

// mapValues are the filters of q the map takes (no sort, page size or
// missing language: a map has no order, and the points carry no
// languages).
func mapValues(q listQuery) url.Values {
	v := url.Values{}
	set := func(k, val, def string) {
		if val != def {
			v.Set(k, val)
		}
	}
	set("q", q.Search, "")
	set("published", q.Published, "all")
	set("map", q.Map, "")
	set("type", q.Type, "")
	set("category", q.Category, "")
	return v
}

// mapView answers the map page of q.
func (h *Handler) mapView(w http.ResponseWriter, r *http.Request, s *session, q listQuery) {
	status, problem := http.StatusOK, searchText(q.Search)
	if problem != "" {
		status = http.StatusBadRequest
	}
	page := mapPage{listPage: h.listPageOf(r, s, cms.KindResource, q), EditBase: h.url("/resource/")}
	page.OnMap = true
	page.Error, page.SearchError = problem, problem
	page.Clear = h.url("/resource/") + "?view=map"
	if problem == "" {
		page.Points = h.url("/resource/points") + encodeQuery(mapValues(q))
	}
	h.render(w, r, status, "mapview", &view{Title: "Resource map", Session: s, Section: string(cms.KindResource), Page: page})
}

// pointsFormat names the form of the points answer: a change of the form
// changes every ETag.
const pointsFormat = "points-1"

// points answers the Resources of the query's filters (published, map,
// type, category, q: the list's) as pointsBody, gzipped when the client
// takes it, with an ETag from the account's changes feed.
func (h *Handler) points(w http.ResponseWriter, r *http.Request) {
	s, _ := sessionFrom(r)
	if !s.P.Can(cms.KindResource, cms.ActionRead) {
		h.renderError(w, r, http.StatusForbidden, "You may not read Resources.")
		return
	}
	q := parseListQuery(r.URL.Query(), cms.KindResource, s.P.Langs)
	if problem := searchText(q.Search); problem != "" {
		h.renderError(w, r, http.StatusBadRequest, problem)
		return
	}
	// The position first: a change after it gives the next request
	// another tag, whatever this one reads.
	feed, err := h.svc.Changes(r.Context(), cms.ChangesParams{After: "now", Limit: 1})
	if err != nil {
		h.fail(w, r, err)
		return
	}
	tag := pointsETag(s.P, mapValues(q), feed.Next)
	hd := w.Header()
	hd.Set("Cache-Control", "private, no-cache")
	hd.Set("ETag", tag)
	hd.Set("Vary", "Accept-Encoding")
	if etagMatches(r.Header.Get("If-None-Match"), tag) {
		w.WriteHeader(http.StatusNotModified)
		return
	}
	p := q.params()
	params := cms.PointsParams{Published: p.Published, MapID: p.MapID, Type: p.Type, Category: p.Category, Search: p.Search}
	var buf bytes.Buffer
	zipped := acceptsGzip(r)
	var out io.Writer = &buf
	var zw *gzip.Writer
	if zipped {
		zw, _ = gzip.NewWriterLevel(&buf, gzip.BestSpeed) // a valid level
		out = zw
	}
	if err := writePoints(out, s.P.Langs.Default, h.svc.ResourcePoints(r.Context(), params)); err != nil {
		hd.Del("ETag")
		hd.Del("Vary")
		hd.Set("Cache-Control", "no-store")
		h.fail(w, r, err)
		return
	}
	if zw != nil {
		_ = zw.Close() // into memory: no error
		hd.Set("Content-Encoding", "gzip")
	}
	hd.Set("Content-Type", "application/json")
	hd.Set("Content-Length", strconv.Itoa(buf.Len()))
	w.WriteHeader(http.StatusOK)
	_, _ = w.Write(buf.Bytes())
}

// pointsETag is the tag of the points of filters for p at the changes
// feed's position: it changes when any record of the account does, and
// with the account's languages (the title shown) and the filters.
func pointsETag(p cms.Principal, filters url.Values, position string) string {
	h := sha256.New()
	for _, part := range []string{pointsFormat, p.Account, p.Langs.Default, strings.Join(p.Langs.All, ","),
		encodeQuery(filters), position} {
		h.Write([]byte(part))
		h.Write([]byte{0})
	}
	return `"` + hex.EncodeToString(h.Sum(nil)[:16]) + `"`
}

// etagMatches reports whether an If-None-Match header names tag (or is
// "*"); weak tags match by their opaque part.
func etagMatches(header, tag string) bool {
	for t := range strings.SplitSeq(header, ",") {
		t = strings.TrimPrefix(strings.TrimSpace(t), "W/")
		if t == tag || t == "*" {
			return true
		}
	}
	return false
}

// acceptsGzip reports whether the client takes a gzipped answer.
func acceptsGzip(r *http.Request) bool {
	for part := range strings.SplitSeq(r.Header.Get("Accept-Encoding"), ",") {
		name, params, _ := strings.Cut(strings.TrimSpace(part), ";")
		if strings.TrimSpace(name) == "gzip" && strings.ReplaceAll(strings.TrimSpace(params), " ", "") != "q=0" {
			return true
		}
	}
	return false
}

// writePoints writes the points body: one JSON object,
//
//	{"types":[...],"categories":[...],"points":[[id,title,type,category,published,lat,lon,lang?],...]}
//
// type and category are indexes into types and categories (-1: none),
// published 1 or 0, lang the title's language only when it is not the
// account's default (a title in another language); a point without a
// title has "". Coordinates to 6 decimals (about 0.1 m: the map
// shows places, the form reads the stored value). About 60 bytes a point
// before gzip.
func writePoints(w io.Writer, defaultLang string, seq iter.Seq2[cms.ResourcePoint, error]) error {
	types, cats := dictionary{}, dictionary{}
	b := make([]byte, 0, 64<<10)
	b = append(b, `{"points":[`...)
	first := true
	for pt, err := range seq {
		if err != nil {
			return err
		}
		if !first {
			b = append(b, ',')
		}
		first = false
		b = append(b, '[')
		b = appendJSONString(b, pt.ID)
		b = append(b, ',')
		b = appendJSONString(b, pt.Title)
		b = append(b, ',')
		b = strconv.AppendInt(b, int64(types.index(pt.Type)), 10)
		b = append(b, ',')
		b = strconv.AppendInt(b, int64(cats.index(pt.Category)), 10)
		if pt.Published {
			b = append(b, ",1,"...)
		} else {
			b = append(b, ",0,"...)
		}
		b = appendCoord(b, pt.Lat)
		b = append(b, ',')
		b = appendCoord(b, pt.Lon)
		if pt.TitleLang != "" && pt.TitleLang != defaultLang {
			b = append(b, ',')
			b = appendJSONString(b, pt.TitleLang)
		}
		b = append(b, ']')
		if len(b) > 48<<10 {
			if _, err := w.Write(b); err != nil {
				return err
			}
			b = b[:0]
		}
	}
	b = append(b, `],"types":`...)
	b = types.appendJSON(b)
	b = append(b, `,"categories":`...)
	b = cats.appendJSON(b)
	b = append(b, '}')
	_, err := w.Write(b)
	return err
}

// dictionary numbers the distinct values of a column in their first
// order; "" is -1.
type dictionary struct {
	byValue map[string]int
	values  []string
}

func (d *dictionary) index(v string) int {
	if v == "" {
		return -1
	}
	if i, ok := d.byValue[v]; ok {
		return i
	}
	if d.byValue == nil {
		d.byValue = map[string]int{}
	}
	d.byValue[v] = len(d.values)
	d.values = append(d.values, v)
	return len(d.values) - 1
}

func (d *dictionary) appendJSON(b []byte) []byte {
	b = append(b, '[')
	for i, v := range d.values {
		if i > 0 {
			b = append(b, ',')
		}
		b = appendJSONString(b, v)
	}
	return append(b, ']')
}

// appendJSONString appends s as a JSON string; plain text without
// quotes, backslashes, controls or markup characters is copied as is.
func appendJSONString(b []byte, s string) []byte {
	plain := true
	for i := 0; i < len(s); i++ {
		if c := s[i]; c < 0x20 || c == '"' || c == '\\' || c == '<' || c == '>' || c == '&' || c >= 0x80 {
			plain = false
			break
		}
	}
	if plain {
		b = append(b, '"')
		b = append(b, s...)
		return append(b, '"')
	}
	q, _ := json.Marshal(s) // a string always marshals
	return append(b, q...)
}

// appendCoord appends a coordinate rounded to 6 decimals, without
// trailing zeros.
func appendCoord(b []byte, v float64) []byte {
	return strconv.AppendFloat(b, math.Round(v*1e6)/1e6, 'f', -1, 64)
}
