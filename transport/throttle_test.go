package transport

import (
	"context"
	"fmt"
	"net/http"
	"net/http/httptest"
	"net/netip"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/bwcms/cms/cms"
	"github.com/bwcms/cms/internal/testenv"
)

// sharedDatabases lists, per database, a function that makes a new
// database and returns how to open it, as often as a test likes: each
// store opened is one more instance of one deployment.
var sharedDatabases = []struct {
	name string
	make func(testing.TB) testenv.Opener
}{{"sqlite", testenv.SharedSQLite}, {"postgres", testenv.SharedPostgres}}

// twoInstances gives an env (fixture users included) and a second
// instance's handler on the same database and clock; svc adjusts the
// options of both services.
func twoInstances(t *testing.T, open func(testing.TB) cms.Store, svc func(*cms.Options)) (*env, http.Handler) {
	t.Helper()
	e := newEnv(t, envOptions{store: open, svc: svc})
	_, h := secondInstance(t, e, open, svc)
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
// is checked.
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
// address out, not the user (docs/auth.md, Login throttling).
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

// forEachStoreWith is forEachStore with options.
func forEachStoreWith(t *testing.T, o envOptions, fn func(t *testing.T, e *env)) {
	for _, st := range stores {
		t.Run(st.name, func(t *testing.T) {
			t.Parallel()
			o := o
			o.store = st.open
			fn(t, newEnv(t, o))
		})
	}
}

// TestLoginUserCeiling: past the username's ceiling over all addresses,
// an address the user has not logged in from is refused before its
// password is checked, while a known one still logs in.
func TestLoginUserCeiling(t *testing.T) {
	t.Parallel()
	forEachStoreWith(t, envOptions{svc: func(o *cms.Options) { o.LoginUserCeiling = 12 }}, func(t *testing.T, e *env) {
		const home = "198.51.100.2:5000"
		if w := e.loginFrom(home, "admin", testPassword); w.Code != 200 {
			t.Fatalf("the user at home: %d", w.Code)
		}
		e.clock.Advance(time.Hour)
		// Below the ceiling, an address without failures is never
		// refused: four addresses fail 3 times each (12 failures).
		for i := range 12 {
			peer := fmt.Sprintf("203.0.113.%d:4000", i/3)
			if w := e.loginFrom(peer, "admin", "guess"); w.Code != 401 {
				t.Fatalf("guess %d from %s: %d", i+1, peer, w.Code)
			}
			e.clock.Advance(time.Second)
		}
		for _, peer := range []string{"192.0.2.50:1", "203.0.113.0:4000"} {
			w := e.loginFrom(peer, "admin", testPassword)
			if w.Code != 429 || w.Header().Get("Retry-After") != "888" { // the first guess leaves the window in 15 min - 12 s
				t.Errorf("the right password from %s past the ceiling: %d, Retry-After %q; want 429, 888", peer, w.Code, w.Header().Get("Retry-After"))
			}
		}
		if w := e.loginFrom(home, "admin", testPassword); w.Code != 200 {
			t.Errorf("the user at home past the ceiling: %d %s", w.Code, w.Body)
		}
		// Another user is not held by admin's ceiling.
		if w := e.loginFrom("192.0.2.50:1", "reader", testPassword); w.Code != 200 {
			t.Errorf("another user: %d", w.Code)
		}
		if got := failures(t, e, "admin"); got != 12 {
			t.Errorf("admin has %d failures; refusals must not count", got)
		}
	})
}

// TestLoginTrustedProxies: X-Forwarded-For and Forwarded name the client
// only when the peer is a trusted proxy; IPv6 clients count by /64.
func TestLoginTrustedProxies(t *testing.T) {
	t.Parallel()
	trust := func(o *Options) { o.TrustedProxies = []netip.Prefix{netip.MustParsePrefix("10.0.0.0/8")} }
	forEachStoreWith(t, envOptions{http: trust}, func(t *testing.T, e *env) {
		const proxy, stranger = "10.0.0.5:3000", "192.0.2.99:3000"
		guess := func(peer string, header ...string) int {
			return e.loginFrom(peer, "admin", "guess", header...).Code
		}
		right := func(peer string, header ...string) int {
			return e.loginFrom(peer, "admin", testPassword, header...).Code
		}
		// Behind the proxy, each client counts apart: the attacker's
		// address is refused, the user's logs in.
		for range 5 {
			guess(proxy, "X-Forwarded-For", "203.0.113.7")
		}
		if got := right(proxy, "X-Forwarded-For", "203.0.113.7"); got != 429 {
			t.Errorf("the attacker behind the proxy: %d, want 429", got)
		}
		if got := right(proxy, "X-Forwarded-For", "198.51.100.2"); got != 200 {
			t.Errorf("the user behind the proxy: %d, want 200", got)
		}
		if got := right(proxy); got != 200 {
			t.Errorf("the proxy itself, without a header: %d, want 200", got)
		}
		// From an untrusted peer the header is a lie: the failures count
		// against the peer, whatever the header says.
		for i := range 5 {
			guess(stranger, "X-Forwarded-For", fmt.Sprintf("198.51.100.%d", 100+i))
		}
		if got := right(stranger, "X-Forwarded-For", "198.51.100.200"); got != 429 {
			t.Errorf("a spoofing peer: %d, want 429", got)
		}
		if got := right(proxy, "X-Forwarded-For", "198.51.100.100"); got != 200 {
			t.Errorf("an address a spoofing peer named: %d, want 200", got)
		}
		// The Forwarded form, with IPv6 clients: one /64 shares a count,
		// another /64 does not.
		for i := range 5 {
			guess(proxy, "Forwarded", fmt.Sprintf(`for="[2001:db8:1:2::%x]:4711";proto=https`, i+1))
		}
		if got := right(proxy, "Forwarded", `for="[2001:db8:1:2:ffff::1]"`); got != 429 {
			t.Errorf("the same /64: %d, want 429", got)
		}
		if got := right(proxy, "Forwarded", `for="[2001:db8:1:3::1]"`); got != 200 {
			t.Errorf("another /64: %d, want 200", got)
		}
		// A malformed header from the proxy counts against the proxy.
		for range 5 {
			guess(proxy, "X-Forwarded-For", "198.51.100.2, garbage")
		}
		if got := right(proxy); got != 429 {
			t.Errorf("the proxy after 5 failures with malformed headers: %d, want 429", got)
		}
	})
}

// TestLoginUnlock: an unlock and a password change clear a user's
// failures from every address.
func TestLoginUnlock(t *testing.T) {
	t.Parallel()
	forEachStore(t, func(t *testing.T, e *env) {
		lockOut := func() {
			t.Helper()
			for _, peer := range []string{"203.0.113.1:1", "203.0.113.2:1"} {
				for range 5 {
					e.loginFrom(peer, "admin", "guess")
				}
				if w := e.loginFrom(peer, "admin", testPassword); w.Code != 429 {
					t.Fatalf("after 5 failures from %s: %d", peer, w.Code)
				}
			}
		}
		ctx := t.Context()
		lockOut()
		if err := e.svc.UnlockUser(ctx, "admin"); err != nil {
			t.Fatal(err)
		}
		for _, peer := range []string{"203.0.113.1:1", "203.0.113.2:1"} {
			if w := e.loginFrom(peer, "admin", testPassword); w.Code != 200 {
				t.Errorf("after the unlock, from %s: %d", peer, w.Code)
			}
		}
		e.clock.Advance(time.Hour)
		lockOut()
		if err := e.svc.SetPassword(ctx, "admin", "a new password"); err != nil {
			t.Fatal(err)
		}
		for _, peer := range []string{"203.0.113.1:1", "203.0.113.2:1"} {
			if w := e.loginFrom(peer, "admin", "a new password"); w.Code != 200 {
				t.Errorf("after the password change, from %s: %d", peer, w.Code)
			}
		}
		if err := e.svc.UnlockUser(ctx, "nobody"); cms.ErrorCode(err) != cms.CodeNotFound {
			t.Errorf("UnlockUser of an unknown user: %v", err)
		}
	})
}
