package admin

import "net/http"

// listRoutes registers the record lists (<prefix>/<kind>/).
func (h *Handler) listRoutes(mux *http.ServeMux) {}
