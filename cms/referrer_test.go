package cms_test

import (
	"context"
	"slices"
	"testing"

	"github.com/bwcms/cms/cms"
	"github.com/bwcms/cms/internal/testenv"
)

// readerService is a service with account acme (en, it) and a context
// acting as a user with perms there.
func readerService(t *testing.T) (*cms.Service, func(perms ...string) context.Context) {
	t.Helper()
	langs := testenv.Langs("en", "it")
	svc := testenv.NewService(t, testenv.OpenSQLite(t), testenv.NewClock(), nil, testenv.Account{Name: "acme", Langs: langs})
	as := func(perms ...string) context.Context {
		return cms.WithPrincipal(t.Context(), cms.Principal{Account: "acme", User: "u", Perms: perms, Langs: langs})
	}
	return svc, as
}

func mustUpsert(t *testing.T, svc *cms.Service, ctx context.Context, kind cms.Kind, body string) {
	t.Helper()
	if _, err := svc.Upsert(ctx, kind, []byte(body), nil); err != nil {
		t.Fatalf("upsert %s %s: %v", kind, body, err)
	}
}

// TestReferrers lists who names a record: single references (which stop
// a delete) and lists, never the record itself, and only for a reader.
func TestReferrers(t *testing.T) {
	t.Parallel()
	svc, as := readerService(t)
	ctx := as("*")
	mustUpsert(t, svc, ctx, cms.KindResource, `{"id":"r-1","title":"One"}`)
	mustUpsert(t, svc, ctx, cms.KindResource, `{"id":"r-2","title":"Two","poiResourceIds":["r-1"]}`)
	mustUpsert(t, svc, ctx, cms.KindMap, `{"id":"m-1","title":"Map","poiResourceIds":["r-1"],"trackResourceId":"r-1"}`)
	mustUpsert(t, svc, ctx, cms.KindLanding, `{"id":"l-1","title":"Landing","mapId":"m-1","landingBlocks":[{"title":"B","resourceIds":["m-1"]}]}`)

	refs, err := svc.Referrers(ctx, cms.KindResource, "r-1")
	if err != nil {
		t.Fatal(err)
	}
	type ref struct {
		kind   cms.Kind
		id     string
		field  string
		single bool
	}
	var got []ref
	for _, r := range refs {
		got = append(got, ref{r.FromKind, r.FromID, r.Field, r.Single})
	}
	want := []ref{{cms.KindMap, "m-1", "poiResourceIds", false}, {cms.KindMap, "m-1", "trackResourceId", true},
		{cms.KindResource, "r-2", "poiResourceIds", false}}
	if !slices.Equal(got, want) {
		t.Errorf("referrers of r-1: %v, want %v", got, want)
	}

	refs, err = svc.Referrers(ctx, cms.KindMap, "m-1")
	if err != nil {
		t.Fatal(err)
	}
	got = got[:0]
	for _, r := range refs {
		got = append(got, ref{r.FromKind, r.FromID, r.Field, r.Single})
	}
	want = []ref{{cms.KindLanding, "l-1", "landingBlocks.resourceIds", false}, {cms.KindLanding, "l-1", "mapId", true}}
	if !slices.Equal(got, want) {
		t.Errorf("referrers of m-1: %v, want %v", got, want)
	}

	// A Landing with the Map's id: the block names the Map, and stays
	// when either goes, so neither lists it.
	mustUpsert(t, svc, ctx, cms.KindLanding, `{"id":"m-1","title":"Twin"}`)
	for _, kind := range []cms.Kind{cms.KindMap, cms.KindLanding} {
		refs, err := svc.Referrers(ctx, kind, "m-1")
		if err != nil {
			t.Fatal(err)
		}
		for _, r := range refs {
			if r.ToKind == cms.RefMapOrLanding {
				t.Errorf("%s m-1 lists the block of %s", kind, r.FromID)
			}
		}
	}

	if refs, err := svc.Referrers(ctx, cms.KindResource, "nobody"); err != nil || len(refs) != 0 {
		t.Errorf("referrers of a missing id: %v, %v", refs, err)
	}
	if _, err := svc.Referrers(as("map:read"), cms.KindResource, "r-1"); cms.ErrorCode(err) != cms.CodeForbidden {
		t.Errorf("without read on resources: %v, want forbidden", err)
	}
	if _, err := svc.Referrers(t.Context(), cms.KindResource, "r-1"); cms.ErrorCode(err) != cms.CodeUnauthorized {
		t.Errorf("without a principal: %v, want unauthorized", err)
	}
}

// TestReadUncounted: the admin's reads of a Proposal by id leave its
// access counters alone; other reads by id count.
func TestReadUncounted(t *testing.T) {
	t.Parallel()
	svc, as := readerService(t)
	ctx := as("*")
	mustUpsert(t, svc, ctx, cms.KindProposal, `{"id":"p-1","title":"Offer","published":true}`)
	read := func(p cms.ReadParams) *cms.Entry {
		t.Helper()
		p.IDs = []string{"p-1"}
		seq, err := svc.Read(ctx, cms.KindProposal, p)
		if err != nil {
			t.Fatal(err)
		}
		for e, err := range seq {
			if err != nil {
				t.Fatal(err)
			}
			return e
		}
		t.Fatal("p-1 not read")
		return nil
	}
	for range 2 {
		if e := read(cms.ReadParams{Uncounted: true}); e.StatsAccess != 0 || !e.StatsLastAccess.IsZero() {
			t.Fatalf("uncounted read: statsAccess %d, last %v", e.StatsAccess, e.StatsLastAccess)
		}
	}
	if e := read(cms.ReadParams{}); e.StatsAccess != 1 {
		t.Fatalf("counted read: statsAccess %d, want 1", e.StatsAccess)
	}
	if e := read(cms.ReadParams{Uncounted: true}); e.StatsAccess != 1 {
		t.Fatalf("uncounted read after one visit: statsAccess %d, want 1 (the stored count, unchanged)", e.StatsAccess)
	}
}
