package transport

import (
	"context"
	"strings"
	"sync/atomic"
	"testing"

	"github.com/bwcms/cms/cms"
)

// allLanguages is the largest language list an account may have: every
// two-letter code, en first (the default).
func allLanguages(t testing.TB) cms.Languages {
	t.Helper()
	codes := []string{"en"}
	for a := 'a'; a <= 'z'; a++ {
		for b := 'a'; b <= 'z'; b++ {
			if c := string([]rune{a, b}); c != "en" {
				codes = append(codes, c)
			}
		}
	}
	l, err := cms.NewLanguages("en", codes...)
	if err != nil {
		t.Fatal(err)
	}
	return l
}

// TestEveryLanguageCount: an account with every language an account may
// have (676) writes Resources one at a time and in batches, with the
// TRACK rule judged on fields of its last languages (a batch once
// tracked them in 64 bits and panicked from 29 languages on).
func TestEveryLanguageCount(t *testing.T) {
	t.Parallel()
	for _, st := range stores {
		t.Run(st.name, func(t *testing.T) {
			t.Parallel()
			e := newEnv(t, envOptions{store: st.open})
			ctx := t.Context()
			if err := e.svc.CreateAccount(ctx, "babel", allLanguages(t)); err != nil {
				t.Fatal(err)
			}
			if err := e.svc.CreateUser(ctx, cms.NewUser{Name: "poly", Account: "babel", Password: testPassword,
				Perms: []string{"*"}}); err != nil {
				t.Fatal(err)
			}
			runFlow(t, e, []step{
				{name: "single track", user: "poly", method: "POST", path: "/api/bw/v2/resource", status: 201,
					body: `{"id":"one","published":true,"resourceType":"TRACK","trackStart_zz":"Start","trackEnd_zy":"End"}`},
				{name: "single TRACK rule", user: "poly", method: "POST", path: "/api/bw/v2/resource", status: 409,
					body: `{"id":"two","trackStart_zz":"Start"}`,
					want: `{"fail":"Resource two: trackStart_zz: allowed only when resourceType is TRACK"}`},
				{name: "batch TRACK rule on the merged record", user: "poly", method: "POST", path: "/api/bw/v2/resource/batch", status: 409,
					body: `[{"id":"bt1","resourceType":"TRACK","trackEnd_zz":"End"},{"id":"bt2","trackStart_zy":"x"},{"id":"bt1","resourceType":"POI"}]`,
					want: `{"fail":"Resource bt2: trackStart_zy: allowed only when resourceType is TRACK\nResource bt1: trackEnd_zz: allowed only when resourceType is TRACK"}`},
				{name: "batch on a stored track", user: "poly", method: "POST", path: "/api/bw/v2/resource/batch", status: 409,
					body: `[{"id":"one","resourceType":"POI"}]`,
					want: `{"fail":"Resource one: trackStart_zz: allowed only when resourceType is TRACK\nResource one: trackEnd_zy: allowed only when resourceType is TRACK"}`},
			})
			w := e.send("poly", "POST", "/api/bw/v2/resource/batch",
				`[{"id":"bt1","published":true,"resourceType":"TRACK","trackEnd_zz":"End","title_zz":"Zeta"},{"id":"one","trackStart_zz":null,"trackEnd_zy":null,"resourceType":"POI"}]`, nil)
			if w.Code != 201 {
				t.Fatalf("batch: %d %s", w.Code, w.Body)
			}
			id, _ := field(t, w, "batchId").(string)
			process(t, e)
			w = e.send("poly", "GET", "/api/bw/v2/resource/batch/"+id, "", nil)
			if !strings.Contains(w.Body.String(), `"status":"done"`) || !strings.Contains(w.Body.String(), `"created":1,"updated":1`) {
				t.Errorf("batch status: %d %s", w.Code, w.Body)
			}
			runFlow(t, e, []step{
				{user: "poly", method: "GET", path: "/api/bw/v2/resource/bt1/fields/trackEnd_zz,title_zz", status: 200,
					want: `{"id":"bt1","title_zz":"Zeta","trackEnd_zz":"End"}`},
				{user: "poly", method: "GET", path: "/api/bw/v2/resource/one/fields/resourceType,trackStart_zz", status: 200,
					want: `{"id":"one","resourceType":"POI","trackStart_zz":null}`},
			})
		})
	}
}

// panickyAliases is a store whose alias lookups outside transactions
// panic while armed (a batch submit asks them).
type panickyAliases struct {
	cms.Store
	armed *atomic.Bool
}

func (s panickyAliases) AliasHolders(ctx context.Context, account string, kind cms.Kind, lang string, aliases []string) (map[string]string, error) {
	if s.armed.Load() {
		panic("alias lookup exploded at /srv/secret/path")
	}
	return s.Store.AliasHolders(ctx, account, kind, lang, aliases)
}

// TestPanicInBatchSubmit: a panic while a request is answered is a 500
// {"fail":"Internal error"} that shows nothing of it, logged with the
// request and the stack; the handler keeps serving, the same request
// included, and nothing was stored.
func TestPanicInBatchSubmit(t *testing.T) {
	t.Parallel()
	armed := new(atomic.Bool)
	e := newEnv(t, envOptions{store: func(tb testing.TB) cms.Store { return panickyAliases{openSQLite(tb), armed} }})
	body := `[{"id":"pan1","urlAlias":"/pan"}]`
	armed.Store(true)
	w := e.send("admin", "POST", "/api/bw/v2/resource/batch", body, nil)
	if w.Code != 500 || strings.TrimSpace(w.Body.String()) != `{"fail":"Internal error"}` {
		t.Fatalf("panic: %d %s", w.Code, w.Body)
	}
	logs := e.logs.String()
	for _, want := range []string{"panic in handler", "alias lookup exploded", "/api/bw/v2/resource/batch", "method=POST", "goroutine "} {
		if !strings.Contains(logs, want) {
			t.Errorf("log lacks %q: %.2000s", want, logs)
		}
	}
	if did, err := e.svc.ProcessBatch(t.Context(), "test-worker"); did || err != nil {
		t.Errorf("a batch was stored by the request that panicked: %v %v", did, err)
	}
	armed.Store(false)
	id := submit(t, e, "resource", body)
	process(t, e)
	if got := statusOf(t, e, "resource", id); !strings.Contains(got, `"status":"done"`) {
		t.Errorf("the same request after the panic: %s", got)
	}
}
