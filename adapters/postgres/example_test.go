package postgres_test

import (
	"context"

	"github.com/bwcms/cms/adapters/postgres"
	"github.com/bwcms/cms/cms"
)

// Open a store in the host's own PostgreSQL database: its tables go into
// the schema bwcms, created when missing, beside the host's own. (Not run
// as a test: it needs a database.)
func ExampleOpen() {
	ctx := context.Background()
	store, err := postgres.Open(ctx, "postgres://app@127.0.0.1:5432/app", &postgres.Options{MaxConns: 20})
	if err != nil {
		panic(err)
	}
	defer store.Close()
	svc, err := cms.NewService(store, nil)
	if err != nil {
		panic(err)
	}
	_ = svc
}
