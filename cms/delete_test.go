package cms_test

import (
	"errors"
	"reflect"
	"slices"
	"strings"
	"testing"

	"github.com/bwcms/cms/cms"
	"github.com/bwcms/cms/internal/testenv"
)

// A delete that cannot delete a record named by a single reference says
// which records name it and by which field, both when it deletes the
// others (DeleteResult.Referrers) and when it deletes none
// (NotDoneError.Referrers); a missing id has no referrers.
func TestDeleteNamesTheReferrersOfWhatItKeeps(t *testing.T) {
	t.Parallel()
	svc := testenv.NewService(t, testenv.OpenSQLiteMemory(t), testenv.NewClock(), nil,
		testenv.Account{Name: "acme", Langs: testenv.Langs("en"), Users: []testenv.User{{Name: "admin", Perms: []string{"*"}}}})
	p, err := svc.User(t.Context(), "admin")
	if err != nil {
		t.Fatal(err)
	}
	ctx := cms.WithPrincipal(t.Context(), cms.Principal{Account: "acme", User: "admin", Perms: p.Perms, Langs: testenv.Langs("en")})
	for _, c := range []struct {
		kind cms.Kind
		body string
	}{
		{cms.KindMap, `{"id":"held"}`},
		{cms.KindMap, `{"id":"free"}`},
		{cms.KindLanding, `{"id":"lan1","mapId":"held"}`},
		{cms.KindProposal, `{"id":"pro1","mapId":"held"}`},
	} {
		if _, err := svc.Upsert(ctx, c.kind, []byte(c.body), nil); err != nil {
			t.Fatal(c.body, err)
		}
	}
	want := map[string][]cms.Reference{"held": {
		{FromKind: cms.KindLanding, FromID: "lan1", Field: "mapId", ToKind: "map", ToID: "held", Single: true},
		{FromKind: cms.KindProposal, FromID: "pro1", Field: "mapId", ToKind: "map", ToID: "held", Single: true},
	}}
	sortRefs := func(m map[string][]cms.Reference) {
		for _, refs := range m {
			slices.SortFunc(refs, func(a, b cms.Reference) int {
				return strings.Compare(string(a.FromKind)+a.FromID, string(b.FromKind)+b.FromID)
			})
		}
	}

	// None deleted: a conflict whose cause names the referrers.
	_, err = svc.Delete(ctx, cms.KindMap, []string{"held", "gone"}, nil)
	nd, ok := errors.AsType[*cms.NotDoneError](err)
	if cms.ErrorCode(err) != cms.CodeConflict || !ok {
		t.Fatalf("delete held+gone: %v", err)
	}
	sortRefs(nd.Referrers)
	if !slices.Equal(nd.Failed, []string{"held", "gone"}) || !reflect.DeepEqual(nd.Referrers, want) {
		t.Errorf("not done: failed %v referrers %+v, want %+v", nd.Failed, nd.Referrers, want)
	}

	// Some deleted: the result names the referrers of the ones kept.
	res, err := svc.Delete(ctx, cms.KindMap, []string{"free", "held"}, nil)
	if err != nil {
		t.Fatal(err)
	}
	sortRefs(res.Referrers)
	if !slices.Equal(res.Deleted, []string{"free"}) || !slices.Equal(res.Failed, []string{"held"}) || !reflect.DeepEqual(res.Referrers, want) {
		t.Errorf("result %+v, want free deleted and held kept by %+v", res, want)
	}
	// What was kept is still there; what was deleted is gone.
	seq, err := svc.Read(ctx, cms.KindMap, cms.ReadParams{IDs: []string{"held", "free"}, Published: cms.PublishedAny})
	if err != nil {
		t.Fatal(err)
	}
	var left []string
	for e, err := range seq {
		if err != nil {
			t.Fatal(err)
		}
		left = append(left, e.Record.RecordID())
	}
	if !slices.Equal(left, []string{"held"}) {
		t.Errorf("maps left %v, want [held]", left)
	}

	// All deleted: no referrers.
	res, err = svc.Delete(ctx, cms.KindLanding, []string{"lan1"}, nil)
	if err != nil || res.Referrers != nil {
		t.Errorf("delete lan1: %+v %v", res, err)
	}
}
