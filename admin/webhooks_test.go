package admin

import (
	"context"
	"errors"
	"net/http"
	"net/url"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/PuerkitoBio/goquery"

	"github.com/bwcms/cms/cms"
)

// hooks are acme's webhooks as stored, for "nothing changed" checks.
func (e *env) hooks() []cms.Webhook {
	e.t.Helper()
	list, err := e.svc.AccountWebhooks(e.t.Context(), "acme")
	if err != nil {
		e.t.Fatal(err)
	}
	return list
}

func (e *env) hooksUnchanged(before []cms.Webhook, what string) {
	e.t.Helper()
	after := e.hooks()
	if len(after) != len(before) {
		e.t.Fatalf("%s: %d webhooks, want %d", what, len(after), len(before))
	}
	for i, b := range before {
		a := after[i]
		if a.URL != b.URL || !slices.Equal(a.Events, b.Events) || a.Enabled != b.Enabled {
			e.t.Errorf("%s changed webhook %s: %+v, was %+v", what, b.ID, a, b)
		}
	}
}

func navLabels(doc *goquery.Document) []string { return texts(doc.Find("header.top nav a")) }

func TestWebhooksNeedWebhookRead(t *testing.T) {
	t.Parallel()
	e := newEnv(t, envOptions{prefix: "/admin"})
	if got := navLabels(e.open(e.signIn("admin"), "/")); !slices.Contains(got, "Webhooks") {
		t.Errorf("admin's menu %v has no Webhooks", got)
	}
	// *:read does not cover webhooks (DECISIONS §1).
	for _, user := range []string{"reader", "editor"} {
		c := e.signIn(user)
		if got := navLabels(e.open(c, "/")); slices.Contains(got, "Webhooks") {
			t.Errorf("%s's menu %v offers Webhooks", user, got)
		}
		for _, p := range []string{"/webhooks/", "/webhooks/new", "/webhooks/wh-1", "/webhooks/wh-1/delete"} {
			e.page(e.get(c, p), http.StatusForbidden)
		}
		for _, p := range []string{"/webhooks/new", "/webhooks/wh-1", "/webhooks/wh-1/secret", "/webhooks/wh-1/delete", "/webhooks/wh-1/deliveries/d-1/retry"} {
			doc := e.page(e.post(c, p, url.Values{"url": {"https://example.com/"}, "event": {"*"}}), http.StatusForbidden)
			if got := text(doc.Find("main")); !strings.Contains(got, "Your permissions do not allow this.") {
				t.Errorf("POST %s as %s says %q", p, user, got)
			}
		}
	}
}

// addWebhook adds a webhook through the form as c and returns its page's
// address and the secret shown.
func (e *env) addWebhook(c *http.Client, target string, events ...string) (string, string) {
	e.t.Helper()
	doc := e.page(e.post(c, "/webhooks/new", url.Values{"url": {target}, "event": events}), http.StatusCreated)
	secret := doc.Find("input#webhook-secret").AttrOr("value", "")
	link := doc.Find(`a:contains("Open the webhook")`).AttrOr("href", "")
	if link == "" {
		e.t.Fatalf("no link to the new webhook: %s", text(doc.Find("main")))
	}
	return strings.TrimPrefix(link, e.prefix), secret
}

func TestAddWebhookShowsTheSecretOnce(t *testing.T) {
	t.Parallel()
	e := newEnv(t, envOptions{prefix: "/admin"})
	c := e.signIn("admin")
	form := e.open(c, "/webhooks/new")
	if form.Find(`input[name="event"][value="*"][checked]`).Length() != 1 {
		t.Error("Everything is not ticked at first")
	}
	if form.Find(`input[name="event"][value="resource.delete"]`).Length() != 1 {
		t.Error("no box for resource.delete")
	}
	page, secret := e.addWebhook(c, "https://example.com/hook", "resource.upsert", "map.delete")
	if !strings.HasPrefix(secret, "whsec_") {
		t.Fatalf("secret shown %q", secret)
	}
	doc := e.open(c, page)
	if strings.Contains(doc.Text(), secret) {
		t.Error("the webhook's page shows the secret again")
	}
	list := e.open(c, "/webhooks/")
	if strings.Contains(list.Text(), secret) {
		t.Error("the list shows the secret")
	}
	row := list.Find("table.webhooks tbody tr")
	if row.Length() != 1 || text(row.Find("th")) != "https://example.com/hook" {
		t.Fatalf("list: %s", text(list.Find("table.webhooks")))
	}
	if got := texts(row.Find("td").First().Find("li")); !slices.Equal(got, []string{"resource.upsert", "map.delete"}) {
		t.Errorf("events listed %v", got)
	}
	if got := text(row.Find("td").Eq(1)); got != "Enabled" {
		t.Errorf("status %q", got)
	}
	hooks := e.hooks()
	if len(hooks) != 1 || hooks[0].User != "admin" {
		t.Errorf("stored %+v", hooks)
	}
}

func TestAddWebhookRefusals(t *testing.T) {
	t.Parallel()
	e := newEnv(t, envOptions{prefix: "/admin"})
	c := e.signIn("admin")
	before := e.hooks()

	doc := e.page(e.post(c, "/webhooks/new", url.Values{"url": {"https://example.com/"}}), http.StatusConflict)
	if got := text(doc.Find("#events-error")); !strings.Contains(got, "Choose the changes to send") {
		t.Errorf("no events: %q", got)
	}
	if doc.Find(`.error-summary a[href="#ev-all"]`).Length() != 1 {
		t.Error("the summary does not link to the events")
	}
	e.hooksUnchanged(before, "a webhook without events")

	for _, bad := range []string{"", "ftp://example.com/", "http://127.0.0.1/hook"} {
		doc := e.page(e.post(c, "/webhooks/new", url.Values{"url": {bad}, "event": {"*"}}), http.StatusConflict)
		if got := text(doc.Find("#url-error")); got == "" {
			t.Errorf("url %q: no error beside the field: %s", bad, text(doc.Find("main")))
		}
		if doc.Find(`input#url[aria-invalid="true"]`).AttrOr("value", "x") != bad {
			t.Errorf("url %q is not kept in the form", bad)
		}
		e.hooksUnchanged(before, "a webhook to "+bad)
	}

	req, _ := http.NewRequest(http.MethodPost, e.url("/webhooks/new"), strings.NewReader(url.Values{"url": {"https://example.com/"}, "event": {"*"}}.Encode()))
	req.Header.Set("Content-Type", "application/x-www-form-urlencoded")
	req.Header.Set("Origin", "https://evil.example")
	req.Header.Set("Sec-Fetch-Site", "cross-site")
	e.page(e.do(c, req), http.StatusForbidden)
	e.hooksUnchanged(before, "a cross-site webhook")
}

func TestChangeWebhook(t *testing.T) {
	t.Parallel()
	e := newEnv(t, envOptions{prefix: "/admin"})
	c := e.signIn("admin")
	page, secret := e.addWebhook(c, "https://example.com/hook", "*")
	doc := e.open(c, page)
	vals := formValues(t, doc, "form.webhook-form")
	vals.Set("url", "https://example.com/other")
	vals["event"] = []string{"map.upsert"}
	vals.Del("enabled")
	doc = e.follow(c, e.post(c, page, vals), page+"?done=saved")
	if got := notices(doc); !strings.Contains(got, "The webhook was saved.") {
		t.Errorf("notice %q", got)
	}
	wh := e.hooks()[0]
	if wh.URL != "https://example.com/other" || !slices.Equal(wh.Events, []string{"map.upsert"}) || wh.Enabled {
		t.Errorf("stored %+v", wh)
	}
	if got := text(doc.Find("dl.facts dd").First()); got != "Disabled by a user" {
		t.Errorf("status %q", got)
	}

	// A refused change keeps what was typed and changes nothing.
	before := e.hooks()
	vals = formValues(t, doc, "form.webhook-form")
	vals.Set("url", "javascript:alert(1)")
	doc = e.page(e.post(c, page, vals), http.StatusConflict)
	if text(doc.Find("#url-error")) == "" || doc.Find("input#url").AttrOr("value", "") != "javascript:alert(1)" {
		t.Errorf("refused change: %s", text(doc.Find("main")))
	}
	e.hooksUnchanged(before, "a refused change")

	// A new secret is shown once, and differs.
	doc = e.page(e.post(c, page+"/secret", nil), http.StatusOK)
	again := doc.Find("input#webhook-secret").AttrOr("value", "")
	if !strings.HasPrefix(again, "whsec_") || again == secret {
		t.Errorf("new secret %q (was %q)", again, secret)
	}
	if strings.Contains(e.open(c, page).Text(), again) {
		t.Error("the page shows the new secret again")
	}
}

func TestDeleteWebhook(t *testing.T) {
	t.Parallel()
	e := newEnv(t, envOptions{prefix: "/admin"})
	e.addUser("hooker", "webhook:read", "webhook:write", "*:read")
	c := e.signIn("admin")
	page, _ := e.addWebhook(c, "https://example.com/hook", "*")
	before := e.hooks()

	// Without webhook:delete: no Delete, and refused.
	h := e.signIn("hooker")
	if e.open(h, page).Find(`a[href$="/delete"]`).Length() != 0 {
		t.Error("a user without webhook:delete is offered Delete")
	}
	e.page(e.post(h, page+"/delete", nil), http.StatusForbidden)
	e.hooksUnchanged(before, "a delete without webhook:delete")

	doc := e.open(c, page+"/delete")
	if got := text(doc.Find("h1")); got != "Delete the webhook to https://example.com/hook?" {
		t.Errorf("confirmation %q", got)
	}
	doc = e.follow(c, e.post(c, page+"/delete", formValues(t, doc, "form.confirm")), "/webhooks/?done=deleted")
	if got := notices(doc); !strings.Contains(got, "deleted") {
		t.Errorf("notice %q", got)
	}
	if n := len(e.hooks()); n != 0 {
		t.Errorf("%d webhooks after the delete", n)
	}
	doc = e.page(e.get(c, page), http.StatusNotFound)
	if got := text(doc.Find("main")); !strings.Contains(got, "no such webhook") {
		t.Errorf("a deleted webhook's page says %q", got)
	}
}

// fakeSender answers every message with status and body, and counts the
// messages by id.
type fakeSender struct {
	status int
	body   string
	mu     sync.Mutex
	got    map[string]int
}

func (f *fakeSender) Send(_ context.Context, m cms.WebhookMessage) cms.WebhookAttempt {
	f.mu.Lock()
	defer f.mu.Unlock()
	if f.got == nil {
		f.got = map[string]int{}
	}
	f.got[m.ID]++
	return cms.WebhookAttempt{Status: f.status, Response: []byte(f.body)}
}

func (f *fakeSender) sent(id string) int {
	f.mu.Lock()
	defer f.mu.Unlock()
	return f.got[id]
}

// waitFor polls cond until it holds; the deadline only bounds a hang
// (nothing is asserted about how long it takes).
func waitFor(t testing.TB, what string, cond func() bool) {
	t.Helper()
	for end := time.Now().Add(60 * time.Second); time.Now().Before(end); time.Sleep(50 * time.Millisecond) {
		if cond() {
			return
		}
	}
	t.Fatalf("still waiting for %s", what)
}

func TestWebhookDeliveriesAndRetry(t *testing.T) {
	t.Parallel()
	sender := &fakeSender{status: http.StatusOK, body: `<b>thanks</b>`}
	e := newEnv(t, envOptions{prefix: "/admin", service: func(o *cms.Options) { o.WebhookSender = sender }})
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan error, 1)
	go func() { done <- e.svc.Run(ctx) }()
	t.Cleanup(func() {
		cancel()
		if err := <-done; err != nil && !errors.Is(err, context.Canceled) {
			t.Errorf("Run: %v", err)
		}
	})
	c := e.signIn("admin")
	page, _ := e.addWebhook(c, "https://example.com/hook", "resource.upsert")
	e.put(cms.KindResource, `{"id":"r-1","title":"Hello"}`)

	var row *goquery.Selection
	waitFor(t, "a delivered delivery on the page", func() bool {
		row = e.open(c, page).Find("table.deliveries tbody tr.delivery-delivered")
		return row.Length() == 1
	})
	if got := text(row.Find("th")); !strings.HasPrefix(got, "resource r-1 upsert") {
		t.Errorf("change %q", got)
	}
	if got := text(row.Find("td").Eq(2)); got != "HTTP 200 OK" {
		t.Errorf("last answer %q", got)
	}
	if pre := row.Find("pre.response"); pre.Text() != `<b>thanks</b>` || pre.Find("b").Length() != 0 {
		t.Errorf("the response is not shown as text: %q", pre.Text())
	}
	id := row.AttrOr("data-delivery", "")
	retry := row.Find("form").AttrOr("action", "")
	if retry != e.prefix+page+"/deliveries/"+id+"/retry" {
		t.Fatalf("retry form %q", retry)
	}
	e.follow(c, e.post(c, strings.TrimPrefix(retry, e.prefix), nil), page+"?done=retried#deliveries")
	waitFor(t, "the delivery sent again", func() bool { return sender.sent(id) >= 2 })

	// A reader of webhooks sees the log without Retry.
	e.addUser("watcher", "webhook:read", "*:read")
	if e.open(e.signIn("watcher"), page).Find("table.deliveries form").Length() != 0 {
		t.Error("a user without webhook:write is offered Retry")
	}
	doc := e.page(e.post(c, page+"/deliveries/nope/retry", nil), http.StatusNotFound)
	if got := text(doc.Find("main")); !strings.Contains(got, "no such delivery") {
		t.Errorf("an unknown delivery's retry says %q", got)
	}
}
