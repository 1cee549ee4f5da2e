package metrics_test

import (
	"bytes"
	"fmt"
	"image"
	"image/color"
	"image/png"
	"io"
	"strings"
	"testing"

	"github.com/bwcms/cms/adapters/sqlite"
	"github.com/bwcms/cms/cms"
	"github.com/bwcms/cms/internal/testenv"
	"github.com/bwcms/cms/metrics"
	"github.com/prometheus/client_golang/prometheus"
	"github.com/prometheus/client_golang/prometheus/testutil"
	"gocloud.dev/blob/memblob"
)

// TestFileObserver: uploads counted by type and result, refusals by
// reason (both reasons shown from the start), a type the service never
// answers under one label.
func TestFileObserver(t *testing.T) {
	t.Parallel()
	reg := prometheus.NewRegistry()
	m, err := metrics.New(reg)
	if err != nil {
		t.Fatal(err)
	}
	want := `
# HELP bwcms_file_uploads_refused_total Uploads refused for their content, by reason: invalid (no accepted type, unreadable) or too_large.
# TYPE bwcms_file_uploads_refused_total counter
bwcms_file_uploads_refused_total{reason="invalid"} 0
bwcms_file_uploads_refused_total{reason="too_large"} 0
`
	if err := testutil.GatherAndCompare(reg, strings.NewReader(want), "bwcms_file_uploads_total", "bwcms_file_uploads_refused_total"); err != nil {
		t.Error(err)
	}
	var o cms.FileObserver = m
	png := cms.File{ID: "aaaaaaaaaaaaaaaaaaaaaaaaaa", Type: "image/png", Size: 1234}
	o.FileUploaded(png, false)
	o.FileUploaded(cms.File{Type: "image/png"}, false)
	o.FileUploaded(png, true)
	o.FileUploaded(cms.File{Type: "application/gpx+xml"}, false)
	o.FileUploaded(cms.File{Type: "text/html; charset=utf-8"}, false)
	o.UploadRefused(cms.CodeConflict)
	o.UploadRefused(cms.CodeTooLarge)
	o.UploadRefused(cms.CodeTooLarge)
	want = `
# HELP bwcms_file_uploads_total Uploads answered with a file, by media type and result: stored, or existing (the account held the same bytes).
# TYPE bwcms_file_uploads_total counter
bwcms_file_uploads_total{result="existing",type="image/png"} 1
bwcms_file_uploads_total{result="stored",type="application/gpx+xml"} 1
bwcms_file_uploads_total{result="stored",type="image/png"} 2
bwcms_file_uploads_total{result="stored",type="other"} 1
# HELP bwcms_file_uploads_refused_total Uploads refused for their content, by reason: invalid (no accepted type, unreadable) or too_large.
# TYPE bwcms_file_uploads_refused_total counter
bwcms_file_uploads_refused_total{reason="invalid"} 1
bwcms_file_uploads_refused_total{reason="too_large"} 2
`
	if err := testutil.GatherAndCompare(reg, strings.NewReader(want), "bwcms_file_uploads_total", "bwcms_file_uploads_refused_total"); err != nil {
		t.Error(err)
	}
}

// TestFileMetrics: a service's uploads reach the counters, and the
// gauges read what the store holds at each scrape; with the store gone
// the gauges leave the scrape and the scrape still works.
func TestFileMetrics(t *testing.T) {
	t.Parallel()
	ctx := t.Context()
	reg := prometheus.NewRegistry()
	m, err := metrics.New(reg)
	if err != nil {
		t.Fatal(err)
	}
	store, err := sqlite.Open(ctx, sqlite.Memory, nil)
	if err != nil {
		t.Fatal(err)
	}
	defer store.Close()
	files := memblob.OpenBucket(nil)
	defer files.Close()
	svc, err := cms.NewService(store, &cms.Options{Observer: m, Passwords: testenv.CheapPasswords, Files: files})
	if err != nil {
		t.Fatal(err)
	}
	if err := m.WatchFiles(svc); err != nil {
		t.Fatal(err)
	}
	if err := m.WatchFiles(svc); err == nil {
		t.Error("a second WatchFiles did not fail")
	}
	langs, _ := cms.NewLanguages("en")
	if err := svc.CreateAccount(ctx, "shop", langs); err != nil {
		t.Fatal(err)
	}
	pctx := cms.WithPrincipal(ctx, cms.Principal{Account: "shop", User: "ed", Perms: []string{"*"}, Langs: langs})
	gauges := func(files, bytes int) string {
		return fmt.Sprintf(`
# HELP bwcms_file_bytes_stored Bytes of the uploaded files' originals (thumbnails not counted), over every account.
# TYPE bwcms_file_bytes_stored gauge
bwcms_file_bytes_stored %d
# HELP bwcms_files_stored Uploaded files stored, over every account.
# TYPE bwcms_files_stored gauge
bwcms_files_stored %d
`, bytes, files)
	}
	if err := testutil.GatherAndCompare(reg, strings.NewReader(gauges(0, 0)), "bwcms_files_stored", "bwcms_file_bytes_stored"); err != nil {
		t.Error(err)
	}

	img := square(t, 800)
	for _, name := range []string{"pier.png", "pier again.png"} {
		if _, _, err := svc.UploadFile(pctx, cms.Upload{Name: name, Body: bytes.NewReader(img)}); err != nil {
			t.Fatal(err)
		}
	}
	if _, _, err := svc.UploadFile(pctx, cms.Upload{Name: "notes.gpx", Body: strings.NewReader("just notes")}); cms.ErrorCode(err) != cms.CodeConflict {
		t.Errorf("a text file: %v", err)
	}
	huge := io.MultiReader(bytes.NewReader(img), io.LimitReader(zeros{}, 21<<20))
	if _, _, err := svc.UploadFile(pctx, cms.Upload{Name: "huge.png", Body: huge}); cms.ErrorCode(err) != cms.CodeTooLarge {
		t.Errorf("21 MiB: %v", err)
	}
	want := `
# HELP bwcms_file_uploads_total Uploads answered with a file, by media type and result: stored, or existing (the account held the same bytes).
# TYPE bwcms_file_uploads_total counter
bwcms_file_uploads_total{result="existing",type="image/png"} 1
bwcms_file_uploads_total{result="stored",type="image/png"} 1
# HELP bwcms_file_uploads_refused_total Uploads refused for their content, by reason: invalid (no accepted type, unreadable) or too_large.
# TYPE bwcms_file_uploads_refused_total counter
bwcms_file_uploads_refused_total{reason="invalid"} 1
bwcms_file_uploads_refused_total{reason="too_large"} 1
` + gauges(1, len(img))
	if err := testutil.GatherAndCompare(reg, strings.NewReader(want), "bwcms_file_uploads_total", "bwcms_file_uploads_refused_total",
		"bwcms_files_stored", "bwcms_file_bytes_stored"); err != nil {
		t.Error(err)
	}

	store.Close()
	if err := testutil.GatherAndCompare(reg, strings.NewReader(""), "bwcms_files_stored", "bwcms_file_bytes_stored"); err != nil {
		t.Errorf("with the store gone: %v", err)
	}
	if _, err := reg.Gather(); err != nil {
		t.Errorf("the scrape with the store gone: %v", err)
	}
}

// square is a PNG of n×n pixels.
func square(t *testing.T, n int) []byte {
	t.Helper()
	img := image.NewNRGBA(image.Rect(0, 0, n, n))
	for y := range n {
		for x := range n {
			img.Set(x, y, color.NRGBA{uint8(x), uint8(y), uint8(x + y), 255})
		}
	}
	var b bytes.Buffer
	if err := png.Encode(&b, img); err != nil {
		t.Fatal(err)
	}
	return b.Bytes()
}

type zeros struct{}

func (zeros) Read(p []byte) (int, error) {
	clear(p)
	return len(p), nil
}
