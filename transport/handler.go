package transport

import (
	"crypto/ed25519"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"net/http"
	"net/netip"
	"runtime/debug"
	"slices"
	"strings"
	"sync"
	"time"

	"github.com/bwcms/cms/cms"
	"github.com/gorilla/mux"
	"github.com/rs/cors"
)

// Prefix is the path every route of the API starts with, after
// Options.BasePath.
const Prefix = root + "/"

// Options configure a Handler. Exactly one signing key is needed:
// JWTSecret (HS256, the default) or EdDSAKey. Every number follows one
// rule: 0 means the default (a Default... constant), "off" is a named
// negative sentinel (NoTimeout, NoCORSMaxAge), and any other negative
// value is refused by NewHandler with an error naming the field.
type Options struct {
	// Logger receives failed requests (500s at Error level, the rest at
	// Debug) and recovered panics. Default: discard.
	Logger *slog.Logger
	// Rand is the source of token ids. Default crypto/rand.
	Rand io.Reader

	// JWTSecret signs access tokens with HS256; at least 32 bytes.
	JWTSecret []byte
	// EdDSAKey, when set, signs with Ed25519 instead, with KeyID as the
	// kid header; GET /api/bw/v2/auth/jwks.json then publishes the public
	// key. Without it that path is 404.
	EdDSAKey ed25519.PrivateKey
	KeyID    string
	// Issuer is the iss claim written and required. Default
	// DefaultIssuer ("bw").
	Issuer string

	// MaxBody is the largest create/update body. Default DefaultMaxBody
	// (8 MiB).
	MaxBody int64
	// MaxBatchBody is the largest batch body. Default DefaultMaxBatchBody
	// (64 MiB).
	MaxBatchBody int64

	// BodyReadTimeout and BodyReadChunk require a request body to keep
	// arriving: each BodyReadChunk bytes of it, or its end, must come
	// within BodyReadTimeout of the previous ones, or the request is
	// answered 408 and its connection closed. A large body sent at a
	// steady rate passes however long it takes; a trickle is cut. These
	// replace http.Server.ReadTimeout for bodies. Defaults
	// DefaultBodyReadTimeout (10 s) and DefaultBodyReadChunk (64 KiB);
	// NoTimeout as BodyReadTimeout turns this off.
	BodyReadTimeout time.Duration
	BodyReadChunk   int64
	// WriteTimeout is how long each write of an answer (a chunk of a
	// streamed list) may take before the connection is closed, so a
	// client that stops reading cannot hold the handler. It replaces
	// http.Server.WriteTimeout, which would bound a whole long list.
	// Default DefaultWriteTimeout (30 s); NoTimeout: off. Both deadlines
	// need the
	// http.ResponseWriter to reach the connection: a host's wrapper must
	// have an Unwrap method (http.ResponseController), else they are not
	// set.
	WriteTimeout time.Duration

	// BasePath is the host's prefix before /api/bw/v2: "" (the default)
	// serves the API at /api/bw/v2/, "/cms" at /cms/api/bw/v2/ (see
	// CheckBasePath). The handler takes a request's path with its base
	// path, as routers that keep the whole path pass it, or without it,
	// as http.StripPrefix leaves it; either way the refresh cookie's path
	// is BasePath + "/api/bw/v2/auth", so a host that strips the prefix
	// still gives it here. Handler.Path is the pattern to mount at.
	BasePath string

	// CookieSameSite is the SameSite attribute of the refresh cookie.
	// Default http.SameSiteStrictMode: the cookie goes only with requests
	// from the same site (a front-end on another port or subdomain of the
	// same site is the same site). http.SameSiteNoneMode lets a front-end
	// on another site refresh with it (with AllowedOrigins).
	// http.SameSiteDefaultMode writes no attribute. The cookie is always
	// Secure and HttpOnly.
	CookieSameSite http.SameSite
	// CookieDomain is the refresh cookie's Domain attribute. Default none:
	// the cookie goes back to the host that set it only.
	CookieDomain string

	// AllowedOrigins are the origins of browser front-ends allowed to call
	// the API from another origin (CORS, with credentials, so the refresh
	// cookie goes with them), each exactly as browsers send it
	// ("http://localhost:3000"; see CheckOrigin). They are also trusted by
	// the default CrossOrigin, so a front-end on one of them can log in.
	// Default none: no CORS answers, and OPTIONS is 405 like any method a
	// route does not take.
	AllowedOrigins []string
	// CORSMaxAge is how long a browser may keep a preflight's answer.
	// Default DefaultCORSMaxAge (10 minutes); NoCORSMaxAge: no
	// Access-Control-Max-Age.
	CORSMaxAge time.Duration

	// CrossOrigin decides which POSTs under /auth are cross-site and
	// refused. Default http.NewCrossOriginProtection() (Sec-Fetch-Site,
	// then Origin against Host) with AllowedOrigins trusted. Behind a
	// trusted proxy (TrustedProxies) the Host it compares with is the one
	// the proxy names in X-Forwarded-Host (else Forwarded's host=), when
	// it names one. A CrossOrigin given here is used as it is: add
	// AllowedOrigins to it with AddTrustedOrigin.
	CrossOrigin *http.CrossOriginProtection

	// Observer hears every request answered (route, status, duration),
	// for metrics (the package metrics implements it). Default: none.
	Observer Observer
	// AccessLog, when set, gets one Info record per request answered:
	// method, path, route, status, bytes, duration and client address.
	// Default: none.
	AccessLog *slog.Logger

	// TrustedProxies are the reverse proxies whose X-Forwarded-For (else
	// Forwarded) header names the client a login is throttled by: when
	// the connection's peer is inside one of these prefixes, the client is
	// the right-most address of the header that is not itself a trusted
	// proxy. Otherwise, and when the header cannot be read, the client is
	// the peer. The same proxies' X-Forwarded-Host (else Forwarded's
	// host=) is the host CrossOrigin compares an Origin with. Default
	// none: the headers are never read.
	TrustedProxies []netip.Prefix

	// PublicURL is the address clients reach the API's root at, what
	// comes before /api/bw/v2 ("https://cms.example.com/cms"): the servers
	// entry of the served openapi.json. Default "": the address each
	// request was sent to (scheme and host from a trusted proxy's
	// X-Forwarded-Proto and X-Forwarded-Host, else the request's), then
	// BasePath.
	PublicURL string
}

// Handler answers every path under its root, Options.BasePath +
// "/api/bw/v2", with the API's JSON answers (404 and 405 included), and
// any other path it is given with a plain 404, as http.NotFound. It is
// safe for concurrent use.
type Handler struct {
	svc    *cms.Service
	log    *slog.Logger
	tokens *tokens
	cross  *http.CrossOriginProtection
	// cors answers preflights and adds CORS headers; nil without
	// Options.AllowedOrigins.
	cors *cors.Cors
	// observer and access are Options.Observer and Options.AccessLog.
	observer Observer
	access   *slog.Logger
	// base is Options.BasePath.
	base           string
	cookieSameSite http.SameSite
	cookieDomain   string
	// proxies are Options.TrustedProxies.
	proxies proxies
	// publicURL is Options.PublicURL without a trailing slash.
	publicURL string
	routes    map[string]route

	loc          *time.Location
	maxBody      int64
	maxBatchBody int64
	bodyTimeout  time.Duration
	bodyChunk    int64
	writeTimeout time.Duration
	// schemas caches generated schema documents by kind, languages and
	// form.
	schemas sync.Map
	// anonDocs keeps the OpenAPI documents of languages asked without a
	// token (openapiDoc).
	anonDocs *docCache
	// answers are buffers of read answers (*[]byte), reused so that an
	// answer is not built in a chain of doubling copies.
	answers sync.Pool
	// decodeReads answers every read by decoding its records, as before
	// reads were answered from stored bytes: the equivalence tests and
	// benchmarks compare the two.
	decodeReads bool
}

// route is one path and the handler of each of its methods.
type route map[string]http.HandlerFunc

// NewHandler returns the handler of the whole API on svc. It refuses a
// missing or short signing key.
func NewHandler(svc *cms.Service, opts *Options) (*Handler, error) {
	if svc == nil {
		return nil, errors.New("transport: NewHandler needs a *cms.Service")
	}
	var o Options
	if opts != nil {
		o = *opts
	}
	o, err := o.withDefaults()
	if err != nil {
		return nil, err
	}
	cross, err := crossOrigin(&o)
	if err != nil {
		return nil, err
	}
	tokens, err := newTokens(o, svc.Now)
	if err != nil {
		return nil, err
	}
	proxies, err := newProxies(o.TrustedProxies)
	if err != nil {
		return nil, err
	}
	if err := CheckPublicURL(o.PublicURL); err != nil {
		return nil, err
	}
	h := &Handler{svc: svc, log: o.Logger, tokens: tokens, cross: cross, cors: newCORS(o.AllowedOrigins, o.CORSMaxAge),
		base: o.BasePath, cookieSameSite: o.CookieSameSite, cookieDomain: o.CookieDomain, proxies: proxies, publicURL: strings.TrimRight(o.PublicURL, "/"), loc: svc.Location(),
		maxBody: o.MaxBody, maxBatchBody: o.MaxBatchBody, bodyTimeout: o.BodyReadTimeout, bodyChunk: o.BodyReadChunk, writeTimeout: o.WriteTimeout,
		observer: o.Observer, access: o.AccessLog, anonDocs: newDocCache()}
	h.routes = map[string]route{
		"auth":         {http.MethodGet: h.validate, http.MethodPost: h.login},
		"auth/refresh": {http.MethodPost: h.refresh},
		"auth/logout":  {http.MethodPost: h.logout},
	}
	h.routes[cms.KeywordOpenAPI] = route{http.MethodGet: h.openapi}
	h.routes[changesSegment] = route{http.MethodGet: h.changes}
	h.routes[auditSegment] = route{http.MethodGet: h.audit}
	if o.EdDSAKey != nil {
		h.routes["auth/jwks.json"] = route{http.MethodGet: h.jwks}
	}
	return h, nil
}

// Register mounts the API on a gorilla router, beside the host's routes:
// r.PathPrefix("/api/bw/v2/").Handler(h). On a subrouter under a prefix
// (r.PathPrefix("/cms").Subrouter()), give that prefix as
// Options.BasePath.
//
// Deprecated: mount the handler as any http.Handler:
// r.PathPrefix(h.Path()).Handler(h).
func (h *Handler) Register(r *mux.Router) {
	r.PathPrefix(root + "/").Handler(h)
}

// ServeHTTP routes before anything else: a path outside the API is a
// plain 404, an unknown path in it the API's 404 and a wrong method 405,
// whoever asks. With AllowedOrigins, CORS preflights are answered (204)
// and CORS headers added before routing. Every request reads and writes
// under deadlines that require progress.
func (h *Handler) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	rest, ok := h.apiPath(r.URL.EscapedPath())
	if !ok {
		http.NotFound(w, r)
		return
	}
	if h.observer != nil || h.access != nil {
		h.observe(w, r, func(w http.ResponseWriter, r *http.Request) { h.serve(w, r, rest) })
		return
	}
	h.serve(w, r, rest)
}

// serve answers a request for rest, the path under the API's root.
func (h *Handler) serve(w http.ResponseWriter, r *http.Request, rest string) {
	w, r, finish := h.withDeadlines(w, r)
	defer finish()
	defer h.recoverPanic(w, r)
	// The service checks record fields naming this request's own file
	// urls.
	r = r.WithContext(h.FileContext(r))
	// The public file urls answer anyone (Access-Control-Allow-Origin: *),
	// never with the credentials the CORS rules grant.
	if h.cors != nil && !isPublicFilePath(rest) {
		h.cors.ServeHTTP(w, r, func(w http.ResponseWriter, r *http.Request) { h.route(w, r, rest) })
		return
	}
	h.route(w, r, rest)
}

// route answers rest, the path after the API's root and "/".
func (h *Handler) route(w http.ResponseWriter, r *http.Request, rest string) {
	rt, ok := h.routes[rest]
	if !ok && (rest == fileSegment || strings.HasPrefix(rest, fileSegment+"/")) {
		h.serveFiles(w, r, rest)
		return
	}
	if !ok && (rest == webhookSegment || strings.HasPrefix(rest, webhookSegment+"/")) {
		h.serveWebhooks(w, r, rest)
		return
	}
	if !ok {
		if hp, isHistory := parseHistoryPath(rest); isHistory {
			h.serveHistory(w, r, hp)
			return
		}
		h.serveRecords(w, r, rest)
		return
	}
	nameRoute(r, rest)
	serve, ok := rt[r.Method]
	if !ok {
		methods := make([]string, 0, len(rt))
		for m := range rt {
			methods = append(methods, m)
		}
		w.Header().Set("Allow", joinMethods(methods))
		writeFail(w, http.StatusMethodNotAllowed, textMethodNotAllowed)
		return
	}
	serve(w, r)
}

// joinMethods is the Allow header of a route's methods.
func joinMethods(methods []string) string {
	methods = slices.Clone(methods)
	slices.Sort(methods)
	return strings.Join(methods, ", ")
}

// recoverPanic turns a panic into a logged 500 that shows nothing; the
// log has the request and the stack, to find the bug by.
func (h *Handler) recoverPanic(w http.ResponseWriter, r *http.Request) {
	v := recover()
	if v == nil {
		return
	}
	if v == http.ErrAbortHandler {
		panic(v)
	}
	h.log.ErrorContext(r.Context(), "transport: panic in handler", "method", r.Method,
		"path", r.URL.EscapedPath(), "panic", fmt.Sprint(v), "stack", string(debug.Stack()))
	h.writeError(w, r, &cms.Error{Code: cms.CodeInternal, Err: fmt.Errorf("panic: %v", v)})
}
