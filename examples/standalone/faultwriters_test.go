package main

import (
	"context"
	"encoding/json"
	"fmt"
	"math/rand/v2"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/bwcms/cms/adapters/postgres/pgtest"
)

// TestFaultConcurrentWriters: clients change the same Resource-Map
// assignments from both sides at once, with single writes and batches of
// both kinds: no answer is a 5xx, every batch ends done, and afterwards
// the lists agree from both sides (and, on PostgreSQL, read the same from
// two server processes on one database).
func TestFaultConcurrentWriters(t *testing.T) {
	t.Parallel()
	t.Run("sqlite", func(t *testing.T) {
		t.Parallel()
		p := startProc(t, "--db", "sqlite:"+t.TempDir()+"/cms.db")
		concurrentWriters(t, []*proc{p})
	})
	t.Run("postgres", func(t *testing.T) {
		t.Parallel()
		db, files := pgtest.DSN(t), sharedFiles(t)
		a := startProc(t, "--db", db, "--files", files)
		b := startProc(t, "--db", db, "--files", files)
		concurrentWriters(t, []*proc{a, b})
	})
}

// writeCounts are the answers of a concurrent-writers run.
type writeCounts struct {
	mu      sync.Mutex
	writes  int
	batches []string // "<kind>/<id>" of batches acknowledged
	status  map[int]int
	broken  int
}

func (w *writeCounts) add(r reply, batchKind string, t *testing.T) {
	w.mu.Lock()
	defer w.mu.Unlock()
	w.writes++
	if r.err != nil {
		w.broken++
		t.Errorf("no answer: %v", r.err)
		return
	}
	w.status[r.status]++
	switch {
	case batchKind != "" && r.status == 201:
		var ans struct {
			BatchID string `json:"batchId"`
		}
		json.Unmarshal(r.body, &ans)
		w.batches = append(w.batches, batchKind+"/"+ans.BatchID)
	case batchKind == "" && r.status >= 200 && r.status <= 202:
	default:
		t.Errorf("answer %d %s", r.status, r.body)
	}
}

func concurrentWriters(t *testing.T, procs []*proc) {
	nRes, nMaps := long(40, 200), long(6, 20)
	clients, dur := long(4, 12), long(3*time.Second, 2*time.Minute)
	var cs []*client
	for _, p := range procs {
		cs = append(cs, newClient(t, p))
	}
	res := make([]string, nRes)
	for i := range res {
		res[i] = fmt.Sprintf("cw-r-%03d", i)
	}
	maps := make([]string, nMaps)
	for i := range maps {
		maps[i] = fmt.Sprintf("cw-m-%02d", i)
		if r := cs[0].post(t.Context(), "/api/bw/v2/map", map[string]any{"id": maps[i]}); r.status != 201 {
			t.Fatalf("map %s: %d %s %v", maps[i], r.status, r.body, r.err)
		}
	}
	var seed []map[string]any
	for _, id := range res {
		seed = append(seed, map[string]any{"id": id})
	}
	if r := cs[0].post(t.Context(), "/api/bw/v2/resource/batch", seed); r.status != 201 {
		t.Fatalf("resources: %d %s %v", r.status, r.body, r.err)
	} else {
		var ans struct{ BatchID string }
		json.Unmarshal(r.body, &ans)
		if st := cs[0].awaitBatch(t, "resource", ans.BatchID, time.Minute); st.Status != "done" {
			t.Fatalf("seed batch: %+v", st)
		}
	}

	w := &writeCounts{status: map[int]int{}}
	ctx, cancel := context.WithTimeout(t.Context(), dur)
	defer cancel()
	var wg sync.WaitGroup
	for k := range clients {
		c := cs[k%len(cs)]
		wg.Go(func() {
			for ctx.Err() == nil {
				kind, path, doc := assignmentWrite(res, maps)
				r := c.post(context.WithoutCancel(ctx), path, doc)
				w.add(r, kind, t)
			}
		})
	}
	wg.Wait()

	batchErrors := 0
	for _, b := range w.batches {
		kind, id, _ := strings.Cut(b, "/")
		if st := cs[0].awaitBatch(t, kind, id, 2*time.Minute); st.Status != "done" {
			batchErrors++
			t.Errorf("batch %s: %+v", b, st)
		}
	}
	mismatches := 0
	var first string
	for i, c := range cs {
		rr := c.records(t, "resource", res, "id,mapIds,mapSecondaryIds")
		mm := c.records(t, "map", maps, "id,resourceIds,secondaryResourceIds")
		mismatches += checkBothSides(t, rr, mm)
		b, _ := json.Marshal([]any{rr, mm})
		if i == 0 {
			first = string(b)
		} else if string(b) != first {
			mismatches++
			t.Errorf("instance %d reads the assignments differently from instance 0", i)
		}
	}
	fiveXX := 0
	for s, n := range w.status {
		if s >= 500 {
			fiveXX += n
		}
	}
	t.Logf("figures: concurrent assignment writers: instances=%d clients=%d writes=%d batches=%d batches-not-done=%d 5xx=%d mismatches=%d statuses=%v",
		len(cs), clients, w.writes, len(w.batches), batchErrors, fiveXX, mismatches, w.status)
}

// pickN is n distinct elements of s in random order.
func pickN(s []string, n int) []string {
	out := slices.Clone(s)
	rand.Shuffle(len(out), func(i, j int) { out[i], out[j] = out[j], out[i] })
	return out[:n]
}

// assignmentWrite is one random write that changes assignments: from the
// Resource side or the Map side, adding or replacing, single or batch.
// kind is the batch's kind, "" for a single write.
func assignmentWrite(res, maps []string) (kind, path string, doc any) {
	r, m := res[rand.IntN(len(res))], maps[rand.IntN(len(maps))]
	switch rand.IntN(8) {
	case 0:
		return "", "/api/bw/v2/resource", map[string]any{"id": r, "mapIdsAdd": []string{m}}
	case 1:
		return "", "/api/bw/v2/resource", map[string]any{"id": r, "mapSecondaryIdsAdd": []string{m}}
	case 2:
		two := pickN(maps, 2)
		return "", "/api/bw/v2/resource", map[string]any{"id": r, "mapIds": two[:1], "mapSecondaryIds": two[1:]}
	case 3:
		return "", "/api/bw/v2/map", map[string]any{"id": m, "resourceIdsAdd": pickN(res, 2)}
	case 4:
		return "", "/api/bw/v2/map", map[string]any{"id": m, "secondaryResourceIdsAdd": pickN(res, 2)}
	case 5:
		return "", "/api/bw/v2/map", map[string]any{"id": m, "resourceIds": pickN(res, 3)}
	case 6:
		var batch []map[string]any
		for _, id := range pickN(res, 5) {
			batch = append(batch, map[string]any{"id": id, "mapIdsAdd": pickN(maps, 1)})
		}
		return "resource", "/api/bw/v2/resource/batch", batch
	default:
		var batch []map[string]any
		for _, id := range pickN(maps, 2) {
			batch = append(batch, map[string]any{"id": id, "secondaryResourceIdsAdd": pickN(res, 3)})
		}
		return "map", "/api/bw/v2/map/batch", batch
	}
}

// checkBothSides compares the assignments the Resources list with those
// the Maps list, role by role, and that no list names an id twice or a
// pair in both roles; it returns the number of differences.
func checkBothSides(t *testing.T, rr, mm map[string]map[string]any) int {
	t.Helper()
	type pair struct{ r, m string }
	bad := 0
	set := func(name string, lists map[string][]string, flip bool) map[pair]bool {
		out := map[pair]bool{}
		for id, l := range lists {
			for _, other := range l {
				p := pair{id, other}
				if flip {
					p = pair{other, id}
				}
				if out[p] {
					bad++
					t.Errorf("%s of %s names %s twice", name, id, other)
				}
				out[p] = true
			}
		}
		return out
	}
	lists := func(recs map[string]map[string]any, field string) map[string][]string {
		out := map[string][]string{}
		for id, rec := range recs {
			out[id] = stringList(rec[field])
		}
		return out
	}
	rp, rs := set("mapIds", lists(rr, "mapIds"), false), set("mapSecondaryIds", lists(rr, "mapSecondaryIds"), false)
	mp, ms := set("resourceIds", lists(mm, "resourceIds"), true), set("secondaryResourceIds", lists(mm, "secondaryResourceIds"), true)
	diff := func(role string, a, b map[pair]bool, aName, bName string) {
		for p := range a {
			if !b[p] {
				bad++
				t.Errorf("%s: %s lists Map %s / Resource %s, %s does not", role, aName, p.m, p.r, bName)
			}
		}
	}
	diff("primary", rp, mp, "the Resource", "the Map")
	diff("primary", mp, rp, "the Map", "the Resource")
	diff("secondary", rs, ms, "the Resource", "the Map")
	diff("secondary", ms, rs, "the Map", "the Resource")
	for p := range rp {
		if rs[p] {
			bad++
			t.Errorf("Resource %s is both primary and secondary on Map %s", p.r, p.m)
		}
	}
	return bad
}
