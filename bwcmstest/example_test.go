package bwcmstest_test

import (
	"context"
	"fmt"

	"github.com/bwcms/cms/bwcmstest"
	"github.com/bwcms/cms/cms"
)

// The whole API in one call, with a client logged in as its admin; a test
// calls bwcmstest.New(t, nil) instead, which stops it at the test's end.
func ExampleStart() {
	ctx := context.Background()
	api, err := bwcmstest.Start(ctx, nil)
	if err != nil {
		panic(err)
	}
	defer api.Close()
	outcome, err := api.Client.Upsert(ctx, &cms.Resource{ID: "lake-walk",
		Title: cms.Langs[string]{"en": "Lake walk"}, Published: cms.Some(true)})
	fmt.Println(outcome, err)
	b, err := api.Client.RunBatch(ctx, cms.KindMap, []cms.Record{
		&cms.Map{ID: "lakes", Title: cms.Langs[string]{"en": "Lakes"}, ResourceIDs: cms.NullOf([]string{"lake-walk"})},
	}, nil)
	fmt.Println(b.Status, b.Created, err)
	// Output:
	// created <nil>
	// done 1 <nil>
}
