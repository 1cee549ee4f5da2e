package transport

import (
	"fmt"
	"net/http"
	"strings"
	"testing"
)

// BenchmarkAssignToLargeMap: creating a Resource assigned to a Map, and
// updating one that a Map holds, against Maps of 100 and of 10,000
// Resources. A write that names a Map appends to its list and touches it;
// it must not read or rewrite the whole list, so both sizes should cost
// the same.
func BenchmarkAssignToLargeMap(b *testing.B) {
	for _, st := range stores {
		for _, size := range []int{100, 10000} {
			b.Run(fmt.Sprintf("%s/map=%d", st.name, size), func(b *testing.B) {
				e := newEnv(b, envOptions{store: st.open})
				tok := e.token("admin")
				serve(b, e.h, newRequest("POST", "/api/bw/v2/map", `{"id":"big-map"}`, tok), http.StatusCreated)
				var batch strings.Builder
				batch.WriteString("[")
				for i := range size {
					if i > 0 {
						batch.WriteString(",")
					}
					fmt.Fprintf(&batch, `{"id":"held-%05d","title":"Held %d","mapIdsAdd":["big-map"]}`, i, i)
				}
				batch.WriteString("]")
				serve(b, e.h, newRequest("POST", "/api/bw/v2/resource/batch", batch.String(), tok), http.StatusCreated)
				if did, err := e.svc.ProcessBatch(b.Context(), "bench"); !did || err != nil {
					b.Fatalf("fill: %v %v", did, err)
				}
				b.Run("create", func(b *testing.B) {
					b.ReportAllocs()
					i := 0
					for b.Loop() {
						i++
						body := fmt.Sprintf(`{"id":"new-%07d","title":"New","mapIds":["big-map"]}`, i)
						serve(b, e.h, newRequest("POST", "/api/bw/v2/resource", body, tok), http.StatusCreated)
					}
				})
				b.Run("update", func(b *testing.B) {
					b.ReportAllocs()
					i := 0
					for b.Loop() {
						i++
						body := fmt.Sprintf(`{"id":"held-00050","title":"Held %d"}`, i)
						serve(b, e.h, newRequest("POST", "/api/bw/v2/resource", body, tok), http.StatusAccepted)
					}
				})
			})
		}
	}
}
