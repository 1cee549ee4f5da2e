package admin

import (
	"context"
	"net"
	"net/http"
	"net/url"
	"strings"
	"time"

	"github.com/bwcms/cms/cms"
	"github.com/bwcms/cms/transport"
)

// The admin's own cookies (DECISIONS §19), never the API's bw_rtoken: the
// access token of the API's signer and the refresh token of the service.
const (
	accessCookie  = "bw_admin_access"
	refreshCookie = "bw_admin_refresh"
	// securePrefix marks cookies that a browser keeps only from HTTPS.
	securePrefix = "__Secure-"
)

// session is the signed-in user of a request.
type session struct {
	// P is the user with the account's languages of now.
	P cms.Principal
}

type sessionKey struct{}

// sessionFrom returns the session signedIn put in r's context.
func sessionFrom(r *http.Request) (*session, bool) {
	s, ok := r.Context().Value(sessionKey{}).(*session)
	return s, ok
}

// secure reports whether cookies are Secure: always, except on plain
// HTTP to a loopback address (a developer's machine), where a browser
// would drop them.
func secure(r *http.Request) bool {
	if r.TLS != nil {
		return true
	}
	host, _, err := net.SplitHostPort(r.Host)
	if err != nil {
		host = r.Host
	}
	if host == "localhost" {
		return false
	}
	ip := net.ParseIP(strings.Trim(host, "[]"))
	return ip == nil || !ip.IsLoopback()
}

func (h *Handler) cookieName(r *http.Request, name string) string {
	if secure(r) {
		return securePrefix + name
	}
	return name
}

func (h *Handler) cookie(r *http.Request, name string) string {
	c, err := r.Cookie(h.cookieName(r, name))
	if err != nil {
		return ""
	}
	return c.Value
}

func (h *Handler) setCookie(w http.ResponseWriter, r *http.Request, name, value string, maxAge time.Duration) {
	age := int(maxAge / time.Second)
	if value == "" {
		age = -1
	}
	http.SetCookie(w, &http.Cookie{Name: h.cookieName(r, name), Value: value, Path: h.Path(), MaxAge: age,
		HttpOnly: true, Secure: secure(r), SameSite: http.SameSiteStrictMode})
}

// startSession signs sess's user in: a new access token in the access
// cookie, the refresh token in the refresh cookie for its lifetime.
func (h *Handler) startSession(w http.ResponseWriter, r *http.Request, sess *cms.Session) (cms.Principal, error) {
	access, err := h.api.SignAccess(sess.Principal)
	if err != nil {
		return cms.Principal{}, err
	}
	h.setCookie(w, r, accessCookie, access, transport.AccessTokenLifetime)
	h.setCookie(w, r, refreshCookie, sess.RefreshToken, sess.RefreshExpires.Sub(sess.RefreshIssued))
	return sess.Principal, nil
}

// endSession clears the admin's cookies.
func (h *Handler) endSession(w http.ResponseWriter, r *http.Request) {
	h.setCookie(w, r, accessCookie, "", 0)
	h.setCookie(w, r, refreshCookie, "", 0)
}

// resume finds the signed-in user of r: the access cookie while it is
// valid, else a refresh with the refresh cookie (which renews both). A
// session ends with its tokens: without a valid access token or a refresh
// token the service accepts, there is none. The account's languages of
// now replace the token's; when they changed, the session is refreshed so
// that the admin's own token follows.
func (h *Handler) resume(w http.ResponseWriter, r *http.Request) (*session, error) {
	ctx := r.Context()
	p, err := h.api.Authenticate(ctx, h.cookie(r, accessCookie))
	refreshed := false
	if err != nil {
		if cms.ErrorCode(err) != cms.CodeUnauthorized {
			return nil, err
		}
		if p, err = h.refresh(ctx, w, r); err != nil {
			return nil, err
		}
		refreshed = true
	}
	now, err := h.svc.AccountLanguages(ctx, p)
	if err != nil {
		return nil, err
	}
	if !refreshed && now.Langs.String() != p.Langs.String() {
		if _, err := h.refresh(ctx, w, r); err != nil && cms.ErrorCode(err) != cms.CodeUnauthorized {
			return nil, err
		}
	}
	return &session{P: now}, nil
}

// refresh renews the session with the refresh cookie.
func (h *Handler) refresh(ctx context.Context, w http.ResponseWriter, r *http.Request) (cms.Principal, error) {
	rt := h.cookie(r, refreshCookie)
	if rt == "" {
		return cms.Principal{}, &cms.Error{Code: cms.CodeUnauthorized, Message: "Unauthorized"}
	}
	sess, err := h.svc.Refresh(ctx, rt)
	if err != nil {
		if cms.ErrorCode(err) == cms.CodeUnauthorized {
			h.endSession(w, r)
		}
		return cms.Principal{}, err
	}
	return h.startSession(w, r, sess)
}

// signedIn runs page for a signed-in user, with the user in the request's
// context (for the service and for sessionFrom). A visitor is sent to the
// sign-in page and back; a script's request gets a 401.
func (h *Handler) signedIn(page http.HandlerFunc) http.HandlerFunc {
	return func(w http.ResponseWriter, r *http.Request) {
		s, err := h.resume(w, r)
		if err != nil {
			if cms.ErrorCode(err) != cms.CodeUnauthorized {
				h.fail(w, r, err)
				return
			}
			if r.Method == http.MethodGet && !wantsJSON(r) {
				http.Redirect(w, r, h.url("/login")+"?next="+url.QueryEscape(h.url(r.URL.Path)+query(r)), http.StatusSeeOther)
				return
			}
			h.fail(w, r, err)
			return
		}
		// The API's file context: a record field naming one of the
		// service's files is checked as the API checks it.
		ctx := context.WithValue(cms.WithPrincipal(h.api.FileContext(r), s.P), sessionKey{}, s)
		page(w, r.WithContext(ctx))
	}
}

func query(r *http.Request) string {
	if r.URL.RawQuery == "" {
		return ""
	}
	return "?" + r.URL.RawQuery
}

// wantsJSON reports whether a script asked (the admin's scripts send
// Accept: application/json).
func wantsJSON(r *http.Request) bool {
	return strings.Contains(r.Header.Get("Accept"), "application/json")
}
