package admin

import (
	"encoding/json"
	"net/http"
	"net/url"
	"regexp"
	"slices"
	"strings"
	"testing"

	"github.com/PuerkitoBio/goquery"

	"github.com/bwcms/cms/cms"
	"github.com/bwcms/cms/transport"
)

// fileProps finds the file fields of a kind's schema on its own: URL
// properties (and lists of them, and those of nested items) whose pattern
// refuses a URL of a .txt file and takes one of an image, a KML or a GPX.
// It returns the control name of each (items: of the first item) with the
// extensions it takes.
func fileProps(t *testing.T, kind cms.Kind) map[string][]string {
	t.Helper()
	raw, err := cms.JSONSchema(kind, cms.Languages{Default: "en", All: []string{"en", "it", "de"}})
	if err != nil {
		t.Fatal(err)
	}
	type prop struct {
		Type       any              `json:"type"`
		Format     string           `json:"format"`
		Pattern    string           `json:"pattern"`
		Items      *json.RawMessage `json:"items"`
		Properties map[string]json.RawMessage
	}
	out := map[string][]string{}
	var walk func(props map[string]json.RawMessage, prefix string)
	takes := func(p prop) []string {
		if p.Format != "uri" || p.Pattern == "" {
			return nil
		}
		re := regexp.MustCompile(p.Pattern)
		if re.MatchString("https://h.example/a/b.txt") {
			return nil
		}
		var exts []string
		for _, ext := range []string{"jpg", "jpeg", "png", "webp", "gpx", "kml", "kmz"} {
			if re.MatchString("https://h.example/a/b." + ext) {
				exts = append(exts, ext)
			}
		}
		return exts
	}
	walk = func(props map[string]json.RawMessage, prefix string) {
		for name, rawProp := range props {
			var p prop
			if err := json.Unmarshal(rawProp, &p); err != nil {
				t.Fatal(err)
			}
			if exts := takes(p); exts != nil {
				out[prefix+name] = exts
			}
			if p.Items != nil {
				var it prop
				if err := json.Unmarshal(*p.Items, &it); err != nil {
					t.Fatal(err)
				}
				if exts := takes(it); exts != nil {
					out[prefix+name] = exts
				}
				if it.Properties != nil {
					walk(it.Properties, prefix+name+"[0].")
				}
			}
		}
	}
	var doc struct{ Properties map[string]json.RawMessage }
	if err := json.Unmarshal(raw, &doc); err != nil {
		t.Fatal(err)
	}
	walk(doc.Properties, "")
	return out
}

// TestEveryFileFieldHasAnUploadControl: on every kind's form, each file
// field has beside its URL input a labelled file input that takes the
// field's extensions and an Upload button; the ones the brief names are
// among them, with their accept lists.
func TestEveryFileFieldHasAnUploadControl(t *testing.T) {
	t.Parallel()
	e := newEnv(t, envOptions{prefix: "/admin"})
	c := e.signIn("admin")
	images, layers, tracks := ".jpg,.jpeg,.png,.webp", ".kml,.kmz", ".gpx,.kml"
	named := map[cms.Kind]map[string]string{
		cms.KindResource: {"image": images, "multimedia": images, "mapLayerFile": layers, "trackFile": tracks},
		cms.KindMap: {"image": images, "mapLayerFile": layers, "customFilterFile": images, "customHeaderFile": images,
			"customBrandedPoiFile": images, "customLoaderFile": images, "tourMultiday[0].image": images},
		cms.KindLanding:  {"image": images},
		cms.KindProposal: {"image": images},
	}
	for _, kind := range cms.Kinds() {
		e.put(kind, oneOfEach[kind])
		doc := e.open(c, "/"+string(kind)+"/"+oneID[kind]+"/edit")
		if got := doc.Find("#record-form").AttrOr("enctype", ""); got != "multipart/form-data" {
			t.Errorf("%s: form enctype %q", kind, got)
		}
		props := fileProps(t, kind)
		for name, accept := range named[kind] {
			if got := strings.Join(dotted(props[name]), ","); got != accept {
				t.Errorf("%s: the schema's %s takes %q, want %q", kind, name, got, accept)
			}
		}
		for name, exts := range props {
			id := controlID(name)
			tools := doc.Find(`.file-tools[data-for="` + id + `"]`)
			if tools.Length() != 1 {
				t.Errorf("%s: file field %s has %d upload controls", kind, name, tools.Length())
				continue
			}
			in := tools.Find(`input[type=file][name="` + ctlUpload + name + `"]`)
			if in.Length() != 1 {
				t.Errorf("%s: %s has no file input", kind, name)
				continue
			}
			if got, want := in.AttrOr("accept", ""), strings.Join(dotted(exts), ","); got != want {
				t.Errorf("%s: %s accepts %q, want %q", kind, name, got, want)
			}
			if label := doc.Find(`label[for="` + in.AttrOr("id", "") + `"]`); !strings.HasPrefix(text(label), "Upload") {
				t.Errorf("%s: %s: the file input's label is %q", kind, name, text(label))
			}
			if tools.Find(`button[name=_action][value="upload:`+name+`"]`).Length() != 1 {
				t.Errorf("%s: %s has no Upload button", kind, name)
			}
			_, multiple := in.Attr("multiple")
			if isList := doc.Find(`textarea#`+id).Length() == 1; multiple != isList {
				t.Errorf("%s: %s: multiple %v on a list %v", kind, name, multiple, isList)
			}
		}
		if len(props) < len(named[kind]) {
			t.Errorf("%s: found %d file fields, want at least %d", kind, len(props), len(named[kind]))
		}
		// No other field has one.
		doc.Find(".file-tools").Each(func(_ int, s *goquery.Selection) {
			name := strings.TrimPrefix(s.Find("input[type=file]").AttrOr("name", ""), ctlUpload)
			if _, ok := props[name]; !ok {
				t.Errorf("%s: %s has an upload control but is no file field", kind, name)
			}
		})
	}

	// Without file permissions, no upload control.
	r := e.signIn("editor")
	if n := e.open(r, "/resource/r-1/edit").Find(".file-tools").Length(); n != 0 {
		t.Errorf("editor without file permissions: %d upload controls", n)
	}
}

// TestUploadIntoAFileFieldWithoutScripts: Upload in a field puts the
// file's url there and saves nothing; Save then stores it. A list of
// URLs gets a line per file.
func TestUploadIntoAFileFieldWithoutScripts(t *testing.T) {
	t.Parallel()
	e := newEnv(t, envOptions{prefix: "/admin"})
	c := e.signIn("admin")
	e.put(cms.KindResource, `{"id":"r-1","title":"Resource one"}`)
	before := e.storedJSON(cms.KindResource, "r-1")
	doc := e.open(c, "/resource/r-1/edit")
	vals := formValues(t, doc, "#record-form")
	vals.Set("_action", "upload:image")
	res := e.postMultipart(c, "/resource/r-1/edit", vals, upload{ctlUpload + "image", "cover.png", pngOf(t, 400, 300)})
	doc = e.page(res, http.StatusOK)
	files := e.files()
	if len(files) != 1 {
		t.Fatalf("%d files stored", len(files))
	}
	if got := valueOf(doc, "image"); got != e.fileURL(&files[0]) {
		t.Errorf("image %q, want %q", got, e.fileURL(&files[0]))
	}
	if got := notices(doc); !strings.Contains(got, "Uploaded cover.png") {
		t.Errorf("notice %q", got)
	}
	if got := e.storedJSON(cms.KindResource, "r-1"); got != before {
		t.Errorf("Upload saved the record: %s", got)
	}

	// Save, with two gallery images chosen at the same time.
	vals = formValues(t, doc, "#record-form")
	vals.Set("_action", "save")
	res = e.postMultipart(c, "/resource/r-1/edit", vals,
		upload{ctlUpload + "multimedia", "one.png", pngOf(t, 50, 40)}, upload{ctlUpload + "multimedia", "two.png", pngOf(t, 40, 50)})
	e.follow(c, res, "/resource/r-1/edit")
	got := e.stored(cms.KindResource, "r-1")
	files = e.files()
	byName := map[string]*cms.File{}
	for i := range files {
		byName[files[i].Name] = &files[i]
	}
	if got["image"] != e.fileURL(byName["cover.png"]) {
		t.Errorf("stored image %v", got["image"])
	}
	want := []any{e.fileURL(byName["one.png"]), e.fileURL(byName["two.png"])}
	if list, _ := got["multimedia"].([]any); !slices.Equal(list, want) {
		t.Errorf("stored multimedia %v, want %v", got["multimedia"], want)
	}
	// The file's page names the record.
	page := e.open(c, "/file/"+byName["one.png"].ID)
	if got := text(page.Find("ul.file-uses")); got != "Resource r-1, field multimedia" {
		t.Errorf("one.png used by %q", got)
	}
}

// TestRefusedUploadIntoAFieldSavesNothing: a file the service refuses, or
// one of another type than the field's, stops the save: the problem is
// beside the field and names the file; the record is unchanged.
func TestRefusedUploadIntoAFieldSavesNothing(t *testing.T) {
	t.Parallel()
	e := newEnv(t, envOptions{prefix: "/admin"})
	c := e.signIn("admin")
	e.put(cms.KindResource, `{"id":"r-1","title":"Resource one"}`)
	before := e.storedJSON(cms.KindResource, "r-1")
	for _, tc := range []struct {
		file upload
		want string
	}{
		{upload{ctlUpload + "image", "notes.txt", []byte("just some text")}, `"notes.txt" was not uploaded into this field. The file is not a JPEG`},
		{upload{ctlUpload + "image", "north.gpx", gpxNorth(10)}, `"north.gpx" was not uploaded into this field. This field takes .jpg, .jpeg, .png or .webp files, not a GPX track; the file is kept in Files.`},
	} {
		doc := e.open(c, "/resource/r-1/edit")
		vals := formValues(t, doc, "#record-form")
		vals.Set("title", "Changed")
		vals.Set("_action", "save")
		doc = e.page(e.postMultipart(c, "/resource/r-1/edit", vals, tc.file), http.StatusConflict)
		if got := text(doc.Find("#f-image-error")); !strings.Contains(got, tc.want) {
			t.Errorf("%s: error beside image %q, want %q", tc.file.name, got, tc.want)
		}
		if doc.Find(`.error-summary a[href="#f-image"]`).Length() != 1 {
			t.Errorf("%s: the summary does not link to the field", tc.file.name)
		}
		if got := valueOf(doc, "title"); got != "Changed" {
			t.Errorf("%s: the form lost the title: %q", tc.file.name, got)
		}
		if got := e.storedJSON(cms.KindResource, "r-1"); got != before {
			t.Errorf("%s: the record changed: %s", tc.file.name, got)
		}
	}
	if files := e.files(); len(files) != 1 || files[0].Name != "north.gpx" {
		t.Errorf("files %v, want the GPX alone (a file of another type is kept)", files)
	}

	// An editor who may change Resources but not upload files: the file
	// is refused on its field, nothing is saved or stored.
	ed := e.signIn("editor")
	doc := e.open(ed, "/resource/r-1/edit")
	vals := formValues(t, doc, "#record-form")
	vals.Set("title", "Changed")
	vals.Set("_action", "save")
	doc = e.page(e.postMultipart(ed, "/resource/r-1/edit", vals, upload{ctlUpload + "image", "cover.png", pngOf(t, 40, 30)}), http.StatusConflict)
	if got := text(doc.Find("#f-image-error")); !strings.Contains(got, "Your permissions do not allow this.") {
		t.Errorf("editor: error beside image %q", got)
	}
	if got := e.storedJSON(cms.KindResource, "r-1"); got != before {
		t.Errorf("editor: the record changed: %s", got)
	}
	if n := len(e.files()); n != 1 {
		t.Errorf("editor: %d files, want 1", n)
	}
}

// TestTrackFormShowsTheFileFigures: a TRACK Resource whose trackFile
// names one of the account's tracks shows the track's figures beside the
// field, with a note; saving fills the empty track fields from the file.
func TestTrackFormShowsTheFileFigures(t *testing.T) {
	t.Parallel()
	e := newEnv(t, envOptions{prefix: "/admin"})
	c := e.signIn("admin")
	track := e.uploadFile("north.gpx", gpxNorth(100))
	doc := e.open(c, "/resource/new")
	res := e.press(c, doc, "/resource/new", "save", func(v url.Values) {
		v.Set("id", "r-track")
		v.Set("title", "North walk")
		v.Set("resourceType", "TRACK")
		v.Set("trackFile", e.fileURL(track))
	})
	doc = e.follow(c, res, "/resource/r-track/edit")
	box := doc.Find("#f-trackFile-track")
	wantFigures(t, "beside trackFile", figures(box), northFigures)
	if got := text(box); !strings.Contains(got, "The track fields left empty are filled from this file when the record is saved.") {
		t.Errorf("beside trackFile %q: no note", got)
	}
	stored := e.stored(cms.KindResource, "r-track")
	// 0.1° of latitude on the mean Earth radius: 11,119.5 m.
	if d, _ := stored["trackTravelDistance"].(float64); d != 11120 {
		t.Errorf("derived distance %v, want 11120", stored["trackTravelDistance"])
	}
	// Another kind's file field shows no figures; a URL that names no
	// file of the account neither.
	e.put(cms.KindResource, `{"id":"r-foreign","title":"Foreign","resourceType":"TRACK","trackFile":"https://elsewhere.example/x/walk.gpx"}`)
	if n := e.open(c, "/resource/r-foreign/edit").Find(".file-track").Length(); n != 0 {
		t.Errorf("a foreign track file shows %d figure boxes", n)
	}
}

// TestPagesAllowImagesOfTheFileURLs: the pages' policy lets images load
// from the file urls' origin: the public URL's when the API has one.
func TestPagesAllowImagesOfTheFileURLs(t *testing.T) {
	t.Parallel()
	imgSrc := func(res *http.Response) string {
		for _, d := range strings.Split(res.Header.Get("Content-Security-Policy"), ";") {
			if d = strings.TrimSpace(d); strings.HasPrefix(d, "img-src ") {
				return d
			}
		}
		return ""
	}
	e := newEnv(t, envOptions{prefix: "/admin"})
	if got := imgSrc(e.get(e.signIn("admin"), "/file/")); !strings.Contains(got, "'self'") || !strings.Contains(got, e.srv.URL) {
		t.Errorf("img-src %q", got)
	}
	pub := newEnv(t, envOptions{prefix: "/admin", api: func(o *transport.Options) { o.PublicURL = "https://cms.example.com/api" }})
	res := pub.get(pub.signIn("admin"), "/file/")
	if got := imgSrc(res); !strings.Contains(got, " https://cms.example.com") || strings.Contains(got, "/api") {
		t.Errorf("img-src %q, want the public URL's origin", got)
	}
	if strings.Contains(res.Header.Get("Content-Security-Policy"), "script-src 'self' https://cms.example.com") {
		t.Error("the public origin may run scripts")
	}
}
