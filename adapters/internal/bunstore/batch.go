package bunstore

import (
	"context"
	"database/sql"
	"iter"
	"time"

	"github.com/bwcms/cms/cms"
)

type batchRow struct {
	ID          string `bun:"id"`
	Account     string `bun:"account"`
	Kind        string `bun:"kind"`
	Count       int    `bun:"count"`
	Status      string `bun:"status"`
	RequestedAt int64  `bun:"requested_at"`
	StatusAt    int64  `bun:"status_at"`
	Owner       string `bun:"owner"`
	LeaseUntil  *int64 `bun:"lease_until"`
	Attempts    int    `bun:"attempts"`
	Processed   int    `bun:"processed"`
	Created     int    `bun:"created"`
	Updated     int    `bun:"updated"`
	Skipped     int    `bun:"skipped"`
	Error       string `bun:"error"`
}

func (r batchRow) batch() *cms.Batch {
	return &cms.Batch{ID: r.ID, Account: r.Account, Kind: cms.Kind(r.Kind), Count: r.Count,
		Status: cms.BatchStatus(r.Status), Requested: fromMicros(r.RequestedAt), StatusAt: fromMicros(r.StatusAt),
		Owner: r.Owner, LeaseUntil: fromNullMicros(r.LeaseUntil), Attempts: r.Attempts, Processed: r.Processed,
		Result: cms.BatchResult{Created: r.Created, Updated: r.Updated, Skipped: r.Skipped, Error: r.Error}}
}

const batchColumns = "id, account, kind, count, status, requested_at, status_at, owner, lease_until, attempts, processed, " +
	"created, updated, skipped, error"

// EnqueueBatch implements cms.Store.
func (s *Store) EnqueueBatch(ctx context.Context, b *cms.Batch) error {
	return s.tx(ctx, func(s *Store) error {
		n, err := s.exec(ctx, "INSERT INTO batches (id, account, kind, payload, count, status, requested_at, status_at, "+
			"owner, lease_until, attempts, created, updated, skipped, error) "+
			"VALUES (?, ?, ?, ?, ?, ?, ?, ?, '', NULL, 0, 0, 0, 0, '') ON CONFLICT (id) DO NOTHING",
			b.ID, b.Account, string(b.Kind), []byte{}, b.Count, string(cms.BatchWaiting),
			micros(b.Requested), micros(b.Requested))
		if err == nil && n == 0 {
			err = conflict("batch " + b.ID + " exists")
		}
		if err != nil {
			return err
		}
		for part, data := range payloadParts(b.Payload) {
			if _, err := s.exec(ctx, "INSERT INTO batch_payload_parts (id, part, data) VALUES (?, ?, ?)", b.ID, part, data); err != nil {
				return err
			}
		}
		return nil
	})
}

// payloadPart is the most bytes of a payload one row holds: the driver
// and the database copy a part at a time, not a whole body.
const payloadPart = 1 << 20

// payloadParts cuts a payload into parts (one, empty, for an empty one).
func payloadParts(payload []byte) iter.Seq2[int, []byte] {
	return func(yield func(int, []byte) bool) {
		for part := 0; part == 0 || part*payloadPart < len(payload); part++ {
			if !yield(part, payload[part*payloadPart:min((part+1)*payloadPart, len(payload))]) {
				return
			}
		}
	}
}

// ClaimBatch implements cms.Store. Without concurrent claims the oldest
// unfinished batch is the only one claimable: batches are applied in
// order even when one is left processing by a stopped worker.
func (s *Store) ClaimBatch(ctx context.Context, owner string, now, leaseUntil time.Time) (*cms.Batch, error) {
	set := "UPDATE batches SET owner = ?, lease_until = ?, attempts = attempts + 1, processed = 0, " +
		"status_at = CASE WHEN status = ? THEN ? ELSE status_at END, status = ? "
	args := []any{owner, micros(leaseUntil), string(cms.BatchWaiting), micros(now), string(cms.BatchProcessing)}
	var where string
	if s.opts.Features.ConcurrentBatchClaims {
		// Unfinished batches only, through the index on status: an OR of
		// the two states, or states passed as arguments (a prepared
		// statement's generic plan cannot tell how many rows they hold),
		// would read the whole history of batches.
		where = "WHERE id = (SELECT id FROM batches WHERE status IN ('" + string(cms.BatchWaiting) + "', '" + string(cms.BatchProcessing) +
			"') AND (status = '" + string(cms.BatchWaiting) + "' OR lease_until < ?) ORDER BY requested_at, id LIMIT 1 " + s.opts.ClaimLock + ") "
		args = append(args, micros(now))
	} else {
		where = "WHERE id = (SELECT id FROM batches WHERE status IN (?, ?) ORDER BY requested_at, id LIMIT 1) " +
			"AND (status = ? OR lease_until < ?) "
		args = append(args, string(cms.BatchWaiting), string(cms.BatchProcessing), string(cms.BatchWaiting), micros(now))
	}
	var rows []batchRow
	err := s.scan(ctx, s.write, &rows, set+where+"RETURNING "+batchColumns, args...)
	if err != nil {
		return nil, s.fail(err)
	}
	if len(rows) == 0 {
		return nil, notFound("waiting batch")
	}
	return rows[0].batch(), nil
}

// BatchPayload implements cms.Store. Its parts are appended to one buffer
// sized first, each read without a copy of its own (a scan into []byte
// would make one).
func (s *Store) BatchPayload(ctx context.Context, id string) ([]byte, error) {
	var size []int64
	if err := s.scan(ctx, s.write, &size, "SELECT COALESCE(SUM(LENGTH(data)), -1) FROM batch_payload_parts WHERE id = ?", id); err != nil {
		return nil, s.fail(err)
	}
	if len(size) == 0 || size[0] < 0 {
		return nil, notFound("payload of batch " + id)
	}
	c, release, err := s.acquire(ctx, s.write)
	if err != nil {
		return nil, err
	}
	defer release()
	sctx, cancel := s.bound(ctx)
	defer cancel()
	rows, err := c.QueryContext(sctx, s.text("SELECT data FROM batch_payload_parts WHERE id = ? ORDER BY part"), id)
	if err != nil {
		return nil, s.failBound(ctx, sctx, err)
	}
	defer rows.Close()
	payload := make([]byte, 0, size[0])
	for rows.Next() {
		var raw sql.RawBytes
		if err := rows.Scan(&raw); err != nil {
			return nil, s.failBound(ctx, sctx, err)
		}
		payload = append(payload, raw...)
	}
	if err := rows.Err(); err != nil {
		return nil, s.failBound(ctx, sctx, err)
	}
	return payload, s.failBound(ctx, sctx, rows.Close())
}

// HeartbeatBatch implements cms.Store.
func (s *Store) HeartbeatBatch(ctx context.Context, id, owner string, leaseUntil time.Time, processed int) error {
	n, err := s.exec(ctx, "UPDATE batches SET lease_until = ?, processed = CASE WHEN processed > ? THEN processed ELSE ? END "+
		"WHERE id = ? AND owner = ? AND status = ?",
		micros(leaseUntil), processed, processed, id, owner, string(cms.BatchProcessing))
	if err == nil && n == 0 {
		err = conflict("batch " + id + " is not held by " + owner)
	}
	return err
}

// FinishBatch implements cms.Store. A finished batch's payload is not
// needed again: it goes at once.
func (s *Store) FinishBatch(ctx context.Context, id, owner string, status cms.BatchStatus, r cms.BatchResult, at time.Time) error {
	return s.tx(ctx, func(s *Store) error {
		n, err := s.exec(ctx, "UPDATE batches SET status = ?, status_at = ?, lease_until = NULL, created = ?, updated = ?, "+
			"skipped = ?, error = ?, outcomes = ? WHERE id = ? AND owner = ? AND status = ?",
			string(status), micros(at), r.Created, r.Updated, r.Skipped, r.Error, encodeOutcomes(r.Outcomes),
			id, owner, string(cms.BatchProcessing))
		if err == nil && n == 0 {
			err = conflict("batch " + id + " is not held by " + owner)
		}
		if err != nil {
			return err
		}
		_, err = s.exec(ctx, "DELETE FROM batch_payload_parts WHERE id = ?", id)
		return err
	})
}

// GetBatch implements cms.Store.
func (s *Store) GetBatch(ctx context.Context, account string, kind cms.Kind, id string) (*cms.Batch, error) {
	var rows []batchRow
	err := s.scan(ctx, s.read, &rows, "SELECT "+batchColumns+" FROM batches WHERE id = ? AND account = ? AND kind = ?",
		id, account, string(kind))
	if err != nil {
		return nil, s.fail(err)
	}
	if len(rows) == 0 {
		return nil, notFound("batch " + id)
	}
	return rows[0].batch(), nil
}

// BatchOutcomes implements cms.Store.
func (s *Store) BatchOutcomes(ctx context.Context, account string, kind cms.Kind, id string) ([]cms.RecordOutcome, error) {
	var rows []struct {
		Status   string `bun:"status"`
		Outcomes []byte `bun:"outcomes"`
	}
	err := s.scan(ctx, s.read, &rows, "SELECT status, outcomes FROM batches WHERE id = ? AND account = ? AND kind = ?",
		id, account, string(kind))
	if err != nil {
		return nil, s.fail(err)
	}
	if len(rows) == 0 {
		return nil, notFound("batch " + id)
	}
	if cms.BatchStatus(rows[0].Status) != cms.BatchDone {
		return nil, nil
	}
	outcomes, err := decodeOutcomes(rows[0].Outcomes)
	return outcomes, s.fail(err)
}

// PurgeBatches implements cms.Store.
func (s *Store) PurgeBatches(ctx context.Context, before time.Time) (int, error) {
	// The states as literals, as everywhere a statement names states: a
	// prepared statement's generic plan cannot tell how many rows states
	// passed as arguments hold.
	n, err := s.exec(ctx, "DELETE FROM batches WHERE status IN ('"+string(cms.BatchDone)+"', '"+string(cms.BatchError)+"') AND status_at < ?",
		micros(before))
	return int(n), err
}

// BatchQueue implements cms.Store: through the index on (status,
// requested_at), whatever the finished batches kept.
func (s *Store) BatchQueue(ctx context.Context) (cms.BatchQueue, error) {
	var rows []struct {
		Status string `bun:"status"`
		N      int    `bun:"n"`
		Oldest int64  `bun:"oldest"`
	}
	if err := s.scan(ctx, s.read, &rows, "SELECT status, count(*) AS n, min(requested_at) AS oldest FROM batches "+
		"WHERE "+runningStatuses+" GROUP BY status"); err != nil {
		return cms.BatchQueue{}, s.fail(err)
	}
	var q cms.BatchQueue
	for _, r := range rows {
		switch cms.BatchStatus(r.Status) {
		case cms.BatchWaiting:
			q.Waiting, q.OldestWaiting = r.N, fromMicros(r.Oldest)
		case cms.BatchProcessing:
			q.Processing = r.N
		}
	}
	return q, nil
}
