package main

import (
	"bytes"
	"context"
	"encoding/json"
	"math/rand/v2"
	"net/url"
	"sync"
	"sync/atomic"
	"testing"
	"time"
)

// refreshForm posts a refresh of token (form field) to c's server.
func refreshForm(ctx context.Context, c *client, token string) reply {
	return c.do(ctx, "POST", "/api/bw/v2/auth/refresh", "application/x-www-form-urlencoded",
		[]byte(url.Values{"refresh_token": {token}}.Encode()), nil)
}

// TestFaultRevokeRace, the revoke race: a thief refreshes a stolen
// refresh token in a loop on one server process while, on another
// process of the same database, the victim logs out (odd rounds) or an
// operator changes the password with `standalone user passwd` (even
// rounds). Afterwards no token of the family works on either process:
// the refresh in flight when the revocation ran either saw it, or its
// successor was revoked with the rest.
func TestFaultRevokeRace(t *testing.T) {
	t.Parallel()
	eachDB(t, func(t *testing.T, d faultDB) {
		rounds := long(20, 200)
		victimProc, thiefProc := startProc(t, "--db", d.db, "--files", d.files), startProc(t, "--db", d.db, "--files", d.files)
		victim, thief := newClient(t, victimProc), newClient(t, thiefProc)
		victim.token, thief.token = "", "" // the auth paths need none
		ctx := t.Context()
		var survived, refreshes int
		for round := range rounds {
			r := victim.do(ctx, "POST", "/api/bw/v2/auth", "application/x-www-form-urlencoded",
				[]byte(url.Values{"u": {"admin"}, "p": {faultPassword}}.Encode()), nil)
			if r.err != nil || r.status != 200 {
				t.Fatalf("round %d: login: %d %s %v", round, r.status, r.body, r.err)
			}
			var s session
			json.Unmarshal(r.body, &s)
			var (
				revoked  atomic.Bool
				mu       sync.Mutex
				last     = s.Refresh
				after    int // the thief's refreshes that began after the revocation ended and succeeded
				n        int
				started  = make(chan struct{})
				finished = make(chan struct{})
			)
			go func() {
				var once sync.Once
				defer close(finished)
				defer once.Do(func() { close(started) })
				for i := 0; ; i++ {
					if i == 1 {
						once.Do(func() { close(started) })
					}
					late := revoked.Load()
					mu.Lock()
					cur := last
					mu.Unlock()
					r := refreshForm(ctx, thief, cur)
					if r.err != nil || r.status != 200 {
						if r.err != nil || r.status != 401 {
							t.Errorf("round %d: thief's refresh: %d %s %v", round, r.status, r.body, r.err)
						}
						return
					}
					var next session
					json.Unmarshal(r.body, &next)
					mu.Lock()
					last, n = next.Refresh, n+1
					mu.Unlock()
					if late {
						if after++; after == 3 {
							return
						}
					}
				}
			}()
			<-started
			time.Sleep(time.Duration(rand.IntN(3000)) * time.Microsecond)
			if round%2 == 1 {
				r := victim.do(ctx, "POST", "/api/bw/v2/auth/logout", "application/x-www-form-urlencoded",
					[]byte(url.Values{"refresh_token": {s.Refresh}}.Encode()), nil)
				if r.err != nil || r.status != 200 {
					t.Fatalf("round %d: logout: %d %s %v", round, r.status, r.body, r.err)
				}
			} else {
				c := &cli{env: map[string]string{"CMS_DB": d.db}}
				if code := c.run(t, "user", "passwd", "admin", "--password", faultPassword); code != 0 {
					t.Fatalf("round %d: user passwd: %d %s", round, code, c.stderr.String())
				}
			}
			revoked.Store(true)
			<-finished
			refreshes += n
			if after > 0 {
				survived++
			}
			for _, c := range []*client{victim, thief} {
				if r := refreshForm(ctx, c, last); r.status != 401 || !bytes.Contains(r.body, []byte("invalid_grant")) {
					t.Errorf("round %d: the thief's last token after the revocation: %d %s", round, r.status, r.body)
				}
			}
		}
		db := "postgres"
		if d.file != "" {
			db = "sqlite"
		}
		t.Logf("figures: revoke race (%s): rounds=%d (half logout, half password change) thief refreshes=%d rounds the thief refreshed on after the revocation=%d",
			db, rounds, refreshes, survived)
		if survived > 0 {
			t.Errorf("%d of %d rounds: a token of the revoked family still worked", survived, rounds)
		}
	})
}
