package main

import (
	"context"
	"fmt"
	"io"
	"net/http"
	"sync"
	"time"
)

// upsert has each client POST new Resources <prefix>-<client>-<n> for
// the duration.
func upsert(ctx context.Context, c *client, recs *records, o options, stdout io.Writer) error {
	t := newTally()
	start := time.Now()
	end := start.Add(o.Duration)
	var wg sync.WaitGroup
	for client := range o.Clients {
		wg.Go(func() {
			w := recs.writer()
			var body []byte
			for n := 0; time.Now().Before(end); n++ {
				body = w.append(body[:0], fmt.Sprintf("%s-%d-%d", o.Prefix, client, n), n)
				t0 := time.Now()
				status, answer, err := c.do(ctx, "POST", "/resource", body)
				d := time.Since(t0)
				if ctx.Err() != nil {
					return // interrupted: the request is not counted
				}
				if err != nil {
					t.add(d, 0, false, err.Error())
					return // the server is gone: stop this client
				}
				ok := status == http.StatusCreated || status == http.StatusAccepted || status == http.StatusOK
				t.add(d, status, ok, failure(status, answer))
			}
		})
	}
	wg.Wait()
	if err := ctx.Err(); err != nil {
		return err
	}
	elapsed := time.Since(start)
	n := t.count()
	other := n - t.statuses[201] - t.statuses[202] - t.statuses[200]
	fmt.Fprintf(stdout, "upsert: %d requests in %s, %.1f requests/s\n", n, secs(elapsed), perSecond(n, elapsed))
	fmt.Fprintf(stdout, "upsert: status 201 %d, 202 %d, 200 %d, other %d\n",
		t.statuses[201], t.statuses[202], t.statuses[200], other)
	fmt.Fprintf(stdout, "upsert: %s\n", t.latencyLine())
	if t.failed > 0 {
		return fmt.Errorf("upsert: %d of %d requests failed; first: %s", t.failed, n, t.first)
	}
	return nil
}
