package client_test

import (
	"bytes"
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"io"
	"net/http"
	"reflect"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/bwcms/cms/client"
	"github.com/bwcms/cms/cms"
	"github.com/bwcms/cms/internal/testenv"
)

// get reads a public url without a token: its status, type and bytes.
func (e *env) get(url string) (int, string, []byte) {
	e.t.Helper()
	res, err := e.http.Get(url)
	if err != nil {
		e.t.Fatal(err)
	}
	defer res.Body.Close()
	body, err := io.ReadAll(res.Body)
	if err != nil {
		e.t.Fatal(err)
	}
	return res.StatusCode, res.Header.Get("Content-Type"), body
}

// files lists every file of c's account, newest first.
func files(t *testing.T, c *client.Client, opts client.FileListOptions) []client.File {
	t.Helper()
	var got []client.File
	for f, err := range c.Files(t.Context(), opts) {
		if err != nil {
			t.Fatalf("files: %v", err)
		}
		got = append(got, f)
	}
	return got
}

func ids(fs []client.File) []string {
	out := make([]string, len(fs))
	for i, f := range fs {
		out[i] = f.ID
	}
	return out
}

// A photo streamed from a reader that cannot seek is stored with what
// the server found in it, served at its url without a token, and read
// back alike; the same bytes again store nothing; a GPX track comes
// measured; a file of no accepted type, and one over the limit, are
// refused and leave the library as it was.
func TestUploadFile(t *testing.T) {
	eachStore(t, func(t *testing.T, e *env) {
		ctx := t.Context()
		c := e.client("admin")
		jpg := photo(t, 2400, 1600, 1)
		if len(jpg) < 2<<20 {
			t.Fatalf("the photo has %d bytes: want a camera's size", len(jpg))
		}
		const name = "Lake walk (view).jpeg"
		f, err := c.UploadFile(ctx, name, stream(jpg))
		if err != nil {
			t.Fatal(err)
		}
		sum := sha256.Sum256(jpg)
		wantURL := e.url + client.Root + cms.FilePath(cms.File{ID: f.ID, Name: name, Type: "image/jpeg"})
		if !cms.IsFileID(f.ID) || f.URL != wantURL || f.Name != name || f.Type != "image/jpeg" ||
			f.Size != int64(len(jpg)) || f.SHA256 != hex.EncodeToString(sum[:]) || f.Width != 2400 || f.Height != 1600 ||
			f.Track != nil || f.Existing || f.UsedBy != nil || !f.Created.Equal(testenv.Epoch) {
			t.Fatalf("uploaded: %+v (want url %s, created %v)", f, wantURL, testenv.Epoch)
		}
		if !strings.HasSuffix(f.URL, "/lake-walk-view.jpg") {
			t.Errorf("url %s: want the name's slug and the type's extension", f.URL)
		}
		if status, typ, body := e.get(f.URL); status != http.StatusOK || typ != "image/jpeg" || !bytes.Equal(body, jpg) {
			t.Fatalf("GET the url: %d %s, %d bytes (want %d)", status, typ, len(body), len(jpg))
		}
		read, err := c.File(ctx, f.ID)
		if err != nil {
			t.Fatal(err)
		}
		want := *f
		want.UsedBy = []client.FileUse{}
		if !equalFile(*read, want) {
			t.Errorf("read back: %+v, want %+v", read, want)
		}

		e.clock.Advance(time.Minute)
		again, err := c.UploadFile(ctx, "another name.jpg", bytes.NewReader(jpg))
		if err != nil || !again.Existing || again.ID != f.ID || again.Name != name || !again.Created.Equal(f.Created) {
			t.Fatalf("the same bytes again: %+v %v", again, err)
		}

		gpx := loop(2000, 1000)
		g, err := c.UploadFile(ctx, "loop.gpx", strings.NewReader(gpx))
		if err != nil {
			t.Fatal(err)
		}
		if g.Type != "application/gpx+xml" || g.Width != 0 || g.Track == nil || !strings.HasSuffix(g.URL, "/loop.gpx") {
			t.Fatalf("the track: %+v", g)
		}
		tr := g.Track
		// 2π·1000 m round, 2000 points 5 s apart.
		if tr.Points != 2000 || tr.Distance < 6200 || tr.Distance > 6300 || !tr.Circular ||
			tr.Duration == nil || *tr.Duration != 1999*5/60.0 || tr.Ascent < 95 || tr.Ascent > 105 || tr.Name != "Loop" {
			t.Errorf("measured: %+v (duration %v)", tr.Summary, tr.Duration)
		}
		if tr.GeoJSON != e.url+client.Root+"/file/"+g.ID+"/track.geojson" {
			t.Errorf("geojson url %s", tr.GeoJSON)
		}
		if status, typ, body := e.get(tr.GeoJSON); status != http.StatusOK || typ != "application/geo+json" || !bytes.Contains(body, []byte(`"LineString"`)) {
			t.Errorf("GET the geojson: %d %s %.200s", status, typ, body)
		}

		before := files(t, c, client.FileListOptions{})
		_, err = c.UploadFile(ctx, "notes.gpx", strings.NewReader("Not a track at all, just notes.\n"))
		var apiErr *client.Error
		if !errors.Is(err, client.ErrConflict) || !errors.As(err, &apiErr) || apiErr.Fail == "" {
			t.Errorf("a text file: %v", err)
		}
		_, err = c.UploadFile(ctx, "huge.jpg", io.MultiReader(bytes.NewReader(jpg), &sized{left: 21 << 20}))
		if !errors.Is(err, client.ErrTooLarge) {
			t.Errorf("21 MiB: %v", err)
		}
		if after := files(t, c, client.FileListOptions{}); !slices.Equal(ids(after), ids(before)) || len(after) != 2 {
			t.Errorf("after the refusals: %v, want %v", ids(after), ids(before))
		}
	})
}

// equalFile compares two files, their times as instants.
func equalFile(a, b client.File) bool {
	if !a.Created.Equal(b.Created) {
		return false
	}
	a.Created, b.Created = time.Time{}, time.Time{}
	return reflect.DeepEqual(a, b)
}

// Files pages through the library newest first, following next; it
// filters by type, stops at Limit, starts After an id, and refuses
// options the API would refuse without a request.
func TestFiles(t *testing.T) {
	eachStore(t, func(t *testing.T, e *env) {
		ctx := t.Context()
		admin := e.client("admin")
		c, err := client.New(e.url, &client.Options{HTTPClient: e.http, PageSize: 3})
		must(t, err)
		must(t, c.Login(ctx, "admin", testenv.Password))
		var uploaded []string // oldest first
		for i := range 9 {
			var f *client.File
			if i%4 == 1 {
				f, err = admin.UploadFile(ctx, "loop.gpx", strings.NewReader(loop(50+i, 300)))
			} else {
				f, err = admin.UploadFile(ctx, "icon.png", bytes.NewReader(icon(t, i)))
			}
			must(t, err)
			uploaded = append(uploaded, f.ID)
			e.clock.Advance(time.Second)
		}
		newest := slices.Clone(uploaded)
		slices.Reverse(newest)

		e.filePages.Store(0)
		all := files(t, c, client.FileListOptions{})
		if !slices.Equal(ids(all), newest) {
			t.Fatalf("all: %v, want %v", ids(all), newest)
		}
		if n := e.filePages.Load(); n < 3 || n > 4 {
			t.Errorf("%d requests for 9 files, 3 a page", n)
		}
		for i, f := range all {
			if i > 0 && f.Created.After(all[i-1].Created) {
				t.Errorf("%s is newer than the file before it", f.ID)
			}
		}

		tracks := files(t, c, client.FileListOptions{Type: "application/gpx+xml"})
		if !slices.Equal(ids(tracks), []string{uploaded[5], uploaded[1]}) || tracks[0].Track == nil {
			t.Errorf("tracks: %v", ids(tracks))
		}
		if got := files(t, c, client.FileListOptions{Limit: 4}); !slices.Equal(ids(got), newest[:4]) {
			t.Errorf("limit 4: %v", ids(got))
		}
		if got := files(t, c, client.FileListOptions{After: newest[2], Limit: 5}); !slices.Equal(ids(got), newest[3:8]) {
			t.Errorf("after the third: %v", ids(got))
		}

		e.filePages.Store(0)
		for range c.Files(ctx, client.FileListOptions{}) {
			break
		}
		if n := e.filePages.Load(); n != 1 {
			t.Errorf("breaking at once: %d requests", n)
		}
		for _, bad := range []client.FileListOptions{{Type: "text/plain"}, {Limit: -1}, {After: "not an id"}} {
			for _, err := range c.Files(ctx, bad) {
				if err == nil {
					t.Errorf("%+v: no error", bad)
				}
			}
		}
		if n := e.filePages.Load(); n != 1 {
			t.Errorf("bad options sent %d requests", n-1)
		}
	})
}

// A file a record names tells so, and cannot be deleted until the record
// drops it; then its metadata and its url answer 404.
func TestDeleteFile(t *testing.T) {
	eachStore(t, func(t *testing.T, e *env) {
		ctx := t.Context()
		c := e.client("admin")
		f, err := c.UploadFile(ctx, "pier.png", bytes.NewReader(icon(t, 1)))
		must(t, err)
		walk := resource("lake-walk", "Lake walk")
		walk.Image = cms.NullOf(f.URL)
		if _, err := c.Upsert(ctx, walk); err != nil {
			t.Fatal(err)
		}
		read, err := c.File(ctx, f.ID)
		must(t, err)
		if want := []client.FileUse{{Kind: cms.KindResource, ID: "lake-walk", Field: "image"}}; !slices.Equal(read.UsedBy, want) {
			t.Errorf("used by %+v, want %+v", read.UsedBy, want)
		}
		err = c.DeleteFile(ctx, f.ID)
		var apiErr *client.Error
		if !errors.As(err, &apiErr) || apiErr.Status != http.StatusConflict || apiErr.Fail != "File "+f.ID+" is used by Resource lake-walk" {
			t.Fatalf("deleting a used file: %v", err)
		}
		if status, _, _ := e.get(f.URL); status != http.StatusOK {
			t.Errorf("after the refused delete the url answers %d", status)
		}

		if _, err := c.Upsert(ctx, &cms.Resource{ID: "lake-walk", Image: cms.Nil[string]()}); err != nil {
			t.Fatal(err)
		}
		must(t, c.DeleteFile(ctx, f.ID))
		if _, err := c.File(ctx, f.ID); !errors.Is(err, client.ErrNotFound) {
			t.Errorf("read after delete: %v", err)
		}
		if status, _, _ := e.get(f.URL); status != http.StatusNotFound {
			t.Errorf("the url after delete: %d", status)
		}
		if err := c.DeleteFile(ctx, f.ID); !errors.Is(err, client.ErrNotFound) {
			t.Errorf("delete again: %v", err)
		}
		if got := files(t, c, client.FileListOptions{}); len(got) != 0 {
			t.Errorf("library after delete: %v", ids(got))
		}
		for _, id := range []string{"", "lake-walk", "../auth", strings.Repeat("a", 27)} {
			if _, err := c.File(ctx, id); err == nil || errors.As(err, &apiErr) && apiErr.Status != 0 {
				t.Errorf("File(%q): %v, want an error before any request", id, err)
			}
		}
	})
}

// Without file:write an upload is refused (once more after a refresh,
// which a permission granted meanwhile would have brought) and stores
// nothing; without file:read the library is closed.
func TestFilePermissions(t *testing.T) {
	eachStore(t, func(t *testing.T, e *env) {
		ctx := t.Context()
		reader := e.client("reader")
		_, err := reader.UploadFile(ctx, "pier.png", bytes.NewReader(icon(t, 1)))
		if !errors.Is(err, client.ErrForbidden) || e.refreshes.Load() != 1 {
			t.Errorf("upload without file:write: %v, %d refreshes", err, e.refreshes.Load())
		}
		for _, err := range reader.Files(ctx, client.FileListOptions{}) {
			if !errors.Is(err, client.ErrForbidden) {
				t.Errorf("list without file:read: %v", err)
			}
		}
		if got := files(t, e.client("admin"), client.FileListOptions{}); len(got) != 0 {
			t.Errorf("stored: %v", ids(got))
		}
		must(t, e.svc.SetPerms(ctx, "reader", []string{"file:write", "file:read"}))
		if f, err := reader.UploadFile(ctx, "pier.png", bytes.NewReader(icon(t, 1))); err != nil || f.Type != "image/png" || e.refreshes.Load() != 3 {
			t.Errorf("after a grant: %+v %v, %d refreshes", f, err, e.refreshes.Load())
		}
	})
}

// An upload whose access token has expired is sent again after one
// refresh when it can be: its reader seeks, or the HTTP client waits for
// 100 Continue (as http.DefaultTransport does) so the server refused
// before any content went. A reader that has been read and cannot seek
// gives an error that says so, the session refreshed; and a token about
// to expire by its lifetime is refreshed before such a reader is read.
func TestUploadRefresh(t *testing.T) {
	eachStore(t, func(t *testing.T, e *env) {
		ctx := t.Context()
		c := e.client("admin")
		img := icon(t, 1)

		e.expire()
		if f, err := c.UploadFile(ctx, "a.png", bytes.NewReader(img)); err != nil || f.Existing || e.refreshes.Load() != 1 {
			t.Fatalf("a seekable reader after expiry: %+v %v, %d refreshes", f, err, e.refreshes.Load())
		}

		e.expire()
		// The server answers once the content has started to go.
		hold := make(chan struct{})
		e.holdUpload.Store(&hold)
		r := &countingReader{r: bytes.NewReader(icon(t, 2)), first: hold}
		_, err := c.UploadFile(ctx, "b.png", onlyReader{r})
		e.holdUpload.Store(nil)
		if !errors.Is(err, client.ErrUnauthorized) || !strings.Contains(err.Error(), "cannot be sent again") || e.refreshes.Load() != 2 || r.n == 0 {
			t.Fatalf("a stream after expiry: %v, %d refreshes, %d bytes read", err, e.refreshes.Load(), r.n)
		}
		if f, err := c.UploadFile(ctx, "b.png", stream(icon(t, 2))); err != nil || f.Existing || e.refreshes.Load() != 2 {
			t.Fatalf("the stream again: %+v %v, %d refreshes", f, err, e.refreshes.Load())
		}

		tr := e.http.Transport.(*http.Transport).Clone()
		tr.ExpectContinueTimeout = time.Minute
		waits, err := client.New(e.url, &client.Options{HTTPClient: &http.Client{Transport: tr}})
		must(t, err)
		must(t, waits.Login(ctx, "admin", testenv.Password))
		e.expire()
		if f, err := waits.UploadFile(ctx, "c.png", stream(icon(t, 3))); err != nil || f.Existing || e.refreshes.Load() != 3 {
			t.Fatalf("a stream with 100 Continue after expiry: %+v %v, %d refreshes", f, err, e.refreshes.Load())
		}

		// Tokens kept since the test clock's epoch: expired by this
		// machine's clock, though not the server's.
		kept, err := client.New(e.url, &client.Options{HTTPClient: e.http})
		must(t, err)
		must(t, kept.SetTokens(waits.Tokens()))
		if f, err := kept.UploadFile(ctx, "d.png", stream(icon(t, 4))); err != nil || f.Existing || e.refreshes.Load() != 4 {
			t.Fatalf("a stream with a token past its time: %+v %v, %d refreshes", f, err, e.refreshes.Load())
		}
		if got := files(t, c, client.FileListOptions{}); len(got) != 4 {
			t.Errorf("stored %d files, want 4", len(got))
		}
	})
}

// countingReader counts what it reads, and closes first (when set) at
// the first read.
type countingReader struct {
	r     io.Reader
	n     int
	first chan struct{}
}

func (c *countingReader) Read(p []byte) (int, error) {
	if c.first != nil {
		close(c.first)
		c.first = nil
	}
	n, err := c.r.Read(p)
	c.n += n
	return n, err
}
