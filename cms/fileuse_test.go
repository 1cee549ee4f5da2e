package cms_test

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"math"
	"os"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/bwcms/cms/cms"
)

// TestImageInEveryHTMLField: an <img> of one of the service's files in
// any HTML field, of any kind, in any language, in a list's item, makes
// the file used: its delete is refused and GET file/{id} names the record.
func TestImageInEveryHTMLField(t *testing.T) {
	forEachFileDatabase(t, nil, func(t *testing.T, e *files) {
		ctx := e.as(t, "root")
		cases := []struct {
			kind  cms.Kind
			field string // the field usedBy names
			body  string // %s is the <img>, as a JSON string's content
		}{
			{cms.KindResource, "htmlDescription", `{"id":"%[2]s","htmlDescription":"<p>%[1]s</p>"}`},
			{cms.KindResource, "htmlContent", `{"id":"%[2]s","htmlContent_it":"<p>%[1]s</p>"}`},
			{cms.KindMap, "tourMultiday.htmlContent", `{"id":"%[2]s","tourMultiday":[{"dayLabels":["D1"]},{"dayLabels":["D2"],"htmlContent_it":"%[1]s"}]}`},
			{cms.KindLanding, "proposalCalendar", `{"id":"%[2]s","proposalCalendar_it":"%[1]s"}`},
			{cms.KindLanding, "landingBlocks.htmlContent", `{"id":"%[2]s","landingBlocks":[{"title":"B","htmlContent":"%[1]s"}]}`},
			{cms.KindLanding, "landingHotels.htmlContent", `{"id":"%[2]s","landingHotels":[{"title":"H","htmlContent_it":"%[1]s"}]}`},
			{cms.KindProposal, "infoSummary", `{"id":"%[2]s","infoSummary":"%[1]s"}`},
			{cms.KindProposal, "pricing", `{"id":"%[2]s","pricing":"<p>From 90 EUR %[1]s</p>"}`},
			{cms.KindProposal, "relatedContents.htmlContent", `{"id":"%[2]s","relatedContents":[{"title":"R","htmlContent":"%[1]s"}]}`},
			{cms.KindProposal, "hotels.htmlContent", `{"id":"%[2]s","hotels":[{"title":"H","htmlContent_it":"%[1]s"}]}`},
		}
		for i, c := range cases {
			f := e.upload(t, ctx, "shown.png", pngImage(t, 4+i, 3))
			id := fmt.Sprintf("html-%d", i)
			img := `<img src=\"` + urlOf(f) + `\" alt=\"x\">`
			if _, err := e.svc.Upsert(ctx, c.kind, []byte(fmt.Sprintf(c.body, img, id)), nil); err != nil {
				t.Fatalf("%s %s: %v", c.kind, c.field, err)
			}
			_, uses, err := e.svc.GetFile(ctx, f.ID)
			if err != nil {
				t.Fatal(err)
			}
			if len(uses) != 1 || uses[0].FromKind != c.kind || uses[0].FromID != id || uses[0].Field != c.field {
				t.Errorf("%s %s: used by %+v, want %s %s %s", c.kind, c.field, uses, c.kind, id, c.field)
			}
			err = e.svc.DeleteFile(ctx, f.ID)
			if cms.ErrorCode(err) != cms.CodeConflict || !strings.Contains(err.Error(), "is used by "+c.kind.Title()+" "+id) {
				t.Errorf("%s %s: delete of a file an <img> shows: %v", c.kind, c.field, err)
			}
			if _, _, err := e.svc.GetFile(ctx, f.ID); err != nil {
				t.Errorf("%s %s: the file shown is gone: %v", c.kind, c.field, err)
			}
		}
	})
}

// TestBatchFileFields: a batch is checked as single upserts of its
// records would be: a file field naming a file of another type, or an own
// url naming none, is a 409 on submission that stores nothing; a batch
// that passes derives a TRACK's figures as an upsert does.
func TestBatchFileFields(t *testing.T) {
	forEachFileDatabase(t, nil, func(t *testing.T, e *files) {
		ctx := e.as(t, "root")
		img := e.upload(t, ctx, "photo.png", pngImage(t, 20, 10))
		walk := e.upload(t, ctx, "walk.gpx", gpxTrack(101, 46.0, 11.0, 0.001, 10))
		missing := strings.Repeat("a", cms.FileIDLength)
		refused := []struct{ body, problem string }{
			{`[{"id":"bat1","image":"` + urlOf(img) + `"},{"id":"bat2","image":"` + strings.Replace(urlOf(walk), ".gpx", ".png", 1) + `"}]`,
				"Resource bat2: image: must be a JPEG, PNG or WebP image"},
			{`[{"id":"bat1","multimedia":["` + urlOf(img) + `","` + ownPrefix + missing + `/x.png"]}]`,
				"Resource bat1: multimedia[1]: must name a file of this account"},
			{`[{"id":"bat1","resourceType":"TRACK","trackFile":"` + strings.Replace(urlOf(img), ".png", ".gpx", 1) + `"}]`,
				"Resource bat1: trackFile: must be a GPX or KML file holding a track"},
		}
		for _, c := range refused {
			_, err := e.svc.SubmitBatch(ctx, cms.KindResource, []byte(c.body))
			var ce *cms.Error
			if !errors.As(err, &ce) || ce.Code != cms.CodeInvalid || !strings.Contains(ce.ProblemText(), c.problem) {
				t.Errorf("batch %s: %v, want the problem %q", c.body, err, c.problem)
			}
		}
		if did, err := e.svc.ProcessBatch(ctx, "w"); did || err != nil {
			t.Fatalf("a refused batch was stored: %v %v", did, err)
		}
		for _, id := range []string{"bat1", "bat2"} {
			if _, err := e.store.GetRecord(t.Context(), "acme", cms.KindResource, id); cms.ErrorCode(err) != cms.CodeNotFound {
				t.Fatalf("record %s of a refused batch: %v", id, err)
			}
		}

		// Accepted: applied with the figures of its track.
		rec, err := e.svc.SubmitBatch(ctx, cms.KindResource, []byte(`[{"id":"trk1","resourceType":"TRACK","trackFile":"`+urlOf(walk)+`","trackSlopeDown":7}]`))
		if err != nil {
			t.Fatal(err)
		}
		if did, err := e.svc.ProcessBatch(ctx, "w"); !did || err != nil {
			t.Fatal(did, err)
		}
		if b, err := e.svc.BatchStatus(ctx, cms.KindResource, rec.ID); err != nil || b.Status != cms.BatchDone {
			t.Fatalf("batch: %+v %v", b, err)
		}
		entry, err := e.store.GetRecord(t.Context(), "acme", cms.KindResource, "trk1")
		if err != nil {
			t.Fatal(err)
		}
		r := entry.Record.(*cms.Resource)
		if r.TrackTravelDistance.Value != int64(math.Round(walk.Track.Distance)) || r.TrackSlopeDown.Value != 7 ||
			r.TrackDuration.Value != 100 || r.LocationLat.Value != 46.0 {
			t.Fatalf("derived by a batch: %v %v %v %v", r.TrackTravelDistance, r.TrackSlopeDown, r.TrackDuration, r.LocationLat)
		}
	})
}

// TestOwnFileURLSpellings: an own file url is told by its origin and
// path, however they are spelled: a host in capitals, the scheme's
// default port, escapes in the path. Each names no file of the account
// and is refused as the plain spelling is; nothing is stored.
func TestOwnFileURLSpellings(t *testing.T) {
	forEachFileDatabase(t, nil, func(t *testing.T, e *files) {
		ctx := e.as(t, "root")
		theirs := e.upload(t, e.as(t, "otto"), "theirs.png", pngImage(t, 5, 5))
		missing := strings.Repeat("a", cms.FileIDLength)
		for _, u := range []string{
			"https://cms.example.com/api/bw/v2/file/" + missing + "/x.png",
			"https://CMS.Example.COM/api/bw/v2/file/" + missing + "/x.png",
			"HTTPS://cms.example.com/api/bw/v2/file/" + missing + "/x.png",
			"https://cms.example.com:443/api/bw/v2/file/" + missing + "/x.png",
			"https://cms.example.com/api/bw/v2/fil%65/" + missing + "/x.png",
			"https://cms.example.com/api/bw/v2/file/" + theirs.ID + "/x.png",
			"https://CMS.EXAMPLE.COM:443/api/bw/v2/file/" + theirs.ID + "/theirs.png",
		} {
			_, err := e.svc.Upsert(ctx, cms.KindResource, []byte(`{"id":"res1","image":"`+u+`"}`), nil)
			var ce *cms.Error
			if !errors.As(err, &ce) || ce.Code != cms.CodeInvalid || !strings.Contains(ce.ProblemText(), "image: must name a file of this account") {
				t.Errorf("%s: %v, want a problem on image", u, err)
			}
		}
		if _, err := e.store.GetRecord(t.Context(), "acme", cms.KindResource, "res1"); cms.ErrorCode(err) != cms.CodeNotFound {
			t.Fatalf("a refused record was stored: %v", err)
		}
		// Another host, or another port, is elsewhere: not checked.
		for _, u := range []string{
			"https://cms.example.com:8443/api/bw/v2/file/" + missing + "/x.png",
			"http://cms.example.com/api/bw/v2/file/" + missing + "/x.png",
			"https://cdn.example.com/api/bw/v2/file/" + missing + "/x.png",
		} {
			if _, err := e.svc.Upsert(ctx, cms.KindResource, []byte(`{"id":"res2","image":"`+u+`"}`), nil); err != nil {
				t.Errorf("%s: %v", u, err)
			}
		}
	})
}

// TestTrackLocationCleared: the location a TRACK gets from its file's
// start, once cleared by an explicit null, stays cleared while the file
// stays; naming another file gives the new start again.
func TestTrackLocationCleared(t *testing.T) {
	forEachFileDatabase(t, nil, func(t *testing.T, e *files) {
		ctx := e.as(t, "root")
		a := e.upload(t, ctx, "a.gpx", gpxTrack(101, 46.0, 11.0, 0.001, 10))
		b := e.upload(t, ctx, "b.gpx", gpxTrack(51, 45.0, 10.0, 0.001, -10))
		location := func() (cms.Null[float64], cms.Null[float64]) {
			t.Helper()
			entry, err := e.store.GetRecord(t.Context(), "acme", cms.KindResource, "trk1")
			if err != nil {
				t.Fatal(err)
			}
			r := entry.Record.(*cms.Resource)
			return r.LocationLat, r.LocationLon
		}
		put := func(body string) {
			t.Helper()
			if _, err := e.svc.Upsert(ctx, cms.KindResource, []byte(body), nil); err != nil {
				t.Fatalf("%s: %v", body, err)
			}
		}
		put(`{"id":"trk1","resourceType":"TRACK","trackFile":"` + urlOf(a) + `"}`)
		if lat, lon := location(); lat.Value != 46 || lon.Value != 11 {
			t.Fatalf("location from the start: %v %v", lat, lon)
		}
		put(`{"id":"trk1","locationLat":null,"locationLon":null}`)
		put(`{"id":"trk1","title":"Lake walk"}`)
		put(`{"id":"trk1","trackFile":"` + urlOf(a) + `"}`)
		if lat, lon := location(); lat.Valid || lon.Valid {
			t.Fatalf("the location cleared came back: %v %v", lat, lon)
		}
		put(`{"id":"trk1","trackFile":"` + urlOf(b) + `"}`)
		if lat, lon := location(); lat.Value != 45 || lon.Value != 10 {
			t.Fatalf("location from another file's start: %v %v", lat, lon)
		}
	})
}

// TestGPXWithoutTrack: a GPX holding waypoints only is a GPX file, stored
// as one without a track (as a KML without lines is): it has no GeoJSON
// and cannot be a trackFile.
func TestGPXWithoutTrack(t *testing.T) {
	forEachFileDatabase(t, nil, func(t *testing.T, e *files) {
		ctx := e.as(t, "root")
		body := []byte(`<?xml version="1.0" encoding="UTF-8"?>
<gpx version="1.1" creator="test" xmlns="http://www.topografix.com/GPX/1/1">
<wpt lat="46.1" lon="11.1"><name>Hut</name></wpt><wpt lat="46.2" lon="11.2"><name>Lake</name></wpt></gpx>`)
		f, existing, err := e.svc.UploadFile(ctx, cms.Upload{Name: "huts.gpx", Body: bytes.NewReader(body)})
		if err != nil || existing {
			t.Fatalf("a GPX of waypoints: %v %v", existing, err)
		}
		if f.Type != "application/gpx+xml" || f.Track != nil || !strings.HasSuffix(cms.FilePath(*f), "/huts.gpx") {
			t.Fatalf("stored as %+v", f)
		}
		if _, err := e.svc.OpenTrack(t.Context(), f.ID); cms.ErrorCode(err) != cms.CodeNotFound {
			t.Fatalf("its track: %v", err)
		}
		c, err := e.svc.OpenFile(t.Context(), f.ID, "gpx", 0)
		if err != nil {
			t.Fatal(err)
		}
		got, _ := io.ReadAll(c.Body)
		c.Body.Close()
		if !bytes.Equal(got, body) {
			t.Fatalf("bytes served: %q", got)
		}
		_, err = e.svc.Upsert(ctx, cms.KindResource, []byte(`{"id":"trk1","resourceType":"TRACK","trackFile":"`+urlOf(f)+`"}`), nil)
		var ce *cms.Error
		if !errors.As(err, &ce) || !strings.Contains(ce.ProblemText(), "trackFile: must be a GPX or KML file holding a track: file "+f.ID+" is a GPX file without a track") {
			t.Fatalf("as a trackFile: %v", err)
		}
	})
}

// failingReader gives n bytes, then fails as a client that went away.
type failingReader struct{ n int }

func (r *failingReader) Read(p []byte) (int, error) {
	if r.n == 0 {
		return 0, errors.New("connection reset")
	}
	k := min(len(p), r.n)
	clear(p[:k])
	r.n -= k
	return k, nil
}

// TestUploadLeavesNoTemporaryFile: an upload is spooled to a temporary
// file, which is gone afterwards whatever the outcome: stored, the same
// bytes again, refused, too large, or a body that broke off.
func TestUploadLeavesNoTemporaryFile(t *testing.T) {
	dir := t.TempDir()
	t.Setenv("TMPDIR", dir)
	t.Run("uploads", func(t *testing.T) { // returns when its parallel tests end
		forEachFileDatabase(t, nil, uploadAll)
	})
	left, err := os.ReadDir(dir)
	if err != nil {
		t.Fatal(err)
	}
	for _, f := range left {
		if strings.HasPrefix(f.Name(), "bwcms-upload-") {
			t.Errorf("left behind: %s", f.Name())
		}
	}
}

// uploadAll uploads what stores, skips, refuses and breaks off.
func uploadAll(t *testing.T, e *files) {
	ctx := e.as(t, "root")
	img := pngImage(t, 30, 30)
	for _, c := range []struct {
		body io.Reader
		code cms.Code // "": stored
	}{
		{bytes.NewReader(img), ""},
		{bytes.NewReader(img), ""}, // the same bytes
		{strings.NewReader("hello"), cms.CodeConflict},
		{bytes.NewReader(pngImage(t, 30, 31)[:100]), cms.CodeConflict},
		{bytes.NewReader(kmlLine(5, 11<<20)), cms.CodeTooLarge},
		{io.LimitReader(&failingReader{n: cms.MaxUpload + 10}, cms.MaxUpload+10), cms.CodeTooLarge},
		{&failingReader{n: 5000}, cms.CodeMalformed},
	} {
		_, _, err := e.svc.UploadFile(ctx, cms.Upload{Name: "x", Body: c.body})
		if c.code == "" && err != nil || c.code != "" && cms.ErrorCode(err) != c.code {
			t.Errorf("upload: %v, want %v", err, c.code)
		}
	}
}

// TestFilesUnderConcurrentWork: records naming files, deletes of those
// files and purges of unused ones, all at once: afterwards every record
// names a file that exists with its bytes, and every file listed has
// its bytes.
func TestFilesUnderConcurrentWork(t *testing.T) {
	forEachFileDatabase(t, func(o *cms.Options) { o.UnusedFileAge = time.Hour }, func(t *testing.T, e *files) {
		ctx := e.as(t, "root")
		const n = 24
		var fs []*cms.File
		for i := range n {
			fs = append(fs, e.upload(t, ctx, fmt.Sprintf("f%d.png", i), pngImage(t, 3+i, 4)))
		}
		e.clock.Advance(2 * time.Hour) // every one unused for long
		var wg sync.WaitGroup
		stored := make([]bool, n)
		for i := range n {
			wg.Go(func() {
				_, err := e.svc.Upsert(ctx, cms.KindResource, []byte(fmt.Sprintf(`{"id":"res-%d","image":"%s"}`, i, urlOf(fs[i]))), nil)
				stored[i] = err == nil
				if err != nil && cms.ErrorCode(err) != cms.CodeInvalid {
					t.Errorf("record %d: %v", i, err)
				}
			})
			if i%3 == 0 {
				wg.Go(func() {
					// Used (409), or purged already (404).
					if err := e.svc.DeleteFile(ctx, fs[i].ID); err != nil && cms.ErrorCode(err) != cms.CodeConflict && cms.ErrorCode(err) != cms.CodeNotFound {
						t.Errorf("delete %d: %v", i, err)
					}
				})
			}
		}
		for range 3 {
			wg.Go(func() {
				if err := e.svc.Purge(context.WithoutCancel(ctx)); err != nil {
					t.Errorf("purge: %v", err)
				}
			})
		}
		wg.Wait()
		for i, f := range fs {
			_, _, err := e.svc.GetFile(ctx, f.ID)
			if stored[i] && err != nil {
				t.Errorf("record res-%d names file %d, which is gone: %v", i, i, err)
			}
			if err != nil {
				continue
			}
			c, err := e.svc.OpenFile(t.Context(), f.ID, "png", 0)
			if err != nil {
				t.Errorf("file %d listed without its bytes: %v", i, err)
				continue
			}
			c.Body.Close()
		}
	})
}
