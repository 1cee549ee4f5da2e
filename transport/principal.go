package transport

import (
	"context"
	"net/http"
	"strings"

	"github.com/bwcms/cms/cms"
)

// bearerToken returns the access token of a request: the Authorization
// header with the Bearer scheme, else the Authorization-Bearer header.
// "" when neither is there.
func bearerToken(r *http.Request) string {
	if v := r.Header.Values("Authorization"); len(v) > 0 {
		scheme, token, ok := strings.Cut(v[0], " ")
		if len(v) != 1 || !ok || !strings.EqualFold(scheme, "Bearer") {
			return "-" // present but not a bearer token: refused as invalid
		}
		return strings.TrimSpace(token)
	}
	if v := r.Header.Values("Authorization-Bearer"); len(v) > 0 {
		if len(v) != 1 {
			return "-"
		}
		return strings.TrimSpace(v[0])
	}
	return ""
}

// errNoToken is the 401 of a request without a token, new each time.
func errNoToken() error { return &cms.Error{Code: cms.CodeUnauthorized, Message: "Unauthorized"} }

// authenticate verifies the access token of r and checks that its user
// may still act. Every refusal is CodeUnauthorized.
func (h *Handler) authenticate(r *http.Request) (*Claims, cms.Principal, error) {
	raw := bearerToken(r)
	if raw == "" {
		return nil, cms.Principal{}, errNoToken()
	}
	return h.verifyToken(r.Context(), raw)
}

// verifyToken checks raw's signature and expiry and that its user may
// still act. Every refusal is CodeUnauthorized.
func (h *Handler) verifyToken(ctx context.Context, raw string) (*Claims, cms.Principal, error) {
	claims, err := h.tokens.parse(raw)
	if err != nil {
		return nil, cms.Principal{}, &cms.Error{Code: cms.CodeUnauthorized, Message: "Unauthorized", Err: err}
	}
	p, err := claims.principal()
	if err != nil {
		return nil, cms.Principal{}, &cms.Error{Code: cms.CodeUnauthorized, Message: "Unauthorized", Err: err}
	}
	if err := h.svc.CheckPrincipal(ctx, p); err != nil {
		return nil, cms.Principal{}, err
	}
	return claims, p, nil
}

// authorize is the one permission check of every endpoint that needs one
// (the permissions table tells which): 401 without a valid token, 403
// without the permission to do action on target, decided before the body
// or the ids are looked at. On success the context carries the
// principal, with its account's languages of now.
func (h *Handler) authorize(r *http.Request, target cms.Target, action cms.Action) (context.Context, error) {
	return h.authorizeIf(r, func(p cms.Principal) bool { return p.Can(target, action) })
}

// authorizeIf is authorize for a route whose permission is not one
// target's (the changes feed: read on any kind): allowed decides.
func (h *Handler) authorizeIf(r *http.Request, allowed func(cms.Principal) bool) (context.Context, error) {
	_, p, err := h.authenticate(r)
	if err != nil {
		return nil, err
	}
	if !allowed(p) {
		return nil, &cms.Error{Code: cms.CodeForbidden, Message: "Forbidden"}
	}
	// The account's languages of now decode, encode and validate, not
	// the token's.
	if p, err = h.svc.AccountLanguages(r.Context(), p); err != nil {
		return nil, err
	}
	return cms.WithPrincipal(r.Context(), p), nil
}
