package sqlite_test

import (
	"context"
	"fmt"

	"github.com/bwcms/cms/adapters/sqlite"
	"github.com/bwcms/cms/cms"
)

// Open a store (here in memory, as tests do; a file path for a real one),
// and a service on it.
func ExampleOpen() {
	ctx := context.Background()
	store, err := sqlite.Open(ctx, sqlite.Memory, nil) // or sqlite.Open(ctx, "cms.db", nil)
	if err != nil {
		panic(err)
	}
	defer store.Close()
	svc, err := cms.NewService(store, nil)
	if err != nil {
		panic(err)
	}
	langs, _ := cms.NewLanguages("en", "en", "it")
	if err := svc.CreateAccount(ctx, "shop", langs); err != nil {
		panic(err)
	}
	accounts, _ := svc.Accounts(ctx)
	fmt.Println(accounts[0].ID, accounts[0].Langs)
	// Output: shop en,it
}
