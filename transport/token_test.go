package transport

import (
	"crypto/ed25519"
	"encoding/base64"
	"net/http/httptest"

	"github.com/bwcms/cms/cms"
	"net/http"
	"strings"
	"testing"
	"time"

	"github.com/golang-jwt/jwt/v5"
)

// craft signs claims with method and key, with the test handler's claims as
// the base; edit changes them first.
func craft(t *testing.T, e *env, method jwt.SigningMethod, key any, edit func(c jwt.MapClaims)) string {
	t.Helper()
	now := e.clock.Now().Unix()
	c := jwt.MapClaims{"iss": "bw", "sub": "admin", "aud": "api/bw/v2", "exp": now + 900, "iat": now,
		"jti": "AAAAAAAAAAAAAAAAAAAAAA", "type": "access", "perms": []string{"*"}, "lang": "en",
		"langs": []string{"en", "it", "de"}, "acc": "acme"}
	if edit != nil {
		edit(c)
	}
	s, err := jwt.NewWithClaims(method, c).SignedString(key)
	if err != nil {
		t.Fatal(err)
	}
	return s
}

func TestAccessTokenRefusals(t *testing.T) {
	t.Parallel()
	_, otherEd, _ := ed25519.GenerateKey(nil)
	hs := jwt.SigningMethodHS256
	cases := []struct {
		name  string
		token func(t *testing.T, e *env) string
	}{
		{"alg none", func(t *testing.T, e *env) string {
			return craft(t, e, jwt.SigningMethodNone, jwt.UnsafeAllowNoneSignatureType, nil)
		}},
		{"HS384 with the right secret", func(t *testing.T, e *env) string {
			return craft(t, e, jwt.SigningMethodHS384, testSecret, nil)
		}},
		{"HS512 with the right secret", func(t *testing.T, e *env) string {
			return craft(t, e, jwt.SigningMethodHS512, testSecret, nil)
		}},
		{"EdDSA", func(t *testing.T, e *env) string { return craft(t, e, jwt.SigningMethodEdDSA, otherEd, nil) }},
		{"another secret", func(t *testing.T, e *env) string {
			return craft(t, e, hs, []byte("another secret of thirty-two bytes!!"), nil)
		}},
		{"wrong aud", func(t *testing.T, e *env) string {
			return craft(t, e, hs, testSecret, func(c jwt.MapClaims) { c["aud"] = "api/bw/v1" })
		}},
		{"aud as an array", func(t *testing.T, e *env) string {
			return craft(t, e, hs, testSecret, func(c jwt.MapClaims) { c["aud"] = []string{"api/bw/v2"} })
		}},
		{"no aud", func(t *testing.T, e *env) string {
			return craft(t, e, hs, testSecret, func(c jwt.MapClaims) { delete(c, "aud") })
		}},
		{"wrong iss", func(t *testing.T, e *env) string {
			return craft(t, e, hs, testSecret, func(c jwt.MapClaims) { c["iss"] = "someone" })
		}},
		{"no iss", func(t *testing.T, e *env) string {
			return craft(t, e, hs, testSecret, func(c jwt.MapClaims) { delete(c, "iss") })
		}},
		{"type refresh", func(t *testing.T, e *env) string {
			return craft(t, e, hs, testSecret, func(c jwt.MapClaims) { c["type"] = "refresh" })
		}},
		{"no type", func(t *testing.T, e *env) string {
			return craft(t, e, hs, testSecret, func(c jwt.MapClaims) { delete(c, "type") })
		}},
		{"no exp", func(t *testing.T, e *env) string {
			return craft(t, e, hs, testSecret, func(c jwt.MapClaims) { delete(c, "exp") })
		}},
		{"expired", func(t *testing.T, e *env) string {
			return craft(t, e, hs, testSecret, func(c jwt.MapClaims) { c["exp"] = e.clock.Now().Unix() - 1 })
		}},
		{"not valid before a minute from now", func(t *testing.T, e *env) string {
			return craft(t, e, hs, testSecret, func(c jwt.MapClaims) { c["nbf"] = e.clock.Now().Unix() + 60 })
		}},
		{"issued in the future", func(t *testing.T, e *env) string {
			return craft(t, e, hs, testSecret, func(c jwt.MapClaims) { c["iat"] = e.clock.Now().Unix() + 60 })
		}},
		{"no iat", func(t *testing.T, e *env) string {
			return craft(t, e, hs, testSecret, func(c jwt.MapClaims) { delete(c, "iat") })
		}},
		{"iat zero", func(t *testing.T, e *env) string {
			return craft(t, e, hs, testSecret, func(c jwt.MapClaims) { c["iat"] = 0 })
		}},
		{"no acc", func(t *testing.T, e *env) string {
			return craft(t, e, hs, testSecret, func(c jwt.MapClaims) { delete(c, "acc") })
		}},
		{"unconfigured language list", func(t *testing.T, e *env) string {
			return craft(t, e, hs, testSecret, func(c jwt.MapClaims) { c["lang"] = "english" })
		}},
		{"user of another account", func(t *testing.T, e *env) string {
			return craft(t, e, hs, testSecret, func(c jwt.MapClaims) { c["acc"] = "other" })
		}},
		{"user that does not exist", func(t *testing.T, e *env) string {
			return craft(t, e, hs, testSecret, func(c jwt.MapClaims) { c["sub"] = "ghost" })
		}},
		{"disabled user", func(t *testing.T, e *env) string {
			return craft(t, e, hs, testSecret, func(c jwt.MapClaims) { c["sub"] = "off" })
		}},
		{"expired login token", func(t *testing.T, e *env) string {
			tok := e.login("admin").AccessToken
			e.clock.Advance(AccessTokenLifetime)
			return tok
		}},
		{"tampered payload", func(t *testing.T, e *env) string {
			parts := strings.Split(e.login("reader").AccessToken, ".")
			payload, _ := base64.RawURLEncoding.DecodeString(parts[1])
			payload = []byte(strings.Replace(string(payload), `"resource:read"`, `"*"`, 1))
			parts[1] = base64.RawURLEncoding.EncodeToString(payload)
			return strings.Join(parts, ".")
		}},
		{"signature re-encoded with padding", func(t *testing.T, e *env) string {
			return e.login("admin").AccessToken + "="
		}},
		{"signature re-encoded with other trailing bits", func(t *testing.T, e *env) string {
			tok := e.login("admin").AccessToken
			// 32 bytes in 43 characters leave 2 spare bits in the last one:
			// flipping them keeps the bytes but not the encoding.
			last := strings.IndexByte("ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-_", tok[len(tok)-1])
			return tok[:len(tok)-1] + string("ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-_"[last^1])
		}},
		{"standard base64 instead of base64url", func(t *testing.T, e *env) string {
			for range 100 { // until a token has a character the two alphabets spell apart
				tok := e.login("admin").AccessToken
				if std := strings.NewReplacer("-", "+", "_", "/").Replace(tok); std != tok {
					return std
				}
			}
			t.Fatal("no token with - or _ in 100 logins")
			return ""
		}},
		{"refresh token as access token", func(t *testing.T, e *env) string { return e.login("admin").RefreshToken }},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			t.Parallel()
			e := newEnv(t, envOptions{})
			tok := c.token(t, e)
			w := e.validateWith(tok)
			if w.Code != http.StatusUnauthorized || strings.TrimSpace(w.Body.String()) != unauthorized {
				t.Fatalf("validate: %d %s", w.Code, w.Body)
			}
			if got := w.Header().Get("WWW-Authenticate"); got != invalidChallenge {
				t.Errorf("WWW-Authenticate = %q", got)
			}
		})
	}
	// The crafting itself is right: unchanged claims with the right key pass.
	t.Run("control", func(t *testing.T) {
		e := newEnv(t, envOptions{})
		if w := e.validateWith(craft(t, e, hs, testSecret, nil)); w.Code != 200 {
			t.Fatalf("control token refused: %d %s", w.Code, w.Body)
		}
	})
}

func TestAccessTokenLifetime(t *testing.T) {
	t.Parallel()
	e := newEnv(t, envOptions{})
	tok := e.login("admin").AccessToken
	e.clock.Advance(AccessTokenLifetime - time.Second)
	if w := e.validateWith(tok); w.Code != 200 {
		t.Fatalf("at 899 s: %d", w.Code)
	}
	e.clock.Advance(time.Second)
	if w := e.validateWith(tok); w.Code != 401 {
		t.Fatalf("at 900 s: %d", w.Code)
	}
}

// TestDisabledUserOnAnotherInstance: a user disabled through one instance
// loses access at once there, and on another instance of the same
// database within UserRecheck (2 s by default).
func TestDisabledUserOnAnotherInstance(t *testing.T) {
	t.Parallel()
	e := newEnv(t, envOptions{})
	svc2, err := cms.NewService(e.store, &cms.Options{Now: e.clock.Now, Passwords: cheapPasswords})
	if err != nil {
		t.Fatal(err)
	}
	h2, err := NewHandler(svc2, &Options{JWTSecret: testSecret})
	if err != nil {
		t.Fatal(err)
	}
	tok := e.login("writer").AccessToken
	validate := func(h http.Handler) int {
		r := httptest.NewRequest(http.MethodGet, "/api/bw/v2/auth", nil)
		r.Header.Set("Authorization", "Bearer "+tok)
		w := httptest.NewRecorder()
		h.ServeHTTP(w, r)
		return w.Code
	}
	if a, b := validate(e.h), validate(h2); a != 200 || b != 200 {
		t.Fatalf("before: %d %d", a, b)
	}
	if err := e.svc.SetDisabled(t.Context(), "writer", true); err != nil {
		t.Fatal(err)
	}
	if got := validate(e.h); got != 401 {
		t.Errorf("same instance right after disable: %d", got)
	}
	e.clock.Advance(2 * time.Second)
	if got := validate(h2); got != 401 {
		t.Errorf("other instance 2 s after disable: %d", got)
	}
	if err := e.svc.SetDisabled(t.Context(), "writer", false); err != nil {
		t.Fatal(err)
	}
	e.clock.Advance(2 * time.Second)
	if a, b := validate(e.h), validate(h2); a != 200 || b != 200 {
		t.Errorf("enabled again: %d %d", a, b)
	}
}

// TestAccessTokenClockSkew: a token from an instance whose clock is ahead
// (iat in this instance's future) works at once, up to 5 s ahead; expiry
// stays exact. Checked twice for each token: the verified-token cache
// answers the second time.
func TestAccessTokenClockSkew(t *testing.T) {
	t.Parallel()
	hs := jwt.SigningMethodHS256
	e := newEnv(t, envOptions{})
	// 0.8 s into a second: an instance 300 ms ahead is in the next one.
	e.clock.Advance(800 * time.Millisecond)
	now := e.clock.Now().Unix()
	cases := []struct {
		name     string
		iat, exp int64
		want     int
	}{
		{"iat 300 ms ahead (next second)", now + 1, now + 1 + 900, 200},
		{"iat 5 s ahead", now + 5, now + 5 + 900, 200},
		{"iat 6 s ahead", now + 6, now + 6 + 900, 401},
		{"iat 60 s ahead", now + 60, now + 60 + 900, 401},
		{"exp this second (already past by 0.8 s)", now, now, 401},
		{"exp next second", now, now + 1, 200},
		{"exp a second ago, iat ahead", now + 1, now - 1, 401},
	}
	for _, c := range cases {
		tok := craft(t, e, hs, testSecret, func(m jwt.MapClaims) {
			m["iat"], m["exp"] = c.iat, c.exp
			m["jti"] = base64.RawURLEncoding.EncodeToString([]byte(c.name + "................"))[:22]
		})
		for _, try := range []string{"first", "cached"} {
			if w := e.validateWith(tok); w.Code != c.want {
				t.Errorf("%s (%s): %d %s, want %d", c.name, try, w.Code, w.Body, c.want)
			}
		}
	}
	// A skewed token that was accepted expires exactly at its exp.
	tok := craft(t, e, hs, testSecret, func(m jwt.MapClaims) { m["iat"], m["exp"] = now+1, now+2 })
	if w := e.validateWith(tok); w.Code != 200 {
		t.Fatalf("skewed token: %d %s", w.Code, w.Body)
	}
	e.clock.Advance(1200 * time.Millisecond) // now+2.0: exp reached
	if w := e.validateWith(tok); w.Code != 401 {
		t.Errorf("skewed token at its exp: %d, want 401", w.Code)
	}
}
