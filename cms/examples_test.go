package cms_test

import (
	"context"
	"fmt"
	"os"
	"path/filepath"

	"github.com/bwcms/cms/adapters/sqlite"
	"github.com/bwcms/cms/cms"
)

func ExampleSlug() {
	fmt.Println(cms.Slug("Caffè Nero!"))
	fmt.Println(cms.AliasFromSlug(cms.Slug("Crème brûlée — 2024")))
	// Output:
	// caffe-nero
	// /creme-brulee-2024
}

func ExampleAllowed() {
	perms, _ := cms.ParsePerms("resource:*, *:read")
	fmt.Println(cms.Allowed(perms, cms.KindResource, cms.ActionDelete))
	fmt.Println(cms.Allowed(perms, cms.KindMap, cms.ActionRead))
	fmt.Println(cms.Allowed(perms, cms.KindMap, cms.ActionWrite))
	// Output:
	// true
	// true
	// false
}

func ExampleCodec_Decode() {
	langs, _ := cms.ParseLanguages("en,it")
	codec, _ := cms.NewCodec(langs)
	var r cms.Resource
	err := codec.Decode([]byte(`{"id":"lake","title":"Lake","title_it":"Lago","locationZoom":30,"colour":"red"}`), &r)
	fmt.Println(err.(*cms.Error).ProblemText())
	// Output:
	// Resource lake: colour: unknown field
	// Resource lake: locationZoom: must be an integer between 2 and 25
}

func ExampleService_Upsert() {
	ctx := context.Background()
	dir, _ := os.MkdirTemp("", "cms-example")
	defer os.RemoveAll(dir)
	store, err := sqlite.Open(ctx, filepath.Join(dir, "cms.db"), nil)
	if err != nil {
		panic(err)
	}
	defer store.Close()
	svc, _ := cms.NewService(store, nil)
	langs, _ := cms.ParseLanguages("en,it")
	svc.CreateAccount(ctx, "shop", langs)
	// transport puts the caller in the context; a Go caller does it itself.
	ctx = cms.WithPrincipal(ctx, cms.Principal{Account: "shop", User: "me", Perms: []string{"*"}, Langs: langs})

	body := []byte(`{"id":"lake-walk","title":"Lake walk","title_it":"Giro del lago","published":true}`)
	for range 2 {
		res, err := svc.Upsert(ctx, cms.KindResource, body, nil)
		fmt.Println(res.Outcome == cms.Created, res.Outcome == cms.Skipped, err)
	}
	seq, _ := svc.Read(ctx, cms.KindResource, cms.ReadParams{IDs: []string{"lake-walk"}})
	for e := range seq {
		r := svc.Wire(e).(*cms.Resource)
		fmt.Println(r.URLAlias["en"], r.URLAlias["it"])
	}
	// Output:
	// true false <nil>
	// false true <nil>
	// /lake-walk /giro-del-lago
}
