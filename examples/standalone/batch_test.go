package main

import (
	"context"
	"encoding/json"
	"net/http"
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

// TestSeparateWorker: a server started with --batch-workers 0 leaves
// batches waiting; a `standalone worker` process on the same database
// applies them.
func TestSeparateWorker(t *testing.T) {
	t.Parallel()
	path := filepath.Join(t.TempDir(), "cms.db")
	c := &cli{env: map[string]string{"CMS_ADMIN_PASSWORD": "admin password", "CMS_BATCH_WORKERS": "0"}}
	s := startServer(t, c, "--db", "sqlite:"+path)
	tok := s.login(t, "admin", "admin password").Access
	req, _ := http.NewRequest("POST", s.url+"/api/bw/v2/resource/batch", strings.NewReader(`[{"id":"apart1"}]`))
	req.Header.Set("Authorization", "Bearer "+tok)
	a := s.do(t, req)
	var created struct{ BatchID string }
	if err := json.Unmarshal([]byte(a.body), &created); a.status != 201 || err != nil {
		t.Fatalf("submit: %d %s", a.status, a.body)
	}
	status := func() string { return s.get(t, "/api/bw/v2/resource/batch/"+created.BatchID, tok).body }
	time.Sleep(300 * time.Millisecond) // a worker here would have applied it by now
	if got := status(); !strings.Contains(got, `"status":"waiting"`) {
		t.Fatalf("with no worker: %s", got)
	}

	ctx, cancel := context.WithCancel(context.Background())
	w := &cli{env: map[string]string{}}
	e := w.env0()
	ready := make(chan struct{}, 1)
	e.ready = func(string) { ready <- struct{}{} }
	done := make(chan int, 1)
	go func() { done <- run(ctx, []string{"worker", "--db", "sqlite:" + path}, e) }()
	select {
	case <-ready:
	case code := <-done:
		t.Fatalf("worker exited with %d: %s", code, w.stderr.String())
	}
	deadline := time.Now().Add(15 * time.Second)
	for !strings.Contains(status(), `"status":"done"`) {
		if time.Now().After(deadline) {
			t.Fatalf("the worker did not apply the batch: %s", status())
		}
		time.Sleep(50 * time.Millisecond)
	}
	cancel()
	if code := <-done; code != 0 {
		t.Errorf("worker exit code %d: %s", code, w.stderr.String())
	}
	if a := s.get(t, "/api/bw/v2/resource/apart1/published/*/fields/id", tok); a.body != `{"id":"apart1"}` {
		t.Errorf("record of the batch: %d %s", a.status, a.body)
	}
}

// TestBatchWorkersSetting refuses counts that are not whole numbers, a
// worker process without workers, and leases that are not durations above
// zero.
func TestBatchWorkersSetting(t *testing.T) {
	t.Parallel()
	path := filepath.Join(t.TempDir(), "cms.db")
	for _, args := range [][]string{
		{"--db", "sqlite:" + path, "--batch-workers", "-1"},
		{"--db", "sqlite:" + path, "--batch-workers", "two"},
		{"worker", "--db", "sqlite:" + path, "--batch-workers", "0"},
		{"--db", "sqlite:" + path, "--batch-lease", "0s"},
		{"worker", "--db", "sqlite:" + path, "--batch-lease", "soon"},
	} {
		c := &cli{env: map[string]string{}}
		if code := run(t.Context(), args, c.env0()); code != 1 || !strings.Contains(c.stderr.String(), "--batch-") {
			t.Errorf("%v: exit %d, %s", args, code, c.stderr.String())
		}
	}
}
