package main

import (
	"encoding/json"
	"io"
	"net/http"
	"net/http/httptest"
	"path/filepath"
	"regexp"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/bwcms/cms/cms"
	"github.com/bwcms/cms/webhook"
)

// TestChangeSettings: --history-keep and --webhook-allow-private read
// from flags and the environment (a flag wins), 0 keeps every revision,
// the switch works alone, and the service gets a webhook sender with the
// same address rule.
func TestChangeSettings(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		args    []string
		env     map[string]string
		keep    time.Duration
		private bool
	}{
		{keep: cms.DefaultHistoryKeep},
		{args: []string{"--history-keep", "0"}, keep: cms.KeepAllHistory},
		{args: []string{"--history-keep=720h"}, keep: 720 * time.Hour},
		{env: map[string]string{"CMS_HISTORY_KEEP": "48h", "CMS_WEBHOOK_ALLOW_PRIVATE": "true"}, keep: 48 * time.Hour, private: true},
		{args: []string{"--history-keep", "1h"}, env: map[string]string{"CMS_HISTORY_KEEP": "0"}, keep: time.Hour},
		// Alone, the switch means true and takes nothing after it.
		{args: []string{"--webhook-allow-private", "--history-keep", "5h"}, keep: 5 * time.Hour, private: true},
		{args: []string{"--webhook-allow-private=false"}, env: map[string]string{"CMS_WEBHOOK_ALLOW_PRIVATE": "1"}, keep: cms.DefaultHistoryKeep},
		{env: map[string]string{"CMS_WEBHOOK_ALLOW_PRIVATE": "false"}, keep: cms.DefaultHistoryKeep},
	} {
		c := &cli{env: tc.env}
		cfg, rest, err := settings(c.env0(), "standalone", tc.args, allServerSettings())
		if err != nil || len(rest) != 0 {
			t.Fatalf("%v %v: %v, rest %v", tc.args, tc.env, err, rest)
		}
		o, err := readChangeOptions(cfg)
		if err != nil {
			t.Fatalf("%v %v: %v", tc.args, tc.env, err)
		}
		if o.historyKeep != tc.keep || o.allowPrivate != tc.private {
			t.Errorf("%v %v: keep %v private %v, want %v %v", tc.args, tc.env, o.historyKeep, o.allowPrivate, tc.keep, tc.private)
		}
		var opts cms.Options
		o.apply(&opts)
		if _, ok := opts.WebhookSender.(*webhook.Sender); !ok || opts.HistoryKeep != tc.keep || opts.WebhookAllowPrivate != tc.private {
			t.Errorf("%v %v: options %T %v %v", tc.args, tc.env, opts.WebhookSender, opts.HistoryKeep, opts.WebhookAllowPrivate)
		}
	}
}

// TestChangeSettingsRefused: a bad --history-keep or
// --webhook-allow-private stops the server and the worker with a message
// naming it, before anything is created.
func TestChangeSettingsRefused(t *testing.T) {
	t.Parallel()
	cases := []refusal{
		{[]string{"--history-keep", "forever"}, nil, `--history-keep "forever": want a duration such as 2160h`},
		{[]string{"--history-keep", "-1h"}, nil, `--history-keep "-1h": want a duration`},
		{nil, map[string]string{"CMS_HISTORY_KEEP": "90d"}, `--history-keep "90d": want a duration`},
		{[]string{"--webhook-allow-private=maybe"}, nil, `--webhook-allow-private "maybe": want true or false`},
		{nil, map[string]string{"CMS_WEBHOOK_ALLOW_PRIVATE": "perhaps"}, `--webhook-allow-private "perhaps": want true or false`},
		// A value after the switch is not its value.
		{[]string{"--webhook-allow-private", "false"}, nil, `unknown command "false"`},
	}
	refused(t, cases)
	for _, tc := range cases[:5] {
		db := filepath.Join(t.TempDir(), "cms.db")
		c := &cli{env: tc.env}
		if code := c.run(t, append([]string{"worker", "--db", "sqlite:" + db}, tc.args...)...); code == 0 ||
			!strings.Contains(c.stderr.String(), tc.want) {
			t.Errorf("worker %v %v: exit %d, %q; want %q", tc.args, tc.env, code, c.stderr.String(), tc.want)
		}
	}
	c := &cli{}
	if code := c.run(t, "webhook", "list", "--db", "sqlite:"+filepath.Join(t.TempDir(), "cms.db"), "--webhook-allow-private=sure"); code == 0 ||
		!strings.Contains(c.stderr.String(), `--webhook-allow-private "sure": want true or false`) {
		t.Errorf("webhook list with a bad switch: exit %d, %q", code, c.stderr.String())
	}
}

// secretLine finds the secret `webhook add` printed.
var secretLine = regexp.MustCompile(`secret (whsec_[A-Za-z0-9+/=]+) \(shown once\)`)

// addedLine finds the id `webhook add` printed.
var addedLine = regexp.MustCompile(`^webhook (\S+) added to account (\S+) for user (\S+) \(events (\S+)\)`)

// TestWebhookCommands: webhook add prints the id and, once, a secret it
// made; list shows every webhook and never a secret; remove removes.
// Bad input (no user, an unknown one, one of another account, a bad url,
// a private address without --webhook-allow-private, events the user may
// not read, a bad secret) exits non-zero with a clear message and adds
// nothing.
func TestWebhookCommands(t *testing.T) {
	t.Parallel()
	db := "sqlite:" + filepath.Join(t.TempDir(), "cms.db")
	cmd := func(code int, args ...string) (stdout, stderr string) {
		t.Helper()
		c := &cli{env: map[string]string{"CMS_DB": db, "CMS_USER_PASSWORD": "a long password"}}
		if got := c.run(t, args...); got != code {
			t.Fatalf("%v: exit %d, want %d; stdout %q stderr %q", args, got, code, c.stdout.String(), c.stderr.String())
		}
		return c.stdout.String(), c.stderr.String()
	}
	cmd(0, "account", "add", "it-shop", "--langs", "it,en")
	cmd(0, "account", "add", "default")
	cmd(0, "user", "add", "maria", "--account", "it-shop", "--perms", "resource:*,map:read")
	cmd(0, "user", "add", "ops")

	const given = "whsec_MfKQ9r8GKYqrTwjUPD8ILPZIo2LaLaSw"
	for _, tc := range []struct {
		args []string
		want string
	}{
		{[]string{"https://hooks.example.com/cms"}, "--user NAME is required"},
		{[]string{"https://hooks.example.com/cms", "--user", "ghost"}, "user ghost not found"},
		{[]string{"https://hooks.example.com/cms", "--user", "maria"}, "user maria belongs to account it-shop, not default"},
		{[]string{"https://hooks.example.com/cms", "--user", "maria", "--account", "nowhere"}, "user maria belongs to account it-shop, not nowhere"},
		{[]string{"ftp://hooks.example.com/cms", "--user", "maria", "--account", "it-shop"}, "Invalid webhook: url: must be an http or https address"},
		{[]string{"http://127.0.0.1:9000/hook", "--user", "maria", "--account", "it-shop"}, "url: must not name an address of a private or special network (127.0.0.1)"},
		{[]string{"http://169.254.169.254/", "--user", "ops", "--webhook-allow-private=false"}, "private or special network (169.254.169.254)"},
		{[]string{"https://hooks.example.com/cms", "--user", "maria", "--account", "it-shop", "--events", "proposal.upsert"}, "events[0]: names proposal, which you may not read"},
		{[]string{"https://hooks.example.com/cms", "--user", "maria", "--account", "it-shop", "--events", "resource.create"}, `events[0]: must be "*" or <kind>.upsert or <kind>.delete`},
		{[]string{"https://hooks.example.com/cms", "--user", "maria", "--account", "it-shop", "--secret", "hunter2"}, `secret: must be "whsec_"`},
	} {
		_, stderr := cmd(1, append([]string{"webhook", "add"}, tc.args...)...)
		if !strings.HasPrefix(stderr, "standalone: ") || !strings.Contains(stderr, tc.want) {
			t.Errorf("webhook add %v: %q, want %q", tc.args, stderr, tc.want)
		}
	}
	if out, _ := cmd(0, "webhook", "list"); out != "" {
		t.Fatalf("refused webhooks were added: %q", out)
	}

	// A private address with the switch (CMS_WEBHOOK_ALLOW_PRIVATE is
	// the same); the service makes the secret and it is printed once.
	out, _ := cmd(0, "webhook", "add", "http://127.0.0.1:9000/hook", "--user", "maria", "--account", "it-shop", "--webhook-allow-private")
	m, s := addedLine.FindStringSubmatch(out), secretLine.FindStringSubmatch(out)
	if m == nil || s == nil || m[2] != "it-shop" || m[3] != "maria" || m[4] != "*" || strings.Count(out, "\n") != 1 {
		t.Fatalf("webhook add printed %q", out)
	}
	made, madeSecret := m[1], s[1]
	out, _ = cmd(0, "webhook", "add", "https://hooks.example.com/cms", "--user", "ops", "--events", "resource.upsert, map.delete", "--secret", given)
	m = addedLine.FindStringSubmatch(out)
	if m == nil || m[2] != "default" || m[4] != "resource.upsert,map.delete" || strings.Contains(out, "secret") {
		t.Fatalf("webhook add with a secret printed %q", out)
	}
	ops := m[1]

	list, _ := cmd(0, "webhook", "list")
	// By account, then oldest first.
	want := ops + "\tdefault\thttps://hooks.example.com/cms\tresource.upsert,map.delete\tops\tenabled\n" +
		made + "\tit-shop\thttp://127.0.0.1:9000/hook\t*\tmaria\tenabled\n"
	if list != want {
		t.Errorf("webhook list:\n%s\nwant\n%s", list, want)
	}
	if strings.Contains(list, madeSecret) || strings.Contains(list, given) || strings.Contains(list, "whsec_") {
		t.Errorf("webhook list shows a secret: %q", list)
	}
	if list, _ := cmd(0, "webhook", "list", "--account", "it-shop"); list != made+"\tit-shop\thttp://127.0.0.1:9000/hook\t*\tmaria\tenabled\n" {
		t.Errorf("webhook list --account it-shop: %q", list)
	}

	if _, stderr := cmd(1, "webhook", "remove", "wh_nothing"); !strings.Contains(stderr, `webhook "wh_nothing": there is no such webhook`) {
		t.Errorf("remove of no webhook: %q", stderr)
	}
	for _, args := range [][]string{{"webhook"}, {"webhook", "remove"}, {"webhook", "list", "extra"}, {"webhook", "frobnicate"}} {
		if _, stderr := cmd(1, args...); !strings.Contains(stderr, "usage:\n  standalone webhook add URL") {
			t.Errorf("%v: %q", args, stderr)
		}
	}
	if out, _ := cmd(0, "webhook", "remove", made); out != "webhook "+made+" removed\n" {
		t.Errorf("remove printed %q", out)
	}
	if list, _ := cmd(0, "webhook", "list"); list != ops+"\tdefault\thttps://hooks.example.com/cms\tresource.upsert,map.delete\tops\tenabled\n" {
		t.Errorf("webhook list after remove: %q", list)
	}
	if _, stderr := cmd(1, "webhook", "remove", made); !strings.Contains(stderr, "no such webhook") {
		t.Errorf("second remove: %q", stderr)
	}
}

// TestWebhookAllowPrivateServer: without --webhook-allow-private the
// server refuses a webhook to 127.0.0.1 and stores nothing; with it (here
// CMS_WEBHOOK_ALLOW_PRIVATE) the webhook is made, and the server's sender
// connects to 127.0.0.1 and delivers a signed message of a write.
func TestWebhookAllowPrivateServer(t *testing.T) {
	t.Parallel()
	db := "sqlite:" + filepath.Join(t.TempDir(), "cms.db")
	got := make(chan message, 16)
	var secret atomic.Value
	rcv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		body, _ := io.ReadAll(r.Body)
		s, _ := secret.Load().(string)
		var m message
		if err := webhook.Verify([]string{s}, r.Header, body, time.Now(), 0); err != nil || json.Unmarshal(body, &m) != nil {
			http.Error(w, "refused", http.StatusUnauthorized)
			return
		}
		got <- m
	}))
	defer rcv.Close()
	hook := map[string]any{"url": rcv.URL + "/hook"}

	s := startServer(t, &cli{env: map[string]string{"CMS_ADMIN_PASSWORD": "admin password"}}, "--db", db)
	c := loginAt(t, s.url, "admin password")
	if r := c.post(t.Context(), "/api/bw/v2/webhook", hook); r.status != 409 || !strings.Contains(string(r.body), "private or special network") {
		t.Errorf("a webhook to 127.0.0.1 without the switch: %d %s", r.status, r.body)
	}
	if r := c.get(t.Context(), "/api/bw/v2/webhook"); r.status != 200 || strings.TrimSpace(string(r.body)) != `{"webhooks":[]}` {
		t.Errorf("webhooks after the refusal: %d %s", r.status, r.body)
	}
	s.shutdown(t)

	s = startServer(t, &cli{env: map[string]string{"CMS_WEBHOOK_ALLOW_PRIVATE": "true"}}, "--db", db)
	c = loginAt(t, s.url, "admin password")
	r := c.post(t.Context(), "/api/bw/v2/webhook", hook)
	var made struct{ ID, Secret string }
	if r.status != 201 || json.Unmarshal(r.body, &made) != nil || !strings.HasPrefix(made.Secret, "whsec_") {
		t.Fatalf("a webhook to 127.0.0.1 with the switch: %d %s", r.status, r.body)
	}
	secret.Store(made.Secret)
	if r := c.post(t.Context(), "/api/bw/v2/resource", map[string]any{"id": "harbour", "title": "Harbour"}); r.status != 201 {
		t.Fatalf("write: %d %s", r.status, r.body)
	}
	select {
	case m := <-got:
		if m.Type != "resource.upsert" || m.Data.ID != "harbour" || m.Data.Rev != 1 {
			t.Errorf("message: %+v", m)
		}
	case <-time.After(30 * time.Second):
		t.Fatal("no message delivered in 30 s")
	}
}
