package bunstoretest

import (
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/bwcms/cms/adapters/internal/bunstore"
	"github.com/bwcms/cms/cms"
)

// planWebhooks is how many webhooks FillDeliveries makes.
const planWebhooks = 100

// FilledWebhookID is the id of webhook i of FillDeliveries.
func FilledWebhookID(i int) string { return fmt.Sprintf("wh_%04d", i) }

// FillDeliveries stores planWebhooks webhooks of account "a" (every
// tenth disabled) and n deliveries spread over them, a change of one of
// 500 records each, a second apart until now: one in a hundred pending
// (half of them due), the rest delivered or failed. A delivery log of a
// real shape for a query plan; statistics are left as they are.
func FillDeliveries(t *testing.T, s *bunstore.Store, n int) time.Time {
	t.Helper()
	ctx := t.Context()
	now := time.Now()
	for i := range planWebhooks {
		w := cms.StoredWebhook{Webhook: cms.Webhook{ID: FilledWebhookID(i), Account: "a", URL: "https://hooks.example.com/",
			Events: []string{"*"}, User: "u", Enabled: i%10 != 9, Created: now, Updated: now}, Secret: "whsec_x", Cursor: "0"}
		if err := s.CreateWebhook(ctx, w); err != nil {
			t.Fatal(err)
		}
	}
	const rows = 1000
	for start := 0; start < n; start += rows {
		var b strings.Builder
		var args []any
		b.WriteString("INSERT INTO webhook_deliveries (id, webhook, change_seq, change_id, kind, record_id, op, rev, change_time, " +
			"status, attempts, next_attempt, give_up, claimed_by, claimed_until, last_status, last_error, response, created, " +
			"finished) VALUES ")
		for i := start; i < min(start+rows, n); i++ {
			if i > start {
				b.WriteString(", ")
			}
			b.WriteString("(?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, '', NULL, ?, '', '', ?, ?)")
			at := now.Add(-time.Duration(n-i) * time.Second).UnixMicro()
			status, finished, next := string(cms.DeliveryDelivered), &at, at
			switch {
			case i%100 == 0:
				status, finished = string(cms.DeliveryPending), nil
				if i%200 == 0 {
					next = now.Add(time.Hour).UnixMicro()
				}
			case i%7 == 0:
				status = string(cms.DeliveryFailed)
			}
			args = append(args, fmt.Sprintf("msg_%08d", i), FilledWebhookID(i%planWebhooks), int64(i+1), int64(i+1),
				string(cms.KindResource), fmt.Sprintf("r%03d", i%500), string(cms.ChangeUpsert), int64(i/500+1), at,
				status, 1, next, at, 200, at, finished)
		}
		if _, err := s.Write().NewRaw(b.String(), args...).Exec(ctx); err != nil {
			t.Fatal(err)
		}
	}
	return now
}

// WebhookOperations runs the webhook store's calls over s, filled by
// FillDeliveries(n): an account's webhooks, one held in a transaction,
// deliveries added, claimed, finished and released, pages of a log (the
// first, the next, of a status), a retry, a disabled webhook's pending
// deliveries failed, and the purge of the log. Plan tests collect the
// statements it makes the store run.
func WebhookOperations(t *testing.T, s cms.Store, n int) {
	t.Helper()
	ctx := t.Context()
	must := func(err error) {
		t.Helper()
		if err != nil {
			t.Fatal(err)
		}
	}
	now := time.Now()
	hooks, err := s.ListWebhooks(ctx, "a", false)
	must(err)
	if len(hooks) != planWebhooks {
		t.Fatalf("%d webhooks, want %d", len(hooks), planWebhooks)
	}
	w := FilledWebhookID(1)
	must(s.WithTx(ctx, func(tx cms.Store) error {
		hook, err := tx.GetWebhook(ctx, w)
		if err != nil {
			return err
		}
		hook.Cursor = fmt.Sprint(n + 10)
		if _, err := tx.AddDeliveries(ctx, []cms.Delivery{
			{ID: "msg_new1", WebhookID: w, Change: cms.FeedChange{Seq: fmt.Sprintf("%d.%d", n+5, n+5), Kind: cms.KindResource,
				ID: "r001", Op: cms.ChangeUpsert, Rev: 99, Time: now}, NextAttempt: now, Created: now},
			{ID: "msg_new2", WebhookID: w, Change: cms.FeedChange{Seq: fmt.Sprintf("%d.%d", n+6, n+6), Kind: cms.KindResource,
				ID: "r002", Op: cms.ChangeDelete, Rev: 99, Time: now}, NextAttempt: now, Created: now},
		}); err != nil {
			return err
		}
		return tx.UpdateWebhook(ctx, hook)
	}))
	claimed, err := s.ClaimDeliveries(ctx, "plan", now, now.Add(time.Minute), 4)
	must(err)
	if len(claimed) == 0 {
		t.Fatal("nothing claimed")
	}
	must(s.FinishAttempt(ctx, cms.DeliveryOutcome{ID: claimed[0].ID, WebhookID: claimed[0].WebhookID, Owner: "plan",
		Status: cms.DeliveryDelivered, NextAttempt: now, GiveUp: now, Finished: now, LastStatus: 204}))
	if len(claimed) > 1 {
		must(s.ReleaseDelivery(ctx, claimed[1].WebhookID, claimed[1].ID, "plan"))
	}
	page, err := s.ListDeliveries(ctx, cms.DeliveryQuery{WebhookID: w, Limit: 50})
	must(err)
	if len(page) != 50 {
		t.Fatalf("a page of %d deliveries", len(page))
	}
	last, err := cms.ParseChangeCursor(page[49].Change.Seq)
	must(err)
	_, err = s.ListDeliveries(ctx, cms.DeliveryQuery{WebhookID: w, Before: &last, Limit: 50})
	must(err)
	_, err = s.ListDeliveries(ctx, cms.DeliveryQuery{WebhookID: w, Status: cms.DeliveryFailed, Limit: 50})
	must(err)
	_, err = s.GetDelivery(ctx, w, page[3].ID)
	must(err)
	_, err = s.RetryDelivery(ctx, w, page[3].ID, now)
	must(err)
	_, err = s.FailPendingDeliveries(ctx, FilledWebhookID(9), now, "disabled")
	must(err)
	_, err = s.PurgeDeliveries(ctx, now.Add(-time.Duration(n-100)*time.Second), 50)
	must(err)
	_, err = s.ListWebhooks(ctx, "", true)
	must(err)
}

// WebhookStatements fills s (FillDeliveries, n deliveries), then runs
// WebhookOperations with log recording, and returns the statements it
// made s run; log is the one given to the adapter as its trace.
func WebhookStatements(t *testing.T, s *bunstore.Store, log *StatementLog, n int) map[string][]any {
	t.Helper()
	FillDeliveries(t, s, n)
	log.Reset()
	log.Record(true)
	WebhookOperations(t, s, n)
	log.Record(false)
	return log.Statements()
}
