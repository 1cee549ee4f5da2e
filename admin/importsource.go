package admin

import (
	"bytes"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"path"
	"slices"
	"strconv"
	"strings"

	"github.com/bwcms/cms/cms"
	"github.com/bwcms/cms/cms/track"
)

// The three sources of an import, each turned into one batch body (the
// kind's schema.multiple.json shape) in the server: a JSON array sent as
// it is, a GeoJSON FeatureCollection of points mapped to Resources, and
// GPX files made TRACK Resources. The files are read whole (the service
// keeps a batch body as one slice anyway, and the form's size is bounded
// by importMaxBody); what is decoded from them is one record at a time.

const (
	sourceJSON    = "json"
	sourceGeoJSON = "geojson"
	sourceGPX     = "gpx"

	// previewRows are the mapped records shown before importing.
	previewRows = 10
	// maxImportProps is how many distinct GeoJSON properties are offered
	// for mapping; samplesPerProp the example values shown of each.
	maxImportProps = 100
	samplesPerProp = 3
)

// importFile is one uploaded file.
type importFile struct {
	name string
	body []byte
}

// importProperty is a GeoJSON property as the mapping shows it.
type importProperty struct {
	Name    string
	Samples []string
	Count   int // features that have it
	To      string
}

// importTrack is a GPX file of an import.
type importTrack struct {
	File     string
	Title    string
	ID       string
	Distance string
	Points   int
	body     []byte
}

// importBatch is a batch built from an upload and what the page shows of
// it.
type importBatch struct {
	kind cms.Kind
	body []byte
	// ids are each record's id as sent ("" when it has no string id), to
	// number the service's problems.
	ids []string
	// Of a GeoJSON file: its properties, the mapping's columns and the
	// first records mapped, the features left out.
	props       []importProperty
	previewCols []string
	preview     [][]string
	notPoints   int
	// Of GPX files.
	tracks []importTrack
	// problems the import itself found (a file that is no track).
	problems []importProblem
}

// jsonBatch is a JSON array of records of kind, taken as it is.
func jsonBatch(kind cms.Kind, f importFile) *importBatch {
	return &importBatch{kind: kind, body: f.body, ids: recordIDs(f.body)}
}

// recordIDs reads the id of each record of a JSON array; nil when body
// is no array (the service says why).
func recordIDs(body []byte) []string {
	dec := json.NewDecoder(bytes.NewReader(body))
	if t, err := dec.Token(); err != nil || t != json.Delim('[') {
		return nil
	}
	var ids []string
	for dec.More() {
		var rec struct {
			ID any `json:"id"`
		}
		if err := dec.Decode(&rec); err != nil {
			return ids
		}
		id, _ := rec.ID.(string)
		ids = append(ids, id)
	}
	return ids
}

// geoFeature is a GeoJSON Feature as the import reads it.
type geoFeature struct {
	Type     string `json:"type"`
	ID       any    `json:"id"`
	Geometry *struct {
		Type        string          `json:"type"`
		Coordinates json.RawMessage `json:"coordinates"`
	} `json:"geometry"`
	Properties json.RawMessage `json:"properties"`
}

// geoProp is one property of a feature.
type geoProp struct {
	name  string
	value any // numbers as json.Number
}

// props are the feature's properties in the file's order (a map would
// lose it, and the mapping lists them as the file has them).
func (f *geoFeature) props() []geoProp {
	dec := json.NewDecoder(bytes.NewReader(f.Properties))
	dec.UseNumber()
	if t, err := dec.Token(); err != nil || t != json.Delim('{') {
		return nil
	}
	var out []geoProp
	for dec.More() {
		t, err := dec.Token()
		if err != nil {
			return out
		}
		name, _ := t.(string)
		var v any
		if err := dec.Decode(&v); err != nil {
			return out
		}
		out = append(out, geoProp{name, v})
	}
	return out
}

// point is the feature's position, if it is a point.
func (f *geoFeature) point() (lat, lon float64, ok bool) {
	if f.Geometry == nil || f.Geometry.Type != "Point" {
		return 0, 0, false
	}
	var c []float64
	if err := json.Unmarshal(f.Geometry.Coordinates, &c); err != nil || len(c) < 2 {
		return 0, 0, false
	}
	return c[1], c[0], true
}

// errNotFeatureCollection is the refusal of a file that is no GeoJSON
// FeatureCollection.
var errNotFeatureCollection = &cms.Error{Code: cms.CodeMalformed,
	Message: "the file is not a GeoJSON FeatureCollection (an object with \"type\": \"FeatureCollection\" and its \"features\")"}

// eachFeature calls fn with every feature of a FeatureCollection, in
// order, decoding one at a time.
func eachFeature(body []byte, fn func(i int, f *geoFeature)) error {
	dec := json.NewDecoder(bytes.NewReader(body))
	dec.UseNumber()
	if t, err := dec.Token(); err != nil || t != json.Delim('{') {
		return errNotFeatureCollection
	}
	seenType, seenFeatures := false, false
	for dec.More() {
		t, err := dec.Token()
		if err != nil {
			return errNotFeatureCollection
		}
		switch t {
		case "type":
			var typ string
			if err := dec.Decode(&typ); err != nil || typ != "FeatureCollection" {
				return errNotFeatureCollection
			}
			seenType = true
		case "features":
			if t, err := dec.Token(); err != nil || t != json.Delim('[') {
				return errNotFeatureCollection
			}
			for i := 0; dec.More(); i++ {
				var f geoFeature
				if err := dec.Decode(&f); err != nil {
					return &cms.Error{Code: cms.CodeMalformed, Message: "feature " + strconv.Itoa(i+1) + " of the file could not be read", Err: err}
				}
				fn(i, &f)
			}
			if _, err := dec.Token(); err != nil {
				return errNotFeatureCollection
			}
			seenFeatures = true
		default:
			var skip json.RawMessage
			if err := dec.Decode(&skip); err != nil {
				return errNotFeatureCollection
			}
		}
	}
	if !seenType || !seenFeatures {
		return errNotFeatureCollection
	}
	return nil
}

// geoProperties lists the properties of a FeatureCollection's points,
// in the order first met, with a few values of each.
func geoProperties(body []byte) ([]importProperty, error) {
	var props []importProperty
	index := map[string]int{}
	err := eachFeature(body, func(_ int, f *geoFeature) {
		if _, _, ok := f.point(); !ok {
			return
		}
		for _, prop := range f.props() {
			name := prop.name
			i, ok := index[name]
			if !ok {
				if len(props) == maxImportProps {
					continue
				}
				i = len(props)
				index[name] = i
				props = append(props, importProperty{Name: name})
			}
			p := &props[i]
			p.Count++
			if s := sampleText(prop.value); s != "" && len(p.Samples) < samplesPerProp && !slices.Contains(p.Samples, s) {
				p.Samples = append(p.Samples, s)
			}
		}
	})
	return props, err
}

// sampleText is a value shown as an example: short, plain text.
func sampleText(v any) string {
	var s string
	switch v := v.(type) {
	case nil:
		return ""
	case string:
		s = v
	case json.Number:
		s = v.String()
	default:
		b, _ := json.Marshal(v)
		s = string(b)
	}
	return clipText(strings.Join(strings.Fields(s), " "), 60)
}

// clipText cuts s to n characters, with an ellipsis.
func clipText(s string, n int) string {
	r := []rune(s)
	if len(r) <= n {
		return s
	}
	return string(r[:n-1]) + "…"
}

// geoBatch maps every point of a FeatureCollection to a Resource: the
// mapped properties, the location from the geometry, and the id from
// the mapping, else the feature's id when it is a valid one, else one
// made from the file's digest and the feature's number (so that the same
// file imported again updates the same Resources).
func geoBatch(f importFile, props []importProperty, m importMapping) (*importBatch, error) {
	b := &importBatch{kind: cms.KindResource, props: props}
	b.previewCols = append([]string{"id"}, slices.DeleteFunc(m.fields(), func(s string) bool { return s == "id" })...)
	b.previewCols = append(b.previewCols, "locationLat", "locationLon")
	sum := sha256.Sum256(f.body)
	stem := "geo-" + hex.EncodeToString(sum[:6]) + "-"
	var buf bytes.Buffer
	buf.WriteByte('[')
	var encErr error
	err := eachFeature(f.body, func(i int, feat *geoFeature) {
		lat, lon, ok := feat.point()
		if !ok {
			b.notPoints++
			return
		}
		rec := map[string]any{"locationLat": lat, "locationLon": lon}
		for _, prop := range feat.props() {
			field := m.to[prop.name]
			if field == "" {
				continue
			}
			if x, ok := m.value(field, prop.value); ok {
				rec[field] = x
			}
		}
		if _, ok := rec["id"]; !ok {
			rec["id"] = stem + strconv.Itoa(i+1)
			if id := sampleText(feat.ID); cms.ValidID(id) {
				rec["id"] = id
			}
		}
		id, _ := rec["id"].(string)
		b.ids = append(b.ids, id)
		if len(b.preview) < previewRows {
			row := make([]string, len(b.previewCols))
			for j, c := range b.previewCols {
				row[j] = cellText(rec[c])
			}
			b.preview = append(b.preview, row)
		}
		raw, err := json.Marshal(rec)
		if err != nil {
			encErr = err
			return
		}
		if len(b.ids) > 1 {
			buf.WriteByte(',')
		}
		buf.Write(raw)
	})
	if err == nil {
		err = encErr
	}
	if err != nil {
		return nil, err
	}
	buf.WriteByte(']')
	b.body = buf.Bytes()
	return b, nil
}

// cellText is a mapped value as a preview cell.
func cellText(v any) string {
	switch v := v.(type) {
	case nil:
		return ""
	case []string:
		return clipText(strings.Join(v, ", "), 60)
	case float64:
		return strconv.FormatFloat(v, 'f', -1, 64)
	}
	return sampleText(v)
}

// gpxBatch makes one TRACK Resource of each GPX file, titled with the
// file's own name (else its file name) and with an id from its digest,
// so that the same file imported again updates its Resource. fileURL
// names the uploaded file of each track (nil for a dry run: nothing is
// uploaded, and the records are checked without their trackFile).
func gpxBatch(files []importFile, fileURL func(importTrack) (string, error)) (*importBatch, error) {
	b := &importBatch{kind: cms.KindResource}
	var recs []map[string]any
	for i, f := range files {
		t, err := track.ParseGPX(bytes.NewReader(f.body), track.Limits{})
		if err != nil {
			text := "is not a GPX track that can be read"
			if fe, ok := errors.AsType[*track.FormatError](err); ok {
				text += ": " + fe.Error()
			} else if errors.Is(err, track.ErrTooLarge) {
				text = "is too large: a track may have at most 10 MB"
			}
			b.problems = append(b.problems, importProblem{Record: i + 1, ID: f.name, Field: "file", Text: text})
			continue
		}
		s := track.Measure(t)
		sum := sha256.Sum256(f.body)
		tr := importTrack{File: f.name, Title: clipText(strings.TrimSpace(s.Name), 100), ID: "track-" + hex.EncodeToString(sum[:8]),
			Distance: distanceText(s.Distance), Points: s.Points, body: f.body}
		if tr.Title == "" {
			tr.Title = clipText(strings.TrimSuffix(f.name, path.Ext(f.name)), 100)
		}
		b.tracks = append(b.tracks, tr)
		recs = append(recs, map[string]any{"id": tr.ID, "title": tr.Title, "resourceType": cms.ResourceTypeTrack})
	}
	if len(b.problems) > 0 || fileURL == nil {
		return b.withRecords(recs)
	}
	for i, tr := range b.tracks {
		u, err := fileURL(tr)
		if err != nil {
			return nil, err
		}
		recs[i]["trackFile"] = u
	}
	return b.withRecords(recs)
}

// withRecords sets b's body to recs.
func (b *importBatch) withRecords(recs []map[string]any) (*importBatch, error) {
	if recs == nil {
		recs = []map[string]any{}
	}
	body, err := json.Marshal(recs)
	if err != nil {
		return nil, fmt.Errorf("admin: import: %w", err)
	}
	b.body = body
	for _, r := range recs {
		id, _ := r["id"].(string)
		b.ids = append(b.ids, id)
	}
	return b, nil
}

// readImportFile reads an upload part whole, at most limit bytes.
func readImportFile(name string, r io.Reader, limit int64) (importFile, error) {
	body, err := io.ReadAll(io.LimitReader(r, limit+1))
	if err != nil {
		return importFile{}, err
	}
	if int64(len(body)) > limit {
		return importFile{}, &cms.Error{Code: cms.CodeTooLarge, Message: "Request too large: " + name + " is over " + strconv.FormatInt(limit>>20, 10) + " MB"}
	}
	return importFile{name: name, body: body}, nil
}
