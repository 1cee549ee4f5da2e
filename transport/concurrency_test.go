package transport

import (
	"fmt"
	"strings"
	"sync"
	"testing"
)

// TestConcurrentUpserts: 8 writers change different fields of one record
// at once, 10 times each; every last value is kept (no lost update), and
// concurrent creates of one new record give one Create.
func TestConcurrentUpserts(t *testing.T) {
	t.Parallel()
	forEachStore(t, func(t *testing.T, e *env) {
		if w := e.send("admin", "POST", "/api/bw/v2/resource", `{"id":"shared"}`, nil); w.Code != 201 {
			t.Fatal(w.Code, w.Body)
		}
		fields := []string{"title", "title_it", "title_de", "multimediaTitle", "contactCity", "contactPhone", "resourceType", "contactAddress"}
		tok := e.token("admin")
		var wg sync.WaitGroup
		for _, f := range fields {
			wg.Go(func() {
				for i := range 10 {
					r := newRequest("POST", "/api/bw/v2/resource", fmt.Sprintf(`{"id":"shared","%s":"%s %d"}`, f, f, i), tok)
					w := newRecorder()
					e.h.ServeHTTP(w, r)
					if w.Code != 202 {
						t.Errorf("%s %d: %d %s", f, i, w.Code, w.Body)
					}
				}
			})
		}
		wg.Wait()
		w := e.send("admin", "GET", "/api/bw/v2/resource/shared/published/*/fields/"+strings.Join(fields, ","), "", nil)
		for _, f := range fields {
			if got, _ := field(t, w, f).(string); got != f+" 9" {
				t.Errorf("%s = %q, want %q (lost update)", f, got, f+" 9")
			}
		}
		// Concurrent creates of one id: exactly one Create.
		codes := make(chan int, 8)
		for range 8 {
			wg.Go(func() {
				w := newRecorder()
				e.h.ServeHTTP(w, newRequest("POST", "/api/bw/v2/map", `{"id":"fresh","title":"Same"}`, tok))
				codes <- w.Code
			})
		}
		wg.Wait()
		close(codes)
		created := 0
		for c := range codes {
			switch c {
			case 201:
				created++
			case 200:
			default:
				t.Errorf("concurrent create: %d", c)
			}
		}
		if created != 1 {
			t.Errorf("%d creates of one record, want 1", created)
		}
	})
}
