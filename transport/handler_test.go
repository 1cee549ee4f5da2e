package transport

import (
	"context"
	"crypto/ed25519"
	"encoding/base64"
	"encoding/json"
	"net/http"
	"net/http/httptest"
	"net/netip"
	"strings"
	"testing"

	"github.com/bwcms/cms/cms"
	"github.com/golang-jwt/jwt/v5"
	"github.com/gorilla/mux"
)

// TestEveryCodeHasARow fails when a library error code has no HTTP form.
func TestEveryCodeHasARow(t *testing.T) {
	t.Parallel()
	seen := map[int]cms.Code{}
	for _, code := range cms.Codes() {
		f, ok := failureOf(code)
		if !ok {
			t.Errorf("code %q has no row in failureOf", code)
			continue
		}
		if prev, dup := seen[f.status]; dup && f.status != http.StatusConflict {
			t.Errorf("codes %q and %q share status %d", prev, code, f.status)
		}
		seen[f.status] = code
	}
	if _, ok := failureOf("no such code"); ok {
		t.Error("an unknown code has a row")
	}
}

func TestRouting(t *testing.T) {
	t.Parallel()
	scenarios := []scenario{
		{name: "unknown path under the prefix", status: 404, body: `{"fail":"Not found"}`,
			req: func(*env) *http.Request { return httptest.NewRequest(http.MethodGet, "/api/bw/v2/auth/nothing", nil) }},
		{name: "the root without a slash", status: 404, body: `{"fail":"Not found"}`,
			req: func(*env) *http.Request { return httptest.NewRequest(http.MethodGet, "/api/bw/v2", nil) }},
		{name: "jwks without EdDSA", status: 404, body: `{"fail":"Not found"}`,
			req: func(*env) *http.Request { return httptest.NewRequest(http.MethodGet, "/api/bw/v2/auth/jwks.json", nil) }},
		{name: "wrong method on auth", status: 405, body: `{"fail":"Method not allowed"}`,
			headers: map[string]string{"Allow": "GET, POST"},
			req:     func(*env) *http.Request { return httptest.NewRequest(http.MethodPut, "/api/bw/v2/auth", nil) }},
		{name: "GET on refresh", status: 405, body: `{"fail":"Method not allowed"}`,
			headers: map[string]string{"Allow": "POST"},
			req: func(*env) *http.Request {
				return httptest.NewRequest(http.MethodGet, "/api/bw/v2/auth/refresh", nil)
			}},
		{name: "routing comes before authentication", status: 405, body: `{"fail":"Method not allowed"}`,
			req: func(*env) *http.Request {
				r := httptest.NewRequest(http.MethodDelete, "/api/bw/v2/auth/logout", nil)
				r.Header.Set("Authorization", "Bearer nonsense")
				return r
			}},
	}
	for _, sc := range scenarios {
		t.Run(sc.name, func(t *testing.T) {
			t.Parallel()
			sc.run(t, newEnv(t, envOptions{}))
		})
	}
}

// TestRegister mounts the API on a host's gorilla router beside its own
// routes.
func TestRegister(t *testing.T) {
	t.Parallel()
	e := newEnv(t, envOptions{})
	r := mux.NewRouter()
	r.HandleFunc("/health", func(w http.ResponseWriter, _ *http.Request) { w.Write([]byte("ok")) })
	e.h.Register(r)
	w := httptest.NewRecorder()
	r.ServeHTTP(w, httptest.NewRequest(http.MethodGet, "/health", nil))
	if w.Body.String() != "ok" {
		t.Errorf("host route: %q", w.Body)
	}
	w = httptest.NewRecorder()
	r.ServeHTTP(w, postForm("/api/bw/v2/auth", form("u", "admin", "p", testPassword)))
	if w.Code != 200 {
		t.Errorf("login through the host router: %d %s", w.Code, w.Body)
	}
}

// panicky is a host credential check that fails badly.
type panicky struct{}

func (panicky) Authenticate(context.Context, string, string) (cms.Identity, error) {
	panic("credential backend exploded at /srv/secret/path")
}
func (panicky) Lookup(context.Context, string) (cms.Identity, error) { panic("unreachable") }

func TestPanicIsAnInternalError(t *testing.T) {
	t.Parallel()
	e := newEnv(t, envOptions{svc: func(o *cms.Options) { o.Credentials = panicky{} }})
	w := e.do(postForm("/api/bw/v2/auth", form("u", "admin", "p", testPassword)))
	if w.Code != 500 || strings.TrimSpace(w.Body.String()) != `{"fail":"Internal error"}` {
		t.Fatalf("%d %s", w.Code, w.Body)
	}
	if !strings.Contains(e.logs.String(), "credential backend exploded") {
		t.Errorf("the panic is not logged: %s", e.logs)
	}
}

// hostUsers is a host application's own user table.
type hostUsers map[string]struct {
	password string
	id       cms.Identity
}

func (h hostUsers) Authenticate(_ context.Context, name, password string) (cms.Identity, error) {
	u, ok := h[name]
	if !ok || u.password != password {
		return cms.Identity{}, &cms.Error{Code: cms.CodeUnauthorized}
	}
	return u.id, nil
}

func (h hostUsers) Lookup(_ context.Context, name string) (cms.Identity, error) {
	u, ok := h[name]
	if !ok {
		return cms.Identity{}, &cms.Error{Code: cms.CodeNotFound}
	}
	return u.id, nil
}

func TestHostCredentials(t *testing.T) {
	t.Parallel()
	users := hostUsers{"host-editor": {"s3cret-host", cms.Identity{Account: "other", Perms: []string{"*:read"}}}}
	e := newEnv(t, envOptions{svc: func(o *cms.Options) { o.Credentials = users }})
	w := e.do(postForm("/api/bw/v2/auth", form("u", "host-editor", "p", "s3cret-host")))
	a := decodeTokens(t, w)
	var got struct {
		JWT Claims `json:"jwt"`
	}
	json.Unmarshal(e.validateWith(a.AccessToken).Body.Bytes(), &got)
	if got.JWT.Acc != "other" || got.JWT.Lang != "de" || strings.Join(got.JWT.Perms, ",") != "*:read" {
		t.Errorf("claims: %+v", got.JWT)
	}
	// The store's users are not consulted.
	if w := e.do(postForm("/api/bw/v2/auth", form("u", "admin", "p", testPassword))); w.Code != 401 {
		t.Errorf("store user with host credentials: %d", w.Code)
	}
	// Refresh asks Lookup: a user the host disabled cannot refresh.
	u := users["host-editor"]
	u.id.Disabled = true
	users["host-editor"] = u
	wantInvalidGrant(t, "host-disabled user", e.refreshWith(a.RefreshToken))
}

func TestEdDSA(t *testing.T) {
	t.Parallel()
	pub, key, _ := ed25519.GenerateKey(nil)
	e := newEnv(t, envOptions{http: func(o *Options) { o.EdDSAKey, o.KeyID, o.JWTSecret = key, "k1", nil }})
	w := e.do(httptest.NewRequest(http.MethodGet, "/api/bw/v2/auth/jwks.json", nil))
	want := `{"keys":[{"kty":"OKP","crv":"Ed25519","alg":"EdDSA","use":"sig","kid":"k1","x":"` +
		base64.RawURLEncoding.EncodeToString(pub) + `"}]}`
	if w.Code != 200 || strings.TrimSpace(w.Body.String()) != want {
		t.Fatalf("jwks: %d %s", w.Code, w.Body)
	}
	tok := e.login("admin").AccessToken
	parsed, _, err := jwt.NewParser().ParseUnverified(tok, jwt.MapClaims{})
	if err != nil || parsed.Header["alg"] != "EdDSA" || parsed.Header["kid"] != "k1" {
		t.Fatalf("header: %v %v", parsed.Header, err)
	}
	if w := e.validateWith(tok); w.Code != 200 {
		t.Errorf("EdDSA token: %d", w.Code)
	}
	// An HS256 token is refused, whatever its secret.
	if w := e.validateWith(craft(t, e, jwt.SigningMethodHS256, testSecret, nil)); w.Code != 401 {
		t.Errorf("HS256 token on an EdDSA handler: %d", w.Code)
	}
	// So is an EdDSA token with another kid.
	other := jwt.NewWithClaims(jwt.SigningMethodEdDSA, jwt.MapClaims{})
	other.Header["kid"] = "k2"
	if s, _ := other.SignedString(key); e.validateWith(s).Code != 401 {
		t.Error("token with an unknown kid accepted")
	}
}

func TestNewHandlerRefusals(t *testing.T) {
	t.Parallel()
	e := newEnv(t, envOptions{})
	_, key, _ := ed25519.GenerateKey(nil)
	for name, o := range map[string]*Options{
		"no options":            nil,
		"secret of 31 bytes":    {JWTSecret: []byte(strings.Repeat("s", 31))},
		"EdDSA without kid":     {EdDSAKey: key},
		"bad EdDSA key":         {EdDSAKey: key[:10], KeyID: "k"},
		"invalid trusted proxy": {JWTSecret: []byte(strings.Repeat("s", 32)), TrustedProxies: []netip.Prefix{{}}},
	} {
		if _, err := NewHandler(e.svc, o); err == nil {
			t.Errorf("%s: NewHandler accepted it", name)
		}
	}
	if _, err := NewHandler(e.svc, &Options{JWTSecret: []byte(strings.Repeat("s", 32))}); err != nil {
		t.Errorf("secret of 32 bytes: %v", err)
	}
}
