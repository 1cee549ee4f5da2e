package transport

import (
	"context"
	"net/http"
	"net/netip"

	"github.com/bwcms/cms/cms"
)

// The methods below let another handler on the same service, the admin,
// sign its users in with this API's own tokens: one signer, one clock and
// one judgement of the client's address for both.

// SignAccess issues an access token for p, as a login or a refresh of the
// API does.
func (h *Handler) SignAccess(p cms.Principal) (string, error) {
	return h.tokens.sign(p)
}

// Authenticate verifies an access token as the API verifies a bearer
// token: signature, expiry, and that its user may still act. Every
// refusal is CodeUnauthorized, or the store's error when it cannot tell.
func (h *Handler) Authenticate(ctx context.Context, raw string) (cms.Principal, error) {
	_, p, err := h.verifyToken(ctx, raw)
	return p, err
}

// ClientAddr is the address of the client of r as the API judges it: the
// peer, or what trusted proxies forwarded. Login throttling counts by it.
func (h *Handler) ClientAddr(r *http.Request) netip.Addr {
	return h.proxies.clientAddr(r)
}
