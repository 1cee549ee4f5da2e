package transport

import (
	"encoding/json"
	"net/http"
	"reflect"
	"slices"
	"strconv"
	"strings"

	"github.com/bwcms/cms/cms"
	"github.com/invopop/jsonschema"
)

// The file routes of the OpenAPI document: the media library (upload,
// list, metadata, delete) and the public urls of the bytes.

// fileSchemas puts the bodies of the file routes into components: File,
// FileList, FileUploadAnswer and FileInfo.
func (b *apiBuilder) fileSchemas() {
	for _, s := range []struct {
		name, title, description string
		v                        any
	}{
		{"File", "File", "An uploaded file: where its bytes are, what they are; width and height for images, track for GPX and KML tracks.", fileObject{}},
		{"FileUploadAnswer", "Upload answer", "The file uploaded (201), or the same bytes the account already held (200).", uploadAnswer{}},
		{"FileInfo", "File and its uses", "A file and the record fields that name it.", fileInfo{}},
		{"FileList", "Page of files", "A page of the account's files, newest first.", fileList{}},
	} {
		schema := reflectBody(s.v, s.title, s.description)
		nullPointers(schema, reflect.TypeOf(s.v))
		numberFormats(schema)
		if tr, ok := schema.Properties.Get("track"); ok {
			describeTrack(tr)
		}
		b.schemas[s.name] = schema
	}
	// The list's items are the File schema, not a copy of it.
	if files, ok := b.schemas["FileList"].(*jsonschema.Schema).Properties.Get("files"); ok {
		files.Items = ref("File")
	}
}

// trackDescriptions describe the fields of a track's measurement
// (track.Summary, whose comments reflection cannot read), by JSON name;
// a test checks that every field has one.
var trackDescriptions = map[string]string{
	"distance":     "meters: the great circle distance between consecutive points, summed within each segment",
	"ascent":       "meters climbed, changes under 5 m ignored (0 without elevations)",
	"descent":      "meters descended, changes under 5 m ignored (0 without elevations)",
	"hasElevation": "at least 90% of the points have an elevation",
	"duration":     "minutes from the first point's time to the last's; null unless every point has a time",
	"circular":     "the start and the end are within 100 m of each other",
	"bbox":         "[minLon, minLat, maxLon, maxLat] of every point, in degrees",
	"start":        "the first point",
	"end":          "the last point",
	"points":       "how many points the file holds",
	"name":         "the track's own name in the file, plain text (show it as text, never as HTML); left out when it has none",
	"description":  "the track's own description in the file, plain text (show it as text, never as HTML); left out when it has none",
	"lon":          "longitude, degrees",
	"lat":          "latitude, degrees",
	"ele":          "elevation, meters (when the point has one)",
}

// describeTrack gives the properties of a track's schema, nested ones
// too, their descriptions.
func describeTrack(s *jsonschema.Schema) {
	if s == nil || s.Properties == nil {
		return
	}
	for pair := s.Properties.Oldest(); pair != nil; pair = pair.Next() {
		if d, ok := trackDescriptions[pair.Key]; ok && pair.Value.Description == "" {
			pair.Value.Description = d
		}
		describeTrack(pair.Value)
	}
}

// nullPointers lets the properties that t's pointer fields without
// omitempty (written null when nil) reflect to in s be null too, as the
// record schemas write it (a type list), in nested structs as well.
func nullPointers(s *jsonschema.Schema, t reflect.Type) {
	for t.Kind() == reflect.Pointer || t.Kind() == reflect.Slice || t.Kind() == reflect.Array {
		if t.Kind() != reflect.Pointer {
			if s = s.Items; s == nil {
				return
			}
		}
		t = t.Elem()
	}
	if t.Kind() != reflect.Struct || s.Properties == nil {
		return
	}
	for i := range t.NumField() {
		f := t.Field(i)
		name, opts, _ := strings.Cut(f.Tag.Get("json"), ",")
		if f.Anonymous && name == "" {
			nullPointers(s, f.Type)
			continue
		}
		if name == "" {
			name = f.Name
		}
		p, ok := s.Properties.Get(name)
		if !ok || !f.IsExported() {
			continue
		}
		if f.Type.Kind() == reflect.Pointer && p.Type != "" && !strings.Contains(opts, "omitempty") {
			p.Extras = map[string]any{"type": []string{p.Type, "null"}}
			p.Type = ""
		}
		nullPointers(p, f.Type)
	}
}

// numberFormats gives every number in s without a format the format
// double, as the record schemas have it.
func numberFormats(s *jsonschema.Schema) {
	if s == nil {
		return
	}
	isNumber := s.Type == "number"
	if types, ok := s.Extras["type"].([]string); ok && slices.Contains(types, "number") {
		isNumber = true
	}
	if isNumber && s.Format == "" {
		s.Format = "double"
	}
	numberFormats(s.Items)
	for _, x := range s.OneOf {
		numberFormats(x)
	}
	if s.Properties != nil {
		for pair := s.Properties.Oldest(); pair != nil; pair = pair.Next() {
			numberFormats(pair.Value)
		}
	}
}

// mediaTypes are the media types of the files accepted, in the order the
// document lists them.
var mediaTypes = []string{"image/jpeg", "image/png", "image/webp", "application/vnd.google-earth.kml+xml",
	"application/vnd.google-earth.kmz", "application/gpx+xml"}

// fileParameters are the parameters of the file routes, made by the
// document's helpers for path and query parameters.
func fileParameters(path, query func(name, description string, schema *jsonschema.Schema, example any) *apiParameter) map[string]*apiParameter {
	id := &jsonschema.Schema{Type: "string", Pattern: "^[a-z2-7]{26}$"}
	var widths []any
	for _, w := range cms.ThumbnailWidths() {
		widths = append(widths, w)
	}
	types := make([]any, len(mediaTypes))
	for i, t := range mediaTypes {
		types[i] = t
	}
	const exampleID = "b3jmx7k2q4ahd6fzw5rt2cnp4e"
	return map[string]*apiParameter{
		"fileId": path("fileId", "The file's id.", id, exampleID),
		"fileName": path("fileName", "<slug>.<ext> as the file's url has it: any slug names the file, the extension "+
			"must be its type's (jpg, png, webp, kml, kmz, gpx), else 404.", &jsonschema.Schema{Type: "string"}, "lake-walk.jpg"),
		"fileLimitQuery": query("limit", "At most this many files (default "+strconv.Itoa(cms.DefaultFilePage)+").",
			&jsonschema.Schema{Type: "integer", Format: "int32", Minimum: json.Number("1"), Maximum: json.Number(strconv.Itoa(cms.MaxFilePage))}, 50),
		"fileAfterQuery": query("after", "The next of the page before: the page starts after that file.", id, exampleID),
		"fileTypeQuery": query("type", "Only files of this media type (a + escaped as %2B, or left as it is).",
			&jsonschema.Schema{Type: "string", Enum: types}, "image/jpeg"),
		"fileNameQuery": query("name", "The file's name, for a body of the raw bytes (a multipart part's filename names it "+
			"otherwise): it makes the slug of the url, never the type.", &jsonschema.Schema{Type: "string"}, "Lake walk.jpg"),
		"widthQuery": query("w", "A thumbnail of an image this wide (its height in proportion), made on first request; on a "+
			"file that is not an image, or another width, 400.", &jsonschema.Schema{Type: "integer", Format: "int32", Enum: widths}, 320),
		"fileIfNoneMatch": {Name: "If-None-Match", In: "header", Schema: &jsonschema.Schema{Type: "string"},
			Description: "The ETag of the bytes: 304 while they are the same (they never change under one url)."},
		"Range": {Name: "Range", In: "header", Schema: &jsonschema.Schema{Type: "string"},
			Description: "bytes=<first>-<last>: a part of the bytes (206)."},
	}
}

// withFileHeaders adds the headers of the bytes served to the document's
// shared headers.
func withFileHeaders(headers map[string]*apiHeader) map[string]*apiHeader {
	str := func(description string) *apiHeader {
		return &apiHeader{Description: description, Schema: &jsonschema.Schema{Type: "string"}}
	}
	headers["FileETag"] = str("A strong entity tag of the bytes.")
	headers["CacheControl"] = str(fileCacheControl + ": the bytes under a url never change.")
	headers["ContentSecurityPolicy"] = str(fileCSP + ": a browser runs nothing of the file.")
	headers["XContentTypeOptions"] = str("nosniff: the Content-Type is the stored type, which browsers keep.")
	headers["ContentDisposition"] = str(`attachment; filename="<slug>.<ext>", for every file but images.`)
	headers["AccessControlAllowOrigin"] = str("*: any site may fetch the bytes.")
	headers["AcceptRanges"] = str("bytes")
	headers["ContentRange"] = str("bytes <first>-<last>/<size> of a 206; bytes */<size> of a 416.")
	return headers
}

// fileHeaders are the headers of the bytes served, by name.
func fileHeaders(names ...string) map[string]*apiHeader {
	out := map[string]*apiHeader{}
	for _, n := range names {
		ref := strings.ReplaceAll(n, "-", "")
		if n == "ETag" {
			ref = "FileETag"
		}
		out[n] = &apiHeader{Ref: headerRef + ref}
	}
	return out
}

// filePaths adds the file routes.
func (b *apiBuilder) filePaths() {
	tags := []string{"file"}
	base := recordsBase + fileSegment
	binary := &jsonschema.Schema{Type: "string", Format: "binary"}
	common := func(own map[string]*apiResponse, more ...string) map[string]*apiResponse {
		return responses(own, append(more, recordCommonFail...)...)
	}
	form := &jsonschema.Schema{Type: "object", Required: []string{"file"}, Properties: jsonschema.NewProperties(),
		Description: "Parts other than file are ignored."}
	form.Properties.Set("file", &jsonschema.Schema{Type: "string", Format: "binary", Description: "the file; its filename is the file's name"})
	b.paths.add(base, http.MethodPost, &apiOperation{
		Tags: tags, OperationID: "uploadFile", Summary: "Upload a file",
		Description: "Stores one file of the account: JPEG, PNG or WebP images (at most 40 megapixels and 20 MB), KML " +
			"and GPX (10 MB), KMZ (a zip holding one KML, 2 MB). The type is judged from the content, never from the " +
			"name or the declared type; a GPX or KML track is measured. The body is a multipart form whose part file " +
			"holds the file (its filename is the name; other parts are ignored), or the raw bytes with ?name= (any " +
			"Content-Type). The same bytes again in the account store nothing and answer the file held (200). " +
			"Nothing is stored when anything is refused. Needs file:write.",
		Parameters: []*apiParameter{param("fileNameQuery")},
		RequestBody: &apiRequestBody{Description: "The file, at most " + bytesText(MaxUploadBody) + " in all.", Required: true,
			Content: map[string]*apiMedia{
				"multipart/form-data":      {Schema: form},
				"application/octet-stream": {Schema: binary},
			}},
		Responses: common(map[string]*apiResponse{
			"200": jsonAnswer(`The account already holds these bytes: {"done":"Skip File <id>", ...} and that file.`, ref("FileUploadAnswer")),
			"201": jsonAnswer(`Stored: {"done":"Upload File <id>", ...} and the file.`, ref("FileUploadAnswer")),
			"400": fail(`No part named file, or no bytes: {"fail":"Wrong request"}.`),
			"409": fail(`Not a file of an accepted type, or one that cannot be read (an XML DTD, a KMZ holding no KML, ...): {"fail": what was wrong}.`),
			"413": fail(`Over the type's limit, or over the largest upload: {"fail":"Request too large"}; the connection is closed.`),
		}, "408"),
	})
	b.paths.add(base, http.MethodGet, &apiOperation{
		Tags: tags, OperationID: "listFiles", Summary: "List the account's files",
		Description: "A page of the account's files, newest first; next is the after of the next page (null on the " +
			"last). Needs file:read.",
		Parameters: []*apiParameter{param("fileLimitQuery"), param("fileAfterQuery"), param("fileTypeQuery")},
		Responses: common(map[string]*apiResponse{
			"200": jsonAnswer("The page.", ref("FileList")),
			"400": fail(`limit not in 1..` + strconv.Itoa(cms.MaxFilePage) + `, after not a file id, type not an accepted media type, or any of them twice: {"fail":"Wrong request"}.`),
		}),
	})
	notFound := fail(`No such file in the account (another account's files are none): {"fail":"Not found"}.`)
	b.paths.add(base+"/{fileId}", http.MethodGet, &apiOperation{
		Tags: tags, OperationID: "getFile", Summary: "A file and its uses",
		Description: "The file and the record fields that name it (a file field, or an <img> in an HTML field). Needs file:read.",
		Parameters:  []*apiParameter{param("fileId")},
		Responses: common(map[string]*apiResponse{
			"200": jsonAnswer("The file.", ref("FileInfo")),
			"404": notFound,
		}),
	})
	b.paths.add(base+"/{fileId}", http.MethodDelete, &apiOperation{
		Tags: tags, OperationID: "deleteFile", Summary: "Delete a file",
		Description: "Deletes the file, its bytes and thumbnails, unless a record names it. Needs file:delete.",
		Parameters:  []*apiParameter{param("fileId")},
		Responses: common(map[string]*apiResponse{
			"202": jsonAnswer(`Deleted: {"done":"Deletion of 1 Files done","count":1}.`, ref("DeleteAnswer")),
			"404": notFound,
			"409": fail(`A record names it: {"fail":"File <id> is used by <Kind> <id>"}.`),
		}),
	})

	// The public urls: no token.
	served := func(description string, content map[string]*apiMedia, headers ...string) *apiResponse {
		return &apiResponse{Description: description, Content: content, Headers: fileHeaders(headers...)}
	}
	bytesOf := func(types ...string) map[string]*apiMedia {
		m := map[string]*apiMedia{}
		for _, t := range types {
			m[t] = &apiMedia{Schema: binary}
		}
		return m
	}
	always := []string{"ETag", "Cache-Control", "Content-Security-Policy", "X-Content-Type-Options", "Access-Control-Allow-Origin", "Accept-Ranges"}
	notModified := &apiResponse{Description: "If-None-Match names the ETag: the bytes are the same.", Headers: fileHeaders("ETag", "Cache-Control")}
	badRange := served("The Range is outside the bytes.", map[string]*apiMedia{"text/plain": {Schema: &jsonschema.Schema{Type: "string"}}}, "Content-Range")
	gone := func(what string) *apiResponse { return fail(what + `: {"fail":"Not found"}.`) }
	for _, method := range []string{http.MethodGet, http.MethodHead} {
		verb := map[string]string{http.MethodGet: "get", http.MethodHead: "head"}[method]
		note := ""
		if method == http.MethodHead {
			note = " (HEAD: the headers only)"
		}
		b.paths.add(base+"/{fileId}/"+trackName, method, &apiOperation{
			Tags: tags, OperationID: verb + "FileTrack", Summary: "A track's GeoJSON" + note,
			Description: "The simplified line of a GPX or KML track with what it measured, as a GeoJSON Feature, " +
				"without a token. Served as the files are, but never as an attachment.",
			Security:   noSecurity,
			Parameters: []*apiParameter{param("fileId"), param("fileIfNoneMatch"), param("Range")},
			Responses: responses(map[string]*apiResponse{
				"200": served("The GeoJSON.", bytesOf("application/geo+json"), always...),
				"206": served("A part of it.", bytesOf("application/geo+json"), append(always, "Content-Range")...),
				"304": notModified,
				"400": fail(`w given: a track has no thumbnails: {"fail":"Wrong request"}.`),
				"404": gone("No such file, or it holds no track"),
				"416": badRange,
			}, "500", "503"),
		})
		b.paths.add(base+"/{fileId}/{fileName}", method, &apiOperation{
			Tags: tags, OperationID: verb + "FileBytes", Summary: "A file's bytes" + note,
			Description: "The bytes of the file, or with w a thumbnail of an image, without a token: whoever has the url " +
				"reads the file, for as long as it exists. Served with the stored type (a thumbnail's own), " +
				"nosniff, a sandboxing Content-Security-Policy, a strong ETag, a year of caching (the bytes under a url " +
				"never change), Range requests, and as an attachment for all but images.",
			Security:   noSecurity,
			Parameters: []*apiParameter{param("fileId"), param("fileName"), param("widthQuery"), param("fileIfNoneMatch"), param("Range")},
			Responses: responses(map[string]*apiResponse{
				"200": served("The bytes.", bytesOf(mediaTypes...), append(always, "Content-Disposition")...),
				"206": served("A part of the bytes.", bytesOf(mediaTypes...), append(always, "Content-Disposition", "Content-Range")...),
				"304": notModified,
				"400": fail(`w not one of the widths, or on a file that is not an image: {"fail":"Wrong request"}.`),
				"404": gone("No such file (or deleted), or the extension is not its type's"),
				"416": badRange,
			}, "500", "503"),
		})
	}
}
