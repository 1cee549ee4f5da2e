package admin

import (
	"errors"
	"io"
	"log/slog"
	"net/http"
	"slices"
	"strings"

	"github.com/bwcms/cms/cms"
	"github.com/bwcms/cms/transport"
)

// Options configure the admin handler.
type Options struct {
	// Service is the CMS the admin edits. Required.
	Service *cms.Service
	// API is the API handler on the same service: the admin signs its
	// users in with its tokens and judges client addresses as it does.
	// Required.
	API *transport.Handler
	// Prefix is the path the host mounts the handler under ("/admin",
	// "/x/y/admin"; "" or "/" for the root). Every link, asset and form
	// action stays inside it.
	Prefix string
	// Logger receives failed requests. Default: discard.
	Logger *slog.Logger
	// ImageOrigins are origins besides the admin's own that pages may show
	// images from (the Content-Security-Policy's img-src). The origin of
	// the service's file urls (API's public URL, else the request's own)
	// is always allowed. Default: none.
	ImageOrigins []string
	// Tiles is the base layer of the maps; default OpenStreetMap's
	// standard tiles (Tiles). Its origin joins the pages' img-src.
	Tiles Tiles
}

// Handler serves the admin's pages under its prefix.
type Handler struct {
	svc    *cms.Service
	api    *transport.Handler
	prefix string // "" or "/admin": no trailing slash
	log    *slog.Logger
	assets *assets
	pages  *pages
	csp    string
	// imageOrigins are Options.ImageOrigins; pages add the origin of the
	// file urls to them.
	imageOrigins []string
	// tiles is Options.Tiles with its defaults.
	tiles Tiles
	mux   *http.ServeMux
	// guard refuses state-changing requests a browser sends from another
	// site.
	guard *http.CrossOriginProtection
}

// NewHandler returns the admin handler of o.
func NewHandler(o Options) (*Handler, error) {
	if o.Service == nil || o.API == nil {
		return nil, errors.New("admin: NewHandler needs Options.Service and Options.API")
	}
	prefix, err := normalPrefix(o.Prefix)
	if err != nil {
		return nil, err
	}
	log := o.Logger
	if log == nil {
		log = slog.New(slog.NewTextHandler(io.Discard, nil))
	}
	tiles, err := o.Tiles.normal()
	if err != nil {
		return nil, err
	}
	images := slices.Clone(o.ImageOrigins)
	if to := tiles.origin(); to != "" {
		images = append(images, to)
	}
	as, err := loadAssets()
	if err != nil {
		return nil, err
	}
	h := &Handler{svc: o.Service, api: o.API, prefix: prefix, log: log, assets: as,
		csp: contentSecurityPolicy(images), imageOrigins: images, tiles: tiles, guard: http.NewCrossOriginProtection()}
	if h.pages, err = parsePages(h.templateFuncs()); err != nil {
		return nil, err
	}
	h.mux = http.NewServeMux()
	h.routes(h.mux)
	return h, nil
}

// normalPrefix turns a mount path into "" or "/a/b": a leading slash, no
// trailing one.
func normalPrefix(p string) (string, error) {
	p = strings.TrimRight(p, "/")
	if p == "" {
		return "", nil
	}
	if !strings.HasPrefix(p, "/") {
		p = "/" + p
	}
	if strings.ContainsAny(p, "?#{}") || strings.Contains(p, "//") {
		return "", errors.New("admin: Prefix must be a plain path such as /admin")
	}
	return p, nil
}

// Path is where the handler expects to be mounted: the prefix and "/".
func (h *Handler) Path() string { return h.prefix + "/" }

// routes registers every page. Each page's file registers its own routes.
func (h *Handler) routes(mux *http.ServeMux) {
	mux.HandleFunc("GET /static/{path...}", h.serveAsset)
	h.loginRoutes(mux)
	h.overviewRoutes(mux)
	h.listRoutes(mux)
	h.mapRoutes(mux)
	h.editRoutes(mux)
	h.mapEditorRoutes(mux)
	h.peopleRoutes(mux)
	h.fileRoutes(mux)
	h.placingRoutes(mux)
	h.webhookRoutes(mux)
	h.importRoutes(mux)
	mux.HandleFunc("/", h.notFound)
}

// ServeHTTP answers a request under the prefix, given whole or already
// stripped by the host. The prefix itself without its slash redirects to
// the overview.
func (h *Handler) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	path := r.URL.Path
	if path == h.prefix && h.prefix != "" {
		http.Redirect(w, r, h.prefix+"/", http.StatusMovedPermanently)
		return
	}
	// The whole path (ServeMux, gorilla, chi), or the path a host's
	// http.StripPrefix left: links are made with the prefix either way.
	rest, ok := strings.CutPrefix(path, h.prefix)
	if !ok || !strings.HasPrefix(rest, "/") {
		rest = path
	}
	if !strings.HasPrefix(rest, "/") {
		http.NotFound(w, r)
		return
	}
	setSecurityHeaders(w)
	if err := h.guard.Check(r); err != nil {
		h.renderError(w, r, http.StatusForbidden, "This request came from another site and was refused. Reload the page and try again.")
		return
	}
	r2 := new(http.Request)
	*r2 = *r
	u := *r.URL
	u.Path = rest
	u.RawPath = ""
	r2.URL = &u
	h.mux.ServeHTTP(w, r2)
}

// url is the address of a path of the admin ("/resource/") under the
// prefix.
func (h *Handler) url(path string) string {
	return h.prefix + path
}

func (h *Handler) notFound(w http.ResponseWriter, r *http.Request) {
	h.renderError(w, r, http.StatusNotFound, "There is no page at this address.")
}
