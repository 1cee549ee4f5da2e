package admin

import (
	"encoding/json"
	"net/http"
	"net/url"
	"strings"
	"testing"

	"github.com/PuerkitoBio/goquery"

	"github.com/bwcms/cms/cms"
)

// TestFilesNeedFileRead: the menu shows Files only to users who may read
// files; the others get a 403 page at every address of the library, and
// an upload of theirs stores nothing.
func TestFilesNeedFileRead(t *testing.T) {
	t.Parallel()
	e := newEnv(t, envOptions{prefix: "/admin"})
	f := e.uploadFile("walk.png", pngOf(t, 40, 30))

	for _, user := range []string{"admin", "reader"} {
		doc := e.open(e.signIn(user), "/")
		if n := doc.Find(`header nav a[href="/admin/file/"]`).Length(); n != 1 {
			t.Errorf("%s: %d Files entries in the menu, want 1", user, n)
		}
	}

	c := e.signIn("editor") // resource:* and map:*, nothing of files
	doc := e.open(c, "/")
	if n := doc.Find(`header nav a[href="/admin/file/"]`).Length(); n != 0 {
		t.Errorf("editor: a Files entry in the menu")
	}
	for _, path := range []string{"/file/", "/file/?kind=image", "/file/" + f.ID} {
		doc := e.page(e.get(c, path), http.StatusForbidden)
		if got := text(doc.Find("main")); !strings.Contains(got, "Your permissions do not allow this.") {
			t.Errorf("GET %s: page says %q", path, got)
		}
	}
	res := e.postMultipart(c, "/file/upload", nil, upload{"file", "other.png", pngOf(t, 20, 20)})
	e.page(res, http.StatusForbidden)
	res = e.post(c, "/file/"+f.ID+"/delete", url.Values{"confirm": {"yes"}})
	e.page(res, http.StatusForbidden)
	if got := e.files(); len(got) != 1 || got[0].ID != f.ID {
		t.Errorf("files after the editor's tries: %v, want only %s", got, f.ID)
	}

	// A reader sees the library without the upload form or Delete.
	r := e.signIn("reader")
	doc = e.open(r, "/file/")
	if doc.Find("form#file-upload").Length() != 0 {
		t.Error("reader: an upload form")
	}
	doc = e.open(r, "/file/"+f.ID)
	if doc.Find(`form[action="/admin/file/`+f.ID+`/delete"]`).Length() != 0 {
		t.Error("reader: a Delete button")
	}
}

// TestUploadFromTheLibrary uploads a PNG and a GPX at once through the
// library's form (no scripts): the page says each was uploaded, lists
// them with a thumbnail of the image (at 160 pixels, with its
// dimensions) and the track's figures, and the files are stored.
func TestUploadFromTheLibrary(t *testing.T) {
	t.Parallel()
	e := newEnv(t, envOptions{prefix: "/admin"})
	c := e.signIn("admin")
	doc := e.open(c, "/file/")
	if text(doc.Find("main")) == "" || doc.Find(`form#file-upload input[type=file][name=file][multiple]`).Length() != 1 {
		t.Fatal("no upload form with a multiple file input")
	}
	if got := doc.Find("#f-file").AttrOr("accept", ""); got != ".jpg,.jpeg,.png,.webp,.gpx,.kml,.kmz" {
		t.Errorf("accept %q", got)
	}

	res := e.postMultipart(c, "/file/upload", nil,
		upload{"file", "Lake view.png", pngOf(t, 1200, 900)}, upload{"file", "north.gpx", gpxNorth(100)})
	doc = e.page(res, http.StatusOK)
	results := doc.Find(".upload-results li")
	if results.Length() != 2 || !strings.Contains(text(results.Eq(0)), "Lake view.png: uploaded as") ||
		!strings.Contains(text(results.Eq(1)), "north.gpx: uploaded as") {
		t.Fatalf("results: %q", text(doc.Find(".upload-results")))
	}
	stored := e.files()
	if len(stored) != 2 {
		t.Fatalf("%d files stored, want 2", len(stored))
	}
	byName := map[string]cms.File{}
	for _, f := range stored {
		byName[f.Name] = f
	}
	img, gpx := byName["Lake view.png"], byName["north.gpx"]
	if img.Type != "image/png" || img.Width != 1200 || img.Height != 900 || gpx.Type != "application/gpx+xml" || gpx.Track == nil {
		t.Fatalf("stored %+v and %+v", img, gpx)
	}

	for _, doc := range []*goquery.Document{doc, e.open(c, "/file/")} {
		card := doc.Find(`li.file-card[data-id="` + img.ID + `"]`)
		thumb := card.Find("img")
		if thumb.AttrOr("src", "") != e.fileURL(&img)+"?w=160" || thumb.AttrOr("width", "") != "160" || thumb.AttrOr("height", "") != "120" {
			t.Errorf("thumbnail %s %sx%s", thumb.AttrOr("src", ""), thumb.AttrOr("width", ""), thumb.AttrOr("height", ""))
		}
		if got := text(card.Find(".file-name")); got != "Lake view.png" {
			t.Errorf("name %q", got)
		}
		if got := text(card.Find(".file-meta")); !strings.Contains(got, "PNG image") || !strings.Contains(got, "1200 × 900 px") {
			t.Errorf("image meta %q", got)
		}
		if got := card.Find("a.file-name").AttrOr("href", ""); got != "/admin/file/"+img.ID {
			t.Errorf("link %q", got)
		}
		track := text(doc.Find(`li.file-card[data-id="` + gpx.ID + `"] .file-meta`))
		for _, want := range []string{"GPX track", "11.1 km", "↑ 500 m", "↓ 0 m", "1 h 40 min"} {
			if !strings.Contains(track, want) {
				t.Errorf("track card %q lacks %q", track, want)
			}
		}
	}

	// The same bytes again, from a script: the file already stored.
	req := e.multipartRequest("/file/upload", nil, upload{"file", "copy.png", pngOf(t, 1200, 900)})
	req.Header.Set("Accept", "application/json")
	res = e.do(c, req)
	var again struct {
		Results []struct {
			Name     string
			File     fileCard
			Existing bool
		}
	}
	if err := json.NewDecoder(res.Body).Decode(&again); err != nil {
		t.Fatal(err)
	}
	if res.StatusCode != http.StatusOK || len(again.Results) != 1 || !again.Results[0].Existing ||
		again.Results[0].File.ID != img.ID || again.Results[0].File.URL != e.fileURL(&img) {
		t.Errorf("the same bytes again: %d %+v", res.StatusCode, again)
	}
	if n := len(e.files()); n != 2 {
		t.Errorf("%d files after the same bytes again, want 2", n)
	}

	// Its page: the preview at 640 pixels, the url, the figures.
	doc = e.open(c, "/file/"+img.ID)
	pre := doc.Find(".file-preview img")
	if pre.AttrOr("src", "") != e.fileURL(&img)+"?w=640" || pre.AttrOr("width", "") != "640" || pre.AttrOr("height", "") != "480" {
		t.Errorf("preview %s %sx%s", pre.AttrOr("src", ""), pre.AttrOr("width", ""), pre.AttrOr("height", ""))
	}
	if got := doc.Find("#file-url").AttrOr("value", ""); got != e.fileURL(&img) {
		t.Errorf("url %q, want %q", got, e.fileURL(&img))
	}
	doc = e.open(c, "/file/"+gpx.ID)
	got := figures(doc.Find(".file-preview"))
	wantFigures(t, "the track's page", got, northFigures)
	wantFigures(t, "the track's page", got, map[string]string{"Start": "45.00000, 7.00000", "End": "45.10000, 7.00000", "Circular": "no"})
}

// TestRefusedUploadSaysWhyAndStoresNothing: a file of no accepted type
// is refused with the service's text beside its name, and nothing is
// stored; a good file sent with it is.
func TestRefusedUploadSaysWhyAndStoresNothing(t *testing.T) {
	t.Parallel()
	e := newEnv(t, envOptions{prefix: "/admin"})
	c := e.signIn("admin")
	res := e.postMultipart(c, "/file/upload", nil, upload{"file", "notes.txt", []byte(strings.Repeat("plain text, no image\n", 200))})
	doc := e.page(res, http.StatusConflict)
	item := text(doc.Find(".upload-results li"))
	if !strings.HasPrefix(item, "notes.txt: ") || !strings.Contains(item, "nothing was stored") || len(item) < len("notes.txt: (nothing was stored)")+10 {
		t.Errorf("result %q", item)
	}
	if n := len(e.files()); n != 0 {
		t.Errorf("%d files stored", n)
	}

	res = e.postMultipart(c, "/file/upload", nil, upload{"file", "bad.png", []byte("\x89PNG\r\n\x1a\nnot really")}, upload{"file", "good.png", pngOf(t, 64, 48)})
	doc = e.page(res, http.StatusConflict)
	if got := text(doc.Find(".upload-results li").Eq(1)); !strings.HasPrefix(got, "good.png: uploaded as") {
		t.Errorf("the good file: %q", got)
	}
	if files := e.files(); len(files) != 1 || files[0].Name != "good.png" {
		t.Errorf("stored %v, want good.png alone", files)
	}

	// Over the largest upload: refused beside its name, nothing stored.
	huge := append(pngOf(t, 64, 64), make([]byte, cms.MaxUpload)...)
	doc = e.page(e.postMultipart(c, "/file/upload", nil, upload{"file", "huge.png", huge}), http.StatusRequestEntityTooLarge)
	if got := text(doc.Find(".upload-results li")); got != "huge.png: Request too large (nothing was stored)" {
		t.Errorf("a huge file: %q", got)
	}
	if files := e.files(); len(files) != 1 {
		t.Errorf("after a huge file: %d files, want 1", len(files))
	}

	// No file at all: the page says to choose one.
	doc = e.page(e.postMultipart(c, "/file/upload", nil, upload{"file", "", nil}), http.StatusBadRequest)
	if got := text(doc.Find(".error-summary")); got != "Choose one or more files to upload, then press Upload." {
		t.Errorf("no file: %q", got)
	}

	// A script gets the same text in JSON.
	req := e.multipartRequest("/file/upload", nil, upload{"file", "notes.txt", []byte("plain")})
	req.Header.Set("Accept", "application/json")
	res = e.do(c, req)
	var body struct {
		Results []struct{ Name, Fail string }
	}
	if err := json.NewDecoder(res.Body).Decode(&body); err != nil {
		t.Fatal(err)
	}
	if res.StatusCode != http.StatusConflict || len(body.Results) != 1 || body.Results[0].Name != "notes.txt" || body.Results[0].Fail == "" {
		t.Errorf("JSON answer %d %+v", res.StatusCode, body)
	}
}

// TestUploadFromAnotherSiteIsRefused: the upload endpoint refuses a
// browser's cross-site request like every other.
func TestUploadFromAnotherSiteIsRefused(t *testing.T) {
	t.Parallel()
	e := newEnv(t, envOptions{prefix: "/admin"})
	c := e.signIn("admin")
	req := e.multipartRequest("/file/upload", nil, upload{"file", "x.png", pngOf(t, 20, 20)})
	req.Header.Set("Origin", "https://evil.example")
	req.Header.Set("Sec-Fetch-Site", "cross-site")
	e.page(e.do(c, req), http.StatusForbidden)
	if n := len(e.files()); n != 0 {
		t.Errorf("%d files stored", n)
	}
}

// TestDeleteAFile asks first, then deletes; a file a record uses is
// refused with a text naming the record, and stays.
func TestDeleteAFile(t *testing.T) {
	t.Parallel()
	e := newEnv(t, envOptions{prefix: "/admin"})
	c := e.signIn("admin")
	used := e.uploadFile("used.png", pngOf(t, 80, 60))
	free := e.uploadFile("free.png", pngOf(t, 60, 80))

	// A Resource names the file through the record form.
	doc := e.open(c, "/resource/new")
	res := e.press(c, doc, "/resource/new", "save", func(v url.Values) {
		v.Set("id", "r-pic")
		v.Set("title", "With a picture")
		v.Set("image", e.fileURL(used))
	})
	doc = e.follow(c, res, "/resource/r-pic/edit")

	doc = e.open(c, "/file/"+used.ID)
	if got := text(doc.Find("ul.file-uses")); got != "Resource r-pic, field image" {
		t.Errorf("used by %q", got)
	}
	if got := doc.Find("ul.file-uses a").AttrOr("href", ""); got != "/admin/resource/r-pic/edit" {
		t.Errorf("use links to %q", got)
	}
	res = e.post(c, "/file/"+used.ID+"/delete", nil)
	doc = e.page(res, http.StatusOK)
	if doc.Find(`form.confirm input[name=confirm][value=yes]`).Length() != 1 {
		t.Fatal("no confirmation")
	}
	res = e.post(c, "/file/"+used.ID+"/delete", url.Values{"confirm": {"yes"}})
	doc = e.page(res, http.StatusConflict)
	if got := text(doc.Find(".error-summary")); !strings.Contains(got, "Resource r-pic") {
		t.Errorf("refusal says %q, want it to name Resource r-pic", got)
	}
	if _, _, err := e.svc.GetFile(e.acme(), used.ID); err != nil {
		t.Errorf("the used file is gone: %v", err)
	}

	res = e.post(c, "/file/"+free.ID+"/delete", url.Values{"confirm": {"yes"}})
	if res.StatusCode != http.StatusSeeOther || res.Header.Get("Location") != "/admin/file/?deleted="+free.ID {
		t.Fatalf("delete: %d to %q", res.StatusCode, res.Header.Get("Location"))
	}
	doc = e.open(c, "/file/?deleted="+free.ID)
	if got := text(doc.Find(".notice.ok")); got != "File "+free.ID+" was deleted." {
		t.Errorf("notice %q", got)
	}
	if _, _, err := e.svc.GetFile(e.acme(), free.ID); cms.ErrorCode(err) != cms.CodeNotFound {
		t.Errorf("the free file: %v, want not found", err)
	}
	e.page(e.get(c, "/file/"+free.ID), http.StatusNotFound)
}

// TestFileNamesAreText: a name holding markup is shown as text on every
// page and in what scripts get.
func TestFileNamesAreText(t *testing.T) {
	t.Parallel()
	e := newEnv(t, envOptions{prefix: "/admin"})
	c := e.signIn("admin")
	// No slash: a multipart file name is cut to its last path element.
	name := `<script>alert(1)<script><img src=x onerror=alert(2)>.png`
	res := e.postMultipart(c, "/file/upload", nil, upload{"file", name, pngOf(t, 30, 30)})
	doc := e.page(res, http.StatusOK)
	f := e.files()[0]
	for what, doc := range map[string]*goquery.Document{"upload": doc, "list": e.open(c, "/file/"), "page": e.open(c, "/file/"+f.ID)} {
		if n := doc.Find("main script, main img[onerror], main img[src=x]").Length(); n != 0 {
			t.Errorf("%s: %d elements from the name", what, n)
		}
		if !strings.Contains(doc.Find("main").Text(), name) {
			t.Errorf("%s: the name is not shown as text", what)
		}
	}
	if got := e.open(c, "/file/"+f.ID).Find("title").Text(); !strings.HasPrefix(got, name) {
		t.Errorf("title %q", got)
	}
}

// TestFileListFiltersAndPages: the kind filter keeps its types (a track
// only when the file holds one), and pages follow the cursor without
// skipping or repeating a file.
func TestFileListFiltersAndPages(t *testing.T) {
	t.Parallel()
	e := newEnv(t, envOptions{prefix: "/admin"})
	c := e.signIn("admin")
	var images []string
	for i := range 7 {
		images = append(images, e.uploadFile("pic.png", pngOf(t, 20+i, 20)).ID)
		e.clock.Advance(1e9)
	}
	track := e.uploadFile("north.gpx", gpxNorth(20)).ID
	e.clock.Advance(1e9)
	layer := e.uploadFile("layer.kml", []byte(`<?xml version="1.0"?><kml xmlns="http://www.opengis.net/kml/2.2"><Document><Placemark><Point><coordinates>7,45</coordinates></Point></Placemark></Document></kml>`)).ID

	ids := func(doc *goquery.Document) []string {
		var out []string
		doc.Find("li.file-card").Each(func(_ int, s *goquery.Selection) { out = append(out, s.AttrOr("data-id", "")) })
		return out
	}
	if got := ids(e.open(c, "/file/?kind=track")); len(got) != 1 || got[0] != track {
		t.Errorf("tracks %v, want %s", got, track)
	}
	if got := ids(e.open(c, "/file/?kind=layer")); len(got) != 1 || got[0] != layer {
		t.Errorf("layers %v, want %s", got, layer)
	}
	// Images, three a page, newest first.
	var seen []string
	path := "/file/?kind=image&limit=3"
	for range 5 {
		doc := e.open(c, path)
		seen = append(seen, ids(doc)...)
		next, ok := doc.Find(`nav.pager a[rel=next]`).Attr("href")
		if !ok {
			break
		}
		path = strings.TrimPrefix(next, "/admin")
	}
	if len(seen) != 7 {
		t.Fatalf("pages showed %v, want the 7 images", seen)
	}
	for i, id := range seen {
		if id != images[6-i] {
			t.Errorf("image %d is %s, want %s", i, id, images[6-i])
		}
	}

	// Scripts get the same, as JSON.
	req, _ := http.NewRequest(http.MethodGet, e.url("/file/?kind=track"), nil)
	req.Header.Set("Accept", "application/json")
	res := e.do(c, req)
	var body struct {
		Files []fileCard
		Next  string
	}
	if err := json.NewDecoder(res.Body).Decode(&body); err != nil {
		t.Fatal(err)
	}
	if len(body.Files) != 1 || body.Files[0].ID != track || body.Files[0].Track == nil || body.Files[0].Track.Distance == "" || body.Next != "" {
		t.Errorf("JSON %+v", body)
	}
}

// TestTrackTextsAreText: the name and description a KML carries are shown
// on the file's page as text: markup in them never becomes elements.
func TestTrackTextsAreText(t *testing.T) {
	t.Parallel()
	e := newEnv(t, envOptions{prefix: "/admin"})
	c := e.signIn("admin")
	kml := `<?xml version="1.0" encoding="UTF-8"?><kml xmlns="http://www.opengis.net/kml/2.2"><Document>` +
		`<name>Ridge &lt;img src=x onerror=alert(1)&gt; walk</name>` +
		`<description><![CDATA[Views <b>north</b> & south <script>alert(2)</script>]]></description>` +
		`<Placemark><LineString><coordinates>7,45,100 7.01,45.01,150 7.02,45.02,120</coordinates></LineString></Placemark></Document></kml>`
	f := e.uploadFile("ridge.kml", []byte(kml))
	doc := e.open(c, "/file/"+f.ID)
	if n := doc.Find("main script, main img[onerror], main b").Length(); n != 0 {
		t.Fatalf("%d elements from the file's texts", n)
	}
	name, text := doc.Find(".track-name").Text(), doc.Find(".track-text").Text()
	if !strings.Contains(name, "Ridge") || !strings.Contains(name, "walk") || !strings.Contains(text, "Views") || !strings.Contains(text, "south") {
		t.Fatalf("texts not shown: %q / %q", name, text)
	}
}
