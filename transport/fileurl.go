package transport

import (
	"context"
	"net/http"

	"github.com/bwcms/cms/cms"
)

// FileURL is the url of f as the client of r reaches it: the public URL
// (Options.PublicURL) when set, else r's scheme and host (forwarded ones
// only from trusted proxies), then the base path and f's path.
func (h *Handler) FileURL(r *http.Request, f cms.File) string {
	return h.servedURL(r) + root + cms.FilePath(f)
}

// FileContext returns r's context carrying where this request's own file
// urls start (cms.WithFileURLs): under the public URL and under r's own
// scheme and host. Hosts that call cms.Service for a request outside the
// API's handlers (the admin) pass it, so record fields naming the
// service's files are checked as the API checks them.
func (h *Handler) FileContext(r *http.Request) context.Context {
	prefixes := []string{h.servedURL(r) + root + "/file/"}
	if h.publicURL != "" {
		prefixes = append(prefixes, h.requestURL(r)+root+"/file/")
	}
	return cms.WithFileURLs(r.Context(), prefixes...)
}
