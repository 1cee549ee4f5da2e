package postgres

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"slices"
	"sync"
	"testing"
	"time"

	"github.com/bwcms/cms/adapters/postgres/pgtest"
	"github.com/bwcms/cms/cms"
)

var changeRounds = flag.Int("changes.rounds", 3, "rounds of TestChangesFeedExactlyOnce")

// twoInstances opens two stores on one new schema: two pools, as two
// instances of the service have.
func twoInstances(t *testing.T, opts func() *Options) (*Store, *Store) {
	t.Helper()
	dsn := pgtest.DSN(t)
	var stores [2]*Store
	for i := range stores {
		s, err := Open(t.Context(), dsn, opts())
		if err != nil {
			t.Fatal(err)
		}
		t.Cleanup(func() { s.Close() })
		stores[i] = s
	}
	return stores[0], stores[1]
}

// putWithChange stores Resources ids in account, and their changes, in
// one transaction of s.
func putWithChange(ctx context.Context, s cms.Store, account string, ids ...string) error {
	return s.WithTx(ctx, func(tx cms.Store) error {
		entries := make([]*cms.Entry, len(ids))
		refs := make([]cms.ChangeRef, len(ids))
		for i, id := range ids {
			entries[i] = &cms.Entry{Account: account, Updated: time.Now(),
				Record: &cms.Resource{ID: id, Title: cms.Langs[string]{"en": id}}}
			refs[i] = cms.ChangeRef{Kind: cms.KindResource, ID: id, Op: cms.ChangeUpsert}
		}
		if err := tx.PutRecords(ctx, entries); err != nil {
			return err
		}
		return tx.AppendChanges(ctx, cms.ChangeSet{Account: account, Author: "w", Time: time.Now(), Refs: refs})
	})
}

// follow reads account's changes after cursor up to a fresh fence of s,
// page by page, and returns them with the last cursor.
func follow(ctx context.Context, s cms.Store, account string, after cms.ChangeCursor) ([]cms.Change, cms.ChangeCursor, error) {
	fence, err := s.ChangeFence(ctx, account)
	if err != nil {
		return nil, after, err
	}
	var read []cms.Change
	for {
		page, err := s.Changes(ctx, cms.ChangeQuery{Account: account, After: after, UpTo: fence, Limit: 100})
		if err != nil {
			return nil, after, err
		}
		read = append(read, page...)
		if len(page) > 0 {
			after = page[len(page)-1].Cursor
		}
		if len(page) < 100 {
			return read, after, nil
		}
	}
}

// TestChangesFeedExactlyOnce: two instances, each with writers of
// single-record transactions on records they share and a transaction of
// 400 records, and a follower that fences and reads the feed on either
// instance while they write. When the writers are done, the follower has
// seen every change the table holds exactly once, in cursor order, each
// record's revisions counting up from 1 without a gap, and the table
// holds one change for each record a committed transaction wrote.
func TestChangesFeedExactlyOnce(t *testing.T) {
	t.Parallel()
	a, b := twoInstances(t, func() *Options { return &Options{MaxConns: 8} })
	ctx := t.Context()
	const writers, writes, shared = 3, 40, 7
	committed := 0
	var seen []cms.Change
	var cursor cms.ChangeCursor
	for round := range *changeRounds {
		var wg sync.WaitGroup
		errs := make(chan error, 2*writers+2)
		var mu sync.Mutex
		count := func(n int) {
			mu.Lock()
			committed += n
			mu.Unlock()
		}
		for inst, s := range []*Store{a, b} {
			for w := range writers {
				wg.Go(func() {
					for i := range writes {
						id := fmt.Sprintf("r-%d", (i+w+inst)%shared)
						if err := putWithChange(ctx, s, "acc", id); err != nil {
							errs <- fmt.Errorf("instance %d writer %d: %w", inst, w, err)
							return
						}
						count(1)
					}
				})
			}
			wg.Go(func() {
				ids := make([]string, 400)
				for i := range ids {
					ids[i] = fmt.Sprintf("big-%d-%d-%03d", round, inst, i)
				}
				ids = append(ids, "r-0") // shared with the single writers
				if err := putWithChange(ctx, s, "acc", ids...); err != nil {
					errs <- fmt.Errorf("instance %d big: %w", inst, err)
					return
				}
				count(len(ids))
			})
		}
		done := make(chan struct{})
		go func() { wg.Wait(); close(done) }()
		for reads, finished := 0, false; !finished; reads++ {
			select {
			case <-done:
				finished = true // one more read, after every commit
			default:
			}
			read, next, err := follow(ctx, []*Store{a, b}[reads%2], "acc", cursor)
			if err != nil {
				t.Fatal(err)
			}
			seen, cursor = append(seen, read...), next
		}
		close(errs)
		for err := range errs {
			t.Fatal(err)
		}
	}

	var stored []cms.ChangeCursor
	if err := a.Write().NewRaw("SELECT commit_seq AS seq, id FROM changes ORDER BY commit_seq, id").Scan(ctx, &stored); err != nil {
		t.Fatal(err)
	}
	if len(stored) != committed {
		t.Errorf("the table holds %d changes, the writers committed %d", len(stored), committed)
	}
	got := make([]cms.ChangeCursor, len(seen))
	last := map[string]int64{}
	for i, c := range seen {
		got[i] = c.Cursor
		if i > 0 && !seen[i-1].Cursor.Less(c.Cursor) {
			t.Fatalf("change %d: cursor %v after %v", i, c.Cursor, seen[i-1].Cursor)
		}
		if c.Rev != last[c.ID]+1 {
			t.Fatalf("change %d: %s rev %d after rev %d", i, c.ID, c.Rev, last[c.ID])
		}
		last[c.ID] = c.Rev
	}
	if !slices.Equal(got, stored) {
		t.Fatalf("the follower saw %d changes, the table holds %d; the first difference at %d", len(got), len(stored),
			firstDifference(got, stored))
	}
	t.Logf("%d rounds: %d changes followed, r-0 at rev %d", *changeRounds, len(seen), last["r-0"])
}

func firstDifference(a, b []cms.ChangeCursor) int {
	for i := range min(len(a), len(b)) {
		if a[i] != b[i] {
			return i
		}
	}
	return min(len(a), len(b))
}

// TestChangeTailShared: a transaction holding its commit position (its
// changes appended, not yet committed) keeps neither a single-record
// writer of another instance from committing (the writer's lock timeout
// would fail it if it waited) nor makes it wait; a fence taken meanwhile
// waits for the big transaction alone, and the changes read up to it
// then hold both, the big transaction's first (its position was taken
// first).
func TestChangeTailShared(t *testing.T) {
	t.Parallel()
	a, b := twoInstances(t, func() *Options { return &Options{MaxConns: 4, LockTimeout: 5 * time.Second} })
	ctx := t.Context()
	appended, release := make(chan struct{}), make(chan struct{})
	bigDone := make(chan error, 1)
	go func() {
		bigDone <- a.WithTx(ctx, func(tx cms.Store) error {
			ids := make([]string, 300)
			for i := range ids {
				ids[i] = fmt.Sprintf("big-%03d", i)
			}
			if err := putWithChange(ctx, tx, "acc", ids...); err != nil {
				return err
			}
			// A read sends the writes the transaction holds for its next
			// round trip (the store's pipeline): from here it holds its
			// position.
			if _, err := tx.LastRevision(ctx, "acc", cms.KindResource, ids[0]); err != nil {
				return err
			}
			close(appended)
			<-release
			return nil
		})
	}()
	select {
	case <-appended:
	case err := <-bigDone:
		t.Fatalf("the big transaction: %v", err)
	}
	if err := putWithChange(ctx, b, "acc", "single"); err != nil {
		close(release)
		t.Fatalf("a single write while a transaction holds its position: %v", err)
	}
	if _, err := b.LastRevision(ctx, "acc", cms.KindResource, "single"); err != nil {
		t.Errorf("the single write's change: %v", err)
	}

	fenced := make(chan int64, 1)
	go func() {
		f, err := b.ChangeFence(ctx, "acc")
		if err != nil {
			t.Error(err)
		}
		fenced <- f
	}()
	waitForFence(t, a)
	select {
	case f := <-fenced:
		t.Errorf("the fence answered %d while a transaction holding a position was open", f)
	default:
	}
	close(release)
	if err := <-bigDone; err != nil {
		t.Fatal(err)
	}
	fence := <-fenced
	page, err := b.Changes(ctx, cms.ChangeQuery{Account: "acc", UpTo: fence, Limit: 1000})
	if err != nil || len(page) != 301 {
		t.Fatalf("Changes up to the fence: %d changes, %v; want 301", len(page), err)
	}
	if page[0].ID != "big-000" || page[300].ID != "single" {
		t.Errorf("the feed's order: %s first, %s last; want big-000 first, single last", page[0].ID, page[300].ID)
	}
}

// waitForFence returns once a change_fence statement waits for a lock in
// s's schema.
func waitForFence(t *testing.T, s *Store) {
	t.Helper()
	for {
		var waiting int
		err := s.Write().NewRaw("SELECT COUNT(*) FROM pg_stat_activity WHERE wait_event_type = 'Lock' "+
			"AND query LIKE 'SELECT change_fence(%' AND datname = current_database()").Scan(t.Context(), &waiting)
		if err != nil {
			t.Fatal(err)
		}
		if waiting > 0 {
			return
		}
		if errors.Is(t.Context().Err(), context.Canceled) {
			t.Fatal("the test ended while waiting for the fence")
		}
		time.Sleep(10 * time.Millisecond)
	}
}
