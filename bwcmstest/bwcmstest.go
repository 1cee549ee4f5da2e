// Package bwcmstest gives a host application's tests the whole API in one
// call: a store (SQLite in memory, or a fresh schema of a PostgreSQL
// database), the service with its batch workers running, the handler
// behind an httptest.Server, an account, an admin user and a client
// logged in as that admin, all cleaned up when the test ends.
//
//	func TestImport(t *testing.T) {
//		api := bwcmstest.New(t, nil)
//		outcome, err := api.Client.Upsert(t.Context(), &cms.Resource{ID: "lake-walk", ...})
//		...
//	}
package bwcmstest

import (
	"context"
	"crypto/rand"
	"encoding/hex"
	"net/http/httptest"
	"testing"

	"github.com/bwcms/cms/adapters/postgres"
	"github.com/bwcms/cms/adapters/sqlite"
	"github.com/bwcms/cms/client"
	"github.com/bwcms/cms/cms"
	"github.com/bwcms/cms/transport"
)

// Options shape the API New starts. The zero value (or nil) gives SQLite
// in memory, an account "test" in English, and an admin with every
// permission.
type Options struct {
	// PostgresDSN, when set, stores in that PostgreSQL database, in a new
	// schema of its own dropped at the end of the test. Default: SQLite
	// in memory.
	PostgresDSN string
	// Langs are the account's languages. Default English only.
	Langs cms.Languages
	// BasePath puts the API under a prefix (transport.Options.BasePath).
	BasePath string
	// Service and Handler, when set, adjust the options of the service and
	// the handler before they are built (a clock, a sanitizer, limits).
	Service func(*cms.Options)
	Handler func(*transport.Options)
}

// Account, Admin and Password are the fixtures New makes.
const (
	Account  = "test"
	Admin    = "admin"
	Password = "bwcmstest admin password"
)

// API is a running API and what a test needs to use it.
type API struct {
	// URL is the server's address with the base path: what client.New
	// takes.
	URL     string
	Server  *httptest.Server
	Store   cms.Store
	Service *cms.Service
	Handler *transport.Handler
	// Client is logged in as Admin, who has every permission.
	Client *client.Client
}

// New starts the API for the test; everything stops when the test ends.
// It fails the test when anything cannot start.
func New(tb testing.TB, opts *Options) *API {
	tb.Helper()
	var o Options
	if opts != nil {
		o = *opts
	}
	if o.Langs.Default == "" {
		o.Langs, _ = cms.NewLanguages("en")
	}
	ctx := context.WithoutCancel(tb.Context())
	store := openStore(tb, ctx, o.PostgresDSN)
	so := cms.Options{Passwords: cms.PasswordParams{Memory: 64, Time: 1, Threads: 1}}
	if o.Service != nil {
		o.Service(&so)
	}
	svc, err := cms.NewService(store, &so)
	if err != nil {
		tb.Fatalf("bwcmstest: %v", err)
	}
	secret := make([]byte, 32)
	rand.Read(secret)
	ho := transport.Options{JWTSecret: secret, BasePath: o.BasePath}
	if o.Handler != nil {
		o.Handler(&ho)
	}
	h, err := transport.NewHandler(svc, &ho)
	if err != nil {
		tb.Fatalf("bwcmstest: %v", err)
	}
	if err := svc.CreateAccount(ctx, Account, o.Langs); err != nil {
		tb.Fatalf("bwcmstest: %v", err)
	}
	if err := svc.CreateUser(ctx, cms.NewUser{Name: Admin, Account: Account, Password: Password, Perms: []string{"*"}}); err != nil {
		tb.Fatalf("bwcmstest: %v", err)
	}
	runCtx, stop := context.WithCancel(ctx)
	running := make(chan error, 1)
	go func() { running <- svc.Run(runCtx) }()
	srv := httptest.NewServer(h)
	tb.Cleanup(func() {
		srv.Close()
		stop()
		<-running
	})
	api := &API{URL: srv.URL + o.BasePath, Server: srv, Store: store, Service: svc, Handler: h}
	api.Client = api.Login(tb, Admin, Password)
	return api
}

// User adds a user of the account with perms and returns a client logged
// in as that user.
func (a *API) User(tb testing.TB, name string, perms ...string) *client.Client {
	tb.Helper()
	if perms == nil {
		perms = []string{}
	}
	err := a.Service.CreateUser(context.WithoutCancel(tb.Context()),
		cms.NewUser{Name: name, Account: Account, Password: Password, Perms: perms})
	if err != nil {
		tb.Fatalf("bwcmstest: %v", err)
	}
	return a.Login(tb, name, Password)
}

// Login returns a new client of the API logged in as user.
func (a *API) Login(tb testing.TB, user, password string) *client.Client {
	tb.Helper()
	c, err := client.New(a.URL, &client.Options{HTTPClient: a.Server.Client()})
	if err != nil {
		tb.Fatalf("bwcmstest: %v", err)
	}
	if err := c.Login(context.WithoutCancel(tb.Context()), user, password); err != nil {
		tb.Fatalf("bwcmstest: login %s: %v", user, err)
	}
	return c
}

// openStore opens SQLite in memory, or a new schema of the PostgreSQL
// database at dsn, closed (and dropped) when the test ends.
func openStore(tb testing.TB, ctx context.Context, dsn string) cms.Store {
	tb.Helper()
	if dsn == "" {
		s, err := sqlite.Open(ctx, sqlite.Memory, nil)
		if err != nil {
			tb.Fatalf("bwcmstest: %v", err)
		}
		tb.Cleanup(func() { s.Close() })
		return s
	}
	suffix := make([]byte, 6)
	rand.Read(suffix)
	schema := "bwcmstest_" + hex.EncodeToString(suffix)
	s, err := postgres.Open(ctx, dsn, &postgres.Options{Schema: schema})
	if err != nil {
		tb.Fatalf("bwcmstest: %v", err)
	}
	tb.Cleanup(func() {
		if _, err := s.Write().ExecContext(context.Background(), `DROP SCHEMA "`+schema+`" CASCADE`); err != nil {
			tb.Errorf("bwcmstest: dropping schema %s: %v", schema, err)
		}
		s.Close()
	})
	return s
}
