package transport

import (
	"context"
	"errors"
	"net/http"
	"time"

	"github.com/bwcms/cms/cms"
)

// readyTimeout bounds the store check of one readiness request.
const readyTimeout = 5 * time.Second

// Liveness answers 200 {"status":"ok"} to any GET or HEAD while the
// process serves HTTP; it asks nothing of the store, so a database outage
// does not get a healthy process restarted. A host mounts it where its
// orchestrator looks (the standalone server: /healthz).
func Liveness() http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if !probeMethod(w, r) {
			return
		}
		writeRaw(w, http.StatusOK, []byte(`{"status":"ok"}`+"\n"))
	})
}

// Readiness answers 200 {"status":"ready"} when svc can serve: its store
// answers within 5 s and holds the schema this build expects. Otherwise
// 503 {"status":"unavailable","reason":"..."} with Retry-After: 5, the
// reason saying which (never a database's own text). A host mounts it
// where its load balancer looks (the standalone server: /readyz).
func Readiness(svc *cms.Service) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if !probeMethod(w, r) {
			return
		}
		ctx, cancel := context.WithTimeout(r.Context(), readyTimeout)
		defer cancel()
		err := svc.Ready(ctx)
		if err == nil {
			writeRaw(w, http.StatusOK, []byte(`{"status":"ready"}`+"\n"))
			return
		}
		reason := "the database cannot be reached"
		if e, ok := errors.AsType[*cms.Error](err); ok && e.Code == cms.CodeUnavailable && e.Err == nil && e.Message != "" {
			reason = e.Message // the store's own words about its schema
		}
		w.Header().Set("Retry-After", "5")
		writeJSON(w, http.StatusServiceUnavailable, map[string]string{"status": "unavailable", "reason": reason})
	})
}

// probeMethod lets GET and HEAD through and answers anything else 405.
func probeMethod(w http.ResponseWriter, r *http.Request) bool {
	if r.Method == http.MethodGet || r.Method == http.MethodHead {
		return true
	}
	w.Header().Set("Allow", "GET, HEAD")
	writeFail(w, http.StatusMethodNotAllowed, textMethodNotAllowed)
	return false
}
