package cms_test

import (
	"archive/zip"
	"bytes"
	"context"
	"errors"
	"fmt"
	"image"
	"image/png"
	"io"
	"math"
	"net/netip"
	"strings"
	"sync"
	"testing"
	"time"

	"gocloud.dev/blob"
	"gocloud.dev/blob/memblob"

	"github.com/bwcms/cms/cms"
	"github.com/bwcms/cms/internal/testenv"
)

// files is the fixture of the file tests: accounts acme and other, a
// memory bucket, a settable clock.
type files struct {
	svc    *cms.Service
	store  cms.Store
	bucket *blob.Bucket
	clock  *testenv.Clock
}

var fileAccounts = []testenv.Account{
	{Name: "acme", Langs: testenv.Langs("en", "it"), Users: []testenv.User{
		{Name: "root", Perms: []string{"*"}},
		{Name: "reader", Perms: []string{"file:read", "resource:*"}},
	}},
	{Name: "other", Langs: testenv.Langs("en"), Users: []testenv.User{{Name: "otto", Perms: []string{"*"}}}},
}

// ownPrefix is where the tests' own file urls start.
const ownPrefix = "https://cms.example.com/api/bw/v2/file/"

func forEachFileDatabase(t *testing.T, adjust func(*cms.Options), test func(t *testing.T, e *files)) {
	for _, db := range []testenv.Database{{Name: "sqlite", Open: testenv.OpenSQLiteMemory}, {Name: "postgres", Open: testenv.OpenPostgres}} {
		t.Run(db.Name, func(t *testing.T) {
			t.Parallel()
			st := db.Open(t)
			bucket := memblob.OpenBucket(nil)
			t.Cleanup(func() { bucket.Close() })
			clock := testenv.NewClock()
			svc := testenv.NewService(t, st, clock, func(o *cms.Options) {
				o.Files = bucket
				if adjust != nil {
					adjust(o)
				}
			}, fileAccounts...)
			test(t, &files{svc: svc, store: st, bucket: bucket, clock: clock})
		})
	}
}

// as is a context acting as user, with the request's own file urls.
func (e *files) as(t *testing.T, user string) context.Context {
	t.Helper()
	sess, err := e.svc.Login(t.Context(), user, testenv.Password, netip.Addr{})
	if err != nil {
		t.Fatalf("login %s: %v", user, err)
	}
	return cms.WithFileURLs(cms.WithPrincipal(t.Context(), sess.Principal), ownPrefix)
}

func (e *files) upload(t *testing.T, ctx context.Context, name string, body []byte) *cms.File {
	t.Helper()
	f, _, err := e.svc.UploadFile(ctx, cms.Upload{Name: name, Body: bytes.NewReader(body)})
	if err != nil {
		t.Fatalf("upload %s: %v", name, err)
	}
	return f
}

// keys lists the bucket's keys.
func (e *files) keys(t *testing.T) []string {
	t.Helper()
	var keys []string
	it := e.bucket.List(nil)
	for {
		obj, err := it.Next(t.Context())
		if errors.Is(err, io.EOF) {
			return keys
		}
		if err != nil {
			t.Fatal(err)
		}
		keys = append(keys, obj.Key)
	}
}

func urlOf(f *cms.File) string { return strings.TrimSuffix(ownPrefix, "/file/") + cms.FilePath(*f) }

func pngImage(t testing.TB, w, h int) []byte {
	img := image.NewNRGBA(image.Rect(0, 0, w, h))
	for i := range img.Pix {
		img.Pix[i] = byte(i * 7)
	}
	var b bytes.Buffer
	if err := png.Encode(&b, img); err != nil {
		t.Fatal(err)
	}
	return b.Bytes()
}

// gpxTrack is a GPX 1.1 of n points going north from (lat0, lon0) by
// step degrees, climbing rise meters each point, a minute apart.
func gpxTrack(n int, lat0, lon0, step, rise float64) []byte {
	var b strings.Builder
	b.WriteString(`<?xml version="1.0" encoding="UTF-8"?>
<gpx version="1.1" creator="test" xmlns="http://www.topografix.com/GPX/1/1"><trk><name>walk</name><trkseg>`)
	t0 := time.Date(2026, 6, 1, 8, 0, 0, 0, time.UTC)
	for i := range n {
		fmt.Fprintf(&b, `<trkpt lat="%.6f" lon="%.6f"><ele>%.1f</ele><time>%s</time></trkpt>`,
			lat0+float64(i)*step, lon0, 100+float64(i)*rise, t0.Add(time.Duration(i)*time.Minute).Format(time.RFC3339))
	}
	b.WriteString(`</trkseg></trk></gpx>`)
	return []byte(b.String())
}

// kmlLine is a KML LineString of n points; pad adds a description of
// that many bytes.
func kmlLine(n, pad int) []byte {
	var b strings.Builder
	b.WriteString(`<?xml version="1.0" encoding="UTF-8"?><kml xmlns="http://www.opengis.net/kml/2.2"><Document><Placemark><name>line</name><description>`)
	b.WriteString(strings.Repeat("x", pad))
	b.WriteString(`</description><LineString><coordinates>`)
	for i := range n {
		fmt.Fprintf(&b, "%.6f,%.6f,%d ", 11+float64(i)*0.0001, 46.0, 200)
	}
	b.WriteString(`</coordinates></LineString></Placemark></Document></kml>`)
	return []byte(b.String())
}

// kmzBomb is a KMZ of about 100 KB whose .kml unpacks to 100 MB.
func kmzBomb(t *testing.T) []byte {
	var b bytes.Buffer
	z := zip.NewWriter(&b)
	w, err := z.Create("doc.kml")
	if err != nil {
		t.Fatal(err)
	}
	w.Write([]byte(`<?xml version="1.0"?><kml xmlns="http://www.opengis.net/kml/2.2"><Document><description>`))
	zeros := make([]byte, 1<<20)
	for range 100 {
		w.Write(zeros)
	}
	if err := z.Close(); err != nil {
		t.Fatal(err)
	}
	return b.Bytes()
}

func TestUploadFile(t *testing.T) {
	forEachFileDatabase(t, nil, func(t *testing.T, e *files) {
		ctx := e.as(t, "root")
		img := pngImage(t, 64, 32)
		f := e.upload(t, ctx, "Caffè Nero!.gpx", img) // the name never decides the type
		if f.Type != "image/png" || f.Width != 64 || f.Height != 32 || f.Size != int64(len(img)) || f.Track != nil {
			t.Fatalf("png uploaded as %+v", f)
		}
		if !strings.HasSuffix(cms.FilePath(*f), "/caffe-nero.png") || !cms.IsFileID(f.ID) {
			t.Fatalf("path %s", cms.FilePath(*f))
		}
		again, existing, err := e.svc.UploadFile(ctx, cms.Upload{Name: "other.png", Body: bytes.NewReader(img)})
		if err != nil || !existing || again.ID != f.ID {
			t.Fatalf("same bytes again: %+v %v %v", again, existing, err)
		}
		// A name keeps no bidirectional override (it would show "gpj.exe"
		// reversed in a page).
		if g := e.upload(t, ctx, "photo\u202egpj.exe", pngImage(t, 3, 3)); g.Name != "photogpj.exe" {
			t.Fatalf("name %q", g.Name)
		} else if err := e.svc.DeleteFile(ctx, g.ID); err != nil {
			t.Fatal(err)
		}
		// The other account uploads the same bytes as a file of its own.
		theirs := e.upload(t, e.as(t, "otto"), "x.png", img)
		if theirs.ID == f.ID {
			t.Fatal("two accounts share a file")
		}

		e.clock.Advance(time.Second) // the list is newest first
		walk := e.upload(t, ctx, "walk.gpx", gpxTrack(1001, 46.0, 11.0, 0.0001, 1))
		if walk.Type != "application/gpx+xml" || walk.Track == nil {
			t.Fatalf("gpx: %+v", walk)
		}
		// 1000 steps of 0.0001 degrees of latitude on the mean radius.
		want := 1000 * 0.0001 * math.Pi / 180 * 6371008.8
		if d := walk.Track.Distance; math.Abs(d-want) > want*0.001 {
			t.Fatalf("distance %.1f, want %.1f", d, want)
		}
		if walk.Track.Ascent < 990 || walk.Track.Ascent > 1000 || walk.Track.Descent != 0 {
			t.Fatalf("ascent %.1f descent %.1f", walk.Track.Ascent, walk.Track.Descent)
		}
		if walk.Track.Duration == nil || *walk.Track.Duration != 1000 {
			t.Fatalf("duration %v", walk.Track.Duration)
		}
		c, err := e.svc.OpenTrack(t.Context(), walk.ID)
		if err != nil {
			t.Fatal(err)
		}
		line, _ := io.ReadAll(c.Body)
		c.Body.Close()
		if c.Type != cms.GeoJSONType || !bytes.Contains(line, []byte(`"coordinates"`)) {
			t.Fatalf("track line %s: %.200s", c.Type, line)
		}

		page, next, err := e.svc.ListFiles(ctx, cms.FilePage{})
		if err != nil || len(page) != 2 || page[0].ID != walk.ID || next != "" {
			t.Fatalf("list: %v %q %v", page, next, err)
		}
		page, next, err = e.svc.ListFiles(ctx, cms.FilePage{Limit: 1})
		if err != nil || len(page) != 1 || next != walk.ID {
			t.Fatalf("first page: %v %q %v", page, next, err)
		}
		page, _, err = e.svc.ListFiles(ctx, cms.FilePage{Limit: 1, After: next})
		if err != nil || len(page) != 1 || page[0].ID != f.ID {
			t.Fatalf("second page: %v %v", page, err)
		}
		page, _, _ = e.svc.ListFiles(ctx, cms.FilePage{Type: "application/gpx+xml"})
		if len(page) != 1 || page[0].ID != walk.ID {
			t.Fatalf("by type: %v", page)
		}
	})
}

// Refused uploads store nothing: no row, no bytes.
func TestUploadRefused(t *testing.T) {
	forEachFileDatabase(t, nil, func(t *testing.T, e *files) {
		ctx := e.as(t, "root")
		cases := []struct {
			name string
			body []byte
			code cms.Code
			text string
		}{
			{"empty.png", nil, cms.CodeMalformed, ""},
			{"notes.txt", []byte("hello, world"), cms.CodeConflict, ""},
			{"cut.png", pngImage(t, 300, 300)[:2000], cms.CodeConflict, ""},
			{"page.html", []byte("<!doctype html><html><body>hi</body></html>"), cms.CodeConflict, ""},
			{"bomb.kml", []byte(`<?xml version="1.0"?><!DOCTYPE lolz [<!ENTITY lol "lol"><!ENTITY lol2 "&lol;&lol;&lol;&lol;&lol;&lol;&lol;&lol;">]><kml>&lol2;</kml>`), cms.CodeConflict, "DTD"},
			{"big.kml", kmlLine(10, 11<<20), cms.CodeTooLarge, "Request too large"},
			{"huge.bin", bytes.Repeat([]byte{0}, cms.MaxUpload+1), cms.CodeTooLarge, "Request too large"},
			{"bomb.kmz", kmzBomb(t), cms.CodeTooLarge, "Request too large"},
		}
		for _, c := range cases {
			_, _, err := e.svc.UploadFile(ctx, cms.Upload{Name: c.name, Body: bytes.NewReader(c.body)})
			var ce *cms.Error
			if !errors.As(err, &ce) || ce.Code != c.code || !strings.Contains(ce.Message, c.text) {
				t.Errorf("%s: %v, want %s %q", c.name, err, c.code, c.text)
			}
		}
		if page, _, _ := e.svc.ListFiles(ctx, cms.FilePage{}); len(page) != 0 {
			t.Fatalf("stored after refusals: %v", page)
		}
		if keys := e.keys(t); len(keys) != 0 {
			t.Fatalf("bytes after refusals: %v", keys)
		}
		if _, _, err := e.svc.UploadFile(e.as(t, "reader"), cms.Upload{Name: "a.png", Body: bytes.NewReader(pngImage(t, 2, 2))}); cms.ErrorCode(err) != cms.CodeForbidden {
			t.Fatalf("upload without file:write: %v", err)
		}
	})
}

func TestRecordFileFields(t *testing.T) {
	forEachFileDatabase(t, nil, func(t *testing.T, e *files) {
		ctx := e.as(t, "root")
		img := e.upload(t, ctx, "photo.png", pngImage(t, 20, 10))
		walk := e.upload(t, ctx, "walk.gpx", gpxTrack(200, 46.0, 11.0, 0.0001, 1))
		layer := e.upload(t, ctx, "big-layer.kml", kmlLine(5, 3<<20))
		if layer.Track == nil {
			t.Fatal("a 3 MB KML with a line is a track")
		}
		theirs := e.upload(t, e.as(t, "otto"), "theirs.png", pngImage(t, 5, 5))
		missing := strings.Repeat("a", cms.FileIDLength)
		refused := []struct{ body, field, text string }{
			{`{"id":"res1","image":"` + strings.Replace(urlOf(walk), ".gpx", ".png", 1) + `"}`, "image", "must be a JPEG, PNG or WebP image"},
			{`{"id":"res1","resourceType":"TRACK","trackFile":"` + strings.Replace(urlOf(img), ".png", ".gpx", 1) + `"}`, "trackFile", "must be a GPX or KML file holding a track"},
			{`{"id":"res1","mapLayerFile":"` + strings.Replace(urlOf(layer), ".kml", ".kml", 1) + `"}`, "mapLayerFile", "at most 2 MB"},
			{`{"id":"res1","image":"` + ownPrefix + missing + `/x.png"}`, "image", "does not exist"},
			{`{"id":"res1","multimedia":["` + urlOf(img) + `","` + urlOf(theirs) + `"]}`, "multimedia[1]", "does not exist"},
		}
		for _, c := range refused {
			_, err := e.svc.Upsert(ctx, cms.KindResource, []byte(c.body), nil)
			var ce *cms.Error
			if !errors.As(err, &ce) || ce.Code != cms.CodeInvalid || !strings.Contains(ce.ProblemText(), c.field) || !strings.Contains(ce.ProblemText(), c.text) {
				t.Errorf("%s: %v, want a problem on %s: %s", c.body, err, c.field, c.text)
			}
		}
		if _, err := e.store.GetRecord(t.Context(), "acme", cms.KindResource, "res1"); cms.ErrorCode(err) != cms.CodeNotFound {
			t.Fatalf("a refused record was stored: %v", err)
		}
		// Accepted: own files of the right type, and a URL elsewhere of the
		// same shape (not one of ours: it is not checked).
		elsewhere := "https://elsewhere.example.org/api/bw/v2/file/" + missing + "/x.png"
		body := `{"id":"res1","image":"` + urlOf(img) + `","multimedia":["` + elsewhere + `"],"htmlContent":"<p><img src=\"` + urlOf(img) + `\"></p>"}`
		if _, err := e.svc.Upsert(ctx, cms.KindResource, []byte(body), nil); err != nil {
			t.Fatal(err)
		}
		_, uses, err := e.svc.GetFile(ctx, img.ID)
		if err != nil || len(uses) != 2 || uses[0].FromID != "res1" {
			t.Fatalf("uses of the image: %+v %v", uses, err)
		}
		if err := e.svc.DeleteFile(ctx, img.ID); cms.ErrorCode(err) != cms.CodeConflict || !strings.Contains(err.Error(), "File "+img.ID+" is used by Resource res1") {
			t.Fatalf("delete of a used file: %v", err)
		}
		// The image field dropped, the HTML image still uses it.
		if _, err := e.svc.Upsert(ctx, cms.KindResource, []byte(`{"id":"res1","image":null}`), nil); err != nil {
			t.Fatal(err)
		}
		if err := e.svc.DeleteFile(ctx, img.ID); cms.ErrorCode(err) != cms.CodeConflict {
			t.Fatalf("delete of a file an HTML field shows: %v", err)
		}
		if _, err := e.svc.Upsert(ctx, cms.KindResource, []byte(`{"id":"res1","htmlContent":"<p>none</p>"}`), nil); err != nil {
			t.Fatal(err)
		}
		if err := e.svc.DeleteFile(ctx, img.ID); err != nil {
			t.Fatalf("delete of an unused file: %v", err)
		}
		for _, k := range e.keys(t) {
			if strings.Contains(k, img.ID) {
				t.Fatalf("bytes left after delete: %s", k)
			}
		}
		if _, err := e.svc.OpenFile(t.Context(), img.ID, "png", 0); cms.ErrorCode(err) != cms.CodeNotFound {
			t.Fatalf("deleted file opens: %v", err)
		}
		// Another account's file: invisible, but its url is public.
		if _, _, err := e.svc.GetFile(ctx, theirs.ID); cms.ErrorCode(err) != cms.CodeNotFound {
			t.Fatalf("another account's file: %v", err)
		}
		if err := e.svc.DeleteFile(ctx, theirs.ID); cms.ErrorCode(err) != cms.CodeNotFound {
			t.Fatalf("delete of another account's file: %v", err)
		}
		c, err := e.svc.OpenFile(t.Context(), theirs.ID, "png", 0)
		if err != nil {
			t.Fatal(err)
		}
		c.Body.Close()
		if _, err := e.svc.OpenFile(t.Context(), theirs.ID, "gpx", 0); cms.ErrorCode(err) != cms.CodeNotFound {
			t.Fatalf("wrong extension: %v", err)
		}
	})
}

func TestThumbnails(t *testing.T) {
	forEachFileDatabase(t, nil, func(t *testing.T, e *files) {
		ctx := e.as(t, "root")
		img := e.upload(t, ctx, "wide.png", pngImage(t, 800, 400))
		var wg sync.WaitGroup
		for range 4 { // asked at once: made once, all served
			wg.Go(func() {
				c, err := e.svc.OpenFile(t.Context(), img.ID, "png", 320)
				if err != nil {
					t.Error(err)
					return
				}
				defer c.Body.Close()
				cfg, _, err := image.DecodeConfig(c.Body)
				if err != nil || cfg.Width != 320 || cfg.Height != 160 {
					t.Errorf("thumbnail %+v %v", cfg, err)
				}
			})
		}
		wg.Wait()
		if _, err := e.svc.OpenFile(t.Context(), img.ID, "png", 100); cms.ErrorCode(err) != cms.CodeMalformed {
			t.Fatalf("width 100: %v", err)
		}
		walk := e.upload(t, ctx, "walk.gpx", gpxTrack(10, 46, 11, 0.001, 0))
		if _, err := e.svc.OpenFile(t.Context(), walk.ID, "gpx", 320); cms.ErrorCode(err) != cms.CodeMalformed {
			t.Fatalf("thumbnail of a track: %v", err)
		}
	})
}

// TestTrackFields: a TRACK Resource naming a measured track gets the
// figures its body leaves out; explicit values and nulls win; a new file
// replaces exactly the figures still derived.
func TestTrackFields(t *testing.T) {
	forEachFileDatabase(t, nil, func(t *testing.T, e *files) {
		ctx := e.as(t, "root")
		a := e.upload(t, ctx, "a.gpx", gpxTrack(101, 46.0, 11.0, 0.001, 10)) // ~11.1 km, +1000 m, 100 min
		b := e.upload(t, ctx, "b.gpx", gpxTrack(51, 45.0, 10.0, 0.001, -10)) // ~5.6 km, -500 m, 50 min
		read := func(id string) *cms.Resource {
			t.Helper()
			entry, err := e.store.GetRecord(t.Context(), "acme", cms.KindResource, id)
			if err != nil {
				t.Fatal(err)
			}
			return entry.Record.(*cms.Resource)
		}
		put := func(body string) {
			t.Helper()
			if _, err := e.svc.Upsert(ctx, cms.KindResource, []byte(body), nil); err != nil {
				t.Fatalf("%s: %v", body, err)
			}
		}
		put(`{"id":"trk1","resourceType":"TRACK","trackFile":"` + urlOf(a) + `","trackSlopeDown":7,"trackDurationMinutes":null}`)
		r := read("trk1")
		if got := r.TrackTravelDistance.Value; got != int64(math.Round(a.Track.Distance)) {
			t.Fatalf("distance %d, measured %.1f", got, a.Track.Distance)
		}
		if r.TrackSlopeUp.Value != int64(math.Round(a.Track.Ascent)) || r.TrackSlopeDown.Value != 7 || r.TrackDuration.Valid {
			t.Fatalf("up %v down %v duration %v", r.TrackSlopeUp, r.TrackSlopeDown, r.TrackDuration)
		}
		if !r.TrackCircular.Valid || r.TrackCircular.Value {
			t.Fatalf("circular %v", r.TrackCircular)
		}
		if r.LocationLat.Value != 46.0 || r.LocationLon.Value != 11.0 {
			t.Fatalf("location %v %v", r.LocationLat, r.LocationLon)
		}
		// Another file: the derived figures follow it, the given ones stay.
		put(`{"id":"trk1","trackFile":"` + urlOf(b) + `"}`)
		r = read("trk1")
		if r.TrackTravelDistance.Value != int64(math.Round(b.Track.Distance)) || r.TrackSlopeUp.Value != 0 ||
			r.TrackSlopeDown.Value != 7 || r.TrackDuration.Valid || r.LocationLat.Value != 46.0 {
			t.Fatalf("after the change: %v %v %v %v %v", r.TrackTravelDistance, r.TrackSlopeUp, r.TrackSlopeDown, r.TrackDuration, r.LocationLat)
		}
		// Posting back what was read changes nothing.
		res, err := e.svc.Upsert(ctx, cms.KindResource, []byte(`{"id":"trk1","trackFile":"`+urlOf(b)+`"}`), nil)
		if err != nil || res.Outcome != cms.Skipped {
			t.Fatalf("same file again: %v %v", res.Outcome, err)
		}
		// A Resource that is not a TRACK gets nothing (and may not name one).
		if _, err := e.svc.Upsert(ctx, cms.KindResource, []byte(`{"id":"poi1","trackFile":"`+urlOf(a)+`"}`), nil); cms.ErrorCode(err) != cms.CodeInvalid {
			t.Fatalf("trackFile on a POI: %v", err)
		}
	})
}

// TestDeleteFileRace: a record naming a file and the file's deletion,
// at once, never leave a record naming a file that is gone.
func TestDeleteFileRace(t *testing.T) {
	forEachFileDatabase(t, nil, func(t *testing.T, e *files) {
		ctx := e.as(t, "root")
		for round := range 15 {
			f := e.upload(t, ctx, fmt.Sprintf("r%d.png", round), pngImage(t, 3+round, 3))
			id := fmt.Sprintf("race-%d", round)
			var wg sync.WaitGroup
			var putErr, delErr error
			wg.Go(func() {
				_, putErr = e.svc.Upsert(ctx, cms.KindResource, []byte(`{"id":"`+id+`","image":"`+urlOf(f)+`"}`), nil)
			})
			wg.Go(func() { delErr = e.svc.DeleteFile(ctx, f.ID) })
			wg.Wait()
			_, _, getErr := e.svc.GetFile(ctx, f.ID)
			_, recErr := e.store.GetRecord(t.Context(), "acme", cms.KindResource, id)
			switch {
			case putErr == nil && delErr != nil: // the record first: the file stays
				if getErr != nil || cms.ErrorCode(delErr) != cms.CodeConflict {
					t.Fatalf("round %d: record stored, delete %v, file %v", round, delErr, getErr)
				}
			case putErr != nil && delErr == nil: // the delete first: the record refused
				if cms.ErrorCode(putErr) != cms.CodeInvalid || cms.ErrorCode(recErr) != cms.CodeNotFound {
					t.Fatalf("round %d: file deleted, record %v / %v", round, putErr, recErr)
				}
			default:
				t.Fatalf("round %d: put %v, delete %v", round, putErr, delErr)
			}
		}
	})
}

// TestUploadRace: the same bytes uploaded at once make one file.
func TestUploadRace(t *testing.T) {
	forEachFileDatabase(t, nil, func(t *testing.T, e *files) {
		ctx := e.as(t, "root")
		body := pngImage(t, 40, 40)
		ids := make([]string, 6)
		var wg sync.WaitGroup
		for i := range ids {
			wg.Go(func() {
				f, _, err := e.svc.UploadFile(ctx, cms.Upload{Name: "same.png", Body: bytes.NewReader(body)})
				if err != nil {
					t.Error(err)
					return
				}
				ids[i] = f.ID
			})
		}
		wg.Wait()
		for _, id := range ids {
			if id != ids[0] {
				t.Fatalf("two files of one content: %v", ids)
			}
		}
		if keys := e.keys(t); len(keys) != 1 {
			t.Fatalf("bytes of the losers left: %v", keys)
		}
	})
}

func TestPurgeFiles(t *testing.T) {
	forEachFileDatabase(t, func(o *cms.Options) {
		o.UnusedFileAge = 24 * time.Hour
		o.FileOrphanAge = time.Nanosecond
	}, func(t *testing.T, e *files) {
		ctx := e.as(t, "root")
		used := e.upload(t, ctx, "used.png", pngImage(t, 4, 4))
		unused := e.upload(t, ctx, "unused.png", pngImage(t, 5, 5))
		if _, err := e.svc.Upsert(ctx, cms.KindResource, []byte(`{"id":"res1","image":"`+urlOf(used)+`"}`), nil); err != nil {
			t.Fatal(err)
		}
		// Bytes without a row: an upload that died before its row.
		orphan := strings.Repeat("b", cms.FileIDLength)
		if err := e.bucket.WriteAll(t.Context(), "files/"+orphan+"/original", []byte("x"), nil); err != nil {
			t.Fatal(err)
		}
		time.Sleep(time.Millisecond)
		if err := e.svc.Purge(t.Context()); err != nil {
			t.Fatal(err)
		}
		keys := strings.Join(e.keys(t), " ")
		if strings.Contains(keys, orphan) || !strings.Contains(keys, unused.ID) || !strings.Contains(keys, used.ID) {
			t.Fatalf("after the first purge: %s", keys)
		}
		e.clock.Advance(25 * time.Hour)
		if err := e.svc.Purge(t.Context()); err != nil {
			t.Fatal(err)
		}
		keys = strings.Join(e.keys(t), " ")
		if strings.Contains(keys, unused.ID) || !strings.Contains(keys, used.ID) {
			t.Fatalf("after a day: %s", keys)
		}
		if _, _, err := e.svc.GetFile(ctx, unused.ID); cms.ErrorCode(err) != cms.CodeNotFound {
			t.Fatalf("unused file kept: %v", err)
		}
		if _, _, err := e.svc.GetFile(ctx, used.ID); err != nil {
			t.Fatalf("used file purged: %v", err)
		}
	})
}

// TestPurgeKeepsFilesOfKeptRevisions: a file only an older revision
// names stays while that revision is kept, and goes with it; a deleted
// record's revisions name nothing.
func TestPurgeKeepsFilesOfKeptRevisions(t *testing.T) {
	forEachFileDatabase(t, func(o *cms.Options) {
		o.UnusedFileAge = 24 * time.Hour
		o.HistoryKeep = 48 * time.Hour
	}, func(t *testing.T, e *files) {
		ctx := e.as(t, "root")
		older := e.upload(t, ctx, "older.png", pngImage(t, 4, 4))
		newer := e.upload(t, ctx, "newer.png", pngImage(t, 5, 5))
		for _, f := range []*cms.File{older, newer} {
			if _, err := e.svc.Upsert(ctx, cms.KindResource, []byte(`{"id":"res1","image":"`+urlOf(f)+`"}`), nil); err != nil {
				t.Fatal(err)
			}
			e.clock.Advance(time.Second)
		}
		kept := func(f *cms.File) bool {
			t.Helper()
			_, _, err := e.svc.GetFile(ctx, f.ID)
			if err != nil && cms.ErrorCode(err) != cms.CodeNotFound {
				t.Fatal(err)
			}
			return err == nil
		}
		purge := func(after time.Duration) {
			t.Helper()
			e.clock.Advance(after)
			if err := e.svc.Purge(t.Context()); err != nil {
				t.Fatal(err)
			}
		}
		purge(25 * time.Hour)
		if !kept(older) || !kept(newer) {
			t.Fatalf("after a day: older kept %v, newer kept %v; want both (revision 1 names older)", kept(older), kept(newer))
		}
		purge(48 * time.Hour) // revision 1 is past HistoryKeep now
		if kept(older) || !kept(newer) {
			t.Fatalf("after three days: older kept %v, newer kept %v; want newer only", kept(older), kept(newer))
		}
		if _, err := e.svc.Delete(ctx, cms.KindResource, []string{"res1"}, nil); err != nil {
			t.Fatal(err)
		}
		purge(time.Minute)
		if kept(newer) {
			t.Fatal("a file named only by a deleted record's revisions was kept")
		}
	})
}

// A GPX in ISO-8859-1, as older GPS software writes them, is accepted and
// its name read into UTF-8.
func TestUploadLatin1Track(t *testing.T) {
	forEachFileDatabase(t, nil, func(t *testing.T, e *files) {
		gpx := strings.Replace(string(gpxTrack(20, 46, 11, 0.001, 1)), `encoding="UTF-8"`, `encoding="ISO-8859-1"`, 1)
		gpx = strings.Replace(gpx, "<name>walk</name>", "<name>Caf\xe9 walk</name>", 1)
		f := e.upload(t, e.as(t, "root"), "latin.gpx", []byte(gpx))
		if f.Track == nil || f.Track.Name != "Café walk" || f.Track.Points != 20 {
			t.Fatalf("latin-1 track: %+v", f.Track)
		}
	})
}

// lostAnswerStore fails every CreateFile as a dropped connection would,
// after the row is stored or not (commit tells which).
type lostAnswerStore struct {
	cms.Store
	commit bool
}

func (s lostAnswerStore) CreateFile(ctx context.Context, f cms.File) error {
	if s.commit {
		if err := s.Store.CreateFile(ctx, f); err != nil {
			return err
		}
	}
	return &cms.Error{Code: cms.CodeUnavailable, Message: "Service unavailable", Err: errors.New("connection lost")}
}

// TestUploadAnswerLost: when storing the row fails without a clash, the
// row may exist: the bytes stay, so no row is ever without bytes, and
// the purge removes them when no row came of it.
func TestUploadAnswerLost(t *testing.T) {
	for _, commit := range []bool{true, false} {
		t.Run(fmt.Sprint("committed=", commit), func(t *testing.T) {
			st := testenv.OpenSQLiteMemory(t)
			bucket := memblob.OpenBucket(nil)
			defer bucket.Close()
			svc := testenv.NewService(t, lostAnswerStore{st, commit}, testenv.NewClock(), func(o *cms.Options) {
				o.Files, o.FileOrphanAge = bucket, time.Nanosecond
			}, fileAccounts...)
			e := &files{svc: svc, store: st, bucket: bucket}
			ctx := e.as(t, "root")
			_, _, err := svc.UploadFile(ctx, cms.Upload{Name: "a.png", Body: bytes.NewReader(pngImage(t, 9, 9))})
			if cms.ErrorCode(err) != cms.CodeUnavailable {
				t.Fatalf("upload: %v", err)
			}
			time.Sleep(time.Millisecond)
			if err := svc.Purge(t.Context()); err != nil {
				t.Fatal(err)
			}
			page, _, err := svc.ListFiles(ctx, cms.FilePage{})
			if err != nil {
				t.Fatal(err)
			}
			keys := e.keys(t)
			if commit && (len(page) != 1 || len(keys) != 1) || !commit && (len(page) != 0 || len(keys) != 0) {
				t.Fatalf("committed %v: %d rows, bytes %v", commit, len(page), keys)
			}
		})
	}
}

// TestPurgeOrphansInChunks: more bytes without a row than one look-up
// holds are all removed, and a file with its row keeps its bytes.
func TestPurgeOrphansInChunks(t *testing.T) {
	st := testenv.OpenSQLiteMemory(t)
	bucket := memblob.OpenBucket(nil)
	defer bucket.Close()
	svc := testenv.NewService(t, st, testenv.NewClock(), func(o *cms.Options) {
		o.Files, o.FileOrphanAge = bucket, time.Nanosecond
	}, fileAccounts...)
	e := &files{svc: svc, store: st, bucket: bucket}
	kept := e.upload(t, e.as(t, "root"), "kept.png", pngImage(t, 7, 7))
	for i := range 2500 {
		id := fmt.Sprintf("%026d", i)
		id = strings.NewReplacer("0", "a", "1", "b", "2", "c", "3", "d", "4", "e", "5", "f", "6", "g", "7", "h", "8", "i", "9", "j").Replace(id)
		for _, name := range []string{"original", "w160"} {
			if err := bucket.WriteAll(t.Context(), "files/"+id+"/"+name, []byte("x"), nil); err != nil {
				t.Fatal(err)
			}
		}
	}
	time.Sleep(time.Millisecond)
	if err := svc.Purge(t.Context()); err != nil {
		t.Fatal(err)
	}
	keys := e.keys(t)
	if len(keys) != 1 || !strings.Contains(keys[0], kept.ID) {
		t.Fatalf("%d keys left: %.200v", len(keys), keys)
	}
}
