package transport

import (
	"fmt"
	"math/rand/v2"
	"net/http"
	"net/http/httptest"
	"runtime"
	"strings"
	"testing"

	"github.com/bwcms/cms/cms"
)

// loadRecords is how many Resources the load-shaped read benchmarks store.
const loadRecords = 1000

// loadEnv is an env with an account of one language (as a standalone
// server's) holding loadRecords Resources shaped like an HTTP load test's:
// 2 KB of htmlContent, a title, a short description, a location, two Maps
// and two categories, a contact e-mail and a CTA URL. It returns the env,
// a token of the account's admin and the records' ids.
func loadEnv(b *testing.B, open func(testing.TB) cms.Store) (*env, string, []string) {
	e := newEnv(b, envOptions{store: open})
	ctx := b.Context()
	solo, _ := cms.NewLanguages("en")
	if err := e.svc.CreateAccount(ctx, "solo", solo); err != nil {
		b.Fatal(err)
	}
	if err := e.svc.CreateUser(ctx, cms.NewUser{Name: "soloadmin", Account: "solo", Password: testPassword, Perms: []string{"*"}}); err != nil {
		b.Fatal(err)
	}
	tok := e.token("soloadmin")
	post := func(kind, body string, want int) {
		r := newRequest("POST", "/api/bw/v2/"+kind, body, tok)
		r.Header.Set("Content-Type", "application/json")
		serve(b, e.h, r, want)
	}
	for _, m := range []string{"map-1", "map-2"} {
		post("map", `{"id":"`+m+`","title":"`+m+`","published":true}`, http.StatusCreated)
	}
	ids := make([]string, loadRecords)
	for i := range ids {
		id := fmt.Sprintf("bw-%d", i+1)
		ids[i] = id
		post("resource", loadRecord(id, "Title "+id), http.StatusCreated)
	}
	return e, tok, ids
}

// loadHTML is n bytes of HTML paragraphs, with quotes, entities and
// newlines to escape.
func loadHTML(n int) string {
	const para = "<p>Lorem ipsum dolor sit amet, <strong>consectetur</strong> adipiscing elit. Sed do eiusmod tempor " +
		"incididunt ut labore et dolore magna aliqua. <a href=\"https://example.com/info\">More info</a> &amp; details.</p>\n"
	var sb strings.Builder
	sb.WriteString("<h2>Resource</h2>\n")
	for sb.Len() < n {
		sb.WriteString(para)
	}
	return sb.String()[:n]
}

// benchLoadReads runs path(rng) through the handler on every store, from
// one goroutine and from 8 (the load test's concurrency).
func benchLoadReads(b *testing.B, path func(r *rand.Rand, ids []string) string) {
	for _, st := range stores {
		b.Run(st.name, func(b *testing.B) {
			e, tok, ids := loadEnv(b, st.open)
			get := func(r *rand.Rand) {
				req := httptest.NewRequest("GET", path(r, ids), nil)
				req.Header.Set("Authorization", "Bearer "+tok)
				w := httptest.NewRecorder()
				e.h.ServeHTTP(w, req)
				if w.Code != http.StatusOK {
					b.Fatalf("GET %s: %d %s", req.URL, w.Code, w.Body)
				}
			}
			// Answered from the stored bytes, and decoding the records as
			// before (decodeReads), one after the other in one run.
			for _, mode := range []struct {
				name   string
				decode bool
			}{{"stored", false}, {"decoded", true}} {
				b.Run(mode.name, func(b *testing.B) {
					e.h.decodeReads = mode.decode
					defer func() { e.h.decodeReads = false }()
					b.Run("serial", func(b *testing.B) {
						r := rand.New(rand.NewPCG(1, 2))
						b.ReportAllocs()
						cpu := processCPU()
						for b.Loop() {
							get(r)
						}
						reportCPU(b, cpu)
					})
					b.Run("c8", func(b *testing.B) {
						b.SetParallelism((8 + runtime.GOMAXPROCS(0) - 1) / runtime.GOMAXPROCS(0))
						b.ReportAllocs()
						cpu := processCPU()
						b.RunParallel(func(pb *testing.PB) {
							r := rand.New(rand.NewPCG(rand.Uint64(), 2))
							for pb.Next() {
								get(r)
							}
						})
						reportCPU(b, cpu)
					})
				})
			}
		})
	}
}

// BenchmarkReadOneLoad reads one load-shaped Resource by a random id.
func BenchmarkReadOneLoad(b *testing.B) {
	benchLoadReads(b, func(r *rand.Rand, ids []string) string {
		return "/api/bw/v2/resource/" + ids[r.IntN(len(ids))]
	})
}

// BenchmarkRead50Load reads 50 load-shaped Resources by random ids.
func BenchmarkRead50Load(b *testing.B) {
	benchLoadReads(b, func(r *rand.Rand, ids []string) string {
		picked := make([]string, 50)
		for i := range picked {
			picked[i] = ids[r.IntN(len(ids))]
		}
		return "/api/bw/v2/resource/" + strings.Join(picked, ",")
	})
}
