package transport

import (
	"context"
	"encoding/json"
	"fmt"
	"math/rand/v2"
	"net/http"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/bwcms/cms/cms"
	"github.com/bwcms/cms/internal/testenv"
)

// instances are handlers over one database: one on SQLite, two services
// of their own (each with its own store and pool) on PostgreSQL, as a
// deployment of several instances runs.
type instances struct {
	e     *env
	hs    []http.Handler
	svcs  []*cms.Service
	store string
}

func newInstances(t *testing.T, store string, svc func(*cms.Options)) *instances {
	t.Helper()
	if store == "sqlite" {
		e := newEnv(t, envOptions{svc: svc})
		return &instances{e: e, hs: []http.Handler{e.h}, svcs: []*cms.Service{e.svc}, store: store}
	}
	open := testenv.SharedPostgres(t)
	e := newEnv(t, envOptions{svc: svc, store: open})
	second, h := secondInstance(t, e, open, svc)
	return &instances{e: e, hs: []http.Handler{e.h, h}, svcs: []*cms.Service{e.svc, second}, store: store}
}

// post sends one write as admin through instance i and returns its status
// and body.
func (in *instances) post(i int, path, body string) (int, string) {
	w := newRecorder()
	in.hs[i%len(in.hs)].ServeHTTP(w, newRequest("POST", path, body, in.e.token("admin")))
	return w.Code, w.Body.String()
}

// assignmentsAgree reads every Map and Resource named and fails unless
// both sides list the same facts, each id once per record.
func assignmentsAgree(t *testing.T, e *env, maps, resources []string) (fromMaps map[[2]string]string) {
	t.Helper()
	lists := func(kind, id string, fields ...string) map[string][]string {
		w := e.send("admin", "GET", "/api/bw/v2/"+kind+"/"+id+"/published/*/fields/"+strings.Join(fields, ","), "", nil)
		if w.Code != 200 {
			t.Fatalf("GET %s %s: %d %s", kind, id, w.Code, w.Body)
		}
		var raw map[string]json.RawMessage
		rec := map[string][]string{}
		err := json.Unmarshal(w.Body.Bytes(), &raw)
		for _, f := range fields {
			if err == nil {
				var list []string
				err = json.Unmarshal(raw[f], &list)
				rec[f] = list
			}
		}
		if err != nil {
			t.Fatalf("%s %s: %v: %s", kind, id, err, w.Body)
		}
		seen := map[string]bool{}
		for _, f := range fields {
			for _, other := range rec[f] {
				if seen[other] {
					t.Errorf("%s %s lists %s twice: %v", kind, id, other, rec)
				}
				seen[other] = true
			}
		}
		return rec
	}
	fromMaps = map[[2]string]string{}
	for _, m := range maps {
		rec := lists("map", m, "resourceIds", "secondaryResourceIds")
		for _, r := range rec["resourceIds"] {
			fromMaps[[2]string{m, r}] = "primary"
		}
		for _, r := range rec["secondaryResourceIds"] {
			fromMaps[[2]string{m, r}] = "secondary"
		}
	}
	fromResources := map[[2]string]string{}
	for _, r := range resources {
		rec := lists("resource", r, "mapIds", "mapSecondaryIds")
		for _, m := range rec["mapIds"] {
			fromResources[[2]string{m, r}] = "primary"
		}
		for _, m := range rec["mapSecondaryIds"] {
			fromResources[[2]string{m, r}] = "secondary"
		}
	}
	for k, v := range fromMaps {
		if fromResources[k] != v {
			t.Errorf("Map %s lists Resource %s as %s; the Resource says %q", k[0], k[1], v, fromResources[k])
		}
	}
	for k, v := range fromResources {
		if fromMaps[k] != v {
			t.Errorf("Resource %s lists Map %s as %s; the Map says %q", k[1], k[0], v, fromMaps[k])
		}
	}
	return fromMaps
}

func idsOf(prefix string, n int) []string {
	out := make([]string, n)
	for i := range out {
		out[i] = fmt.Sprintf("%s%d", prefix, i)
	}
	return out
}

func quoted(ids []string) string {
	b, _ := json.Marshal(ids)
	return string(b)
}

// TestConcurrentAssignments: 6 clients send 10 assignment writes each at
// once on 3 Maps and 10 Resources, from the Map side, the Resource side
// or both (on PostgreSQL through two instances): no answer is a 5xx (a
// deadlock or a race is retried inside), and afterwards every Map and
// every Resource agree, each id listed once.
func TestConcurrentAssignments(t *testing.T) {
	t.Parallel()
	for _, side := range []string{"map", "resource", "both"} {
		for _, st := range stores {
			t.Run(side+"/"+st.name, func(t *testing.T) {
				t.Parallel()
				in := newInstances(t, st.name, nil)
				maps, resources := idsOf("m-", 3), idsOf("r-", 10)
				for _, m := range maps {
					if code, body := in.post(0, "/api/bw/v2/map", `{"id":"`+m+`"}`); code != 201 {
						t.Fatal(code, body)
					}
				}
				for _, r := range resources {
					if code, body := in.post(0, "/api/bw/v2/resource", `{"id":"`+r+`"}`); code != 201 {
						t.Fatal(code, body)
					}
				}
				var wg sync.WaitGroup
				for c := range 6 {
					wg.Go(func() {
						rng := rand.New(rand.NewPCG(uint64(c), 14))
						for i := range 10 {
							var path, body string
							if side == "map" || side == "both" && c%2 == 0 {
								pick := rng.Perm(len(resources))[:4]
								var rs []string
								for _, p := range pick {
									rs = append(rs, resources[p])
								}
								field := "resourceIds"
								if i%3 == 2 {
									field = "secondaryResourceIds"
								}
								path = "/api/bw/v2/map"
								body = fmt.Sprintf(`{"id":%q,%q:%s}`, maps[(c+i)%3], field, quoted(rs))
							} else {
								pick := rng.Perm(len(maps))[:1+rng.IntN(3)]
								var ms []string
								for _, p := range pick {
									ms = append(ms, maps[p])
								}
								field := "mapIds"
								if i%3 == 2 {
									field = "mapIdsAdd"
								}
								path = "/api/bw/v2/resource"
								body = fmt.Sprintf(`{"id":%q,%q:%s}`, resources[rng.IntN(len(resources))], field, quoted(ms))
							}
							if code, answer := in.post(c, path, body); code >= 500 || code < 200 || code > 202 {
								t.Errorf("client %d, write %d %s: %d %s", c, i, body, code, answer)
							}
						}
					})
				}
				wg.Wait()
				assignmentsAgree(t, in.e, maps, resources)
			})
		}
	}
}

// TestBatchesBesideAssignmentWrites: three batches of Resources assigning
// Maps are applied while clients keep adding the same Resources to Maps
// one write at a time (on PostgreSQL through two instances, each with
// workers): every batch ends done, every record a batch acknowledged is
// there with its Maps, every single write succeeds, and both sides agree.
func TestBatchesBesideAssignmentWrites(t *testing.T) {
	t.Parallel()
	for _, st := range stores {
		t.Run(st.name, func(t *testing.T) {
			t.Parallel()
			in := newInstances(t, st.name, func(o *cms.Options) { o.BatchPoll = 10 * time.Millisecond })
			maps, shared := idsOf("m-", 3), idsOf("r-", 40)
			for _, m := range maps {
				if code, body := in.post(0, "/api/bw/v2/map", `{"id":"`+m+`"}`); code != 201 {
					t.Fatal(code, body)
				}
			}
			for _, r := range shared {
				if code, body := in.post(0, "/api/bw/v2/resource", `{"id":"`+r+`"}`); code != 201 {
					t.Fatal(code, body)
				}
			}
			// Three batches, each giving its own new Resources one Map and
			// the shared ones (spread among them) all three.
			type batch struct {
				id  string
				own []string
			}
			batches := make([]batch, 3)
			bodies := make([]string, 3)
			for k := range batches {
				batches[k].own = idsOf(fmt.Sprintf("b%d-", k), 400)
				var recs []string
				for n, id := range batches[k].own {
					recs = append(recs, fmt.Sprintf(`{"id":%q,"mapIds":[%q]}`, id, maps[n%3]))
					if n%10 == k {
						r := shared[(n/10+k)%len(shared)]
						recs = append(recs, fmt.Sprintf(`{"id":%q,"title":"batch %d","mapIds":%s}`, r, k, quoted(maps)))
					}
				}
				bodies[k] = "[" + strings.Join(recs, ",") + "]"
			}
			// Single writes add the shared Resources to Maps, from either
			// side, for as long as the batches run.
			stop := make(chan struct{})
			var singles sync.WaitGroup
			for c := range 4 {
				singles.Go(func() {
					rng := rand.New(rand.NewPCG(uint64(c), 8))
					for i := 0; ; i++ {
						select {
						case <-stop:
							return
						default:
						}
						r, m := shared[rng.IntN(len(shared))], maps[rng.IntN(len(maps))]
						path, body := "/api/bw/v2/resource", fmt.Sprintf(`{"id":%q,"mapIdsAdd":[%q]}`, r, m)
						if i%2 == 1 {
							path, body = "/api/bw/v2/map", fmt.Sprintf(`{"id":%q,"resourceIdsAdd":[%q]}`, m, r)
						}
						if code, answer := in.post(c, path, body); code < 200 || code > 202 {
							t.Errorf("client %d, write %d %s: %d %s", c, i, body, code, answer)
						}
					}
				})
			}
			for k := range batches {
				code, body := in.post(k, "/api/bw/v2/resource/batch", bodies[k])
				if code != 201 {
					t.Fatalf("batch %d: %d %s", k, code, body)
				}
				var receipt struct{ BatchID string }
				json.Unmarshal([]byte(body), &receipt)
				batches[k].id = receipt.BatchID
			}
			ctx, cancel := context.WithCancel(t.Context())
			var workers sync.WaitGroup
			for _, svc := range in.svcs {
				workers.Go(func() { svc.RunBatchWorkers(ctx, 2) })
			}
			deadline := time.Now().Add(2 * time.Minute)
			for k, b := range batches {
				for {
					status := statusOf(t, in.e, "resource", b.id)
					if strings.Contains(status, `"status":"done"`) {
						break
					}
					if strings.Contains(status, `"status":"error"`) || time.Now().After(deadline) {
						close(stop)
						t.Fatalf("batch %d: %s", k, status)
					}
					time.Sleep(20 * time.Millisecond)
				}
			}
			close(stop)
			singles.Wait()
			cancel()
			workers.Wait()
			var all []string
			for k, b := range batches {
				for n, id := range b.own {
					w := in.e.send("admin", "GET", "/api/bw/v2/resource/"+id+"/published/*/fields/mapIds", "", nil)
					if w.Code != 200 {
						t.Fatalf("batch %d record %s: %d %s", k, id, w.Code, w.Body)
					}
					if got := field(t, w, "mapIds"); fmt.Sprint(got) != "["+maps[n%3]+"]" {
						t.Errorf("batch %d record %s: mapIds %v, want [%s]", k, id, got, maps[n%3])
					}
				}
				all = append(all, b.own...)
			}
			facts := assignmentsAgree(t, in.e, maps, slices.Concat(all, shared))
			// Each batch gave the shared Resources it names all three
			// Maps; single writes only add.
			for k := range batches {
				for n := k; n < 400; n += 10 {
					r := shared[(n/10+k)%len(shared)]
					for _, m := range maps {
						if facts[[2]string{m, r}] != "primary" {
							t.Errorf("Resource %s is not in Map %s after batch %d", r, m, k)
						}
					}
				}
			}
		})
	}
}
