package sqlite

import (
	"context"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/bwcms/cms/adapters/internal/bunstoretest"
	"github.com/bwcms/cms/cms"
)

// TestStatementsUseIndexes runs the service's record operations (creates
// and updates naming Maps from both sides, a batch, reads by id and in
// lists with each option, a clone, deletes) over a store of 3,000 Resources on 20
// Maps, collects every statement the store ran, and explains each with the
// arguments it ran with, on the database never analyzed and again after
// ANALYZE: none may scan a table or search one on the bare account (or
// account and kind) prefix of its key when the statement names more. The
// intended scans are allowed: a json_each id list.
func TestStatementsUseIndexes(t *testing.T) {
	t.Parallel()
	var mu sync.Mutex
	ran := map[string][]any{}
	tracing := false
	trace := func(query string, args []any) {
		mu.Lock()
		defer mu.Unlock()
		if _, ok := ran[query]; tracing && !ok {
			ran[query] = slices.Clone(args)
		}
	}
	s, err := Open(t.Context(), filepath.Join(t.TempDir(), "cms.db"), &Options{trace: trace})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { s.Close() })
	bunstoretest.FillAssigned(t, s.Store, 3000)
	svc, err := cms.NewService(s, nil)
	if err != nil {
		t.Fatal(err)
	}
	en, _ := cms.NewLanguages("en")
	ctx := cms.WithPrincipal(t.Context(), cms.Principal{Account: "a", User: "u", Perms: []string{"*"}, Langs: en})
	mu.Lock()
	tracing = true
	mu.Unlock()
	upsert := func(kind cms.Kind, body string) {
		t.Helper()
		if _, err := svc.Upsert(ctx, kind, []byte(body), nil); err != nil {
			t.Fatalf("%s %s: %v", kind, body, err)
		}
	}
	upsert(cms.KindResource, `{"id":"p-new","title":"Lake","mapIds":["m01"],"mapSecondaryIdsAdd":["m02"],"poiResourceIds":["r00007"]}`)
	upsert(cms.KindResource, `{"id":"r00050","title":"Changed","mapIds":["m03","m04"]}`)
	upsert(cms.KindMap, `{"id":"m05","resourceIdsAdd":["r00060"],"secondaryResourceIds":["r00061"]}`)
	upsert(cms.KindLanding, `{"id":"l-new","title":"Lake","mapId":"m05"}`)
	upsert(cms.KindResource, `{"id":"r00070","deleteElementIrreversibly":true}`)
	if _, err := svc.Clone(ctx, cms.KindResource, "r00080", "m06"); err != nil {
		t.Fatal(err)
	}
	if _, err := svc.Delete(ctx, cms.KindResource, []string{"r00090", "r00091"}); err != nil {
		t.Fatal(err)
	}
	// A batch: new records numbered by title, assigned from both sides.
	batch := `[{"id":"b-1","title":"Lake","mapIdsAdd":["m07"]},{"id":"b-2","title":"Lake","mapIds":["m08"]},` +
		`{"id":"r00100","title":"Lake","mapSecondaryIds":["m09"]}]`
	if _, err := svc.SubmitBatch(ctx, cms.KindResource, []byte(batch)); err != nil {
		t.Fatal(err)
	}
	if did, err := svc.ProcessBatch(t.Context(), "plan-test"); !did || err != nil {
		t.Fatalf("ProcessBatch: %v, %v", did, err)
	}
	for _, p := range []cms.ReadParams{
		{IDs: []string{"r00001"}, Published: cms.PublishedAny},
		{IDs: []string{"r00001", "r02000"}, Published: cms.PublishedAny},
		{MapID: "m03", Limit: 50, Published: cms.PublishedAny},
		{After: "r01000", Limit: 50},
		{BBox: &cms.BBox{MinLon: 9, MinLat: 45, MaxLon: 10, MaxLat: 46}, Limit: 50},
		{UpdatedSince: time.Now().Add(-time.Hour), Limit: 50},
	} {
		seq, err := svc.Read(ctx, cms.KindResource, p)
		if err != nil {
			t.Fatal(err)
		}
		for _, err := range seq {
			if err != nil {
				t.Fatal(err)
			}
		}
	}
	mu.Lock()
	tracing = false
	mu.Unlock()

	for _, state := range []string{"never analyzed", "analyzed"} {
		if state == "analyzed" {
			if _, err := s.Write().ExecContext(context.Background(), "ANALYZE"); err != nil {
				t.Fatal(err)
			}
		}
		checked := 0
		for query, args := range ran {
			if !planned(query) {
				continue
			}
			checked++
			plan := explainQuery(t, s, query, args)
			if bad := badPlanLine(plan); bad != "" {
				t.Errorf("%s: %q\n%s\nplan:\n%s", state, bad, query, plan)
			}
		}
		if checked < 20 {
			t.Fatalf("%s: only %d statements explained: the scenario ran too little", state, checked)
		}
	}
}

// planned reports whether a statement has a plan worth checking: not a
// transaction control, and not a plain multi-row insert.
func planned(query string) bool {
	for _, p := range []string{"SAVEPOINT", "RELEASE", "ROLLBACK", "ANALYZE", "PRAGMA"} {
		if strings.HasPrefix(query, p) {
			return false
		}
	}
	return !strings.HasPrefix(query, "INSERT") || strings.Contains(query, "SELECT")
}

// badPlanLine returns the first line of a query plan that scans a table or
// searches one on a bare account (or account and kind) prefix.
func badPlanLine(plan string) string {
	for line := range strings.SplitSeq(strings.TrimSpace(plan), "\n") {
		switch {
		case strings.HasPrefix(line, "SCAN ") && !strings.HasPrefix(line, "SCAN json_each") && !strings.HasPrefix(line, "SCAN CONSTANT ROW"):
			return line
		case strings.HasSuffix(line, "(account=?)"), strings.HasSuffix(line, "PRIMARY KEY (account=? AND kind=?)"):
			return line
		}
	}
	return ""
}
