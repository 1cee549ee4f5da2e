package transport

import (
	"bytes"
	"encoding/json"
	"fmt"
	"io"
	"math"
	"mime"
	"net/http"
	"slices"
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

// login is POST /api/bw/v2/auth: fields u and p, of a form or a JSON
// object.
func (h *Handler) login(w http.ResponseWriter, r *http.Request) {
	w.Header().Set("Cache-Control", "no-store")
	if !h.sameSite(w, r) {
		return
	}
	fields, err := authFields(w, r, "u", "p")
	if err != nil {
		h.writeError(w, r, err)
		return
	}
	u, p := fields["u"], fields["p"]
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
// of the body's field refresh_token (a form or a JSON object).
func (h *Handler) refresh(w http.ResponseWriter, r *http.Request) {
	w.Header().Set("Cache-Control", "no-store")
	if !h.sameSite(w, r) {
		return
	}
	token, err := refreshToken(w, r)
	if cms.ErrorCode(err) == cms.CodeUnauthorized {
		// A body not understood presents no token: the answer of any other
		// refresh without one.
		h.logNotUnderstood(r, err)
		token, err = "", nil
	}
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
		h.logNotUnderstood(r, err)
		token, err = "", nil // a body not understood presents no token; logout still succeeds
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

// logNotUnderstood logs, at debug level, why an auth body that is
// answered as if it held no token was not understood.
func (h *Handler) logNotUnderstood(r *http.Request, err error) {
	h.log.DebugContext(r.Context(), "transport: auth body not understood", "method", r.Method,
		"path", r.URL.EscapedPath(), "err", err)
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

// authFields reads the fields of a login, refresh or logout body of at
// most MaxAuthBody: an urlencoded or multipart form, or, with
// Content-Type application/json (never guessed from the body), a JSON
// object of which the wanted fields must be strings. The query string is
// not read, so secrets never ride in URLs. No body is no fields. A body
// that is not understood is CodeUnauthorized with the reason, which never
// quotes the body (it may hold a password).
func authFields(w http.ResponseWriter, r *http.Request, wanted ...string) (map[string][]string, error) {
	if err := limitBody(w, r, MaxAuthBody); err != nil {
		return nil, err
	}
	ct, _, _ := mime.ParseMediaType(r.Header.Get("Content-Type"))
	switch ct {
	case "application/x-www-form-urlencoded":
		if err := r.ParseForm(); err != nil {
			return nil, bodyError(err, "malformed urlencoded form")
		}
		return r.PostForm, nil
	case "multipart/form-data":
		if err := r.ParseMultipartForm(MaxAuthBody); err != nil {
			return nil, bodyError(err, "malformed multipart form")
		}
		return r.MultipartForm.Value, nil
	}
	body, err := io.ReadAll(r.Body)
	if err != nil {
		return nil, bodyError(err, "body cut short")
	}
	if len(bytes.TrimSpace(body)) == 0 {
		return map[string][]string{}, nil
	}
	if ct == "application/json" {
		return jsonFields(body, wanted)
	}
	return nil, notUnderstood(fmt.Sprintf("a body of Content-Type %.80q, neither a form nor application/json", r.Header.Get("Content-Type")))
}

// jsonFields reads the wanted fields of a JSON object; other fields may
// hold anything. A wanted field given twice is kept twice, as a form
// field would be, so that the caller refuses it alike.
func jsonFields(body []byte, wanted []string) (map[string][]string, error) {
	dec := json.NewDecoder(bytes.NewReader(body))
	malformed := func() error {
		return notUnderstood(fmt.Sprintf("malformed JSON body (near byte %d of %d)", dec.InputOffset(), len(body)))
	}
	if tok, err := dec.Token(); err != nil {
		return nil, malformed()
	} else if tok != json.Delim('{') {
		return nil, notUnderstood("a JSON body that is not an object")
	}
	fields := map[string][]string{}
	for dec.More() {
		tok, err := dec.Token()
		if err != nil {
			return nil, malformed()
		}
		key, _ := tok.(string)
		var value json.RawMessage
		if err := dec.Decode(&value); err != nil {
			return nil, malformed()
		}
		if !slices.Contains(wanted, key) {
			continue
		}
		var s string
		if value[0] != '"' || json.Unmarshal(value, &s) != nil {
			return nil, notUnderstood(fmt.Sprintf("JSON field %q is not a string", key))
		}
		fields[key] = append(fields[key], s)
	}
	if _, err := dec.Token(); err != nil { // the closing brace
		return nil, malformed()
	}
	if _, err := dec.Token(); err != io.EOF {
		return nil, notUnderstood("data after the JSON object")
	}
	return fields, nil
}

// notUnderstood is an auth body that holds no credentials the server can
// read: to the client, the same 401 as a wrong password.
func notUnderstood(reason string) error {
	return &cms.Error{Code: cms.CodeUnauthorized, Message: "auth body not understood: " + reason}
}

// bodyError classifies a failure to read an auth body: over the limit is
// 413, too slow 408; anything else is not understood, for reason (the
// parser's own error may quote the body, so it is not kept).
func bodyError(err error, reason string) error {
	if f := readFailure(err); f != nil {
		return f
	}
	return notUnderstood(reason)
}

// refreshToken returns the presented refresh token: the cookie wins over
// the body's field refresh_token. "" when there is none.
func refreshToken(w http.ResponseWriter, r *http.Request) (string, error) {
	if c, err := r.Cookie(RefreshCookie); err == nil && c.Value != "" {
		// The body is not needed, but its limit holds all the same.
		if err := limitBody(w, r, MaxAuthBody); err != nil {
			return "", err
		}
		if _, err := io.Copy(io.Discard, r.Body); err != nil {
			return "", bodyError(err, "body cut short")
		}
		return c.Value, nil
	}
	fields, err := authFields(w, r, "refresh_token")
	if err != nil {
		return "", err
	}
	if v := fields["refresh_token"]; len(v) == 1 {
		return v[0], nil
	}
	return "", nil
}
