package transport

import (
	"fmt"
	"net/http"
	"strings"
)

// root is the API's own path, without the host's base path.
const root = "/api/bw/v2"

// CheckBasePath reports whether p can be Options.BasePath: "" (the root),
// or "/" followed by segments of letters, digits, '-', '.', '_' and '~',
// separated by single slashes, without a trailing slash and without "."
// or ".." segments ("/cms", "/sites/shop").
func CheckBasePath(p string) error {
	if p == "" {
		return nil
	}
	if !strings.HasPrefix(p, "/") || strings.HasSuffix(p, "/") {
		return fmt.Errorf("transport: base path %q: want \"\" or a path such as /cms, starting with / and not ending with one", p)
	}
	for seg := range strings.SplitSeq(p[1:], "/") {
		if seg == "" || seg == "." || seg == ".." {
			return fmt.Errorf("transport: base path %q: empty, . or .. segment", p)
		}
		for _, c := range []byte(seg) {
			if !isBasePathByte(c) {
				return fmt.Errorf("transport: base path %q: %q is not allowed (letters, digits, - . _ ~ and /)", p, c)
			}
		}
	}
	return nil
}

func isBasePathByte(c byte) bool {
	return 'a' <= c && c <= 'z' || 'A' <= c && c <= 'Z' || '0' <= c && c <= '9' ||
		c == '-' || c == '.' || c == '_' || c == '~'
}

// Path is where the API answers, the pattern a host mounts the handler
// at: Options.BasePath + "/api/bw/v2/" ("/api/bw/v2/" by default).
//
//	mux.Handle(api.Path(), api)                 // net/http.ServeMux
//	r.PathPrefix(api.Path()).Handler(api)       // gorilla/mux
//	r.Handle(api.Path()+"*", api)               // chi
func (h *Handler) Path() string { return h.base + root + "/" }

// apiPath finds the part of an escaped request path after the API's root
// and "/": "auth/refresh" for /cms/api/bw/v2/auth/refresh with base path
// /cms, and "" for the root itself. It takes the path with the base path
// (a host that mounts the handler on a router that keeps the whole path:
// ServeMux, gorilla/mux, chi) or, when there is a base path, without it
// (a host that strips it first: http.StripPrefix). ok is false for a path
// outside the API.
func (h *Handler) apiPath(p string) (rest string, ok bool) {
	if h.base != "" {
		if after, found := strings.CutPrefix(p, h.base); found {
			if rest, ok := underRoot(after); ok {
				return rest, true
			}
		}
	}
	return underRoot(p)
}

func underRoot(p string) (string, bool) {
	after, found := strings.CutPrefix(p, root)
	switch {
	case !found:
		return "", false
	case after == "":
		return "", true
	case after[0] == '/':
		return after[1:], true
	}
	return "", false
}

// refreshCookie is the refresh cookie with value and maxAge, as
// Options.BasePath, CookieSameSite and CookieDomain make it: always
// Secure and HttpOnly, for the /auth paths only.
func (h *Handler) refreshCookie(value string, maxAge int) *http.Cookie {
	return &http.Cookie{Name: RefreshCookie, Value: value, Path: h.base + root + "/auth", Domain: h.cookieDomain,
		MaxAge: maxAge, HttpOnly: true, Secure: true, SameSite: h.cookieSameSite}
}

// checkCookie fills in and checks the cookie options.
func checkCookie(o *Options) error {
	switch o.CookieSameSite {
	case 0:
		o.CookieSameSite = http.SameSiteStrictMode
	case http.SameSiteDefaultMode, http.SameSiteLaxMode, http.SameSiteStrictMode, http.SameSiteNoneMode:
	default:
		return fmt.Errorf("transport: Options.CookieSameSite is %d: not an http.SameSite mode", o.CookieSameSite)
	}
	if o.CookieDomain != "" {
		c := http.Cookie{Name: RefreshCookie, Value: "x", Domain: o.CookieDomain}
		if err := c.Valid(); err != nil {
			return fmt.Errorf("transport: Options.CookieDomain is %q: %w", o.CookieDomain, err)
		}
	}
	return nil
}
