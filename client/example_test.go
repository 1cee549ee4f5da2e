package client_test

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"image"
	"image/png"
	"path"
	"strings"

	"github.com/bwcms/cms/bwcmstest"
	"github.com/bwcms/cms/client"
	"github.com/bwcms/cms/cms"
)

// exampleAPI starts the API (bwcmstest: an in-memory store, the batch
// workers running) with its account in en and it and the admin user with
// every permission; Close ends it.
func exampleAPI() *bwcmstest.API {
	langs, _ := cms.NewLanguages("en", "en", "it")
	api, err := bwcmstest.Start(context.Background(), &bwcmstest.Options{Langs: langs})
	if err != nil {
		panic(err)
	}
	return api
}

// exampleClient is a client of a new exampleAPI, logged in as the admin.
func exampleClient(opts *client.Options) (*client.Client, func()) {
	api := exampleAPI()
	c, err := client.New(api.URL, opts)
	if err != nil {
		panic(err)
	}
	if err := c.Login(context.Background(), bwcmstest.Admin, bwcmstest.Password); err != nil {
		panic(err)
	}
	return c, func() { api.Close() }
}

// Log in, and see what the access token says.
func ExampleClient_Login() {
	api := exampleAPI()
	defer api.Close()
	ctx := context.Background()

	c, err := client.New(api.URL, nil)
	if err != nil {
		panic(err)
	}
	err = c.Login(ctx, bwcmstest.Admin, "not the password")
	fmt.Println(err, errors.Is(err, client.ErrUnauthorized))
	if err := c.Login(ctx, bwcmstest.Admin, bwcmstest.Password); err != nil {
		panic(err)
	}
	claims, _ := c.Claims()
	fmt.Println(claims.Subject, claims.Account, claims.Langs)
	// Output:
	// client: 401 Unauthorized true
	// admin test [en it]
}

// Create a record, write it again, change it; a refused one lists its
// problems.
func ExampleClient_Upsert() {
	c, stop := exampleClient(nil) // client.New(baseURL, ...) and c.Login(ctx, user, password)
	defer stop()
	ctx := context.Background()

	walk := &cms.Resource{ID: "lake-walk", Published: cms.Some(true),
		Title: cms.Langs[string]{"en": "Lake walk", "it": "Giro del lago"}}
	for range 2 {
		outcome, err := c.Upsert(ctx, walk)
		fmt.Println(outcome == cms.Created, outcome == cms.Skipped, err)
	}
	// Only the fields set are sent: the titles stay.
	outcome, err := c.Upsert(ctx, &cms.Resource{ID: "lake-walk", LocationLat: cms.NullOf(45.8), LocationLon: cms.NullOf(9.1)})
	fmt.Println(outcome == cms.Updated, err)
	r, etag, err := client.Get[*cms.Resource](ctx, c, "lake-walk")
	fmt.Println(r.Title["it"], r.LocationLat.Value, etag != "", err)

	_, err = c.Upsert(ctx, &cms.Resource{ID: "lake-walk", LocationZoom: cms.NullOf[int64](30)})
	var apiErr *client.Error
	if errors.As(err, &apiErr) {
		fmt.Println(apiErr.Status, apiErr.Problems[0].Field+":", apiErr.Problems[0].Text)
	}
	// Output:
	// true false <nil>
	// false true <nil>
	// true <nil>
	// Giro del lago 45.8 true <nil>
	// 409 locationZoom: must be an integer between 2 and 25
}

// Go through every record of a kind, a page of 2 at a time.
func ExampleClient_List() {
	c, stop := exampleClient(&client.Options{PageSize: 2}) // client.New(baseURL, ...) and c.Login(ctx, user, password)
	defer stop()
	ctx := context.Background()
	for _, id := range []string{"old-mill", "lake-walk", "new-pier", "hidden-cave"} {
		rec := &cms.Resource{ID: id, Title: cms.Langs[string]{"en": id}, Published: cms.Some(id != "hidden-cave")}
		if _, err := c.Upsert(ctx, rec); err != nil {
			panic(err)
		}
	}

	for rec, err := range c.List(ctx, cms.KindResource, client.Fields("title")) {
		if err != nil {
			panic(err)
		}
		fmt.Println(rec.RecordID())
	}
	// Typed, with every state of published.
	for r, err := range client.List[*cms.Resource](ctx, c, client.Published(cms.PublishedAny), client.Limit(1)) {
		if err != nil {
			panic(err)
		}
		fmt.Println(r.ID, r.Published.Value)
	}
	// Output:
	// lake-walk
	// new-pier
	// old-mill
	// hidden-cave false
}

// Submit a batch and wait for it, hearing each state.
func ExampleClient_RunBatch() {
	c, stop := exampleClient(nil) // client.New(baseURL, ...) and c.Login(ctx, user, password)
	defer stop()
	ctx := context.Background()

	recs := []cms.Record{
		&cms.Map{ID: "lakes", Title: cms.Langs[string]{"en": "Lakes"}, Published: cms.Some(true)},
		&cms.Map{ID: "hills", Title: cms.Langs[string]{"en": "Hills"}, Published: cms.Some(true)},
	}
	var last client.Batch
	b, err := c.RunBatch(ctx, cms.KindMap, recs, func(b client.Batch) {
		last = b // waiting, processing (if seen), done
	})
	if err != nil {
		panic(err)
	}
	fmt.Println(b.Status, b.Count, b.Created, b.Updated, b.Skipped, last == b)
	// Output:
	// done 2 2 0 0 true
}

// Upload a GPX track: the server measures it; the same bytes again store
// nothing. A record names the file by its url.
func ExampleClient_UploadFile() {
	c, stop := exampleClient(nil) // client.New(baseURL, ...) and c.Login(ctx, user, password)
	defer stop()
	ctx := context.Background()
	gpx := `<?xml version="1.0"?>
<gpx version="1.1" creator="example" xmlns="http://www.topografix.com/GPX/1/1"><trk><trkseg>
<trkpt lat="45.8500" lon="9.1000"><ele>200</ele><time>2026-06-01T08:00:00Z</time></trkpt>
<trkpt lat="45.8550" lon="9.1050"><ele>260</ele><time>2026-06-01T08:20:00Z</time></trkpt>
<trkpt lat="45.8600" lon="9.1000"><ele>310</ele><time>2026-06-01T08:45:00Z</time></trkpt>
</trkseg></trk></gpx>`

	f, err := c.UploadFile(ctx, "Summit path.gpx", strings.NewReader(gpx)) // an *os.File streams alike
	if err != nil {
		panic(err)
	}
	fmt.Println(f.Type, f.Existing, path.Base(f.URL))
	fmt.Printf("%.0f m, %.0f m up, %.0f minutes, %d points\n", f.Track.Distance, f.Track.Ascent, *f.Track.Duration, f.Track.Points)

	again, err := c.UploadFile(ctx, "copy.gpx", strings.NewReader(gpx))
	fmt.Println(again.ID == f.ID, again.Existing, again.Name, err)

	// A TRACK whose trackFile names it takes the measured figures it leaves out.
	route := &cms.Resource{ID: "summit-path", Title: cms.Langs[string]{"en": "Summit path", "it": "Sentiero"},
		Published: cms.Some(true), ResourceType: cms.Some("TRACK"), TrackFile: cms.NullOf(f.URL)}
	if _, err := c.Upsert(ctx, route); err != nil {
		panic(err)
	}
	r, _, err := client.Get[*cms.Resource](ctx, c, "summit-path")
	fmt.Println(r.TrackTravelDistance.Value, r.TrackDuration.Value, err)
	f, err = c.File(ctx, f.ID)
	fmt.Println(f.UsedBy, err)
	// Output:
	// application/gpx+xml false summit-path.gpx
	// 1355 m, 110 m up, 45 minutes, 3 points
	// true true Summit path.gpx <nil>
	// 1355 45 <nil>
	// [{resource summit-path trackFile}] <nil>
}

// Go through the media library, newest first, images only.
func ExampleClient_Files() {
	c, stop := exampleClient(nil) // client.New(baseURL, ...) and c.Login(ctx, user, password)
	defer stop()
	ctx := context.Background()
	for i, name := range []string{"pier.png", "mill.png", "lake.png"} {
		img := image.NewGray(image.Rect(0, 0, 40*(i+1), 30*(i+1)))
		var b bytes.Buffer
		png.Encode(&b, img)
		if _, err := c.UploadFile(ctx, name, &b); err != nil {
			panic(err)
		}
	}

	for f, err := range c.Files(ctx, client.FileListOptions{Type: "image/png", Limit: 2}) {
		if err != nil {
			panic(err)
		}
		fmt.Println(f.Name, f.Width, f.Height)
	}
	// Output:
	// lake.png 120 90
	// mill.png 80 60
}

// A file a record names cannot be deleted until the record drops it.
func ExampleClient_DeleteFile() {
	c, stop := exampleClient(nil) // client.New(baseURL, ...) and c.Login(ctx, user, password)
	defer stop()
	ctx := context.Background()
	var b bytes.Buffer
	png.Encode(&b, image.NewGray(image.Rect(0, 0, 64, 48)))
	f, err := c.UploadFile(ctx, "pier.png", &b)
	if err != nil {
		panic(err)
	}
	pier := &cms.Resource{ID: "old-pier", Title: cms.Langs[string]{"en": "Old pier"}, Image: cms.NullOf(f.URL)}
	if _, err := c.Upsert(ctx, pier); err != nil {
		panic(err)
	}

	err = c.DeleteFile(ctx, f.ID)
	fmt.Println(errors.Is(err, client.ErrConflict), strings.Replace(err.Error(), f.ID, "<id>", 1))
	if _, err := c.Upsert(ctx, &cms.Resource{ID: "old-pier", Image: cms.Nil[string]()}); err != nil {
		panic(err)
	}
	fmt.Println(c.DeleteFile(ctx, f.ID))
	_, err = c.File(ctx, f.ID)
	fmt.Println(errors.Is(err, client.ErrNotFound))
	// Output:
	// true client: 409 File <id> is used by Resource old-pier
	// <nil>
	// true
}
