package admin

import (
	"bytes"
	"fmt"
	"image"
	"image/color"
	"image/png"
	"mime/multipart"
	"net/http"
	"net/url"
	"strings"
	"testing"
	"time"

	"github.com/PuerkitoBio/goquery"

	"github.com/bwcms/cms/cms"
)

// Fixtures and helpers of the files' tests.

// upload is one file part of a multipart post.
type upload struct {
	field, name string
	body        []byte
}

// postMultipart sends a multipart form from the admin's own origin, as
// its pages do: the values, then the files.
func (e *env) postMultipart(c *http.Client, path string, vals url.Values, files ...upload) *http.Response {
	e.t.Helper()
	return e.do(c, e.multipartRequest(path, vals, files...))
}

// multipartRequest is the request postMultipart sends.
func (e *env) multipartRequest(path string, vals url.Values, files ...upload) *http.Request {
	e.t.Helper()
	var buf bytes.Buffer
	mw := multipart.NewWriter(&buf)
	for k, vs := range vals {
		for _, v := range vs {
			if err := mw.WriteField(k, v); err != nil {
				e.t.Fatal(err)
			}
		}
	}
	for _, f := range files {
		w, err := mw.CreateFormFile(f.field, f.name)
		if err != nil {
			e.t.Fatal(err)
		}
		if _, err := w.Write(f.body); err != nil {
			e.t.Fatal(err)
		}
	}
	if err := mw.Close(); err != nil {
		e.t.Fatal(err)
	}
	req, err := http.NewRequest(http.MethodPost, e.url(path), &buf)
	if err != nil {
		e.t.Fatal(err)
	}
	req.Header.Set("Content-Type", mw.FormDataContentType())
	req.Header.Set("Origin", e.srv.URL)
	req.Header.Set("Sec-Fetch-Site", "same-origin")
	return req
}

// pngOf is a w×h PNG with a gradient (not a flat colour, so that it
// compresses like a photo's thumbnail would not).
func pngOf(t testing.TB, w, h int) []byte {
	t.Helper()
	img := image.NewRGBA(image.Rect(0, 0, w, h))
	for y := range h {
		for x := range w {
			img.Set(x, y, color.RGBA{uint8(x * 255 / w), uint8(y * 255 / h), uint8((x + y) % 256), 255})
		}
	}
	var buf bytes.Buffer
	if err := png.Encode(&buf, img); err != nil {
		t.Fatal(err)
	}
	return buf.Bytes()
}

// gpxNorth is a walk due north from 45°N 7°E: n+1 points 0.001° of
// latitude apart (111.2 m each on the mean Earth radius), climbing 5 m a
// point, one point a minute. n = 100 makes 11.1 km (11,119.5 m), 500 m of
// ascent, no descent, 1 h 40 min.
func gpxNorth(n int) []byte {
	var b strings.Builder
	b.WriteString(`<?xml version="1.0" encoding="UTF-8"?>
<gpx version="1.1" creator="bwcms tests" xmlns="http://www.topografix.com/GPX/1/1">
<trk><name>North</name><trkseg>
`)
	start := time.Date(2026, 5, 1, 8, 0, 0, 0, time.UTC)
	for i := 0; i <= n; i++ {
		fmt.Fprintf(&b, `<trkpt lat="%.6f" lon="7.000000"><ele>%d</ele><time>%s</time></trkpt>`+"\n",
			45+float64(i)*0.001, 200+5*i, start.Add(time.Duration(i)*time.Minute).Format(time.RFC3339))
	}
	b.WriteString("</trkseg></trk></gpx>\n")
	return []byte(b.String())
}

// files lists acme's files, newest first.
func (e *env) files() []cms.File {
	e.t.Helper()
	files, _, err := e.svc.ListFiles(e.acme(), cms.FilePage{Limit: cms.MaxFilePage})
	if err != nil {
		e.t.Fatal(err)
	}
	return files
}

// uploadFile stores a file in acme as its admin.
func (e *env) uploadFile(name string, body []byte) *cms.File {
	e.t.Helper()
	f, _, err := e.svc.UploadFile(e.acme(), cms.Upload{Name: name, Body: bytes.NewReader(body)})
	if err != nil {
		e.t.Fatalf("upload %s: %v", name, err)
	}
	return f
}

// fileURL is the url of f as the test server serves it.
func (e *env) fileURL(f *cms.File) string {
	return e.srv.URL + "/api/bw/v2" + cms.FilePath(*f)
}

// figures reads the <dt>/<dd> pairs inside s ("Distance" -> "11.1 km").
func figures(s *goquery.Selection) map[string]string {
	out := map[string]string{}
	s.Find("dt").Each(func(_ int, dt *goquery.Selection) {
		out[text(dt)] = text(dt.Next())
	})
	return out
}

// wantFigures fails unless got holds every pair of want.
func wantFigures(t *testing.T, what string, got, want map[string]string) {
	t.Helper()
	for k, v := range want {
		if got[k] != v {
			t.Errorf("%s: %s is %q, want %q (all: %v)", what, k, got[k], v, got)
		}
	}
}

// northFigures are the figures of gpxNorth(100).
var northFigures = map[string]string{"Distance": "11.1 km", "Ascent": "500 m", "Descent": "0 m", "Duration": "1 h 40 min"}
