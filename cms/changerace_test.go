package cms_test

import (
	"flag"
	"fmt"
	"math/rand/v2"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/bwcms/cms/cms"
	"github.com/bwcms/cms/internal/testenv"
)

var changeRounds = flag.Int("changes.rounds", 3, "rounds of TestChangesFeedTwoInstances")

// TestChangesFeedTwoInstances: writers on two services sharing one
// database (single writes, assignments, deletes, a batch of 300), and a
// follower reading the feed through both in turn while they write. The
// follower must see exactly what a reader from the start sees once the
// writes are over: every change once, in the same order, deletions
// included; each record's revisions 1, 2, ... without a gap; and the
// last change of each record agrees with whether it exists.
func TestChangesFeedTwoInstances(t *testing.T) {
	for _, db := range []struct {
		name string
		open func(testing.TB) testenv.Opener
	}{{"sqlite", testenv.SharedSQLite}, {"postgres", testenv.SharedPostgres}} {
		t.Run(db.name, func(t *testing.T) {
			t.Parallel()
			open := db.open(t)
			clock := testenv.NewClock()
			adjust := func(o *cms.Options) { o.Now = time.Now }
			first := testenv.NewService(t, open(t), clock, adjust, changeAccounts...)
			o := testenv.ServiceOptions(clock)
			adjust(&o)
			second, err := cms.NewService(open(t), &o)
			if err != nil {
				t.Fatal(err)
			}
			e := &changes{svc: first, clock: clock}
			ctx := e.as(t, "root")
			for _, m := range []string{"map0", "map1", "map2"} {
				if _, err := first.Upsert(ctx, cms.KindMap, []byte(`{"id":"`+m+`","title":"Map"}`), nil); err != nil {
					t.Fatal(err)
				}
			}
			svcs := []*cms.Service{first, second}
			cursor := ""
			var seen []cms.FeedChange
			for round := range *changeRounds {
				var writing atomic.Bool
				writing.Store(true)
				var wg sync.WaitGroup
				var failed atomic.Value
				fail := func(err error) { failed.CompareAndSwap(nil, err) }
				for w := range 4 {
					svc := svcs[w%2]
					wg.Go(func() {
						rng := rand.New(rand.NewPCG(uint64(round), uint64(w)))
						for i := range 40 {
							id := fmt.Sprintf("res%d-%d", w, rng.IntN(12))
							var err error
							switch {
							case i%7 == 6:
								_, err = svc.Delete(ctx, cms.KindResource, []string{id}, nil)
								if code := cms.ErrorCode(err); code == cms.CodeNotFound || code == cms.CodeConflict { // not there
									err = nil
								}
							default:
								body := fmt.Sprintf(`{"id":%q,"title":"R %d %d","resourceType":"POI","mapIds":["map%d"]}`, id, round, i, rng.IntN(3))
								_, err = svc.Upsert(ctx, cms.KindResource, []byte(body), nil)
							}
							if err != nil {
								fail(fmt.Errorf("writer %d: %w", w, err))
								return
							}
						}
					})
				}
				wg.Go(func() {
					var b strings.Builder
					b.WriteString("[")
					for i := range 300 {
						if i > 0 {
							b.WriteString(",")
						}
						fmt.Fprintf(&b, `{"id":"bat%d","title":"Batch %d","resourceType":"POI","mapIds":["map%d"]}`, i, round, i%3)
					}
					b.WriteString("]")
					if _, err := first.SubmitBatch(ctx, cms.KindResource, []byte(b.String())); err != nil {
						fail(err)
						return
					}
					if ok, err := second.ProcessBatch(ctx, "race"); !ok || err != nil {
						fail(fmt.Errorf("batch: %v %w", ok, err))
					}
				})
				followed := make(chan error, 1)
				go func() {
					for turn := 0; ; turn++ {
						done := !writing.Load()
						page, err := svcs[turn%2].Changes(ctx, cms.ChangesParams{After: cursor, Limit: 50})
						if err != nil {
							followed <- err
							return
						}
						seen = append(seen, page.Changes...)
						cursor = page.Next
						if done && len(page.Changes) == 0 {
							followed <- nil
							return
						}
					}
				}()
				wg.Wait()
				writing.Store(false)
				if err := <-followed; err != nil {
					t.Fatalf("round %d: follower: %v", round, err)
				}
				if err, _ := failed.Load().(error); err != nil {
					t.Fatalf("round %d: %v", round, err)
				}
			}
			all, _ := e.feed(t, ctx, "", 1000)
			if len(all) != len(seen) {
				t.Fatalf("the follower saw %d changes, the feed holds %d", len(seen), len(all))
			}
			revs := map[string]cms.FeedChange{}
			for i := range all {
				if all[i] != seen[i] {
					t.Fatalf("change %d: the follower saw %+v, the feed holds %+v", i, seen[i], all[i])
				}
				key := string(all[i].Kind) + " " + all[i].ID
				if prev := revs[key]; all[i].Rev != prev.Rev+1 {
					t.Fatalf("%s: rev %d after %d", key, all[i].Rev, prev.Rev)
				}
				revs[key] = all[i]
			}
			for key, last := range revs {
				kind, id, _ := strings.Cut(key, " ")
				exists := false
				seq, err := first.Read(ctx, cms.Kind(kind), cms.ReadParams{IDs: []string{id}, Published: cms.PublishedAny, Uncounted: true})
				if err != nil {
					t.Fatal(err)
				}
				for _, err := range seq {
					if err != nil {
						t.Fatal(err)
					}
					exists = true
				}
				if exists != (last.Op == cms.ChangeUpsert) {
					t.Fatalf("%s exists %v, its last change is %s", key, exists, last.Op)
				}
			}
			t.Logf("%d changes over %d rounds", len(all), *changeRounds)
		})
	}
}
