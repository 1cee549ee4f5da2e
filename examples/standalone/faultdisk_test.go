package main

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"
)

// mountTmpfs mounts a tmpfs of size bytes on a new directory and returns
// it; it is unmounted when the test ends. Where mounting is refused (not
// root, no tmpfs, a container without the capability), the test is
// skipped.
func mountTmpfs(t *testing.T, size int64) string {
	t.Helper()
	dir := filepath.Join(t.TempDir(), "disk")
	if err := os.Mkdir(dir, 0o755); err != nil {
		t.Fatal(err)
	}
	out, err := exec.Command("mount", "-t", "tmpfs", "-o", fmt.Sprintf("size=%d", size), "tmpfs", dir).CombinedOutput()
	if err != nil {
		t.Skipf("disk full needs a small tmpfs, and mounting one was refused here (%v: %s); "+
			"run as root where mount -t tmpfs is allowed to test it", err, bytes.TrimSpace(out))
	}
	t.Cleanup(func() {
		if out, err := exec.Command("umount", dir).CombinedOutput(); err != nil {
			t.Errorf("umount %s: %v: %s", dir, err, out)
		}
	})
	return dir
}

// fill writes a file in dir until the disk has no room left.
func fill(t *testing.T, dir string) string {
	t.Helper()
	path := filepath.Join(dir, "filler")
	f, err := os.Create(path)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	block := make([]byte, 64<<10)
	for {
		if _, err := f.Write(block); err != nil {
			if !errors.Is(err, syscall.ENOSPC) {
				t.Fatal(err)
			}
			break
		}
	}
	// The last bytes a partial block left.
	for _, n := range []int{4096, 512, 1} {
		for {
			if _, err := f.Write(block[:n]); err != nil {
				break
			}
		}
	}
	return path
}

// TestFaultDiskFull (SQLite): the disk of the database fills up while the
// server applies an accepted batch and clients write. While it is full,
// single writes answer 503 with Retry-After (no other 5xx), /readyz says
// not ready, and the batch is not lost (never error). Once room is made,
// without a restart, /readyz is ready again, the batch is applied once
// (every record created), and writes succeed.
func TestFaultDiskFull(t *testing.T) {
	t.Parallel()
	dir := mountTmpfs(t, 48<<20)
	path := filepath.Join(dir, "cms.db")
	p := startProc(t, "--db", "sqlite:"+path)
	c := newClient(t, p)
	ctx := t.Context()
	size, full := long(2000, 6000), long(3*time.Second, 15*time.Second)
	var body []map[string]any
	var ids []string
	for i := range size {
		id := fmt.Sprintf("disk-%05d", i)
		ids = append(ids, id)
		body = append(body, map[string]any{"id": id, "published": true, "title": "Disk " + id,
			"htmlContent": "<p>" + strings.Repeat("full disk ", 100) + "</p>"})
	}
	r := c.post(ctx, "/api/bw/v2/resource/batch", body)
	if r.err != nil || r.status != 201 {
		t.Fatalf("batch: %d %s %v", r.status, r.body, r.err)
	}
	var ans struct {
		BatchID string `json:"batchId"`
	}
	json.Unmarshal(r.body, &ans)
	// At once, while the worker applies it.
	filler := fill(t, dir)
	bulky := func(id string) map[string]any {
		return map[string]any{"id": id, "htmlContent": "<p>" + strings.Repeat("no room ", 3000) + "</p>"}
	}
	var unavailable, other5xx, created int
	for i := 0; unavailable == 0 && i < 50; i++ {
		r := c.post(ctx, "/api/bw/v2/resource", bulky(fmt.Sprintf("during-%d", i)))
		switch {
		case r.err != nil:
			t.Fatalf("write while full: %v", r.err)
		case r.status == 503:
			unavailable++
			if r.header.Get("Retry-After") == "" || strings.TrimSpace(string(r.body)) != `{"fail":"Service unavailable"}` {
				t.Errorf("503 while full: %q %s", r.header.Get("Retry-After"), r.body)
			}
		case r.status >= 500:
			other5xx++
			t.Errorf("write while full: %d %s", r.status, r.body)
		case r.status == 201:
			created++ // it found room the WAL had
		}
	}
	if unavailable == 0 {
		t.Fatalf("no 503 in 50 writes with the disk full (%d created)", created)
	}
	ready := func() (int, string) {
		r := c.get(ctx, "/readyz")
		if r.err != nil {
			t.Fatalf("readyz: %v", r.err)
		}
		return r.status, string(r.body)
	}
	if st, b := ready(); st != 503 || !strings.Contains(b, "disk is full") {
		t.Errorf("readyz while full: %d %s", st, b)
	}
	time.Sleep(full)
	status := func() batchStatus {
		r := c.get(ctx, "/api/bw/v2/resource/batch/"+ans.BatchID)
		var st batchStatus
		if r.err != nil || r.status != 200 || json.Unmarshal(r.body, &st) != nil {
			t.Fatalf("batch status: %d %s %v", r.status, r.body, r.err)
		}
		return st
	}
	if st := status(); st.Status == "error" || st.Status == "done" {
		t.Fatalf("batch while the disk is full: %+v", st)
	}
	if st, b := ready(); st != 503 {
		t.Errorf("readyz while full, later: %d %s", st, b)
	}
	if err := os.Remove(filler); err != nil {
		t.Fatal(err)
	}
	freed := time.Now()
	for {
		st, _ := ready()
		if st == 200 {
			break
		}
		if time.Since(freed) > 30*time.Second {
			t.Fatalf("readyz not ready 30s after room was made: %d", st)
		}
		time.Sleep(50 * time.Millisecond)
	}
	readyAfter := time.Since(freed)
	got := c.awaitBatch(t, "resource", ans.BatchID, 60*time.Second)
	appliedAfter := time.Since(freed)
	if got.Status != "done" || got.Created != size || got.Updated != 0 || got.Skipped != 0 {
		t.Errorf("batch after room was made: %+v, want done with %d created", got, size)
	}
	if r := c.post(ctx, "/api/bw/v2/resource", bulky("after-room")); r.status != 201 {
		t.Errorf("write after room was made: %d %s %v", r.status, r.body, r.err)
	}
	if n := len(c.records(t, "resource", ids, "id")); n != size {
		t.Errorf("%d records of the batch stored, want %d", n, size)
	}
	p.stop()
	integrityCheck(t, path)
	t.Logf("figures: disk full under a batch of %d: 503=%d created-while-full=%d other-5xx=%d ready-after=%v applied-after=%v",
		size, unavailable, created, other5xx, readyAfter.Round(time.Millisecond), appliedAfter.Round(time.Millisecond))
}
