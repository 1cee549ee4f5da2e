package main

import (
	"net/http"
	"net/url"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

// TestCommands runs every subcommand: one line and exit 0 on success; a
// clear message, a non-zero exit and no change otherwise.
func TestCommands(t *testing.T) {
	t.Parallel()
	db := "sqlite:" + filepath.Join(t.TempDir(), "cms.db")
	steps := []struct {
		args   []string
		env    map[string]string
		stdin  string
		code   int
		stdout string // exact, when code is 0
		stderr string // contained, when code is not 0
	}{
		{args: []string{"account", "add", "it-shop", "--langs", "it,en"}, stdout: "account it-shop added (langs it,en)\n"},
		{args: []string{"account", "add", "de-shop", "--langs", "de"}, stdout: "account de-shop added (langs de)\n"},
		{args: []string{"account", "add", "default"}, stdout: "account default added (langs en)\n"},
		{args: []string{"account", "add", "it-shop"}, code: 1, stderr: "account it-shop exists"},
		{args: []string{"account", "add", "ab"}, code: 1, stderr: `account id "ab"`},
		{args: []string{"account", "add", "xx-shop", "--langs", "english"}, code: 1, stderr: "--langs"},
		{args: []string{"account", "list", "extra"}, code: 1, stderr: "usage"},
		{args: []string{"account", "list"}, stdout: "de-shop\tde\ndefault\ten\nit-shop\tit,en\n"},
		{args: []string{"account", "add-lang", "de-shop", "EN"}, code: 1, stderr: "two lowercase letters"},
		{args: []string{"account", "add-lang", "nowhere", "en"}, code: 1, stderr: "account nowhere not found"},
		{args: []string{"account", "add-lang", "de-shop"}, code: 1, stderr: "usage"},
		{args: []string{"account", "add-lang", "de-shop", "en"}, stdout: "account de-shop: langs de,en, 0 records given a urlAlias in en\n"},
		{args: []string{"account", "default-lang", "de-shop", "fr"}, code: 1, stderr: "not one of account de-shop's languages"},
		{args: []string{"account", "default-lang", "de-shop", "en"}, stdout: "account de-shop: langs en,de\n"},
		{args: []string{"account", "list"}, stdout: "de-shop\ten,de\ndefault\ten\nit-shop\tit,en\n"},
		{args: []string{"user", "add", "maria", "--account", "it-shop", "--perms", "resource:*,map:read", "--password", "maria password"},
			stdout: "user maria added to account it-shop (perms resource:*,map:read)\n"},
		{args: []string{"user", "add", "hans", "--account", "de-shop"}, env: map[string]string{"CMS_USER_PASSWORD": "hans password"},
			stdout: "user hans added to account de-shop (perms *)\n"},
		{args: []string{"user", "add", "nobody", "--perms", ""}, stdin: "stdin password\n",
			stdout: `user nobody added to account default (perms "")` + "\n"},
		{args: []string{"user", "add", "maria", "--account", "it-shop", "--password", "another one"}, code: 1, stderr: "exists"},
		{args: []string{"user", "add", "ghost", "--account", "nowhere", "--password", "ghost password"}, code: 1, stderr: "account nowhere not found"},
		{args: []string{"user", "add", "bad name", "--password", "long enough"}, code: 1, stderr: "username"},
		{args: []string{"user", "add", "paul", "--perms", "all", "--password", "long enough"}, code: 1, stderr: "permission"},
		{args: []string{"user", "add", "paul", "--password", "short"}, code: 1, stderr: "at least 8"},
		{args: []string{"user", "add", "paul"}, code: 1, stderr: "no password"},
		{args: []string{"user", "passwd", "ghost", "--password", "long enough"}, code: 1, stderr: "not found"},
		{args: []string{"user", "perms", "ghost", "*"}, code: 1, stderr: "not found"},
		{args: []string{"user", "perms", "maria", "resource:fly"}, code: 1, stderr: "permission"},
		{args: []string{"user", "disable", "ghost"}, code: 1, stderr: "not found"},
		{args: []string{"user", "frobnicate", "maria"}, code: 1, stderr: "usage"},
		{args: []string{"user", "unlock", "maria"}, stdout: "user maria: failed logins cleared\n"},
		{args: []string{"user", "unlock", "ghost"}, code: 1, stderr: "user ghost not found"},
		{args: []string{"user", "unlock"}, code: 1, stderr: "usage"},
		{args: []string{"user", "passwd", "nobody", "--password", "a new password"},
			stdout: "user nobody: password changed, refresh tokens revoked, failed logins cleared\n"},
		{args: []string{"user", "list"}, stdout: "hans\tde-shop\t*\tenabled\nmaria\tit-shop\tresource:*,map:read\tenabled\nnobody\tdefault\t\"\"\tenabled\n"},
		{args: []string{"user", "list", "--account", "it-shop"}, stdout: "maria\tit-shop\tresource:*,map:read\tenabled\n"},
		{args: []string{"user", "delete", "ghost"}, code: 1, stderr: "user ghost not found"},
		{args: []string{"user", "delete", "nobody"}, stdout: "user nobody deleted, refresh tokens revoked\n"},
		{args: []string{"user", "list"}, stdout: "hans\tde-shop\t*\tenabled\nmaria\tit-shop\tresource:*,map:read\tenabled\n"},
	}
	for i, s := range steps {
		c := &cli{env: map[string]string{"CMS_DB": db}, stdin: s.stdin}
		for k, v := range s.env {
			c.env[k] = v
		}
		code := c.run(t, s.args...)
		if code != s.code {
			t.Fatalf("step %d %v: exit %d, want %d; stdout %q stderr %q", i, s.args, code, s.code, c.stdout.String(), c.stderr.String())
		}
		if code == 0 && c.stdout.String() != s.stdout {
			t.Errorf("step %d %v: stdout %q, want %q", i, s.args, c.stdout.String(), s.stdout)
		}
		if code != 0 && (!strings.Contains(c.stderr.String(), s.stderr) || !strings.HasPrefix(c.stderr.String(), "standalone: ")) {
			t.Errorf("step %d %v: stderr %q, want it to contain %q", i, s.args, c.stderr.String(), s.stderr)
		}
	}
}

// TestCommandsWhileServing: users of two accounts made with the commands
// log in with their account's languages; disable, passwd and perms take
// effect on the running server.
func TestCommandsWhileServing(t *testing.T) {
	t.Parallel()
	db := "sqlite:" + filepath.Join(t.TempDir(), "cms.db")
	cmd := func(args ...string) {
		t.Helper()
		c := &cli{env: map[string]string{"CMS_DB": db}}
		if code := c.run(t, args...); code != 0 {
			t.Fatalf("%v: %d %s", args, code, c.stderr.String())
		}
	}
	s := startServer(t, &cli{env: map[string]string{"CMS_ADMIN_PASSWORD": "admin password"}}, "--db", db)
	cmd("account", "add", "it-shop", "--langs", "it,en")
	cmd("account", "add", "de-shop", "--langs", "de")
	cmd("user", "add", "maria", "--account", "it-shop", "--password", "maria password")
	cmd("user", "add", "hans", "--account", "de-shop", "--perms", "resource:read", "--password", "hans password")

	maria := s.login(t, "maria", "maria password")
	if cl := s.claims(t, maria.Access); cl.Acc != "it-shop" || cl.Lang != "it" || strings.Join(cl.Langs, ",") != "it,en" {
		t.Errorf("maria: %+v", cl)
	}
	hans := s.login(t, "hans", "hans password")
	if cl := s.claims(t, hans.Access); cl.Acc != "de-shop" || cl.Lang != "de" || strings.Join(cl.Langs, ",") != "de" ||
		strings.Join(cl.Perms, ",") != "resource:read" {
		t.Errorf("hans: %+v", cl)
	}

	// perms reach the next refresh.
	cmd("user", "perms", "hans", "map:*,resource:read")
	a := s.post(t, "/api/bw/v2/auth/refresh", nil, hans.Refresh)
	if a.status != 200 {
		t.Fatalf("refresh: %d %s", a.status, a.body)
	}
	var next session
	jsonUnmarshal(a.body, &next)
	if cl := s.claims(t, next.Access); strings.Join(cl.Perms, ",") != "map:*,resource:read" {
		t.Errorf("perms after refresh: %v", cl.Perms)
	}

	// passwd revokes the refresh tokens.
	cmd("user", "passwd", "hans", "--password", "hans new password")
	if a := s.post(t, "/api/bw/v2/auth/refresh", nil, next.Refresh); a.status != 401 {
		t.Errorf("refresh after passwd: %d %s", a.status, a.body)
	}
	s.login(t, "hans", "hans new password")

	// disable: the access token stops working within 5 s, refresh fails,
	// login fails; enable lets the user log in again.
	cmd("user", "disable", "maria")
	deadline := time.Now().Add(5 * time.Second)
	for s.get(t, "/api/bw/v2/auth", maria.Access).status != 401 {
		if time.Now().After(deadline) {
			t.Fatal("a disabled user's access token still works after 5 s")
		}
		time.Sleep(100 * time.Millisecond)
	}
	if a := s.post(t, "/api/bw/v2/auth/refresh", nil, maria.Refresh); a.status != 401 {
		t.Errorf("refresh of a disabled user: %d", a.status)
	}
	if a := s.post(t, "/api/bw/v2/auth", url.Values{"u": {"maria"}, "p": {"maria password"}}, ""); a.status != 401 {
		t.Errorf("login of a disabled user: %d", a.status)
	}
	cmd("user", "enable", "maria")
	s.login(t, "maria", "maria password")
}

// TestThrottlingWhileServing: behind a trusted proxy (--trusted-proxies,
// here through CMS_TRUSTED_PROXIES) failures count per client address;
// user unlock and user passwd clear a locked-out user's failures on the
// running server; a malformed list stops the start.
func TestThrottlingWhileServing(t *testing.T) {
	t.Parallel()
	db := "sqlite:" + filepath.Join(t.TempDir(), "cms.db")
	cmd := func(args ...string) string {
		t.Helper()
		c := &cli{env: map[string]string{"CMS_DB": db}}
		if code := c.run(t, args...); code != 0 {
			t.Fatalf("%v: %d %s", args, code, c.stderr.String())
		}
		return c.stdout.String()
	}
	// The tests connect from 127.0.0.1: the proxy.
	s := startServer(t, &cli{env: map[string]string{"CMS_ADMIN_PASSWORD": "admin password",
		"CMS_TRUSTED_PROXIES": "192.0.2.1, 127.0.0.0/8"}}, "--db", db)
	cmd("user", "add", "maria", "--password", "maria password")
	login := func(client, password string) int {
		t.Helper()
		req, _ := http.NewRequest("POST", s.url+"/api/bw/v2/auth", strings.NewReader(url.Values{"u": {"maria"}, "p": {password}}.Encode()))
		req.Header.Set("Content-Type", "application/x-www-form-urlencoded")
		req.Header.Set("X-Forwarded-For", client)
		return s.do(t, req).status
	}
	const attacker, user = "203.0.113.7", "198.51.100.2"
	lockOut := func() {
		t.Helper()
		for range 5 {
			login(attacker, "a wrong password")
		}
		if got := login(attacker, "maria password"); got != 429 {
			t.Fatalf("after 5 failures: %d, want 429", got)
		}
	}
	lockOut()
	if got := login(user, "maria password"); got != 200 {
		t.Errorf("maria from another address: %d, want 200", got)
	}
	if out := cmd("user", "unlock", "maria"); out != "user maria: failed logins cleared\n" {
		t.Errorf("unlock printed %q", out)
	}
	if got := login(attacker, "maria password"); got != 200 {
		t.Errorf("after user unlock: %d, want 200", got)
	}
	lockOut()
	cmd("user", "passwd", "maria", "--password", "maria new password")
	if got := login(attacker, "maria new password"); got != 200 {
		t.Errorf("after user passwd: %d, want 200", got)
	}

	bad := &cli{env: map[string]string{"CMS_DB": db}}
	if code := bad.run(t, "--addr", "127.0.0.1:0", "--trusted-proxies", "10.0.0.0/8,proxy.example"); code == 0 ||
		!strings.Contains(bad.stderr.String(), `--trusted-proxies: "proxy.example": want an address or a CIDR`) {
		t.Errorf("bad --trusted-proxies: exit %d, %q", code, bad.stderr.String())
	}
}
