package admin

import (
	"net/http"
	"net/http/cookiejar"
	"net/http/httptest"
	"net/url"
	"strings"
	"testing"

	"github.com/PuerkitoBio/goquery"
	"gocloud.dev/blob/memblob"

	"github.com/bwcms/cms/cms"
	"github.com/bwcms/cms/internal/testenv"
	"github.com/bwcms/cms/transport"
)

// env is the admin over a real store, mounted under a prefix on a test
// server: account acme (en, it, de) with admin (*), reader (*:read) and
// editor (resource:*, map:*); account other (de) with otto (*).
type env struct {
	t      testing.TB
	store  cms.Store
	svc    *cms.Service
	api    *transport.Handler
	h      *Handler
	clock  *testenv.Clock
	srv    *httptest.Server
	prefix string
}

type envOptions struct {
	prefix string
	store  func(testing.TB) cms.Store
	// api adjusts the API handler's options.
	api func(*transport.Options)
	// service adjusts the service's options.
	service func(*cms.Options)
	// tiles are the maps' tiles; default BlankTiles, so that no test
	// fetches anything off the machine.
	tiles Tiles
}

func newEnv(tb testing.TB, o envOptions) *env {
	tb.Helper()
	opts := o
	open := o.store
	if open == nil {
		open = testenv.OpenSQLiteMemory
	}
	e := &env{t: tb, store: open(tb), clock: testenv.NewClock()}
	// Uploaded files' bytes in memory, for this env alone.
	bucket := memblob.OpenBucket(nil)
	tb.Cleanup(func() { bucket.Close() })
	e.svc = testenv.NewService(tb, e.store, e.clock, func(o *cms.Options) {
		o.Files = bucket
		if opts.service != nil {
			opts.service(o)
		}
	},
		testenv.Account{Name: "acme", Langs: testenv.Langs("en", "it", "de"), Users: []testenv.User{
			{Name: "admin", Perms: []string{"*"}},
			{Name: "reader", Perms: []string{"*:read"}},
			{Name: "editor", Perms: []string{"resource:*", "map:*"}},
		}},
		testenv.Account{Name: "other", Langs: testenv.Langs("de"), Users: []testenv.User{{Name: "otto", Perms: []string{"*"}}}})
	apiOpts := &transport.Options{JWTSecret: testenv.Secret}
	if o.api != nil {
		o.api(apiOpts)
	}
	api, err := transport.NewHandler(e.svc, apiOpts)
	if err != nil {
		tb.Fatal(err)
	}
	e.api = api
	tiles := o.tiles
	if tiles.URL == "" {
		tiles.URL = BlankTiles
	}
	e.h, err = NewHandler(Options{Service: e.svc, API: api, Prefix: o.prefix, Tiles: tiles})
	if err != nil {
		tb.Fatal(err)
	}
	e.prefix = e.h.prefix
	mux := http.NewServeMux()
	mux.Handle(api.Path(), api)
	mux.Handle(e.h.Path(), e.h)
	e.srv = httptest.NewServer(mux)
	tb.Cleanup(e.srv.Close)
	return e
}

// url is the absolute address of an admin path ("/login").
func (e *env) url(path string) string { return e.srv.URL + e.prefix + path }

// browser is a client with its own cookies that does not follow
// redirects, as a test wants to see them.
func (e *env) browser() *http.Client {
	jar, _ := cookiejar.New(nil)
	return &http.Client{Jar: jar, CheckRedirect: func(*http.Request, []*http.Request) error { return http.ErrUseLastResponse }}
}

// signIn returns a browser signed in as user.
func (e *env) signIn(user string) *http.Client {
	e.t.Helper()
	c := e.browser()
	res := e.post(c, "/login", url.Values{"u": {user}, "p": {testenv.Password}})
	if res.StatusCode != http.StatusSeeOther {
		e.t.Fatalf("sign in as %s: status %d", user, res.StatusCode)
	}
	return c
}

// post sends a form from the admin's own origin, as its pages do.
func (e *env) post(c *http.Client, path string, form url.Values) *http.Response {
	e.t.Helper()
	req, err := http.NewRequest(http.MethodPost, e.url(path), strings.NewReader(form.Encode()))
	if err != nil {
		e.t.Fatal(err)
	}
	req.Header.Set("Content-Type", "application/x-www-form-urlencoded")
	req.Header.Set("Origin", e.srv.URL)
	req.Header.Set("Sec-Fetch-Site", "same-origin")
	return e.do(c, req)
}

func (e *env) get(c *http.Client, path string) *http.Response {
	e.t.Helper()
	req, err := http.NewRequest(http.MethodGet, e.url(path), nil)
	if err != nil {
		e.t.Fatal(err)
	}
	return e.do(c, req)
}

func (e *env) do(c *http.Client, req *http.Request) *http.Response {
	e.t.Helper()
	res, err := c.Do(req)
	if err != nil {
		e.t.Fatal(err)
	}
	e.t.Cleanup(func() { res.Body.Close() })
	return res
}

// page reads an HTML answer, failing unless its status is want.
func (e *env) page(res *http.Response, want int) *goquery.Document {
	e.t.Helper()
	if res.StatusCode != want {
		what := "answer"
		if res.Request != nil {
			what = res.Request.Method + " " + res.Request.URL.Path
		}
		e.t.Fatalf("%s: status %d, want %d", what, res.StatusCode, want)
	}
	doc, err := goquery.NewDocumentFromReader(res.Body)
	if err != nil {
		e.t.Fatal(err)
	}
	return doc
}

// cookie is the named cookie a response set, or nil.
func cookieOf(res *http.Response, name string) *http.Cookie {
	for _, c := range res.Cookies() {
		if c.Name == name {
			return c
		}
	}
	return nil
}
