package bunstore

import (
	"context"
	"encoding/json"
	"slices"
	"strings"
	"time"

	"github.com/bwcms/cms/cms"
)

type webhookRow struct {
	ID             string `bun:"id"`
	Account        string `bun:"account"`
	URL            string `bun:"url"`
	Events         string `bun:"events"`
	Username       string `bun:"username"`
	Secret         string `bun:"secret"`
	PreviousSecret string `bun:"previous_secret"`
	PreviousUntil  *int64 `bun:"previous_until"`
	Enabled        bool   `bun:"enabled"`
	DisabledReason string `bun:"disabled_reason"`
	FailedInRow    int    `bun:"failed_in_row"`
	FeedCursor     string `bun:"feed_cursor"`
	Created        int64  `bun:"created"`
	Updated        int64  `bun:"updated"`
}

const webhookColumns = "id, account, url, events, username, secret, previous_secret, previous_until, enabled, " +
	"disabled_reason, failed_in_row, feed_cursor, created, updated"

func (r webhookRow) webhook() (cms.StoredWebhook, error) {
	var events []string
	if err := json.Unmarshal([]byte(r.Events), &events); err != nil {
		return cms.StoredWebhook{}, &cms.Error{Code: cms.CodeInternal, Message: "webhook " + r.ID + ": events unreadable", Err: err}
	}
	return cms.StoredWebhook{
		Webhook: cms.Webhook{ID: r.ID, Account: r.Account, URL: r.URL, Events: events, User: r.Username,
			Enabled: r.Enabled, Disabled: r.DisabledReason, FailedInRow: r.FailedInRow,
			Created: fromMicros(r.Created), Updated: fromMicros(r.Updated)},
		Secret: r.Secret, PreviousSecret: r.PreviousSecret, PreviousUntil: fromNullMicros(r.PreviousUntil),
		Cursor: r.FeedCursor,
	}, nil
}

func eventsJSON(events []string) string {
	if events == nil {
		events = []string{}
	}
	data, _ := json.Marshal(events) // strings always marshal
	return string(data)
}

// CreateWebhook implements cms.Store. Its position is one above the
// highest: two creators at once may take the same, which only leaves
// their order (made within one clock tick) open.
func (s *Store) CreateWebhook(ctx context.Context, w cms.StoredWebhook) error {
	n, err := s.exec(ctx, "INSERT INTO webhooks ("+webhookColumns+", position) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, "+
		"(SELECT COALESCE(MAX(position), 0) + 1 FROM webhooks)) ON CONFLICT DO NOTHING",
		w.ID, w.Account, w.URL, eventsJSON(w.Events), w.User, w.Secret, w.PreviousSecret, nullMicros(w.PreviousUntil),
		w.Enabled, w.Disabled, w.FailedInRow, w.Cursor, micros(w.Created), micros(w.Updated))
	if err == nil && n == 0 {
		err = conflict("webhook " + w.ID + " exists")
	}
	return err
}

// GetWebhook implements cms.Store: inside a transaction the row is held
// with Options.DeleteLock (SQLite's write transactions hold everything).
func (s *Store) GetWebhook(ctx context.Context, id string) (cms.StoredWebhook, error) {
	query := "SELECT " + webhookColumns + " FROM webhooks WHERE id = ?"
	if s.inTx && s.opts.DeleteLock != "" {
		query += " " + s.opts.DeleteLock
	}
	hooks, err := s.scanWebhooks(ctx, query, id)
	if err != nil {
		return cms.StoredWebhook{}, err
	}
	if len(hooks) == 0 {
		return cms.StoredWebhook{}, notFound("webhook " + id)
	}
	return hooks[0], nil
}

// ListWebhooks implements cms.Store.
func (s *Store) ListWebhooks(ctx context.Context, account string, enabledOnly bool) ([]cms.StoredWebhook, error) {
	var where []string
	var args []any
	if account != "" {
		where, args = append(where, "account = ?"), append(args, account)
	}
	if enabledOnly {
		where = append(where, "enabled")
	}
	query := "SELECT " + webhookColumns + " FROM webhooks"
	if len(where) > 0 {
		query += " WHERE " + strings.Join(where, " AND ")
	}
	return s.scanWebhooks(ctx, query+" ORDER BY account, created, position", args...)
}

func (s *Store) scanWebhooks(ctx context.Context, query string, args ...any) ([]cms.StoredWebhook, error) {
	var rows []webhookRow
	if err := s.scan(ctx, s.read, &rows, query, args...); err != nil {
		return nil, s.fail(err)
	}
	hooks := make([]cms.StoredWebhook, 0, len(rows))
	for _, r := range rows {
		w, err := r.webhook()
		if err != nil {
			return nil, err
		}
		hooks = append(hooks, w)
	}
	return hooks, nil
}

// UpdateWebhook implements cms.Store.
func (s *Store) UpdateWebhook(ctx context.Context, w cms.StoredWebhook) error {
	n, err := s.exec(ctx, "UPDATE webhooks SET url = ?, events = ?, username = ?, secret = ?, previous_secret = ?, previous_until = ?, "+
		"enabled = ?, disabled_reason = ?, failed_in_row = ?, feed_cursor = ?, updated = ? WHERE id = ?",
		w.URL, eventsJSON(w.Events), w.User, w.Secret, w.PreviousSecret, nullMicros(w.PreviousUntil), w.Enabled, w.Disabled,
		w.FailedInRow, w.Cursor, micros(w.Updated), w.ID)
	if err == nil && n == 0 {
		err = notFound("webhook " + w.ID)
	}
	return err
}

// DeleteWebhook implements cms.Store.
func (s *Store) DeleteWebhook(ctx context.Context, id string) error {
	return s.tx(ctx, func(s *Store) error {
		n, err := s.exec(ctx, "DELETE FROM webhooks WHERE id = ?", id)
		if err == nil && n == 0 {
			err = notFound("webhook " + id)
		}
		if err != nil {
			return err
		}
		_, err = s.exec(ctx, "DELETE FROM webhook_deliveries WHERE webhook = ?", id)
		return err
	})
}

type deliveryRow struct {
	ID          string `bun:"id"`
	Webhook     string `bun:"webhook"`
	ChangeSeq   int64  `bun:"change_seq"`
	ChangeID    int64  `bun:"change_id"`
	Kind        string `bun:"kind"`
	RecordID    string `bun:"record_id"`
	Op          string `bun:"op"`
	Rev         int64  `bun:"rev"`
	ChangeTime  int64  `bun:"change_time"`
	Status      string `bun:"status"`
	Attempts    int    `bun:"attempts"`
	NextAttempt int64  `bun:"next_attempt"`
	GiveUp      int64  `bun:"give_up"`
	LastStatus  int    `bun:"last_status"`
	LastError   string `bun:"last_error"`
	Response    string `bun:"response"`
	Created     int64  `bun:"created"`
	Finished    *int64 `bun:"finished"`
}

const deliveryColumns = "id, webhook, change_seq, change_id, kind, record_id, op, rev, change_time, status, attempts, " +
	"next_attempt, give_up, last_status, last_error, response, created, finished"

func (r deliveryRow) delivery() cms.Delivery {
	return cms.Delivery{ID: r.ID, WebhookID: r.Webhook,
		Change: cms.FeedChange{Seq: cms.ChangeCursor{Seq: r.ChangeSeq, ID: r.ChangeID}.String(), Kind: cms.Kind(r.Kind),
			ID: r.RecordID, Op: cms.ChangeOp(r.Op), Rev: r.Rev, Time: fromMicros(r.ChangeTime)},
		Status: cms.DeliveryStatus(r.Status), Attempts: r.Attempts, NextAttempt: fromMicros(r.NextAttempt),
		LastStatus: r.LastStatus, LastError: r.LastError, Response: r.Response, Created: fromMicros(r.Created),
		Finished: fromNullMicros(r.Finished)}
}

func (s *Store) scanDeliveries(ctx context.Context, query string, args ...any) ([]deliveryRow, error) {
	var rows []deliveryRow
	if err := s.scan(ctx, s.read, &rows, query, args...); err != nil {
		return nil, s.fail(err)
	}
	return rows, nil
}

// deliveryChunk is how many deliveries one insert writes: 18 arguments
// each stay far below either database's bound.
const deliveryChunk = 200

// AddDeliveries implements cms.Store, a chunk of rows a statement.
func (s *Store) AddDeliveries(ctx context.Context, ds []cms.Delivery) (int, error) {
	added := 0
	err := s.tx(ctx, func(s *Store) error {
		for chunk := range slices.Chunk(ds, deliveryChunk) {
			var b strings.Builder
			b.WriteString("INSERT INTO webhook_deliveries (id, webhook, change_seq, change_id, kind, record_id, op, rev, " +
				"change_time, status, attempts, next_attempt, give_up, claimed_by, claimed_until, last_status, last_error, " +
				"response, created, finished) VALUES ")
			args := make([]any, 0, len(chunk)*11)
			for i, d := range chunk {
				c, err := cms.ParseChangeCursor(d.Change.Seq)
				if err != nil {
					return &cms.Error{Code: cms.CodeInternal, Message: "delivery " + d.ID + ": change cursor", Err: err}
				}
				if i > 0 {
					b.WriteString(", ")
				}
				b.WriteString("(?, ?, ?, ?, ?, ?, ?, ?, ?, '" + string(cms.DeliveryPending) + "', 0, ?, 0, '', NULL, 0, '', '', ?, NULL)")
				args = append(args, d.ID, d.WebhookID, c.Seq, c.ID, string(d.Change.Kind), d.Change.ID, string(d.Change.Op),
					d.Change.Rev, micros(d.Change.Time), micros(d.NextAttempt), micros(d.Created))
			}
			b.WriteString(" ON CONFLICT DO NOTHING")
			n, err := s.exec(ctx, b.String(), args...)
			if err != nil {
				return err
			}
			added += int(n)
		}
		return nil
	})
	return added, err
}

// ClaimDeliveries implements cms.Store. The due deliveries are found
// through deliveries_due, each tested against deliveries_record for an
// earlier pending one of its record; with concurrent claims the rows are
// locked with Options.ClaimLock, so claimers skip each other's. An
// earlier delivery of a record stays pending while claimed, so a
// record's next one waits for it, whoever holds it.
func (s *Store) ClaimDeliveries(ctx context.Context, owner string, now, until time.Time, limit int) ([]cms.ClaimedDelivery, error) {
	const pending = "'" + string(cms.DeliveryPending) + "'"
	query := "UPDATE webhook_deliveries SET claimed_by = ?, claimed_until = ?, attempts = attempts + 1 " +
		"WHERE id IN (SELECT d.id FROM webhook_deliveries AS d WHERE d.status = " + pending + " AND d.next_attempt <= ? " +
		"AND (d.claimed_until IS NULL OR d.claimed_until < ?) " +
		"AND EXISTS (SELECT 1 FROM webhooks AS w WHERE w.id = d.webhook AND w.enabled) " +
		"AND NOT EXISTS (SELECT 1 FROM webhook_deliveries AS e WHERE e.webhook = d.webhook AND e.kind = d.kind " +
		"AND e.record_id = d.record_id AND e.status = " + pending + " AND (e.change_seq, e.change_id) < (d.change_seq, d.change_id)) " +
		"ORDER BY d.next_attempt, d.change_seq, d.change_id LIMIT ?"
	if s.opts.Features.ConcurrentBatchClaims {
		query += " " + s.opts.ClaimLock
	}
	query += ") RETURNING " + deliveryColumns
	var rows []deliveryRow
	if err := s.scan(ctx, s.write, &rows, query, owner, micros(until), micros(now), micros(now), limit); err != nil {
		return nil, s.fail(err)
	}
	claimed := make([]cms.ClaimedDelivery, len(rows))
	for i, r := range rows {
		claimed[i] = cms.ClaimedDelivery{Delivery: r.delivery()}
		if r.GiveUp != 0 {
			claimed[i].GiveUp = fromMicros(r.GiveUp)
		}
	}
	slices.SortFunc(claimed, func(a, b cms.ClaimedDelivery) int { return a.NextAttempt.Compare(b.NextAttempt) })
	return claimed, nil
}

// FinishAttempt implements cms.Store.
func (s *Store) FinishAttempt(ctx context.Context, o cms.DeliveryOutcome) error {
	n, err := s.exec(ctx, "UPDATE webhook_deliveries SET status = ?, next_attempt = ?, give_up = ?, finished = ?, "+
		"last_status = ?, last_error = ?, response = ?, claimed_by = '', claimed_until = NULL "+
		"WHERE id = ? AND webhook = ? AND claimed_by = ? AND status = '"+string(cms.DeliveryPending)+"'",
		string(o.Status), micros(o.NextAttempt), micros(o.GiveUp), nullMicros(o.Finished), o.LastStatus, o.LastError,
		o.Response, o.ID, o.WebhookID, o.Owner)
	if err == nil && n == 0 {
		err = conflict("delivery " + o.ID + " is not held by " + o.Owner)
	}
	return err
}

// ReleaseDelivery implements cms.Store.
func (s *Store) ReleaseDelivery(ctx context.Context, webhookID, id, owner string) error {
	_, err := s.exec(ctx, "UPDATE webhook_deliveries SET claimed_by = '', claimed_until = NULL, attempts = attempts - 1 "+
		"WHERE id = ? AND webhook = ? AND claimed_by = ? AND status = '"+string(cms.DeliveryPending)+"'", id, webhookID, owner)
	return err
}

// GetDelivery implements cms.Store.
func (s *Store) GetDelivery(ctx context.Context, webhookID, id string) (cms.Delivery, error) {
	rows, err := s.scanDeliveries(ctx, "SELECT "+deliveryColumns+" FROM webhook_deliveries WHERE id = ? AND webhook = ?",
		id, webhookID)
	if err != nil {
		return cms.Delivery{}, err
	}
	if len(rows) == 0 {
		return cms.Delivery{}, notFound("delivery " + id)
	}
	return rows[0].delivery(), nil
}

// ListDeliveries implements cms.Store, through deliveries_change.
func (s *Store) ListDeliveries(ctx context.Context, q cms.DeliveryQuery) ([]cms.Delivery, error) {
	if q.Limit <= 0 {
		return nil, &cms.Error{Code: cms.CodeInternal, Message: "ListDeliveries: a limit above 0"}
	}
	where, args := "webhook = ?", []any{q.WebhookID}
	if q.Before != nil {
		where += " AND (change_seq, change_id) < (?, ?)"
		args = append(args, q.Before.Seq, q.Before.ID)
	}
	if q.Status != "" {
		where += " AND status = ?"
		args = append(args, string(q.Status))
	}
	rows, err := s.scanDeliveries(ctx, "SELECT "+deliveryColumns+" FROM webhook_deliveries WHERE "+where+
		" ORDER BY change_seq DESC, change_id DESC LIMIT ?", append(args, q.Limit)...)
	if err != nil {
		return nil, err
	}
	ds := make([]cms.Delivery, len(rows))
	for i, r := range rows {
		ds[i] = r.delivery()
	}
	return ds, nil
}

// RetryDelivery implements cms.Store.
func (s *Store) RetryDelivery(ctx context.Context, webhookID, id string, at time.Time) (cms.Delivery, error) {
	const pending = "'" + string(cms.DeliveryPending) + "'"
	var rows []deliveryRow
	err := s.scan(ctx, s.write, &rows, "UPDATE webhook_deliveries SET "+
		"attempts = CASE WHEN status = "+pending+" THEN attempts ELSE 0 END, "+
		"give_up = CASE WHEN status = "+pending+" THEN give_up ELSE 0 END, "+
		"next_attempt = ?, finished = NULL, status = "+pending+" WHERE id = ? AND webhook = ? RETURNING "+deliveryColumns,
		micros(at), id, webhookID)
	if err != nil {
		return cms.Delivery{}, s.fail(err)
	}
	if len(rows) == 0 {
		return cms.Delivery{}, notFound("delivery " + id)
	}
	return rows[0].delivery(), nil
}

// FailPendingDeliveries implements cms.Store.
func (s *Store) FailPendingDeliveries(ctx context.Context, webhookID string, at time.Time, reason string) (int, error) {
	n, err := s.exec(ctx, "UPDATE webhook_deliveries SET status = ?, finished = ?, last_error = ?, claimed_by = '', "+
		"claimed_until = NULL WHERE webhook = ? AND status = '"+string(cms.DeliveryPending)+"'",
		string(cms.DeliveryFailed), micros(at), reason, webhookID)
	return int(n), err
}

// PurgeDeliveries implements cms.Store: the oldest finished deliveries
// through deliveries_finished, then those ids by key (a DELETE whose
// condition is a sub-select would read the whole log on PostgreSQL to
// join the two).
func (s *Store) PurgeDeliveries(ctx context.Context, before time.Time, limit int) (int, error) {
	var ids []string
	if err := s.scan(ctx, s.write, &ids, "SELECT id FROM webhook_deliveries WHERE status <> '"+string(cms.DeliveryPending)+
		"' AND finished < ? ORDER BY finished LIMIT ?", micros(before), limit); err != nil {
		return 0, s.fail(err)
	}
	if len(ids) == 0 {
		return 0, nil
	}
	n, err := s.exec(ctx, "DELETE FROM webhook_deliveries WHERE id "+s.opts.InList, s.opts.List(ids))
	return int(n), err
}
