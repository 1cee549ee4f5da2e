package transport

import (
	"context"
	"fmt"
	"slices"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"testing"

	"github.com/bwcms/cms/cms"
)

// aliasOf reads the urlAlias of a Resource (any published state).
func aliasOf(t *testing.T, e *env, id, lang string) string {
	t.Helper()
	name := "urlAlias"
	if lang != "" {
		name += "_" + lang
	}
	w := e.send("admin", "GET", "/api/bw/v2/resource/"+id+"/published/*", "", nil)
	if w.Code != 200 {
		t.Fatalf("read %s: %d %s", id, w.Code, w.Body)
	}
	alias, _ := field(t, w, name).(string)
	return alias
}

// postAtOnce sends n POSTs of body(i) as the admin at once and returns
// each answer's status and body (trimmed).
func postAtOnce(e *env, path string, n int, body func(i int) string) ([]int, []string) {
	tok := e.token("admin")
	codes, bodies := make([]int, n), make([]string, n)
	var wg sync.WaitGroup
	for i := range n {
		wg.Go(func() {
			w := newRecorder()
			e.h.ServeHTTP(w, newRequest("POST", path, body(i), tok))
			codes[i], bodies[i] = w.Code, strings.TrimSpace(w.Body.String())
		})
	}
	wg.Wait()
	return codes, bodies
}

// numberedAliases is /base, /base-2, ..., /base-n.
func numberedAliases(base string, n int) []string {
	out := []string{base}
	for i := 2; i <= n; i++ {
		out = append(out, base+"-"+strconv.Itoa(i))
	}
	return out
}

// TestConcurrentCreatesOneTitle: 20 new records with one title, created
// at once, are all created, and their generated aliases are /t, /t-2, ...,
// /t-20: a writer whose number another took meanwhile takes the next.
func TestConcurrentCreatesOneTitle(t *testing.T) {
	t.Parallel()
	forEachStore(t, func(t *testing.T, e *env) {
		const n = 20
		codes, bodies := postAtOnce(e, "/api/bw/v2/resource", n, func(i int) string {
			return fmt.Sprintf(`{"id":"same-%02d","title":"T"}`, i)
		})
		var got []string
		for i := range n {
			if codes[i] != 201 {
				t.Errorf("create same-%02d: %d %s", i, codes[i], bodies[i])
				continue
			}
			got = append(got, aliasOf(t, e, fmt.Sprintf("same-%02d", i), ""))
		}
		if want := numberedAliases("/t", n); !sameSet(got, want) {
			t.Errorf("aliases %v, want %v", got, want)
		}
	})
}

// TestConcurrentCreatesOneAlias: 20 new records given one urlAlias at
// once: one is created, every other gets the 409 problem naming it.
func TestConcurrentCreatesOneAlias(t *testing.T) {
	t.Parallel()
	forEachStore(t, func(t *testing.T, e *env) {
		const n = 20
		codes, bodies := postAtOnce(e, "/api/bw/v2/resource", n, func(i int) string {
			return fmt.Sprintf(`{"id":"given-%02d","urlAlias":"/same"}`, i)
		})
		winner := ""
		for i, c := range codes {
			if c == 201 {
				if winner != "" {
					t.Errorf("given-%02d and %s both created with /same", i, winner)
				}
				winner = fmt.Sprintf("given-%02d", i)
			}
		}
		if winner == "" {
			t.Fatalf("none created: %v %v", codes, bodies)
		}
		for i, c := range codes {
			id := fmt.Sprintf("given-%02d", i)
			if id == winner {
				continue
			}
			want := `{"fail":"Resource ` + id + `: urlAlias: /same is already used by Resource ` + winner + `"}`
			if c != 409 || bodies[i] != want {
				t.Errorf("%s: %d %s, want 409 %s", id, c, bodies[i], want)
			}
			if w := e.send("admin", "GET", "/api/bw/v2/resource/"+id+"/published/*", "", nil); w.Code != 404 {
				t.Errorf("refused %s stored: %d %s", id, w.Code, w.Body)
			}
		}
		if got := aliasOf(t, e, winner, ""); got != "/same" {
			t.Errorf("winner's alias %q", got)
		}
	})
}

func sameSet(got, want []string) bool {
	return slices.Equal(slices.Sorted(slices.Values(got)), slices.Sorted(slices.Values(want)))
}

// aliasQuestions counts what a store is asked about aliases.
type aliasQuestions struct {
	cms.Store
	n *atomic.Int32
}

func (s aliasQuestions) WithTx(ctx context.Context, fn func(tx cms.Store) error) error {
	return s.Store.WithTx(ctx, func(tx cms.Store) error { return fn(aliasQuestions{tx, s.n}) })
}

func (s aliasQuestions) AliasHolder(ctx context.Context, account string, kind cms.Kind, lang, alias string) (string, error) {
	s.n.Add(1)
	return s.Store.AliasHolder(ctx, account, kind, lang, alias)
}

func (s aliasQuestions) AliasHolders(ctx context.Context, account string, kind cms.Kind, lang string, aliases []string) (map[string]string, error) {
	s.n.Add(1)
	return s.Store.AliasHolders(ctx, account, kind, lang, aliases)
}

func (s aliasQuestions) AliasNumbers(ctx context.Context, p cms.AliasNumberParams) (map[string]int64, error) {
	s.n.Add(1)
	return s.Store.AliasNumbers(ctx, p)
}

// TestManyRecordsOneTitle: a batch of 10,000 new records with one title
// is done, with /t, /t-2, ..., /t-10000, asking the store about aliases a
// few times a chunk; the 10,001st record, created alone, gets /t-10001
// asking what the second record asks.
func TestManyRecordsOneTitle(t *testing.T) {
	t.Parallel()
	for _, st := range stores {
		t.Run(st.name, func(t *testing.T) {
			t.Parallel()
			asked := new(atomic.Int32)
			e := newEnv(t, envOptions{store: func(tb testing.TB) cms.Store { return aliasQuestions{st.open(tb), asked} }})
			asked.Store(0)
			if w := e.send("admin", "POST", "/api/bw/v2/resource", `{"id":"first","title":"T","title_it":"T","title_de":"T"}`, nil); w.Code != 201 {
				t.Fatal(w.Code, w.Body)
			}
			firstCost := asked.Swap(0)
			if w := e.send("admin", "POST", "/api/bw/v2/resource", `{"id":"second","title":"T","title_it":"T","title_de":"T"}`, nil); w.Code != 201 {
				t.Fatal(w.Code, w.Body)
			}
			secondCost := asked.Load()
			if got := aliasOf(t, e, "second", ""); got != "/t-2" {
				t.Fatalf("second: %q", got)
			}
			if w := e.send("admin", "DELETE", "/api/bw/v2/resource/first,second", "", nil); w.Code != 202 {
				t.Fatal(w.Code, w.Body)
			}

			const n = 10000
			recs := make([]string, n)
			for i := range n {
				recs[i] = fmt.Sprintf(`{"id":"t%05d","title":"T"}`, i+1)
			}
			id := submit(t, e, "resource", "["+strings.Join(recs, ",")+"]")
			asked.Store(0)
			process(t, e)
			if got := statusOf(t, e, "resource", id); !strings.Contains(got, `"status":"done"`) || !strings.Contains(got, `"created":10000`) {
				t.Fatalf("status: %s", got)
			}
			// The chunks' set look-ups (a few a language and chunk of
			// 256), not one a record.
			t.Logf("%d alias questions for %d records", asked.Load(), n)
			if got := asked.Load(); got > 3*3*(n/256+1) {
				t.Errorf("%d alias questions for %d records", got, n)
			}
			for _, i := range []int{1, 2, 3, 256, 257, 1000, 1001, 5000, 9999, 10000} {
				want := "/t"
				if i > 1 {
					want += "-" + strconv.Itoa(i)
				}
				if got := aliasOf(t, e, fmt.Sprintf("t%05d", i), ""); got != want {
					t.Errorf("t%05d: urlAlias %q, want %q", i, got, want)
				}
			}
			var got []string
			for e, err := range e.store.ListRecords(t.Context(), cms.ListParams{Account: "acme", Kind: cms.KindResource, Published: cms.PublishedAny}) {
				if err != nil {
					t.Fatal(err)
				}
				got = append(got, e.Record.(*cms.Resource).URLAlias["en"])
			}
			if !sameSet(got, numberedAliases("/t", n)) {
				t.Errorf("%d aliases stored, not /t to /t-%d", len(got), n)
			}

			// One more, alone: what the second record cost, whatever the
			// number of records before it.
			asked.Store(0)
			if w := e.send("admin", "POST", "/api/bw/v2/resource", `{"id":"last","title":"T","title_it":"T","title_de":"T"}`, nil); w.Code != 201 {
				t.Fatal(w.Code, w.Body)
			}
			if got := aliasOf(t, e, "last", ""); got != "/t-10001" {
				t.Errorf("the 10,001st: %q, want /t-10001", got)
			}
			if got := asked.Load(); got != secondCost || got > 2*firstCost {
				t.Errorf("the 10,001st record asked %d alias questions, the second %d, the first %d", got, secondCost, firstCost)
			}
		})
	}
}

// TestThousandAndFirstTitle: the 1,001st record with one title, created
// alone, is created, with /t-1001.
func TestThousandAndFirstTitle(t *testing.T) {
	t.Parallel()
	forEachStore(t, func(t *testing.T, e *env) {
		recs := make([]string, 1000)
		for i := range recs {
			recs[i] = fmt.Sprintf(`{"id":"k%04d","title":"T"}`, i+1)
		}
		id := submit(t, e, "resource", "["+strings.Join(recs, ",")+"]")
		process(t, e)
		if got := statusOf(t, e, "resource", id); !strings.Contains(got, `"status":"done"`) {
			t.Fatalf("status: %s", got)
		}
		w := e.send("admin", "POST", "/api/bw/v2/resource", `{"id":"k1001","title":"T"}`, nil)
		if w.Code != 201 {
			t.Fatalf("the 1,001st: %d %s", w.Code, w.Body)
		}
		if got := aliasOf(t, e, "k1001", ""); got != "/t-1001" {
			t.Errorf("the 1,001st: %q, want /t-1001", got)
		}
	})
}

// TestCloneNumbersAlias: a clone whose -copy alias and its next numbers
// are taken gets the next free number after the highest.
func TestCloneNumbersAlias(t *testing.T) {
	t.Parallel()
	forEachStore(t, func(t *testing.T, e *env) {
		for _, body := range []string{
			`{"id":"src","title":"Src","urlAlias":"/src","urlAlias_it":"/src-it"}`,
			`{"id":"hold1","urlAlias":"/src-copy"}`,
			`{"id":"hold2","urlAlias":"/src-copy-2"}`,
			`{"id":"hold3","urlAlias":"/src-copy-5"}`,
		} {
			if w := e.send("admin", "POST", "/api/bw/v2/resource", body, nil); w.Code != 201 {
				t.Fatalf("%s: %d %s", body, w.Code, w.Body)
			}
		}
		for i, want := range []string{"/src-copy-6", "/src-copy-7"} {
			w := e.send("admin", "POST", "/api/bw/v2/resource/clone/src", "", nil)
			if w.Code != 201 {
				t.Fatalf("clone %d: %d %s", i, w.Code, w.Body)
			}
			newID, _ := field(t, w, "id").(string)
			if got := aliasOf(t, e, newID, ""); got != want {
				t.Errorf("clone %s: urlAlias %q, want %q", newID, got, want)
			}
			wantIt := "/src-it-copy"
			if i > 0 {
				wantIt += "-2"
			}
			if got := aliasOf(t, e, newID, "it"); got != wantIt {
				t.Errorf("clone %s: urlAlias_it %q, want %q", newID, got, wantIt)
			}
		}
	})
}

// TestAliasNumbersUsedUp: a base whose last number is taken (only aliases
// given by hand can do that) still gives a new record that needs a number
// a free one: the next after the highest below.
func TestAliasNumbersUsedUp(t *testing.T) {
	t.Parallel()
	e := newEnv(t, envOptions{})
	runFlow(t, e, []step{
		{user: "admin", method: "POST", path: "/api/bw/v2/resource", body: `{"id":"big1","urlAlias":"/x"}`, status: 201},
		{user: "admin", method: "POST", path: "/api/bw/v2/resource", body: `{"id":"big2","urlAlias":"/x-999999999999999999"}`, status: 201},
		{user: "admin", method: "POST", path: "/api/bw/v2/resource", body: `{"id":"big4","urlAlias":"/x-999999999999999998"}`, status: 201},
		{user: "admin", method: "POST", path: "/api/bw/v2/resource", body: `{"id":"big3","title":"X"}`, status: 201},
	})
	if got := aliasOf(t, e, "big3", ""); got != "/x-2" {
		t.Errorf("big3: urlAlias %q, want /x-2", got)
	}
}
