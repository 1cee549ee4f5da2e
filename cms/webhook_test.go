package cms_test

import (
	"context"
	"encoding/base64"
	"net/netip"
	"slices"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/bwcms/cms/cms"
	"github.com/bwcms/cms/internal/testenv"
)

// hooks is the fixture of the webhook tests: accounts acme and other, a
// settable clock and a sender that records the messages it is given.
type hooks struct {
	svc    *cms.Service
	store  cms.Store
	clock  *testenv.Clock
	sender *fakeSender
	obs    *hookObserver
	seen   int // messages deliver has answered
}

var hookAccounts = []testenv.Account{
	{Name: "acme", Langs: testenv.Langs("en", "it"), Users: []testenv.User{
		{Name: "root", Perms: []string{"*"}},
		{Name: "hooker", Perms: []string{"webhook:*", "resource:read"}},
		{Name: "mapper", Perms: []string{"webhook:*", "map:*"}},
		{Name: "watcher", Perms: []string{"webhook:read", "*:read"}},
		{Name: "editor", Perms: []string{"*:*"}},
	}},
	{Name: "other", Langs: testenv.Langs("en"), Users: []testenv.User{{Name: "otto", Perms: []string{"*"}}}},
}

const hookURL = "https://hooks.example.com/cms"

func forEachHookDatabase(t *testing.T, adjust func(*cms.Options), test func(t *testing.T, e *hooks)) {
	for _, db := range []testenv.Database{{Name: "sqlite", Open: testenv.OpenSQLiteMemory}, {Name: "postgres", Open: testenv.OpenPostgres}} {
		t.Run(db.Name, func(t *testing.T) {
			t.Parallel()
			st := db.Open(t)
			clock := testenv.NewClock()
			sender, obs := &fakeSender{}, &hookObserver{}
			svc := testenv.NewService(t, st, clock, func(o *cms.Options) {
				o.WebhookSender, o.Observer = sender, obs
				if adjust != nil {
					adjust(o)
				}
			}, hookAccounts...)
			test(t, &hooks{svc: svc, store: st, clock: clock, sender: sender, obs: obs})
		})
	}
}

// fakeSender records the messages it is sent and answers what answer
// says (200 without one).
type fakeSender struct {
	mu     sync.Mutex
	sent   []cms.WebhookMessage
	answer func(cms.WebhookMessage) cms.WebhookAttempt
}

func (f *fakeSender) Send(_ context.Context, m cms.WebhookMessage) cms.WebhookAttempt {
	f.mu.Lock()
	f.sent = append(f.sent, m)
	answer := f.answer
	f.mu.Unlock()
	if answer != nil {
		return answer(m)
	}
	return cms.WebhookAttempt{Status: 200}
}

func (f *fakeSender) answerWith(a func(cms.WebhookMessage) cms.WebhookAttempt) {
	f.mu.Lock()
	defer f.mu.Unlock()
	f.answer = a
}

func (f *fakeSender) messages() []cms.WebhookMessage {
	f.mu.Lock()
	defer f.mu.Unlock()
	return slices.Clone(f.sent)
}

func answerStatus(status int) func(cms.WebhookMessage) cms.WebhookAttempt {
	return func(cms.WebhookMessage) cms.WebhookAttempt {
		return cms.WebhookAttempt{Status: status, Response: []byte("status " + strconv.Itoa(status))}
	}
}

func (e *hooks) as(t *testing.T, user string) context.Context {
	t.Helper()
	sess, err := e.svc.Login(t.Context(), user, testenv.Password, netip.Addr{})
	if err != nil {
		t.Fatalf("login %s: %v", user, err)
	}
	return cms.WithPrincipal(t.Context(), sess.Principal)
}

func (e *hooks) create(t *testing.T, ctx context.Context, in cms.WebhookInput) (cms.Webhook, string) {
	t.Helper()
	if in.URL == nil {
		in.URL = ptr(hookURL)
	}
	w, secret, err := e.svc.CreateWebhook(ctx, in)
	if err != nil {
		t.Fatalf("create webhook: %v", err)
	}
	return w, secret
}

func (e *hooks) upsert(t *testing.T, ctx context.Context, kind cms.Kind, body string) {
	t.Helper()
	e.clock.Advance(time.Second)
	if _, err := e.svc.Upsert(ctx, kind, []byte(body), nil); err != nil {
		t.Fatalf("upsert %s %s: %v", kind, body, err)
	}
}

func (e *hooks) delete(t *testing.T, ctx context.Context, kind cms.Kind, ids ...string) {
	t.Helper()
	e.clock.Advance(time.Second)
	if _, err := e.svc.Delete(ctx, kind, ids, nil); err != nil {
		t.Fatalf("delete %s %v: %v", kind, ids, err)
	}
}

// deliver materializes and sends what is due, and returns the messages
// sent since the last call.
func (e *hooks) deliver(t *testing.T) []cms.WebhookMessage {
	t.Helper()
	if err := e.svc.MaterializeWebhooks(t.Context()); err != nil {
		t.Fatalf("materialize: %v", err)
	}
	if _, err := e.svc.SendWebhooks(t.Context(), "test"); err != nil {
		t.Fatalf("send: %v", err)
	}
	all := e.sender.messages()
	fresh := all[e.seen:]
	e.seen = len(all)
	return fresh
}

// log reads a webhook's whole delivery log, newest first.
func (e *hooks) log(t *testing.T, ctx context.Context, id string) []cms.Delivery {
	t.Helper()
	page, err := e.svc.WebhookDeliveries(ctx, id, cms.DeliveriesParams{Limit: 1000})
	if err != nil {
		t.Fatalf("deliveries of %s: %v", id, err)
	}
	return page.Deliveries
}

func ptr[T any](v T) *T { return &v }

// TestWebhookManagement: a webhook made, listed, read, changed and
// deleted; the secret the service makes is answered once, at creation,
// and a secret given is never answered.
func TestWebhookManagement(t *testing.T) {
	forEachHookDatabase(t, nil, func(t *testing.T, e *hooks) {
		ctx := e.as(t, "hooker")
		w, secret := e.create(t, ctx, cms.WebhookInput{})
		if !strings.HasPrefix(w.ID, "wh_") || w.Account != "acme" || w.URL != hookURL || w.User != "hooker" ||
			!slices.Equal(w.Events, []string{"*"}) || !w.Enabled || w.Disabled != "" || w.FailedInRow != 0 {
			t.Fatalf("created: %+v", w)
		}
		key, ok := strings.CutPrefix(secret, "whsec_")
		raw, err := base64.StdEncoding.DecodeString(key)
		if !ok || err != nil || len(raw) != 32 {
			t.Fatalf("secret made: %q", secret)
		}
		given := "whsec_" + base64.StdEncoding.EncodeToString([]byte("0123456789abcdef0123456789abcdef"))
		e.clock.Advance(time.Second) // listed oldest first
		w2, secret2, err := e.svc.CreateWebhook(ctx, cms.WebhookInput{URL: ptr("http://hooks.example.com/two"),
			Events: []string{"resource.upsert", "resource.delete", "resource.upsert"}, Secret: &given, Enabled: ptr(false)})
		if err != nil {
			t.Fatal(err)
		}
		if secret2 != "" || w2.Enabled || !slices.Equal(w2.Events, []string{"resource.upsert", "resource.delete"}) {
			t.Fatalf("second: %+v, secret %q", w2, secret2)
		}
		list, err := e.svc.Webhooks(ctx)
		if err != nil {
			t.Fatal(err)
		}
		if len(list) != 2 || list[0].ID != w.ID || list[1].ID != w2.ID {
			t.Fatalf("list: %+v", list)
		}
		got, err := e.svc.GetWebhook(ctx, w.ID)
		if err != nil || got.ID != w.ID || got.URL != hookURL {
			t.Fatalf("get: %+v, %v", got, err)
		}
		e.clock.Advance(time.Minute)
		up, err := e.svc.UpdateWebhook(ctx, w.ID, cms.WebhookInput{URL: ptr("https://hooks.example.com/new"),
			Events: []string{"resource.delete"}})
		if err != nil {
			t.Fatal(err)
		}
		if up.URL != "https://hooks.example.com/new" || !slices.Equal(up.Events, []string{"resource.delete"}) ||
			!up.Updated.After(up.Created) {
			t.Fatalf("updated: %+v", up)
		}
		if got, _ := e.svc.GetWebhook(ctx, w.ID); got.URL != up.URL || !slices.Equal(got.Events, up.Events) {
			t.Fatalf("read after the update: %+v", got)
		}
		// A webhook disabled by a user says no reason; enabled again it
		// has no failures.
		off, err := e.svc.UpdateWebhook(ctx, w.ID, cms.WebhookInput{Enabled: ptr(false)})
		if err != nil || off.Enabled || off.Disabled != "" {
			t.Fatalf("disabled: %+v, %v", off, err)
		}
		if err := e.svc.DeleteWebhook(ctx, w.ID); err != nil {
			t.Fatal(err)
		}
		if _, err := e.svc.GetWebhook(ctx, w.ID); cms.ErrorCode(err) != cms.CodeNotFound {
			t.Fatalf("get after delete: %v", err)
		}
		if err := e.svc.DeleteWebhook(ctx, w.ID); cms.ErrorCode(err) != cms.CodeNotFound {
			t.Fatalf("delete twice: %v", err)
		}
		if list, _ := e.svc.Webhooks(ctx); len(list) != 1 || list[0].ID != w2.ID {
			t.Fatalf("list after delete: %+v", list)
		}
	})
}

// TestWebhookValidation: every bad input is refused with a problem
// naming its field, and changes nothing.
func TestWebhookValidation(t *testing.T) {
	forEachHookDatabase(t, nil, func(t *testing.T, e *hooks) {
		ctx := e.as(t, "mapper") // may read maps only
		short := "whsec_" + base64.StdEncoding.EncodeToString(make([]byte, 16))
		long := "whsec_" + base64.StdEncoding.EncodeToString(make([]byte, 65))
		for _, c := range []struct {
			name  string
			in    cms.WebhookInput
			field string
		}{
			{"no url", cms.WebhookInput{}, "url"},
			{"empty url", cms.WebhookInput{URL: ptr("")}, "url"},
			{"ftp", cms.WebhookInput{URL: ptr("ftp://hooks.example.com/")}, "url"},
			{"relative", cms.WebhookInput{URL: ptr("/hooks")}, "url"},
			{"no host", cms.WebhookInput{URL: ptr("https:///path")}, "url"},
			{"opaque", cms.WebhookInput{URL: ptr("https:hooks.example.com")}, "url"},
			{"too long", cms.WebhookInput{URL: ptr("https://hooks.example.com/" + strings.Repeat("a", 2000))}, "url"},
			{"user", cms.WebhookInput{URL: ptr("https://me:pw@hooks.example.com/")}, "url"},
			{"loopback", cms.WebhookInput{URL: ptr("http://127.0.0.1:8080/")}, "url"},
			{"loopback v6", cms.WebhookInput{URL: ptr("http://[::1]/")}, "url"},
			{"mapped", cms.WebhookInput{URL: ptr("http://[::ffff:10.0.0.1]/")}, "url"},
			{"private", cms.WebhookInput{URL: ptr("https://10.1.2.3/")}, "url"},
			{"metadata", cms.WebhookInput{URL: ptr("http://169.254.169.254/latest")}, "url"},
			{"localhost", cms.WebhookInput{URL: ptr("http://localhost:9000/")}, "url"},
			{"sub localhost", cms.WebhookInput{URL: ptr("http://app.LocalHost./")}, "url"},
			{"no events", cms.WebhookInput{URL: ptr(hookURL), Events: []string{}}, "events"},
			{"unknown event", cms.WebhookInput{URL: ptr(hookURL), Events: []string{"map.upsert", "map.create"}}, "events[1]"},
			{"unknown kind", cms.WebhookInput{URL: ptr(hookURL), Events: []string{"file.upsert"}}, "events[0]"},
			{"unreadable kind", cms.WebhookInput{URL: ptr(hookURL), Events: []string{"resource.upsert"}}, "events[0]"},
			{"bad secret", cms.WebhookInput{URL: ptr(hookURL), Secret: ptr("secret")}, "secret"},
			{"not base64", cms.WebhookInput{URL: ptr(hookURL), Secret: ptr("whsec_!!!!")}, "secret"},
			{"short secret", cms.WebhookInput{URL: ptr(hookURL), Secret: &short}, "secret"},
			{"long secret", cms.WebhookInput{URL: ptr(hookURL), Secret: &long}, "secret"},
		} {
			_, _, err := e.svc.CreateWebhook(ctx, c.in)
			ce, ok := err.(*cms.Error)
			if !ok || ce.Code != cms.CodeInvalid || len(ce.Problems) != 1 || ce.Problems[0].Field != c.field {
				t.Errorf("%s: %v, want one problem of %s", c.name, err, c.field)
			}
		}
		if list, err := e.svc.Webhooks(ctx); err != nil || len(list) != 0 {
			t.Fatalf("refused inputs stored: %+v, %v", list, err)
		}
		// Every problem at once.
		_, _, err := e.svc.CreateWebhook(ctx, cms.WebhookInput{URL: ptr("ftp://x"), Events: []string{"nope"}, Secret: ptr("x")})
		if ce, ok := err.(*cms.Error); !ok || len(ce.Problems) != 3 || ce.Problems[0].String() != "Webhook (new): url: must be an http or https address" {
			t.Fatalf("all problems: %v", err)
		}
		// A refused change leaves the webhook as it was.
		w, _ := e.create(t, ctx, cms.WebhookInput{Events: []string{"map.upsert"}})
		_, err = e.svc.UpdateWebhook(ctx, w.ID, cms.WebhookInput{URL: ptr("http://127.0.0.1/"), Events: []string{"map.delete"}})
		if ce, ok := err.(*cms.Error); !ok || ce.Code != cms.CodeInvalid || ce.Problems[0].ID != w.ID {
			t.Fatalf("bad update: %v", err)
		}
		if got, _ := e.svc.GetWebhook(ctx, w.ID); got.URL != hookURL || !slices.Equal(got.Events, []string{"map.upsert"}) {
			t.Fatalf("a refused update changed the webhook: %+v", got)
		}
	})
}

// TestWebhookPrivateAllowed: with Options.WebhookAllowPrivate, loopback
// and private targets are accepted.
func TestWebhookPrivateAllowed(t *testing.T) {
	forEachHookDatabase(t, func(o *cms.Options) { o.WebhookAllowPrivate = true }, func(t *testing.T, e *hooks) {
		ctx := e.as(t, "root")
		for _, u := range []string{"http://127.0.0.1:8080/hook", "http://localhost/", "http://[::1]/", "https://10.0.0.5/"} {
			if _, _, err := e.svc.CreateWebhook(ctx, cms.WebhookInput{URL: ptr(u)}); err != nil {
				t.Errorf("%s: %v", u, err)
			}
		}
		if _, _, err := e.svc.CreateWebhook(ctx, cms.WebhookInput{URL: ptr("http://me@127.0.0.1/")}); cms.ErrorCode(err) != cms.CodeInvalid {
			t.Errorf("user in url: %v", err)
		}
	})
}

// TestWebhookPermissions: webhook:read lists and reads, webhook:write
// makes, changes and retries, webhook:delete deletes; "*:*" covers no
// webhook; no principal is unauthorized.
func TestWebhookPermissions(t *testing.T) {
	forEachHookDatabase(t, nil, func(t *testing.T, e *hooks) {
		root := e.as(t, "root")
		w, _ := e.create(t, root, cms.WebhookInput{})
		calls := map[string]func(ctx context.Context) error{
			"create": func(ctx context.Context) error {
				_, _, err := e.svc.CreateWebhook(ctx, cms.WebhookInput{URL: ptr(hookURL)})
				return err
			},
			"list": func(ctx context.Context) error { _, err := e.svc.Webhooks(ctx); return err },
			"get":  func(ctx context.Context) error { _, err := e.svc.GetWebhook(ctx, w.ID); return err },
			"update": func(ctx context.Context) error {
				_, err := e.svc.UpdateWebhook(ctx, w.ID, cms.WebhookInput{})
				return err
			},
			"deliveries": func(ctx context.Context) error {
				_, err := e.svc.WebhookDeliveries(ctx, w.ID, cms.DeliveriesParams{})
				return err
			},
			"retry": func(ctx context.Context) error {
				_, err := e.svc.RetryDelivery(ctx, w.ID, "msg_none")
				return err
			},
			"delete": func(ctx context.Context) error { return e.svc.DeleteWebhook(ctx, "wh_none") },
		}
		for _, c := range []struct {
			ctx     context.Context
			who     string
			allowed []string
			code    cms.Code
		}{
			{t.Context(), "nobody", nil, cms.CodeUnauthorized},
			{e.as(t, "editor"), "editor", nil, cms.CodeForbidden},
			{e.as(t, "watcher"), "watcher", []string{"list", "get", "deliveries"}, cms.CodeForbidden},
		} {
			for name, call := range calls {
				err := call(c.ctx)
				code := cms.ErrorCode(err)
				if slices.Contains(c.allowed, name) {
					if err != nil {
						t.Errorf("%s %s: %v", c.who, name, err)
					}
				} else if code != c.code {
					t.Errorf("%s %s: %v, want %s", c.who, name, err, c.code)
				}
			}
		}
		// webhook:* may do everything (what is missing is not found).
		hooker := e.as(t, "hooker")
		for name, call := range calls {
			if err := call(hooker); err != nil && cms.ErrorCode(err) != cms.CodeNotFound {
				t.Errorf("hooker %s: %v", name, err)
			}
		}
	})
}

// TestWebhookIsolation: another account's webhook is not found, by every
// call; host code sees every account's and deletes any.
func TestWebhookIsolation(t *testing.T) {
	forEachHookDatabase(t, nil, func(t *testing.T, e *hooks) {
		w, _ := e.create(t, e.as(t, "root"), cms.WebhookInput{})
		otto := e.as(t, "otto")
		if list, err := e.svc.Webhooks(otto); err != nil || len(list) != 0 {
			t.Fatalf("other's list: %+v, %v", list, err)
		}
		for name, err := range map[string]error{
			"get":        second(e.svc.GetWebhook(otto, w.ID)),
			"update":     second(e.svc.UpdateWebhook(otto, w.ID, cms.WebhookInput{Enabled: ptr(false)})),
			"deliveries": second(e.svc.WebhookDeliveries(otto, w.ID, cms.DeliveriesParams{})),
			"retry":      second(e.svc.RetryDelivery(otto, w.ID, "msg_x")),
			"delete":     e.svc.DeleteWebhook(otto, w.ID),
		} {
			if cms.ErrorCode(err) != cms.CodeNotFound {
				t.Errorf("other's %s: %v", name, err)
			}
		}
		if got, _ := e.svc.GetWebhook(e.as(t, "root"), w.ID); !got.Enabled {
			t.Fatal("another account disabled the webhook")
		}
		o, _ := e.create(t, otto, cms.WebhookInput{})
		all, err := e.svc.AccountWebhooks(t.Context(), "")
		if err != nil || len(all) != 2 {
			t.Fatalf("every account's: %+v, %v", all, err)
		}
		if mine, _ := e.svc.AccountWebhooks(t.Context(), "other"); len(mine) != 1 || mine[0].ID != o.ID {
			t.Fatalf("other's for host code: %+v", mine)
		}
		if err := e.svc.DeleteWebhookByID(t.Context(), o.ID); err != nil {
			t.Fatal(err)
		}
		if err := e.svc.DeleteWebhookByID(t.Context(), o.ID); cms.ErrorCode(err) != cms.CodeNotFound {
			t.Fatalf("delete by id twice: %v", err)
		}
		// CreateWebhookFor acts as the user named, in its account.
		f, secret, err := e.svc.CreateWebhookFor(t.Context(), "otto", cms.WebhookInput{URL: ptr(hookURL)})
		if err != nil || f.Account != "other" || f.User != "otto" || secret == "" {
			t.Fatalf("for otto: %+v, %v", f, err)
		}
		if _, _, err := e.svc.CreateWebhookFor(t.Context(), "ghost", cms.WebhookInput{URL: ptr(hookURL)}); cms.ErrorCode(err) != cms.CodeNotFound {
			t.Fatalf("for a missing user: %v", err)
		}
	})
}

func second[T any](_ T, err error) error { return err }

// TestWebhookAudit: creating, changing, deleting and the service's
// disabling of a webhook are in the audit list, never with the secret.
func TestWebhookAudit(t *testing.T) {
	forEachHookDatabase(t, nil, func(t *testing.T, e *hooks) {
		ctx := e.as(t, "mapper")
		w, secret := e.create(t, ctx, cms.WebhookInput{Events: []string{"map.upsert"}})
		newSecret := "whsec_" + base64.StdEncoding.EncodeToString([]byte("abcdefghijklmnopqrstuvwxyz012345"))
		if _, err := e.svc.UpdateWebhook(ctx, w.ID, cms.WebhookInput{Secret: &newSecret, Events: []string{"*"}}); err != nil {
			t.Fatal(err)
		}
		// The user's disabling disables the webhook at its next change.
		if err := e.svc.SetDisabled(t.Context(), "mapper", true); err != nil {
			t.Fatal(err)
		}
		e.upsert(t, e.as(t, "root"), cms.KindMap, `{"id":"map1","title":"Map"}`)
		e.deliver(t)
		w2, _ := e.create(t, e.as(t, "root"), cms.WebhookInput{})
		if err := e.svc.DeleteWebhook(e.as(t, "root"), w2.ID); err != nil {
			t.Fatal(err)
		}
		entries, err := e.store.ListAudit(t.Context(), "acme", 0, 100)
		if err != nil {
			t.Fatal(err)
		}
		var got []string
		for _, a := range slices.Backward(entries) {
			if !strings.HasPrefix(a.Action, "webhook.") {
				continue
			}
			if strings.Contains(a.Detail, "whsec_") || strings.Contains(a.Detail, secret) {
				t.Errorf("a secret in the audit list: %+v", a)
			}
			got = append(got, a.User+" "+a.Action+" "+a.Target+": "+a.Detail)
		}
		want := []string{
			// The url shown without its path: receivers' paths carry tokens.
			"mapper webhook.create " + w.ID + ": url https://hooks.example.com/…, events map.upsert, user mapper",
			"mapper webhook.update " + w.ID + ": events map.upsert -> *; secret changed",
			" webhook.disable " + w.ID + ": user mapper disabled",
			"root webhook.create " + w2.ID + ": url https://hooks.example.com/…, events *, user root",
			"root webhook.delete " + w2.ID + ": url https://hooks.example.com/…, events *, user root",
		}
		if !slices.Equal(got, want) {
			t.Fatalf("audit:\n got %q\nwant %q", got, want)
		}
	})
}

// TestWebhookLimit: an account holds at most cms.MaxWebhooks webhooks;
// one more is refused and stores nothing.
func TestWebhookLimit(t *testing.T) {
	forEachHookDatabase(t, nil, func(t *testing.T, e *hooks) {
		ctx := e.as(t, "root")
		for range cms.MaxWebhooks {
			e.create(t, ctx, cms.WebhookInput{})
		}
		if _, _, err := e.svc.CreateWebhook(ctx, cms.WebhookInput{URL: ptr(hookURL)}); cms.ErrorCode(err) != cms.CodeConflict {
			t.Fatalf("webhook %d: %v, want conflict", cms.MaxWebhooks+1, err)
		}
		if list, err := e.svc.Webhooks(ctx); err != nil || len(list) != cms.MaxWebhooks {
			t.Fatalf("webhooks: %d %v, want %d", len(list), err, cms.MaxWebhooks)
		}
		if _, _, err := e.svc.CreateWebhook(e.as(t, "otto"), cms.WebhookInput{URL: ptr(hookURL)}); err != nil {
			t.Fatalf("another account's first webhook: %v", err)
		}
	})
}
