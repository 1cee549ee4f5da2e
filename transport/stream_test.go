package transport

import (
	"encoding/json"
	"fmt"
	"net/http"
	"net/http/httptest"
	"runtime"
	"runtime/debug"
	"runtime/metrics"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/bwcms/cms/cms"
)

// largestResource is a Resource of acme (en, it, de) holding every text
// field, in every language, at its largest allowed size (about 330 KB
// stored): the URL fields at 2,000 characters, multimedia at 100 of them.
func largestResource(id string) *cms.Resource {
	text := func(n int) string { return strings.Repeat("x", n) }
	langs := func(n int) cms.Langs[cms.Null[string]] {
		return cms.Langs[cms.Null[string]]{"en": cms.NullOf(text(n)), "it": cms.NullOf(text(n)), "de": cms.NullOf(text(n))}
	}
	gallery := make([]string, 100)
	for i := range gallery {
		gallery[i] = imageURL(2000)
	}
	return &cms.Resource{
		ID: id, Published: cms.Some(true),
		Title:            cms.Langs[string]{"en": text(100), "it": text(100), "de": text(100)},
		ShortDescription: langs(160), HTMLDescription: langs(1000), HTMLContent: langs(32000), OpeningTimes: langs(2000),
		Image: cms.NullOf(imageURL(2000)), Multimedia: cms.NullOf(gallery),
		ContactURL: cms.NullOf("https://x.org/" + text(1986)), CTAURL: cms.NullOf("https://x.org/" + text(1986)),
	}
}

// storeLargest stores n largest Resources in acme, lr-0000 ..., in one
// transaction, beside small ones (sr-0000 ...) every seventh id, so a read
// mixes records read with their group and records read alone.
func storeLargest(tb testing.TB, e *env, n int) []string {
	tb.Helper()
	ids := make([]string, 0, n)
	err := e.store.WithTx(tb.Context(), func(tx cms.Store) error {
		for i := range n {
			var rec cms.Record = largestResource(fmt.Sprintf("lr-%04d", i))
			if i%7 == 3 {
				rec = &cms.Resource{ID: fmt.Sprintf("sr-%04d", i), Published: cms.Some(true), Title: cms.Langs[string]{"en": "small"}}
			}
			if err := tx.PutRecord(tb.Context(), &cms.Entry{Account: "acme", Record: rec, Updated: e.clock.Now()}); err != nil {
				return err
			}
			ids = append(ids, rec.RecordID())
		}
		return nil
	})
	if err != nil {
		tb.Fatal(err)
	}
	return ids
}

// discard is a ResponseWriter keeping the status and the answer's first
// and last bytes, so a measured read holds no copy of its answer.
type discard struct {
	header     http.Header
	status     int
	n          int
	head, tail []byte
	flushes    int
}

func (d *discard) Header() http.Header { return d.header }
func (d *discard) WriteHeader(status int) {
	if d.status == 0 {
		d.status = status
	}
}
func (d *discard) Flush() { d.flushes++ }
func (d *discard) Write(p []byte) (int, error) {
	d.WriteHeader(http.StatusOK)
	if len(d.head) < 4096 {
		d.head = append(d.head, p[:min(len(p), 4096-len(d.head))]...)
	}
	d.tail = append(d.tail[:0], p[max(0, len(p)-64):]...)
	d.n += len(p)
	return len(p), nil
}

// peakHeapRead answers GET path for admin into a discard, sampling the
// heap's live objects every 200 µs meanwhile; it returns the answer and
// the peak growth over the heap before the read, in bytes.
func peakHeapRead(tb testing.TB, e *env, path string) (*discard, uint64) {
	sample := []metrics.Sample{{Name: "/memory/classes/heap/objects:bytes"}}
	read := func() uint64 { metrics.Read(sample); return sample[0].Value.Uint64() }
	r := httptest.NewRequest(http.MethodGet, path, nil)
	r.Header.Set("Authorization", "Bearer "+e.token("admin"))
	runtime.GC()
	base := read()
	var peak uint64
	stop := make(chan struct{})
	var wg sync.WaitGroup
	wg.Go(func() {
		t := time.NewTicker(200 * time.Microsecond)
		defer t.Stop()
		for {
			peak = max(peak, read())
			select {
			case <-stop:
				return
			case <-t.C:
			}
		}
	})
	d := &discard{header: http.Header{}}
	e.h.ServeHTTP(d, r)
	close(stop)
	wg.Wait()
	peak = max(peak, read())
	if peak < base {
		return d, 0
	}
	return d, peak - base
}

// TestReadByIDsStreams: a read of many ids of the largest allowed records
// streams like a list (DECISIONS §13): the heap grows by far less than the
// records take (here 120 of about 330 KB, 40 MB), whatever the number of
// ids; the answer keeps the order asked, leaves out missing ids and gives
// a repeated id once; no record found is 404 and every read option holds.
//
// Not parallel, the databases one after the other: the heap measured is
// the process's.
func TestReadByIDsStreams(t *testing.T) {
	defer debug.SetGCPercent(debug.SetGCPercent(10)) // the peak is what is held, not the collector's pacing
	for _, st := range stores {
		t.Run(st.name, func(t *testing.T) { testReadByIDsStreams(t, newEnv(t, envOptions{store: st.open})) })
	}
}

func testReadByIDsStreams(t *testing.T, e *env) {
	const n = 120
	ids := storeLargest(t, e, n)
	// Reversed, with missing ids between, one id twice.
	asked := []string{"none-1"}
	for i := len(ids) - 1; i >= 0; i-- {
		asked = append(asked, ids[i])
		if i%10 == 0 {
			asked = append(asked, fmt.Sprintf("none-%d", i+2))
		}
	}
	asked = append(asked, ids[5])
	path := "/api/bw/v2/resource/" + strings.Join(asked, ",")
	d, grew := peakHeapRead(t, e, path)
	t.Logf("%s: %d records, %.1f MB answered, heap grew by %.1f MB at most", path[:40], n, float64(d.n)/(1<<20), float64(grew)/(1<<20))
	if d.status != 200 || !strings.HasPrefix(string(d.head), `[{"id":"`+ids[n-1]+`"`) || string(d.tail[len(d.tail)-2:]) != "]\n" {
		t.Fatalf("read: %d %.80s ... %q", d.status, d.head, d.tail)
	}
	if bound := uint64(24 << 20); grew > bound {
		t.Errorf("the heap grew by %.1f MB while reading %d ids (bound %d MB): the read holds its records", float64(grew)/(1<<20), n, bound>>20)
	}

	// A list of the same records streams alike.
	d, grew = peakHeapRead(t, e, "/api/bw/v2/resource/published/*")
	t.Logf("list: %.1f MB answered, heap grew by %.1f MB at most", float64(d.n)/(1<<20), float64(grew)/(1<<20))
	if d.status != 200 || !strings.HasPrefix(string(d.head), `[{"id":"`+ids[0]+`"`) {
		t.Fatalf("list: %d %.80s", d.status, d.head)
	}
	if bound := uint64(24 << 20); grew > bound {
		t.Errorf("the heap grew by %.1f MB while listing %d records (bound %d MB): the list holds its records", float64(grew)/(1<<20), n, bound>>20)
	}

	// The answer itself, with /fields to keep it short.
	w := e.send("admin", "GET", path+"/fields/title", "", nil)
	var got []struct{ ID string }
	if err := json.Unmarshal(w.Body.Bytes(), &got); err != nil || w.Code != 200 {
		t.Fatalf("read /fields/title: %d %v %.200s", w.Code, err, w.Body)
	}
	var order []string
	for _, r := range got {
		order = append(order, r.ID)
	}
	var want []string
	for i := len(ids) - 1; i >= 0; i-- {
		want = append(want, ids[i])
	}
	if strings.Join(order, ",") != strings.Join(want, ",") {
		t.Errorf("order:\n got %v\nwant %v", order, want)
	}
	// Missing first, then one found: 200 with it; none found: 404.
	if w := e.send("admin", "GET", "/api/bw/v2/resource/none-1,none-2,"+ids[3]+"/ignoreFields/htmlContent", "", nil); w.Code != 200 ||
		!strings.HasPrefix(w.Body.String(), `[{"id":"`+ids[3]+`"`) || strings.Count(w.Body.String(), `"id":`) != 1 {
		t.Errorf("one found after missing ones: %d %.100s", w.Code, w.Body)
	}
	for _, p := range []string{"none-1,none-2", "none-1", ids[0] + "," + ids[1] + "/published/0", ids[2] + "/published/0"} {
		if w := e.send("admin", "GET", "/api/bw/v2/resource/"+p, "", nil); w.Code != 404 || w.Body.String() != `{"fail":"ERROR: Export fail"}`+"\n" {
			t.Errorf("%s: %d %q, want 404 Export fail", p, w.Code, w.Body)
		}
	}
	if w := e.send("admin", "GET", "/api/bw/v2/resource/"+ids[0]+","+ids[1]+","+ids[2]+"/limit/2/excludeFiles", "", nil); w.Code != 200 ||
		strings.Count(w.Body.String(), `"id":`) != 2 || strings.Contains(w.Body.String(), `"multimedia"`) {
		t.Errorf("/limit/2/excludeFiles: %d %.100s", w.Code, w.Body)
	}
	// A single read keeps its ETag and 304.
	one := e.send("admin", "GET", "/api/bw/v2/resource/"+ids[0], "", nil)
	if one.Code != 200 || one.Header().Get("ETag") == "" {
		t.Fatalf("single read: %d", one.Code)
	}
	if w := e.send("admin", "GET", "/api/bw/v2/resource/"+ids[0], "", map[string]string{"If-None-Match": one.Header().Get("ETag")}); w.Code != 304 {
		t.Errorf("If-None-Match: %d", w.Code)
	}
}

// BenchmarkReadByIDsPeakHeap reads 10 and 1,000 ids of the largest allowed
// Resources (about 330 KB stored each, 330 MB in all) and reports the
// peak growth of the heap's live objects while the answer streams
// (peak-heap-MB), beside the answer's size: the peak does not grow with
// the number of ids.
func BenchmarkReadByIDsPeakHeap(b *testing.B) {
	for _, st := range stores {
		b.Run(st.name, func(b *testing.B) {
			// Garbage is collected soon, so the peak is what the read
			// holds rather than the collector's pacing.
			defer debug.SetGCPercent(debug.SetGCPercent(10))
			e := newEnv(b, envOptions{store: st.open})
			ids := storeLargest(b, e, 1000)
			for _, n := range []int{10, 1000} {
				b.Run(fmt.Sprintf("ids=%d", n), func(b *testing.B) {
					path := "/api/bw/v2/resource/" + strings.Join(ids[:n], ",")
					var peak uint64
					var answered int
					for b.Loop() {
						d, grew := peakHeapRead(b, e, path)
						if d.status != 200 {
							b.Fatalf("%d", d.status)
						}
						peak, answered = max(peak, grew), d.n
					}
					b.ReportMetric(float64(peak)/(1<<20), "peak-heap-MB")
					b.ReportMetric(float64(answered)/(1<<20), "answer-MB")
				})
			}
		})
	}
}
