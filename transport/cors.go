package transport

import (
	"fmt"
	"net/http"
	"net/url"
	"strings"
	"time"

	"github.com/rs/cors"
)

// The CORS policy for Options.AllowedOrigins: the methods the API takes,
// the request headers it reads, and the answer headers a client reads.
var (
	corsMethods        = []string{http.MethodGet, http.MethodPost, http.MethodDelete}
	corsRequestHeaders = []string{"Authorization", "Authorization-Bearer", "Content-Type", "If-Match", "If-None-Match"}
	corsExposedHeaders = []string{"ETag", "Retry-After", "WWW-Authenticate"}
)

// CheckOrigin reports whether origin can be one of Options.AllowedOrigins:
// an origin exactly as a browser sends it in its Origin header, scheme
// http or https, a host and an optional port, in lower case, without a
// path, a trailing slash, a wildcard or the scheme's default port
// ("https://app.example.com", "http://localhost:3000").
func CheckOrigin(origin string) error {
	u, err := url.Parse(origin)
	if err != nil || (u.Scheme != "http" && u.Scheme != "https") || u.Host == "" || u.User != nil ||
		u.Opaque != "" || u.Path != "" || u.RawQuery != "" || u.ForceQuery || u.Fragment != "" ||
		strings.Contains(origin, "*") {
		return fmt.Errorf("transport: allowed origin %q: want scheme://host[:port], such as https://app.example.com", origin)
	}
	if origin != strings.ToLower(origin) {
		return fmt.Errorf("transport: allowed origin %q: write it in lower case, as browsers send it", origin)
	}
	if port := u.Port(); (u.Scheme == "https" && port == "443") || (u.Scheme == "http" && port == "80") {
		return fmt.Errorf("transport: allowed origin %q: browsers leave out the default port", origin)
	}
	return nil
}

// newCORS is the CORS layer of the allowed origins; nil when there are
// none.
func newCORS(origins []string, maxAge time.Duration) *cors.Cors {
	if len(origins) == 0 {
		return nil
	}
	seconds := int(maxAge / time.Second)
	if maxAge == NoCORSMaxAge {
		seconds = 0 // no header: the browser's default
	}
	return cors.New(cors.Options{
		AllowedOrigins:   origins,
		AllowedMethods:   corsMethods,
		AllowedHeaders:   corsRequestHeaders,
		ExposedHeaders:   corsExposedHeaders,
		AllowCredentials: true,
		MaxAge:           seconds,
	})
}

// crossOrigin is Options.CrossOrigin, or the default protection with
// every allowed origin trusted.
func crossOrigin(o *Options) (*http.CrossOriginProtection, error) {
	if o.CrossOrigin != nil {
		return o.CrossOrigin, nil
	}
	c := http.NewCrossOriginProtection()
	for _, origin := range o.AllowedOrigins {
		if err := c.AddTrustedOrigin(origin); err != nil {
			return nil, fmt.Errorf("transport: %w", err)
		}
	}
	return c, nil
}

// checkOrigins checks Options.AllowedOrigins.
func checkOrigins(o *Options) error {
	for _, origin := range o.AllowedOrigins {
		if err := CheckOrigin(origin); err != nil {
			return err
		}
	}
	return nil
}

// forwardedHost is the host the client asked for, as a trusted proxy
// (Options.TrustedProxies, or a peer that is not an IP address: a local
// socket) wrote it: the first value of X-Forwarded-Host, else the host=
// of Forwarded's first element. "" when the peer is no trusted proxy or
// the proxy wrote none.
func (ps proxies) forwardedHost(r *http.Request) string {
	return ps.forwarded(r, "X-Forwarded-Host", "host")
}

// forwardedProto is the scheme a trusted proxy names, lowercased, as
// forwardedHost reads the host (X-Forwarded-Proto, Forwarded's proto=).
func (ps proxies) forwardedProto(r *http.Request) string {
	return strings.ToLower(ps.forwarded(r, "X-Forwarded-Proto", "proto"))
}

// forwarded is the first value of header xHeader, else the param= of
// Forwarded's first element, when the peer is a trusted proxy.
func (ps proxies) forwarded(r *http.Request, xHeader, param string) string {
	peer := parseHost(r.RemoteAddr)
	if peer.IsValid() && !ps.trusted(peer) {
		return ""
	}
	if v := r.Header.Get(xHeader); v != "" {
		first, _, _ := strings.Cut(v, ",")
		return strings.TrimSpace(first)
	}
	first, _, _ := strings.Cut(r.Header.Get("Forwarded"), ",")
	for pair := range strings.SplitSeq(first, ";") {
		name, value, ok := strings.Cut(strings.TrimSpace(pair), "=")
		if ok && strings.EqualFold(name, param) {
			return strings.Trim(value, `"`)
		}
	}
	return ""
}
