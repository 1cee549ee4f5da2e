package transport

import (
	"fmt"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"

	"github.com/bwcms/cms/cms"
)

// benchEnv is an env with a full Resource stored, whose references exist,
// and the admin's token.
func benchEnv(b *testing.B) (*env, string, []byte) {
	e := newEnv(b, envOptions{})
	return e, e.token("admin"), storeExample(b, e)
}

// storeExample stores the full example Resource in e, with the records it
// names, and returns its body.
func storeExample(b *testing.B, e *env) []byte {
	langs, _ := cms.NewLanguages("en", "en", "it", "de")
	codec, _ := cms.NewCodec(langs)
	body := codec.AppendPatch(nil, cms.SampleRecord(cms.KindResource, langs))
	w := e.send("admin", "POST", "/api/bw/v2/resource", string(body), nil)
	for _, m := range missingRef.FindAllStringSubmatch(w.Body.String(), -1) {
		k := map[string]string{"Resource": "resource", "Map": "map", "Map or Landing": "map", "Landing": "landing"}[m[1]]
		e.send("admin", "POST", "/api/bw/v2/"+k, `{"id":"`+m[2]+`"}`, nil)
	}
	if w := e.send("admin", "POST", "/api/bw/v2/resource", string(body), nil); w.Code != 201 {
		b.Fatalf("create: %d %s", w.Code, w.Body)
	}
	return body
}

func serve(b *testing.B, h http.Handler, r *http.Request, want int) {
	w := httptest.NewRecorder()
	h.ServeHTTP(w, r)
	if w.Code != want {
		b.Fatalf("%s %s: %d %s", r.Method, r.URL, w.Code, w.Body)
	}
}

// BenchmarkUpsert is an authenticated update of a full 3-language
// Resource (a title changes each time, so it writes).
func BenchmarkUpsert(b *testing.B) {
	e, tok, body := benchEnv(b)
	full := string(body)
	b.ReportAllocs()
	b.SetBytes(int64(len(body)))
	i := 0
	for b.Loop() {
		i++
		doc := strings.Replace(full, `"title":"`, fmt.Sprintf(`"title":"%d `, i), 1)
		r := httptest.NewRequest("POST", "/api/bw/v2/resource", strings.NewReader(doc))
		r.Header.Set("Authorization", "Bearer "+tok)
		serve(b, e.h, r, http.StatusAccepted)
	}
}

// BenchmarkUpsertSkip posts the stored record unchanged.
func BenchmarkUpsertSkip(b *testing.B) {
	e, tok, body := benchEnv(b)
	b.ReportAllocs()
	for b.Loop() {
		r := httptest.NewRequest("POST", "/api/bw/v2/resource", strings.NewReader(string(body)))
		r.Header.Set("Authorization", "Bearer "+tok)
		serve(b, e.h, r, http.StatusOK)
	}
}

// BenchmarkReadOne reads the full Resource by id, from 2 goroutines.
func BenchmarkReadOne(b *testing.B) {
	e, tok, _ := benchEnv(b)
	id := cms.SampleRecord(cms.KindResource, cms.Languages{Default: "en", All: []string{"en"}}).RecordID()
	b.ReportAllocs()
	b.RunParallel(func(pb *testing.PB) {
		for pb.Next() {
			r := httptest.NewRequest("GET", "/api/bw/v2/resource/"+id, nil)
			r.Header.Set("Authorization", "Bearer "+tok)
			serve(b, e.h, r, http.StatusOK)
		}
	})
}

// manyResources stores n small Resources res00000, res00001, ...
func manyResources(b *testing.B, e *env, n int) {
	ctx := b.Context()
	err := e.store.WithTx(ctx, func(tx cms.Store) error {
		for i := range n {
			rec := &cms.Resource{ID: fmt.Sprintf("res%05d", i), Published: cms.Some(true),
				Title:       cms.Langs[string]{"en": fmt.Sprintf("Resource %d", i), "it": "Risorsa", "de": "Ressource"},
				LocationLat: cms.NullOf(45.0), LocationLon: cms.NullOf(9.0)}
			if err := tx.PutRecord(ctx, &cms.Entry{Account: "acme", Record: rec, Updated: e.clock.Now()}); err != nil {
				return err
			}
		}
		return nil
	})
	if err != nil {
		b.Fatal(err)
	}
}

// BenchmarkRead50 reads 50 Resources by ids.
func BenchmarkRead50(b *testing.B) {
	e, tok, _ := benchEnv(b)
	manyResources(b, e, 50)
	ids := make([]string, 50)
	for i := range ids {
		ids[i] = fmt.Sprintf("res%05d", i)
	}
	path := "/api/bw/v2/resource/" + strings.Join(ids, ",")
	b.ReportAllocs()
	for b.Loop() {
		r := httptest.NewRequest("GET", path, nil)
		r.Header.Set("Authorization", "Bearer "+tok)
		serve(b, e.h, r, http.StatusOK)
	}
}

// BenchmarkStream10000 lists 10,000 Resources through the handler.
func BenchmarkStream10000(b *testing.B) {
	e, tok, _ := benchEnv(b)
	manyResources(b, e, 10000)
	b.ReportAllocs()
	for b.Loop() {
		r := httptest.NewRequest("GET", "/api/bw/v2/resource", nil)
		r.Header.Set("Authorization", "Bearer "+tok)
		w := &countingWriter{header: http.Header{}}
		e.h.ServeHTTP(w, r)
		if w.status != 200 || w.n < 10000*100 {
			b.Fatalf("stream: %d, %d bytes", w.status, w.n)
		}
	}
}

// countingWriter is a ResponseWriter that keeps nothing, so the benchmark
// measures the handler, not a buffer of the whole answer.
type countingWriter struct {
	header http.Header
	status int
	n      int
}

func (c *countingWriter) Header() http.Header { return c.header }
func (c *countingWriter) WriteHeader(s int)   { c.status = s }
func (c *countingWriter) Write(p []byte) (int, error) {
	if c.status == 0 {
		c.status = 200
	}
	c.n += len(p)
	return len(p), nil
}

func newRequest(method, path, body, tok string) *http.Request {
	r := httptest.NewRequest(method, path, strings.NewReader(body))
	r.Header.Set("Authorization", "Bearer "+tok)
	return r
}

func newRecorder() *httptest.ResponseRecorder { return httptest.NewRecorder() }
