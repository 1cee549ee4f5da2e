package transport

import (
	"crypto/ed25519"
	"encoding/base64"
	"errors"
	"fmt"
	"io"
	"sync"
	"time"

	"github.com/bwcms/cms/cms"
	"github.com/golang-jwt/jwt/v5"
)

// Audience is the aud claim of every access token: the plain string.
const Audience = "api/bw/v2"

// AccessTokenLifetime is the lifetime of access tokens (the contract's
// expires_in).
const AccessTokenLifetime = 900 * time.Second

// MinSecretLength is the shortest HS256 secret accepted.
const MinSecretLength = 32

const accessType = "access"

// Claims are the claims of an access token, in the order they are written
// (docs/auth.md, Access tokens): sub is the username, perms its
// permissions, lang and langs the account's default and all languages,
// acc the account id.
type Claims struct {
	Iss   string   `json:"iss"`
	Sub   string   `json:"sub"`
	Aud   string   `json:"aud"`
	Exp   int64    `json:"exp"`
	Iat   int64    `json:"iat"`
	Nbf   int64    `json:"nbf,omitempty"`
	Jti   string   `json:"jti"`
	Type  string   `json:"type"`
	Perms []string `json:"perms"`
	Lang  string   `json:"lang"`
	Langs []string `json:"langs"`
	Acc   string   `json:"acc"`
}

func numericDate(sec int64) *jwt.NumericDate {
	if sec == 0 {
		return nil
	}
	return jwt.NewNumericDate(time.Unix(sec, 0))
}

// The jwt.Claims methods, which jwt's parser calls; none fails.

// GetExpirationTime returns exp, nil when 0.
func (c *Claims) GetExpirationTime() (*jwt.NumericDate, error) { return numericDate(c.Exp), nil }

// GetIssuedAt returns iat, nil when 0.
func (c *Claims) GetIssuedAt() (*jwt.NumericDate, error) { return numericDate(c.Iat), nil }

// GetNotBefore returns nbf, nil when 0 (absent).
func (c *Claims) GetNotBefore() (*jwt.NumericDate, error) { return numericDate(c.Nbf), nil }

// GetIssuer returns iss.
func (c *Claims) GetIssuer() (string, error) { return c.Iss, nil }

// GetSubject returns sub, the username.
func (c *Claims) GetSubject() (string, error) { return c.Sub, nil }

// GetAudience returns the single audience, aud.
func (c *Claims) GetAudience() (jwt.ClaimStrings, error) { return jwt.ClaimStrings{c.Aud}, nil }

// Validate refuses anything but an access token; jwt calls it after the
// registered claims.
func (c *Claims) Validate() error {
	if c.Type != accessType {
		return errors.New("not an access token")
	}
	if c.Sub == "" || c.Acc == "" || c.Jti == "" {
		return errors.New("sub, acc and jti are required")
	}
	// jwt checks iat only when present; ours always carry it, so a token
	// without one was not made here.
	if c.Iat <= 0 {
		return errors.New("iat is required")
	}
	return nil
}

// principal is the caller the claims name.
func (c *Claims) principal() (cms.Principal, error) {
	langs, err := cms.NewLanguages(c.Lang, c.Langs...)
	if err != nil {
		return cms.Principal{}, err
	}
	perms := c.Perms
	if perms == nil {
		perms = []string{}
	}
	return cms.Principal{Account: c.Acc, User: c.Sub, Perms: perms, Langs: langs, Issued: time.Unix(c.Iat, 0)}, nil
}

// tokens signs and verifies access tokens with one pinned algorithm.
type tokens struct {
	method    jwt.SigningMethod
	signKey   any
	keyID     string
	public    ed25519.PublicKey // EdDSA only
	verifyKey any
	issuer    string
	now       func() time.Time
	rand      io.Reader
	parser    *jwt.Parser
	// seen remembers tokens already verified, until they expire: a client
	// sends the same token for up to 15 minutes, and checking a signature
	// and decoding claims costs more than the rest of a small request.
	seen verifiedCache
}

// verifiedCache maps a token to its verified claims. It only ever holds
// tokens that passed every check; a hit still checks expiry.
type verifiedCache struct {
	mu sync.Mutex
	m  map[string]*Claims
}

// maxVerified bounds the cache; past it, it starts over.
const maxVerified = 10000

func (c *verifiedCache) get(raw string) *Claims {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.m[raw]
}

func (c *verifiedCache) put(raw string, claims *Claims) {
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.m == nil || len(c.m) >= maxVerified {
		c.m = make(map[string]*Claims, 64)
	}
	c.m[raw] = claims
}

func newTokens(o Options, now func() time.Time) (*tokens, error) {
	t := &tokens{issuer: o.Issuer, now: now, rand: o.Rand}
	switch {
	case o.EdDSAKey != nil:
		if len(o.EdDSAKey) != ed25519.PrivateKeySize {
			return nil, errors.New("transport: EdDSAKey is not an Ed25519 private key")
		}
		if o.KeyID == "" {
			return nil, errors.New("transport: EdDSAKey needs a KeyID")
		}
		t.method, t.signKey, t.keyID = jwt.SigningMethodEdDSA, o.EdDSAKey, o.KeyID
		t.public = o.EdDSAKey.Public().(ed25519.PublicKey)
		t.verifyKey = t.public
	default:
		if len(o.JWTSecret) < MinSecretLength {
			return nil, fmt.Errorf("transport: JWTSecret must be at least %d bytes (it has %d)", MinSecretLength, len(o.JWTSecret))
		}
		t.method, t.signKey, t.verifyKey = jwt.SigningMethodHS256, o.JWTSecret, o.JWTSecret
	}
	t.parser = jwt.NewParser(
		jwt.WithValidMethods([]string{t.method.Alg()}),
		jwt.WithIssuer(t.issuer),
		jwt.WithAudience(Audience),
		jwt.WithExpirationRequired(),
		// Not jwt.WithIssuedAt, nor a leeway, which would loosen exp too:
		// iat is checked by issuedInTime.
		jwt.WithStrictDecoding(),
		jwt.WithTimeFunc(now),
	)
	return t, nil
}

// sign issues an access token for p.
func (t *tokens) sign(p cms.Principal) (string, error) {
	jti := make([]byte, 16) // 128 bits
	if _, err := io.ReadFull(t.rand, jti); err != nil {
		return "", fmt.Errorf("transport: token id: %w", err)
	}
	now := t.now()
	c := &Claims{Iss: t.issuer, Sub: p.User, Aud: Audience, Exp: now.Add(AccessTokenLifetime).Unix(), Iat: now.Unix(),
		Jti: base64.RawURLEncoding.EncodeToString(jti), Type: accessType, Perms: p.Perms,
		Lang: p.Langs.Default, Langs: p.Langs.All, Acc: p.Account}
	tok := jwt.NewWithClaims(t.method, c)
	if t.keyID != "" {
		tok.Header["kid"] = t.keyID
	}
	return tok.SignedString(t.signKey)
}

// parse verifies an access token and returns its claims, which the caller
// must not change.
func (t *tokens) parse(raw string) (*Claims, error) {
	if c := t.seen.get(raw); c != nil {
		now := t.now()
		if now.Unix() < c.Exp && now.Unix() >= c.Nbf && issuedInTime(c, now) {
			return c, nil
		}
		return nil, errors.New("token expired")
	}
	c, err := t.verify(raw)
	if err != nil {
		return nil, err
	}
	t.seen.put(raw, c)
	return c, nil
}

func (t *tokens) verify(raw string) (*Claims, error) {
	c := new(Claims)
	_, err := t.parser.ParseWithClaims(raw, c, func(tok *jwt.Token) (any, error) {
		if t.keyID != "" && tok.Header["kid"] != t.keyID {
			return nil, errors.New("unknown kid")
		}
		return t.verifyKey, nil
	})
	if err != nil {
		return nil, err
	}
	if !issuedInTime(c, t.now()) {
		return nil, errors.New("token used before issued")
	}
	return c, nil
}

// IssuedAtSkew is how far in the future an access token's iat may be:
// another instance's clock may be that much ahead. exp has no such
// allowance.
const IssuedAtSkew = 5 * time.Second

// issuedInTime reports whether c's iat is at most IssuedAtSkew after now.
func issuedInTime(c *Claims, now time.Time) bool {
	return !time.Unix(c.Iat, 0).After(now.Add(IssuedAtSkew))
}

// jwks is the JSON Web Key Set of the EdDSA public key (RFC 8037).
func (t *tokens) jwks() any {
	return jwksBody{[]jwk{{Kty: "OKP", Crv: "Ed25519", Alg: "EdDSA", Use: "sig", Kid: t.keyID,
		X: base64.RawURLEncoding.EncodeToString(t.public)}}}
}
