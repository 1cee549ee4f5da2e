package main

import (
	"context"
	"path/filepath"
	"regexp"
	"sync"
	"testing"
	"time"

	"github.com/bwcms/cms/adapters/postgres/pgtest"
)

// generatedPassword is the line bootstrap prints when it made the admin.
var generatedPassword = regexp.MustCompile(`admin user "admin" created with password (\S+) \(shown once\)`)

// TestBootstrapTogether: instances started at once on a new database all
// start (the schema, the default account, the admin and the signing
// secret made once, by whichever comes first); exactly one prints the
// generated admin password, and it works on every instance. Rounds on a
// new PostgreSQL schema, and on a new SQLite file.
func TestBootstrapTogether(t *testing.T) {
	t.Parallel()
	const instances = 6
	rounds := long(3, 20)
	for _, db := range []string{"postgres", "sqlite"} {
		t.Run(db, func(t *testing.T) {
			t.Parallel()
			failed := 0
			for round := range rounds {
				dsn, files := "sqlite:"+filepath.Join(t.TempDir(), "cms.db"), ""
				if db == "postgres" {
					dsn, files = pgtest.DSN(t), sharedFiles(t)
				}
				clis := make([]*cli, instances)
				servers := make([]*server, instances)
				codes := make([]int, instances)
				var wg sync.WaitGroup
				start := make(chan struct{})
				for i := range clis {
					clis[i] = &cli{env: map[string]string{"CMS_DB": dsn, "CMS_FILES": files}}
					wg.Go(func() {
						ctx, cancel := context.WithCancel(context.Background())
						ready := make(chan string, 1)
						e := clis[i].env0()
						e.ready = func(addr string) { ready <- addr }
						s := &server{stop: cancel, done: make(chan int, 1), stdout: &clis[i].stdout, stderr: &clis[i].stderr}
						<-start
						go func() { s.done <- run(ctx, []string{"--addr", "127.0.0.1:0"}, e) }()
						select {
						case addr := <-ready:
							s.url = "http://" + addr
							servers[i] = s
						case codes[i] = <-s.done:
							cancel()
						case <-time.After(60 * time.Second):
							cancel()
							codes[i] = <-s.done
						}
					})
				}
				close(start)
				wg.Wait()
				var passwords []string
				for i, s := range servers {
					if s == nil {
						failed++
						t.Errorf("round %d: instance %d exited with %d: %s", round, i, codes[i], clis[i].stderr.String())
						continue
					}
					t.Cleanup(func() { s.shutdown(t) })
					if m := generatedPassword.FindStringSubmatch(clis[i].stdout.String()); m != nil {
						passwords = append(passwords, m[1])
					}
				}
				if len(passwords) != 1 {
					t.Fatalf("round %d: %d instances printed a generated admin password, want 1: %q", round, len(passwords), passwords)
				}
				// One signing secret: a token of any instance works on all.
				var access string
				for _, s := range servers {
					if s != nil {
						access = s.login(t, "admin", passwords[0]).Access
					}
				}
				for _, s := range servers {
					if s != nil {
						s.claims(t, access)
					}
				}
				// Stopped before the next round: each instance holds
				// connections (its webhook senders' among them), and the
				// rounds' instances together would exhaust PostgreSQL's.
				for _, s := range servers {
					if s != nil {
						s.shutdown(t)
					}
				}
			}
			t.Logf("figures: %s: %d rounds of %d instances started at once on a new database; %d instances failed to start",
				db, rounds, instances, failed)
		})
	}
}
