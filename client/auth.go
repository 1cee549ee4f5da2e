package client

import (
	"context"
	"encoding/base64"
	"encoding/json"
	"fmt"
	"net/http"
	"net/url"
	"strings"
	"time"

	"github.com/bwcms/cms/cms"
)

// Claims are the claims of an access token, as the API writes them.
type Claims struct {
	Issuer    string   `json:"iss"`
	Subject   string   `json:"sub"` // the user
	Audience  string   `json:"aud"`
	Expires   int64    `json:"exp"` // Unix seconds
	IssuedAt  int64    `json:"iat"`
	NotBefore int64    `json:"nbf,omitempty"`
	ID        string   `json:"jti"`
	Type      string   `json:"type"`
	Perms     []string `json:"perms"`
	Lang      string   `json:"lang"`  // the account's default language
	Langs     []string `json:"langs"` // every language of the account
	Account   string   `json:"acc"`
}

// Languages is the language configuration the claims name: the wire form
// of records for this session.
func (c Claims) Languages() (cms.Languages, error) {
	return cms.NewLanguages(c.Lang, c.Langs...)
}

// ExpiresAt is the instant the access token expires, by the server's
// clock.
func (c Claims) ExpiresAt() time.Time { return time.Unix(c.Expires, 0) }

// Tokens are a session's tokens, to keep a session across processes
// (Tokens, SetTokens). The refresh token is a secret: keep it like a
// password.
type Tokens struct {
	Access  string
	Refresh string
}

// Login logs in with a username and password (POST /auth) and keeps the
// tokens. A wrong username or password is an *Error 401; too many
// failures an *Error 429 with RetryAfter.
func (c *Client) Login(ctx context.Context, username, password string) error {
	return c.use(c.postTokens(ctx, "auth", url.Values{"u": {username}, "p": {password}}))
}

// Validate asks the server to verify the access token (GET /auth) and
// returns its claims; like every call, it refreshes once when the token
// is refused.
func (c *Client) Validate(ctx context.Context) (Claims, error) {
	var body struct {
		JWT Claims `json:"jwt"`
	}
	if err := c.call(ctx, &request{method: http.MethodGet, path: "auth"}, http.StatusOK, &body); err != nil {
		return Claims{}, err
	}
	return body.JWT, nil
}

// Refresh exchanges the refresh token for a new pair now (POST
// /auth/refresh), as calls do by themselves when the access token is
// refused; concurrent refreshes share one request. A refusal ends the
// session: the error matches ErrLoginRequired.
func (c *Client) Refresh(ctx context.Context) error {
	c.mu.Lock()
	gen := c.gen
	c.mu.Unlock()
	return c.refresh(ctx, gen)
}

// Logout revokes the session's refresh tokens on the server (POST
// /auth/logout) and forgets the tokens, even when the request fails.
func (c *Client) Logout(ctx context.Context) error {
	c.mu.Lock()
	token := c.sess.refresh
	c.setLocked(session{})
	c.mu.Unlock()
	if token == "" {
		return nil
	}
	res, err := c.send(ctx, &request{method: http.MethodPost, path: "auth/logout",
		body: []byte(url.Values{"refresh_token": {token}}.Encode()), contentType: "application/x-www-form-urlencoded"}, "")
	if err != nil {
		return err
	}
	if res.StatusCode != http.StatusOK {
		return failure(res)
	}
	drain(res)
	return nil
}

// Claims returns the claims of the current access token, read from the
// token without verifying it (Validate asks the server); false when there
// is no session.
func (c *Client) Claims() (Claims, bool) {
	s, _, err := c.current()
	if err != nil {
		return Claims{}, false
	}
	return s.claims, true
}

// Tokens returns the current tokens (zero without a session).
func (c *Client) Tokens() Tokens {
	c.mu.Lock()
	defer c.mu.Unlock()
	return Tokens{Access: c.sess.access, Refresh: c.sess.refresh}
}

// SetTokens replaces the session by one kept earlier (Tokens). The access
// token may have expired: the first call refreshes it.
func (c *Client) SetTokens(t Tokens) error {
	return c.use(c.newSession(t.Access, t.Refresh))
}

// use makes s the session, unless err.
func (c *Client) use(s session, err error) error {
	if err != nil {
		return err
	}
	c.mu.Lock()
	defer c.mu.Unlock()
	c.setLocked(s)
	return nil
}

// postTokens posts form to a path that answers a token pair (login,
// refresh) and returns the session of it.
func (c *Client) postTokens(ctx context.Context, path string, form url.Values) (session, error) {
	res, err := c.send(ctx, &request{method: http.MethodPost, path: path, body: []byte(form.Encode()),
		contentType: "application/x-www-form-urlencoded"}, "")
	if err != nil {
		return session{}, err
	}
	var body struct {
		AccessToken  string `json:"access_token"`
		RefreshToken string `json:"refresh_token"`
	}
	if err := readJSON(res, http.StatusOK, &body); err != nil {
		return session{}, err
	}
	s, err := c.newSession(body.AccessToken, body.RefreshToken)
	if err == nil && s.claims.IssuedAt > 0 && s.claims.Expires > s.claims.IssuedAt {
		s.expires = time.Now().Add(time.Duration(s.claims.Expires-s.claims.IssuedAt) * time.Second)
	}
	return s, err
}

// newSession reads the claims of an access token (its payload, not
// verified: the server verifies) and takes the codec of its languages.
func (c *Client) newSession(access, refresh string) (session, error) {
	parts := strings.Split(access, ".")
	if len(parts) != 3 {
		return session{}, fmt.Errorf("client: the access token is not a JWT")
	}
	payload, err := base64.RawURLEncoding.DecodeString(parts[1])
	if err != nil {
		return session{}, fmt.Errorf("client: the access token's payload: %w", err)
	}
	var claims Claims
	if err := json.Unmarshal(payload, &claims); err != nil {
		return session{}, fmt.Errorf("client: the access token's claims: %w", err)
	}
	langs, err := claims.Languages()
	if err != nil {
		return session{}, fmt.Errorf("client: the access token's languages: %w", err)
	}
	c.mu.Lock()
	codec := c.codecs[langs.String()]
	c.mu.Unlock()
	if codec == nil {
		if codec, err = cms.NewCodec(langs); err != nil {
			return session{}, fmt.Errorf("client: %w", err)
		}
		c.mu.Lock()
		c.codecs[langs.String()] = codec
		c.mu.Unlock()
	}
	return session{access: access, refresh: refresh, claims: claims, codec: codec, expires: claims.ExpiresAt()}, nil
}
