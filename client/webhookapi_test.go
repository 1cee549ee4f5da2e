package client_test

import (
	"context"
	"errors"
	"net/http"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/bwcms/cms/client"
	"github.com/bwcms/cms/cms"
	"github.com/bwcms/cms/internal/testenv"
)

// okSender answers every message 200 and counts them by id.
type okSender struct {
	mu   sync.Mutex
	sent map[string]int
}

func (s *okSender) Send(_ context.Context, m cms.WebhookMessage) cms.WebhookAttempt {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.sent == nil {
		s.sent = map[string]int{}
	}
	s.sent[m.ID]++
	return cms.WebhookAttempt{Status: http.StatusOK}
}

func (s *okSender) count(id string) int {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.sent[id]
}

// Webhooks through the client: made (the secret returned once), listed,
// read, changed, their deliveries read and one retried, deleted; the
// audit list shows what was done.
func TestWebhooksClient(t *testing.T) {
	sender := &okSender{}
	e := newEnvWith(t, testenv.OpenSQLiteMemory, func(o *cms.Options) { o.WebhookSender = sender })
	e.runWorkers()
	ctx := t.Context()
	c := e.client("admin")
	url := "https://hooks.example.com/cms"
	wh, secret, err := c.CreateWebhook(ctx, cms.WebhookInput{URL: &url, Events: []string{"resource.upsert"}})
	must(t, err)
	if wh.ID == "" || wh.URL != url || wh.User != "admin" || !wh.Enabled || !strings.HasPrefix(secret, "whsec_") || wh.Created.IsZero() {
		t.Fatalf("made %+v, secret %q", wh, secret)
	}
	own := "whsec_" + strings.Repeat("QUFB", 8)
	other, secret, err := c.CreateWebhook(ctx, cms.WebhookInput{URL: &url, Secret: &own})
	must(t, err)
	if secret != "" {
		t.Errorf("a secret given is answered: %q", secret)
	}
	list, err := c.Webhooks(ctx)
	must(t, err)
	if len(list) != 2 || list[0].ID != wh.ID || list[1].ID != other.ID {
		t.Fatalf("list %+v", list)
	}
	off := false
	changed, err := c.UpdateWebhook(ctx, other.ID, cms.WebhookInput{Enabled: &off})
	must(t, err)
	if changed.Enabled || changed.URL != url {
		t.Errorf("changed %+v", changed)
	}
	got, err := c.Webhook(ctx, other.ID)
	must(t, err)
	if got.Enabled {
		t.Errorf("read back %+v", got)
	}
	bad := "ftp://hooks.example.com/"
	if _, err := c.UpdateWebhook(ctx, other.ID, cms.WebhookInput{URL: &bad}); !errors.Is(err, client.ErrConflict) {
		t.Errorf("a bad url: %v", err)
	}

	// A change delivered, read in the log, and retried.
	_, err = c.Upsert(ctx, resource("lake-walk", "Lake walk"))
	must(t, err)
	var delivered []cms.Delivery
	for deadline := time.Now().Add(time.Minute); len(delivered) == 0 && time.Now().Before(deadline); time.Sleep(20 * time.Millisecond) {
		delivered = delivered[:0]
		for d, err := range c.Deliveries(ctx, wh.ID, client.DeliveryOptions{Status: cms.DeliveryDelivered}) {
			must(t, err)
			delivered = append(delivered, d)
		}
	}
	if len(delivered) != 1 {
		t.Fatalf("delivered %+v", delivered)
	}
	d := delivered[0]
	if d.WebhookID != wh.ID || d.Change.Kind != cms.KindResource || d.Change.ID != "lake-walk" || d.Change.Rev != 1 ||
		d.Attempts != 1 || d.LastStatus != http.StatusOK || d.Finished.IsZero() || !d.NextAttempt.IsZero() {
		t.Errorf("delivery %+v", d)
	}
	again, err := c.RetryDelivery(ctx, wh.ID, d.ID)
	must(t, err)
	if again.ID != d.ID {
		t.Errorf("retried %+v", again)
	}
	for deadline := time.Now().Add(time.Minute); sender.count(d.ID) < 2; time.Sleep(20 * time.Millisecond) {
		if time.Now().After(deadline) {
			t.Fatalf("the retry was not sent: %d sends", sender.count(d.ID))
		}
	}
	if _, err := c.RetryDelivery(ctx, wh.ID, "msg_missing"); !errors.Is(err, client.ErrNotFound) {
		t.Errorf("retry of no delivery: %v", err)
	}

	must(t, c.DeleteWebhook(ctx, other.ID))
	if _, err := c.Webhook(ctx, other.ID); !errors.Is(err, client.ErrNotFound) {
		t.Errorf("deleted: %v", err)
	}
	if err := c.DeleteWebhook(ctx, other.ID); !errors.Is(err, client.ErrNotFound) {
		t.Errorf("deleted twice: %v", err)
	}
	// The reader may not.
	if _, err := e.client("reader").Webhooks(ctx); !errors.Is(err, client.ErrForbidden) {
		t.Errorf("reader: %v", err)
	}

	// The audit list, newest first, a page at a time.
	cp, err := client.New(e.url, &client.Options{HTTPClient: e.http, PageSize: 1})
	must(t, err)
	must(t, cp.Login(ctx, "admin", testenv.Password))
	var actions []string
	var last int64
	for en, err := range cp.Audit(ctx, client.AuditOptions{}) {
		must(t, err)
		if last != 0 && en.ID >= last {
			t.Errorf("not newest first: %d after %d", en.ID, last)
		}
		last = en.ID
		if en.Target == other.ID {
			actions = append(actions, en.Action)
		}
		if strings.Contains(en.Detail, own) {
			t.Errorf("the audit shows a secret: %+v", en)
		}
	}
	if got := strings.Join(actions, ","); got != "webhook.delete,webhook.update,webhook.create" {
		t.Errorf("audit of the webhook: %q", got)
	}
	n := 0
	for _, err := range cp.Audit(ctx, client.AuditOptions{Limit: 2}) {
		must(t, err)
		n++
	}
	if n != 2 {
		t.Errorf("limit 2: %d entries", n)
	}
}
