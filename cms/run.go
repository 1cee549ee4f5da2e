package cms

import (
	"context"
	"sync"
	"time"
)

// Run runs what the service needs beside its requests until ctx ends:
// Options.BatchWorkers workers applying submitted batches (none with
// NoBatchWorkers), Purge every Options.PurgeEvery and, with
// Options.WebhookSender, the delivery of webhooks (Options.WebhookWorkers
// senders). It logs what it starts, and returns once everything it
// started has stopped. A batch
// being applied when ctx ends is rolled back and its lease ended, so the
// next claim (here after a restart, or on another instance) takes it up
// again at once; nothing is lost or applied twice. Run it beside the
// HTTP server:
//
//	go svc.Run(ctx)
//
// or, to wait for it on shutdown, in a goroutine whose end the host
// waits for after cancelling ctx.
func (s *Service) Run(ctx context.Context) error {
	workers := max(s.opts.BatchWorkers, 0)
	// Counted before the log line, so a batch submitted once Run has said
	// it runs is handed to its workers.
	s.workers.Add(int32(workers))
	defer s.workers.Add(-int32(workers))
	webhookWorkers := 0
	if s.opts.WebhookSender != nil {
		webhookWorkers = s.opts.WebhookWorkers
	}
	s.log.InfoContext(ctx, "cms: running", "batch_workers", workers, "purge_every", s.opts.PurgeEvery.String(),
		"webhook_workers", webhookWorkers)
	var wg sync.WaitGroup
	wg.Go(func() { s.purgeEvery(ctx) })
	wg.Go(func() { s.runSubscriptions(ctx) })
	if workers > 0 {
		wg.Go(func() { s.runWorkers(ctx, workers) })
	}
	if webhookWorkers > 0 {
		wg.Go(func() { s.runWebhooks(ctx) })
	}
	wg.Wait()
	s.log.InfoContext(context.WithoutCancel(ctx), "cms: stopped")
	return nil
}

// purgeEvery calls Purge every Options.PurgeEvery until ctx ends.
func (s *Service) purgeEvery(ctx context.Context) {
	t := time.NewTicker(s.opts.PurgeEvery)
	defer t.Stop()
	for {
		select {
		case <-ctx.Done():
			return
		case <-t.C:
			if err := s.Purge(ctx); err != nil && ctx.Err() == nil {
				s.log.WarnContext(ctx, "cms: purge failed", "err", err)
			}
		}
	}
}
