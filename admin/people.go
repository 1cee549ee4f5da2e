package admin

import "net/http"

// peopleRoutes registers the users of the account and the account page.
func (h *Handler) peopleRoutes(mux *http.ServeMux) {}
