package admin

import (
	"errors"
	"net/http"
	"net/url"
	"strconv"
	"strings"
	"time"

	"github.com/bwcms/cms/cms"
)

func (h *Handler) loginRoutes(mux *http.ServeMux) {
	mux.HandleFunc("GET /login", h.loginForm)
	mux.HandleFunc("POST /login", h.login)
	mux.HandleFunc("POST /logout", h.logout)
}

// loginPage is the data of the sign-in page.
type loginPage struct {
	Username string
	Next     string
	Error    string
	// SignedOut names the user who just signed out: the page's script
	// removes what the browser kept for them (unsaved drafts).
	SignedOut string
}

func (h *Handler) loginForm(w http.ResponseWriter, r *http.Request) {
	h.render(w, r, http.StatusOK, "login", &view{Title: "Sign in", Page: loginPage{Next: h.next(r.URL.Query().Get("next"))}})
}

// next is where to go after signing in: an address inside the admin, or
// the overview. Anything else (another site, a scheme) is ignored, and so
// is an address with a space or a control character: a browser drops
// tabs and line breaks from a Location, so "/\t/evil.example" would lead
// to "//evil.example", another site.
func (h *Handler) next(n string) string {
	home := h.url("/")
	if strings.ContainsFunc(n, func(r rune) bool { return r <= ' ' || r == 0x7f || r == '\\' }) {
		return home
	}
	u, err := url.Parse(n)
	if err != nil || u.Scheme != "" || u.Host != "" || u.User != nil || u.Opaque != "" ||
		!strings.HasPrefix(n, h.prefix+"/") || strings.HasPrefix(n, "//") || strings.HasPrefix(n, h.url("/login")) {
		return home
	}
	return n
}

// login checks the username and password with the service's own login, so
// that its throttling applies, and starts a session.
func (h *Handler) login(w http.ResponseWriter, r *http.Request) {
	r.Body = http.MaxBytesReader(w, r.Body, 64<<10)
	if err := r.ParseForm(); err != nil {
		h.render(w, r, http.StatusBadRequest, "login", &view{Title: "Sign in", Page: loginPage{Error: "The form could not be read. Try again."}})
		return
	}
	page := loginPage{Username: r.PostForm.Get("u"), Next: h.next(r.PostForm.Get("next"))}
	sess, err := h.svc.Login(r.Context(), page.Username, r.PostForm.Get("p"), h.api.ClientAddr(r))
	if err == nil {
		_, err = h.startSession(w, r, sess)
	}
	if err != nil {
		status := http.StatusUnauthorized
		switch cms.ErrorCode(err) {
		case cms.CodeUnauthorized:
			page.Error = "The username or the password is wrong."
		case cms.CodeTooMany:
			status = http.StatusTooManyRequests
			wait := time.Minute
			if t, ok := errors.AsType[*cms.ThrottledError](err); ok {
				wait = t.RetryAfter
			}
			secs := int(wait.Round(time.Second) / time.Second)
			w.Header().Set("Retry-After", strconv.Itoa(max(secs, 1)))
			page.Error = "Too many failed attempts. Try again in " + waitText(wait) + "."
		default:
			status, page.Error = errorText(err)
			if status >= 500 {
				h.log.Error("admin: login failed", "err", err)
			}
		}
		h.render(w, r, status, "login", &view{Title: "Sign in", Page: page})
		return
	}
	http.Redirect(w, r, page.Next, http.StatusSeeOther)
}

// waitText says how long to wait in words.
func waitText(d time.Duration) string {
	if d < time.Minute {
		return strconv.Itoa(max(int(d.Round(time.Second)/time.Second), 1)) + " seconds"
	}
	m := int((d + time.Minute - 1) / time.Minute)
	if m == 1 {
		return "a minute"
	}
	return strconv.Itoa(m) + " minutes"
}

// logout revokes the refresh token and clears the cookies; the page it
// answers removes the user's drafts from the browser.
func (h *Handler) logout(w http.ResponseWriter, r *http.Request) {
	user := ""
	rt := h.cookie(r, refreshCookie)
	if p, err := h.api.Authenticate(r.Context(), h.cookie(r, accessCookie)); err == nil {
		user = p.User
	} else if rt != "" {
		// The access token expired (a pause of a quarter of an hour): the
		// refresh token still tells whose session this is, so that the
		// page removes their drafts. The token it gives is revoked below
		// with the whole family.
		if sess, err := h.svc.Refresh(r.Context(), rt); err == nil {
			user, rt = sess.Principal.User, sess.RefreshToken
		}
	}
	if rt != "" {
		if err := h.svc.Logout(r.Context(), rt); err != nil {
			h.fail(w, r, err)
			return
		}
	}
	h.endSession(w, r)
	h.render(w, r, http.StatusOK, "login", &view{Title: "Signed out", Page: loginPage{Next: h.url("/"), SignedOut: user}})
}
