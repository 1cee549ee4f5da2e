package transport

import (
	"bytes"
	"encoding/json"
	"image"
	_ "image/jpeg" // thumbnails decoded
	"net/http"
	"net/http/httptest"
	"strconv"
	"strings"
	"testing"
)

// fileGet asks the public url u (a full url or a path) with method and
// the header pairs given, and no token unless a header sets one.
func (e *env) fileGet(method, u string, header ...string) *httptest.ResponseRecorder {
	r := httptest.NewRequest(method, u, nil)
	for i := 0; i+1 < len(header); i += 2 {
		r.Header.Set(header[i], header[i+1])
	}
	return e.do(r)
}

// TestFileServed: a JPEG at its url without any token, with every header
// the bytes are served with; HEAD; a Range (206 with the bytes asked);
// an unsatisfiable one (416); If-None-Match (304); any slug; a wrong
// extension (404); a bad Authorization header changes nothing.
func TestFileServed(t *testing.T) {
	t.Parallel()
	e := newFileEnv(t, envOptions{})
	jpg := photo(t, 1600, 1200, 60)
	f := e.uploaded("admin", "Lake walk.jpg", jpg)

	w := e.fileGet(http.MethodGet, f.URL)
	if w.Code != http.StatusOK || !bytes.Equal(w.Body.Bytes(), jpg) {
		t.Fatalf("GET %s: %d, %d bytes, want the %d uploaded", f.URL, w.Code, w.Body.Len(), len(jpg))
	}
	etag := w.Header().Get("ETag")
	want := map[string]string{
		"Content-Type":                "image/jpeg",
		"Content-Length":              strconv.Itoa(len(jpg)),
		"X-Content-Type-Options":      "nosniff",
		"Content-Security-Policy":     "sandbox; default-src 'none'",
		"Cache-Control":               "public, max-age=31536000, immutable",
		"Accept-Ranges":               "bytes",
		"Access-Control-Allow-Origin": "*",
		"Content-Disposition":         "", // an image shows inline
	}
	for k, v := range want {
		if got := w.Header().Get(k); got != v {
			t.Errorf("%s: %q, want %q", k, got, v)
		}
	}
	if len(etag) < 3 || !strings.HasPrefix(etag, `"`) || !strings.HasSuffix(etag, `"`) {
		t.Errorf("ETag %q: want a strong one", etag)
	}

	head := e.fileGet(http.MethodHead, f.URL)
	if head.Code != http.StatusOK || head.Body.Len() != 0 || head.Header().Get("Content-Length") != strconv.Itoa(len(jpg)) ||
		head.Header().Get("ETag") != etag || head.Header().Get("Content-Type") != "image/jpeg" {
		t.Errorf("HEAD: %d, %d bytes, headers %v", head.Code, head.Body.Len(), head.Header())
	}

	part := e.fileGet(http.MethodGet, f.URL, "Range", "bytes=1000-4999")
	if part.Code != http.StatusPartialContent || !bytes.Equal(part.Body.Bytes(), jpg[1000:5000]) ||
		part.Header().Get("Content-Range") != "bytes 1000-4999/"+strconv.Itoa(len(jpg)) {
		t.Errorf("Range: %d %q, %d bytes", part.Code, part.Header().Get("Content-Range"), part.Body.Len())
	}
	tail := e.fileGet(http.MethodGet, f.URL, "Range", "bytes=-100")
	if tail.Code != http.StatusPartialContent || !bytes.Equal(tail.Body.Bytes(), jpg[len(jpg)-100:]) {
		t.Errorf("suffix Range: %d, %d bytes", tail.Code, tail.Body.Len())
	}
	if w := e.fileGet(http.MethodGet, f.URL, "Range", "bytes="+strconv.Itoa(len(jpg))+"-"); w.Code != http.StatusRequestedRangeNotSatisfiable ||
		w.Header().Get("Content-Range") != "bytes */"+strconv.Itoa(len(jpg)) {
		t.Errorf("unsatisfiable Range: %d %q", w.Code, w.Header().Get("Content-Range"))
	}

	same := e.fileGet(http.MethodGet, f.URL, "If-None-Match", etag)
	if same.Code != http.StatusNotModified || same.Body.Len() != 0 || same.Header().Get("ETag") != etag {
		t.Errorf("If-None-Match: %d, ETag %q", same.Code, same.Header().Get("ETag"))
	}
	if w := e.fileGet(http.MethodGet, f.URL, "If-None-Match", `"another"`); w.Code != http.StatusOK {
		t.Errorf("If-None-Match of another ETag: %d", w.Code)
	}

	for _, c := range []struct {
		name   string
		header []string
	}{
		{"a bad token", []string{"Authorization", "Bearer nonsense"}},
		{"not a bearer", []string{"Authorization", "Basic YTpi"}},
		{"another account's token", []string{"Authorization", "Bearer " + e.token("otto")}},
	} {
		if w := e.fileGet(http.MethodGet, f.URL, c.header...); w.Code != http.StatusOK || !bytes.Equal(w.Body.Bytes(), jpg) {
			t.Errorf("with %s: %d", c.name, w.Code)
		}
	}
	base := "/api/bw/v2/file/" + f.ID + "/"
	if w := e.fileGet(http.MethodGet, base+"any-other-name.jpg?v=2"); w.Code != http.StatusOK || !bytes.Equal(w.Body.Bytes(), jpg) {
		t.Errorf("another slug, a cache buster: %d", w.Code)
	}
	for _, name := range []string{"lake-walk.png", "lake-walk.JPG", "lake-walk.jpeg", "lake-walk.", "lake-walk"} {
		wantBody(t, name, e.fileGet(http.MethodGet, base+name), http.StatusNotFound, `{"fail":"Not found"}`)
	}
	wantBody(t, "a JPEG's track", e.fileGet(http.MethodGet, base+"track.geojson"), http.StatusNotFound, `{"fail":"Not found"}`)
	wantBody(t, "no such file", e.fileGet(http.MethodGet, "/api/bw/v2/file/"+strings.Repeat("c", 26)+"/x.jpg"), http.StatusNotFound, `{"fail":"Not found"}`)
}

// TestFileThumbnails: ?w= of the offered widths gives an image that wide;
// another width, or w on a file that is no image, is 400.
func TestFileThumbnails(t *testing.T) {
	t.Parallel()
	e := newFileEnv(t, envOptions{})
	f := e.uploaded("admin", "big.jpg", photo(t, 1600, 1200, 70))
	for _, width := range []int{320, 160} {
		w := e.fileGet(http.MethodGet, f.URL+"?w="+strconv.Itoa(width))
		if w.Code != http.StatusOK {
			t.Fatalf("w=%d: %d %s", width, w.Code, w.Body)
		}
		cfg, format, err := image.DecodeConfig(bytes.NewReader(w.Body.Bytes()))
		if err != nil || cfg.Width != width || cfg.Height != width*3/4 {
			t.Errorf("w=%d: %v %s %dx%d", width, err, format, cfg.Width, cfg.Height)
		}
		if ct := w.Header().Get("Content-Type"); ct != "image/"+format || w.Header().Get("X-Content-Type-Options") != "nosniff" ||
			w.Header().Get("ETag") == "" || w.Header().Get("Cache-Control") != fileCacheControl {
			t.Errorf("w=%d: headers %v (decoded %s)", width, w.Header(), format)
		}
		if again := e.fileGet(http.MethodGet, f.URL+"?w="+strconv.Itoa(width), "If-None-Match", w.Header().Get("ETag")); again.Code != http.StatusNotModified {
			t.Errorf("w=%d with its ETag: %d", width, again.Code)
		}
	}
	for _, q := range []string{"?w=100", "?w=0", "?w=320.0", "?w=0320", "?w=", "?w=320&w=640", "?w=-320"} {
		wantBody(t, q, e.fileGet(http.MethodGet, f.URL+q), http.StatusBadRequest, `{"fail":"Wrong request"}`)
	}
	gpx := e.uploaded("admin", "walk.gpx", hike(200))
	wantBody(t, "w on a GPX", e.fileGet(http.MethodGet, gpx.URL+"?w=320"), http.StatusBadRequest, `{"fail":"Wrong request"}`)
	wantBody(t, "w on a track's GeoJSON", e.fileGet(http.MethodGet, "/api/bw/v2/file/"+gpx.ID+"/track.geojson?w=320"), http.StatusBadRequest, `{"fail":"Wrong request"}`)
}

// TestFileTrackServed: a GPX is served as an attachment named by its
// slug; its track's GeoJSON is served as the files are, but inline.
func TestFileTrackServed(t *testing.T) {
	t.Parallel()
	e := newFileEnv(t, envOptions{})
	raw := hike(3000)
	f := e.uploaded("admin", `Lake "walk"; day 1.gpx`, raw)
	if !strings.HasSuffix(f.URL, "/lake-walk-day-1.gpx") {
		t.Fatalf("url %s", f.URL)
	}
	// Whatever slug the url is asked with, the attachment's name is the
	// file's own.
	w := e.fileGet(http.MethodGet, "/api/bw/v2/file/"+f.ID+`/x%22%3B%20evil.gpx`)
	if w.Code != http.StatusOK || !bytes.Equal(w.Body.Bytes(), raw) {
		t.Fatalf("GPX: %d", w.Code)
	}
	if got := w.Header().Get("Content-Disposition"); got != `attachment; filename="lake-walk-day-1.gpx"` {
		t.Errorf("Content-Disposition %q", got)
	}
	if got := w.Header().Get("Content-Type"); got != "application/gpx+xml" {
		t.Errorf("Content-Type %q", got)
	}

	tr := e.fileGet(http.MethodGet, "/api/bw/v2/file/"+f.ID+"/track.geojson")
	if tr.Code != http.StatusOK {
		t.Fatalf("track.geojson: %d %s", tr.Code, tr.Body)
	}
	var doc struct {
		Type     string          `json:"type"`
		Geometry json.RawMessage `json:"geometry"`
	}
	if err := json.Unmarshal(tr.Body.Bytes(), &doc); err != nil || doc.Type != "Feature" || len(doc.Geometry) == 0 {
		t.Errorf("GeoJSON: %v %.200s", err, tr.Body)
	}
	for k, v := range map[string]string{
		"Content-Type":                "application/geo+json",
		"X-Content-Type-Options":      "nosniff",
		"Content-Security-Policy":     fileCSP,
		"Cache-Control":               fileCacheControl,
		"Access-Control-Allow-Origin": "*",
		"Content-Disposition":         "",
	} {
		if got := tr.Header().Get(k); got != v {
			t.Errorf("track.geojson %s: %q, want %q", k, got, v)
		}
	}
	if tr.Header().Get("ETag") == "" {
		t.Error("track.geojson without ETag")
	}
	if h := e.fileGet(http.MethodHead, "/api/bw/v2/file/"+f.ID+"/track.geojson"); h.Code != http.StatusOK || h.Body.Len() != 0 ||
		h.Header().Get("Content-Length") != strconv.Itoa(tr.Body.Len()) {
		t.Errorf("HEAD track.geojson: %d, %d bytes, Content-Length %q", h.Code, h.Body.Len(), h.Header().Get("Content-Length"))
	}
}

// TestFileServedAcrossOrigins: with CORS origins allowed, the public
// bytes still answer every origin with *, never with credentials, while
// the API's own paths keep their CORS answers.
func TestFileServedAcrossOrigins(t *testing.T) {
	t.Parallel()
	e := newFileEnv(t, envOptions{http: func(o *Options) { o.AllowedOrigins = []string{"https://app.example"} }})
	f := e.uploaded("admin", "a.jpg", photo(t, 64, 64, 80))
	for _, origin := range []string{"https://app.example", "https://any.example"} {
		w := e.fileGet(http.MethodGet, f.URL, "Origin", origin)
		if w.Code != http.StatusOK || w.Header().Get("Access-Control-Allow-Origin") != "*" || w.Header().Get("Access-Control-Allow-Credentials") != "" {
			t.Errorf("from %s: %d, headers %v", origin, w.Code, w.Header())
		}
	}
	w := e.send("admin", http.MethodGet, "/api/bw/v2/file/"+f.ID, "", map[string]string{"Origin": "https://app.example"})
	if w.Code != http.StatusOK || w.Header().Get("Access-Control-Allow-Origin") != "https://app.example" {
		t.Errorf("the metadata from an allowed origin: %d, headers %v", w.Code, w.Header())
	}
}

// TestFileHeadersOnEveryAnswer: whatever a public file url answers (the
// bytes, 206, 304, 416, or a refusal: 400, 404, 405), a browser is told
// not to sniff it and to run nothing of it.
func TestFileHeadersOnEveryAnswer(t *testing.T) {
	t.Parallel()
	e := newFileEnv(t, envOptions{})
	f := e.uploaded("admin", "a.jpg", photo(t, 64, 64, 90))
	gpx := e.uploaded("admin", "walk.gpx", hike(50))
	ok := e.fileGet(http.MethodGet, f.URL)
	base := "/api/bw/v2/file/" + f.ID + "/"
	for _, c := range []struct {
		name   string
		method string
		url    string
		header []string
		status int
	}{
		{"the bytes", http.MethodGet, f.URL, nil, http.StatusOK},
		{"a range", http.MethodGet, f.URL, []string{"Range", "bytes=0-9"}, http.StatusPartialContent},
		{"not modified", http.MethodGet, f.URL, []string{"If-None-Match", ok.Header().Get("ETag")}, http.StatusNotModified},
		{"a range past the end", http.MethodGet, gpx.URL, []string{"Range", "bytes=99999999-"}, http.StatusRequestedRangeNotSatisfiable},
		{"another width", http.MethodGet, f.URL + "?w=100", nil, http.StatusBadRequest},
		{"a bad query", http.MethodGet, f.URL + "?w=%zz", nil, http.StatusBadRequest},
		{"another extension", http.MethodGet, base + "a.png", nil, http.StatusNotFound},
		{"no such file", http.MethodGet, "/api/bw/v2/file/" + strings.Repeat("c", 26) + "/x.jpg", nil, http.StatusNotFound},
		{"not an id", http.MethodGet, "/api/bw/v2/file/" + strings.Repeat("C", 26) + "/x.jpg", nil, http.StatusNotFound},
		{"no track", http.MethodGet, base + "track.geojson", nil, http.StatusNotFound},
		{"a post", http.MethodPost, f.URL, nil, http.StatusMethodNotAllowed},
	} {
		w := e.fileGet(c.method, c.url, c.header...)
		if w.Code != c.status {
			t.Errorf("%s: %d, want %d", c.name, w.Code, c.status)
		}
		if w.Header().Get("X-Content-Type-Options") != "nosniff" || w.Header().Get("Content-Security-Policy") != fileCSP ||
			w.Header().Get("Access-Control-Allow-Origin") != "*" {
			t.Errorf("%s (%d): headers %v", c.name, w.Code, w.Header())
		}
	}
}
