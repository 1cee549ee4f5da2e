package cms_test

import (
	"encoding/base64"
	"encoding/json"
	"errors"
	"fmt"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"
	"unicode/utf8"

	"github.com/bwcms/cms/cms"
)

// hookBody is a message's body as a receiver reads it.
type hookBody struct {
	Type      string `json:"type"`
	Timestamp string `json:"timestamp"`
	Data      struct {
		Seq  string `json:"seq"`
		Kind string `json:"kind"`
		ID   string `json:"id"`
		Op   string `json:"op"`
		Rev  int64  `json:"rev"`
		Time string `json:"time"`
	} `json:"data"`
}

func bodyOf(t *testing.T, m cms.WebhookMessage) hookBody {
	t.Helper()
	var b hookBody
	dec := json.NewDecoder(strings.NewReader(string(m.Body)))
	dec.DisallowUnknownFields()
	if err := dec.Decode(&b); err != nil {
		t.Fatalf("message body %s: %v", m.Body, err)
	}
	return b
}

// sentNames names messages "<type> <id> <rev>", in the order sent.
func sentNames(t *testing.T, msgs []cms.WebhookMessage) []string {
	t.Helper()
	names := make([]string, len(msgs))
	for i, m := range msgs {
		b := bodyOf(t, m)
		names[i] = fmt.Sprintf("%s %s %d", b.Type, b.Data.ID, b.Data.Rev)
	}
	return names
}

// hookObserver counts what a WebhookObserver hears.
type hookObserver struct {
	mu                 sync.Mutex
	ok, notOK, givenUp int
	lags               []time.Duration
}

func (o *hookObserver) BatchFinished(cms.Kind, cms.BatchStatus, cms.BatchResult, time.Duration) {}
func (o *hookObserver) LoginRefused(bool)                                                       {}
func (o *hookObserver) DeliveryAttempted(ok bool, lag time.Duration) {
	o.mu.Lock()
	defer o.mu.Unlock()
	if ok {
		o.ok++
	} else {
		o.notOK++
	}
	o.lags = append(o.lags, lag)
}
func (o *hookObserver) DeliveryFailed() {
	o.mu.Lock()
	defer o.mu.Unlock()
	o.givenUp++
}

// TestWebhookDeliveries: one message per change after the webhook was
// made (creates, updates, deletes, a batch's records), in feed order,
// each signed with the webhook's secret, with a body of the change's
// metadata; each delivery logged delivered; materializing again sends
// nothing twice; another account's changes are not sent.
func TestWebhookDeliveries(t *testing.T) {
	forEachHookDatabase(t, nil, func(t *testing.T, e *hooks) {
		root := e.as(t, "root")
		e.upsert(t, root, cms.KindResource, `{"id":"res0","title":"Before"}`)
		w, secret := e.create(t, root, cms.WebhookInput{})
		e.upsert(t, root, cms.KindResource, `{"id":"res1","title":"Rock"}`)
		e.upsert(t, root, cms.KindResource, `{"id":"res1","title":"Rock face"}`)
		e.delete(t, root, cms.KindResource, "res1")
		e.upsert(t, e.as(t, "otto"), cms.KindResource, `{"id":"oth1","title":"Other"}`)
		if _, err := e.svc.SubmitBatch(root, cms.KindResource, []byte(`[{"id":"bat1","title":"One"},{"id":"bat2","title":"Two"}]`)); err != nil {
			t.Fatal(err)
		}
		if ok, err := e.svc.ProcessBatch(root, "test"); !ok || err != nil {
			t.Fatalf("batch: %v, %v", ok, err)
		}
		e.clock.Advance(time.Minute)
		msgs := e.deliver(t)
		want := []string{"resource.upsert res1 1", "resource.upsert res1 2", "resource.delete res1 3",
			"resource.upsert bat1 1", "resource.upsert bat2 1"}
		if got := sentNames(t, msgs); !slices.Equal(got, want) {
			t.Fatalf("sent:\n got %q\nwant %q", got, want)
		}
		log := e.log(t, root, w.ID)
		if len(log) != len(msgs) {
			t.Fatalf("log: %d deliveries, want %d", len(log), len(msgs))
		}
		for i, m := range msgs {
			d := log[len(log)-1-i] // the log is newest first
			b := bodyOf(t, m)
			if m.ID != d.ID || !strings.HasPrefix(m.ID, "msg_") || m.URL != hookURL ||
				!slices.Equal(m.Secrets, []string{secret}) || !m.Timestamp.Equal(e.clock.Now()) {
				t.Errorf("message %d: %+v, delivery %+v", i, m, d)
			}
			if b.Data.Seq != d.Change.Seq || b.Data.Kind != "resource" || b.Data.ID != d.Change.ID ||
				b.Data.Op != string(d.Change.Op) || b.Data.Rev != d.Change.Rev ||
				b.Data.Time != e.svc.Timestamp(d.Change.Time) || b.Timestamp != d.Change.Time.UTC().Format(time.RFC3339) {
				t.Errorf("body %d: %s, change %+v", i, m.Body, d.Change)
			}
			if d.Status != cms.DeliveryDelivered || d.Attempts != 1 || d.LastStatus != 200 || d.LastError != "" ||
				!d.Finished.Equal(e.clock.Now()) {
				t.Errorf("delivery %d: %+v", i, d)
			}
		}
		if got := e.deliver(t); len(got) != 0 {
			t.Fatalf("sent again: %q", sentNames(t, got))
		}
		if got := e.log(t, root, w.ID); len(got) != len(log) {
			t.Fatalf("materialized again: %d deliveries", len(got))
		}
	})
}

// TestWebhookFilters: a webhook gets the changes its events select, of
// the kinds its user may read at the time; a webhook whose user is
// disabled or deleted is disabled at its next change, with the reason.
func TestWebhookFilters(t *testing.T) {
	forEachHookDatabase(t, nil, func(t *testing.T, e *hooks) {
		root := e.as(t, "root")
		a, _ := e.create(t, root, cms.WebhookInput{URL: ptr("https://a.example.com/"), Events: []string{"resource.delete", "map.upsert"}})
		b, _ := e.create(t, e.as(t, "mapper"), cms.WebhookInput{URL: ptr("https://b.example.com/")})
		c, _ := e.create(t, e.as(t, "hooker"), cms.WebhookInput{URL: ptr("https://c.example.com/")})
		e.upsert(t, root, cms.KindMap, `{"id":"map1","title":"Map"}`)
		e.upsert(t, root, cms.KindResource, `{"id":"res1","title":"Rock"}`)
		e.delete(t, root, cms.KindResource, "res1")
		e.delete(t, root, cms.KindMap, "map1")
		byURL := func(msgs []cms.WebhookMessage) map[string][]string {
			got := map[string][]string{}
			for _, m := range msgs {
				got[m.URL] = append(got[m.URL], sentNames(t, []cms.WebhookMessage{m})[0])
			}
			return got
		}
		got := byURL(e.deliver(t))
		want := map[string][]string{
			"https://a.example.com/": {"map.upsert map1 1", "resource.delete res1 2"},
			"https://b.example.com/": {"map.upsert map1 1", "map.delete map1 2"},
			"https://c.example.com/": {"resource.upsert res1 1", "resource.delete res1 2"},
		}
		for u, w := range want {
			if !slices.Equal(got[u], w) {
				t.Errorf("%s:\n got %q\nwant %q", u, got[u], w)
			}
		}
		// mapper no longer reads maps: b gets nothing of them.
		if err := e.svc.SetPerms(t.Context(), "mapper", []string{"webhook:*"}); err != nil {
			t.Fatal(err)
		}
		e.upsert(t, root, cms.KindMap, `{"id":"map2","title":"Map"}`)
		got = byURL(e.deliver(t))
		if len(got) != 1 || !slices.Equal(got["https://a.example.com/"], []string{"map.upsert map2 1"}) {
			t.Fatalf("after mapper lost maps: %q", got)
		}
		// mapper disabled, hooker deleted: their webhooks are disabled.
		if err := e.svc.SetDisabled(t.Context(), "mapper", true); err != nil {
			t.Fatal(err)
		}
		if err := e.svc.DeleteUser(t.Context(), "hooker"); err != nil {
			t.Fatal(err)
		}
		e.upsert(t, root, cms.KindResource, `{"id":"res2","title":"Rock"}`)
		e.upsert(t, root, cms.KindMap, `{"id":"map3","title":"Map"}`)
		got = byURL(e.deliver(t))
		if len(got) != 1 || !slices.Equal(got["https://a.example.com/"], []string{"map.upsert map3 1"}) {
			t.Fatalf("after the users went: %q", got)
		}
		for id, reason := range map[string]string{b.ID: "user mapper disabled", c.ID: "user hooker deleted"} {
			w, err := e.svc.GetWebhook(root, id)
			if err != nil || w.Enabled || w.Disabled != reason {
				t.Errorf("webhook %s: %+v, %v; want disabled: %s", id, w, err, reason)
			}
		}
		if w, _ := e.svc.GetWebhook(root, a.ID); !w.Enabled {
			t.Errorf("root's webhook disabled: %+v", w)
		}
	})
}

// TestWebhookRetries: a failed attempt is tried again after a wait that
// doubles from 5 s (less up to a fifth) until Options.WebhookRetryFor
// has passed, then the delivery fails; a record's next delivery waits
// for the one before it, other records' do not; the log keeps the last
// status, error and answer; the observer hears every attempt.
func TestWebhookRetries(t *testing.T) {
	forEachHookDatabase(t, func(o *cms.Options) { o.WebhookRetryFor = time.Hour }, func(t *testing.T, e *hooks) {
		root := e.as(t, "root")
		w, _ := e.create(t, root, cms.WebhookInput{})
		e.sender.answerWith(answerStatus(503))
		e.upsert(t, root, cms.KindResource, `{"id":"res1","title":"One"}`)
		e.upsert(t, root, cms.KindResource, `{"id":"res1","title":"One again"}`)
		e.upsert(t, root, cms.KindResource, `{"id":"res2","title":"Two"}`)
		start := e.clock.Now()
		if got := sentNames(t, e.deliver(t)); !slices.Equal(got, []string{"resource.upsert res1 1", "resource.upsert res2 1"}) {
			t.Fatalf("first round: %q", got)
		}
		if got := e.deliver(t); len(got) != 0 {
			t.Fatalf("sent before the wait: %q", sentNames(t, got))
		}
		find := func(id string, rev int64) cms.Delivery {
			t.Helper()
			for _, d := range e.log(t, root, w.ID) {
				if d.Change.ID == id && d.Change.Rev == rev {
					return d
				}
			}
			t.Fatalf("no delivery of %s %d", id, rev)
			return cms.Delivery{}
		}
		d := find("res2", 1)
		if d.Status != cms.DeliveryPending || d.Attempts != 1 || d.LastStatus != 503 || d.LastError != "answered HTTP 503" ||
			d.Response != "status 503" || !d.Finished.IsZero() {
			t.Fatalf("after a failed attempt: %+v", d)
		}
		// Follow res2 attempt by attempt.
		var waits []time.Duration
		for range 100 {
			d = find("res2", 1)
			if d.Status != cms.DeliveryPending {
				break
			}
			waits = append(waits, d.NextAttempt.Sub(e.clock.Now()))
			e.clock.Advance(d.NextAttempt.Sub(e.clock.Now()))
			e.deliver(t)
		}
		if d.Status != cms.DeliveryFailed || d.Finished.Before(start.Add(time.Hour)) || d.Attempts != len(waits)+1 {
			t.Fatalf("res2 after %d waits: %+v", len(waits), d)
		}
		for i, wait := range waits[:len(waits)-1] { // the last is cut short by the end of the retries
			full := min(5*time.Second<<i, time.Hour)
			if wait > full || wait < full*4/5 {
				t.Errorf("wait %d: %v, want %v less up to a fifth", i+1, wait, full)
			}
		}
		// res1's second delivery waits for its first, then goes.
		e.clock.Advance(2 * time.Hour)
		e.sender.answerWith(nil)
		e.deliver(t)
		if d := find("res1", 1); d.Status != cms.DeliveryFailed {
			t.Fatalf("res1 1: %+v", d)
		}
		if d := find("res1", 2); d.Status != cms.DeliveryDelivered {
			t.Fatalf("res1 2: %+v", d)
		}
		var res1 []string
		for _, n := range sentNames(t, e.sender.messages()) {
			if strings.Contains(n, " res1 ") {
				res1 = append(res1, n)
			}
		}
		firstOfSecond := slices.Index(res1, "resource.upsert res1 2")
		if firstOfSecond < 1 || slices.Contains(res1[firstOfSecond:], "resource.upsert res1 1") {
			t.Fatalf("res1's messages out of order: %q", res1)
		}
		// The failures in a row ended with res1's second delivery.
		if got, _ := e.svc.GetWebhook(root, w.ID); got.FailedInRow != 0 || !got.Enabled {
			t.Fatalf("webhook: %+v", got)
		}
	})
}

// TestWebhookObserved: the observer hears each attempt, with its lag
// from the change, and each delivery given up.
func TestWebhookObserved(t *testing.T) {
	forEachHookDatabase(t, func(o *cms.Options) { o.WebhookRetryFor = time.Minute }, func(t *testing.T, e *hooks) {
		root := e.as(t, "root")
		e.create(t, root, cms.WebhookInput{})
		e.upsert(t, root, cms.KindResource, `{"id":"res1","title":"One"}`)
		e.clock.Advance(3 * time.Second)
		e.deliver(t)
		e.sender.answerWith(answerStatus(500))
		e.upsert(t, root, cms.KindResource, `{"id":"res2","title":"Two"}`)
		e.deliver(t)
		e.clock.Advance(2 * time.Minute)
		e.deliver(t)
		o := e.obs
		o.mu.Lock()
		defer o.mu.Unlock()
		if o.ok != 1 || o.notOK != 2 || o.givenUp != 1 {
			t.Fatalf("observed: %d ok, %d not, %d given up", o.ok, o.notOK, o.givenUp)
		}
		if !slices.Equal(o.lags, []time.Duration{3 * time.Second, 0, 2 * time.Minute}) {
			t.Fatalf("lags: %v", o.lags)
		}
	})
}

// TestWebhookDisabledAfterFailures: 5 failed deliveries in a row disable
// the webhook (a delivered one in between starts the count again); its
// pending deliveries fail, no delivery is made while it is disabled, and
// enabled again it goes on from where it stopped.
func TestWebhookDisabledAfterFailures(t *testing.T) {
	forEachHookDatabase(t, func(o *cms.Options) { o.WebhookRetryFor = time.Minute }, func(t *testing.T, e *hooks) {
		root := e.as(t, "root")
		w, _ := e.create(t, root, cms.WebhookInput{})
		failing := func(n int, first int) {
			t.Helper()
			for i := range n {
				e.upsert(t, root, cms.KindResource, fmt.Sprintf(`{"id":"fail%d","title":"F"}`, first+i))
			}
		}
		e.sender.answerWith(answerStatus(500))
		failing(4, 0)
		e.deliver(t)
		e.clock.Advance(2 * time.Minute)
		e.deliver(t)
		if got, _ := e.svc.GetWebhook(root, w.ID); got.FailedInRow != 4 || !got.Enabled {
			t.Fatalf("after 4 failures: %+v", got)
		}
		e.sender.answerWith(nil)
		e.upsert(t, root, cms.KindResource, `{"id":"fine","title":"OK"}`)
		e.deliver(t)
		if got, _ := e.svc.GetWebhook(root, w.ID); got.FailedInRow != 0 {
			t.Fatalf("after a delivery: %+v", got)
		}
		e.sender.answerWith(answerStatus(500))
		failing(5, 10)
		e.deliver(t)
		e.clock.Advance(30 * time.Second)
		e.upsert(t, root, cms.KindResource, `{"id":"late","title":"Late"}`)
		e.deliver(t)
		e.clock.Advance(31 * time.Second)
		e.deliver(t)
		got, _ := e.svc.GetWebhook(root, w.ID)
		if got.Enabled || got.Disabled != "5 failed deliveries in a row" || got.FailedInRow != 5 {
			t.Fatalf("after 5 failures: %+v", got)
		}
		var late cms.Delivery
		for _, d := range e.log(t, root, w.ID) {
			if d.Change.ID == "late" {
				late = d
			}
		}
		if late.Status != cms.DeliveryFailed || late.LastError != "the webhook was disabled: 5 failed deliveries in a row" {
			t.Fatalf("the pending delivery: %+v", late)
		}
		before := len(e.log(t, root, w.ID))
		e.sender.answerWith(nil)
		e.upsert(t, root, cms.KindResource, `{"id":"off","title":"Off"}`)
		if msgs := e.deliver(t); len(msgs) != 0 || len(e.log(t, root, w.ID)) != before {
			t.Fatalf("a disabled webhook delivered %q", sentNames(t, msgs))
		}
		on, err := e.svc.UpdateWebhook(root, w.ID, cms.WebhookInput{Enabled: ptr(true)})
		if err != nil || !on.Enabled || on.Disabled != "" || on.FailedInRow != 0 {
			t.Fatalf("enabled: %+v, %v", on, err)
		}
		if got := sentNames(t, e.deliver(t)); !slices.Equal(got, []string{"resource.upsert off 1"}) {
			t.Fatalf("enabled again: %q", got)
		}
	})
}

// TestRetryDelivery: a failed delivery retried is pending, due now,
// with no attempts, and sent under its id; a delivered one is sent once
// more; an unknown one is not found; a disabled webhook's is refused.
func TestRetryDelivery(t *testing.T) {
	forEachHookDatabase(t, func(o *cms.Options) { o.WebhookRetryFor = time.Minute }, func(t *testing.T, e *hooks) {
		ctx := e.as(t, "hooker")
		w, _ := e.create(t, ctx, cms.WebhookInput{})
		e.sender.answerWith(answerStatus(500))
		e.upsert(t, e.as(t, "root"), cms.KindResource, `{"id":"res1","title":"One"}`)
		first := e.deliver(t)
		e.clock.Advance(2 * time.Minute)
		e.deliver(t)
		d := e.log(t, ctx, w.ID)[0]
		if d.Status != cms.DeliveryFailed || d.Attempts != 2 {
			t.Fatalf("before the retry: %+v", d)
		}
		e.clock.Advance(time.Hour) // a retry has a retry period of its own
		r, err := e.svc.RetryDelivery(ctx, w.ID, d.ID)
		if err != nil || r.Status != cms.DeliveryPending || r.Attempts != 0 || !r.NextAttempt.Equal(e.clock.Now()) || !r.Finished.IsZero() {
			t.Fatalf("retried: %+v, %v", r, err)
		}
		e.deliver(t) // fails again, not yet given up
		if d := e.log(t, ctx, w.ID)[0]; d.Status != cms.DeliveryPending || d.Attempts != 1 {
			t.Fatalf("a retry given up at once: %+v", d)
		}
		e.sender.answerWith(nil)
		e.clock.Advance(10 * time.Second)
		msgs := e.deliver(t)
		if len(msgs) != 1 || msgs[0].ID != first[0].ID {
			t.Fatalf("sent: %+v, want the id %s", msgs, first[0].ID)
		}
		if d := e.log(t, ctx, w.ID)[0]; d.Status != cms.DeliveryDelivered || d.Attempts != 2 {
			t.Fatalf("after the retry: %+v", d)
		}
		if _, err := e.svc.RetryDelivery(ctx, w.ID, d.ID); err != nil {
			t.Fatal(err)
		}
		if msgs := e.deliver(t); len(msgs) != 1 || msgs[0].ID != first[0].ID {
			t.Fatalf("a delivered one retried: %+v", msgs)
		}
		if _, err := e.svc.RetryDelivery(ctx, w.ID, "msg_none"); cms.ErrorCode(err) != cms.CodeNotFound {
			t.Fatalf("unknown delivery: %v", err)
		}
		if _, err := e.svc.UpdateWebhook(ctx, w.ID, cms.WebhookInput{Enabled: ptr(false)}); err != nil {
			t.Fatal(err)
		}
		if _, err := e.svc.RetryDelivery(ctx, w.ID, d.ID); cms.ErrorCode(err) != cms.CodeConflict {
			t.Fatalf("retry of a disabled webhook's: %v", err)
		}
		if d := e.log(t, ctx, w.ID)[0]; d.Status != cms.DeliveryDelivered {
			t.Fatalf("a refused retry changed the delivery: %+v", d)
		}
	})
}

// TestWebhookDeliveryLog: the log pages newest first, filters by status,
// refuses a bad limit, cursor or status, and keeps at most
// MaxDeliveryResponse bytes of an answer as valid text.
func TestWebhookDeliveryLog(t *testing.T) {
	forEachHookDatabase(t, nil, func(t *testing.T, e *hooks) {
		ctx := e.as(t, "root")
		w, _ := e.create(t, ctx, cms.WebhookInput{})
		e.sender.answerWith(func(m cms.WebhookMessage) cms.WebhookAttempt {
			if strings.Contains(string(m.Body), `"id":"res3"`) {
				return cms.WebhookAttempt{Status: 502, Response: []byte(strings.Repeat("\xff\x00é", 3000))}
			}
			if strings.Contains(string(m.Body), `"id":"res4"`) {
				return cms.WebhookAttempt{Err: errors.New("address 10.0.0.1 is on a private network")}
			}
			return cms.WebhookAttempt{Status: 204}
		})
		for i := 1; i <= 5; i++ {
			e.upsert(t, ctx, cms.KindResource, fmt.Sprintf(`{"id":"res%d","title":"R"}`, i))
		}
		e.deliver(t)
		var ids []string
		after := ""
		for range 10 {
			page, err := e.svc.WebhookDeliveries(ctx, w.ID, cms.DeliveriesParams{After: after, Limit: 2})
			if err != nil {
				t.Fatal(err)
			}
			for _, d := range page.Deliveries {
				ids = append(ids, d.Change.ID)
			}
			if page.Next == "" {
				break
			}
			after = page.Next
		}
		if !slices.Equal(ids, []string{"res5", "res4", "res3", "res2", "res1"}) {
			t.Fatalf("paged: %q", ids)
		}
		page, err := e.svc.WebhookDeliveries(ctx, w.ID, cms.DeliveriesParams{Status: cms.DeliveryPending})
		if err != nil || len(page.Deliveries) != 2 || page.Next != "" {
			t.Fatalf("pending: %+v, %v", page, err)
		}
		res4, res3 := page.Deliveries[0], page.Deliveries[1]
		if res3.LastStatus != 502 || len(res3.Response) > cms.MaxDeliveryResponse || len(res3.Response) < cms.MaxDeliveryResponse-3 ||
			!utf8.ValidString(res3.Response) || strings.Contains(res3.Response, "\x00") {
			t.Errorf("res3's answer kept: %d bytes, status %d", len(res3.Response), res3.LastStatus)
		}
		if res4.LastStatus != 0 || res4.LastError != "address 10.0.0.1 is on a private network" || res4.Response != "" {
			t.Errorf("res4: %+v", res4)
		}
		if page, _ := e.svc.WebhookDeliveries(ctx, w.ID, cms.DeliveriesParams{Status: cms.DeliveryDelivered}); len(page.Deliveries) != 3 {
			t.Errorf("delivered: %+v", page)
		}
		for _, p := range []cms.DeliveriesParams{{Limit: 1001}, {Limit: -1}, {After: "x"}, {After: "1.2.3"}, {Status: "lost"}} {
			if _, err := e.svc.WebhookDeliveries(ctx, w.ID, p); cms.ErrorCode(err) != cms.CodeMalformed {
				t.Errorf("%+v: %v", p, err)
			}
		}
		if _, err := e.svc.WebhookDeliveries(ctx, "wh_none", cms.DeliveriesParams{}); cms.ErrorCode(err) != cms.CodeNotFound {
			t.Errorf("unknown webhook: %v", err)
		}
		// Deleting the webhook deletes its log.
		if err := e.svc.DeleteWebhook(ctx, w.ID); err != nil {
			t.Fatal(err)
		}
		if left, err := e.store.ListDeliveries(t.Context(), cms.DeliveryQuery{WebhookID: w.ID, Limit: 10}); err != nil || len(left) != 0 {
			t.Fatalf("deliveries left: %d, %v", len(left), err)
		}
	})
}

// TestWebhookSecretRotation: a new secret signs at once, and the one it
// replaced signs beside it for 24 hours.
func TestWebhookSecretRotation(t *testing.T) {
	forEachHookDatabase(t, nil, func(t *testing.T, e *hooks) {
		ctx := e.as(t, "root")
		w, old := e.create(t, ctx, cms.WebhookInput{})
		fresh := "whsec_" + base64.StdEncoding.EncodeToString([]byte("abcdefghijklmnopqrstuvwxyz012345"))
		if _, err := e.svc.UpdateWebhook(ctx, w.ID, cms.WebhookInput{Secret: &fresh}); err != nil {
			t.Fatal(err)
		}
		e.upsert(t, ctx, cms.KindResource, `{"id":"res1","title":"R"}`)
		if msgs := e.deliver(t); len(msgs) != 1 || !slices.Equal(msgs[0].Secrets, []string{fresh, old}) {
			t.Fatalf("within a day: %+v", msgs)
		}
		e.clock.Advance(24 * time.Hour)
		e.upsert(t, ctx, cms.KindResource, `{"id":"res1","title":"R2"}`)
		if msgs := e.deliver(t); len(msgs) != 1 || !slices.Equal(msgs[0].Secrets, []string{fresh}) {
			t.Fatalf("a day later: %+v", msgs)
		}
	})
}

// TestWebhookClaimTakenOver: a delivery claimed by an instance that
// stopped is sent by another once the claim's lease ended, under the
// same id, and the record's later delivery waits for it.
func TestWebhookClaimTakenOver(t *testing.T) {
	forEachHookDatabase(t, nil, func(t *testing.T, e *hooks) {
		ctx := e.as(t, "root")
		w, _ := e.create(t, ctx, cms.WebhookInput{})
		e.upsert(t, ctx, cms.KindResource, `{"id":"res1","title":"R"}`)
		if err := e.svc.MaterializeWebhooks(t.Context()); err != nil {
			t.Fatal(err)
		}
		claimed, err := e.svc.ClaimWebhookDeliveries(t.Context(), "killed", 10)
		if err != nil || len(claimed) != 1 {
			t.Fatalf("claimed: %+v, %v", claimed, err)
		}
		e.upsert(t, ctx, cms.KindResource, `{"id":"res1","title":"R2"}`)
		if msgs := e.deliver(t); len(msgs) != 0 {
			t.Fatalf("sent while claimed: %q", sentNames(t, msgs))
		}
		e.clock.Advance(cms.WebhookLease - 5*time.Second)
		if msgs := e.deliver(t); len(msgs) != 0 {
			t.Fatalf("sent within the lease: %q", sentNames(t, msgs))
		}
		e.clock.Advance(10 * time.Second)
		msgs := e.deliver(t)
		if got := sentNames(t, msgs); !slices.Equal(got, []string{"resource.upsert res1 1", "resource.upsert res1 2"}) ||
			msgs[0].ID != claimed[0].ID {
			t.Fatalf("after the lease: %q", got)
		}
		if d := e.log(t, ctx, w.ID)[1]; d.Status != cms.DeliveryDelivered || d.Attempts != 2 {
			t.Fatalf("taken over: %+v", d)
		}
		// The stopped instance's outcome comes too late.
		err = e.store.FinishAttempt(t.Context(), cms.DeliveryOutcome{ID: claimed[0].ID, WebhookID: w.ID, Owner: "killed",
			Status: cms.DeliveryFailed, Finished: e.clock.Now()})
		if cms.ErrorCode(err) != cms.CodeConflict {
			t.Fatalf("a late outcome: %v", err)
		}
	})
}

// TestWebhookRepointActsForTheEditor: a user who points another's
// webhook elsewhere makes it act for themself: it then carries only what
// they may read, not what its maker could.
func TestWebhookRepointActsForTheEditor(t *testing.T) {
	forEachHookDatabase(t, nil, func(t *testing.T, e *hooks) {
		root := e.as(t, "root")
		w, _ := e.create(t, root, cms.WebhookInput{URL: ptr("https://a.example.com/")})
		moved, err := e.svc.UpdateWebhook(e.as(t, "hooker"), w.ID, cms.WebhookInput{URL: ptr("https://b.example.com/")})
		if err != nil || moved.User != "hooker" {
			t.Fatalf("repointed: %+v %v, want it acting for hooker", moved, err)
		}
		e.upsert(t, root, cms.KindMap, `{"id":"map1","title":"Secret map"}`)
		e.upsert(t, root, cms.KindResource, `{"id":"res1","title":"Rock"}`)
		if got := sentNames(t, e.deliver(t)); !slices.Equal(got, []string{"resource.upsert res1 1"}) {
			t.Fatalf("sent %q, want only what hooker may read", got)
		}
	})
}

// TestWebhookUserCheckedAtAttempt: a delivery made while its user could
// read the kind is not sent once the user no longer can.
func TestWebhookUserCheckedAtAttempt(t *testing.T) {
	forEachHookDatabase(t, nil, func(t *testing.T, e *hooks) {
		root := e.as(t, "root")
		w, _ := e.create(t, e.as(t, "mapper"), cms.WebhookInput{})
		e.upsert(t, root, cms.KindMap, `{"id":"map1","title":"Map"}`)
		if err := e.svc.MaterializeWebhooks(t.Context()); err != nil {
			t.Fatal(err)
		}
		if err := e.svc.SetPerms(t.Context(), "mapper", []string{"webhook:*"}); err != nil {
			t.Fatal(err)
		}
		if _, err := e.svc.SendWebhooks(t.Context(), "test"); err != nil {
			t.Fatal(err)
		}
		if sent := e.sender.messages(); len(sent) != 0 {
			t.Fatalf("sent %q after the user lost maps", sentNames(t, sent))
		}
		log := e.log(t, root, w.ID)
		if len(log) != 1 || log[0].Status != cms.DeliveryFailed || log[0].LastError != "user mapper may not read Maps" {
			t.Fatalf("log: %+v", log)
		}
	})
}
