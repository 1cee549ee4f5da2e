package main

import (
	"context"
	"encoding/json"
	"fmt"
	"strings"
	"sync"
	"testing"
	"time"
)

// TestFaultReferenceDelete: the reference/delete race. In each round,
// writes that name a Map and a Resource (every single reference and
// every list that names records: mapId of a Landing and a Proposal,
// trackResourceId, poiResourceIds, brandedPoiIds, tourMultiday, a
// Landing's blocks and hotels, a Proposal's hotels, assignments; single
// writes, a clone of a Map naming the Resource and a batch) race the
// deletes of that Map and that Resource, on PostgreSQL through two
// server processes on one database. Either side may win, never both:
// afterwards every stored record's references exist, and every record
// read posts back as a Skip.
func TestFaultReferenceDelete(t *testing.T) {
	t.Parallel()
	eachDB(t, func(t *testing.T, d faultDB) {
		procs := []*proc{startProc(t, "--db", d.db, "--files", d.files)}
		if d.file == "" {
			procs = append(procs, startProc(t, "--db", d.db, "--files", d.files))
		}
		var cs []*client
		for _, p := range procs {
			cs = append(cs, newClient(t, p))
		}
		referenceDeleteRace(t, cs, long(60, 400))
	})
}

func referenceDeleteRace(t *testing.T, cs []*client, rounds int) {
	ctx := t.Context()
	statuses := map[string]map[int]int{} // what -> status -> count
	var mu sync.Mutex
	count := func(what string, r reply) {
		mu.Lock()
		defer mu.Unlock()
		if statuses[what] == nil {
			statuses[what] = map[int]int{}
		}
		statuses[what][r.status]++
	}
	var batches []string
	for i := range rounds {
		m, r := fmt.Sprintf("rd-m-%03d", i), fmt.Sprintf("rd-r-%03d", i)
		setup := []struct {
			path string
			doc  map[string]any
		}{
			{"/api/bw/v2/map", map[string]any{"id": m}},
			{"/api/bw/v2/resource", map[string]any{"id": r, "resourceType": "TRACK"}},
			// A Map naming the Resource already, cloned in the race.
			{"/api/bw/v2/map", map[string]any{"id": fmt.Sprintf("rd-c-%03d", i), "poiResourceIds": []string{r}}},
		}
		for _, s := range setup {
			if rep := cs[0].post(ctx, s.path, s.doc); rep.status != 201 {
				t.Fatalf("round %d %v: %d %s %v", i, s.doc, rep.status, rep.body, rep.err)
			}
		}
		id := func(prefix string) string { return fmt.Sprintf("rd-%s-%03d", prefix, i) }
		writes := []struct {
			path string
			doc  any
		}{
			{"/api/bw/v2/landing", map[string]any{"id": id("l"), "mapId": m}},
			{"/api/bw/v2/landing", map[string]any{"id": id("b"), "landingBlocks": []any{map[string]any{"resourceIds": []string{m}}},
				"landingHotels": []any{map[string]any{"resourceIds": []string{r}}}}},
			{"/api/bw/v2/proposal", map[string]any{"id": id("p"), "mapId": m, "hotels": []any{map[string]any{"resourceIds": []string{r}}}}},
			{"/api/bw/v2/map", map[string]any{"id": id("t"), "trackResourceId": r, "poiResourceIds": []string{r}}},
			{"/api/bw/v2/map", map[string]any{"id": id("o"), "brandedPoiIds": []string{r},
				"tourMultiday": []any{map[string]any{"resourceIds": []string{r}}}, "resourceIds": []string{r}}},
			{"/api/bw/v2/resource", map[string]any{"id": id("s"), "poiResourceIds": []string{r}, "mapSecondaryIds": []string{m}}},
			{"/api/bw/v2/map/clone/" + id("c"), nil},
			{"/api/bw/v2/proposal/batch", []any{map[string]any{"id": id("q"), "mapId": m}}},
		}
		var wg sync.WaitGroup
		start := make(chan struct{})
		for n, w := range writes {
			c := cs[n%len(cs)]
			wg.Go(func() {
				<-start
				var rep reply
				what := strings.Split(w.path, "/")[4]
				if w.doc == nil {
					what += " clone"
					rep = c.do(ctx, "POST", w.path, "", nil, nil)
				} else {
					rep = c.post(ctx, w.path, w.doc)
				}
				count(what, rep)
				switch {
				case rep.err != nil:
					t.Errorf("round %d %s: %v", i, w.path, rep.err)
				case strings.HasSuffix(w.path, "/batch") && rep.status == 201:
					var ans struct {
						BatchID string `json:"batchId"`
					}
					json.Unmarshal(rep.body, &ans)
					mu.Lock()
					batches = append(batches, ans.BatchID)
					mu.Unlock()
				case rep.status != 201 && rep.status != 409:
					t.Errorf("round %d %s %v: %d %s", i, w.path, w.doc, rep.status, rep.body)
				}
			})
		}
		for n, path := range []string{"/api/bw/v2/map/" + m, "/api/bw/v2/resource/" + r} {
			c := cs[(n+1)%len(cs)]
			wg.Go(func() {
				<-start
				rep := c.do(ctx, "DELETE", path, "", nil, nil)
				count("delete "+strings.Split(path, "/")[4], rep)
				if rep.err != nil || rep.status != 202 && rep.status != 409 {
					t.Errorf("round %d DELETE %s: %d %s %v", i, path, rep.status, rep.body, rep.err)
				}
			})
		}
		close(start)
		wg.Wait()
	}
	batchEnds := map[string]int{}
	for _, b := range batches {
		batchEnds[cs[0].awaitBatch(t, "proposal", b, time.Minute).Status]++
	}
	dangling, notSkip := storedReferencesExist(t, cs)
	t.Logf("figures: reference/delete race: instances=%d rounds=%d dangling=%d not-skip=%d batches=%v statuses=%v",
		len(cs), rounds, dangling, notSkip, batchEnds, statuses)
}

// storedReferencesExist reads every record through each client: every id
// a record names must exist, and every record read must post back as a
// Skip. It returns the references that name nothing and the records that
// did not post back as a Skip.
func storedReferencesExist(t *testing.T, cs []*client) (dangling, notSkip int) {
	t.Helper()
	kinds := []string{"resource", "map", "landing", "proposal"}
	ctx := context.WithoutCancel(t.Context())
	for ci, c := range cs {
		records := map[string][]map[string]any{}
		exists := map[string]map[string]bool{}
		for _, kind := range kinds {
			rep := c.get(ctx, "/api/bw/v2/"+kind+"/published/*")
			if rep.err != nil || rep.status != 200 {
				t.Fatalf("list %s: %d %s %v", kind, rep.status, rep.body, rep.err)
			}
			var list []map[string]any
			if err := json.Unmarshal(rep.body, &list); err != nil {
				t.Fatalf("list %s: %v", kind, err)
			}
			records[kind], exists[kind] = list, map[string]bool{}
			for _, rec := range list {
				exists[kind][fmt.Sprint(rec["id"])] = true
			}
		}
		items := func(v any, field string) []string {
			l, _ := v.([]any)
			var out []string
			for _, item := range l {
				m, _ := item.(map[string]any)
				out = append(out, stringList(m[field])...)
			}
			return out
		}
		one := func(v any) []string {
			if s, _ := v.(string); s != "" {
				return []string{s}
			}
			return nil
		}
		for _, kind := range kinds {
			for _, rec := range records[kind] {
				named := map[string][]string{}
				switch kind {
				case "resource":
					named["resource"] = stringList(rec["poiResourceIds"])
					named["map"] = append(stringList(rec["mapIds"]), stringList(rec["mapSecondaryIds"])...)
				case "map":
					named["resource"] = append(one(rec["trackResourceId"]), stringList(rec["poiResourceIds"])...)
					named["resource"] = append(named["resource"], stringList(rec["brandedPoiIds"])...)
					named["resource"] = append(named["resource"], items(rec["tourMultiday"], "resourceIds")...)
					named["resource"] = append(named["resource"], stringList(rec["resourceIds"])...)
					named["resource"] = append(named["resource"], stringList(rec["secondaryResourceIds"])...)
				case "landing":
					named["map"] = one(rec["mapId"])
					named["map|landing"] = items(rec["landingBlocks"], "resourceIds")
					named["resource"] = items(rec["landingHotels"], "resourceIds")
				case "proposal":
					named["map"] = one(rec["mapId"])
					named["resource"] = items(rec["hotels"], "resourceIds")
				}
				for target, ids := range named {
					for _, id := range ids {
						ok := false
						for k := range strings.SplitSeq(target, "|") {
							ok = ok || exists[k][id]
						}
						if !ok {
							dangling++
							t.Errorf("instance %d: %s %s names %s %s, which does not exist", ci, kind, rec["id"], target, id)
						}
					}
				}
				if rep := c.post(ctx, "/api/bw/v2/"+kind, rec); rep.status != 200 {
					notSkip++
					t.Errorf("instance %d: %s %s posted back: %d %s %v", ci, kind, rec["id"], rep.status, rep.body, rep.err)
				}
			}
		}
	}
	return dangling, notSkip
}
