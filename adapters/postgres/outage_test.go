package postgres

import (
	"context"
	"testing"
	"time"

	"github.com/bwcms/cms/adapters/postgres/pgtest"
	"github.com/bwcms/cms/cms"
)

// TestOutage: with the database cut off (connecting refused, pooled
// connections lost), reads, writes and transactions fail with
// CodeUnavailable, not as internal errors; once it is back, the same
// store works again without being reopened, and what was written before
// is there.
func TestOutage(t *testing.T) {
	t.Parallel()
	proxy, dsn := pgtest.NewProxy(t, pgtest.DSN(t))
	s, err := Open(t.Context(), dsn, &Options{MaxConns: 4})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { s.Close() })
	ctx := t.Context()
	entry := func(id string) *cms.Entry {
		return &cms.Entry{Account: "a", Record: &cms.Resource{ID: id, Title: cms.Langs[string]{"en": id}},
			Updated: time.Date(2026, 11, 25, 5, 0, 0, 0, time.UTC)}
	}
	if err := s.PutRecord(ctx, entry("before")); err != nil {
		t.Fatal(err)
	}
	// A transaction open across the cut loses its connection too.
	inTx := make(chan error, 1)
	held, cut := make(chan struct{}), make(chan struct{})
	go func() {
		inTx <- s.WithTx(ctx, func(tx cms.Store) error {
			if _, err := tx.GetRecord(ctx, "a", cms.KindResource, "before"); err != nil {
				return err
			}
			close(held)
			<-cut
			return tx.PutRecord(ctx, entry("during"))
		})
	}()
	<-held
	proxy.Cut()
	close(cut)
	if err := <-inTx; cms.ErrorCode(err) != cms.CodeUnavailable {
		t.Errorf("a transaction across the cut: %v, want CodeUnavailable", err)
	}
	calls := []struct {
		name string
		do   func(context.Context) error
	}{
		{"GetRecord", func(ctx context.Context) error {
			_, err := s.GetRecord(ctx, "a", cms.KindResource, "before")
			return err
		}},
		{"ExistingIDs", func(ctx context.Context) error {
			_, err := s.ExistingIDs(ctx, "a", cms.KindResource, []string{"before"})
			return err
		}},
		{"PutRecord", func(ctx context.Context) error { return s.PutRecord(ctx, entry("during")) }},
		{"WithTx", func(ctx context.Context) error {
			return s.WithTx(ctx, func(tx cms.Store) error { return tx.PutRecord(ctx, entry("during")) })
		}},
		{"ClaimBatch", func(ctx context.Context) error {
			_, err := s.ClaimBatch(ctx, "w", time.Now(), time.Now().Add(time.Minute))
			return err
		}},
	}
	for _, c := range calls {
		if err := c.do(ctx); cms.ErrorCode(err) != cms.CodeUnavailable {
			t.Errorf("%s during the outage: %v, want CodeUnavailable", c.name, err)
		}
	}
	proxy.Restore()
	if err := s.PutRecord(ctx, entry("after")); err != nil {
		t.Fatalf("PutRecord after the outage: %v", err)
	}
	for _, id := range []string{"before", "after"} {
		if _, err := s.GetRecord(ctx, "a", cms.KindResource, id); err != nil {
			t.Errorf("GetRecord %s after the outage: %v", id, err)
		}
	}
	if _, err := s.GetRecord(ctx, "a", cms.KindResource, "during"); cms.ErrorCode(err) != cms.CodeNotFound {
		t.Errorf("a write refused during the outage is stored: %v", err)
	}
}
