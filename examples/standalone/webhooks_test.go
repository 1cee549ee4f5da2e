package main

import (
	"path/filepath"
	"regexp"
	"strings"
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
