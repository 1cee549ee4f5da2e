package transport

import (
	"context"
	"encoding/json"
	"flag"
	"fmt"
	"math/rand/v2"
	"net/http"
	"net/http/httptest"
	"os"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/bwcms/cms/adapters/postgres"
	"github.com/bwcms/cms/adapters/sqlite"
	"github.com/bwcms/cms/cms"
	"github.com/bwcms/cms/internal/scale"
	"github.com/bwcms/cms/internal/testenv"
)

// BenchmarkScale runs each record operation through the handler on a
// database of 1,000 Resources and on one of 100,000, to show that its cost
// does not grow with the data: sub-benchmarks <db>/records=<N>/<op>, to be
// compared op by op (benchstat, or the ratio of the two sizes measured in
// one run). Each database holds N Resources of the typical 2.9 KB shape
// on 20 Maps (PRIMARY on one, SECONDARY on another: each Map's lists hold
// N/10), 1,000 Landings and 1,000 Proposals, filled by batches of 10,000
// before any timing (internal/scale describes the set). The reads answer
// the same number of records at both sizes: a bbox of 100 Resources (the
// box shrinks as the grid gets denser) and an updatedSince window holding
// the 100 Resources revised a minute after the fill. Writes run at a clock
// set back between the two, so they never enter the window.
//
// The 100,000 size fills for about a minute per database, so it runs only
// when -bench names Scale (go test ./transport -run X -bench Scale
// -benchtime 200x); a plain -bench . runs the 1,000 size alone, and CI
// never names Scale. CMS_BENCH_SCALE=N sets the large size
// (CMS_BENCH_SCALE=20000 for a quicker look). The 1,000,000 size (issue
// 28) fills in about 15 minutes per database through the same batches and
// takes about 10 GB of disk for SQLite (in the test's temporary
// directory), so run one database at a time, with a longer timeout:
//
//	CMS_BENCH_SCALE=1000000 go test ./transport -run X -bench Scale/sqlite \
//		-benchtime 100x -count 3 -timeout 3h
//
// (Scale/postgres with CMS_TEST_POSTGRES_DSN set). cpu-µs/op is the
// process's CPU time an operation (the handler's, and SQLite's, not a
// PostgreSQL server's): on a shared machine it moves less than ns/op.
// CMS_BENCH_SCALE_ANALYZE=1 gives the planner
// statistics (ANALYZE) after the fill, which is otherwise never analyzed
// (plans must not depend on it: both states are measured that way).
//
// map-read reads a whole Map, whose lists hold N/10 Resources: it grows
// with the data by design; its bytes/op say how much it answers.
//
// -count runs each op again on the same data, the writes going on where
// they stopped (new ids, the next Resource to delete).
func BenchmarkScale(b *testing.B) {
	sizes, err := scaleSizes()
	if err != nil {
		b.Fatal(err)
	}
	for _, st := range stores {
		b.Run(st.name, func(b *testing.B) {
			// Every size is filled first, then each op runs on one size
			// after the other: the figures to compare are minutes apart at
			// most, whatever else the machine runs meanwhile.
			ops := make([][]scaleOp, len(sizes))
			for i, n := range sizes {
				ops[i] = newScaleFixture(b, st.open, n).ops()
			}
			for o := range ops[0] {
				for i, n := range sizes {
					b.Run(fmt.Sprintf("records=%d/%s", n, ops[i][o].name), ops[i][o].run)
				}
			}
		})
	}
}

// scaleSizes are the sizes BenchmarkScale runs: 1,000, and the large one
// when -bench names Scale.
func scaleSizes() ([]int, error) {
	sizes := []int{1000}
	if f := flag.Lookup("test.bench"); f == nil || !strings.Contains(f.Value.String(), "Scale") {
		return sizes, nil
	}
	big := 100000
	if v := os.Getenv("CMS_BENCH_SCALE"); v != "" {
		n, err := strconv.Atoi(v)
		if err != nil || n <= 1000 {
			return nil, fmt.Errorf("CMS_BENCH_SCALE=%q: want a number of Resources above 1000", v)
		}
		big = n
	}
	return append(sizes, big), nil
}

// scaleFixture is a filled database and what its operations need.
type scaleFixture struct {
	e   *env
	tok string
	set *scale.Set
	n   int
	// since is the updatedSince value of the touched Resources' window.
	since string
	rng   *rand.Rand
	// Writes count on from one run of an op to the next (-count runs it
	// again on the same data): new ids, and the next Resource to delete.
	creates, updates, clones, deleted int
	// cpu is the process's CPU time when the running op's loop began
	// (loop); looping, whether one runs.
	cpu     time.Duration
	looping bool
}

// loop is b.Loop that also reports the process's CPU time an iteration
// (cpu-µs/op: the handler's and SQLite's, not a PostgreSQL server's),
// which other work on the machine moves less than the time.
func (f *scaleFixture) loop(b *testing.B) bool {
	if !f.looping {
		f.looping, f.cpu = true, processCPU()
	}
	if b.Loop() {
		return true
	}
	f.looping = false
	reportCPU(b, f.cpu)
	return false
}

// scaleBatch is the most records a fill batch holds (the server's limit).
const scaleBatch = 10000

// analyze refreshes the planner's statistics of an adapter's database.
func analyze(tb testing.TB, s cms.Store) {
	tb.Helper()
	var err error
	switch s := s.(type) {
	case *sqlite.Store:
		_, err = s.Write().ExecContext(tb.Context(), "ANALYZE")
	case *postgres.Store:
		_, err = s.Write().ExecContext(tb.Context(), "ANALYZE")
	}
	if err != nil {
		tb.Fatal(err)
	}
}

func newScaleFixture(b *testing.B, open func(testing.TB) cms.Store, n int) *scaleFixture {
	start := time.Now()
	e := newEnv(b, envOptions{store: open})
	set, err := scale.New("", n, scale.Others, "en")
	if err != nil {
		b.Fatal(err)
	}
	f := &scaleFixture{e: e, tok: e.token("admin"), set: set, n: n, rng: rand.New(rand.NewPCG(1, uint64(n)))}
	f.batch(b, cms.KindMap, set.AppendMaps(nil))
	var body []byte
	for from := 0; from < n; from += scaleBatch {
		body = set.AppendResources(body[:0], from, min(scaleBatch, n-from))
		f.batch(b, cms.KindResource, body)
	}
	f.batch(b, cms.KindLanding, set.AppendLandings(nil, 0, set.Others()))
	f.batch(b, cms.KindProposal, set.AppendProposals(nil, 0, set.Others()))
	// The touch a minute later opens the updatedSince window; the writes
	// run half a minute after the fill, before the window.
	e.clock.Advance(time.Minute)
	f.since = e.clock.Now().In(e.svc.Location()).Format("2006-01-02T15:04:05")
	f.batch(b, cms.KindResource, set.AppendTouch(nil, "once"))
	e.clock.Advance(-30 * time.Second)
	if os.Getenv("CMS_BENCH_SCALE_ANALYZE") != "" {
		analyze(b, e.store)
	}
	b.Logf("filled %d Resources, %d Landings and Proposals in %s", n, set.Others(), time.Since(start).Round(time.Millisecond))
	return f
}

// batch submits body as a batch of kind, applies it and checks it is done.
func (f *scaleFixture) batch(b *testing.B, kind cms.Kind, body []byte) {
	w := httptest.NewRecorder()
	f.e.h.ServeHTTP(w, newRequest("POST", "/api/bw/v2/"+string(kind)+"/batch", string(body), f.tok))
	var receipt struct{ BatchID string }
	if w.Code != http.StatusCreated || json.Unmarshal(w.Body.Bytes(), &receipt) != nil {
		b.Fatalf("%s batch: %d %.300s", kind, w.Code, w.Body)
	}
	if did, err := f.e.svc.ProcessBatch(b.Context(), "bench"); !did || err != nil {
		b.Fatalf("%s batch: processed %v, %v", kind, did, err)
	}
	got, err := f.e.store.GetBatch(b.Context(), "acme", kind, receipt.BatchID)
	if err != nil || got.Status != cms.BatchDone {
		b.Fatalf("%s batch: %+v %v", kind, got, err)
	}
}

// get reads path and returns the answer, failing unless 200.
func (f *scaleFixture) get(b *testing.B, path string) []byte {
	w := httptest.NewRecorder()
	f.e.h.ServeHTTP(w, newRequest("GET", path, "", f.tok))
	if w.Code != http.StatusOK {
		b.Fatalf("GET %s: %d %.300s", path, w.Code, w.Body)
	}
	return w.Body.Bytes()
}

// expectCount fails unless path answers a list of want records.
func (f *scaleFixture) expectCount(b *testing.B, path string, want int) {
	var recs []json.RawMessage
	if err := json.Unmarshal(f.get(b, path), &recs); err != nil || len(recs) != want {
		b.Fatalf("GET %s: %d records, want %d (%v)", path, len(recs), want, err)
	}
}

// admin is a context of the account's administrator, for the service.
func (f *scaleFixture) admin(b *testing.B) context.Context {
	return cms.WithPrincipal(b.Context(), cms.Principal{Account: "acme", User: "admin", Perms: []string{"*"},
		Langs: testenv.Langs("en", "it", "de")})
}

// browseOp measures a page of 50 of p (every published flag); deep, a
// page half-way down the list, whose cursor a walk finds first.
func (f *scaleFixture) browseOp(name string, params cms.BrowseParams, deep bool) scaleOp {
	return scaleOp{name, func(b *testing.B) {
		ctx := f.admin(b)
		// A copy each run: -count runs the op again, from the top of the
		// list (a deep cursor kept from the run before walked on from
		// there, off the list's end).
		p := params
		p.Published, p.Limit = cms.PublishedAny, 50
		if deep {
			walk := p
			walk.Limit = cms.MaxBrowseLimit
			for seen := 0; seen < f.n/2; {
				page, err := f.e.svc.Browse(ctx, cms.KindResource, walk)
				if err != nil || page.Next == "" {
					b.Fatalf("%+v: %d rows, %v", walk, seen, err)
				}
				seen += len(page.Rows)
				walk.Cursor = page.Next
			}
			p.Cursor = walk.Cursor
		}
		if page, err := f.e.svc.Browse(ctx, cms.KindResource, p); err != nil || len(page.Rows) != 50 {
			b.Fatalf("%+v: %d rows, %v", p, len(page.Rows), err)
		}
		b.ReportAllocs()
		for f.loop(b) {
			if _, err := f.e.svc.Browse(ctx, cms.KindResource, p); err != nil {
				b.Fatal(err)
			}
		}
	}}
}

// rarePrefix is the id of Resource i without its last two digits: a
// search word of the 100 Resources around it.
func (f *scaleFixture) rarePrefix(i int) string {
	id := f.set.ResourceID(i - i%100)
	return id[:len(id)-2]
}

// randomIDs are k distinct ids of Resources among the first below.
func (f *scaleFixture) randomIDs(k, below int) []string {
	seen := make(map[int]bool, k)
	ids := make([]string, 0, k)
	for len(ids) < k {
		if i := f.rng.IntN(below); !seen[i] {
			seen[i] = true
			ids = append(ids, f.set.ResourceID(i))
		}
	}
	return ids
}

type scaleOp struct {
	name string
	run  func(*testing.B)
}

// ops are the measured operations, reads first: the writes change what
// the reads would find (the update moves records out of the window, the
// delete removes them). Updates, clones and creates take the first half of
// the Resources, deletes the second half (Named ones aside, the Resources
// only their successor names).
func (f *scaleFixture) ops() []scaleOp {
	const api = "/api/bw/v2/"
	h, tok, set, n := f.e.h, f.tok, f.set, f.n
	return []scaleOp{
		{"read-one", func(b *testing.B) {
			b.ReportAllocs()
			for f.loop(b) {
				serve(b, h, newRequest("GET", api+"resource/"+set.ResourceID(f.rng.IntN(n)), "", tok), http.StatusOK)
			}
		}},
		{"read-50", func(b *testing.B) {
			f.expectCount(b, api+"resource/"+scale.IDs(f.randomIDs(50, n)), 50)
			b.ReportAllocs()
			for f.loop(b) {
				serve(b, h, newRequest("GET", api+"resource/"+scale.IDs(f.randomIDs(50, n)), "", tok), http.StatusOK)
			}
		}},
		{"map-page", func(b *testing.B) {
			f.expectCount(b, api+"resource/mapId/"+set.MapID(3)+"/limit/50", 50)
			b.ReportAllocs()
			k := 0
			for f.loop(b) {
				k++
				serve(b, h, newRequest("GET", api+"resource/mapId/"+set.MapID(k)+"/limit/50", "", tok), http.StatusOK)
			}
		}},
		{"bbox-page", func(b *testing.B) {
			f.expectCount(b, api+"resource/bbox/"+set.Box(set.Boxes()/2), scale.BoxCells*scale.BoxCells)
			b.ReportAllocs()
			for f.loop(b) {
				serve(b, h, newRequest("GET", api+"resource/bbox/"+set.Box(f.rng.IntN(set.Boxes())), "", tok), http.StatusOK)
			}
		}},
		{"updated-page", func(b *testing.B) {
			path := api + "resource/updatedSince/" + f.since
			f.expectCount(b, path, scale.Touched)
			b.ReportAllocs()
			for f.loop(b) {
				serve(b, h, newRequest("GET", path, "", tok), http.StatusOK)
			}
		}},
		// Searches (DECISIONS §14), a page of 50 each: a word of 100 ids
		// (their candidates read by key); one letter every Resource's
		// title has (the id order drives, each record tested), first and
		// deep pages; that letter with a rare word, and with a box; two
		// words every title has.
		{"search-rare", func(b *testing.B) {
			f.expectCount(b, api+"resource?search="+f.rarePrefix(n/2)+"&limit=50", 50)
			b.ReportAllocs()
			for f.loop(b) {
				serve(b, h, newRequest("GET", api+"resource?search="+f.rarePrefix(f.rng.IntN(n-100))+"&limit=50", "", tok), http.StatusOK)
			}
		}},
		{"search-letter", func(b *testing.B) {
			f.expectCount(b, api+"resource?search=s&limit=50", 50)
			b.ReportAllocs()
			for f.loop(b) {
				serve(b, h, newRequest("GET", api+"resource?search=S&limit=50", "", tok), http.StatusOK)
			}
		}},
		{"search-letter-deep", func(b *testing.B) {
			f.expectCount(b, api+"resource?search=s&limit=50&after="+set.ResourceID(n/2), 50)
			b.ReportAllocs()
			for f.loop(b) {
				after := set.ResourceID(f.rng.IntN(n - 100))
				serve(b, h, newRequest("GET", api+"resource?search=s&limit=50&after="+after, "", tok), http.StatusOK)
			}
		}},
		{"search-letter-rare", func(b *testing.B) {
			f.expectCount(b, api+"resource?search=s+"+f.rarePrefix(n/2)+"&limit=50", 50)
			b.ReportAllocs()
			for f.loop(b) {
				serve(b, h, newRequest("GET", api+"resource?search=s+"+f.rarePrefix(f.rng.IntN(n-100))+"&limit=50", "", tok), http.StatusOK)
			}
		}},
		{"search-two-common", func(b *testing.B) {
			f.expectCount(b, api+"resource?search=resource+scale&limit=50", 50)
			b.ReportAllocs()
			for f.loop(b) {
				serve(b, h, newRequest("GET", api+"resource?search=resource+scale&limit=50", "", tok), http.StatusOK)
			}
		}},
		{"search-letter-bbox", func(b *testing.B) {
			f.expectCount(b, api+"resource?search=s&bbox="+set.Box(set.Boxes()/2), scale.BoxCells*scale.BoxCells)
			b.ReportAllocs()
			for f.loop(b) {
				serve(b, h, newRequest("GET", api+"resource?search=s&bbox="+set.Box(f.rng.IntN(set.Boxes())), "", tok), http.StatusOK)
			}
		}},
		// The admin's lists (cms.Service.Browse), a page of 50: each
		// order's first page and one half-way down (its cursor found
		// by walking there before the timing); filters held by every
		// Resource (the order's index drives, each record tested) and by
		// a hundred (their candidates).
		f.browseOp("browse-updated", cms.BrowseParams{Sort: cms.BrowseUpdated, Desc: true}, false),
		f.browseOp("browse-updated-deep", cms.BrowseParams{Sort: cms.BrowseUpdated, Desc: true}, true),
		f.browseOp("browse-id", cms.BrowseParams{Sort: cms.BrowseID}, false),
		f.browseOp("browse-id-deep", cms.BrowseParams{Sort: cms.BrowseID, Desc: true}, true),
		f.browseOp("browse-title", cms.BrowseParams{Sort: cms.BrowseTitle}, false),
		f.browseOp("browse-title-deep", cms.BrowseParams{Sort: cms.BrowseTitle, Desc: true}, true),
		f.browseOp("browse-title-untitled", cms.BrowseParams{Sort: cms.BrowseTitle, TitleLang: "it"}, true),
		f.browseOp("browse-type", cms.BrowseParams{Sort: cms.BrowseUpdated, Desc: true, Type: "TRACK"}, false),
		f.browseOp("browse-missing-title", cms.BrowseParams{Sort: cms.BrowseTitle, MissingLang: "de"}, true),
		f.browseOp("browse-map", cms.BrowseParams{Sort: cms.BrowseUpdated, Desc: true, MapID: set.MapID(3)}, false),
		f.browseOp("browse-search-letter", cms.BrowseParams{Sort: cms.BrowseTitle, Search: "s"}, false),
		f.browseOp("browse-search-rare", cms.BrowseParams{Sort: cms.BrowseUpdated, Desc: true, Search: f.rarePrefix(n / 2)}, false),
		{"facets", func(b *testing.B) {
			ctx := f.admin(b)
			if types, cats, err := f.e.svc.Facets(ctx, cms.KindResource); err != nil || len(types) != 1 || len(cats) != 2 {
				b.Fatalf("facets: %v %v %v", types, cats, err)
			}
			b.ReportAllocs()
			for f.loop(b) {
				if _, _, err := f.e.svc.Facets(ctx, cms.KindResource); err != nil {
					b.Fatal(err)
				}
			}
		}},
		{"map-read", func(b *testing.B) {
			var m struct{ ResourceIDs, SecondaryResourceIDs []string }
			body := f.get(b, api+"map/"+set.MapID(0))
			if err := json.Unmarshal(body, &m); err != nil || len(m.ResourceIDs) != n/20 || len(m.SecondaryResourceIDs) != n/20 {
				b.Fatalf("map %s: %d and %d Resources, want %d each (%v)", set.MapID(0), len(m.ResourceIDs), len(m.SecondaryResourceIDs), n/20, err)
			}
			b.SetBytes(int64(len(body)))
			b.ReportAllocs()
			k := 0
			for f.loop(b) {
				k++
				serve(b, h, newRequest("GET", api+"map/"+set.MapID(k), "", tok), http.StatusOK)
			}
			b.ReportMetric(float64(n/10), "resources/map")
		}},
		{"create-into-map", func(b *testing.B) {
			b.ReportAllocs()
			var body []byte
			for f.loop(b) {
				f.creates++
				body = set.AppendNew(body[:0], set.NewID("c", f.creates), f.rng.IntN(n/2))
				serve(b, h, newRequest("POST", api+"resource", string(body), tok), http.StatusCreated)
			}
		}},
		{"update", func(b *testing.B) {
			b.ReportAllocs()
			for f.loop(b) {
				f.updates++
				body := fmt.Sprintf(`{"id":%q,"title":"Revised %d"}`, set.ResourceID(f.rng.IntN(n/2)), f.updates)
				serve(b, h, newRequest("POST", api+"resource", body, tok), http.StatusAccepted)
			}
		}},
		{"clone", func(b *testing.B) {
			b.ReportAllocs()
			for f.loop(b) {
				f.clones++
				path := api + "resource/clone/" + set.ResourceID(f.rng.IntN(n/2)) + "/map/" + set.MapID(f.clones)
				serve(b, h, newRequest("POST", path, "", tok), http.StatusCreated)
			}
		}},
		{"delete", func(b *testing.B) {
			// Resources of the second half in id order: each sits in the
			// middle of its Maps' lists and is named by the next one. A run
			// longer than the pool stores the pool again, untimed.
			from, to := max(n/2, scale.Named), n-scale.Touched
			b.ReportAllocs()
			for f.loop(b) {
				if from+f.deleted == to {
					b.StopTimer()
					refill := processCPU()
					f.batch(b, cms.KindResource, set.AppendResources(nil, from, to-from))
					f.cpu += processCPU() - refill
					f.deleted = 0
					b.StartTimer()
				}
				serve(b, h, newRequest("DELETE", api+"resource/"+set.ResourceID(from+f.deleted), "", tok), http.StatusAccepted)
				f.deleted++
			}
		}},
	}
}
