package main

import (
	"context"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/bwcms/cms/adapters/sqlite"
	"github.com/bwcms/cms/cms"
)

// TestBatchesWaitingAtStart: batches queued while no server runs are
// applied once it starts.
func TestBatchesWaitingAtStart(t *testing.T) {
	t.Parallel()
	path := filepath.Join(t.TempDir(), "cms.db")
	c := &cli{env: map[string]string{"CMS_ADMIN_PASSWORD": "admin password"}}
	s := startServer(t, c, "--db", "sqlite:"+path)
	s.shutdown(t)

	// Queue two batches straight into the database, as a stopped
	// instance would have left them.
	store, err := sqlite.Open(t.Context(), path, nil)
	if err != nil {
		t.Fatal(err)
	}
	svc, err := cms.NewService(store, nil)
	if err != nil {
		t.Fatal(err)
	}
	langs, _ := cms.NewLanguages("en")
	ctx := cms.WithPrincipal(context.Background(), cms.Principal{Account: "default", User: "admin", Perms: []string{"*"}, Langs: langs})
	var ids []string
	for _, body := range []string{`[{"id":"queued1"}]`, `[{"id":"queued2"},{"id":"queued3"}]`} {
		r, err := svc.SubmitBatch(ctx, cms.KindResource, []byte(body))
		if err != nil {
			t.Fatal(err)
		}
		ids = append(ids, r.ID)
	}
	store.Close()

	s = startServer(t, &cli{env: map[string]string{}}, "--db", "sqlite:"+path)
	tok := s.login(t, "admin", "admin password").Access
	deadline := time.Now().Add(15 * time.Second)
	for _, id := range ids {
		for {
			a := s.get(t, "/api/bw/v2/resource/batch/"+id, tok)
			if a.status == 200 && strings.Contains(a.body, `"status":"done"`) {
				break
			}
			if time.Now().After(deadline) {
				t.Fatalf("batch %s after restart: %d %s", id, a.status, a.body)
			}
			time.Sleep(50 * time.Millisecond)
		}
	}
	if a := s.get(t, "/api/bw/v2/resource/queued1,queued2,queued3/published/*/fields/id", tok); a.body != `[{"id":"queued1"},{"id":"queued2"},{"id":"queued3"}]` {
		t.Errorf("records: %d %s", a.status, a.body)
	}
}
