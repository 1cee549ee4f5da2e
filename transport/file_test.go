package transport

import (
	"bytes"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"image"
	"image/color"
	"image/jpeg"
	"image/png"
	"io"
	"math"
	"math/rand/v2"
	"mime/multipart"
	"net/http"
	"net/http/httptest"
	"net/url"
	"regexp"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/bwcms/cms/cms"
	"github.com/bwcms/cms/cms/track"
	"github.com/bwcms/cms/internal/testenv"
	"gocloud.dev/blob/memblob"
)

// newFileEnv is an env whose service keeps files (in memory), with two
// more users of account acme: librarian (file:read) and uploader
// (file:write).
func newFileEnv(t *testing.T, o envOptions) *env {
	t.Helper()
	adjust := o.svc
	o.svc = func(so *cms.Options) {
		so.Files = memblob.OpenBucket(nil)
		if adjust != nil {
			adjust(so)
		}
	}
	e := newEnv(t, o)
	if err := testenv.CreateUsers(t.Context(), e.svc, "acme", testPassword,
		testenv.User{Name: "librarian", Perms: []string{"file:read"}},
		testenv.User{Name: "uploader", Perms: []string{"file:write"}}); err != nil {
		t.Fatal(err)
	}
	return e
}

// photo is a JPEG of w x h pixels, as a camera's would be: a scene with
// noise, so it does not compress to nothing. seed makes distinct ones.
func photo(t testing.TB, w, h int, seed uint64) []byte {
	t.Helper()
	var buf bytes.Buffer
	if err := jpeg.Encode(&buf, scene(w, h, seed), &jpeg.Options{Quality: 85}); err != nil {
		t.Fatal(err)
	}
	return buf.Bytes()
}

// pngImage is a PNG of w x h pixels.
func pngImage(t testing.TB, w, h int, seed uint64) []byte {
	t.Helper()
	var buf bytes.Buffer
	if err := png.Encode(&buf, scene(w, h, seed)); err != nil {
		t.Fatal(err)
	}
	return buf.Bytes()
}

func scene(w, h int, seed uint64) image.Image {
	rng := rand.New(rand.NewPCG(seed, 7))
	img := image.NewRGBA(image.Rect(0, 0, w, h))
	for y := range h {
		for x := range w {
			n := uint8(rng.IntN(24))
			img.Set(x, y, color.RGBA{uint8(x*255/w) ^ n, uint8(y*255/h) + n, uint8(seed*40) + n, 255})
		}
	}
	return img
}

// hike is a GPX 1.1 track of n points with elevations and times: a loop
// of about 10 km in the Alps.
func hike(n int) []byte {
	var b strings.Builder
	b.WriteString(`<?xml version="1.0" encoding="UTF-8"?>` + "\n" +
		`<gpx version="1.1" creator="test" xmlns="http://www.topografix.com/GPX/1/1"><trk><name>Lake walk</name><trkseg>` + "\n")
	start := time.Date(2025, 6, 1, 8, 0, 0, 0, time.UTC)
	for i := range n {
		a := 2 * math.Pi * float64(i) / float64(n)
		lat, lon := 46.0+0.014*math.Sin(a), 9.2+0.02*(1-math.Cos(a))
		ele := 800 + 300*math.Sin(a/2)
		fmt.Fprintf(&b, `<trkpt lat="%.6f" lon="%.6f"><ele>%.1f</ele><time>%s</time></trkpt>`+"\n",
			lat, lon, ele, start.Add(time.Duration(i)*3*time.Second).Format(time.RFC3339))
	}
	b.WriteString("</trkseg></trk></gpx>\n")
	return []byte(b.String())
}

// multipartBody is a form with the part file (content, named filename)
// after a text part, as browsers send it.
func multipartBody(t testing.TB, filename string, content []byte) (body []byte, contentType string) {
	t.Helper()
	var buf bytes.Buffer
	mw := multipart.NewWriter(&buf)
	if err := mw.WriteField("note", "a part before the file"); err != nil {
		t.Fatal(err)
	}
	fw, err := mw.CreateFormFile("file", filename)
	if err != nil {
		t.Fatal(err)
	}
	fw.Write(content)
	mw.Close()
	return buf.Bytes(), mw.FormDataContentType()
}

// upload posts content as the multipart part file named filename.
func (e *env) upload(user, filename string, content []byte) *httptest.ResponseRecorder {
	e.t.Helper()
	body, ct := multipartBody(e.t, filename, content)
	r := httptest.NewRequest(http.MethodPost, "/api/bw/v2/file", bytes.NewReader(body))
	r.Header.Set("Content-Type", ct)
	if user != "" {
		r.Header.Set("Authorization", "Bearer "+e.token(user))
	}
	return e.do(r)
}

// uploadRaw posts content as the raw body with ?name=.
func (e *env) uploadRaw(user, name string, content []byte) *httptest.ResponseRecorder {
	e.t.Helper()
	r := httptest.NewRequest(http.MethodPost, "/api/bw/v2/file?name="+url.QueryEscape(name), bytes.NewReader(content))
	r.Header.Set("Content-Type", "application/octet-stream")
	if user != "" {
		r.Header.Set("Authorization", "Bearer "+e.token(user))
	}
	return e.do(r)
}

// uploaded uploads content and returns the file object answered; it
// fails the test unless the answer is 201.
func (e *env) uploaded(user, filename string, content []byte) fileAnswer {
	e.t.Helper()
	w := e.upload(user, filename, content)
	if w.Code != http.StatusCreated {
		e.t.Fatalf("upload %s: %d %s", filename, w.Code, w.Body)
	}
	return decodeFile(e.t, w.Body.Bytes())
}

// fileAnswer is a file object as a client reads it.
type fileAnswer struct {
	Done    string          `json:"done"`
	ID      string          `json:"id"`
	URL     string          `json:"url"`
	Name    string          `json:"name"`
	Type    string          `json:"type"`
	Size    int64           `json:"size"`
	SHA256  string          `json:"sha256"`
	Created string          `json:"created"`
	Width   int             `json:"width"`
	Height  int             `json:"height"`
	Track   json.RawMessage `json:"track"`
	UsedBy  []fileUse       `json:"usedBy"`
}

func decodeFile(t testing.TB, body []byte) fileAnswer {
	t.Helper()
	var f fileAnswer
	dec := json.NewDecoder(bytes.NewReader(body))
	dec.DisallowUnknownFields()
	if err := dec.Decode(&f); err != nil {
		t.Fatalf("not a file object: %v: %s", err, body)
	}
	return f
}

// topKeys are the keys of the JSON object body, in their order.
func topKeys(t testing.TB, body []byte) []string {
	t.Helper()
	dec := json.NewDecoder(bytes.NewReader(body))
	if tok, err := dec.Token(); err != nil || tok != json.Delim('{') {
		t.Fatalf("not an object: %s", body)
	}
	var keys []string
	for dec.More() {
		tok, err := dec.Token()
		if err != nil {
			t.Fatal(err)
		}
		keys = append(keys, tok.(string))
		var skip json.RawMessage
		if err := dec.Decode(&skip); err != nil {
			t.Fatal(err)
		}
	}
	return keys
}

// wantBody fails the test unless w is status with exactly body (the
// trailing newline aside).
func wantBody(t *testing.T, what string, w *httptest.ResponseRecorder, status int, body string) {
	t.Helper()
	if w.Code != status || strings.TrimSuffix(w.Body.String(), "\n") != body {
		t.Errorf("%s: %d %s, want %d %s", what, w.Code, strings.TrimSpace(w.Body.String()), status, body)
	}
}

// listIDs lists the files user sees (GET /file, one page of 1000).
func (e *env) listIDs(user string) []string {
	e.t.Helper()
	w := e.send(user, http.MethodGet, "/api/bw/v2/file?limit=1000", "", nil)
	if w.Code != http.StatusOK {
		e.t.Fatalf("list: %d %s", w.Code, w.Body)
	}
	var page struct {
		Files []fileAnswer `json:"files"`
		Next  *string      `json:"next"`
	}
	if err := json.Unmarshal(w.Body.Bytes(), &page); err != nil {
		e.t.Fatal(err)
	}
	ids := []string{}
	for _, f := range page.Files {
		ids = append(ids, f.ID)
	}
	return ids
}

var createdPattern = regexp.MustCompile(`^\d{4}-\d{2}-\d{2} \d{2}:\d{2}:\d{2}$`)

// TestFileLibrary: an upload as a form answers 201 with the file object
// in the wire's key order; the same bytes again (raw, another name) 200
// Skip with the file stored; the file reads back, lists, shows the
// record that names it, cannot be deleted while named, and is gone
// (metadata, list, public url) once deleted.
func TestFileLibrary(t *testing.T) {
	t.Parallel()
	forEachStore(t, func(t *testing.T, _ *env) {
		e := newFileEnv(t, envOptions{})
		jpg := photo(t, 1600, 1200, 1)
		sum := sha256.Sum256(jpg)

		w := e.upload("admin", "Lake Walk.JPG", jpg)
		if w.Code != http.StatusCreated {
			t.Fatalf("upload: %d %s", w.Code, w.Body)
		}
		if got, want := topKeys(t, w.Body.Bytes()), []string{"done", "id", "url", "name", "type", "size", "sha256", "created", "width", "height"}; !slices.Equal(got, want) {
			t.Errorf("keys %v, want %v", got, want)
		}
		f := decodeFile(t, w.Body.Bytes())
		if !cms.IsFileID(f.ID) || f.Done != "Upload File "+f.ID {
			t.Errorf("id %q, done %q", f.ID, f.Done)
		}
		if want := "http://example.com/api/bw/v2/file/" + f.ID + "/lake-walk.jpg"; f.URL != want {
			t.Errorf("url %s, want %s", f.URL, want)
		}
		if f.Name != "Lake Walk.JPG" || f.Type != "image/jpeg" || f.Size != int64(len(jpg)) || f.SHA256 != hex.EncodeToString(sum[:]) ||
			f.Width != 1600 || f.Height != 1200 || f.Track != nil {
			t.Errorf("file %+v", f)
		}
		if !createdPattern.MatchString(f.Created) || f.Created != e.svc.Timestamp(e.clock.Now()) {
			t.Errorf("created %q, want %q", f.Created, e.svc.Timestamp(e.clock.Now()))
		}

		again := e.uploadRaw("admin", "copy.jpeg", jpg)
		if again.Code != http.StatusOK {
			t.Fatalf("the same bytes again: %d %s", again.Code, again.Body)
		}
		skip := decodeFile(t, again.Body.Bytes())
		if skip.Done != "Skip File "+f.ID || skip.ID != f.ID || skip.Name != f.Name || skip.URL != f.URL {
			t.Errorf("skip %+v, want the file stored %+v", skip, f)
		}

		get := e.send("admin", http.MethodGet, "/api/bw/v2/file/"+f.ID, "", nil)
		if get.Code != http.StatusOK {
			t.Fatalf("get: %d %s", get.Code, get.Body)
		}
		if got, want := topKeys(t, get.Body.Bytes()), []string{"id", "url", "name", "type", "size", "sha256", "created", "width", "height", "usedBy"}; !slices.Equal(got, want) {
			t.Errorf("get keys %v, want %v", got, want)
		}
		info := decodeFile(t, get.Body.Bytes())
		if info.UsedBy == nil || len(info.UsedBy) != 0 || info.URL != f.URL || info.Created != f.Created {
			t.Errorf("get %+v", info)
		}
		if !strings.Contains(get.Body.String(), `"usedBy":[]`) {
			t.Errorf("usedBy of an unused file: %s", get.Body)
		}

		list := e.send("admin", http.MethodGet, "/api/bw/v2/file", "", nil)
		if list.Code != http.StatusOK || !strings.HasSuffix(strings.TrimSpace(list.Body.String()), `],"next":null}`) ||
			!strings.HasPrefix(list.Body.String(), `{"files":[{"id":"`+f.ID+`"`) {
			t.Errorf("list: %d %s", list.Code, list.Body)
		}

		// A Resource shows it: it is used, and cannot go.
		if w := e.send("admin", http.MethodPost, "/api/bw/v2/resource", `{"id":"lake-walk","title":"Lake walk","image":"`+f.URL+`"}`, nil); w.Code != http.StatusCreated {
			t.Fatalf("resource naming the file: %d %s", w.Code, w.Body)
		}
		info = decodeFile(t, e.send("admin", http.MethodGet, "/api/bw/v2/file/"+f.ID, "", nil).Body.Bytes())
		if want := []fileUse{{Kind: "resource", ID: "lake-walk", Field: "image"}}; !slices.Equal(info.UsedBy, want) {
			t.Errorf("usedBy %+v, want %+v", info.UsedBy, want)
		}
		wantBody(t, "delete while used", e.send("admin", http.MethodDelete, "/api/bw/v2/file/"+f.ID, "", nil),
			http.StatusConflict, `{"fail":"File `+f.ID+` is used by Resource lake-walk"}`)
		if ids := e.listIDs("admin"); !slices.Equal(ids, []string{f.ID}) {
			t.Errorf("after a refused delete: %v", ids)
		}
		if w := e.send("admin", http.MethodPost, "/api/bw/v2/resource", `{"id":"lake-walk","image":null}`, nil); w.Code != http.StatusAccepted {
			t.Fatalf("clear the image: %d %s", w.Code, w.Body)
		}

		wantBody(t, "delete", e.send("admin", http.MethodDelete, "/api/bw/v2/file/"+f.ID, "", nil),
			http.StatusAccepted, `{"done":"Deletion of 1 Files done","count":1}`)
		wantBody(t, "get after delete", e.send("admin", http.MethodGet, "/api/bw/v2/file/"+f.ID, "", nil), http.StatusNotFound, `{"fail":"Not found"}`)
		wantBody(t, "delete again", e.send("admin", http.MethodDelete, "/api/bw/v2/file/"+f.ID, "", nil), http.StatusNotFound, `{"fail":"Not found"}`)
		wantBody(t, "public url after delete", e.send("", http.MethodGet, f.URL, "", nil), http.StatusNotFound, `{"fail":"Not found"}`)
		if ids := e.listIDs("admin"); len(ids) != 0 {
			t.Errorf("list after delete: %v", ids)
		}
	})
}

// TestFileTypeFromContent: a PNG uploaded as x.gpx is a PNG: its type,
// its url's extension, its dimensions; the gpx url names nothing.
func TestFileTypeFromContent(t *testing.T) {
	t.Parallel()
	e := newFileEnv(t, envOptions{})
	img := pngImage(t, 800, 600, 2)
	f := e.uploaded("admin", "x.gpx", img)
	if f.Type != "image/png" || !strings.HasSuffix(f.URL, "/"+f.ID+"/x.png") || f.Width != 800 || f.Height != 600 || f.Name != "x.gpx" {
		t.Errorf("PNG named x.gpx: %+v", f)
	}
	if w := e.send("", http.MethodGet, strings.TrimSuffix(f.URL, ".png")+".gpx", "", nil); w.Code != http.StatusNotFound {
		t.Errorf("the .gpx url: %d", w.Code)
	}
	if w := e.send("", http.MethodGet, f.URL, "", nil); w.Code != http.StatusOK || !bytes.Equal(w.Body.Bytes(), img) ||
		w.Header().Get("Content-Type") != "image/png" {
		t.Errorf("the .png url: %d %s", w.Code, w.Header().Get("Content-Type"))
	}
}

// TestFileTrackObject: a GPX track's file object carries what it
// measured and where its GeoJSON is.
func TestFileTrackObject(t *testing.T) {
	t.Parallel()
	e := newFileEnv(t, envOptions{})
	w := e.upload("admin", "Lake walk.gpx", hike(3000))
	if w.Code != http.StatusCreated {
		t.Fatalf("upload: %d %s", w.Code, w.Body)
	}
	if got, want := topKeys(t, w.Body.Bytes()), []string{"done", "id", "url", "name", "type", "size", "sha256", "created", "track"}; !slices.Equal(got, want) {
		t.Errorf("keys %v, want %v", got, want)
	}
	f := decodeFile(t, w.Body.Bytes())
	if f.Type != "application/gpx+xml" || !strings.HasSuffix(f.URL, "/lake-walk.gpx") {
		t.Errorf("file %+v", f)
	}
	var tr map[string]any
	if err := json.Unmarshal(f.Track, &tr); err != nil {
		t.Fatalf("track %s: %v", f.Track, err)
	}
	if want := "http://example.com/api/bw/v2/file/" + f.ID + "/track.geojson"; tr["geojson"] != want {
		t.Errorf("geojson %v, want %s", tr["geojson"], want)
	}
	if keys := topKeys(t, f.Track); keys[len(keys)-1] != "geojson" {
		t.Errorf("track keys %v: geojson is not last", keys)
	}
	want, err := json.Marshal(fileTrack{Summary: *trackOf(t, e, f.ID), GeoJSON: tr["geojson"].(string)})
	if err != nil {
		t.Fatal(err)
	}
	if !bytes.Equal(f.Track, want) {
		t.Errorf("track %s, want the stored summary %s", f.Track, want)
	}
}

// trackOf is the summary the service stored for file id of account acme.
func trackOf(t *testing.T, e *env, id string) *track.Summary {
	t.Helper()
	files, err := e.store.GetFiles(t.Context(), "acme", []string{id})
	if err != nil || len(files) != 1 || files[0].Track == nil {
		t.Fatalf("stored file %s: %v %+v", id, err, files)
	}
	return files[0].Track
}

// TestFileAccounts: another account's file is none for metadata and
// delete, but its public url serves it (public urls are public).
func TestFileAccounts(t *testing.T) {
	t.Parallel()
	e := newFileEnv(t, envOptions{})
	jpg := photo(t, 640, 480, 3)
	theirs := e.uploaded("otto", "theirs.jpg", jpg)
	wantBody(t, "get another account's file", e.send("admin", http.MethodGet, "/api/bw/v2/file/"+theirs.ID, "", nil), http.StatusNotFound, `{"fail":"Not found"}`)
	wantBody(t, "delete another account's file", e.send("admin", http.MethodDelete, "/api/bw/v2/file/"+theirs.ID, "", nil), http.StatusNotFound, `{"fail":"Not found"}`)
	if ids := e.listIDs("admin"); len(ids) != 0 {
		t.Errorf("acme lists %v", ids)
	}
	if ids := e.listIDs("otto"); !slices.Equal(ids, []string{theirs.ID}) {
		t.Errorf("other lists %v after acme's delete", ids)
	}
	if w := e.send("admin", http.MethodGet, theirs.URL, "", nil); w.Code != http.StatusOK || !bytes.Equal(w.Body.Bytes(), jpg) {
		t.Errorf("their public url, with acme's token: %d", w.Code)
	}
	// The same bytes in acme are acme's own file.
	mine := e.uploaded("admin", "mine.jpg", jpg)
	if mine.ID == theirs.ID {
		t.Error("two accounts share one file")
	}
}

// TestFilePermissions: each authenticated route is 401 without a valid
// token and 403 without its permission, decided before the query or the
// body, which change nothing.
func TestFilePermissions(t *testing.T) {
	t.Parallel()
	e := newFileEnv(t, envOptions{})
	f := e.uploaded("admin", "kept.jpg", photo(t, 320, 240, 4))
	body, ct := multipartBody(t, "new.png", pngImage(t, 64, 64, 5))
	one := "/api/bw/v2/file/" + f.ID
	for _, c := range []struct {
		method, path string
		body         []byte
		allowed      string // a user with this route's permission
		denied       []string
	}{
		{http.MethodGet, "/api/bw/v2/file?limit=0", nil, "librarian", []string{"reader", "uploader"}},
		{http.MethodPost, "/api/bw/v2/file", body, "uploader", []string{"reader", "librarian"}},
		{http.MethodGet, one, nil, "librarian", []string{"reader", "uploader"}},
		{http.MethodDelete, one, nil, "admin", []string{"reader", "librarian", "uploader"}},
	} {
		req := func(user string, header ...string) *http.Request {
			r := httptest.NewRequest(c.method, c.path, bytes.NewReader(c.body))
			r.Header.Set("Content-Type", ct)
			if user != "" {
				r.Header.Set("Authorization", "Bearer "+e.token(user))
			}
			for i := 0; i+1 < len(header); i += 2 {
				r.Header.Set(header[i], header[i+1])
			}
			return r
		}
		what := c.method + " " + c.path
		w := e.do(req(""))
		wantBody(t, what+" without a token", w, http.StatusUnauthorized, `{"fail":"Unauthorized"}`)
		if w.Header().Get("WWW-Authenticate") != realm {
			t.Errorf("%s: WWW-Authenticate %q", what, w.Header().Get("WWW-Authenticate"))
		}
		wantBody(t, what+" with a bad token", e.do(req("", "Authorization", "Bearer nonsense")), http.StatusUnauthorized, `{"fail":"Unauthorized"}`)
		for _, user := range c.denied {
			wantBody(t, what+" as "+user, e.do(req(user)), http.StatusForbidden, `{"fail":"Forbidden"}`)
		}
		if w := e.do(req(c.allowed)); w.Code == http.StatusUnauthorized || w.Code == http.StatusForbidden {
			t.Errorf("%s as %s: %d %s", what, c.allowed, w.Code, w.Body)
		}
	}
	// The refusals stored and deleted nothing; the allowed upload stored
	// its file and the allowed delete took the other.
	ids := e.listIDs("admin")
	if len(ids) != 1 || ids[0] == f.ID {
		t.Errorf("files after: %v (the kept one %s deleted by admin, the new one uploaded)", ids, f.ID)
	}
}

// TestFileUploadRefusals: a body over the limit (declared or not) is 413
// with the connection closed, a form without the part file or an empty
// body 400, a file of no accepted type 409; none stores anything.
func TestFileUploadRefusals(t *testing.T) {
	t.Parallel()
	e := newFileEnv(t, envOptions{})
	tok := "Bearer " + e.token("admin")
	post := func(body io.Reader, length int64, contentType, query string) *httptest.ResponseRecorder {
		r := httptest.NewRequest(http.MethodPost, "/api/bw/v2/file"+query, body)
		r.ContentLength = length
		r.Header.Set("Authorization", tok)
		if contentType != "" {
			r.Header.Set("Content-Type", contentType)
		}
		return e.do(r)
	}
	// Over the largest upload: declared, or only found while reading (a
	// chunked body, its length unknown).
	big := bytes.Repeat([]byte{0xff, 0xd8, 0xff, 0xe0}, (MaxUploadBody+4)/4)
	w := post(bytes.NewReader(big), int64(len(big)), "application/octet-stream", "?name=big.jpg")
	wantBody(t, "declared over the limit", w, http.StatusRequestEntityTooLarge, `{"fail":"Request too large"}`)
	if w.Header().Get("Connection") != "close" {
		t.Errorf("413 without Connection: close")
	}
	counted := &countingReader{r: bytes.NewReader(big)}
	wantBody(t, "raw, over the limit as read", post(counted, -1, "image/jpeg", "?name=big.jpg"), http.StatusRequestEntityTooLarge, `{"fail":"Request too large"}`)
	if counted.n > MaxUploadBody+64<<10 {
		t.Errorf("read %d bytes of a body over the limit of %d", counted.n, MaxUploadBody)
	}
	form, ct := multipartBody(t, "big.jpg", big)
	wantBody(t, "multipart, over the limit as read", post(bytes.NewReader(form), -1, ct, ""), http.StatusRequestEntityTooLarge, `{"fail":"Request too large"}`)
	// Within the largest file, but the whole body over the limit: cut
	// while a part before the file is skipped, or while the file is read.
	for _, before := range []int{MaxUploadBody, 1 << 20} {
		var buf bytes.Buffer
		mw := multipart.NewWriter(&buf)
		mw.WriteField("note", strings.Repeat("n", before))
		fw, _ := mw.CreateFormFile("file", "big.jpg")
		fw.Write(big[:cms.MaxUpload-before/2])
		mw.Close()
		wantBody(t, fmt.Sprintf("a part of %d bytes before the file", before), post(&buf, -1, mw.FormDataContentType(), ""),
			http.StatusRequestEntityTooLarge, `{"fail":"Request too large"}`)
	}

	// No file.
	var none bytes.Buffer
	mw := multipart.NewWriter(&none)
	mw.WriteField("name", "x.jpg")
	fw, _ := mw.CreateFormFile("upload", "x.jpg") // not the part file
	fw.Write(photo(t, 64, 64, 6))
	mw.Close()
	wantBody(t, "multipart without the part file", post(&none, -1, mw.FormDataContentType(), ""), http.StatusBadRequest, `{"fail":"Wrong request"}`)
	wantBody(t, "empty raw body", post(strings.NewReader(""), 0, "image/jpeg", "?name=x.jpg"), http.StatusBadRequest, `{"fail":"Wrong request"}`)
	emptyPart, ct := multipartBody(t, "x.jpg", nil)
	wantBody(t, "empty part file", post(bytes.NewReader(emptyPart), -1, ct, ""), http.StatusBadRequest, `{"fail":"Wrong request"}`)
	wantBody(t, "multipart without a boundary", post(strings.NewReader("--x\r\n"), -1, "multipart/form-data", ""), http.StatusBadRequest, `{"fail":"Wrong request"}`)
	wantBody(t, "name twice", post(bytes.NewReader(photo(t, 64, 64, 7)), -1, "image/jpeg", "?name=a.jpg&name=b.jpg"), http.StatusBadRequest, `{"fail":"Wrong request"}`)

	// Not an accepted type: what was wrong, in words.
	for name, content := range map[string][]byte{
		"notes.txt":  []byte(strings.Repeat("plain text, not a file of any accepted type\n", 100)),
		"page.gpx":   []byte("<html><body>not a track</body></html>"),
		"broken.jpg": photo(t, 640, 480, 8)[:200],
	} {
		w := e.uploadRaw("admin", name, content)
		var fb failBody
		if err := json.Unmarshal(w.Body.Bytes(), &fb); w.Code != http.StatusConflict || err != nil || fb.Fail == "" || fb.Fail == "Conflict" {
			t.Errorf("%s: %d %s, want 409 saying what was wrong", name, w.Code, w.Body)
		}
	}
	if ids := e.listIDs("admin"); len(ids) != 0 {
		t.Errorf("refused uploads stored %v", ids)
	}
}

// countingReader counts what was read of it.
type countingReader struct {
	r io.Reader
	n int
}

func (c *countingReader) Read(p []byte) (int, error) {
	n, err := c.r.Read(p)
	c.n += n
	return n, err
}

// TestFileList: pages newest first with next, the type filter (a + as
// sent by hand too), and 400 for every malformed parameter.
func TestFileList(t *testing.T) {
	t.Parallel()
	e := newFileEnv(t, envOptions{})
	var ids []string // oldest first
	for i := range 5 {
		e.clock.Advance(time.Minute)
		ids = append(ids, e.uploaded("admin", fmt.Sprintf("photo-%d.jpg", i), photo(t, 200, 150, uint64(10+i))).ID)
	}
	e.clock.Advance(time.Minute)
	gpx := e.uploaded("admin", "walk.gpx", hike(500)).ID
	newest := []string{gpx}
	for _, id := range slices.Backward(ids) {
		newest = append(newest, id)
	}
	page := func(query string) ([]string, *string) {
		t.Helper()
		w := e.send("admin", http.MethodGet, "/api/bw/v2/file"+query, "", nil)
		if w.Code != http.StatusOK {
			t.Fatalf("%s: %d %s", query, w.Code, w.Body)
		}
		var p struct {
			Files []fileAnswer `json:"files"`
			Next  *string      `json:"next"`
		}
		if err := json.Unmarshal(w.Body.Bytes(), &p); err != nil {
			t.Fatal(err)
		}
		var got []string
		for _, f := range p.Files {
			got = append(got, f.ID)
		}
		return got, p.Next
	}
	var all []string
	after := ""
	for range 4 {
		q := "?limit=2"
		if after != "" {
			q += "&after=" + after
		}
		got, next := page(q)
		all = append(all, got...)
		if next == nil {
			break
		}
		after = *next
	}
	if !slices.Equal(all, newest) {
		t.Errorf("pages of 2: %v, want %v", all, newest)
	}
	if got, next := page(""); !slices.Equal(got, newest) || next != nil {
		t.Errorf("default page: %v next %v", got, next)
	}
	for _, q := range []string{"?type=application/gpx%2Bxml", "?type=application/gpx+xml"} {
		if got, _ := page(q); !slices.Equal(got, []string{gpx}) {
			t.Errorf("%s: %v", q, got)
		}
	}
	if got, _ := page("?type=image/png"); len(got) != 0 {
		t.Errorf("no PNG: %v", got)
	}
	for _, q := range []string{"?limit=0", "?limit=1001", "?limit=abc", "?limit=01", "?limit=2&limit=3",
		"?after=" + strings.ToUpper(ids[0]), "?after=x", "?type=text/plain", "?type=image/jpeg&type=image/png", "?limit=%zz"} {
		wantBody(t, q, e.send("admin", http.MethodGet, "/api/bw/v2/file"+q, "", nil), http.StatusBadRequest, `{"fail":"Wrong request"}`)
	}
}

// TestFileConcurrentUploads: the same bytes uploaded at once by many
// clients are stored once: one 201, the others 200 with the same id.
func TestFileConcurrentUploads(t *testing.T) {
	t.Parallel()
	e := newFileEnv(t, envOptions{})
	jpg := photo(t, 1024, 768, 20)
	e.token("admin")
	const n = 8
	var wg sync.WaitGroup
	answers := make([]*httptest.ResponseRecorder, n)
	for i := range n {
		wg.Go(func() {
			body, ct := multipartBody(t, fmt.Sprintf("same-%d.jpg", i), jpg)
			r := httptest.NewRequest(http.MethodPost, "/api/bw/v2/file", bytes.NewReader(body))
			r.Header.Set("Content-Type", ct)
			r.Header.Set("Authorization", "Bearer "+e.tokens["admin"])
			answers[i] = e.do(r)
		})
	}
	wg.Wait()
	created, ids := 0, map[string]bool{}
	for i, w := range answers {
		switch w.Code {
		case http.StatusCreated:
			created++
		case http.StatusOK:
		default:
			t.Fatalf("upload %d: %d %s", i, w.Code, w.Body)
		}
		ids[decodeFile(t, w.Body.Bytes()).ID] = true
	}
	if created != 1 || len(ids) != 1 {
		t.Errorf("%d created, ids %v: want one 201 and one id", created, ids)
	}
	if got := e.listIDs("admin"); len(got) != 1 || !ids[got[0]] {
		t.Errorf("stored %v", got)
	}
}

// TestFileRouting: the file paths' 404 and 405 (with Allow), whoever
// asks, and the record paths unchanged ("file" is no kind).
func TestFileRouting(t *testing.T) {
	t.Parallel()
	e := newFileEnv(t, envOptions{})
	id := strings.Repeat("a", cms.FileIDLength)
	for _, c := range []struct{ method, path, allow string }{
		{http.MethodPut, "/api/bw/v2/file", "GET, POST"},
		{http.MethodDelete, "/api/bw/v2/file", "GET, POST"},
		{http.MethodPost, "/api/bw/v2/file/" + id, "DELETE, GET"},
		{http.MethodHead, "/api/bw/v2/file/" + id, "DELETE, GET"},
		{http.MethodPost, "/api/bw/v2/file/" + id + "/x.jpg", "GET, HEAD"},
		{http.MethodDelete, "/api/bw/v2/file/" + id + "/track.geojson", "GET, HEAD"},
		{http.MethodOptions, "/api/bw/v2/file/" + id + "/x.jpg", "GET, HEAD"},
	} {
		w := e.send("", c.method, c.path, "", nil)
		if w.Code != http.StatusMethodNotAllowed || w.Header().Get("Allow") != c.allow {
			t.Errorf("%s %s: %d Allow %q, want 405 %q", c.method, c.path, w.Code, w.Header().Get("Allow"), c.allow)
		}
	}
	for _, p := range []string{"/api/bw/v2/file/" + id + "/x.jpg/more", "/api/bw/v2/file//x.jpg", "/api/bw/v2/files",
		"/api/bw/v2/file/" + id + "/x.jpg/", "/api/bw/v2/file/not-a-file-id/x.jpg", "/api/bw/v2/file/" + id + "/noextension"} {
		wantBody(t, "GET "+p, e.send("admin", http.MethodGet, p, "", nil), http.StatusNotFound, `{"fail":"Not found"}`)
	}
	wantBody(t, "an id of no file's shape", e.send("admin", http.MethodGet, "/api/bw/v2/file/lake-walk", "", nil), http.StatusNotFound, `{"fail":"Not found"}`)
	wantBody(t, "trailing slash", e.send("admin", http.MethodGet, "/api/bw/v2/file/", "", nil), http.StatusBadRequest, `{"fail":"Wrong request"}`)
	wantBody(t, "trailing slash, no token", e.send("", http.MethodGet, "/api/bw/v2/file/", "", nil), http.StatusUnauthorized, `{"fail":"Unauthorized"}`)
	// A record may still be called file.
	if w := e.send("admin", http.MethodPost, "/api/bw/v2/resource", `{"id":"file","title":"A record called file"}`, nil); w.Code != http.StatusCreated {
		t.Errorf("a resource called file: %d %s", w.Code, w.Body)
	}
	if w := e.send("admin", http.MethodGet, "/api/bw/v2/resource/file/published/*", "", nil); w.Code != http.StatusOK {
		t.Errorf("read it: %d %s", w.Code, w.Body)
	}
}

// TestFileRouteNames: the Observer hears the file routes by fixed names,
// never an id.
func TestFileRouteNames(t *testing.T) {
	t.Parallel()
	s := &seen{}
	e := newFileEnv(t, envOptions{http: func(o *Options) { o.Observer = s }})
	f := e.uploaded("admin", "a.jpg", photo(t, 64, 64, 30))
	e.send("admin", http.MethodGet, "/api/bw/v2/file", "", nil)
	e.send("admin", http.MethodGet, "/api/bw/v2/file/"+f.ID, "", nil)
	e.send("", http.MethodGet, f.URL, "", nil)
	e.send("", http.MethodGet, "/api/bw/v2/file/"+f.ID+"/track.geojson", "", nil)
	e.send("admin", http.MethodDelete, "/api/bw/v2/file/"+f.ID, "", nil)
	e.send("admin", http.MethodPut, "/api/bw/v2/file/"+f.ID, "", nil)
	e.send("admin", http.MethodGet, "/api/bw/v2/file/"+f.ID+"/a/b", "", nil)
	s.mu.Lock()
	defer s.mu.Unlock()
	var files []string
	for _, r := range s.reqs {
		if strings.HasPrefix(r, "file") || strings.HasPrefix(r, "unknown") {
			files = append(files, r)
		}
	}
	want := []string{"file upload Created", "file list OK", "file read OK", "file bytes OK", "file track Not Found",
		"file delete Accepted", "file one Method Not Allowed", "unknown Not Found"}
	if !slices.Equal(files, want) {
		t.Errorf("routes heard:\n%v\nwant\n%v", files, want)
	}
	for _, r := range s.reqs {
		if strings.Contains(r, f.ID) {
			t.Errorf("a route name holds the id: %s", r)
		}
	}
}

// TestFileURLsOfTheRequest: a record field naming a file url of this
// request's own origin (or of the public URL) is checked against the
// account's files; a url of another origin is kept as sent.
func TestFileURLsOfTheRequest(t *testing.T) {
	t.Parallel()
	e := newFileEnv(t, envOptions{http: func(o *Options) { o.PublicURL = "https://cms.example.org" }})
	missing := "/api/bw/v2/file/" + strings.Repeat("b", cms.FileIDLength) + "/gone.jpg"
	for _, origin := range []string{"http://example.com", "https://cms.example.org"} {
		w := e.send("admin", http.MethodPost, "/api/bw/v2/resource", `{"id":"r-one","title":"T","image":"`+origin+missing+`"}`, nil)
		if w.Code != http.StatusConflict || !strings.Contains(w.Body.String(), "image") {
			t.Errorf("a missing file of %s: %d %s", origin, w.Code, w.Body)
		}
	}
	if w := e.send("admin", http.MethodPost, "/api/bw/v2/resource", `{"id":"r-one","title":"T","image":"https://elsewhere.example`+missing+`"}`, nil); w.Code != http.StatusCreated {
		t.Errorf("a url of another origin: %d %s", w.Code, w.Body)
	}
	f := e.uploaded("admin", "Mine.jpg", photo(t, 64, 64, 40))
	if want := "https://cms.example.org/api/bw/v2/file/" + f.ID + "/mine.jpg"; f.URL != want {
		t.Errorf("url %s, want %s (the public URL)", f.URL, want)
	}
	if w := e.send("admin", http.MethodPost, "/api/bw/v2/resource", `{"id":"r-two","title":"T","image":"`+f.URL+`"}`, nil); w.Code != http.StatusCreated {
		t.Errorf("a file of the account: %d %s", w.Code, w.Body)
	}
}

// TestFileSlowUpload: an upload that stops coming is cut with 408 and
// stores nothing.
func TestFileSlowUpload(t *testing.T) {
	t.Parallel()
	e := newFileEnv(t, envOptions{http: func(o *Options) {
		o.BodyReadTimeout = 300 * time.Millisecond
		o.BodyReadChunk = 1024
	}})
	addr := serveReal(t, e)
	body, ct := multipartBody(t, "slow.jpg", photo(t, 64, 64, 50))
	c := dial(t, addr)
	if _, err := io.WriteString(c, head("POST", "/api/bw/v2/file", len(body),
		map[string]string{"Content-Type": ct, "Authorization": "Bearer " + e.token("admin")})); err != nil {
		t.Fatal(err)
	}
	sent := trickle(c, string(body), 50*time.Millisecond)
	got := closedWithin(t, c, 10*time.Second)
	if got != "" && (!strings.HasPrefix(got, "HTTP/1.1 408 ") || !strings.Contains(got, `{"fail":"Request timeout"}`)) {
		t.Errorf("answer to a slow upload: %q", got)
	}
	c.Close()
	<-sent
	if ids := e.listIDs("admin"); len(ids) != 0 {
		t.Errorf("the cut upload stored %v", ids)
	}
}
