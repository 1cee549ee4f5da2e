package metrics_test

import (
	"strings"
	"testing"

	"github.com/bwcms/cms/cms"
	"github.com/bwcms/cms/metrics"
	"github.com/prometheus/client_golang/prometheus"
	"github.com/prometheus/client_golang/prometheus/testutil"
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
