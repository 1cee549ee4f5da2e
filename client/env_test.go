package client_test

import (
	"context"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/bwcms/cms/client"
	"github.com/bwcms/cms/cms"
	"github.com/bwcms/cms/internal/testenv"
	"github.com/bwcms/cms/transport"
	"gocloud.dev/blob/memblob"
)

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
	clock     *testenv.Clock
	url       string
	http      *http.Client
	refreshes atomic.Int32
	// holdRefresh, when set, holds each refresh request until it is
	// closed.
	holdRefresh atomic.Pointer[chan struct{}]
	// holdUpload, when set, holds each upload request until it is
	// closed.
	holdUpload atomic.Pointer[chan struct{}]
	// pages counts list requests with /limit/; filePages the requests of
	// the file list.
	pages, filePages atomic.Int32
}

// eachStore runs test on SQLite, and on PostgreSQL when the test server
// is configured (CMS_TEST_POSTGRES_DSN).
func eachStore(t *testing.T, test func(t *testing.T, e *env)) {
	for _, db := range []testenv.Database{{Name: "sqlite", Open: testenv.OpenSQLiteMemory}, {Name: "postgres", Open: testenv.OpenPostgres}} {
		t.Run(db.Name, func(t *testing.T) { test(t, newEnv(t, db.Open)) })
	}
}

func newEnv(t *testing.T, open func(testing.TB) cms.Store) *env {
	t.Helper()
	return newEnvWith(t, open, nil)
}

// newEnvWith is newEnv with the service's options adjusted.
func newEnvWith(t *testing.T, open func(testing.TB) cms.Store, adjust func(*cms.Options)) *env {
	t.Helper()
	e := &env{t: t, store: &gateStore{Store: open(t), release: make(chan struct{})}, clock: testenv.NewClock()}
	files := memblob.OpenBucket(nil)
	t.Cleanup(func() { files.Close() })
	e.svc = testenv.NewService(t, e.store, e.clock, func(o *cms.Options) {
		o.RefreshGrace, o.BatchPoll, o.Files = cms.NoGrace, 10*time.Millisecond, files
		if adjust != nil {
			adjust(o)
		}
	}, testenv.Account{Name: "acme", Langs: testenv.Langs("en", "it"), Users: []testenv.User{
		{Name: "admin", Perms: []string{"*"}},
		{Name: "reader", Perms: []string{"resource:read"}},
	}})
	h, err := transport.NewHandler(e.svc, &transport.Options{JWTSecret: testenv.Secret})
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
		if r.Method == http.MethodGet && strings.HasSuffix(r.URL.Path, "/file") {
			e.filePages.Add(1)
		}
		if hold := e.holdUpload.Load(); hold != nil && r.Method == http.MethodPost && strings.HasSuffix(r.URL.Path, "/file") {
			<-*hold
		}
		h.ServeHTTP(w, r)
	}))
	t.Cleanup(srv.Close)
	e.url, e.http = srv.URL, srv.Client()
	return e
}

// client returns a new client logged in as user.
func (e *env) client(user string) *client.Client {
	e.t.Helper()
	c, err := client.New(e.url, &client.Options{HTTPClient: e.http, PollInterval: 5 * time.Millisecond, MaxPollInterval: 20 * time.Millisecond})
	if err != nil {
		e.t.Fatal(err)
	}
	if err := c.Login(e.t.Context(), user, testenv.Password); err != nil {
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
