package transport

import (
	"crypto/sha256"
	"encoding/json"
	"flag"
	"fmt"
	"math/rand/v2"
	"net/http"
	"net/http/httptest"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/bwcms/cms/cms"
	"github.com/bwcms/cms/internal/testenv"
)

var revokeRounds = flag.Int("revoke.rounds", 0, "rounds of TestRevokeRace for each database and revocation (default 25)")

// serveRefresh posts a refresh of token to h.
func serveRefresh(h http.Handler, token string) *httptest.ResponseRecorder {
	r := httptest.NewRequest(http.MethodPost, "/api/bw/v2/auth/refresh", nil)
	r.AddCookie(&http.Cookie{Name: RefreshCookie, Value: token})
	w := httptest.NewRecorder()
	h.ServeHTTP(w, r)
	return w
}

// sameDatabase returns an opener whose every store is on one new
// database: a SQLite file or a PostgreSQL schema.
func sameDatabase(t *testing.T, name string) func(testing.TB) cms.Store {
	t.Helper()
	if name == "sqlite" {
		return testenv.SharedSQLite(t)
	}
	return testenv.SharedPostgres(t)
}

// TestRevokeRace: a logout, or a password change, on one instance while a
// thief refreshes a stolen token in a loop on another instance of the
// same database leaves no token of the family working: the refresh in
// flight when the revocation runs either sees it and fails, or its
// successor is revoked with the rest. Repeated rounds on each database.
func TestRevokeRace(t *testing.T) {
	t.Parallel()
	rounds := *revokeRounds
	if rounds <= 0 {
		rounds = 25
	}
	for _, st := range stores {
		for _, how := range []string{"logout", "password"} {
			t.Run(st.name+"/"+how, func(t *testing.T) {
				t.Parallel()
				open := sameDatabase(t, st.name)
				e := newEnv(t, envOptions{store: open})
				_, h2 := secondInstance(t, e, open, nil)
				ctx := t.Context()
				survived := 0
				for round := range rounds {
					stolen := e.login("admin").RefreshToken
					var (
						handed   = []string{stolen}
						mu       sync.Mutex
						revoked  atomic.Bool
						after    int // thief's successes that began after the revocation returned
						started  = make(chan struct{})
						finished = make(chan struct{})
					)
					go func() { // the thief, on the second instance
						var once sync.Once
						defer close(finished)
						defer once.Do(func() { close(started) })
						cur := stolen
						for i := 0; ; i++ {
							if i == 1 {
								once.Do(func() { close(started) })
							}
							late := revoked.Load()
							w := serveRefresh(h2, cur)
							if w.Code == 401 {
								break
							}
							if w.Code != 200 {
								t.Errorf("round %d: thief's refresh: %d %s", round, w.Code, w.Body)
								break
							}
							var a tokenAnswer
							json.Unmarshal(w.Body.Bytes(), &a)
							cur = a.RefreshToken
							mu.Lock()
							handed = append(handed, cur)
							mu.Unlock()
							if late {
								if after++; after == 3 {
									break
								}
							}
						}
					}()
					<-started
					time.Sleep(time.Duration(rand.IntN(2000)) * time.Microsecond)
					switch how {
					case "logout":
						if w := e.do(postForm("/api/bw/v2/auth/logout", form("refresh_token", stolen))); w.Code != 200 {
							t.Fatalf("round %d: logout: %d %s", round, w.Code, w.Body)
						}
					case "password":
						if err := e.svc.SetPassword(ctx, "admin", testPassword); err != nil {
							t.Fatalf("round %d: password change: %v", round, err)
						}
					}
					revoked.Store(true)
					<-finished
					if after > 0 {
						survived++
					}
					mu.Lock()
					last := handed[len(handed)-1]
					for _, tok := range handed {
						h := sha256.Sum256([]byte(tok))
						rt, err := e.store.GetRefreshToken(ctx, h[:])
						if err != nil {
							t.Fatal(err)
						}
						if rt.Revoked.IsZero() {
							t.Errorf("round %d: a token of the family is not revoked after the %s (used %v)", round, how, rt.Used)
						}
					}
					mu.Unlock()
					for _, h := range []http.Handler{e.h, h2} {
						if w := serveRefresh(h, last); w.Code != 401 {
							t.Errorf("round %d: the thief's last token after the %s: %d", round, how, w.Code)
						}
					}
				}
				t.Logf("figures: %s %s: %d rounds, the thief refreshed on after the revocation in %d", st.name, how, rounds, survived)
				if survived > 0 {
					t.Errorf("%d of %d rounds: the thief kept a working token after the %s", survived, rounds, how)
				}
			})
		}
	}
}

// TestRefreshSiblings: the tokens handed to replays of one token within
// the grace are siblings; rotating one spends the others, so one chain
// lives on. 5 replays leave 6 tokens; rotating each of them gives 6
// answers (one rotation, 5 grace answers), and once the grace is over
// exactly one of those 6 can be rotated.
func TestRefreshSiblings(t *testing.T) {
	t.Parallel()
	for _, st := range stores {
		t.Run(st.name, func(t *testing.T) {
			t.Parallel()
			e := newEnv(t, envOptions{store: st.open})
			stored := func(tok string) cms.RefreshToken { return storedToken(t, e, tok) }
			first := e.login("admin").RefreshToken
			gen := []string{decodeTokens(t, e.refreshWith(first)).RefreshToken}
			e.clock.Advance(time.Second)
			for range 5 {
				gen = append(gen, decodeTokens(t, e.refreshWith(first)).RefreshToken)
			}
			for i, tok := range gen {
				if rt := stored(tok); !rt.Used.IsZero() || !rt.Revoked.IsZero() {
					t.Fatalf("token %d of the first generation: used %v revoked %v", i, rt.Used, rt.Revoked)
				}
			}
			// Rotating the 6 in turn, within the grace.
			e.clock.Advance(time.Second)
			var next []string
			for i, tok := range gen {
				next = append(next, decodeTokens(t, e.refreshWith(tok)).RefreshToken)
				if i == 0 {
					for j, sib := range gen[1:] {
						if stored(sib).Used.IsZero() {
							t.Errorf("sibling %d not spent when token 0 rotated", j+1)
						}
					}
				}
			}
			parent := string(stored(next[0]).Parent)
			for i, tok := range next {
				rt := stored(tok)
				if string(rt.Parent) != parent {
					t.Errorf("second generation token %d: not a sibling of the others", i)
				}
				if !rt.Used.IsZero() || !rt.Revoked.IsZero() {
					t.Errorf("second generation token %d: used %v revoked %v", i, rt.Used, rt.Revoked)
				}
			}
			// Once the grace is over, exactly one of the 6 goes on.
			e.clock.Advance(11 * time.Second)
			ok := 0
			for _, tok := range next {
				if w := e.refreshWith(tok); w.Code == 200 {
					ok++
				}
				e.clock.Advance(11 * time.Second)
			}
			if ok != 1 {
				t.Errorf("of the 6 tokens of the second generation, %d could be rotated after the grace; want 1", ok)
			}

			// At once: 6 tabs with one token, then each rotating what it
			// got, all together; the family's live tokens stay siblings.
			tok := e.login("admin").RefreshToken
			family := stored(tok).Family
			for step := range 2 {
				got := make([]string, 6)
				var wg sync.WaitGroup
				for i := range got {
					wg.Go(func() {
						from := tok
						if step == 1 {
							from = next[i]
						}
						if w := e.refreshWith(from); w.Code == 200 {
							var a tokenAnswer
							json.Unmarshal(w.Body.Bytes(), &a)
							got[i] = a.RefreshToken
						} else {
							t.Errorf("concurrent step %d: %d %s", step, w.Code, w.Body)
						}
					})
				}
				wg.Wait()
				next = got
				live, err := e.store.LiveRefreshTokens(t.Context(), family)
				if err != nil {
					t.Fatal(err)
				}
				for _, rt := range live {
					if string(rt.Parent) != string(live[0].Parent) {
						t.Fatalf("concurrent step %d: %d live tokens of more than one parent", step, len(live))
					}
				}
				if len(live) != 6 {
					t.Errorf("concurrent step %d: %d live tokens, want the 6 answers", step, len(live))
				}
			}
		})
	}
}

// TestLoginPasswordRace: a login with the old password on one instance
// while the password is changed on another never leaves a working
// session: either the login is refused, or the session it got is revoked
// by the change. Repeated rounds on each database.
func TestLoginPasswordRace(t *testing.T) {
	t.Parallel()
	rounds := *revokeRounds
	if rounds <= 0 {
		rounds = 25
	}
	for _, st := range stores {
		t.Run(st.name, func(t *testing.T) {
			t.Parallel()
			open := sameDatabase(t, st.name)
			e := newEnv(t, envOptions{store: open})
			_, h2 := secondInstance(t, e, open, nil)
			ctx := t.Context()
			old := testPassword
			kept, logins := 0, 0
			for round := range rounds {
				next := fmt.Sprintf("%s %d", testPassword, round)
				var (
					wg    sync.WaitGroup
					login *httptest.ResponseRecorder
				)
				wg.Add(1)
				go func() {
					defer wg.Done()
					r := postForm("/api/bw/v2/auth", form("u", "admin", "p", old))
					r.RemoteAddr = fmt.Sprintf("192.0.2.%d:4000", round%250+1)
					login = httptest.NewRecorder()
					h2.ServeHTTP(login, r)
				}()
				time.Sleep(time.Duration(rand.IntN(3000)) * time.Microsecond)
				if err := e.svc.SetPassword(ctx, "admin", next); err != nil {
					t.Fatalf("round %d: password change: %v", round, err)
				}
				wg.Wait()
				old = next
				switch login.Code {
				case 401:
					continue
				case 200:
				default:
					t.Fatalf("round %d: login: %d %s", round, login.Code, login.Body)
				}
				logins++
				var a tokenAnswer
				json.Unmarshal(login.Body.Bytes(), &a)
				for _, h := range []http.Handler{e.h, h2} {
					if w := serveRefresh(h, a.RefreshToken); w.Code != 401 {
						kept++
						t.Errorf("round %d: a session opened with the old password refreshes after the change: %d", round, w.Code)
						break
					}
				}
			}
			t.Logf("figures: %s: %d rounds, %d logins with the old password succeeded, %d of them kept a working session", st.name, rounds, logins, kept)
		})
	}
}
