package main

import (
	"context"
	"fmt"
	"io"
	"math/rand/v2"
	"net/http"
	"sync"
	"time"
)

// maxBatch is the most records the server takes in one batch.
const maxBatch = 10000

// read creates the records <prefix>-r-<n> with batches, then has each
// client GET random ones of them for the duration.
func read(ctx context.Context, c *client, recs *records, o options, stdout io.Writer) error {
	t0 := time.Now()
	w := recs.writer()
	var body []byte
	for from := 0; from < o.Records; from += maxBatch {
		body = w.appendBatch(body[:0], o.Prefix+"-r", from, min(maxBatch, o.Records-from))
		if r := submitAndWait(ctx, c, body, o.Poll); r.status != "done" {
			return fmt.Errorf("read: creating the records: %s", r.problem())
		}
	}
	fmt.Fprintf(stdout, "read: %d records created in %s\n", o.Records, secs(time.Since(t0)))

	t := newTally()
	start := time.Now()
	end := start.Add(o.Duration)
	var wg sync.WaitGroup
	for range o.Clients {
		wg.Go(func() {
			for time.Now().Before(end) {
				path := fmt.Sprintf("/resource/%s-r-%d", o.Prefix, rand.IntN(o.Records))
				t0 := time.Now()
				status, answer, err := c.do(ctx, "GET", path, nil)
				d := time.Since(t0)
				if ctx.Err() != nil {
					return
				}
				if err != nil {
					t.add(d, 0, false, err.Error())
					return
				}
				t.add(d, status, status == http.StatusOK, "GET "+path+": "+failure(status, answer))
			}
		})
	}
	wg.Wait()
	if err := ctx.Err(); err != nil {
		return err
	}
	elapsed := time.Since(start)
	n := t.count()
	fmt.Fprintf(stdout, "read: %d reads in %s, %.1f reads/s, %d not 200\n", n, secs(elapsed), perSecond(n, elapsed), t.failed)
	fmt.Fprintf(stdout, "read: %s\n", t.latencyLine())
	if t.failed > 0 {
		return fmt.Errorf("read: %d of %d reads failed; first: %s", t.failed, n, t.first)
	}
	return nil
}
