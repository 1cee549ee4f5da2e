package admin

import (
	"net/http"
	"net/url"
	"slices"
	"strings"

	"github.com/bwcms/cms/cms"
)

// setSecurityHeaders sets what every answer of the admin carries.
func setSecurityHeaders(w http.ResponseWriter) {
	hd := w.Header()
	hd.Set("X-Content-Type-Options", "nosniff")
	hd.Set("Referrer-Policy", "same-origin")
	hd.Set("X-Frame-Options", "DENY")
	hd.Set("Cross-Origin-Opener-Policy", "same-origin")
}

// contentSecurityPolicy is the policy of every page: scripts and styles
// only from the admin's own files, never inline; no frames of it
// anywhere.
func contentSecurityPolicy(imageOrigins []string) string {
	img := append([]string{"'self'", "data:", "blob:"}, imageOrigins...)
	return strings.Join([]string{
		"default-src 'self'",
		"script-src 'self'",
		// The HTML editor (Trix) inserts three fixed <style> elements of its
		// own; their hashes allow exactly those, no other inline style.
		"style-src 'self' " + trixStyleHashes,
		"img-src " + strings.Join(img, " "),
		"connect-src 'self'",
		"font-src 'self'",
		"object-src 'none'",
		"base-uri 'none'",
		"form-action 'self'",
		"frame-ancestors 'none'",
	}, "; ")
}

// setPageHeaders marks an HTML page: never cached (it shows one user's
// view of records that change), under the policy. Its img-src takes the
// origin of the service's file urls for r (the public URL's, when the
// API has one), so that pages show uploaded images and thumbnails.
func (h *Handler) setPageHeaders(w http.ResponseWriter, r *http.Request) {
	hd := w.Header()
	hd.Set("Content-Type", "text/html; charset=utf-8")
	hd.Set("Cache-Control", "no-store")
	csp := h.csp
	if o := h.fileOrigin(r); o != "" && !slices.Contains(h.imageOrigins, o) {
		csp = contentSecurityPolicy(append(slices.Clip(h.imageOrigins), o))
	}
	hd.Set("Content-Security-Policy", csp)
}

// fileOrigin is the origin ("https://host:port") of the service's file
// urls as r's client reaches them; "" when it has none.
func (h *Handler) fileOrigin(r *http.Request) string {
	u, err := url.Parse(h.api.FileURL(r, cms.File{ID: strings.Repeat("a", cms.FileIDLength), Name: "x.png", Type: "image/png"}))
	if err != nil || u.Scheme == "" || u.Host == "" {
		return ""
	}
	return u.Scheme + "://" + u.Host
}

// trixStyleHashes are the CSP hashes of the <style> elements Trix 2.1.19
// inserts (the first is the empty one). A Trix update re-checks them: the
// browser tests fail on any CSP violation.
const trixStyleHashes = "'sha256-47DEQpj8HBSa+/TImW+5JCeuQeRkm5NMpJWZG3hSuFU=' " +
	"'sha256-jAP18ioNeNaQBBU5RJvT96kjJnVxHvZs+s8WUNiLnvA=' " +
	"'sha256-c5Z9aB2t69CSpeI1aC8dDLr7LZYZlynV8iY/8Uc9ZFk='"
