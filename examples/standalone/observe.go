package main

import (
	"fmt"
	"log/slog"
	"net/http"
	"strings"

	"github.com/bwcms/cms/admin"
	"github.com/bwcms/cms/cms"
	"github.com/bwcms/cms/metrics"
	"github.com/bwcms/cms/transport"
	"github.com/prometheus/client_golang/prometheus"
	"github.com/prometheus/client_golang/prometheus/collectors"
	"github.com/prometheus/client_golang/prometheus/promhttp"
)

var observeSettings = []setting{
	{"metrics-addr", "CMS_METRICS_ADDR", "", "listen address of /metrics alone (default: /metrics on --addr, beside /healthz and /readyz)"},
	{"access-log", "CMS_ACCESS_LOG", "off", "on: one log line per API request (method, path, route, status, bytes, duration, client)"},
}

// observing is what the server reports through: its metrics registry
// (the process's and the CMS's) and the access log when asked.
type observing struct {
	reg     *prometheus.Registry
	metrics *metrics.Metrics
	access  bool
}

func newObserving(cfg map[string]string) (*observing, error) {
	access, err := onOff("access-log", cfg["access-log"])
	if err != nil {
		return nil, err
	}
	reg := prometheus.NewRegistry()
	reg.MustRegister(collectors.NewGoCollector(), collectors.NewProcessCollector(collectors.ProcessCollectorOpts{}))
	m, err := metrics.New(reg)
	if err != nil {
		return nil, err
	}
	return &observing{reg: reg, metrics: m, access: access}, nil
}

// routes are the server's: the API under its path, the admin under its own, /healthz, /readyz and,
// unless it has a listener of its own, /metrics.
func (o *observing) routes(api *transport.Handler, ui *admin.Handler, svc *cms.Service, withMetrics bool) http.Handler {
	mux := http.NewServeMux()
	mux.Handle(api.Path(), api)
	mux.Handle(strings.TrimSuffix(api.Path(), "/"), api)
	if ui != nil {
		mux.Handle(ui.Path(), ui)
		if p := strings.TrimSuffix(ui.Path(), "/"); p != "" {
			mux.Handle(p, ui)
		}
	}
	mux.Handle("GET /healthz", transport.Liveness())
	mux.Handle("GET /readyz", transport.Readiness(svc))
	if withMetrics {
		mux.Handle("GET /metrics", o.handler())
	}
	return mux
}

func (o *observing) handler() http.Handler {
	return promhttp.HandlerFor(o.reg, promhttp.HandlerOpts{})
}

// accessLog is transport's AccessLog: log when asked, else none.
func (o *observing) accessLog(log *slog.Logger) *slog.Logger {
	if !o.access {
		return nil
	}
	return log
}

// onOff reads an on/off setting.
func onOff(name, v string) (bool, error) {
	switch strings.ToLower(v) {
	case "on", "true", "1":
		return true, nil
	case "off", "false", "0", "":
		return false, nil
	}
	return false, fmt.Errorf("--%s %q: want on or off", name, v)
}
