package transport

import (
	"context"
	"encoding/json"
	"fmt"
	"net/http"
	"net/http/httptest"
	"runtime"
	"runtime/metrics"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/bwcms/cms/cms"
)

// batchBody is a batch of n small Resources in three languages.
func batchBody(n int) string {
	var b strings.Builder
	b.WriteByte('[')
	for i := range n {
		if i > 0 {
			b.WriteByte(',')
		}
		fmt.Fprintf(&b, `{"id":"bat%06d","title":"Resource %d","title_it":"Risorsa %d","title_de":"Ressource %d",`+
			`"published":true,"locationLat":45.%d,"locationLon":9.%d,"htmlContent":"<p>Text %d</p>","resourceCategories":["cat1","cat2"]}`,
			i, i, i, i, i%1000, i%1000, i)
	}
	b.WriteByte(']')
	return b.String()
}

// peakHeap samples the live heap while fn runs and returns its peak.
func peakHeap(fn func()) uint64 {
	sample := []metrics.Sample{{Name: "/memory/classes/heap/objects:bytes"}}
	runtime.GC()
	metrics.Read(sample)
	base := sample[0].Value.Uint64()
	var peak uint64
	stop := make(chan struct{})
	var wg sync.WaitGroup
	wg.Go(func() {
		t := time.NewTicker(5 * time.Millisecond)
		defer t.Stop()
		for {
			metrics.Read(sample)
			if v := sample[0].Value.Uint64(); v > peak {
				peak = v
			}
			select {
			case <-stop:
				return
			case <-t.C:
			}
		}
	})
	fn()
	close(stop)
	wg.Wait()
	if peak < base {
		return 0
	}
	return peak - base
}

// BenchmarkBatch10000 submits a 10,000-record batch through the handler
// and applies it: end-to-end records per second and the peak heap.
func BenchmarkBatch10000(b *testing.B) {
	body := batchBody(batchSize)
	for _, st := range stores {
		b.Run(st.name, func(b *testing.B) {
			benchBatch(b, st.open, body, nil)
		})
	}
}

// BenchmarkBatchFull10000 is BenchmarkBatch10000 with full Resources
// (every field, three languages, about 3 KB each: a 30 MB body).
func BenchmarkBatchFull10000(b *testing.B) {
	for _, st := range stores {
		b.Run(st.name, func(b *testing.B) {
			var body string
			benchBatch(b, st.open, "", func(e *env) string {
				example := storeExample(b, e)
				if body == "" {
					body = fullBatchBody(b, example, batchSize)
				}
				return body
			})
		})
	}
}

// BenchmarkBatchTypical10000 is BenchmarkBatchFull10000 with the full
// Resource in one language: 2.9 KB a record, a 29 MB body, the size of
// the batch the target was set for (about 30 MB for 10,000 records).
func BenchmarkBatchTypical10000(b *testing.B) {
	oneLang := typicalRecord()
	for _, st := range stores {
		b.Run(st.name, func(b *testing.B) {
			var body string
			benchBatch(b, st.open, "", func(e *env) string {
				storeExample(b, e) // the records it refers to
				if body == "" {
					body = fullBatchBody(b, oneLang, batchSize)
				}
				return body
			})
		})
	}
}

var batchSize = 10000

// BenchmarkBatchOnto100000 is BenchmarkBatchTypical10000 on a database
// that already holds 100,000 such Resources on the same Maps (each Map's
// lists 100,000 long), stored by ten batches before the clock runs: a
// batch must cost what it writes, not what is stored.
func BenchmarkBatchOnto100000(b *testing.B) {
	oneLang := typicalRecord()
	for _, st := range stores {
		b.Run(st.name, func(b *testing.B) {
			var body string
			benchBatch(b, st.open, "", func(e *env) string {
				storeExample(b, e)
				tok := e.token("admin")
				for i := range 10 {
					// Made again each round: ten kept would be 280 MB of
					// heap for the garbage collector to walk.
					old := fullBatchBodyOf(b, oneLang, "old", i*batchSize, batchSize)
					serve(b, e.h, newRequest("POST", "/api/bw/v2/resource/batch", old, tok), http.StatusCreated)
					if did, err := e.svc.ProcessBatch(b.Context(), "fill"); !did || err != nil {
						b.Fatalf("fill: %v %v", did, err)
					}
				}
				if body == "" {
					body = fullBatchBody(b, oneLang, batchSize)
				}
				return body
			})
		})
	}
}

// typicalRecord is the body of the full example Resource in one language:
// the record of the typical batch.
func typicalRecord() []byte {
	langs, _ := cms.NewLanguages("en", "en")
	codec, _ := cms.NewCodec(langs)
	return codec.AppendPatch(nil, cms.SampleRecord(cms.KindResource, langs))
}

// BenchmarkBatchSizes measures full-Resource batches of several sizes on
// SQLite: how peak memory grows with the batch.
func BenchmarkBatchSizes(b *testing.B) {
	for _, n := range []int{1000, 2500, 5000, 10000} {
		b.Run(fmt.Sprint(n), func(b *testing.B) {
			var body string
			benchBatchOf(b, openSQLite, n, "", func(e *env) string {
				example := storeExample(b, e)
				if body == "" {
					body = fullBatchBody(b, example, n)
				}
				return body
			})
		})
	}
}

// fullBatchBody is a batch of n copies of a full Resource, each with its
// own id and aliases.
func fullBatchBody(b *testing.B, example []byte, n int) string {
	return fullBatchBodyOf(b, example, "full", 0, n)
}

// fullBatchBodyOf is fullBatchBody with ids prefix+number from first on.
func fullBatchBodyOf(b *testing.B, example []byte, prefix string, first, n int) string {
	var rec map[string]any
	if err := json.Unmarshal(example, &rec); err != nil {
		b.Fatal(err)
	}
	var out strings.Builder
	out.WriteByte('[')
	for i := first; i < first+n; i++ {
		rec["id"] = fmt.Sprintf("%s%05d", prefix, i)
		for k := range rec {
			if strings.HasPrefix(k, "urlAlias") {
				rec[k] = fmt.Sprintf("/%s-%d-%s", prefix, i, k)
			}
		}
		data, err := json.Marshal(rec)
		if err != nil {
			b.Fatal(err)
		}
		if i > first {
			out.WriteByte(',')
		}
		out.Write(data)
	}
	out.WriteByte(']')
	return out.String()
}

// benchBatch times submitting and applying a batch in a new env each
// round; prepare, when set, readies the env and returns the body.
func benchBatch(b *testing.B, open func(testing.TB) cms.Store, body string, prepare func(*env) string) {
	benchBatchOf(b, open, batchSize, body, prepare)
}

// benchBatchOf is benchBatch for a batch of n records.
func benchBatchOf(b *testing.B, open func(testing.TB) cms.Store, n int, body string, prepare func(*env) string) {
	var peak uint64
	var submitted time.Duration // until the 201
	for b.Loop() {
		b.StopTimer()
		e := newEnv(b, envOptions{store: open})
		if prepare != nil {
			body = prepare(e)
		}
		e.token("admin") // logged in (and cached) before the clock runs
		stop := startBatchWorker(e)
		b.StartTimer()
		p := peakHeap(func() { submitted += submitAndWait(b, e, body) })
		b.StopTimer()
		stop()
		b.StartTimer()
		peak = max(peak, p)
	}
	b.ReportMetric(float64(n)*float64(b.N)/b.Elapsed().Seconds(), "records/s")
	b.ReportMetric(float64(peak)/(1<<20), "peak-heap-MB")
	b.ReportMetric(submitted.Seconds()/float64(b.N), "submit-s")
	b.ReportMetric(float64(len(body))/(1<<20), "body-MB")
}

// startBatchWorker runs a worker of the env's service, as the server does,
// until the returned stop.
func startBatchWorker(e *env) (stop func()) {
	ctx, cancel := context.WithCancel(context.Background())
	stopped := make(chan struct{})
	go func() {
		defer close(stopped)
		e.svc.RunBatchWorkers(ctx, 1)
	}()
	return func() {
		cancel()
		<-stopped
	}
}

// submitAndWait submits body as a Resource batch and waits until it is
// done; it returns the time to the 201. The admin's token is cached by
// e.token after its first call.
func submitAndWait(b *testing.B, e *env, body string) time.Duration {
	tok := e.token("admin")
	start := time.Now()
	r := newRequest("POST", "/api/bw/v2/resource/batch", body, tok)
	w := httptest.NewRecorder()
	e.h.ServeHTTP(w, r)
	submitted := time.Since(start)
	if w.Code != 201 {
		b.Fatalf("submit: %d %s", w.Code, w.Body)
	}
	var receipt struct{ BatchID string }
	if err := json.Unmarshal(w.Body.Bytes(), &receipt); err != nil {
		b.Fatal(err)
	}
	for {
		got, err := e.store.GetBatch(b.Context(), "acme", cms.KindResource, receipt.BatchID)
		if err != nil || got.Status == cms.BatchError {
			b.Fatalf("batch: %+v %v", got, err)
		}
		if got.Status == cms.BatchDone {
			return submitted
		}
		time.Sleep(10 * time.Millisecond)
	}
}

// BenchmarkBatchTypicalWrites measures the storage floor of the typical
// batch: the record sets and assignment lists its apply hands the store,
// captured once, written again into a new store in one transaction with
// nothing else running. No decoding, validation or upsert rules: what a
// batch cannot go below on that database.
func BenchmarkBatchTypicalWrites(b *testing.B) {
	oneLang := typicalRecord()
	for _, st := range stores {
		b.Run(st.name, func(b *testing.B) {
			w := &batchWrites{}
			e := newEnv(b, envOptions{store: func(tb testing.TB) cms.Store { return recordingStore{st.open(tb), w} }})
			storeExample(b, e)
			w.sets, w.lists = nil, nil
			stop := startBatchWorker(e)
			submitAndWait(b, e, fullBatchBody(b, oneLang, batchSize))
			stop()
			if len(w.sets) == 0 || len(w.lists) == 0 {
				b.Fatalf("captured %d record sets and %d list sets", len(w.sets), len(w.lists))
			}
			ctx := context.Background()
			for b.Loop() {
				b.StopTimer()
				s := st.open(b)
				b.StartTimer()
				err := s.WithTx(ctx, func(tx cms.Store) error {
					for i, set := range w.sets {
						if err := tx.PutRecords(ctx, set); err != nil {
							return err
						}
						if i < len(w.lists) {
							if err := tx.AppendAssignments(ctx, "acme", cms.KindResource, w.lists[i]); err != nil {
								return err
							}
						}
					}
					return nil
				})
				if err != nil {
					b.Fatal(err)
				}
			}
			b.ReportMetric(float64(batchSize)*float64(b.N)/b.Elapsed().Seconds(), "records/s")
		})
	}
}

// batchWrites keeps the record sets and assignment lists of a batch's
// chunks, in order.
type batchWrites struct {
	mu    sync.Mutex
	sets  [][]*cms.Entry
	lists [][]cms.AssignmentList
}

// recordingStore is a store that keeps every set of records and of
// assignment lists written through it, in or outside a transaction.
type recordingStore struct {
	cms.Store
	w *batchWrites
}

func (r recordingStore) WithTx(ctx context.Context, fn func(cms.Store) error) error {
	return r.Store.WithTx(ctx, func(tx cms.Store) error { return fn(recordingStore{tx, r.w}) })
}

func (r recordingStore) PutRecords(ctx context.Context, entries []*cms.Entry) error {
	r.w.mu.Lock()
	r.w.sets = append(r.w.sets, slices.Clone(entries))
	r.w.mu.Unlock()
	return r.Store.PutRecords(ctx, entries)
}

func (r recordingStore) AppendAssignments(ctx context.Context, account string, owners cms.Kind, lists []cms.AssignmentList) error {
	r.w.mu.Lock()
	r.w.lists = append(r.w.lists, slices.Clone(lists))
	r.w.mu.Unlock()
	return r.Store.AppendAssignments(ctx, account, owners, lists)
}
