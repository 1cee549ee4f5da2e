package transport

import (
	"encoding/json"
	"flag"
	"fmt"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
)

var refRaceRounds = flag.Int("refrace.rounds", 30, "rounds of TestReferenceDeleteRace")

// TestReferenceDeleteRace: in each round, writes naming a Map and a
// Resource in every kind of reference (Landing and Proposal mapId, a
// Landing block, trackResourceId, poiResourceIds, brandedPoiIds,
// tourMultiday, hotels, assignments) race the deletes of that Map and
// that Resource (on PostgreSQL through two instances). Either may win,
// never both: afterwards every stored record names only records that
// exist, and every record read posts back as a Skip.
func TestReferenceDeleteRace(t *testing.T) {
	t.Parallel()
	for _, st := range stores {
		t.Run(st.name, func(t *testing.T) {
			t.Parallel()
			in := newInstances(t, st.name, nil)
			var deleted [2]atomic.Int64 // Maps, Resources
			for i := range *refRaceRounds {
				m, r := fmt.Sprintf("map%d", i), fmt.Sprintf("res%d", i)
				for _, c := range []struct{ kind, body string }{
					{"map", `{"id":"` + m + `"}`},
					{"resource", `{"id":"` + r + `","resourceType":"TRACK"}`},
				} {
					if code, body := in.post(0, "/api/bw/v2/"+c.kind, c.body); code != 201 {
						t.Fatal(c.body, code, body)
					}
				}
				writes := []struct{ kind, body string }{
					{"landing", fmt.Sprintf(`{"id":"lan%d","mapId":%q}`, i, m)},
					{"landing", fmt.Sprintf(`{"id":"blk%d","landingBlocks":[{"resourceIds":[%q]}],"landingHotels":[{"resourceIds":[%q]}]}`, i, m, r)},
					{"proposal", fmt.Sprintf(`{"id":"pro%d","mapId":%q,"hotels":[{"resourceIds":[%q]}]}`, i, m, r)},
					{"map", fmt.Sprintf(`{"id":"trk%d","trackResourceId":%q,"poiResourceIds":[%q]}`, i, r, r)},
					{"map", fmt.Sprintf(`{"id":"poi%d","brandedPoiIds":[%q],"tourMultiday":[{"resourceIds":[%q]}],"resourceIds":[%q]}`, i, r, r, r)},
					{"resource", fmt.Sprintf(`{"id":"sub%d","poiResourceIds":[%q],"mapIds":[%q]}`, i, r, m)},
				}
				var wg sync.WaitGroup
				start := make(chan struct{})
				for n, w := range writes {
					wg.Go(func() {
						<-start
						if code, body := in.post(n, "/api/bw/v2/"+w.kind, w.body); code != 201 && code != 409 {
							t.Errorf("round %d %s: %d %s", i, w.body, code, body)
						}
					})
				}
				for n, path := range []string{"/api/bw/v2/map/" + m, "/api/bw/v2/resource/" + r} {
					wg.Go(func() {
						<-start
						rec := newRecorder()
						in.hs[(n+1)%len(in.hs)].ServeHTTP(rec, newRequest("DELETE", path, "", in.e.token("admin")))
						switch rec.Code {
						case 202:
							deleted[n].Add(1)
						case 409:
						default:
							t.Errorf("round %d DELETE %s: %d %s", i, path, rec.Code, rec.Body)
						}
					})
				}
				close(start)
				wg.Wait()
			}
			t.Logf("%d rounds: %d Maps and %d Resources deleted", *refRaceRounds, deleted[0].Load(), deleted[1].Load())
			referencesExist(t, in.e)
		})
	}
}

// referencesExist reads every record of e's account: each id a reference
// names must exist, and each record read must post back as a Skip.
func referencesExist(t *testing.T, e *env) {
	t.Helper()
	records := map[string][]map[string]any{}
	exists := map[string]map[string]bool{}
	for _, kind := range []string{"resource", "map", "landing", "proposal"} {
		w := e.send("admin", "GET", "/api/bw/v2/"+kind+"/published/*", "", nil)
		if w.Code != 200 {
			t.Fatalf("list %s: %d %s", kind, w.Code, w.Body)
		}
		var list []map[string]any
		if err := json.Unmarshal(w.Body.Bytes(), &list); err != nil {
			t.Fatalf("list %s: %v", kind, err)
		}
		records[kind] = list
		exists[kind] = map[string]bool{}
		for _, rec := range list {
			exists[kind][rec["id"].(string)] = true
		}
	}
	ids := func(v any) []string {
		switch v := v.(type) {
		case string:
			if v != "" {
				return []string{v}
			}
		case []any:
			var out []string
			for _, x := range v {
				out = append(out, x.(string))
			}
			return out
		}
		return nil
	}
	items := func(v any, field string) []string {
		list, _ := v.([]any)
		var out []string
		for _, item := range list {
			out = append(out, ids(item.(map[string]any)[field])...)
		}
		return out
	}
	dangling := 0
	for kind, list := range records {
		for _, rec := range list {
			named := map[string][]string{} // target kinds -> ids
			switch kind {
			case "resource":
				named["resource"] = ids(rec["poiResourceIds"])
				named["map"] = append(ids(rec["mapIds"]), ids(rec["mapSecondaryIds"])...)
			case "map":
				named["resource"] = append(append(append(append(ids(rec["trackResourceId"]), ids(rec["poiResourceIds"])...),
					ids(rec["brandedPoiIds"])...), items(rec["tourMultiday"], "resourceIds")...),
					append(ids(rec["resourceIds"]), ids(rec["secondaryResourceIds"])...)...)
			case "landing":
				named["map"] = ids(rec["mapId"])
				named["map|landing"] = items(rec["landingBlocks"], "resourceIds")
				named["resource"] = items(rec["landingHotels"], "resourceIds")
			case "proposal":
				named["map"] = ids(rec["mapId"])
				named["resource"] = items(rec["hotels"], "resourceIds")
			}
			for target, list := range named {
				for _, id := range list {
					ok := false
					for k := range strings.SplitSeq(target, "|") {
						ok = ok || exists[k][id]
					}
					if !ok {
						dangling++
						t.Errorf("%s %s names %s %s, which does not exist", kind, rec["id"], target, id)
					}
				}
			}
			body, _ := json.Marshal(rec)
			if w := e.send("admin", "POST", "/api/bw/v2/"+kind, string(body), nil); w.Code != 200 {
				t.Errorf("%s %s posted back: %d %s", kind, rec["id"], w.Code, w.Body)
			}
		}
	}
	if dangling > 0 {
		t.Errorf("%d references name records that do not exist", dangling)
	}
}
