package cms_test

import (
	"fmt"
	"sync"
	"testing"

	"github.com/bwcms/cms/cms"
)

// TestCreateOnly: an upsert with CreateOnly makes a record or refuses
// (CodePrecondition) when it exists; of two racing it, exactly one makes
// it and the other changes nothing.
func TestCreateOnly(t *testing.T) {
	forEachDatabase(t, func(t *testing.T, e *people) {
		ctx := e.as(t, "root")
		once := &cms.UpsertOptions{CreateOnly: true}
		if _, err := e.svc.Upsert(ctx, cms.KindResource, []byte(`{"id":"made","title":"first"}`), once); err != nil {
			t.Fatal(err)
		}
		_, err := e.svc.Upsert(ctx, cms.KindResource, []byte(`{"id":"made","title":"second"}`), once)
		if cms.ErrorCode(err) != cms.CodePrecondition {
			t.Fatalf("create over an existing record: %v", err)
		}
		for round := range 10 {
			id := fmt.Sprintf("race-%d", round)
			var wg sync.WaitGroup
			errs := make([]error, 2)
			for i := range errs {
				wg.Go(func() {
					body := fmt.Sprintf(`{"id":%q,"title":"editor %d"}`, id, i)
					_, errs[i] = e.svc.Upsert(ctx, cms.KindResource, []byte(body), once)
				})
			}
			wg.Wait()
			made := 0
			for i, err := range errs {
				switch {
				case err == nil:
					made++
				case cms.ErrorCode(err) != cms.CodePrecondition:
					t.Fatalf("round %d editor %d: %v", round, i, err)
				}
			}
			if made != 1 {
				t.Fatalf("round %d: %d creates succeeded", round, made)
			}
			entry, err := e.store.GetRecord(t.Context(), "acme", cms.KindResource, id)
			if err != nil {
				t.Fatal(err)
			}
			title := (*entry.Record.Common().Title)["en"]
			winner := 0
			if errs[0] != nil {
				winner = 1
			}
			if title != fmt.Sprintf("editor %d", winner) {
				t.Errorf("round %d: stored %q, the winner was editor %d", round, title, winner)
			}
		}
	})
}
