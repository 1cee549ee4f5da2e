package main

import (
	"fmt"
	"log/slog"
	"net/http"
	"strconv"
	"strings"

	"github.com/bwcms/cms/admin"
	"github.com/bwcms/cms/cms"
	"github.com/bwcms/cms/transport"
)

// webSettings are where the API answers and who may call it from a
// browser.
var webSettings = []setting{
	{"base-path", "CMS_BASE_PATH", "", "prefix before /api/bw/v2 (/cms serves /cms/api/bw/v2/), for a proxy that passes the prefix on"},
	{"cors-origins", "CMS_CORS_ORIGINS", "", "comma-separated origins of browser front-ends allowed to call the API and log in (http://localhost:3000)"},
	{"cookie-samesite", "CMS_COOKIE_SAMESITE", "strict", "SameSite of the refresh cookie: strict, lax or none (a front-end on another site)"},
	{"cookie-domain", "CMS_COOKIE_DOMAIN", "", "Domain of the refresh cookie (default none: this host only)"},
	{"admin-path", "CMS_ADMIN_PATH", "/admin/", "path of the editors' web UI (empty: no admin)"},
	{"tile-url", "CMS_TILE_URL", "", "tiles of the admin's maps, with {z}, {x} and {y} (default OpenStreetMap's standard tiles; blank: no base layer, nothing fetched off this server)"},
	{"tile-attribution", "CMS_TILE_ATTRIBUTION", "", "text the admin's maps show for the tiles' provider (default with OpenStreetMap's tiles: © OpenStreetMap contributors)"},
	{"tile-attribution-url", "CMS_TILE_ATTRIBUTION_URL", "", "where the tile attribution links (default with OpenStreetMap's tiles: its copyright page)"},
	{"tile-max-zoom", "CMS_TILE_MAX_ZOOM", "19", "deepest zoom the tile provider serves"},
	{"public-url", "CMS_PUBLIC_URL", "", "address clients reach the API's root at, before /api/bw/v2 (https://cms.example.com): the start of file urls and openapi.json's server (default: the address each request was sent to)"},
}

var sameSites = map[string]http.SameSite{
	"strict": http.SameSiteStrictMode,
	"lax":    http.SameSiteLaxMode,
	"none":   http.SameSiteNoneMode,
}

// webOptions reads the web settings and the trusted proxies into the
// handler's options, judging every value before anything is created.
func webOptions(cfg map[string]string) (transport.Options, error) {
	var o transport.Options
	var err error
	if o.TrustedProxies, err = parsePrefixes(cfg["trusted-proxies"]); err != nil {
		return o, fmt.Errorf("--trusted-proxies: %w", err)
	}
	o.BasePath = cfg["base-path"]
	if err := transport.CheckBasePath(o.BasePath); err != nil {
		return o, fmt.Errorf("--base-path: %w", err)
	}
	o.PublicURL = cfg["public-url"]
	if err := transport.CheckPublicURL(o.PublicURL); err != nil {
		return o, fmt.Errorf("--public-url: %w", err)
	}
	for item := range strings.SplitSeq(cfg["cors-origins"], ",") {
		if item = strings.TrimSpace(item); item == "" {
			continue
		}
		if err := transport.CheckOrigin(item); err != nil {
			return o, fmt.Errorf("--cors-origins: %w", err)
		}
		o.AllowedOrigins = append(o.AllowedOrigins, item)
	}
	var ok bool
	if o.CookieSameSite, ok = sameSites[strings.ToLower(cfg["cookie-samesite"])]; !ok {
		return o, fmt.Errorf("--cookie-samesite %q: want strict, lax or none", cfg["cookie-samesite"])
	}
	o.CookieDomain = cfg["cookie-domain"]
	if o.CookieDomain != "" {
		c := http.Cookie{Name: transport.RefreshCookie, Value: "x", Domain: o.CookieDomain}
		if err := c.Valid(); err != nil {
			return o, fmt.Errorf("--cookie-domain %q: not a domain", o.CookieDomain)
		}
	}
	return o, nil
}

// adminHandler is the editors' web UI at --admin-path, or nil when it is
// empty.
func adminHandler(cfg map[string]string, svc *cms.Service, api *transport.Handler, log *slog.Logger) (*admin.Handler, error) {
	if strings.TrimSpace(cfg["admin-path"]) == "" {
		return nil, nil
	}
	tiles := admin.Tiles{URL: cfg["tile-url"], Attribution: cfg["tile-attribution"], AttributionURL: cfg["tile-attribution-url"]}
	if z := strings.TrimSpace(cfg["tile-max-zoom"]); z != "" {
		n, err := strconv.Atoi(z)
		if err != nil {
			return nil, fmt.Errorf("--tile-max-zoom %q: not a whole number", z)
		}
		tiles.MaxZoom = n
	}
	ui, err := admin.NewHandler(admin.Options{Service: svc, API: api, Prefix: cfg["admin-path"], Logger: log, Tiles: tiles})
	if err != nil {
		return nil, fmt.Errorf("--admin-path, --tile-*: %w", err)
	}
	return ui, nil
}
