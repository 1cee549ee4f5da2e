package main

import (
	"errors"
	"net/url"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestSettingsBeforeListening: every bad setting stops the start with a
// message naming it, before the port is opened (the default one, which
// TestMain holds, as a running server would) and before the database is
// created.
func TestSettingsBeforeListening(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		args []string
		want string
	}{
		{[]string{"--db", "mysql://x"}, `--db "mysql://x": want sqlite:PATH or postgres://`},
		{[]string{"--db", "sqlite:"}, "--db sqlite: needs a file path"},
		{[]string{"--batch-workers", "two"}, `--batch-workers "two"`},
		{[]string{"--batch-lease", "0s"}, `--batch-lease "0s"`},
		{[]string{"--langs", "en,!!"}, "--langs"},
		{[]string{"--admin-user", "a b"}, `--admin-user "a b"`},
		{[]string{"--admin-password", "short"}, "--admin-password: want 8 characters to 1024 bytes"},
		{[]string{"--jwt-secret", "too short"}, "--jwt-secret: want at least 32 bytes (it has 9)"},
		{[]string{"--addr", "8080"}, `--addr "8080": want HOST:PORT`},
		{[]string{"--metrics-addr", "metrics"}, `--metrics-addr "metrics": want HOST:PORT`},
		{[]string{"--pg-lock-timeout", "soon"}, `--pg-lock-timeout "soon"`},
		{[]string{"--refresh-grace", "-1s"}, `--refresh-grace "-1s"`},
		{[]string{"--cookie-samesite", "maybe"}, `--cookie-samesite "maybe"`},
		{[]string{"--access-log", "maybe"}, "--access-log"},
		{[]string{"--trusted-proxies", "proxy.example"}, "--trusted-proxies"},
	} {
		db := filepath.Join(t.TempDir(), "cms.db")
		c := &cli{env: map[string]string{}}
		args := tc.args
		if tc.args[0] != "--db" {
			args = append([]string{"--db", "sqlite:" + db}, tc.args...)
		}
		if code := c.run(t, args...); code != 1 || !strings.Contains(c.stderr.String(), tc.want) ||
			strings.Contains(c.stderr.String(), "address already in use") {
			t.Errorf("%v: exit %d, %q; want %q", tc.args, code, c.stderr.String(), tc.want)
		}
		if _, err := os.Stat(db); !errors.Is(err, os.ErrNotExist) {
			t.Errorf("%v: the database was created (%v)", tc.args, err)
		}
		if c.stdout.String() != "" {
			t.Errorf("%v: printed %q", tc.args, c.stdout.String())
		}
	}
}

// TestAdminPasswordOfExistingAdmin: --admin-password (or
// CMS_ADMIN_PASSWORD) for an admin that exists changes nothing and says
// so, naming the setting and the command that changes the password.
func TestAdminPasswordOfExistingAdmin(t *testing.T) {
	t.Parallel()
	db := "sqlite:" + filepath.Join(t.TempDir(), "cms.db")
	const warning = "--admin-password (CMS_ADMIN_PASSWORD) is ignored"
	first := &cli{env: map[string]string{"CMS_ADMIN_PASSWORD": "first password"}}
	startServer(t, first, "--db", db).shutdown(t)
	if strings.Contains(first.stderr.String(), warning) {
		t.Errorf("the start that created the admin warned: %s", first.stderr.String())
	}
	again := &cli{env: map[string]string{"CMS_ADMIN_PASSWORD": "second password"}}
	s := startServer(t, again, "--db", db)
	log := again.stderr.String()
	if !strings.Contains(log, "level=WARN") || !strings.Contains(log, warning) ||
		!strings.Contains(log, "standalone user passwd admin") {
		t.Errorf("no warning naming the setting and user passwd: %s", log)
	}
	if a := s.post(t, "/api/bw/v2/auth", url.Values{"u": {"admin"}, "p": {"second password"}}, ""); a.status != 401 {
		t.Errorf("login with the ignored password: %d", a.status)
	}
	s.login(t, "admin", "first password")
	s.shutdown(t)
	quiet := &cli{env: map[string]string{}}
	startServer(t, quiet, "--db", db).shutdown(t)
	if strings.Contains(quiet.stderr.String(), warning) {
		t.Errorf("a start without --admin-password warned: %s", quiet.stderr.String())
	}
}

// TestHelpListsCommands: --help lists the server's flags and every
// command, one line each; a command without its verb lists its own.
func TestHelpListsCommands(t *testing.T) {
	t.Parallel()
	c := &cli{env: map[string]string{}}
	if code := c.run(t, "--help"); code != 0 {
		t.Fatalf("--help: exit %d, %s", code, c.stderr.String())
	}
	out := c.stdout.String()
	if !strings.Contains(out, "--admin-password (CMS_ADMIN_PASSWORD") {
		t.Errorf("--help lists no flags:\n%s", out)
	}
	for _, line := range []string{
		"standalone worker [--batch-workers N] [--batch-lease D]  ",
		"standalone account add ID [--langs en,it]  ",
		"standalone account list  ",
		"standalone account add-lang ID CODE  ",
		"standalone account default-lang ID CODE  ",
		"standalone user add NAME [--account ID] [--perms P1,P2] [--password P]  ",
		"standalone user passwd NAME [--password P]  ",
		"standalone user perms NAME P1,P2  ",
		"standalone user disable NAME | enable NAME  ",
		"standalone user unlock NAME  ",
		"standalone user delete NAME  ",
		"standalone user list [--account ID]  ",
		"standalone webhook add URL --user NAME [--account ID] [--events E1,E2] [--secret S]  adds a webhook",
		"standalone webhook list [--account ID]  ",
		"standalone webhook remove ID  ",
	} {
		if strings.Count(out, line) != 1 {
			t.Errorf("--help does not list %q once:\n%s", line, out)
		}
	}
	u := &cli{env: map[string]string{}}
	if code := u.run(t, "user"); code != 1 || !strings.Contains(u.stderr.String(), "usage:\n  standalone user add NAME") ||
		strings.Contains(u.stderr.String(), "account add") {
		t.Errorf("user without a verb: exit %d, %s", code, u.stderr.String())
	}
}
