package transport

import (
	"context"
	"net/http"
	"net/http/httptest"
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

// sharedDatabases lists, per database, a function that makes a new
// database and returns how to open it, as often as a test likes: each
// store opened is one more instance of one deployment.
var sharedDatabases = []struct {
	name string
	make func(testing.TB) func(testing.TB) cms.Store
}{
	{"sqlite", func(tb testing.TB) func(testing.TB) cms.Store {
		path := filepath.Join(tb.TempDir(), "cms.db")
		return func(tb testing.TB) cms.Store {
			tb.Helper()
			s, err := sqlite.Open(tb.Context(), path, nil)
			if err != nil {
				tb.Fatal(err)
			}
			tb.Cleanup(func() { s.Close() })
			return s
		}
	}},
	{"postgres", func(tb testing.TB) func(testing.TB) cms.Store {
		dsn := pgtest.DSN(tb)
		return func(tb testing.TB) cms.Store {
			tb.Helper()
			s, err := postgres.Open(tb.Context(), dsn, &postgres.Options{MaxConns: 8})
			if err != nil {
				tb.Fatal(err)
			}
			tb.Cleanup(func() { s.Close() })
			return s
		}
	}},
}

// twoInstances gives an env (fixture users included) and a second
// Service and Handler on the same database and clock, as a deployment of
// two instances; svc adjusts the options of both services.
func twoInstances(t *testing.T, open func(testing.TB) cms.Store, svc func(*cms.Options)) (*env, http.Handler) {
	t.Helper()
	e := newEnv(t, envOptions{store: open, svc: svc})
	o := cms.Options{Now: e.clock.Now, Passwords: cheapPasswords}
	if svc != nil {
		svc(&o)
	}
	other, err := cms.NewService(open(t), &o)
	if err != nil {
		t.Fatal(err)
	}
	h, err := NewHandler(other, &Options{JWTSecret: testSecret})
	if err != nil {
		t.Fatal(err)
	}
	return e, h
}

// loginBurst sends n logins of admin at once, one from each handler in
// turn, all from the same client address, and counts the statuses. Each
// 429 must be the throttling answer with its Retry-After; refused, when
// set, hears of each.
func loginBurst(t *testing.T, handlers []http.Handler, n int, password func(i int) string, refused func()) map[int]int {
	t.Helper()
	var (
		mu    sync.Mutex
		codes = map[int]int{}
		wg    sync.WaitGroup
		start = make(chan struct{})
	)
	for i := range n {
		wg.Go(func() {
			r := postForm("/api/bw/v2/auth", form("u", "admin", "p", password(i)))
			w := httptest.NewRecorder()
			<-start
			handlers[i%len(handlers)].ServeHTTP(w, r)
			if w.Code == http.StatusTooManyRequests {
				if body := strings.TrimSpace(w.Body.String()); body != `{"fail":"Too many attempts"}` {
					t.Errorf("429 body %s", body)
				}
				// The clock stands still: the first failure leaves the
				// window in 15 minutes.
				if got := w.Header().Get("Retry-After"); got != "900" {
					t.Errorf("Retry-After %q, want 900", got)
				}
				if refused != nil {
					refused()
				}
			}
			mu.Lock()
			codes[w.Code]++
			mu.Unlock()
		})
	}
	close(start)
	wg.Wait()
	return codes
}

// heldCredentials knows admin with the fixture password, without hashing,
// and holds every check until each of n attempts has either reached a
// check or been refused: all the attempts of a burst arrive before any is
// judged, so a success cannot reset the count while the burst is still
// coming in.
type heldCredentials struct {
	n       int
	mu      sync.Mutex
	arrived int
	all     chan struct{}
}

func newHeldCredentials(n int) *heldCredentials {
	return &heldCredentials{n: n, all: make(chan struct{})}
}

func (c *heldCredentials) arrive() {
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.arrived++; c.arrived == c.n {
		close(c.all)
	}
}

func (c *heldCredentials) Authenticate(ctx context.Context, name, password string) (cms.Identity, error) {
	c.arrive()
	select {
	case <-c.all:
	case <-ctx.Done():
	case <-time.After(10 * time.Second): // a broken count must fail the test, not hang it
	}
	if name != "admin" || password != testPassword {
		return cms.Identity{}, &cms.Error{Code: cms.CodeUnauthorized}
	}
	return cms.Identity{Account: "acme", Perms: []string{"*"}}, nil
}

func (c *heldCredentials) Lookup(_ context.Context, name string) (cms.Identity, error) {
	if name != "admin" {
		return cms.Identity{}, &cms.Error{Code: cms.CodeNotFound}
	}
	return cms.Identity{Account: "acme", Perms: []string{"*"}}, nil
}

// TestLoginBurst: 40 simultaneous logins for one user from one address,
// split over two instances on one database, get at most LoginAttempts (5)
// passwords checked; the rest are refused with 429 before their password
// is checked (DECISIONS §2).
func TestLoginBurst(t *testing.T) {
	t.Parallel()
	const n = 40
	for _, db := range sharedDatabases {
		t.Run(db.name, func(t *testing.T) {
			t.Parallel()
			t.Run("wrong passwords", func(t *testing.T) {
				t.Parallel()
				e, other := twoInstances(t, db.make(t), nil)
				codes := loginBurst(t, []http.Handler{e.h, other}, n, func(int) string { return "wrong password" }, nil)
				if codes[401] != 5 || codes[429] != n-5 || len(codes) != 2 {
					t.Errorf("statuses %v, want 5 x 401 and %d x 429", codes, n-5)
				}
				if got := failures(t, e, "admin"); got != 5 {
					t.Errorf("%d failures stored, want 5", got)
				}
			})
			t.Run("wrong passwords arriving together", func(t *testing.T) {
				t.Parallel()
				held := newHeldCredentials(n)
				e, other := twoInstances(t, db.make(t), func(o *cms.Options) { o.Credentials = held })
				codes := loginBurst(t, []http.Handler{e.h, other}, n, func(int) string { return "wrong password" }, held.arrive)
				if codes[401] != 5 || codes[429] != n-5 || len(codes) != 2 {
					t.Errorf("statuses %v, want 5 x 401 and %d x 429", codes, n-5)
				}
			})
			t.Run("one right password", func(t *testing.T) {
				t.Parallel()
				held := newHeldCredentials(n)
				e, other := twoInstances(t, db.make(t), func(o *cms.Options) { o.Credentials = held })
				password := func(i int) string {
					if i == n/2 {
						return testPassword
					}
					return "wrong password"
				}
				codes := loginBurst(t, []http.Handler{e.h, other}, n, password, held.arrive)
				if checked := codes[401] + codes[200]; checked > 5 || codes[429] != n-checked || codes[200] > 1 {
					t.Errorf("statuses %v: want at most 5 checked (401 or 200), the rest 429", codes)
				}
			})
		})
	}
}

// loginFrom posts a login of user with password from the connection peer
// peer ("host:port"); header, when set, holds extra request headers.
func (e *env) loginFrom(peer, user, password string, header ...string) *httptest.ResponseRecorder {
	r := postForm("/api/bw/v2/auth", form("u", user, "p", password))
	r.RemoteAddr = peer
	for i := 0; i+1 < len(header); i += 2 {
		r.Header.Add(header[i], header[i+1])
	}
	return e.do(r)
}

// TestLoginLockoutIsPerAddress: an attacker's failures lock the attacker's
// address out, not the user (DECISIONS §2).
func TestLoginLockoutIsPerAddress(t *testing.T) {
	t.Parallel()
	forEachStore(t, func(t *testing.T, e *env) {
		const attacker, user = "203.0.113.7:4000", "198.51.100.2:5000"
		for i := range 8 {
			w := e.loginFrom(attacker, "admin", "guess")
			if want := map[bool]int{true: 401, false: 429}[i < 5]; w.Code != want {
				t.Fatalf("attacker's attempt %d: %d, want %d", i+1, w.Code, want)
			}
		}
		if w := e.loginFrom(attacker, "admin", testPassword); w.Code != 429 {
			t.Errorf("the attacker's address with the right password: %d, want 429", w.Code)
		}
		if w := e.loginFrom(user, "admin", testPassword); w.Code != 200 {
			t.Fatalf("the user from another address: %d %s", w.Code, w.Body)
		}
		// The user's own failures count apart from the attacker's.
		for i := range 4 {
			if w := e.loginFrom(user, "admin", "typo"); w.Code != 401 {
				t.Fatalf("the user's failure %d: %d", i+1, w.Code)
			}
		}
		if w := e.loginFrom(user, "admin", testPassword); w.Code != 200 {
			t.Errorf("the user after 4 failures of their own: %d", w.Code)
		}
		if w := e.loginFrom(attacker, "admin", "guess"); w.Code != 429 {
			t.Errorf("the user's success reset the attacker's count: %d", w.Code)
		}
	})
}
