package cmstest

import (
	"fmt"
	"slices"
	"testing"
	"time"

	"github.com/bwcms/cms/cms"
)

// testReferenceLocks: HoldReferenced and LockForDelete answer which ids
// exist, in and out of a transaction; a record held by HoldReferenced is
// locked for deletion only after that transaction ends, and then its
// referrer is seen; a record locked for deletion and deleted is not found
// by HoldReferenced of a transaction that waited (where write
// transactions run one at a time, the transaction itself waits).
func testReferenceLocks(t *testing.T, open func(t *testing.T) cms.Store) {
	t.Parallel()
	t.Run("Existing", func(t *testing.T) {
		t.Parallel()
		s := open(t)
		ctx := t.Context()
		for _, id := range []string{"r-2", "r-1"} {
			put(t, s, "a", resource(id))
		}
		put(t, s, "b", resource("r-3"))
		want := []string{"r-1", "r-2"}
		for _, name := range []string{"HoldReferenced", "LockForDelete"} {
			ask := func(st cms.Store) ([]string, error) {
				ids := []string{"r-2", "r-3", "missing", "r-1", "r-2"}
				if name == "HoldReferenced" {
					return st.HoldReferenced(ctx, "a", cms.KindResource, ids)
				}
				return st.LockForDelete(ctx, "a", cms.KindResource, ids)
			}
			got, err := ask(s)
			if slices.Sort(got); err != nil || !slices.Equal(got, want) {
				t.Errorf("%s outside a transaction: %v, %v; want %v", name, got, err, want)
			}
			must(t, s.WithTx(ctx, func(tx cms.Store) error {
				got, err := ask(tx)
				if slices.Sort(got); err != nil || !slices.Equal(got, want) {
					t.Errorf("%s in a transaction: %v, %v; want %v", name, got, err, want)
				}
				return nil
			}))
		}
	})

	t.Run("DeleteSeesHeldReference", func(t *testing.T) {
		t.Parallel()
		s := open(t)
		ctx := t.Context()
		put(t, s, "a", resource("r-1"))
		held := make(chan struct{})
		first := make(chan error, 1)
		go func() {
			first <- s.WithTx(ctx, func(tx cms.Store) error {
				got, err := tx.HoldReferenced(ctx, "a", cms.KindResource, []string{"r-1"})
				if err != nil || len(got) != 1 {
					return fmt.Errorf("HoldReferenced: %v, %v", got, err)
				}
				close(held)
				time.Sleep(100 * time.Millisecond) // the delete locks meanwhile
				m := mapRecord("m-1")
				m.POIResourceIDs = cms.NullOf([]string{"r-1"})
				return tx.PutRecord(ctx, entry("a", m, t0))
			})
		}()
		<-held
		must(t, s.WithTx(ctx, func(tx cms.Store) error {
			got, err := tx.LockForDelete(ctx, "a", cms.KindResource, []string{"r-1"})
			if err != nil || len(got) != 1 {
				return fmt.Errorf("LockForDelete: %v, %v", got, err)
			}
			refs, err := tx.Referrers(ctx, "a", cms.ReferenceTargets(cms.KindResource), "r-1")
			if err == nil && len(refs) != 1 {
				err = fmt.Errorf("LockForDelete did not wait for the transaction holding r-1: referrers %v", refs)
			}
			return err
		}))
		must(t, <-first)
	})

	t.Run("HoldMissesDeleted", func(t *testing.T) {
		t.Parallel()
		s := open(t)
		ctx := t.Context()
		put(t, s, "a", resource("r-1"))
		locked := make(chan struct{})
		first := make(chan error, 1)
		go func() {
			first <- s.WithTx(ctx, func(tx cms.Store) error {
				got, err := tx.LockForDelete(ctx, "a", cms.KindResource, []string{"r-1"})
				if err != nil || len(got) != 1 {
					return fmt.Errorf("LockForDelete: %v, %v", got, err)
				}
				close(locked)
				time.Sleep(100 * time.Millisecond) // the reference is checked meanwhile
				return tx.DeleteRecord(ctx, "a", cms.KindResource, "r-1")
			})
		}()
		<-locked
		must(t, s.WithTx(ctx, func(tx cms.Store) error {
			got, err := tx.HoldReferenced(ctx, "a", cms.KindResource, []string{"r-1"})
			if err == nil && len(got) != 0 {
				err = fmt.Errorf("HoldReferenced found r-1, deleted by the transaction it waited for")
			}
			return err
		}))
		must(t, <-first)
	})
}
