package bunstoretest

import (
	"slices"
	"testing"
	"time"

	"github.com/bwcms/cms/cms"
)

// OverviewFigures logs what the overview's service calls cost on s,
// filled by FillAssigned (account "a"): the counts of every kind, the 20
// newest changes and the running batches, the median of 5 runs each (a
// figure for docs, never an assertion).
func OverviewFigures(t *testing.T, s cms.Store) {
	t.Helper()
	svc, err := cms.NewService(s, nil)
	if err != nil {
		t.Fatal(err)
	}
	langs, _ := cms.NewLanguages("en", "en", "it")
	ctx := cms.WithPrincipal(t.Context(), cms.Principal{Account: "a", User: "u", Perms: []string{"*"}, Langs: langs})
	median := func(what string, fn func() error) {
		t.Helper()
		var took []time.Duration
		for range 5 {
			start := time.Now()
			if err := fn(); err != nil {
				t.Fatalf("%s: %v", what, err)
			}
			took = append(took, time.Since(start))
		}
		slices.Sort(took)
		t.Logf("%s: %v (median of 5)", what, took[2])
	}
	median("CountKind of the 4 kinds", func() error {
		for _, k := range cms.Kinds() {
			if _, err := svc.CountKind(ctx, k); err != nil {
				return err
			}
		}
		return nil
	})
	median("RecentChanges(20)", func() error { _, err := svc.RecentChanges(ctx, 20); return err })
	median("RunningBatches", func() error { _, err := svc.RunningBatches(ctx); return err })
}
