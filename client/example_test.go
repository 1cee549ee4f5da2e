package client_test

import (
	"context"
	"errors"
	"fmt"
	"net/http/httptest"
	"strings"

	"github.com/bwcms/cms/adapters/sqlite"
	"github.com/bwcms/cms/client"
	"github.com/bwcms/cms/cms"
	"github.com/bwcms/cms/transport"
)

// exampleServer starts the API over an in-memory store, with account shop
// (en, it), user editor with every permission, and the batch workers
// running; stop ends it.
func exampleServer() (baseURL string, stop func()) {
	ctx, cancel := context.WithCancel(context.Background())
	store, err := sqlite.Open(ctx, sqlite.Memory, nil)
	if err != nil {
		panic(err)
	}
	svc, err := cms.NewService(store, &cms.Options{Passwords: cheapPasswords})
	if err != nil {
		panic(err)
	}
	api, err := transport.NewHandler(svc, &transport.Options{JWTSecret: []byte(strings.Repeat("s", 32))})
	if err != nil {
		panic(err)
	}
	langs, _ := cms.NewLanguages("en", "en", "it")
	if err := svc.CreateAccount(ctx, "shop", langs); err != nil {
		panic(err)
	}
	if err := svc.CreateUser(ctx, cms.NewUser{Name: "editor", Account: "shop", Password: "a long password", Perms: []string{"*"}}); err != nil {
		panic(err)
	}
	done := make(chan struct{})
	go func() {
		defer close(done)
		svc.Run(ctx)
	}()
	srv := httptest.NewServer(api)
	return srv.URL, func() {
		srv.Close()
		cancel()
		<-done
		store.Close()
	}
}

// exampleClient is a client of a new exampleServer, logged in as editor.
func exampleClient(opts *client.Options) (*client.Client, func()) {
	baseURL, stop := exampleServer()
	c, err := client.New(baseURL, opts)
	if err != nil {
		panic(err)
	}
	if err := c.Login(context.Background(), "editor", "a long password"); err != nil {
		panic(err)
	}
	return c, stop
}

// Log in, and see what the access token says.
func ExampleClient_Login() {
	baseURL, stop := exampleServer()
	defer stop()
	ctx := context.Background()

	c, err := client.New(baseURL, nil)
	if err != nil {
		panic(err)
	}
	err = c.Login(ctx, "editor", "not the password")
	fmt.Println(err, errors.Is(err, client.ErrUnauthorized))
	if err := c.Login(ctx, "editor", "a long password"); err != nil {
		panic(err)
	}
	claims, _ := c.Claims()
	fmt.Println(claims.Subject, claims.Account, claims.Langs)
	// Output:
	// client: 401 Unauthorized true
	// editor shop [en it]
}

// Create a record, write it again, change it; a refused one lists its
// problems.
func ExampleClient_Upsert() {
	c, stop := exampleClient(nil) // client.New(baseURL, ...) and c.Login(ctx, user, password)
	defer stop()
	ctx := context.Background()

	walk := &cms.Resource{ID: "lake-walk", Published: cms.Some(true),
		Title: cms.Langs[string]{"en": "Lake walk", "it": "Giro del lago"}}
	for range 2 {
		outcome, err := c.Upsert(ctx, walk)
		fmt.Println(outcome == cms.Created, outcome == cms.Skipped, err)
	}
	// Only the fields set are sent: the titles stay.
	outcome, err := c.Upsert(ctx, &cms.Resource{ID: "lake-walk", LocationLat: cms.NullOf(45.8), LocationLon: cms.NullOf(9.1)})
	fmt.Println(outcome == cms.Updated, err)
	r, etag, err := client.Get[*cms.Resource](ctx, c, "lake-walk")
	fmt.Println(r.Title["it"], r.LocationLat.Value, etag != "", err)

	_, err = c.Upsert(ctx, &cms.Resource{ID: "lake-walk", LocationZoom: cms.NullOf[int64](30)})
	var apiErr *client.Error
	if errors.As(err, &apiErr) {
		fmt.Println(apiErr.Status, apiErr.Problems[0].Field+":", apiErr.Problems[0].Text)
	}
	// Output:
	// true false <nil>
	// false true <nil>
	// true <nil>
	// Giro del lago 45.8 true <nil>
	// 409 locationZoom: must be an integer between 2 and 25
}

// Go through every record of a kind, a page of 2 at a time.
func ExampleClient_List() {
	c, stop := exampleClient(&client.Options{PageSize: 2}) // client.New(baseURL, ...) and c.Login(ctx, user, password)
	defer stop()
	ctx := context.Background()
	for _, id := range []string{"old-mill", "lake-walk", "new-pier", "hidden-cave"} {
		rec := &cms.Resource{ID: id, Title: cms.Langs[string]{"en": id}, Published: cms.Some(id != "hidden-cave")}
		if _, err := c.Upsert(ctx, rec); err != nil {
			panic(err)
		}
	}

	for rec, err := range c.List(ctx, cms.KindResource, client.Fields("title")) {
		if err != nil {
			panic(err)
		}
		fmt.Println(rec.RecordID())
	}
	// Typed, with every state of published.
	for r, err := range client.List[*cms.Resource](ctx, c, client.Published(cms.PublishedAny), client.Limit(1)) {
		if err != nil {
			panic(err)
		}
		fmt.Println(r.ID, r.Published.Value)
	}
	// Output:
	// lake-walk
	// new-pier
	// old-mill
	// hidden-cave false
}

// Submit a batch and wait for it, hearing each state.
func ExampleClient_RunBatch() {
	c, stop := exampleClient(nil) // client.New(baseURL, ...) and c.Login(ctx, user, password)
	defer stop()
	ctx := context.Background()

	recs := []cms.Record{
		&cms.Map{ID: "lakes", Title: cms.Langs[string]{"en": "Lakes"}, Published: cms.Some(true)},
		&cms.Map{ID: "hills", Title: cms.Langs[string]{"en": "Hills"}, Published: cms.Some(true)},
	}
	var last client.Batch
	b, err := c.RunBatch(ctx, cms.KindMap, recs, func(b client.Batch) {
		last = b // waiting, processing (if seen), done
	})
	if err != nil {
		panic(err)
	}
	fmt.Println(b.Status, b.Count, b.Created, b.Updated, b.Skipped, last == b)
	// Output:
	// done 2 2 0 0 true
}
