package bwcmstest_test

import (
	"errors"
	"testing"

	"github.com/bwcms/cms/bwcmstest"
	"github.com/bwcms/cms/client"
	"github.com/bwcms/cms/cms"
	"github.com/bwcms/cms/internal/testenv"
)

// TestNew: one call gives a running API, with a client logged in as the
// admin, batch workers, and users of chosen permissions; on SQLite in
// memory, under a prefix, and on PostgreSQL in a schema of its own that
// is gone after the test.
func TestNew(t *testing.T) {
	t.Parallel()
	itEn, _ := cms.NewLanguages("it", "it", "en")
	cases := []struct {
		name string
		opts *bwcmstest.Options
	}{
		{"sqlite", nil},
		{"sqlite under a prefix, two languages", &bwcmstest.Options{BasePath: "/cms", Langs: itEn}},
	}
	if dsn := testenv.PostgresServer(t); dsn != "" {
		cases = append(cases, struct {
			name string
			opts *bwcmstest.Options
		}{"postgres", &bwcmstest.Options{PostgresDSN: dsn}})
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			ctx := t.Context()
			api := bwcmstest.New(t, tc.opts)
			lang := "en"
			if tc.opts != nil && tc.opts.Langs.Default != "" {
				lang = tc.opts.Langs.Default
			}
			walk := &cms.Resource{ID: "lake-walk", Title: cms.Langs[string]{lang: "Lake walk"}, Published: cms.Some(true)}
			if got, err := api.Client.Upsert(ctx, walk); err != nil || got != cms.Created {
				t.Fatalf("upsert: %v %v", got, err)
			}
			r, _, err := client.Get[*cms.Resource](ctx, api.Client, "lake-walk")
			if err != nil || r.Title[lang] != "Lake walk" {
				t.Fatalf("read back: %+v %v", r, err)
			}
			b, err := api.Client.RunBatch(ctx, cms.KindMap, []cms.Record{
				&cms.Map{ID: "lakes", Title: cms.Langs[string]{lang: "Lakes"}, ResourceIDs: cms.NullOf([]string{"lake-walk"})},
			}, nil)
			if err != nil || b.Status != cms.BatchDone || b.Created != 1 {
				t.Fatalf("batch: %+v %v", b, err)
			}
			reader := api.User(t, "reader", "resource:read")
			if _, err := reader.Upsert(ctx, walk); !errors.Is(err, client.ErrForbidden) {
				t.Errorf("a reader's upsert: %v, want forbidden", err)
			}
			if got, _, err := client.Get[*cms.Resource](ctx, reader, "lake-walk"); err != nil || got.MapIDs.Value[0] != "lakes" {
				t.Errorf("a reader's read: %+v %v", got, err)
			}
		})
	}
}

// TestCloseTwice: a test may close the API itself; the cleanup's Close
// then does nothing.
func TestCloseTwice(t *testing.T) {
	t.Parallel()
	api := bwcmstest.New(t, nil)
	if err := api.Close(); err != nil {
		t.Fatal(err)
	}
	if err := api.Close(); err != nil {
		t.Fatal(err)
	}
}
