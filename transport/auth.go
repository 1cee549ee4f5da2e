package transport

import (
	"io"
	"math"
	"mime"
	"net/http"
	"time"

	"github.com/bwcms/cms/cms"
)

// MaxAuthBody is the largest body of login, refresh and logout.
const MaxAuthBody = 64 << 10

// RefreshCookie is the cookie that carries the refresh token.
const RefreshCookie = "bw_rtoken"

// tokenBody is the 200 body of login (all fields) and refresh (from
// access_token on).
type tokenBody struct {
	Done         string `json:"done,omitempty" jsonschema_description:"JWT generated (login only)"`
	JWT          string `json:"jwt,omitempty" jsonschema_description:"the access token again (login only)"`
	AccessToken  string `json:"access_token" jsonschema_description:"the access token (a JWT) for the Authorization header"`
	RefreshToken string `json:"refresh_token" jsonschema_description:"the refresh token, also set in the bw_rtoken cookie"`
	TokenType    string `json:"token_type" jsonschema_description:"Bearer"`
	ExpiresIn    int    `json:"expires_in" jsonschema_description:"seconds the access token lasts"`
}

// login is POST /api/bw/v2/auth: form fields u and p.
func (h *Handler) login(w http.ResponseWriter, r *http.Request) {
	w.Header().Set("Cache-Control", "no-store")
	if !h.sameSite(w, r) {
		return
	}
	form, err := readForm(w, r)
	if err != nil {
		h.writeError(w, r, err)
		return
	}
	u, p := form["u"], form["p"]
	if len(u) != 1 || len(p) != 1 {
		h.writeError(w, r, &cms.Error{Code: cms.CodeUnauthorized, Message: "login needs one u and one p"})
		return
	}
	sess, err := h.svc.Login(r.Context(), u[0], p[0], h.proxies.clientAddr(r))
	if err != nil {
		h.writeError(w, r, err)
		return
	}
	h.writeSession(w, r, sess, "JWT generated")
}

// refresh is POST /api/bw/v2/auth/refresh: the token of the cookie, else
// of the form field refresh_token.
func (h *Handler) refresh(w http.ResponseWriter, r *http.Request) {
	w.Header().Set("Cache-Control", "no-store")
	if !h.sameSite(w, r) {
		return
	}
	token, err := refreshToken(w, r)
	if err != nil {
		h.writeError(w, r, err)
		return
	}
	sess, err := h.svc.Refresh(r.Context(), token)
	if cms.ErrorCode(err) == cms.CodeUnauthorized {
		writeJSON(w, http.StatusUnauthorized, refreshFailBody{"invalid_grant", "Invalid or expired refresh token"})
		return
	}
	if err != nil {
		h.writeError(w, r, err)
		return
	}
	h.writeSession(w, r, sess, "")
}

// logout is POST /api/bw/v2/auth/logout: no access token needed; the
// presented refresh token's family is revoked and the cookie expired.
func (h *Handler) logout(w http.ResponseWriter, r *http.Request) {
	w.Header().Set("Cache-Control", "no-store")
	if !h.sameSite(w, r) {
		return
	}
	token, err := refreshToken(w, r)
	if cms.ErrorCode(err) == cms.CodeUnauthorized {
		token, err = "", nil // an unreadable body presents no token; logout still succeeds
	}
	if err != nil {
		h.writeError(w, r, err)
		return
	}
	if err := h.svc.Logout(r.Context(), token); err != nil {
		h.writeError(w, r, err)
		return
	}
	http.SetCookie(w, h.refreshCookie("", -1))
	writeJSON(w, http.StatusOK, logoutBody{"Successfully logged out"})
}

// validate is GET /api/bw/v2/auth: the claims of a valid access token.
func (h *Handler) validate(w http.ResponseWriter, r *http.Request) {
	w.Header().Set("Cache-Control", "no-store")
	claims, _, err := h.authenticate(r)
	if err != nil {
		h.writeError(w, r, err)
		return
	}
	writeJSON(w, http.StatusOK, validateBody{"JWT verified", claims})
}

// jwks is GET /api/bw/v2/auth/jwks.json, with EdDSA keys only.
func (h *Handler) jwks(w http.ResponseWriter, r *http.Request) {
	w.Header().Set("Cache-Control", "public, max-age=300")
	writeJSON(w, http.StatusOK, h.tokens.jwks())
}

// writeSession answers a login or refresh: a signed access token, and the
// refresh token in the body and the cookie.
func (h *Handler) writeSession(w http.ResponseWriter, r *http.Request, sess *cms.Session, done string) {
	access, err := h.tokens.sign(sess.Principal)
	if err != nil {
		h.writeError(w, r, err)
		return
	}
	// From the token's own issue, not from now: hashing the password may
	// take a second under load, and the cookie still lives as the token.
	maxAge := int(math.Ceil(sess.RefreshExpires.Sub(sess.RefreshIssued).Seconds()))
	http.SetCookie(w, h.refreshCookie(sess.RefreshToken, max(maxAge, 1)))
	body := tokenBody{Done: done, AccessToken: access, RefreshToken: sess.RefreshToken, TokenType: "Bearer",
		ExpiresIn: int(AccessTokenLifetime / time.Second)}
	if done != "" {
		body.JWT = access
	}
	writeJSON(w, http.StatusOK, body)
}

// sameSite refuses, with 403, a POST the browser marks as cross-site,
// before anything is read or changed. Behind a trusted proxy that names
// the host the client asked for, that host is the one an Origin is
// compared with.
func (h *Handler) sameSite(w http.ResponseWriter, r *http.Request) bool {
	checked := r
	if host := h.proxies.forwardedHost(r); host != "" && host != r.Host {
		checked = r.WithContext(r.Context()) // a shallow copy
		checked.Host = host
	}
	if err := h.cross.Check(checked); err != nil {
		h.writeError(w, r, &cms.Error{Code: cms.CodeForbidden, Message: "cross-site request", Err: err})
		return false
	}
	return true
}

// readForm reads an urlencoded or multipart body of at most MaxAuthBody;
// the query string is not read, so secrets never ride in URLs. No body,
// or another content type, is an empty form.
func readForm(w http.ResponseWriter, r *http.Request) (map[string][]string, error) {
	if err := limitBody(w, r, MaxAuthBody); err != nil {
		return nil, err
	}
	ct, _, _ := mime.ParseMediaType(r.Header.Get("Content-Type"))
	var err error
	switch ct {
	case "application/x-www-form-urlencoded":
		err = r.ParseForm()
	case "multipart/form-data":
		err = r.ParseMultipartForm(MaxAuthBody)
	default:
		return map[string][]string{}, nil
	}
	if err != nil {
		return nil, bodyError(err)
	}
	if r.MultipartForm != nil {
		return r.MultipartForm.Value, nil
	}
	return r.PostForm, nil
}

// bodyError classifies a failure to read an auth body: over the limit is
// 413, too slow 408; anything else reads as no credentials (401).
func bodyError(err error) error {
	if f := readFailure(err); f != nil {
		return f
	}
	return &cms.Error{Code: cms.CodeUnauthorized, Message: "unreadable body", Err: err}
}

// refreshToken returns the presented refresh token: the cookie wins over
// the form field refresh_token. "" when there is none.
func refreshToken(w http.ResponseWriter, r *http.Request) (string, error) {
	if c, err := r.Cookie(RefreshCookie); err == nil && c.Value != "" {
		// The body is not needed, but its limit holds all the same.
		if err := limitBody(w, r, MaxAuthBody); err != nil {
			return "", err
		}
		if _, err := io.Copy(io.Discard, r.Body); err != nil {
			return "", bodyError(err)
		}
		return c.Value, nil
	}
	form, err := readForm(w, r)
	if err != nil {
		return "", err
	}
	if v := form["refresh_token"]; len(v) == 1 {
		return v[0], nil
	}
	return "", nil
}
