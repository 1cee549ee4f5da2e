package metrics_test

import (
	"context"
	"fmt"
	"net/netip"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/bwcms/cms/adapters/sqlite"
	"github.com/bwcms/cms/cms"
	"github.com/bwcms/cms/internal/testenv"
	"github.com/bwcms/cms/metrics"
	"github.com/prometheus/client_golang/prometheus"
	"github.com/prometheus/client_golang/prometheus/testutil"
)

// TestMetrics: refused logins, the batch queue while nothing applies it,
// then the finished batch and its records, on a registry of the test's
// own; a second New on the same registry fails.
func TestMetrics(t *testing.T) {
	t.Parallel()
	ctx := t.Context()
	reg := prometheus.NewRegistry()
	m, err := metrics.New(reg)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := metrics.New(reg); err == nil {
		t.Error("a second New on one registry did not fail")
	}
	store, err := sqlite.Open(ctx, sqlite.Memory, nil)
	if err != nil {
		t.Fatal(err)
	}
	defer store.Close()
	svc, err := cms.NewService(store, &cms.Options{Observer: m, Passwords: testenv.CheapPasswords,
		BatchPoll: 10 * time.Millisecond})
	if err != nil {
		t.Fatal(err)
	}
	if err := m.WatchQueue(svc); err != nil {
		t.Fatal(err)
	}
	langs, _ := cms.NewLanguages("en")
	if err := svc.CreateAccount(ctx, "shop", langs); err != nil {
		t.Fatal(err)
	}
	if err := svc.CreateUser(ctx, cms.NewUser{Name: "ed", Account: "shop", Password: "a long password", Perms: []string{"*"}}); err != nil {
		t.Fatal(err)
	}
	client := netip.MustParseAddr("192.0.2.1")
	for range 6 { // five wrong passwords, then held back
		svc.Login(ctx, "ed", "wrong password", client)
	}
	if _, err := svc.Login(ctx, "ed", "a long password", netip.MustParseAddr("198.51.100.7")); err != nil {
		t.Fatalf("login from another address: %v", err)
	}
	want := `
# HELP bwcms_login_refusals_total Logins refused, by reason: credentials (wrong user or password) or throttled.
# TYPE bwcms_login_refusals_total counter
bwcms_login_refusals_total{reason="credentials"} 5
bwcms_login_refusals_total{reason="throttled"} 1
`
	if err := testutil.GatherAndCompare(reg, strings.NewReader(want), "bwcms_login_refusals_total"); err != nil {
		t.Error(err)
	}

	p := cms.Principal{Account: "shop", User: "ed", Perms: []string{"*"}, Langs: langs}
	pctx := cms.WithPrincipal(ctx, p)
	if _, err := svc.SubmitBatch(pctx, cms.KindResource, []byte(`[{"id":"r-1","title":"One"},{"id":"r-2","title":"Two"}]`)); err != nil {
		t.Fatal(err)
	}
	time.Sleep(20 * time.Millisecond) // the oldest waiting batch has an age
	if got := testutil.ToFloat64(collectorOf(t, reg, "bwcms_batch_queue_waiting")); got != 1 {
		t.Errorf("waiting: %v, want 1", got)
	}
	if got := testutil.ToFloat64(collectorOf(t, reg, "bwcms_batch_queue_oldest_waiting_seconds")); got <= 0 {
		t.Errorf("oldest waiting: %v, want above 0", got)
	}

	runCtx, stop := context.WithCancel(ctx)
	done := make(chan error, 1)
	go func() { done <- svc.Run(runCtx) }()
	deadline := time.Now().Add(10 * time.Second)
	for testutil.ToFloat64(collectorOf(t, reg, "bwcms_batch_queue_waiting"))+
		testutil.ToFloat64(collectorOf(t, reg, "bwcms_batch_queue_processing")) > 0 {
		if time.Now().After(deadline) {
			t.Fatal("the batch was not applied")
		}
		time.Sleep(10 * time.Millisecond)
	}
	stop()
	<-done
	want = `
# HELP bwcms_batches_finished_total Batches finished by this process's workers, by kind and status (done or error).
# TYPE bwcms_batches_finished_total counter
bwcms_batches_finished_total{kind="resource",status="done"} 1
# HELP bwcms_batch_records_applied_total Records of done batches, by kind and outcome (created, updated, skipped).
# TYPE bwcms_batch_records_applied_total counter
bwcms_batch_records_applied_total{kind="resource",outcome="created"} 2
bwcms_batch_records_applied_total{kind="resource",outcome="skipped"} 0
bwcms_batch_records_applied_total{kind="resource",outcome="updated"} 0
# HELP bwcms_batch_queue_oldest_waiting_seconds How long the oldest waiting batch has waited (0 when none waits).
# TYPE bwcms_batch_queue_oldest_waiting_seconds gauge
bwcms_batch_queue_oldest_waiting_seconds 0
# HELP bwcms_batch_queue_up 1 when the batch queue could be read at this scrape, else 0.
# TYPE bwcms_batch_queue_up gauge
bwcms_batch_queue_up 1
`
	if err := testutil.GatherAndCompare(reg, strings.NewReader(want), "bwcms_batches_finished_total",
		"bwcms_batch_records_applied_total", "bwcms_batch_queue_oldest_waiting_seconds", "bwcms_batch_queue_up"); err != nil {
		t.Error(err)
	}
	if n := testutil.CollectAndCount(collectorOf(t, reg, "bwcms_batch_apply_seconds")); n != 1 {
		t.Errorf("apply-time series: %d, want 1", n)
	}

	// The store gone: the queue reports itself down, the scrape works.
	store.Close()
	want = `
# HELP bwcms_batch_queue_up 1 when the batch queue could be read at this scrape, else 0.
# TYPE bwcms_batch_queue_up gauge
bwcms_batch_queue_up 0
`
	if err := testutil.GatherAndCompare(reg, strings.NewReader(want), "bwcms_batch_queue_up"); err != nil {
		t.Error(err)
	}
}

// collectorOf gathers reg and returns the family named name as a
// collector of its own, for testutil's single-metric helpers.
func collectorOf(t *testing.T, reg *prometheus.Registry, name string) prometheus.Collector {
	t.Helper()
	return gathered{reg, name}
}

type gathered struct {
	reg  *prometheus.Registry
	name string
}

func (g gathered) Describe(chan<- *prometheus.Desc) {}

func (g gathered) Collect(ch chan<- prometheus.Metric) {
	families, _ := g.reg.Gather()
	for _, f := range families {
		if f.GetName() != g.name {
			continue
		}
		for _, mt := range f.GetMetric() {
			desc := prometheus.NewDesc(g.name, f.GetHelp(), nil, nil)
			switch {
			case mt.Gauge != nil:
				ch <- prometheus.MustNewConstMetric(desc, prometheus.GaugeValue, mt.Gauge.GetValue())
			case mt.Counter != nil:
				ch <- prometheus.MustNewConstMetric(desc, prometheus.CounterValue, mt.Counter.GetValue())
			case mt.Histogram != nil:
				ch <- prometheus.MustNewConstHistogram(desc, mt.Histogram.GetSampleCount(), mt.Histogram.GetSampleSum(), nil)
			}
		}
	}
}

// TestWriteMetrics: concurrent upserts through a SQLite store are counted
// by its group commit (every write in some group, no group empty, none
// left queued); a store that commits each write alone reports nothing.
func TestWriteMetrics(t *testing.T) {
	t.Parallel()
	gather := func(reg *prometheus.Registry) map[string]float64 {
		t.Helper()
		families, err := reg.Gather()
		if err != nil {
			t.Fatal(err)
		}
		got := map[string]float64{}
		for _, f := range families {
			for _, m := range f.GetMetric() {
				switch {
				case m.GetCounter() != nil:
					got[f.GetName()] = m.GetCounter().GetValue()
				case m.GetGauge() != nil:
					got[f.GetName()] = m.GetGauge().GetValue()
				}
			}
		}
		return got
	}
	for _, grouped := range []bool{true, false} {
		reg := prometheus.NewRegistry()
		m, err := metrics.New(reg)
		if err != nil {
			t.Fatal(err)
		}
		store, err := sqlite.Open(t.Context(), filepath.Join(t.TempDir(), "cms.db"), &sqlite.Options{NoGroupCommit: !grouped})
		if err != nil {
			t.Fatal(err)
		}
		defer store.Close()
		svc, err := cms.NewService(store, &cms.Options{Passwords: testenv.CheapPasswords})
		if err != nil {
			t.Fatal(err)
		}
		if err := m.WatchWrites(svc); err != nil {
			t.Fatal(err)
		}
		langs, _ := cms.NewLanguages("en")
		if err := svc.CreateAccount(t.Context(), "shop", langs); err != nil {
			t.Fatal(err)
		}
		before := gather(reg)
		ctx := cms.WithPrincipal(t.Context(), cms.Principal{Account: "shop", User: "ed", Perms: []string{"*"}, Langs: langs})
		const writers, each = 8, 10
		var wg sync.WaitGroup
		for w := range writers {
			wg.Go(func() {
				for i := range each {
					body := fmt.Sprintf(`{"id":"r-%d-%d","title":"Resource %d %d"}`, w, i, w, i)
					if _, err := svc.Upsert(ctx, cms.KindResource, []byte(body), nil); err != nil {
						t.Error(err)
					}
				}
			})
		}
		wg.Wait()
		after := gather(reg)
		if !grouped {
			for name := range after {
				if strings.HasPrefix(name, "bwcms_write_") {
					t.Errorf("without group commit: %s reported", name)
				}
			}
			continue
		}
		writes := after["bwcms_write_grouped_total"] - before["bwcms_write_grouped_total"]
		groups := after["bwcms_write_groups_total"] - before["bwcms_write_groups_total"]
		if writes < writers*each || groups < 1 || groups > writes {
			t.Errorf("%v writes in %v groups, want at least %d writes in 1 to that many groups", writes, groups, writers*each)
		}
		if q, ok := after["bwcms_write_queued"]; !ok || q != 0 {
			t.Errorf("bwcms_write_queued %v (reported %v), want 0 once all are answered", q, ok)
		}
	}
}
