package cms_test

import (
	"slices"
	"sync"
	"testing"

	"github.com/bwcms/cms/adapters/sqlite"
	"github.com/bwcms/cms/cms"
)

// Languages added at once, and the default changed meanwhile, all stay:
// each change reads and writes the account in one transaction.
func TestConcurrentLanguageChanges(t *testing.T) {
	t.Parallel()
	ctx := t.Context()
	for round := range 20 {
		store, err := sqlite.Open(ctx, sqlite.Memory, nil)
		if err != nil {
			t.Fatal(err)
		}
		svc, err := cms.NewService(store, nil)
		if err != nil {
			t.Fatal(err)
		}
		langs, _ := cms.NewLanguages("en", "en", "it")
		if err := svc.CreateAccount(ctx, "acc", langs); err != nil {
			t.Fatal(err)
		}
		var wg sync.WaitGroup
		for _, l := range []string{"de", "fr", "es", "pt"} {
			wg.Go(func() {
				if _, err := svc.AddLanguage(ctx, "acc", l); err != nil {
					t.Error(err)
				}
			})
		}
		wg.Go(func() {
			if err := svc.SetDefaultLanguage(ctx, "acc", "it"); err != nil {
				t.Error(err)
			}
		})
		wg.Wait()
		acc, err := svc.Account(ctx, "acc")
		store.Close()
		if err != nil {
			t.Fatal(err)
		}
		for _, l := range []string{"en", "it", "de", "fr", "es", "pt"} {
			if !slices.Contains(acc.Langs.All, l) {
				t.Fatalf("round %d: %s lost: %v", round, l, acc.Langs)
			}
		}
		if acc.Langs.Default != "it" {
			t.Fatalf("round %d: default %s, want it", round, acc.Langs.Default)
		}
	}
}
