package transport

import (
	"cmp"
	"context"
	"encoding/json"
	"fmt"
	"log/slog"
	"maps"
	"regexp"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/bwcms/cms/cms"
)

// The batch apply path (cms/batchview.go) answers upsertIn's reads from data
// prefetched per chunk of 256 records and flushes its writes once a chunk,
// so it could drift from single upserts in ways unit tests of either side
// do not see. TestBatchEquivalence is a differential test: for each
// scenario, one env receives the records as one batch and another as single
// upserts in the same order, and every stored record, read back through the
// API, must be the same. Batches hold about 300 records where a chunk
// boundary matters, and the special records sit on both sides of it.
// Each batch is applied twice, in envs of their own: by a worker step
// that decodes its stored body, and by a running worker that takes the
// records its submit decoded (the handoff).

// upsert is one single upsert of a scenario's setup.
type upsert struct{ kind, body string }

// equivCase is one scenario of TestBatchEquivalence.
type equivCase struct {
	name  string
	setup []upsert // applied singly to every env first; each must succeed
	kind  string   // kind of the batch
	batch []string // the batch's records (JSON objects), in order
	// fails: some single upsert of the batch is refused, so the batch must
	// end in error and apply nothing.
	fails bool
	// refused: the refusal is found when the batch is submitted (a 409
	// with the refused upsert's problems, nothing queued), not when it is
	// applied.
	refused bool
	// problem, when set, is what the 409 of a refused batch holds in place
	// of the refused single upsert's text (a delete's answer is no
	// problem list).
	problem string
}

func TestBatchEquivalence(t *testing.T) {
	t.Parallel()
	for _, st := range stores {
		for _, c := range equivCases() {
			t.Run(st.name+"/"+c.name, func(t *testing.T) {
				t.Parallel()
				fresh := func() *env {
					e := newEnv(t, envOptions{store: st.open})
					applySetup(t, e, c.setup)
					return e
				}
				a, b := fresh(), fresh()
				singly := applySingly(t, b, c.kind, c.batch)
				if c.refused {
					w := a.send("admin", "POST", "/api/bw/v2/"+c.kind+"/batch", "["+strings.Join(c.batch, ",")+"]", nil)
					fail, _ := field(t, w, "fail").(string)
					want := cmp.Or(c.problem, singly.firstFail)
					if w.Code != 409 || singly.firstFail == "" || !strings.Contains(fail, want) {
						t.Fatalf("batch: %d %s; want a 409 with %q (the refused single upsert's %q)", w.Code, w.Body, want, singly.firstFail)
					}
					if did, err := a.svc.ProcessBatch(t.Context(), "w"); did || err != nil {
						t.Errorf("a refused batch was queued: %v %v", did, err)
					}
					sameRecords(t, "batch (A) vs setup only (C)", dumpAll(t, a), dumpAll(t, fresh()))
					return
				}
				if (singly.firstFail != "") != c.fails {
					t.Fatalf("single upserts: first refusal %q; the scenario expects fails=%v", singly.firstFail, c.fails)
				}
				for i, got := range []batchOutcome{applyBatch(t, a, c.kind, c.batch), applyBatchHandedOver(t, st.open, c.setup, c.kind, c.batch)} {
					how := []string{"decoded by the worker", "decoded at submit"}[i]
					if got.Count != len(c.batch) {
						t.Errorf("batch (%s) count %d, want %d", how, got.Count, len(c.batch))
					}
					if c.fails {
						// All or nothing: the batch says why, with the text of
						// the first refused single upsert, and A is left as
						// the setup made it.
						if got.Status != "error" || got.Error != singly.firstFail {
							t.Errorf("batch (%s) ended %s with error %q; want error %q", how, got.Status, got.Error, singly.firstFail)
						}
						sameRecords(t, "batch (A, "+how+") vs setup only (C)", got.records, dumpAll(t, fresh()))
						continue
					}
					if got.Status != "done" {
						t.Fatalf("batch (%s) ended %s: %s", how, got.Status, got.Error)
					}
					if got.Created != singly.created || got.Updated != singly.updated || got.Skipped != singly.skipped {
						t.Errorf("batch (%s) created/updated/skipped %d/%d/%d; single upserts %d/%d/%d",
							how, got.Created, got.Updated, got.Skipped, singly.created, singly.updated, singly.skipped)
					}
					sameRecords(t, "batch (A, "+how+") vs single upserts (B)", got.records, dumpAll(t, b))
				}
			})
		}
	}
}

// applySetup upserts the setup records one by one; each must succeed.
func applySetup(t *testing.T, e *env, setup []upsert) {
	t.Helper()
	for _, u := range setup {
		if w := e.send("admin", "POST", "/api/bw/v2/"+u.kind, u.body, nil); w.Code > 202 {
			t.Fatalf("setup %s %s: %d %s", u.kind, u.body, w.Code, w.Body)
		}
	}
}

// batchOutcome is the status of a finished batch, and every record
// stored after it (dumpAll).
type batchOutcome struct {
	Status                    string
	Count                     int
	Created, Updated, Skipped int
	Error                     string
	records                   map[string]string
}

// applyBatch sends records as one batch, runs it with a worker step
// (which decodes the stored body), and returns its status.
func applyBatch(t *testing.T, e *env, kind string, records []string) batchOutcome {
	t.Helper()
	id := submit(t, e, kind, "["+strings.Join(records, ",")+"]")
	process(t, e)
	var o batchOutcome
	if err := json.Unmarshal([]byte(statusOf(t, e, kind, id)), &o); err != nil {
		t.Fatal(err)
	}
	o.records = dumpAll(t, e)
	return o
}

// applyBatchHandedOver is applyBatch in a new env on open after setup,
// whose running worker applies the batch with the records its submit
// decoded (the log says so).
func applyBatchHandedOver(t *testing.T, open func(testing.TB) cms.Store, setup []upsert, kind string, records []string) batchOutcome {
	t.Helper()
	log := new(lockedBuffer)
	e := newEnv(t, envOptions{store: open, svc: func(o *cms.Options) { o.Logger = slog.New(slog.NewTextHandler(log, nil)) }})
	applySetup(t, e, setup)
	ctx, cancel := context.WithCancel(t.Context())
	stopped := make(chan struct{})
	go func() {
		defer close(stopped)
		e.svc.RunBatchWorkers(ctx, 1)
	}()
	defer func() {
		cancel()
		<-stopped
	}()
	// An empty batch, applied, tells that the worker runs: the next
	// submit hands its records over.
	waitBatch(t, e, kind, submit(t, e, kind, "[]"))
	o := waitBatch(t, e, kind, submit(t, e, kind, "["+strings.Join(records, ",")+"]"))
	o.records = dumpAll(t, e)
	if o.Status == "done" {
		waitLogged(t, log, fmt.Sprintf(" records=%d created=%d updated=%d skipped=%d attempt=1 handed_over=true records_handed_over=true ",
			len(records), o.Created, o.Updated, o.Skipped))
	}
	return o
}

// waitLogged waits until a line of log, one a worker writes after the
// batch's status reads done, holds want.
func waitLogged(t *testing.T, log *lockedBuffer, want string) {
	t.Helper()
	for deadline := time.Now().Add(10 * time.Second); !strings.Contains(log.String(), want); time.Sleep(5 * time.Millisecond) {
		if time.Now().After(deadline) {
			t.Fatalf("no log line with %q in:\n%s", want, log.String())
		}
	}
}

// waitBatch waits for a batch the env's running worker applies to end,
// and returns its status.
func waitBatch(t *testing.T, e *env, kind, id string) batchOutcome {
	t.Helper()
	deadline := time.Now().Add(time.Minute)
	for {
		var o batchOutcome
		if err := json.Unmarshal([]byte(statusOf(t, e, kind, id)), &o); err != nil {
			t.Fatal(err)
		}
		if o.Status == "done" || o.Status == "error" {
			return o
		}
		if time.Now().After(deadline) {
			t.Fatalf("batch %s still %s after a minute", id, o.Status)
		}
		time.Sleep(5 * time.Millisecond)
	}
}

// singleOutcomes counts the answers of single upserts as a batch counts
// its records: 201 created, 202 updated (a delete too), 200 skipped.
type singleOutcomes struct {
	created, updated, skipped int
	// firstFail is the fail text of the first refused upsert ("": none).
	firstFail string
}

// applySingly sends records one by one, in order, going on after a
// refusal as independent clients would.
func applySingly(t *testing.T, e *env, kind string, records []string) singleOutcomes {
	t.Helper()
	var o singleOutcomes
	for i, body := range records {
		w := e.send("admin", "POST", "/api/bw/v2/"+kind, body, nil)
		switch w.Code {
		case 201:
			o.created++
		case 202:
			o.updated++
		case 200:
			o.skipped++
		default:
			if o.firstFail == "" {
				fail, _ := field(t, w, "fail").(string)
				o.firstFail = fail
				t.Logf("single upsert %d refused (%d): %s", i, w.Code, w.Body)
			}
		}
	}
	return o
}

// timeLastUpdate is the one field allowed to differ: the paths may give a
// record a different instant.
var timeLastUpdate = regexp.MustCompile(`"timeLastUpdate":"[^"]*",?`)

// dumpAll reads every record of every kind through the API, published or
// not, as "kind/id" -> its JSON without timeLastUpdate. The wire form holds
// both sides of the assignments and every language of urlAlias.
func dumpAll(t *testing.T, e *env) map[string]string {
	t.Helper()
	all := map[string]string{}
	for _, kind := range []cms.Kind{cms.KindResource, cms.KindMap, cms.KindLanding, cms.KindProposal} {
		w := e.send("admin", "GET", "/api/bw/v2/"+string(kind)+"/published/*", "", nil)
		if w.Code != 200 {
			t.Fatalf("list %s: %d %s", kind, w.Code, w.Body)
		}
		var list []json.RawMessage
		if err := json.Unmarshal(w.Body.Bytes(), &list); err != nil {
			t.Fatalf("list %s: %v", kind, err)
		}
		for _, raw := range list {
			var rec struct{ ID string }
			if err := json.Unmarshal(raw, &rec); err != nil {
				t.Fatal(err)
			}
			all[string(kind)+"/"+rec.ID] = timeLastUpdate.ReplaceAllString(string(raw), "")
		}
	}
	return all
}

// sameRecords reports the records missing on one side or different, a few
// of each so a broken scenario stays readable.
func sameRecords(t *testing.T, what string, a, b map[string]string) {
	t.Helper()
	union := maps.Clone(a)
	maps.Copy(union, b)
	const most = 5
	diffs := 0
	for _, k := range slices.Sorted(maps.Keys(union)) {
		ra, inA := a[k]
		rb, inB := b[k]
		if inA && inB && ra == rb {
			continue
		}
		if diffs++; diffs > most {
			continue
		}
		switch {
		case !inA:
			t.Errorf("%s: %s only in the second:\n%s", what, k, rb)
		case !inB:
			t.Errorf("%s: %s only in the first:\n%s", what, k, ra)
		default:
			t.Errorf("%s: %s differs:%s", what, k, fieldDiff(ra, rb))
		}
	}
	if diffs > most {
		t.Errorf("%s: %d records differ in all", what, diffs)
	}
}

// fieldDiff lists the fields of two records (JSON objects) that differ,
// one a line: the whole records are too long to read.
func fieldDiff(a, b string) string {
	var fa, fb map[string]json.RawMessage
	if json.Unmarshal([]byte(a), &fa) != nil || json.Unmarshal([]byte(b), &fb) != nil {
		return "\n" + a + "\n" + b
	}
	var out strings.Builder
	for _, name := range slices.Sorted(maps.Keys(fa)) {
		if vb, ok := fb[name]; !ok || string(vb) != string(fa[name]) {
			fmt.Fprintf(&out, "\n\t%s: %s vs %s", name, fa[name], vb)
		}
	}
	for _, name := range slices.Sorted(maps.Keys(fb)) {
		if _, ok := fa[name]; !ok {
			fmt.Fprintf(&out, "\n\t%s: (absent) vs %s", name, fb[name])
		}
	}
	return out.String()
}

// numbered makes n records, record i from f(i).
func numbered(n int, f func(i int) string) []string {
	out := make([]string, n)
	for i := range out {
		out[i] = f(i)
	}
	return out
}

// place puts the records of at at their positions in records (replacing
// the fillers there), so a scenario says which chunk each special record
// falls in: positions 0-255 are the first chunk, 256-511 the second.
func place(records []string, at map[int]string) []string {
	for i, r := range at {
		records[i] = r
	}
	return records
}

// setupOf is a setup of one kind.
func setupOf(kind string, bodies ...string) []upsert {
	out := make([]upsert, len(bodies))
	for i, b := range bodies {
		out[i] = upsert{kind, b}
	}
	return out
}

func equivCases() []equivCase {
	fillers := func(n int, id, title string) []string {
		return numbered(n, func(i int) string {
			return fmt.Sprintf(`{"id":"`+id+`","title":"`+title+`"}`, i, i)
		})
	}
	return []equivCase{
		{
			name: "new resources with titles in three languages",
			kind: "resource",
			batch: numbered(600, func(i int) string {
				switch {
				case i%7 == 0: // no title: the aliases come from the id
					return fmt.Sprintf(`{"id":"new%03d"}`, i)
				case i%3 == 0:
					return fmt.Sprintf(`{"id":"new%03d","title":"Caffè Nero %d!","title_it":"Caffè %d","published":true}`, i, i, i)
				}
				return fmt.Sprintf(`{"id":"new%03d","title":"Lake %d","title_it":"Lago %d","title_de":"See %d","published":%t}`,
					i, i, i, i, i%2 == 0)
			}),
		},
		{
			// Each record takes the next free of /same-title, /same-title-2,
			// ...; /same-title-5 is held by a record of another title.
			name: "same title gives numbered aliases across chunks",
			setup: setupOf("resource",
				`{"id":"old1","title":"Same Title"}`,
				`{"id":"old2","title":"Same Title"}`,
				`{"id":"old5","title":"Same Title 5"}`),
			kind: "resource",
			batch: numbered(280, func(i int) string {
				if i%10 == 0 {
					return fmt.Sprintf(`{"id":"same%03d","title":"Same Title","title_it":"Stesso Titolo"}`, i)
				}
				return fmt.Sprintf(`{"id":"same%03d","title":"Same Title"}`, i)
			}),
		},
		{
			// A generated alias takes one more than the highest number
			// held: when the batch releases the highest, the next is
			// counted again from what is left, in the chunk and after it.
			name: "highest alias number released in the batch",
			setup: setupOf("resource",
				`{"id":"hold1","title":"Top"}`,
				`{"id":"hold2","title":"Top"}`,
				`{"id":"hold9","urlAlias":"/top-9"}`),
			kind: "resource",
			batch: place(fillers(300, "tf%03d", "Top Filler %d"), map[int]string{
				0:   `{"id":"tn0","title":"Top"}`,
				1:   `{"id":"hold9","urlAlias":"/elsewhere"}`,
				2:   `{"id":"tn0","urlAlias":"/tn0-moved"}`,
				3:   `{"id":"tn1","title":"Top"}`,
				10:  `{"id":"tn2","title":"Top","urlAlias_it":"/top-50"}`,
				250: `{"id":"tn1","urlAlias":"/tn1-moved"}`,
				252: `{"id":"tn2","urlAlias":"/tn2-moved"}`,
				260: `{"id":"tn3","title":"Top"}`,
				261: `{"id":"tn4","title":"Top","urlAlias":"/top-20"}`,
				262: `{"id":"tn5","title":"Top"}`,
			}),
		},
		{
			name:  "repeated ids: create, update, unchanged",
			setup: setupOf("resource", `{"id":"pre","title":"Pre"}`),
			kind:  "resource",
			batch: place(fillers(300, "fill%03d", "Filler %d"), map[int]string{
				0:   `{"id":"rep","title":"Repeat","shortDescription":"one"}`,
				5:   `{"id":"rep","shortDescription":"two"}`,
				6:   `{"id":"rep","shortDescription":"two"}`, // changes nothing: skipped
				7:   `{"id":"fill001","title":"Filler 1"}`,   // as created: skipped
				8:   `{"id":"pre","title":"Pre"}`,            // as stored: skipped
				9:   `{"id":"pre","title_it":"Prima"}`,
				255: `{"id":"edge","title":"Edge"}`, // last of the first chunk
				256: `{"id":"edge","title":"Edge","published":true}`,
				257: `{"id":"edge","published":true}`,
				260: `{"id":"rep","title":"Repeat again"}`,
				261: `{"id":"rep","title":"Repeat again","shortDescription":"two"}`,
				270: `{"id":"fill001","published":true}`,
				299: `{"id":"pre","title_it":"Prima"}`,
			}),
		},
		{
			name: "explicit aliases: swaps and released aliases",
			setup: setupOf("resource",
				`{"id":"ali","title":"Ali","urlAlias":"/alpha","urlAlias_it":"/alfa"}`,
				`{"id":"bet","urlAlias":"/beta","urlAlias_it":"/beta-it"}`,
				`{"id":"gam","urlAlias":"/gamma"}`,
				`{"id":"del","urlAlias":"/delta"}`,
				`{"id":"eps","urlAlias":"/epsilon"}`),
			kind: "resource",
			batch: place(fillers(300, "fil%03d", "Fill %d"), map[int]string{
				// ali and bet swap, through a third alias.
				0: `{"id":"bet","urlAlias":"/beta-moved"}`,
				1: `{"id":"ali","urlAlias":"/beta"}`,
				2: `{"id":"bet","urlAlias":"/alpha"}`,
				// The same in Italian.
				3: `{"id":"bet","urlAlias_it":"/tmp-it"}`,
				4: `{"id":"ali","urlAlias_it":"/beta-it"}`,
				5: `{"id":"bet","urlAlias_it":"/alfa"}`,
				// A new record takes an alias released just before; the
				// next one's generated alias skips both.
				10: `{"id":"gam","urlAlias":"/gamma-2"}`,
				11: `{"id":"newgam","title":"Other","urlAlias":"/gamma"}`,
				12: `{"id":"nde","title":"Gamma","urlAlias_de":"/gamma-de"}`,
				// Released in the previous chunk, and in this one.
				100: `{"id":"del","urlAlias":"/delta-moved"}`,
				280: `{"id":"eps","urlAlias":"/delta"}`,
				281: `{"id":"del","urlAlias":"/epsilon"}`,
				// A generated alias released by a record of the first chunk.
				290: `{"id":"fil001","urlAlias":"/fill-1-moved"}`,
				291: `{"id":"fresh","title":"Fill 1"}`,
			}),
		},
		{
			// A generated alias may be one a record of the batch released:
			// /same-2 here (a numbered candidate), and in Italian the one
			// derived from the default language's alias. The chunk's view
			// never looked those up, and once kept them held: new1 got
			// /same-4 and ity /it-old-2 in Italian.
			name: "generated alias released earlier in the batch",
			setup: setupOf("resource",
				`{"id":"sam1","title":"Same"}`,
				`{"id":"sam2","title":"Same"}`,
				`{"id":"sam3","title":"Same"}`,
				`{"id":"itx","urlAlias_it":"/it-old"}`),
			kind: "resource",
			batch: []string{
				`{"id":"sam2","urlAlias":"/moved"}`,
				`{"id":"new1","title":"Same"}`,
				`{"id":"itx","urlAlias_it":"/it-new"}`,
				`{"id":"ity","urlAlias":"/it-old"}`,
			},
		},
		{
			name:  "alias clash with a stored record",
			setup: setupOf("resource", `{"id":"holder","urlAlias":"/taken"}`),
			kind:  "resource",
			batch: place(fillers(300, "cl%03d", "Clash %d"), map[int]string{
				200: `{"id":"clash","urlAlias":"/taken"}`,
			}),
			fails: true, refused: true,
		},
		{
			name: "alias clash between records of the batch in two chunks",
			kind: "resource",
			batch: place(fillers(300, "cl%03d", "Clash %d"), map[int]string{
				10:  `{"id":"first","urlAlias":"/dup"}`,
				280: `{"id":"second","urlAlias":"/dup"}`,
			}),
			fails: true, refused: true,
		},
		{
			// gen's Italian alias is generated (from its default one); exp
			// asks for it explicitly.
			name: "explicit alias held by a generated one of the batch",
			kind: "resource",
			batch: place(fillers(20, "cl%03d", "Clash %d"), map[int]string{
				0: `{"id":"gen","title":"Generated"}`,
				5: `{"id":"exp","urlAlias_it":"/generated"}`,
			}),
			fails: true, refused: true,
		},
		{
			// gen's alias is numbered after the stored one's; exp asks
			// for it in the next chunk.
			name:  "explicit alias held by a numbered generated one of the batch",
			setup: setupOf("resource", `{"id":"old","title":"Numbered"}`, `{"id":"old2","title":"Numbered"}`),
			kind:  "resource",
			batch: place(fillers(300, "nc%03d", "Clash %d"), map[int]string{
				0:   `{"id":"gen","title":"Numbered"}`,
				280: `{"id":"exp","urlAlias":"/numbered-3"}`,
			}),
			fails: true, refused: true,
		},
		{
			// What a single upsert would refuse is not refused because a
			// record of the batch gave, then released, a generated alias.
			name: "explicit alias released by a generated one of the batch",
			kind: "resource",
			batch: []string{
				`{"id":"gen","title":"Moved Away"}`,
				`{"id":"gen","urlAlias":"/moved"}`,
				`{"id":"exp","urlAlias":"/moved-away"}`,
				`{"id":"gen3","title":"Moved"}`,
			},
		},
		{
			// A Map names the Resource in trackResourceId: DELETE refuses
			// it, and so does the submit of a batch deleting it.
			name: "delete of a resource a stored map names in trackResourceId",
			setup: append(setupOf("resource", `{"id":"trk"}`, `{"id":"free"}`),
				upsert{"map", `{"id":"tmap","trackResourceId":"trk"}`}),
			kind: "resource",
			batch: place(fillers(300, "dt%03d", "Del %d"), map[int]string{
				3:   `{"id":"free","deleteElementIrreversibly":true}`,
				270: `{"id":"trk","deleteElementIrreversibly":true}`,
			}),
			fails: true, refused: true,
			problem: "Resource trk: deleteElementIrreversibly: named by Map tmap in trackResourceId",
		},
		{
			name: "delete of a map a stored landing and proposal name in mapId",
			setup: append(setupOf("map", `{"id":"lmap"}`, `{"id":"fmap"}`),
				upsert{"landing", `{"id":"lan","mapId":"lmap"}`}, upsert{"proposal", `{"id":"pro","mapId":"lmap"}`}),
			kind: "map",
			batch: []string{
				`{"id":"fmap","deleteElementIrreversibly":true}`,
				`{"id":"lmap","deleteElementIrreversibly":true}`,
			},
			fails: true, refused: true,
			problem: "Map lmap: deleteElementIrreversibly: named by Landing lan in mapId\nMap lmap: deleteElementIrreversibly: named by Proposal pro in mapId",
		},
		{
			name:  "poiResourceIds naming records of the batch",
			setup: setupOf("resource", `{"id":"anchor","title":"Anchor"}`),
			kind:  "resource",
			batch: place(numbered(300, func(i int) string {
				switch {
				case i == 0: // a record may name itself
					return `{"id":"poi000","poiResourceIds":["poi000","anchor"]}`
				case i%50 == 25:
					return fmt.Sprintf(`{"id":"poi%03d","poiResourceIdsAdd":["poi%03d","poi000"]}`, i, i-1)
				}
				// poi000 is in the first chunk: named from the second too.
				return fmt.Sprintf(`{"id":"poi%03d","poiResourceIds":["poi%03d","poi000"]}`, i, i-1)
			}), map[int]string{
				// The last three, so that no record names one they replace.
				297: `{"id":"anchor","poiResourceIdsAdd":["poi280","poi010"]}`,
				298: `{"id":"poi010","poiResourceIds":null}`,
				299: `{"id":"poi100","poiResourceIdsAdd":["poi000"]}`, // already there: skipped
			}),
		},
		{
			name: "maps with assignment lists, the same map several times",
			setup: append(setupOf("resource", numbered(30, func(i int) string {
				return fmt.Sprintf(`{"id":"res%02d","title":"Res %d"}`, i, i)
			})...), upsert{"map", `{"id":"oldmap","resourceIds":["res00","res01"]}`}),
			kind: "map",
			batch: place(numbered(300, func(i int) string {
				return fmt.Sprintf(`{"id":"map%03d","title":"Map %d","resourceIds":["res%02d","res%02d"],"secondaryResourceIds":["res%02d"]}`,
					i, i, i%30, (i+1)%30, (i+2)%30)
			}), map[int]string{
				1:   `{"id":"map000","resourceIds":["res05","res00"],"secondaryResourceIds":["res01"]}`,
				2:   `{"id":"map000","resourceIdsAdd":["res07","res05"],"secondaryResourceIdsAdd":["res00"]}`,
				3:   `{"id":"oldmap","resourceIdsAdd":["res02"],"secondaryResourceIds":["res01"]}`,
				4:   `{"id":"map000","resourceIds":["res05","res07"]}`, // as it stands: skipped
				270: `{"id":"map000","resourceIds":[],"secondaryResourceIds":["res05"]}`,
				271: `{"id":"map003","trackResourceId":"res03","poiResourceIds":["res04"],"brandedPoiIds":["res06"]}`,
				280: `{"id":"oldmap","resourceIds":null}`,
			}),
		},
		{
			name: "resources assigned to maps of the setup",
			setup: append(setupOf("map", `{"id":"mapA"}`, `{"id":"mapB"}`, `{"id":"mapC"}`),
				upsert{"resource", `{"id":"had","mapIds":["mapA"]}`}),
			kind: "resource",
			batch: place(numbered(300, func(i int) string {
				switch i % 3 {
				case 0:
					return fmt.Sprintf(`{"id":"ra%03d","mapIds":["mapA"],"mapSecondaryIds":["mapB"]}`, i)
				case 1:
					return fmt.Sprintf(`{"id":"ra%03d","mapIdsAdd":["mapC","mapA"]}`, i)
				}
				return fmt.Sprintf(`{"id":"ra%03d","mapSecondaryIds":["mapC"],"mapSecondaryIdsAdd":["mapA"]}`, i)
			}), map[int]string{
				0:   `{"id":"had","mapIds":["mapB"],"mapSecondaryIds":["mapA"]}`,
				150: `{"id":"ra003","mapIds":[]}`,
				270: `{"id":"ra001","mapSecondaryIds":["mapC"]}`,
				272: `{"id":"ra006","mapIds":["mapA"],"mapSecondaryIds":["mapB"]}`, // as created: skipped
			}),
		},
		{
			name: "delete mid-batch, re-create and reference",
			setup: append(setupOf("resource",
				`{"id":"doomed","title":"Doomed"}`,
				`{"id":"gone2","title":"Gone Too"}`,
				`{"id":"keeper","poiResourceIds":["doomed","gone2"]}`),
				upsert{"map", `{"id":"dmap","resourceIds":["doomed","gone2"],"poiResourceIds":["doomed"]}`}),
			kind: "resource",
			batch: place(fillers(300, "kp%03d", "Keep %d"), map[int]string{
				50:  `{"id":"doomed","deleteElementIrreversibly":true}`,
				51:  `{"id":"doomed","title":"Reborn"}`,
				52:  `{"id":"phoenix","title":"Doomed"}`, // the alias the delete released
				53:  `{"id":"refs","poiResourceIds":["doomed","kp010"]}`,
				100: `{"id":"kp020","deleteElementIrreversibly":true}`, // created in this chunk
				101: `{"id":"kp021","poiResourceIdsAdd":["kp022"]}`,
				102: `{"id":"again","title":"Keep 20"}`,
				255: `{"id":"gone2","deleteElementIrreversibly":true}`, // last of the first chunk
				256: `{"id":"gone2","title":"Back","mapIds":["dmap"]}`,
				270: `{"id":"kp030","deleteElementIrreversibly":true}`, // created in the previous chunk
				271: `{"id":"kp031","poiResourceIds":["kp032","refs"]}`,
				299: `{"id":"keeper","poiResourceIdsAdd":["doomed"]}`,
			}),
		},
		{
			// The delete writes the chunk so far at once, before its
			// documents are marshalled with the chunk's end: records
			// carried over from the chunk before must not keep the
			// document they were written with then.
			name: "records of the chunk before updated, then a delete",
			kind: "resource",
			batch: place(fillers(300, "uc%03d", "Upd %d"), map[int]string{
				10:  `{"id":"upd","title":"First","shortDescription":"one"}`,
				260: `{"id":"upd","title":"Second"}`,
				261: `{"id":"uc005","shortDescription":"changed"}`,
				262: `{"id":"uc100","deleteElementIrreversibly":true}`,
				263: `{"id":"upd","shortDescription":"two"}`,
			}),
		},
		{
			// victim exists when the batch is sent, but not by the time
			// nameit is applied: refused at submit, as the single upsert
			// is.
			name:  "reference to a record deleted earlier in the batch",
			setup: setupOf("resource", `{"id":"victim"}`),
			kind:  "resource",
			batch: []string{
				`{"id":"victim","deleteElementIrreversibly":true}`,
				`{"id":"nameit","poiResourceIds":["victim"]}`,
			},
			fails: true, refused: true,
		},
		{
			name: "delete a map with assignments and re-create it",
			setup: append(setupOf("resource", `{"id":"mres1"}`, `{"id":"mres2"}`, `{"id":"mres3"}`),
				upsert{"map", `{"id":"mdel","title":"Doomed Map","resourceIds":["mres1","mres2"],"secondaryResourceIds":["mres3"]}`},
				upsert{"map", `{"id":"mkeep","resourceIds":["mres1"]}`}),
			kind: "map",
			batch: place(numbered(300, func(i int) string {
				return fmt.Sprintf(`{"id":"mf%03d","title":"Map Fill %d","resourceIdsAdd":["mres%d"]}`, i, i, i%3+1)
			}), map[int]string{
				100: `{"id":"mdel","deleteElementIrreversibly":true}`,
				101: `{"id":"mdel","title":"Doomed Map","secondaryResourceIds":["mres1"]}`,
				260: `{"id":"mf010","deleteElementIrreversibly":true}`,
				261: `{"id":"mf010","resourceIds":["mres2"]}`,
			}),
		},
		{
			name: "partial updates of stored records mixed with creates",
			setup: setupOf("resource", numbered(260, func(i int) string {
				return fmt.Sprintf(`{"id":"u%03d","title":"Up %d","title_it":"Su %d","shortDescription":"short %d",`+
					`"shortDescription_it":"breve %d","locationLat":45.5,"locationLon":9.25,"contactCity":"Milano",`+
					`"published":true,"resourceCategories":["cat%d","all"]}`, i, i, i, i, i, i)
			})...),
			kind: "resource",
			batch: numbered(300, func(i int) string {
				if i >= 260 { // new, with the title of a stored one: /up-60-2 ...
					return fmt.Sprintf(`{"id":"u%03d","title":"Up %d"}`, i, i-200)
				}
				switch i % 5 {
				case 0: // null clears the default language only
					return fmt.Sprintf(`{"id":"u%03d","shortDescription":null}`, i)
				case 1:
					return fmt.Sprintf(`{"id":"u%03d","title_de":"Auf %d","published":false}`, i, i)
				case 2: // as stored: skipped
					return fmt.Sprintf(`{"id":"u%03d","title":"Up %d","contactCity":"Milano"}`, i, i)
				case 3:
					return fmt.Sprintf(`{"id":"u%03d","locationLat":null,"contactCity":"Roma","resourceCategories":null}`, i)
				}
				// A new title keeps the aliases; one is changed explicitly.
				return fmt.Sprintf(`{"id":"u%03d","title":"Renamed %d","urlAlias_it":"/su-%d-nuovo"}`, i, i, i)
			}),
		},
		{
			// A delete body's other fields are not looked at, references
			// included (found by a differential test).
			name:  "deletes whose bodies name records",
			setup: setupOf("resource", `{"id":"rr1"}`, `{"id":"rr2"}`, `{"id":"rr3"}`),
			kind:  "resource",
			batch: []string{
				`{"id":"rr3","deleteElementIrreversibly":true,"poiResourceIds":["nope"]}`,
				`{"id":"rr1","deleteElementIrreversibly":true}`,
				`{"id":"rr2","deleteElementIrreversibly":true,"poiResourceIdsAdd":["rr1"]}`,
			},
		},
		{
			// A Map or Landing reference to a Landing the batch deleted.
			name:  "reference to a landing deleted earlier in a landing batch",
			setup: setupOf("landing", `{"id":"land1"}`),
			kind:  "landing",
			batch: []string{
				`{"id":"land1","deleteElementIrreversibly":true}`,
				`{"id":"land2","landingBlocks":[{"resourceIds":["land1"]}]}`,
			},
			fails: true, refused: true,
		},
		{
			// The rules judged on the merged record (TRACK-only fields)
			// refuse the update whichever path applies it.
			name:  "partial update leaving a TRACK-only field",
			setup: setupOf("resource", `{"id":"trk","resourceType":"TRACK","trackDifficulty":3}`),
			kind:  "resource",
			batch: []string{
				`{"id":"trk2","title":"Fine"}`,
				`{"id":"trk","resourceType":"POI"}`,
			},
			fails: true, refused: true,
		},
	}
}
