// Package bwcmstest gives a host application's tests the whole API in one
// call: a store (SQLite in memory, or a fresh schema of a PostgreSQL
// database), the service with its batch workers running and a blob
// bucket in memory for uploaded files, the handler behind an
// httptest.Server, an account, an admin user and a client logged in as
// that admin, all cleaned up when the test ends.
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
	"fmt"
	"net/http/httptest"
	"sync"
	"testing"

	"github.com/bwcms/cms/client"
	"github.com/bwcms/cms/cms"
	"github.com/bwcms/cms/internal/testenv"
	"github.com/bwcms/cms/transport"
	"gocloud.dev/blob"
	"gocloud.dev/blob/memblob"
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
	// The service's Files is a bucket in memory (gocloud.dev/blob/memblob)
	// unless Service sets another.
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
	// Files holds the bytes of uploaded files: the service's
	// Options.Files.
	Files *blob.Bucket
	// Client is logged in as Admin, who has every permission.
	Client *client.Client

	stopRun   func()
	dropStore func() error
	// memFiles is the bucket Start opened, closed by Close.
	memFiles *blob.Bucket
	closing  sync.Once
	closeErr error
}

// New starts the API for the test; everything stops when the test ends.
// It fails the test when anything cannot start.
func New(tb testing.TB, opts *Options) *API {
	tb.Helper()
	api, err := Start(context.WithoutCancel(tb.Context()), opts)
	if err != nil {
		tb.Fatalf("bwcmstest: %v", err)
	}
	tb.Cleanup(func() {
		if err := api.Close(); err != nil {
			tb.Errorf("bwcmstest: %v", err)
		}
	})
	return api
}

// Start starts the API outside a test (an example, a program's own
// checks); Close stops it. New is Start for a test.
func Start(ctx context.Context, opts *Options) (api *API, err error) {
	var o Options
	if opts != nil {
		o = *opts
	}
	if o.Langs.Default == "" {
		o.Langs, _ = cms.NewLanguages("en")
	}
	api = &API{}
	defer func() {
		if err != nil {
			api.Close()
		}
	}()
	if api.Store, api.dropStore, err = testenv.Open(ctx, o.PostgresDSN, "bwcmstest_"); err != nil {
		return nil, err
	}
	so := testenv.ServiceOptions(nil)
	api.memFiles = memblob.OpenBucket(nil)
	so.Files = api.memFiles
	if o.Service != nil {
		o.Service(&so)
	}
	api.Files = so.Files
	if api.Service, err = cms.NewService(api.Store, &so); err != nil {
		return nil, err
	}
	secret := make([]byte, 32)
	rand.Read(secret)
	ho := transport.Options{JWTSecret: secret, BasePath: o.BasePath}
	if o.Handler != nil {
		o.Handler(&ho)
	}
	if api.Handler, err = transport.NewHandler(api.Service, &ho); err != nil {
		return nil, err
	}
	admin := testenv.Account{Name: Account, Langs: o.Langs, Users: []testenv.User{{Name: Admin, Perms: []string{"*"}}}}
	if err := testenv.CreateAccounts(ctx, api.Service, Password, admin); err != nil {
		return nil, err
	}
	runCtx, stop := context.WithCancel(ctx)
	running := make(chan error, 1)
	go func() { running <- api.Service.Run(runCtx) }()
	api.stopRun = func() {
		stop()
		<-running
	}
	api.Server = httptest.NewServer(api.Handler)
	api.URL = api.Server.URL + o.BasePath
	if api.Client, err = api.NewClient(ctx, Admin, Password); err != nil {
		return nil, err
	}
	return api, nil
}

// Close stops the server and the workers, and closes (PostgreSQL: drops)
// the store. Calls after the first return the first's answer.
func (a *API) Close() error {
	a.closing.Do(func() {
		if a.Server != nil {
			a.Server.Close()
		}
		if a.stopRun != nil {
			a.stopRun()
		}
		if a.dropStore != nil {
			a.closeErr = a.dropStore()
		}
		if a.memFiles != nil {
			a.memFiles.Close()
		}
	})
	return a.closeErr
}

// User adds a user of the account with perms and returns a client logged
// in as that user.
func (a *API) User(tb testing.TB, name string, perms ...string) *client.Client {
	tb.Helper()
	c, err := a.AddUser(context.WithoutCancel(tb.Context()), name, perms...)
	if err != nil {
		tb.Fatalf("bwcmstest: %v", err)
	}
	return c
}

// AddUser is User outside a test.
func (a *API) AddUser(ctx context.Context, name string, perms ...string) (*client.Client, error) {
	if err := testenv.CreateUsers(ctx, a.Service, Account, Password, testenv.User{Name: name, Perms: perms}); err != nil {
		return nil, err
	}
	return a.NewClient(ctx, name, Password)
}

// NewClient returns a new client of the API logged in as user.
func (a *API) NewClient(ctx context.Context, user, password string) (*client.Client, error) {
	c, err := client.New(a.URL, &client.Options{HTTPClient: a.Server.Client()})
	if err != nil {
		return nil, err
	}
	if err := c.Login(ctx, user, password); err != nil {
		return nil, fmt.Errorf("login %s: %w", user, err)
	}
	return c, nil
}
