package cms_test

import (
	"context"
	"fmt"
	"slices"
	"sync"
	"testing"
	"time"

	"github.com/bwcms/cms/cms"
	"github.com/bwcms/cms/internal/testenv"
)

// sharedSender records the messages the senders of several instances
// send, each taking a moment, as a receiver over a network does.
type sharedSender struct {
	mu   sync.Mutex
	got  []sentBy
	took time.Duration
}

type sentBy struct {
	instance string
	msg      cms.WebhookMessage
}

type instanceSender struct {
	name   string
	shared *sharedSender
}

func (s instanceSender) Send(ctx context.Context, m cms.WebhookMessage) cms.WebhookAttempt {
	s.shared.mu.Lock()
	s.shared.got = append(s.shared.got, sentBy{s.name, m})
	s.shared.mu.Unlock()
	select {
	case <-ctx.Done():
		return cms.WebhookAttempt{Err: ctx.Err()}
	case <-time.After(s.shared.took):
	}
	return cms.WebhookAttempt{Status: 200}
}

func (s *sharedSender) sent() []sentBy {
	s.mu.Lock()
	defer s.mu.Unlock()
	return slices.Clone(s.got)
}

// TestWebhookTwoInstances: two services on one database (two pools),
// both running, while writers on both change records: every change
// after the webhook was made is sent, under one message id per change
// (materialized once, however many instances materialize), the
// messages of a record in the order of its changes, and both instances
// send some of them.
func TestWebhookTwoInstances(t *testing.T) {
	for _, db := range []struct {
		name string
		open func(testing.TB) testenv.Opener
	}{{"sqlite", testenv.SharedSQLite}, {"postgres", testenv.SharedPostgres}} {
		t.Run(db.name, func(t *testing.T) {
			t.Parallel()
			open := db.open(t)
			shared := &sharedSender{took: 20 * time.Millisecond}
			options := func(name string) func(*cms.Options) {
				return func(o *cms.Options) {
					o.WebhookSender = instanceSender{name, shared}
					o.WebhookWorkers = 2
				}
			}
			first := testenv.NewService(t, open(t), nil, options("first"), hookAccounts...)
			o := testenv.ServiceOptions(nil)
			options("second")(&o)
			second, err := cms.NewService(open(t), &o)
			if err != nil {
				t.Fatal(err)
			}
			e := &hooks{svc: first}
			root := e.as(t, "root")
			if _, _, err := first.CreateWebhook(root, cms.WebhookInput{URL: ptr(hookURL)}); err != nil {
				t.Fatal(err)
			}
			start, err := first.AccountChanges(t.Context(), "acme", cms.ChangesParams{After: "now"})
			if err != nil {
				t.Fatal(err)
			}
			ctx, cancel := context.WithCancel(t.Context())
			var running sync.WaitGroup
			for _, svc := range []*cms.Service{first, second} {
				running.Go(func() { svc.Run(ctx) })
			}
			defer running.Wait()
			defer cancel()

			var writers sync.WaitGroup
			errs := make(chan error, 4)
			for w := range 4 {
				svc := []*cms.Service{first, second}[w%2]
				writers.Go(func() {
					for i := range 30 {
						id := fmt.Sprintf("wr%d-%d", w, i%6)
						var err error
						if i%7 == 6 {
							_, err = svc.Delete(root, cms.KindResource, []string{id}, nil)
						} else {
							_, err = svc.Upsert(root, cms.KindResource, []byte(fmt.Sprintf(`{"id":%q,"title":"T %d"}`, id, i)), nil)
						}
						if err != nil {
							errs <- fmt.Errorf("writer %d: %w", w, err)
							return
						}
					}
				})
			}
			writers.Wait()
			close(errs)
			for err := range errs {
				t.Fatal(err)
			}
			var want []cms.FeedChange
			for after := start.Next; ; {
				page, err := first.AccountChanges(t.Context(), "acme", cms.ChangesParams{After: after, Limit: 1000})
				if err != nil {
					t.Fatal(err)
				}
				want = append(want, page.Changes...)
				if len(page.Changes) < 1000 {
					break
				}
				after = page.Next
			}
			// Wait until every change has come (a bound, not a measure).
			seqs := func(got []sentBy) map[string]bool {
				m := map[string]bool{}
				for _, g := range got {
					m[bodyOf(t, g.msg).Data.Seq] = true
				}
				return m
			}
			deadline := time.Now().Add(2 * time.Minute)
			for {
				got := seqs(shared.sent())
				missing := 0
				for _, c := range want {
					if !got[c.Seq] {
						missing++
					}
				}
				if missing == 0 {
					break
				}
				if time.Now().After(deadline) {
					t.Fatalf("%d of %d changes never sent", missing, len(want))
				}
				time.Sleep(50 * time.Millisecond)
			}
			cancel()
			running.Wait()

			sent := shared.sent()
			idOf := map[string]string{}     // change -> message id
			changeOf := map[string]string{} // message id -> change
			by := map[string]int{}
			lastRev := map[string]int64{} // record -> rev of its last first-sent message
			firstSeen := map[string]bool{}
			for _, s := range sent {
				b := bodyOf(t, s.msg)
				if id, ok := idOf[b.Data.Seq]; ok && id != s.msg.ID {
					t.Errorf("change %s sent under two ids: %s, %s", b.Data.Seq, id, s.msg.ID)
				}
				if seq, ok := changeOf[s.msg.ID]; ok && seq != b.Data.Seq {
					t.Errorf("message %s names two changes: %s, %s", s.msg.ID, seq, b.Data.Seq)
				}
				idOf[b.Data.Seq], changeOf[s.msg.ID] = s.msg.ID, b.Data.Seq
				by[s.instance]++
				if firstSeen[s.msg.ID] {
					continue // a repeat: receivers drop it by its id
				}
				firstSeen[s.msg.ID] = true
				if b.Data.Rev <= lastRev[b.Data.ID] {
					t.Errorf("record %s: rev %d sent after rev %d", b.Data.ID, b.Data.Rev, lastRev[b.Data.ID])
				}
				lastRev[b.Data.ID] = b.Data.Rev
			}
			if len(firstSeen) != len(want) {
				t.Errorf("%d messages for %d changes", len(firstSeen), len(want))
			}
			if by["first"] == 0 || by["second"] == 0 {
				t.Errorf("the work was not shared: %v", by)
			}
			t.Logf("%d changes, %d messages sent, by instance %v", len(want), len(sent), by)
		})
	}
}
