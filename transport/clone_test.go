package transport

import (
	"fmt"
	"strings"
	"testing"
)

// TestCloneAfterThousandCopies: a record with -copy to -copy-1000 taken
// is cloned to -copy-1001; 409 Not cloned only when no number fits in
// 80 characters.
func TestCloneAfterThousandCopies(t *testing.T) {
	t.Parallel()
	forEachStore(t, func(t *testing.T, e *env) {
		recs := []string{`{"id":"src","title":"Src"}`, `{"id":"src-copy","urlAlias":"/held-copy"}`}
		for i := 2; i <= 1000; i++ {
			recs = append(recs, fmt.Sprintf(`{"id":"src-copy-%d","urlAlias":"/held-%d"}`, i, i))
		}
		id := submit(t, e, "resource", "["+strings.Join(recs, ",")+"]")
		process(t, e)
		if got := statusOf(t, e, "resource", id); !strings.Contains(got, `"status":"done"`) {
			t.Fatalf("batch: %s", got)
		}
		runFlow(t, e, []step{
			{user: "admin", method: "POST", path: "/api/bw/v2/resource/clone/src", status: 201,
				want: `{"done":"Cloned Resource src to Resource src-copy-1001","id":"src-copy-1001"}`},
			{user: "admin", method: "GET", path: "/api/bw/v2/resource/clone/src", status: 201,
				want: `{"done":"Cloned Resource src to Resource src-copy-1002","id":"src-copy-1002"}`},
		})
		// 72 characters: -copy-2 to -copy-99 fit in 80, -copy-100 does not.
		long := strings.Repeat("y", 72)
		recs = []string{`{"id":"` + long + `"}`, `{"id":"` + long + `-copy"}`}
		for i := 2; i <= 99; i++ {
			recs = append(recs, fmt.Sprintf(`{"id":"%s-copy-%d"}`, long, i))
		}
		id = submit(t, e, "resource", "["+strings.Join(recs, ",")+"]")
		process(t, e)
		if got := statusOf(t, e, "resource", id); !strings.Contains(got, `"status":"done"`) {
			t.Fatalf("batch: %s", got)
		}
		runFlow(t, e, []step{
			{user: "admin", method: "POST", path: "/api/bw/v2/resource/clone/" + long, status: 409,
				want: `{"fail":"Not cloned Resource ` + long + `"}`},
		})
		w := e.send("admin", "DELETE", "/api/bw/v2/resource/"+long+"-copy-50", "", nil)
		if w.Code != 202 {
			t.Fatal(w.Code, w.Body)
		}
		runFlow(t, e, []step{
			{user: "admin", method: "POST", path: "/api/bw/v2/resource/clone/" + long, status: 201,
				want: `{"done":"Cloned Resource ` + long + ` to Resource ` + long + `-copy-50","id":"` + long + `-copy-50"}`},
		})
	})
}
