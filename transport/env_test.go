package transport

import (
	"encoding/json"
	"io"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"net/url"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/bwcms/cms/adapters/postgres"
	"github.com/bwcms/cms/adapters/postgres/pgtest"
	"github.com/bwcms/cms/adapters/sqlite"
	"github.com/bwcms/cms/cms"
)

// testSecret is the HS256 secret of the test handlers.
var testSecret = []byte("0123456789abcdef0123456789abcdef")

// testPassword is the password of every fixture user.
const testPassword = "correct horse battery"

// cheapPasswords keep argon2id fast in tests (cms.Options.Passwords).
var cheapPasswords = cms.PasswordParams{Memory: 64, Time: 1, Threads: 1}

// clock is a settable clock shared by the service and the handler.
type clock struct {
	mu  sync.Mutex
	now time.Time
}

func (c *clock) Now() time.Time {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.now
}

func (c *clock) Advance(d time.Duration) {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.now = c.now.Add(d)
}

// env is a handler over a real store with fixture accounts and users:
// account acme (en, it, de) with admin (*), reader (resource:read),
// writer (resource:*) and off (disabled); account other (de) with otto (*).
type env struct {
	t     testing.TB
	store cms.Store
	svc   *cms.Service
	h     *Handler
	clock *clock
	logs  *strings.Builder
	// tokens caches an access token per user (record tests).
	tokens map[string]string
}

type envOptions struct {
	svc   func(*cms.Options)
	http  func(*Options)
	store func(testing.TB) cms.Store
}

func openSQLite(tb testing.TB) cms.Store {
	tb.Helper()
	s, err := sqlite.Open(tb.Context(), filepath.Join(tb.TempDir(), "cms.db"), nil)
	if err != nil {
		tb.Fatal(err)
	}
	tb.Cleanup(func() { s.Close() })
	return s
}

func openPostgres(tb testing.TB) cms.Store {
	tb.Helper()
	s, err := postgres.Open(tb.Context(), pgtest.DSN(tb), &postgres.Options{MaxConns: 8})
	if err != nil {
		tb.Fatal(err)
	}
	tb.Cleanup(func() { s.Close() })
	return s
}

// stores lists the databases a storage-dependent test runs on: SQLite
// always, PostgreSQL when the test server is configured.
var stores = []struct {
	name string
	open func(testing.TB) cms.Store
}{{"sqlite", openSQLite}, {"postgres", openPostgres}}

func newEnv(tb testing.TB, o envOptions) *env {
	tb.Helper()
	open := o.store
	if open == nil {
		open = openSQLite
	}
	e := &env{t: tb, store: open(tb), clock: &clock{now: time.Date(2026, 11, 22, 10, 0, 0, 0, time.UTC)},
		logs: new(strings.Builder)}
	var logMu sync.Mutex
	logger := slog.New(slog.NewTextHandler(lockedWriter{&logMu, e.logs}, &slog.HandlerOptions{Level: slog.LevelWarn}))
	so := cms.Options{Now: e.clock.Now, Passwords: cheapPasswords, Logger: logger}
	if o.svc != nil {
		o.svc(&so)
	}
	svc, err := cms.NewService(e.store, &so)
	if err != nil {
		tb.Fatal(err)
	}
	e.svc = svc
	ho := Options{JWTSecret: testSecret, Logger: logger}
	if o.http != nil {
		o.http(&ho)
	}
	if e.h, err = NewHandler(svc, &ho); err != nil {
		tb.Fatal(err)
	}
	ctx := tb.Context()
	must := func(err error) {
		tb.Helper()
		if err != nil {
			tb.Fatal(err)
		}
	}
	acme, _ := cms.NewLanguages("en", "en", "it", "de")
	other, _ := cms.NewLanguages("de")
	must(svc.CreateAccount(ctx, "acme", acme))
	must(svc.CreateAccount(ctx, "other", other))
	for _, u := range []cms.NewUser{
		{Name: "admin", Account: "acme", Perms: []string{"*"}},
		{Name: "reader", Account: "acme", Perms: []string{"resource:read"}},
		{Name: "writer", Account: "acme", Perms: []string{"resource:*"}},
		{Name: "off", Account: "acme", Perms: []string{"*"}},
		{Name: "otto", Account: "other", Perms: []string{"*"}},
	} {
		u.Password = testPassword
		must(svc.CreateUser(ctx, u))
	}
	must(svc.SetDisabled(ctx, "off", true))
	return e
}

// secondInstance is another Service and Handler on e's database (open
// gives a store, and a pool, of its own on it) and clock, as a second
// instance of a deployment; svc adjusts its options as it did e's.
func secondInstance(tb testing.TB, e *env, open func(testing.TB) cms.Store, svc func(*cms.Options)) (*cms.Service, http.Handler) {
	tb.Helper()
	o := cms.Options{Now: e.clock.Now, Passwords: cheapPasswords}
	if svc != nil {
		svc(&o)
	}
	s, err := cms.NewService(open(tb), &o)
	if err != nil {
		tb.Fatal(err)
	}
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
