package admin

import (
	"net/http"
	"strings"
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
// view of records that change), under the policy.
func (h *Handler) setPageHeaders(w http.ResponseWriter) {
	hd := w.Header()
	hd.Set("Content-Type", "text/html; charset=utf-8")
	hd.Set("Cache-Control", "no-store")
	hd.Set("Content-Security-Policy", h.csp)
}

// trixStyleHashes are the CSP hashes of the <style> elements Trix 2.1.19
// inserts (the first is the empty one). A Trix update re-checks them: the
// browser tests fail on any CSP violation.
const trixStyleHashes = "'sha256-47DEQpj8HBSa+/TImW+5JCeuQeRkm5NMpJWZG3hSuFU=' " +
	"'sha256-jAP18ioNeNaQBBU5RJvT96kjJnVxHvZs+s8WUNiLnvA=' " +
	"'sha256-c5Z9aB2t69CSpeI1aC8dDLr7LZYZlynV8iY/8Uc9ZFk='"
