package transport

import (
	"fmt"
	"strings"
	"testing"
)

// TestHugeAliasNumbers: an alias given by hand ending in a number too
// large to count on (18, 19, 20 and more digits) blocks no new record of
// its slug: each gets a free alias, singly and in a batch, on both
// databases, and the aliases given by hand are kept.
func TestHugeAliasNumbers(t *testing.T) {
	t.Parallel()
	forEachStore(t, func(t *testing.T, e *env) {
		huge := []string{
			"999999999999999999",                      // 18 digits: the highest counter
			"9223372036854775807",                     // 19: int64's highest
			"9223372036854775808",                     // 19: past int64
			"99999999999999999999",                    // 20
			"123456789012345678901234567890123456789", // 39
		}
		for i, h := range huge {
			if w := e.send("admin", "POST", "/api/bw/v2/resource", fmt.Sprintf(`{"id":"hh%d","urlAlias":"/t-%s"}`, i, h), nil); w.Code != 201 {
				t.Fatalf("/t-%s: %d %s", h, w.Code, w.Body)
			}
		}
		seen := map[string]string{}
		for i, h := range huge {
			seen["/t-"+h] = fmt.Sprintf("hh%d", i)
		}
		// The numbers go on from the highest below the one given by hand.
		check := func(id, want string) {
			t.Helper()
			got := aliasOf(t, e, id, "")
			if got != want {
				t.Errorf("%s: urlAlias %q, want %q", id, got, want)
			}
			if other, ok := seen[got]; ok {
				t.Errorf("%s and %s both hold %q", id, other, got)
			}
			seen[got] = id
		}
		for i := range 3 {
			id := fmt.Sprintf("new%d", i)
			if w := e.send("admin", "POST", "/api/bw/v2/resource", `{"id":"`+id+`","title":"T"}`, nil); w.Code != 201 {
				t.Fatalf("%s: %d %s", id, w.Code, w.Body)
			}
			check(id, []string{"/t", "/t-2", "/t-3"}[i])
		}
		// A title that is itself the highest counter's alias.
		if w := e.send("admin", "POST", "/api/bw/v2/resource", `{"id":"new9","title":"T 999999999999999999"}`, nil); w.Code != 201 {
			t.Fatalf("new9: %d %s", w.Code, w.Body)
		}
		check("new9", "/t-999999999999999999-2")
		recs := make([]string, 300)
		for i := range recs {
			recs[i] = fmt.Sprintf(`{"id":"b%03d","title":"T"}`, i)
		}
		id := submit(t, e, "resource", "["+strings.Join(recs, ",")+"]")
		process(t, e)
		if got := statusOf(t, e, "resource", id); !strings.Contains(got, `"status":"done"`) {
			t.Fatalf("batch: %s", got)
		}
		for i := range recs {
			check(fmt.Sprintf("b%03d", i), fmt.Sprintf("/t-%d", i+4))
		}
		for i, h := range huge {
			if got := aliasOf(t, e, fmt.Sprintf("hh%d", i), ""); got != "/t-"+h {
				t.Errorf("hh%d: urlAlias %q, want /t-%s", i, got, h)
			}
		}
		// A clone of the record holding the highest counter.
		w := e.send("admin", "POST", "/api/bw/v2/resource/clone/hh0", "", nil)
		if w.Code != 201 {
			t.Fatalf("clone: %d %s", w.Code, w.Body)
		}
		if got := aliasOf(t, e, "hh0-copy", ""); got != "/t-999999999999999999-copy" {
			t.Errorf("clone: urlAlias %q", got)
		}
	})
}
