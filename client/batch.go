package client

import (
	"context"
	"fmt"
	"net/http"
	"net/url"
	"time"

	"github.com/bwcms/cms/cms"
)

// Batch is the state of a batch as the API tells it.
type Batch struct {
	ID   string
	Kind cms.Kind
	// Status: cms.BatchWaiting, cms.BatchProcessing, cms.BatchDone or
	// cms.BatchError.
	Status cms.BatchStatus
	// Count is how many records the batch holds.
	Count int
	// Created, Updated and Skipped count the records, once done.
	Created, Updated, Skipped int
	// Error is the reason of status error.
	Error string
	// Processed is how many records the current attempt has applied so
	// far while the batch is processing (the API's processed extension),
	// Count once done, 0 before. It never decreases within an attempt.
	Processed int
	// Attempt numbers the attempts while the batch is processing, from
	// 1 (the API's attempt extension): a greater one means the batch was
	// taken up again (after a failure, a stop or a lease that ran out) and
	// Processed started again from 0. 0 when not processing.
	Attempt int
	// DateRequest and DateStatus are when the batch was submitted and
	// its status last changed, "YYYY-MM-DD HH:MM:SS" in the service's
	// zone; empty from SubmitBatch.
	DateRequest, DateStatus string
}

// Finished reports whether the batch is done or failed.
func (b Batch) Finished() bool { return b.Status == cms.BatchDone || b.Status == cms.BatchError }

// SubmitBatch submits records of kind to be created or updated together
// (POST <kind>/batch), each sent with the fields that are set, as Upsert
// sends one. The whole batch is checked before it is queued: any problem
// is an *Error 409 listing every problem of every record. The Batch
// returned is waiting, with its id; workers of the service apply it a
// moment later (BatchStatus, WaitBatch).
func (c *Client) SubmitBatch(ctx context.Context, kind cms.Kind, recs []cms.Record) (Batch, error) {
	body, err := c.batchBody(kind, recs)
	if err != nil {
		return Batch{}, err
	}
	var receipt struct {
		BatchID string `json:"batchId"`
		Count   int    `json:"count"`
	}
	req := &request{method: http.MethodPost, path: string(kind) + "/" + cms.KeywordBatch, body: body, contentType: contentJSON}
	if err := c.call(ctx, req, http.StatusCreated, &receipt); err != nil {
		return Batch{}, err
	}
	return Batch{ID: receipt.BatchID, Kind: kind, Status: cms.BatchWaiting, Count: receipt.Count}, nil
}

// CheckBatch checks records of kind exactly as SubmitBatch would (POST
// <kind>/batch?dryRun=1, an extension of the API) and stores nothing: it
// returns how many records the batch holds, or the error SubmitBatch
// would return (an *Error 409 listing every problem of every record).
// What changes in the service between the check and a submit is judged
// again by the submit.
func (c *Client) CheckBatch(ctx context.Context, kind cms.Kind, recs []cms.Record) (int, error) {
	body, err := c.batchBody(kind, recs)
	if err != nil {
		return 0, err
	}
	var checked struct {
		Count int `json:"count"`
	}
	req := &request{method: http.MethodPost, path: string(kind) + "/" + cms.KeywordBatch + "?dryRun=1", body: body, contentType: contentJSON}
	if err := c.call(ctx, req, http.StatusOK, &checked); err != nil {
		return 0, err
	}
	return checked.Count, nil
}

// batchBody is the body of a batch of recs, each with the fields that are
// set.
func (c *Client) batchBody(kind cms.Kind, recs []cms.Record) ([]byte, error) {
	if err := checkKind(kind); err != nil {
		return nil, err
	}
	codec, err := c.codec()
	if err != nil {
		return nil, err
	}
	body := make([]byte, 0, 256*len(recs)+2)
	body = append(body, '[')
	for i, rec := range recs {
		if err := checkRecord(rec); err != nil {
			return nil, err
		}
		if rec.Kind() != kind {
			return nil, fmt.Errorf("client: a batch of %s holds a %s (record %d)", kind, rec.Kind(), i)
		}
		if err := checkLangs(rec, codec.Languages()); err != nil {
			return nil, err
		}
		if i > 0 {
			body = append(body, ',')
		}
		body = codec.AppendPatch(body, rec)
	}
	return append(body, ']'), nil
}

// BatchStatus returns the state of a batch of kind (GET
// <kind>/batch/{id}). An unknown id is an *Error 404.
func (c *Client) BatchStatus(ctx context.Context, kind cms.Kind, id string) (Batch, error) {
	if err := checkKind(kind); err != nil {
		return Batch{}, err
	}
	var body struct {
		Status      cms.BatchStatus `json:"status"`
		DateStatus  string          `json:"dateStatus"`
		DateRequest string          `json:"dateRequest"`
		Count       int             `json:"count"`
		Created     int             `json:"created"`
		Updated     int             `json:"updated"`
		Skipped     int             `json:"skipped"`
		Error       string          `json:"error"`
		Processed   int             `json:"processed"`
		Attempt     int             `json:"attempt"`
	}
	req := &request{method: http.MethodGet, path: string(kind) + "/" + cms.KeywordBatch + "/" + url.PathEscape(id)}
	if err := c.call(ctx, req, http.StatusOK, &body); err != nil {
		return Batch{}, err
	}
	if body.Status == cms.BatchDone {
		body.Processed = body.Count
	}
	return Batch{ID: id, Kind: kind, Status: body.Status, Count: body.Count, Created: body.Created, Updated: body.Updated,
		Skipped: body.Skipped, Error: body.Error, DateRequest: body.DateRequest, DateStatus: body.DateStatus,
		Processed: body.Processed, Attempt: body.Attempt}, nil
}

// WaitBatch asks the state of a batch until it is done or failed, waiting
// Options.PollInterval at first and twice as long each time up to
// Options.MaxPollInterval (back to PollInterval while Processed moves),
// and calls progress (when not nil) with the first state it sees and with
// each change of status, Processed or Attempt. A batch that ends
// with status error returns it with an error that matches ErrBatchFailed
// and names the reason.
func (c *Client) WaitBatch(ctx context.Context, kind cms.Kind, id string, progress func(Batch)) (Batch, error) {
	wait := c.poll
	var last Batch
	for i := 0; ; i++ {
		b, err := c.BatchStatus(ctx, kind, id)
		if err != nil {
			return b, err
		}
		changed := i == 0 || b.Status != last.Status || b.Processed != last.Processed || b.Attempt != last.Attempt
		if changed && progress != nil {
			progress(b)
		}
		if b.Status == cms.BatchProcessing && b.Processed != last.Processed {
			wait = c.poll // a moving count is worth asking again soon
		}
		last = b
		switch b.Status {
		case cms.BatchDone:
			return b, nil
		case cms.BatchError:
			return b, fmt.Errorf("%w: %s batch %s: %s", ErrBatchFailed, kind, id, b.Error)
		}
		t := time.NewTimer(wait)
		select {
		case <-ctx.Done():
			t.Stop()
			return b, ctx.Err()
		case <-t.C:
		}
		wait = min(2*wait, c.maxPoll)
	}
}

// RunBatch submits records of kind as one batch (SubmitBatch) and waits
// for it (WaitBatch), calling progress with each state it goes through.
func (c *Client) RunBatch(ctx context.Context, kind cms.Kind, recs []cms.Record, progress func(Batch)) (Batch, error) {
	b, err := c.SubmitBatch(ctx, kind, recs)
	if err != nil {
		return b, err
	}
	return c.WaitBatch(ctx, kind, b.ID, progress)
}
