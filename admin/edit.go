package admin

import "net/http"

// editRoutes registers the record forms (<prefix>/<kind>/new,
// <prefix>/<kind>/{id}/edit).
func (h *Handler) editRoutes(mux *http.ServeMux) {}
