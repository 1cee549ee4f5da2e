package transport

import (
	"context"
	"log/slog"
	"net/http"
	"time"
)

// Observer hears every request the API answers, for metrics: route is a
// name of the endpoint without ids ("resource read", "map upsert",
// "auth login", "file upload", "file bytes", "unknown" for a path the API
// does not know), status the
// HTTP status sent. The package metrics implements it on Prometheus. It is
// called on the request's goroutine once the handler has returned, so it
// must be quick and safe for concurrent use.
type Observer interface {
	// Request hears one answered request and how long it took.
	Request(route string, status int, took time.Duration)
}

// observed records what a request's answer was, for the Observer and the
// access log.
type observed struct {
	http.ResponseWriter
	status int
	bytes  int64
	route  string
}

func (o *observed) WriteHeader(status int) {
	if o.status == 0 {
		o.status = status
	}
	o.ResponseWriter.WriteHeader(status)
}

func (o *observed) Write(p []byte) (int, error) {
	if o.status == 0 {
		o.status = http.StatusOK
	}
	n, err := o.ResponseWriter.Write(p)
	o.bytes += int64(n)
	return n, err
}

// Unwrap lets http.ResponseController reach the connection.
func (o *observed) Unwrap() http.ResponseWriter { return o.ResponseWriter }

type observedKey struct{}

// nameRoute gives the request's route its name for the Observer and the
// access log, when either listens.
func nameRoute(r *http.Request, route string) {
	if o, ok := r.Context().Value(observedKey{}).(*observed); ok {
		o.route = route
	}
}

// observe serves r through serve and reports it to the Observer and the
// access log.
func (h *Handler) observe(w http.ResponseWriter, r *http.Request, serve func(http.ResponseWriter, *http.Request)) {
	start := time.Now()
	o := &observed{ResponseWriter: w, route: "unknown"}
	r = r.WithContext(context.WithValue(r.Context(), observedKey{}, o))
	defer func() {
		took := time.Since(start)
		status := o.status
		if status == 0 { // nothing written: the server sends 200
			status = http.StatusOK
		}
		if h.observer != nil {
			h.observer.Request(o.route, status, took)
		}
		if h.access != nil {
			h.access.LogAttrs(r.Context(), slog.LevelInfo, "request",
				slog.String("method", r.Method), slog.String("path", r.URL.Path), slog.String("route", o.route),
				slog.Int("status", status), slog.Int64("bytes", o.bytes), slog.Duration("duration", took),
				slog.String("client", h.proxies.clientAddr(r).String()))
		}
	}()
	serve(o, r)
}

// String names an endpoint in route names.
func (e endpoint) String() string {
	switch e {
	case endpointRead:
		return "read"
	case endpointUpsert:
		return "upsert"
	case endpointDelete:
		return "delete"
	case endpointClone:
		return "clone"
	case endpointSchema:
		return "schema"
	case endpointBatch:
		return "batch"
	case endpointBatchStatus:
		return "batch status"
	case endpointFiles:
		return "files"
	case endpointFile:
		return "file"
	case endpointHistory:
		return "history"
	case endpointWebhooks:
		return "webhooks"
	case endpointWebhook:
		return "webhook"
	case endpointDeliveries:
		return "deliveries"
	case endpointRetry:
		return "delivery retry"
	case endpointAudit:
		return "audit"
	}
	return "unknown"
}
