package transport

import (
	"encoding/json"
	"fmt"
	"net/http"
	"net/http/httptest"
	"runtime"
	"strings"
	"sync/atomic"
	"syscall"
	"testing"
	"time"

	"github.com/bwcms/cms/cms"
)

// loadRecord is a Resource body of the load tool's shape: title, short
// description, 2 KB of HTML, location, two Maps, categories, contact.
func loadRecord(id, title string) string {
	html, _ := json.Marshal(loadHTML(2048))
	return `{"id":"` + id + `","title":"` + title + `","shortDescription":"Short description of ` + id +
		`","htmlContent":` + string(html) +
		`,"published":true,"locationLat":45.1,"locationLon":7.6,"locationZoom":12` +
		`,"mapIds":["map-1","map-2"],"resourceCategories":["cat-a","cat-b"]` +
		`,"contactEmail":"contact@example.com","ctaUrl":"https://example.com/r/` + id + `"}`
}

// writeRequest is a request with a context that can end, as a server's
// are: the driver then watches it on every statement.
func writeRequest(b *testing.B, method, path, body, tok string) *http.Request {
	return newRequest(method, path, body, tok).WithContext(b.Context())
}

// processCPU is the CPU time the process has used, user and system: with
// other work on the machine it varies less than the time per operation.
func processCPU() time.Duration {
	var ru syscall.Rusage
	syscall.Getrusage(syscall.RUSAGE_SELF, &ru)
	return time.Duration(ru.Utime.Nano() + ru.Stime.Nano())
}

// reportCPU reports the process's CPU time per operation since start.
func reportCPU(b *testing.B, start time.Duration) {
	b.ReportMetric(float64(processCPU()-start)/float64(b.N)/1e3, "cpu-µs/op")
}

// writeEnv is an env on open with the two Maps the load records name.
func writeEnv(b *testing.B, open func(testing.TB) cms.Store) (*env, string) {
	e := newEnv(b, envOptions{store: open})
	tok := e.token("admin")
	for _, m := range []string{"map-1", "map-2"} {
		r := newRequest("POST", "/api/bw/v2/map", `{"id":"`+m+`","title":"`+m+`","published":true}`, tok)
		serve(b, e.h, r, http.StatusCreated)
	}
	return e, tok
}

// BenchmarkCreate creates a new Resource of the load tool's shape (naming
// two Maps) each time through the handler, from one goroutine and from 8.
func BenchmarkCreate(b *testing.B) {
	for _, st := range stores {
		b.Run(st.name+"/serial", func(b *testing.B) {
			e, tok := writeEnv(b, st.open)
			b.ReportAllocs()
			i := 0
			cpu := processCPU()
			for b.Loop() {
				i++
				id := fmt.Sprintf("new%07d", i)
				serve(b, e.h, writeRequest(b, "POST", "/api/bw/v2/resource", loadRecord(id, "Create "+id), tok), http.StatusCreated)
			}
			reportCPU(b, cpu)
		})
		b.Run(st.name+"/parallel8", func(b *testing.B) {
			e, tok := writeEnv(b, st.open)
			var n atomic.Int64
			b.ReportAllocs()
			b.SetParallelism(max(1, 8/runtime.GOMAXPROCS(0)))
			cpu := processCPU()
			b.RunParallel(func(pb *testing.PB) {
				for pb.Next() {
					id := fmt.Sprintf("new%07d", n.Add(1))
					serve(b, e.h, writeRequest(b, "POST", "/api/bw/v2/resource", loadRecord(id, "Create "+id), tok), http.StatusCreated)
				}
			})
			reportCPU(b, cpu)
		})
	}
}

// BenchmarkUpdateLoad updates one Resource of the load tool's shape with
// a new title each time (the load tool's update scenario).
func BenchmarkUpdateLoad(b *testing.B) {
	for _, st := range stores {
		b.Run(st.name, func(b *testing.B) {
			e, tok := writeEnv(b, st.open)
			serve(b, e.h, writeRequest(b, "POST", "/api/bw/v2/resource", loadRecord("upd", "First"), tok), http.StatusCreated)
			b.ReportAllocs()
			i := 0
			cpu := processCPU()
			for b.Loop() {
				i++
				serve(b, e.h, writeRequest(b, "POST", "/api/bw/v2/resource", loadRecord("upd", fmt.Sprintf("Updated %d", i)), tok), http.StatusAccepted)
			}
			reportCPU(b, cpu)
		})
	}
}

// BenchmarkBatch100 submits a batch of 100 new Resources of the load
// tool's shape and waits until it is done, as the load tool's bulk
// scenario does: its status polled through the handler at once, then
// after 10 ms, the waits growing by half to at most 200 ms.
func BenchmarkBatch100(b *testing.B) {
	for _, st := range stores {
		b.Run(st.name, func(b *testing.B) {
			e, tok := writeEnv(b, st.open)
			stop := startBatchWorker(e)
			defer stop()
			b.ReportAllocs()
			n, polls := 0, 0
			cpu := processCPU()
			for b.Loop() {
				var body strings.Builder
				body.WriteByte('[')
				for i := range 100 {
					if i > 0 {
						body.WriteByte(',')
					}
					n++
					id := fmt.Sprintf("bulk%07d", n)
					body.WriteString(loadRecord(id, "Bulk "+id))
				}
				body.WriteByte(']')
				w := httptest.NewRecorder()
				e.h.ServeHTTP(w, writeRequest(b, "POST", "/api/bw/v2/resource/batch", body.String(), tok))
				if w.Code != http.StatusCreated {
					b.Fatalf("submit: %d %s", w.Code, w.Body)
				}
				var receipt struct{ BatchID string }
				if err := json.Unmarshal(w.Body.Bytes(), &receipt); err != nil {
					b.Fatal(err)
				}
				for wait := 10 * time.Millisecond; ; wait = min(wait*3/2, 200*time.Millisecond) {
					polls++
					w := httptest.NewRecorder()
					e.h.ServeHTTP(w, writeRequest(b, "GET", "/api/bw/v2/resource/batch/"+receipt.BatchID, "", tok))
					var status struct{ Status string }
					if w.Code != http.StatusOK || json.Unmarshal(w.Body.Bytes(), &status) != nil || status.Status == "error" {
						b.Fatalf("status: %d %s", w.Code, w.Body)
					}
					if status.Status == "done" {
						break
					}
					time.Sleep(wait)
				}
			}
			reportCPU(b, cpu)
			b.ReportMetric(float64(polls)/float64(b.N), "polls/op")
		})
	}
}
