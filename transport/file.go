package transport

import (
	"io"
	"mime"
	"net/http"
	"net/url"
	"slices"
	"strings"

	"github.com/bwcms/cms/cms"
	"github.com/bwcms/cms/cms/track"
)

// fileSegment is the first path segment of every file route.
const fileSegment = string(cms.AreaFile)

// trackName is the last segment of a track's GeoJSON: no uploaded file's
// url can end so, its extension being its detected type's.
const trackName = "track.geojson"

// MaxUploadBody is the largest upload body: the largest file accepted
// (cms.MaxUpload, 20 MiB) and 64 KiB of multipart framing. The service
// refuses each type over its own, smaller or equal, limit.
const MaxUploadBody = cms.MaxUpload + 64<<10

// fileRoute is which file path a request names.
type fileRoute uint8

const (
	// fileRouteLibrary is <base>/file: list (GET), upload (POST).
	fileRouteLibrary fileRoute = iota + 1
	// fileRouteOne is <base>/file/{id}: metadata (GET), delete (DELETE).
	fileRouteOne
	// fileRouteBytes is <base>/file/{id}/{slug}.{ext} and
	// <base>/file/{id}/track.geojson: the public bytes (GET, HEAD).
	fileRouteBytes
)

// The methods of each file route, sorted as Allow lists them.
var (
	methodsFiles     = []string{http.MethodGet, http.MethodPost}
	methodsFile      = []string{http.MethodDelete, http.MethodGet}
	methodsFileBytes = []string{http.MethodGet, http.MethodHead}
)

// filePath is a file path as routing reads it.
type filePath struct {
	route fileRoute
	// id is the file id segment, still escaped (a file id never needs
	// escaping, so an escaped one is no file's); name the last segment,
	// unescaped, of the bytes route.
	id, name string
	// trailing: the path ends with a slash (the route written wrong).
	trailing bool
}

// parseFilePath reads rest, the path under the API's root, when it is
// "file" or under "file/"; ok is false for a path of no file route.
func parseFilePath(rest string) (fp filePath, ok bool) {
	segs := strings.Split(rest, "/")
	if segs[0] != fileSegment {
		return fp, false
	}
	if n := len(segs); n > 1 && segs[n-1] == "" {
		fp.trailing = true
		segs = segs[:n-1]
	}
	if slices.Contains(segs[1:], "") {
		return fp, false
	}
	switch len(segs) {
	case 1:
		fp.route = fileRouteLibrary
	case 2:
		fp.route, fp.id = fileRouteOne, segs[1]
	case 3:
		name, err := url.PathUnescape(segs[2])
		if err != nil {
			return fp, false
		}
		fp.route, fp.id, fp.name = fileRouteBytes, segs[1], name
	default:
		return fp, false
	}
	return fp, true
}

// isPublicFilePath reports whether rest is a path of the public bytes,
// which answer without a token and outside the API's CORS rules.
func isPublicFilePath(rest string) bool {
	fp, ok := parseFilePath(rest)
	return ok && fp.route == fileRouteBytes
}

func (r fileRoute) methods() []string {
	switch r {
	case fileRouteLibrary:
		return methodsFiles
	case fileRouteOne:
		return methodsFile
	}
	return methodsFileBytes
}

// label is the route's name for the Observer and the access log: a few
// fixed names, never an id.
func (fp filePath) label(method string) string {
	switch {
	case fp.route == fileRouteLibrary && method == http.MethodGet:
		return "file list"
	case fp.route == fileRouteLibrary && method == http.MethodPost:
		return "file upload"
	case fp.route == fileRouteLibrary:
		return "file library"
	case fp.route == fileRouteOne && method == http.MethodGet:
		return "file read"
	case fp.route == fileRouteOne && method == http.MethodDelete:
		return "file delete"
	case fp.route == fileRouteOne:
		return "file one"
	case fp.name == trackName:
		return "file track"
	}
	return "file bytes"
}

// endpoint is the route's row of the permission table.
func (r fileRoute) endpoint() endpoint {
	if r == fileRouteLibrary {
		return endpointFiles
	}
	return endpointFile
}

// serveFiles answers every path under <base>/file: routing first (404,
// 405); the public bytes then, without a token; the others 401, 403, then
// their query and body (400).
func (h *Handler) serveFiles(w http.ResponseWriter, r *http.Request, rest string) {
	fp, ok := parseFilePath(rest)
	if !ok || fp.route == fileRouteBytes {
		// Every answer of a public url, refusals too, is one a browser
		// may be led to open: it sniffs nothing and runs nothing.
		setFileSafety(w)
	}
	if !ok {
		writeFail(w, http.StatusNotFound, textNotFound)
		return
	}
	nameRoute(r, fp.label(r.Method))
	if methods := fp.route.methods(); !slices.Contains(methods, r.Method) {
		w.Header().Set("Allow", joinMethods(methods))
		writeFail(w, http.StatusMethodNotAllowed, textMethodNotAllowed)
		return
	}
	if fp.route == fileRouteBytes {
		h.serveFileBytes(w, r, fp)
		return
	}
	target, action := permissionOf(r.Method, "", fp.route.endpoint())
	ctx, err := h.authorize(r, target, action)
	if err != nil {
		h.writeError(w, r, err)
		return
	}
	if fp.trailing {
		h.writeError(w, r, wrong("trailing slash"))
		return
	}
	r = r.WithContext(ctx)
	switch {
	case fp.route == fileRouteLibrary && r.Method == http.MethodGet:
		h.listFiles(w, r)
	case fp.route == fileRouteLibrary:
		h.uploadFile(w, r)
	case r.Method == http.MethodGet:
		h.getFile(w, r, fp.id)
	default:
		h.deleteFile(w, r, fp.id)
	}
}

// errNoFile is the 404 of a file id that names no file of the caller.
func errNoFile() error { return &cms.Error{Code: cms.CodeNotFound, Message: textNotFound} }

// fileObject is a file as the API answers it, in the wire's key order.
type fileObject struct {
	ID      string     `json:"id" jsonschema:"pattern=^[a-z2-7]{26}$" jsonschema_description:"the file's id: 26 characters of a-z and 2-7"`
	URL     string     `json:"url" jsonschema:"format=uri" jsonschema_description:"where anyone fetches the bytes, without a token: <public url>/api/bw/v2/file/<id>/<slug>.<ext>"`
	Name    string     `json:"name" jsonschema_description:"the name it was uploaded with"`
	Type    string     `json:"type" jsonschema:"enum=image/jpeg,enum=image/png,enum=image/webp,enum=application/vnd.google-earth.kml+xml,enum=application/vnd.google-earth.kmz,enum=application/gpx+xml" jsonschema_description:"the media type judged from the content"`
	Size    int64      `json:"size" jsonschema_description:"bytes"`
	SHA256  string     `json:"sha256" jsonschema:"pattern=^[0-9a-f]{64}$" jsonschema_description:"the SHA-256 digest of the bytes, hex"`
	Created string     `json:"created" jsonschema:"pattern=^[0-9]{4}-[0-9]{2}-[0-9]{2} [0-9]{2}:[0-9]{2}:[0-9]{2}$" jsonschema_description:"when it was uploaded (YYYY-MM-DD HH:MM:SS in the service's zone, as timeLastUpdate)"`
	Width   int        `json:"width,omitempty" jsonschema_description:"an image's width in pixels (images only)"`
	Height  int        `json:"height,omitempty" jsonschema_description:"an image's height in pixels (images only)"`
	Track   *fileTrack `json:"track,omitempty" jsonschema_description:"what the track measured (GPX and KML files holding a track only)"`
}

// fileTrack is a track's measurement and where its GeoJSON is served.
type fileTrack struct {
	track.Summary
	GeoJSON string `json:"geojson" jsonschema:"format=uri" jsonschema_description:"the simplified line with the measured figures, as GeoJSON, without a token: <public url>/api/bw/v2/file/<id>/track.geojson"`
}

// fileObjectOf is the wire form of f for the client of r.
func (h *Handler) fileObjectOf(r *http.Request, f *cms.File) fileObject {
	o := fileObject{ID: f.ID, URL: h.FileURL(r, *f), Name: f.Name, Type: f.Type, Size: f.Size, SHA256: f.SHA256,
		Created: h.svc.Timestamp(f.Created), Width: f.Width, Height: f.Height}
	if f.Track != nil {
		o.Track = &fileTrack{Summary: *f.Track, GeoJSON: h.servedURL(r) + root + "/" + fileSegment + "/" + f.ID + "/" + trackName}
	}
	return o
}

// uploadAnswer is the answer of an upload: 201 Upload, 200 Skip.
type uploadAnswer struct {
	Done string `json:"done" jsonschema_description:"Upload File <id> (201), or Skip File <id> (200) when the account already holds the same bytes"`
	fileObject
}

// fileInfo is the answer of GET file/{id}: the file and who uses it.
type fileInfo struct {
	fileObject
	UsedBy []fileUse `json:"usedBy" jsonschema_description:"the record fields that name the file ([] when none)"`
}

// fileUse is one record field that names a file.
type fileUse struct {
	Kind  string `json:"kind" jsonschema:"enum=resource,enum=map,enum=landing,enum=proposal" jsonschema_description:"the record's kind"`
	ID    string `json:"id" jsonschema_description:"the record's id"`
	Field string `json:"field" jsonschema_description:"the field (an HTML field when an <img> in it shows the file)"`
}

// fileList is the answer of GET file: a page, newest first.
type fileList struct {
	Files []fileObject `json:"files" jsonschema_description:"the files, newest first"`
	Next  *string      `json:"next" jsonschema_description:"the after of the next page; null on the last"`
}

func (h *Handler) listFiles(w http.ResponseWriter, r *http.Request) {
	page, err := filePageOf(r.URL.RawQuery)
	if err != nil {
		h.writeError(w, r, err)
		return
	}
	files, next, err := h.svc.ListFiles(r.Context(), page)
	if err != nil {
		h.writeError(w, r, err)
		return
	}
	body := fileList{Files: make([]fileObject, len(files))}
	for i := range files {
		body.Files[i] = h.fileObjectOf(r, &files[i])
	}
	if next != "" {
		body.Next = &next
	}
	writeJSON(w, http.StatusOK, body)
}

// filePageOf reads ?limit=&after=&type=, each at most once; other
// parameters are not read.
func filePageOf(rawQuery string) (cms.FilePage, error) {
	var page cms.FilePage
	q, err := url.ParseQuery(rawQuery)
	if err != nil {
		return page, wrong("bad query string")
	}
	one := func(key string) (string, bool, error) {
		v, ok := q[key]
		if len(v) > 1 {
			return "", false, wrong(key + " given twice")
		}
		if !ok {
			return "", false, nil
		}
		return v[0], true, nil
	}
	if v, ok, err := one("limit"); err != nil {
		return page, err
	} else if ok {
		if page.Limit, err = checkLimit(v); err != nil {
			return page, err
		}
	}
	if v, ok, err := one("after"); err != nil {
		return page, err
	} else if ok {
		if !cms.IsFileID(v) {
			return page, wrong("after: not a file id")
		}
		page.After = v
	}
	if v, ok, err := one("type"); err != nil {
		return page, err
	} else if ok {
		// A + left unescaped in a query string reads as a space, and no
		// media type has one: application/gpx+xml typed as it is.
		v = strings.ReplaceAll(v, " ", "+")
		if cms.FileExt(v) == "" {
			return page, wrong("type: not a media type of files")
		}
		page.Type = v
	}
	return page, nil
}

func (h *Handler) getFile(w http.ResponseWriter, r *http.Request, rawID string) {
	if !cms.IsFileID(rawID) {
		h.writeError(w, r, errNoFile())
		return
	}
	f, uses, err := h.svc.GetFile(r.Context(), rawID)
	if err != nil {
		h.writeError(w, r, err)
		return
	}
	body := fileInfo{fileObject: h.fileObjectOf(r, f), UsedBy: make([]fileUse, len(uses))}
	for i, u := range uses {
		body.UsedBy[i] = fileUse{Kind: string(u.FromKind), ID: u.FromID, Field: u.Field}
	}
	writeJSON(w, http.StatusOK, body)
}

func (h *Handler) deleteFile(w http.ResponseWriter, r *http.Request, rawID string) {
	if !cms.IsFileID(rawID) {
		h.writeError(w, r, errNoFile())
		return
	}
	if err := h.svc.DeleteFile(r.Context(), rawID); err != nil {
		h.writeError(w, r, err)
		return
	}
	writeJSON(w, http.StatusAccepted, deleteBody{Done: "Deletion of 1 Files done", Count: 1})
}

// uploadFile stores the one file of the body: the part file of a
// multipart form, else the raw body named by ?name=. The bytes go to the
// service as they arrive, never held whole here.
func (h *Handler) uploadFile(w http.ResponseWriter, r *http.Request) {
	if err := limitBody(w, r, MaxUploadBody); err != nil {
		h.writeError(w, r, err)
		return
	}
	body := &watchedBody{ReadCloser: r.Body}
	r.Body = body
	up, err := uploadOf(r)
	if err == nil {
		var f *cms.File
		var existing bool
		if f, existing, err = h.svc.UploadFile(r.Context(), up); err == nil {
			status, verb := http.StatusCreated, "Upload"
			if existing {
				status, verb = http.StatusOK, "Skip"
			}
			writeJSON(w, status, uploadAnswer{Done: verb + " File " + f.ID, fileObject: h.fileObjectOf(r, f)})
			return
		}
	}
	// Whatever the service or the form reader made of it, a body cut
	// at the limit is 413 and one that stopped coming 408.
	if f := readFailure(body.err); f != nil {
		err = f
	}
	h.writeError(w, r, err)
}

// uploadOf finds the upload in r's body.
func uploadOf(r *http.Request) (cms.Upload, error) {
	ct, _, _ := mime.ParseMediaType(r.Header.Get("Content-Type"))
	if ct != "multipart/form-data" {
		names := r.URL.Query()["name"]
		if len(names) > 1 {
			return cms.Upload{}, wrong("name given twice")
		}
		up := cms.Upload{Body: r.Body}
		if len(names) == 1 {
			up.Name = names[0]
		}
		return up, nil
	}
	mr, err := r.MultipartReader()
	if err != nil {
		return cms.Upload{}, bodyReadError(err)
	}
	for {
		// NextPart reads past the parts before, whatever they hold.
		part, err := mr.NextPart()
		if err == io.EOF {
			return cms.Upload{}, wrong("multipart form without a part named file")
		}
		if err != nil {
			return cms.Upload{}, bodyReadError(err)
		}
		if part.FormName() == "file" {
			return cms.Upload{Name: part.FileName(), Body: part}, nil
		}
	}
}

// watchedBody keeps the first error reading a request body met, so a
// body over the limit or too slow is told apart from what a reader above
// made of it.
type watchedBody struct {
	io.ReadCloser
	err error
}

func (b *watchedBody) Read(p []byte) (int, error) {
	n, err := b.ReadCloser.Read(p)
	if err != nil && err != io.EOF && b.err == nil {
		b.err = err
	}
	return n, err
}
