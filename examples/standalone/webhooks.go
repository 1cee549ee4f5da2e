package main

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"time"

	"github.com/bwcms/cms/cms"
	"github.com/bwcms/cms/webhook"
)

// historySettings are how long history is kept and where webhooks may
// send (DECISIONS §18).
var historySettings = []setting{
	{"history-keep", "CMS_HISTORY_KEEP", "2160h", "how long records' revisions and the changes feed reach back (0: every revision is kept)"},
	webhookAllowPrivateSetting,
}

// webhookAllowPrivateSetting is a switch: given alone it means true.
var webhookAllowPrivateSetting = setting{"webhook-allow-private", "CMS_WEBHOOK_ALLOW_PRIVATE", "false",
	"let webhooks target loopback and private networks (a receiver beside the server, tests)"}

// changeOptions is what historySettings ask for.
type changeOptions struct {
	// historyKeep is cms.KeepAllHistory for --history-keep 0.
	historyKeep  time.Duration
	allowPrivate bool
}

// readChangeOptions reads historySettings.
func readChangeOptions(cfg map[string]string) (changeOptions, error) {
	var o changeOptions
	d, err := time.ParseDuration(cfg["history-keep"])
	if err != nil || d < 0 {
		return o, fmt.Errorf("--history-keep %q: want a duration such as 2160h (90 days; 0: every revision is kept)", cfg["history-keep"])
	}
	if d == 0 {
		d = cms.KeepAllHistory
	}
	o.historyKeep = d
	if o.allowPrivate, err = allowPrivate(cfg); err != nil {
		return o, err
	}
	return o, nil
}

// allowPrivate reads --webhook-allow-private.
func allowPrivate(cfg map[string]string) (bool, error) {
	v := cfg["webhook-allow-private"]
	switch strings.ToLower(v) {
	case "true", "1", "on", "yes":
		return true, nil
	case "false", "0", "off", "no", "":
		return false, nil
	}
	return false, fmt.Errorf("--webhook-allow-private %q: want true or false", v)
}

// apply sets the service's options of o; every process that runs the
// service (server, worker) delivers webhooks, so a delivery never waits
// for a kind of process that may not run.
func (o changeOptions) apply(opts *cms.Options) {
	opts.HistoryKeep = o.historyKeep
	opts.WebhookAllowPrivate = o.allowPrivate
	opts.WebhookSender = webhook.NewSender(webhook.SenderOptions{AllowPrivate: o.allowPrivate})
}

// webhookCommand runs the webhook subcommands.
func webhookCommand(ctx context.Context, args []string, e env) error {
	cfg, rest, err := settings(e, "webhook", args, []setting{dbSetting,
		{"account", "", "", "account id (add: the user's account, checked; default default)"},
		{"user", "", "", "the user the webhook acts for: it carries the kinds that user may read"},
		{"events", "", "", "comma-separated events (resource.upsert, map.delete, ...); default *: every change"},
		{"secret", "", "", "signing secret, whsec_ + base64 (default: made and printed once)"},
		webhookAllowPrivateSetting})
	if err != nil {
		return err
	}
	if len(rest) == 0 {
		return errors.New(usage("webhook"))
	}
	verb, rest := rest[0], rest[1:]
	want := map[string]int{"add": 1, "list": 0, "remove": 1}
	if n, ok := want[verb]; !ok || len(rest) != n {
		return errors.New(usage("webhook"))
	}
	private, err := allowPrivate(cfg)
	if err != nil {
		return err
	}
	if verb == "add" && cfg["user"] == "" {
		return errors.New("webhook add: --user NAME is required (the user the webhook acts for)")
	}
	return withServiceOptions(ctx, cfg, &cms.Options{WebhookAllowPrivate: private}, func(svc *cms.Service) error {
		switch verb {
		case "add":
			return webhookAdd(ctx, svc, rest[0], cfg, e)
		case "list":
			hooks, err := svc.AccountWebhooks(ctx, cfg["account"])
			if err != nil {
				return err
			}
			for _, h := range hooks {
				fmt.Fprintf(e.stdout, "%s\t%s\t%s\t%s\t%s\t%s\n", h.ID, h.Account, h.URL, strings.Join(h.Events, ","), h.User, webhookState(h))
			}
		case "remove":
			if err := svc.DeleteWebhookByID(ctx, rest[0]); err != nil {
				return err
			}
			fmt.Fprintf(e.stdout, "webhook %s removed\n", rest[0])
		}
		return nil
	})
}

func webhookAdd(ctx context.Context, svc *cms.Service, url string, cfg map[string]string, e env) error {
	name, account := cfg["user"], cfg["account"]
	if account == "" {
		account = defaultAccount
	}
	// The webhook goes to the user's account: a user of another account
	// than the one named is a mistake worth stopping.
	u, err := svc.User(ctx, name)
	if err != nil {
		return err
	}
	if u.Account != account {
		return fmt.Errorf("user %s belongs to account %s, not %s", name, u.Account, account)
	}
	in := cms.WebhookInput{URL: &url}
	for ev := range strings.SplitSeq(cfg["events"], ",") {
		if ev = strings.TrimSpace(ev); ev != "" {
			in.Events = append(in.Events, ev)
		}
	}
	if s := cfg["secret"]; s != "" {
		in.Secret = &s
	}
	h, secret, err := svc.CreateWebhookFor(ctx, name, in)
	if err != nil {
		return err
	}
	line := fmt.Sprintf("webhook %s added to account %s for user %s (events %s)", h.ID, h.Account, h.User, strings.Join(h.Events, ","))
	if secret != "" {
		line += ", secret " + secret + " (shown once)"
	}
	fmt.Fprintln(e.stdout, line)
	return nil
}

// webhookState is "enabled", or "disabled" with the service's reason.
func webhookState(h cms.Webhook) string {
	switch {
	case h.Enabled:
		return "enabled"
	case h.Disabled != "":
		return "disabled: " + h.Disabled
	}
	return "disabled"
}
