// Package metrics exposes what the CMS does as Prometheus metrics, on a
// registry the host passes (never the global one). It implements the
// observers of cms (batches, logins, uploads, webhook deliveries) and
// transport (requests), so neither of those packages knows Prometheus:
//
//	reg := prometheus.NewRegistry()
//	m, err := metrics.New(reg)
//	svc, err := cms.NewService(store, &cms.Options{Observer: m})
//	m.WatchQueue(svc)
//	m.WatchFiles(svc)
//	api, err := transport.NewHandler(svc, &transport.Options{Observer: m, JWTSecret: secret})
//	mux.Handle("GET /metrics", promhttp.HandlerFor(reg, promhttp.HandlerOpts{}))
package metrics

import (
	"context"
	"strconv"
	"time"

	"github.com/bwcms/cms/cms"
	"github.com/prometheus/client_golang/prometheus"
)

// Metrics are the CMS's metrics. Every name starts with bwcms_.
type Metrics struct {
	reg      prometheus.Registerer
	requests *prometheus.CounterVec
	duration *prometheus.HistogramVec
	batches  *prometheus.CounterVec
	records  *prometheus.CounterVec
	applying *prometheus.HistogramVec
	logins   *prometheus.CounterVec
	uploads  *prometheus.CounterVec
	refused  *prometheus.CounterVec
	webhooks webhookMetrics
}

// New registers the metrics on reg and returns them. It fails when reg
// already holds metrics of the same names (New called twice on one
// registry).
func New(reg prometheus.Registerer) (*Metrics, error) {
	m := &Metrics{
		reg: reg,
		requests: prometheus.NewCounterVec(prometheus.CounterOpts{
			Name: "bwcms_http_requests_total",
			Help: "API requests answered, by route and status code.",
		}, []string{"route", "code"}),
		duration: prometheus.NewHistogramVec(prometheus.HistogramOpts{
			Name:    "bwcms_http_request_duration_seconds",
			Help:    "Time to answer an API request, by route.",
			Buckets: []float64{.0005, .001, .0025, .005, .01, .025, .05, .1, .25, .5, 1, 2.5, 5, 10},
		}, []string{"route"}),
		batches: prometheus.NewCounterVec(prometheus.CounterOpts{
			Name: "bwcms_batches_finished_total",
			Help: "Batches finished by this process's workers, by kind and status (done or error).",
		}, []string{"kind", "status"}),
		records: prometheus.NewCounterVec(prometheus.CounterOpts{
			Name: "bwcms_batch_records_applied_total",
			Help: "Records of done batches, by kind and outcome (created, updated, skipped).",
		}, []string{"kind", "outcome"}),
		applying: prometheus.NewHistogramVec(prometheus.HistogramOpts{
			Name:    "bwcms_batch_apply_seconds",
			Help:    "Time from a batch's claim to its end, by kind.",
			Buckets: prometheus.ExponentialBuckets(0.01, 4, 8),
		}, []string{"kind"}),
		logins: prometheus.NewCounterVec(prometheus.CounterOpts{
			Name: "bwcms_login_refusals_total",
			Help: "Logins refused, by reason: credentials (wrong user or password) or throttled.",
		}, []string{"reason"}),
		uploads: prometheus.NewCounterVec(prometheus.CounterOpts{
			Name: "bwcms_file_uploads_total",
			Help: "Uploads answered with a file, by media type and result: stored, or existing (the account held the same bytes).",
		}, []string{"type", "result"}),
		refused: prometheus.NewCounterVec(prometheus.CounterOpts{
			Name: "bwcms_file_uploads_refused_total",
			Help: "Uploads refused for their content, by reason: invalid (no accepted type, unreadable) or too_large.",
		}, []string{"reason"}),
		webhooks: newWebhookMetrics(),
	}
	collectors := []prometheus.Collector{m.requests, m.duration, m.batches, m.records, m.applying, m.logins, m.uploads, m.refused}
	for _, c := range append(collectors, m.webhooks.collectors()...) {
		if err := reg.Register(c); err != nil {
			return nil, err
		}
	}
	m.logins.WithLabelValues("credentials")
	m.logins.WithLabelValues("throttled")
	m.refused.WithLabelValues(refusedInvalid)
	m.refused.WithLabelValues(refusedTooLarge)
	return m, nil
}

// Request counts one answered request (transport's Observer).
func (m *Metrics) Request(route string, status int, took time.Duration) {
	m.requests.WithLabelValues(route, strconv.Itoa(status)).Inc()
	m.duration.WithLabelValues(route).Observe(took.Seconds())
}

// BatchFinished counts a finished batch and its records (cms.Observer).
func (m *Metrics) BatchFinished(kind cms.Kind, status cms.BatchStatus, r cms.BatchResult, took time.Duration) {
	m.batches.WithLabelValues(string(kind), string(status)).Inc()
	if status == cms.BatchDone {
		m.records.WithLabelValues(string(kind), "created").Add(float64(r.Created))
		m.records.WithLabelValues(string(kind), "updated").Add(float64(r.Updated))
		m.records.WithLabelValues(string(kind), "skipped").Add(float64(r.Skipped))
	}
	if took > 0 {
		m.applying.WithLabelValues(string(kind)).Observe(took.Seconds())
	}
}

// LoginRefused counts a refused login (cms.Observer).
func (m *Metrics) LoginRefused(throttled bool) {
	reason := "credentials"
	if throttled {
		reason = "throttled"
	}
	m.logins.WithLabelValues(reason).Inc()
}

var _ cms.Observer = (*Metrics)(nil)

// scrapeTimeout bounds each store query a scrape makes.
const scrapeTimeout = 5 * time.Second

// WatchQueue adds the batch queue's depth and age, read from svc's store
// at each scrape (over every account, so every instance reports the same
// figures): bwcms_batch_queue_waiting, bwcms_batch_queue_processing and
// bwcms_batch_queue_oldest_waiting_seconds. A scrape while the store
// cannot answer reports bwcms_batch_queue_up 0 instead.
func (m *Metrics) WatchQueue(svc *cms.Service) error {
	return m.reg.Register(&queueCollector{svc: svc, now: time.Now})
}

type queueCollector struct {
	svc *cms.Service
	now func() time.Time
}

var (
	queueUp = prometheus.NewDesc("bwcms_batch_queue_up",
		"1 when the batch queue could be read at this scrape, else 0.", nil, nil)
	queueWaiting = prometheus.NewDesc("bwcms_batch_queue_waiting",
		"Batches waiting for a worker, over every account.", nil, nil)
	queueProcessing = prometheus.NewDesc("bwcms_batch_queue_processing",
		"Batches being applied, over every account.", nil, nil)
	queueOldest = prometheus.NewDesc("bwcms_batch_queue_oldest_waiting_seconds",
		"How long the oldest waiting batch has waited (0 when none waits).", nil, nil)
)

func (c *queueCollector) Describe(ch chan<- *prometheus.Desc) {
	ch <- queueUp
	ch <- queueWaiting
	ch <- queueProcessing
	ch <- queueOldest
}

func (c *queueCollector) Collect(ch chan<- prometheus.Metric) {
	ctx, cancel := context.WithTimeout(context.Background(), scrapeTimeout)
	defer cancel()
	q, err := c.svc.BatchQueue(ctx)
	if err != nil {
		ch <- prometheus.MustNewConstMetric(queueUp, prometheus.GaugeValue, 0)
		return
	}
	age := 0.0
	if !q.OldestWaiting.IsZero() {
		age = max(c.now().Sub(q.OldestWaiting).Seconds(), 0)
	}
	ch <- prometheus.MustNewConstMetric(queueUp, prometheus.GaugeValue, 1)
	ch <- prometheus.MustNewConstMetric(queueWaiting, prometheus.GaugeValue, float64(q.Waiting))
	ch <- prometheus.MustNewConstMetric(queueProcessing, prometheus.GaugeValue, float64(q.Processing))
	ch <- prometheus.MustNewConstMetric(queueOldest, prometheus.GaugeValue, age)
}

// WatchWrites adds the store's group commits, read at each scrape:
// bwcms_write_groups_total (transactions that each held a group of
// writes), bwcms_write_grouped_total (the writes they held: the ratio of
// their rates is the mean group), and bwcms_write_queued (writes waiting
// for the writer now). A store without group commit (PostgreSQL, SQLite
// with NoGroupCommit) reports none of them.
func (m *Metrics) WatchWrites(svc *cms.Service) error {
	return m.reg.Register(writeCollector{svc: svc})
}

type writeCollector struct{ svc *cms.Service }

var (
	writeGroups = prometheus.NewDesc("bwcms_write_groups_total",
		"Write transactions run by group commit, each holding one or more writes.", nil, nil)
	writeGrouped = prometheus.NewDesc("bwcms_write_grouped_total",
		"Writes held by group commit's transactions.", nil, nil)
	writeQueued = prometheus.NewDesc("bwcms_write_queued",
		"Writes waiting for the writer.", nil, nil)
)

func (writeCollector) Describe(ch chan<- *prometheus.Desc) {
	ch <- writeGroups
	ch <- writeGrouped
	ch <- writeQueued
}

func (c writeCollector) Collect(ch chan<- prometheus.Metric) {
	w, ok := c.svc.WriteStats()
	if !ok {
		return
	}
	ch <- prometheus.MustNewConstMetric(writeGroups, prometheus.CounterValue, float64(w.Commits))
	ch <- prometheus.MustNewConstMetric(writeGrouped, prometheus.CounterValue, float64(w.Transactions))
	ch <- prometheus.MustNewConstMetric(writeQueued, prometheus.GaugeValue, float64(w.Queued))
}
