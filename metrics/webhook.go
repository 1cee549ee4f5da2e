package metrics

import (
	"time"

	"github.com/bwcms/cms/cms"
	"github.com/prometheus/client_golang/prometheus"
)

// The results of bwcms_webhook_deliveries_total.
const (
	deliveryDelivered     = "delivered"      // an attempt answered 2xx
	deliveryAttemptFailed = "attempt_failed" // an attempt without a 2xx answer
	deliveryFailed        = "failed"         // a delivery given up after its retries
)

// webhookMetrics are the metrics of webhook deliveries.
type webhookMetrics struct {
	deliveries *prometheus.CounterVec
	lag        prometheus.Histogram
}

func newWebhookMetrics() webhookMetrics {
	w := webhookMetrics{
		deliveries: prometheus.NewCounterVec(prometheus.CounterOpts{
			Name: "bwcms_webhook_deliveries_total",
			Help: "Webhook deliveries by this process's senders, by result: delivered (an attempt answered 2xx), " +
				"attempt_failed (an attempt without a 2xx answer) or failed (a delivery given up after its retries).",
		}, []string{"result"}),
		lag: prometheus.NewHistogram(prometheus.HistogramOpts{
			Name:    "bwcms_webhook_lag_seconds",
			Help:    "Time from a change to an attempt of its webhook delivery.",
			Buckets: prometheus.ExponentialBuckets(0.1, 4, 11), // 0.1 s to 29 h
		}),
	}
	for _, r := range []string{deliveryDelivered, deliveryAttemptFailed, deliveryFailed} {
		w.deliveries.WithLabelValues(r)
	}
	return w
}

func (w webhookMetrics) collectors() []prometheus.Collector {
	return []prometheus.Collector{w.deliveries, w.lag}
}

// DeliveryAttempted counts an attempt of a webhook delivery
// (cms.WebhookObserver): bwcms_webhook_deliveries_total{result=
// "delivered"|"attempt_failed"} and bwcms_webhook_lag_seconds.
func (m *Metrics) DeliveryAttempted(ok bool, lag time.Duration) {
	result := deliveryAttemptFailed
	if ok {
		result = deliveryDelivered
	}
	m.webhooks.deliveries.WithLabelValues(result).Inc()
	m.webhooks.lag.Observe(max(lag, 0).Seconds())
}

// DeliveryFailed counts a delivery given up (cms.WebhookObserver):
// bwcms_webhook_deliveries_total{result="failed"}.
func (m *Metrics) DeliveryFailed() {
	m.webhooks.deliveries.WithLabelValues(deliveryFailed).Inc()
}

var _ cms.WebhookObserver = (*Metrics)(nil)
