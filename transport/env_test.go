package transport

import (
	"encoding/json"
	"io"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"net/url"
	"strings"
	"sync"
	"testing"

	"github.com/bwcms/cms/cms"
	"github.com/bwcms/cms/internal/testenv"
)

// The shared test environment (internal/testenv) under the names these
// tests use.
var (
	testSecret     = testenv.Secret
	cheapPasswords = testenv.CheapPasswords
	openSQLite     = testenv.OpenSQLite
	openPostgres   = testenv.OpenPostgres
)

// testPassword is the password of every fixture user.
const testPassword = testenv.Password

// env is a handler over a real store with fixture accounts and users:
// account acme (en, it, de) with admin (*), reader (resource:read),
// writer (resource:*) and off (disabled); account other (de) with otto (*).
type env struct {
	t     testing.TB
	store cms.Store
	svc   *cms.Service
	h     *Handler
	clock *testenv.Clock
	logs  *strings.Builder
	// tokens caches an access token per user (record tests).
	tokens map[string]string
}

type envOptions struct {
	svc   func(*cms.Options)
	http  func(*Options)
	store func(testing.TB) cms.Store
}

// stores lists the databases a storage-dependent test runs on: SQLite
// always, PostgreSQL when the test server is configured.
var stores = []struct {
	name string
	open func(testing.TB) cms.Store
}{{"sqlite", testenv.OpenSQLite}, {"postgres", testenv.OpenPostgres}}

func newEnv(tb testing.TB, o envOptions) *env {
	tb.Helper()
	open := o.store
	if open == nil {
		open = openSQLite
	}
	e := &env{t: tb, store: open(tb), clock: testenv.NewClock(), logs: new(strings.Builder)}
	var logMu sync.Mutex
	logger := slog.New(slog.NewTextHandler(lockedWriter{&logMu, e.logs}, &slog.HandlerOptions{Level: slog.LevelWarn}))
	e.svc = testenv.NewService(tb, e.store, e.clock, func(so *cms.Options) {
		so.Logger = logger
		if o.svc != nil {
			o.svc(so)
		}
	}, fixtureAccounts...)
	ho := Options{JWTSecret: testSecret, Logger: logger}
	if o.http != nil {
		o.http(&ho)
	}
	var err error
	if e.h, err = NewHandler(e.svc, &ho); err != nil {
		tb.Fatal(err)
	}
	return e
}

// fixtureAccounts are the accounts and users of every env.
var fixtureAccounts = []testenv.Account{
	{Name: "acme", Langs: testenv.Langs("en", "it", "de"), Users: []testenv.User{
		{Name: "admin", Perms: []string{"*"}},
		{Name: "reader", Perms: []string{"resource:read"}},
		{Name: "writer", Perms: []string{"resource:*"}},
		{Name: "off", Perms: []string{"*"}, Disabled: true},
	}},
	{Name: "other", Langs: testenv.Langs("de"), Users: []testenv.User{{Name: "otto", Perms: []string{"*"}}}},
}

// secondInstance is another Service and Handler on e's database (open
// gives a store, and a pool, of its own on it) and clock, as a second
// instance of a deployment; svc adjusts its options as it did e's.
func secondInstance(tb testing.TB, e *env, open func(testing.TB) cms.Store, svc func(*cms.Options)) (*cms.Service, http.Handler) {
	tb.Helper()
	s := testenv.NewService(tb, open(tb), e.clock, svc)
	h, err := NewHandler(s, &Options{JWTSecret: testSecret})
	if err != nil {
		tb.Fatal(err)
	}
	return s, h
}

type lockedWriter struct {
	mu *sync.Mutex
	w  io.Writer
}

func (l lockedWriter) Write(p []byte) (int, error) {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.w.Write(p)
}

// do sends one request through the handler.
func (e *env) do(r *http.Request) *httptest.ResponseRecorder {
	w := httptest.NewRecorder()
	e.h.ServeHTTP(w, r)
	return w
}

func form(values ...string) string {
	v := url.Values{}
	for i := 0; i+1 < len(values); i += 2 {
		v.Add(values[i], values[i+1])
	}
	return v.Encode()
}

func postForm(path, body string) *http.Request {
	r := httptest.NewRequest(http.MethodPost, path, strings.NewReader(body))
	r.Header.Set("Content-Type", "application/x-www-form-urlencoded")
	return r
}

// tokenAnswer is the body of a login or refresh.
type tokenAnswer struct {
	Done         string `json:"done"`
	JWT          string `json:"jwt"`
	AccessToken  string `json:"access_token"`
	RefreshToken string `json:"refresh_token"`
	TokenType    string `json:"token_type"`
	ExpiresIn    int    `json:"expires_in"`
}

// login logs user in and returns the answer; it fails the test unless 200.
func (e *env) login(user string) tokenAnswer {
	e.t.Helper()
	w := e.do(postForm("/api/bw/v2/auth", form("u", user, "p", testPassword)))
	if w.Code != http.StatusOK {
		e.t.Fatalf("login %s: %d %s", user, w.Code, w.Body)
	}
	var a tokenAnswer
	if err := json.Unmarshal(w.Body.Bytes(), &a); err != nil {
		e.t.Fatal(err)
	}
	return a
}

// refreshWith posts a refresh with the token in the cookie.
func (e *env) refreshWith(token string) *httptest.ResponseRecorder {
	r := httptest.NewRequest(http.MethodPost, "/api/bw/v2/auth/refresh", nil)
	r.AddCookie(&http.Cookie{Name: RefreshCookie, Value: token})
	return e.do(r)
}

// validateWith asks GET /api/bw/v2/auth with an Authorization: Bearer token.
func (e *env) validateWith(token string) *httptest.ResponseRecorder {
	r := httptest.NewRequest(http.MethodGet, "/api/bw/v2/auth", nil)
	r.Header.Set("Authorization", "Bearer "+token)
	return e.do(r)
}
