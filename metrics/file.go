package metrics

import (
	"context"

	"github.com/bwcms/cms/cms"
	"github.com/prometheus/client_golang/prometheus"
)

// The reasons of bwcms_file_uploads_refused_total.
const (
	refusedInvalid  = "invalid"
	refusedTooLarge = "too_large"
)

// FileUploaded counts an upload answered with a file (cms.FileObserver):
// bwcms_file_uploads_total{type, result="stored"|"existing"}.
func (m *Metrics) FileUploaded(f cms.File, existing bool) {
	result := "stored"
	if existing {
		result = "existing"
	}
	typ := f.Type
	if cms.FileExt(typ) == "" {
		typ = "other" // never happens today; keeps the label's values bounded
	}
	m.uploads.WithLabelValues(typ, result).Inc()
}

// UploadRefused counts an upload refused for its content
// (cms.FileObserver): bwcms_file_uploads_refused_total{reason} with
// reason too_large for cms.CodeTooLarge, else invalid.
func (m *Metrics) UploadRefused(code cms.Code) {
	reason := refusedInvalid
	if code == cms.CodeTooLarge {
		reason = refusedTooLarge
	}
	m.refused.WithLabelValues(reason).Inc()
}

var _ cms.FileObserver = (*Metrics)(nil)

// WatchFiles adds how many files svc's store holds and how many bytes
// their originals take, over every account, read at each scrape:
// bwcms_files_stored and bwcms_file_bytes_stored. A scrape while the
// store cannot answer leaves both out (bwcms_batch_queue_up, of
// WatchQueue, tells whether the store answers).
func (m *Metrics) WatchFiles(svc *cms.Service) error {
	return m.reg.Register(&fileCollector{svc: svc})
}

type fileCollector struct {
	svc *cms.Service
}

var (
	filesStored = prometheus.NewDesc("bwcms_files_stored",
		"Uploaded files stored, over every account.", nil, nil)
	fileBytesStored = prometheus.NewDesc("bwcms_file_bytes_stored",
		"Bytes of the uploaded files' originals (thumbnails not counted), over every account.", nil, nil)
)

func (c *fileCollector) Describe(ch chan<- *prometheus.Desc) {
	ch <- filesStored
	ch <- fileBytesStored
}

func (c *fileCollector) Collect(ch chan<- prometheus.Metric) {
	ctx, cancel := context.WithTimeout(context.Background(), scrapeTimeout)
	defer cancel()
	count, bytes, err := c.svc.FileTotals(ctx)
	if err != nil {
		return
	}
	ch <- prometheus.MustNewConstMetric(filesStored, prometheus.GaugeValue, float64(count))
	ch <- prometheus.MustNewConstMetric(fileBytesStored, prometheus.GaugeValue, float64(bytes))
}
