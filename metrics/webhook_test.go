package metrics_test

import (
	"strings"
	"testing"
	"time"

	"github.com/bwcms/cms/cms"
	"github.com/bwcms/cms/metrics"
	"github.com/prometheus/client_golang/prometheus"
	"github.com/prometheus/client_golang/prometheus/testutil"
)

// TestWebhookObserver: attempts counted by result (every result shown
// from the start), deliveries given up, and the lag of each attempt.
func TestWebhookObserver(t *testing.T) {
	t.Parallel()
	reg := prometheus.NewRegistry()
	m, err := metrics.New(reg)
	if err != nil {
		t.Fatal(err)
	}
	const help = `
# HELP bwcms_webhook_deliveries_total Webhook deliveries by this process's senders, by result: delivered (an attempt answered 2xx), attempt_failed (an attempt without a 2xx answer) or failed (a delivery given up after its retries).
# TYPE bwcms_webhook_deliveries_total counter
`
	want := help + `bwcms_webhook_deliveries_total{result="attempt_failed"} 0
bwcms_webhook_deliveries_total{result="delivered"} 0
bwcms_webhook_deliveries_total{result="failed"} 0
`
	if err := testutil.GatherAndCompare(reg, strings.NewReader(want), "bwcms_webhook_deliveries_total"); err != nil {
		t.Error(err)
	}
	var o cms.WebhookObserver = m
	o.DeliveryAttempted(true, 50*time.Millisecond)
	o.DeliveryAttempted(false, 2*time.Second)
	o.DeliveryAttempted(false, time.Hour)
	o.DeliveryFailed()
	want = help + `bwcms_webhook_deliveries_total{result="attempt_failed"} 2
bwcms_webhook_deliveries_total{result="delivered"} 1
bwcms_webhook_deliveries_total{result="failed"} 1
`
	if err := testutil.GatherAndCompare(reg, strings.NewReader(want), "bwcms_webhook_deliveries_total"); err != nil {
		t.Error(err)
	}
	if n := testutil.CollectAndCount(reg, "bwcms_webhook_lag_seconds"); n != 1 {
		t.Errorf("lag series: %d, want 1", n)
	}
	families, err := reg.Gather()
	if err != nil {
		t.Fatal(err)
	}
	for _, f := range families {
		if f.GetName() != "bwcms_webhook_lag_seconds" {
			continue
		}
		h := f.GetMetric()[0].GetHistogram()
		if h.GetSampleCount() != 3 || h.GetSampleSum() < 3602 || h.GetSampleSum() > 3603 {
			t.Errorf("lag: %d samples summing %v s, want 3 summing 3602.05", h.GetSampleCount(), h.GetSampleSum())
		}
	}
}
