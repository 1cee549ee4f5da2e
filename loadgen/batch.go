package main

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"sync"
	"time"
)

// batchResult is what happened to one batch.
type batchResult struct {
	records, bytes int
	start, end     time.Time     // submit start; done or error seen
	submit         time.Duration // until the 201
	// status is done or error as the server reported, or "" when the
	// batch did not get that far (err says why).
	status                    string
	created, updated, skipped int
	reason                    string // the server's error of a batch in error
	err                       error
}

// problem describes a batch that did not end done.
func (r batchResult) problem() string {
	if r.err != nil {
		return r.err.Error()
	}
	return "status " + r.status + ": " + r.reason
}

// submitAndWait POSTs a batch body of Resources and polls its status every
// poll until it is done or in error.
func submitAndWait(ctx context.Context, c *client, body []byte, poll time.Duration) batchResult {
	return submitKindAndWait(ctx, c, "resource", body, poll)
}

// submitKindAndWait is submitAndWait for a batch of records of kind.
func submitKindAndWait(ctx context.Context, c *client, kind string, body []byte, poll time.Duration) batchResult {
	r := batchResult{bytes: len(body), start: time.Now()}
	status, answer, err := c.do(ctx, "POST", "/"+kind+"/batch", body)
	r.submit = time.Since(r.start)
	if err != nil {
		r.err = err
		return r
	}
	var receipt struct {
		BatchID string `json:"batchId"`
		Count   int    `json:"count"`
	}
	if status != http.StatusCreated || json.Unmarshal(answer, &receipt) != nil || receipt.BatchID == "" {
		r.err = fmt.Errorf("batch submit: %s", failure(status, answer))
		return r
	}
	r.records = receipt.Count
	tick := time.NewTicker(poll)
	defer tick.Stop()
	for {
		select {
		case <-ctx.Done():
			r.err = ctx.Err()
			return r
		case <-tick.C:
		}
		status, answer, err := c.do(ctx, "GET", "/"+kind+"/batch/"+receipt.BatchID, nil)
		if err != nil {
			r.err = err
			return r
		}
		var st struct {
			Status                    string
			Created, Updated, Skipped int
			Error                     string
		}
		if status != http.StatusOK || json.Unmarshal(answer, &st) != nil {
			r.err = fmt.Errorf("batch %s status: %s", receipt.BatchID, failure(status, answer))
			return r
		}
		if st.Status == "done" || st.Status == "error" {
			r.end = time.Now()
			r.status, r.reason = st.Status, st.Error
			r.created, r.updated, r.skipped = st.Created, st.Updated, st.Skipped
			return r
		}
	}
}

// batches submits o.Batches batches of o.Size records, o.Clients at a
// time, each client waiting for its batch to end before the next.
func batches(ctx context.Context, c *client, recs *records, o options, stdout io.Writer) error {
	results := make([]batchResult, o.Batches)
	jobs := make(chan int)
	var wg sync.WaitGroup
	for range min(o.Clients, o.Batches) {
		wg.Go(func() {
			w := recs.writer()
			var body []byte
			for k := range jobs {
				body = w.appendBatch(body[:0], fmt.Sprintf("%s-b%d", o.Prefix, k+1), 0, o.Size)
				results[k] = submitAndWait(ctx, c, body, o.Poll)
			}
		})
	}
	for k := range o.Batches {
		jobs <- k
	}
	close(jobs)
	wg.Wait()
	if err := ctx.Err(); err != nil {
		return err
	}

	var first, last time.Time
	var submits []time.Duration
	done, failed, records, bytes := 0, 0, 0, 0
	for k, r := range results {
		bytes += r.bytes
		if first.IsZero() || r.start.Before(first) {
			first = r.start
		}
		switch {
		case r.err != nil:
			failed++
			fmt.Fprintf(stdout, "batch %d: failed after %s: %s\n", k+1, secs(r.submit), r.err)
			continue
		case r.status == "done":
			done++
			records += r.records
			if r.end.After(last) {
				last = r.end
			}
			fmt.Fprintf(stdout, "batch %d: %d records, submit %s, done after %s (created %d, updated %d, skipped %d)\n",
				k+1, r.records, secs(r.submit), secs(r.end.Sub(r.start)), r.created, r.updated, r.skipped)
		default:
			failed++
			fmt.Fprintf(stdout, "batch %d: %d records, submit %s, error after %s: %s\n",
				k+1, r.records, secs(r.submit), secs(r.end.Sub(r.start)), r.reason)
		}
		submits = append(submits, r.submit)
	}
	p := percentiles(submits, 0.5, 1)
	var span time.Duration
	if done > 0 {
		span = last.Sub(first)
	}
	line := fmt.Sprintf("batch: %d x %d records (%.1f MB), done %d, error %d, %.0f records/s end to end (%s)",
		o.Batches, o.Size, float64(bytes)/float64(o.Batches)/(1<<20), done, failed, perSecond(records, span), secs(span))
	if len(submits) > 0 {
		line += fmt.Sprintf(", submit p50 %s, max %s", secs(p[0]), secs(p[1]))
	}
	fmt.Fprintln(stdout, line)
	if failed > 0 {
		return fmt.Errorf("batch: %d of %d batches failed", failed, o.Batches)
	}
	return nil
}
