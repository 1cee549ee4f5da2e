package postgres

import (
	"context"
	"testing"
	"time"

	"github.com/bwcms/cms/cms"
)

// TestHeldReferenceLeavesUpdates: a record a transaction holds with
// HoldReferenced (FOR KEY SHARE) is still updated at once by another
// (GetRecord holds FOR NO KEY UPDATE): two writes naming each other's
// records never wait for each other, let alone deadlock. Deleting it
// waits.
func TestHeldReferenceLeavesUpdates(t *testing.T) {
	t.Parallel()
	s := openTestStore(t, nil)
	ctx := t.Context()
	res := func(id string) *cms.Resource {
		return &cms.Resource{ID: id, Title: cms.Langs[string]{"en": "Resource " + id}, Published: cms.Some(true)}
	}
	if err := s.PutRecord(ctx, &cms.Entry{Account: "a", Record: res("r-1"), Updated: time.Now()}); err != nil {
		t.Fatal(err)
	}
	held, release := make(chan struct{}), make(chan struct{})
	first := make(chan error, 1)
	go func() {
		first <- s.WithTx(ctx, func(tx cms.Store) error {
			if _, err := tx.HoldReferenced(ctx, "a", cms.KindResource, []string{"r-1"}); err != nil {
				return err
			}
			close(held)
			<-release
			return nil
		})
	}()
	<-held
	wctx, cancel := context.WithTimeout(ctx, 5*time.Second)
	defer cancel()
	err := s.WithTx(wctx, func(tx cms.Store) error {
		e, err := tx.GetRecord(wctx, "a", cms.KindResource, "r-1")
		if err != nil {
			return err
		}
		e.Record.(*cms.Resource).Title["en"] = "changed"
		return tx.PutRecord(wctx, e)
	})
	if err != nil {
		t.Errorf("update of a held record: %v", err)
	}
	dctx, dcancel := context.WithTimeout(ctx, 300*time.Millisecond)
	defer dcancel()
	err = s.WithTx(dctx, func(tx cms.Store) error {
		_, err := tx.LockForDelete(dctx, "a", cms.KindResource, []string{"r-1"})
		return err
	})
	if err == nil {
		t.Error("LockForDelete of a held record did not wait")
	}
	close(release)
	if err := <-first; err != nil {
		t.Fatal(err)
	}
}
