package client_test

import (
	"context"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/bwcms/cms/adapters/postgres"
	"github.com/bwcms/cms/adapters/postgres/pgtest"
	"github.com/bwcms/cms/adapters/sqlite"
	"github.com/bwcms/cms/client"
	"github.com/bwcms/cms/cms"
	"github.com/bwcms/cms/transport"
)

// testSecret signs the test handlers' access tokens.
var testSecret = []byte("0123456789abcdef0123456789abcdef")

// testPassword is every fixture user's password.
const testPassword = "correct horse battery"

// cheapPasswords keep argon2id fast in tests.
var cheapPasswords = cms.PasswordParams{Memory: 64, Time: 1, Threads: 1}

// clock is the settable clock of the service and the handler.
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

// gateStore holds a batch its worker has just claimed (status processing)
// until release is closed, once armed.
type gateStore struct {
	cms.Store
	armed   atomic.Bool
	release chan struct{}
}

func (g *gateStore) ClaimBatch(ctx context.Context, owner string, now, leaseUntil time.Time) (*cms.Batch, error) {
	b, err := g.Store.ClaimBatch(ctx, owner, now, leaseUntil)
	if err == nil && g.armed.CompareAndSwap(true, false) {
		select {
		case <-g.release:
		case <-ctx.Done():
		}
	}
	return b, err
}

// env is the real handler over a real store, served by an httptest
// server that counts refreshes: account acme (en, it) with admin (*) and
// reader (resource:read).
type env struct {
	t         *testing.T
	svc       *cms.Service
	store     *gateStore
	clock     *clock
	url       string
	http      *http.Client
	refreshes atomic.Int32
	// holdRefresh, when set, holds each refresh request until it is
	// closed.
	holdRefresh atomic.Pointer[chan struct{}]
	// pages counts list requests with /limit/.
	pages atomic.Int32
}

func openSQLite(tb testing.TB) cms.Store {
	s, err := sqlite.Open(tb.Context(), sqlite.Memory, nil)
	if err != nil {
		tb.Fatal(err)
	}
	tb.Cleanup(func() { s.Close() })
	return s
}

func openPostgres(tb testing.TB) cms.Store {
	s, err := postgres.Open(tb.Context(), pgtest.DSN(tb), &postgres.Options{MaxConns: 8})
	if err != nil {
		tb.Fatal(err)
	}
	tb.Cleanup(func() { s.Close() })
	return s
}

// eachStore runs test on SQLite, and on PostgreSQL when the test server
// is configured (CMS_TEST_POSTGRES_DSN).
func eachStore(t *testing.T, test func(t *testing.T, e *env)) {
	for _, s := range []struct {
		name string
		open func(testing.TB) cms.Store
	}{{"sqlite", openSQLite}, {"postgres", openPostgres}} {
		t.Run(s.name, func(t *testing.T) { test(t, newEnv(t, s.open)) })
	}
}

func newEnv(t *testing.T, open func(testing.TB) cms.Store) *env {
	t.Helper()
	e := &env{t: t, store: &gateStore{Store: open(t), release: make(chan struct{})},
		clock: &clock{now: time.Date(2026, 11, 22, 10, 0, 0, 0, time.UTC)}}
	svc, err := cms.NewService(e.store, &cms.Options{Now: e.clock.Now, Passwords: cheapPasswords,
		RefreshGrace: cms.NoGrace, BatchPoll: 10 * time.Millisecond})
	if err != nil {
		t.Fatal(err)
	}
	e.svc = svc
	h, err := transport.NewHandler(svc, &transport.Options{JWTSecret: testSecret})
	if err != nil {
		t.Fatal(err)
	}
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if strings.HasSuffix(r.URL.Path, "/auth/refresh") {
			e.refreshes.Add(1)
			if hold := e.holdRefresh.Load(); hold != nil {
				<-*hold
			}
		}
		if strings.Contains(r.URL.Path, "/limit/") {
			e.pages.Add(1)
		}
		h.ServeHTTP(w, r)
	}))
	t.Cleanup(srv.Close)
	e.url, e.http = srv.URL, srv.Client()
	ctx := t.Context()
	langs, _ := cms.NewLanguages("en", "en", "it")
	if err := svc.CreateAccount(ctx, "acme", langs); err != nil {
		t.Fatal(err)
	}
	for _, u := range []cms.NewUser{
		{Name: "admin", Account: "acme", Perms: []string{"*"}},
		{Name: "reader", Account: "acme", Perms: []string{"resource:read"}},
	} {
		u.Password = testPassword
		if err := svc.CreateUser(ctx, u); err != nil {
			t.Fatal(err)
		}
	}
	return e
}

// client returns a new client logged in as user.
func (e *env) client(user string) *client.Client {
	e.t.Helper()
	c, err := client.New(e.url, &client.Options{HTTPClient: e.http, PollInterval: 5 * time.Millisecond, MaxPollInterval: 20 * time.Millisecond})
	if err != nil {
		e.t.Fatal(err)
	}
	if err := c.Login(e.t.Context(), user, testPassword); err != nil {
		e.t.Fatal(err)
	}
	return c
}

// runWorkers starts the service's batch workers until the test ends.
func (e *env) runWorkers() {
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan struct{})
	go func() {
		defer close(done)
		e.svc.Run(ctx)
	}()
	e.t.Cleanup(func() {
		cancel()
		<-done
	})
}

// expire moves the clock past the access tokens' lifetime.
func (e *env) expire() { e.clock.Advance(transport.AccessTokenLifetime + time.Minute) }

func must(t *testing.T, err error) {
	t.Helper()
	if err != nil {
		t.Fatal(err)
	}
}

// resource is a published Resource with an English and Italian title.
func resource(id, title string) *cms.Resource {
	return &cms.Resource{ID: id, Published: cms.Some(true), Title: cms.Langs[string]{"en": title, "it": title + " (it)"}}
}
