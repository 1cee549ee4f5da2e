package bwcmstest_test

import (
	"bytes"
	"errors"
	"image"
	"image/color"
	"image/png"
	"io"
	"net/http"
	"testing"

	"github.com/bwcms/cms/bwcmstest"
	"github.com/bwcms/cms/client"
	"github.com/bwcms/cms/cms"
	"github.com/bwcms/cms/internal/testenv"
	"gocloud.dev/blob"
	"gocloud.dev/blob/memblob"
)

// TestNew: one call gives a running API, with a client logged in as the
// admin, batch workers, and users of chosen permissions; on SQLite in
// memory, under a prefix, and on PostgreSQL in a schema of its own that
// is gone after the test.
func TestNew(t *testing.T) {
	t.Parallel()
	itEn, _ := cms.NewLanguages("it", "it", "en")
	cases := []struct {
		name string
		opts *bwcmstest.Options
	}{
		{"sqlite", nil},
		{"sqlite under a prefix, two languages", &bwcmstest.Options{BasePath: "/cms", Langs: itEn}},
	}
	if dsn := testenv.PostgresServer(t); dsn != "" {
		cases = append(cases, struct {
			name string
			opts *bwcmstest.Options
		}{"postgres", &bwcmstest.Options{PostgresDSN: dsn}})
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			ctx := t.Context()
			api := bwcmstest.New(t, tc.opts)
			lang := "en"
			if tc.opts != nil && tc.opts.Langs.Default != "" {
				lang = tc.opts.Langs.Default
			}
			walk := &cms.Resource{ID: "lake-walk", Title: cms.Langs[string]{lang: "Lake walk"}, Published: cms.Some(true)}
			if got, err := api.Client.Upsert(ctx, walk); err != nil || got != cms.Created {
				t.Fatalf("upsert: %v %v", got, err)
			}
			r, _, err := client.Get[*cms.Resource](ctx, api.Client, "lake-walk")
			if err != nil || r.Title[lang] != "Lake walk" {
				t.Fatalf("read back: %+v %v", r, err)
			}
			b, err := api.Client.RunBatch(ctx, cms.KindMap, []cms.Record{
				&cms.Map{ID: "lakes", Title: cms.Langs[string]{lang: "Lakes"}, ResourceIDs: cms.NullOf([]string{"lake-walk"})},
			}, nil)
			if err != nil || b.Status != cms.BatchDone || b.Created != 1 {
				t.Fatalf("batch: %+v %v", b, err)
			}
			reader := api.User(t, "reader", "resource:read")
			if _, err := reader.Upsert(ctx, walk); !errors.Is(err, client.ErrForbidden) {
				t.Errorf("a reader's upsert: %v, want forbidden", err)
			}
			if got, _, err := client.Get[*cms.Resource](ctx, reader, "lake-walk"); err != nil || got.MapIDs.Value[0] != "lakes" {
				t.Errorf("a reader's read: %+v %v", got, err)
			}
		})
	}
}

// TestCloseTwice: a test may close the API itself; the cleanup's Close
// then does nothing.
func TestCloseTwice(t *testing.T) {
	t.Parallel()
	api := bwcmstest.New(t, nil)
	if err := api.Close(); err != nil {
		t.Fatal(err)
	}
	if err := api.Close(); err != nil {
		t.Fatal(err)
	}
}

// pier is a PNG of 640×480.
func pier(t *testing.T) []byte {
	t.Helper()
	img := image.NewNRGBA(image.Rect(0, 0, 640, 480))
	for y := range 480 {
		for x := range 640 {
			img.Set(x, y, color.NRGBA{uint8(x), uint8(y), uint8(x ^ y), 255})
		}
	}
	var b bytes.Buffer
	if err := png.Encode(&b, img); err != nil {
		t.Fatal(err)
	}
	return b.Bytes()
}

// objects counts the objects of a bucket.
func objects(t *testing.T, b *blob.Bucket) int {
	t.Helper()
	n := 0
	it := b.List(nil)
	for {
		_, err := it.Next(t.Context())
		if err == io.EOF {
			return n
		}
		if err != nil {
			t.Fatal(err)
		}
		n++
	}
}

// TestFiles: the kit's service keeps files (in memory unless the host
// gives a bucket): an upload through the kit's client is read back, its
// url serves the bytes without a token, a record can name it; a bucket
// of the host's own gets the bytes and stays open after Close.
func TestFiles(t *testing.T) {
	t.Parallel()
	ctx := t.Context()
	img := pier(t)
	api := bwcmstest.New(t, nil)
	f, err := api.Client.UploadFile(ctx, "Pier at dawn.png", bytes.NewReader(img))
	if err != nil {
		t.Fatal(err)
	}
	if f.Type != "image/png" || f.Width != 640 || f.Height != 480 || f.Size != int64(len(img)) || f.Existing {
		t.Fatalf("uploaded: %+v", f)
	}
	read, err := api.Client.File(ctx, f.ID)
	if err != nil || read.URL != f.URL || read.SHA256 != f.SHA256 || len(read.UsedBy) != 0 {
		t.Fatalf("read back: %+v %v", read, err)
	}
	res, err := api.Server.Client().Get(f.URL)
	if err != nil {
		t.Fatal(err)
	}
	body, _ := io.ReadAll(res.Body)
	res.Body.Close()
	if res.StatusCode != http.StatusOK || !bytes.Equal(body, img) {
		t.Fatalf("GET %s: %d, %d bytes", f.URL, res.StatusCode, len(body))
	}
	if objects(t, api.Files) == 0 {
		t.Error("the kit's bucket holds nothing")
	}
	walk := &cms.Resource{ID: "lake-walk", Title: cms.Langs[string]{"en": "Lake walk"}, Published: cms.Some(true), Image: cms.NullOf(f.URL)}
	if _, err := api.Client.Upsert(ctx, walk); err != nil {
		t.Fatal(err)
	}
	if read, err = api.Client.File(ctx, f.ID); err != nil || len(read.UsedBy) != 1 || read.UsedBy[0].ID != "lake-walk" {
		t.Errorf("used by: %+v %v", read, err)
	}

	own := memblob.OpenBucket(nil)
	defer own.Close()
	hosted := bwcmstest.New(t, &bwcmstest.Options{Service: func(o *cms.Options) { o.Files = own }})
	if hosted.Files != own {
		t.Fatal("API.Files is not the host's bucket")
	}
	if _, err := hosted.Client.UploadFile(ctx, "pier.png", bytes.NewReader(img)); err != nil {
		t.Fatal(err)
	}
	if err := hosted.Close(); err != nil {
		t.Fatal(err)
	}
	if objects(t, own) == 0 {
		t.Error("the host's bucket holds nothing, or was closed")
	}
}
