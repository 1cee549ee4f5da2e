package cms_test

import (
	"context"
	"fmt"
	"strings"
	"sync/atomic"
	"testing"

	"github.com/bwcms/cms/cms"
	"github.com/bwcms/cms/internal/testenv"
)

// askedSanitizer is a host's sanitizer: the default policy, counted. The
// service asks a host's sanitizer every time.
type askedSanitizer struct {
	cms.Sanitizer
	asked *atomic.Int64
}

func (a askedSanitizer) Sanitize(html string) string {
	a.asked.Add(1)
	return a.Sanitizer.Sanitize(html)
}

// The default sanitizer's kept answers store what asking the policy each
// time stores: the same writes through a service with the default and
// one with a host's sanitizer of the same policy (asked every time)
// answer alike and leave the same records, over two accounts, creates,
// updates, read-and-posted-back Skips, languages, nested items and a
// batch (sanitized at submit and again when applied).
func TestSanitizedAnswersKeptStoreTheSame(t *testing.T) {
	t.Parallel()
	accounts := []testenv.Account{
		{Name: "acme", Langs: testenv.Langs("en", "it"), Users: []testenv.User{{Name: "root", Perms: []string{"*"}}}},
		{Name: "other", Langs: testenv.Langs("en"), Users: []testenv.User{{Name: "otto", Perms: []string{"*"}}}},
	}
	var asked atomic.Int64
	kept := testenv.NewService(t, testenv.OpenSQLiteMemory(t), testenv.NewClock(), nil, accounts...)
	each := testenv.NewService(t, testenv.OpenSQLiteMemory(t), testenv.NewClock(), func(o *cms.Options) {
		o.HTML = askedSanitizer{cms.UGCSanitizer(), &asked}
	}, accounts...)
	html := `<h2>Resource</h2>` + strings.Repeat(`<p onclick="x()">Lorem <strong>ipsum</strong> <a href="https://example.com/info">More info</a> &amp; details.<script>alert(1)</script></p>`, 12)
	q := func(s string) string { return fmt.Sprintf("%q", s) }
	type write struct {
		user, account string
		kind          cms.Kind
		body          string
	}
	writes := []write{
		{"root", "acme", cms.KindResource, `{"id":"res1","title":"One","htmlContent":` + q(html) + `}`},
		{"root", "acme", cms.KindResource, `{"id":"res2","title":"Two","htmlContent":` + q(html) + `,"htmlDescription":"<b onclick=\"y\">d</b>"}`},
		{"root", "acme", cms.KindResource, `{"id":"res1","title":"One again","htmlContent":` + q(html) + `}`},
		{"root", "acme", cms.KindResource, `{"id":"res1","title":"One again","htmlContent":` + q(html) + `}`},
		{"root", "acme", cms.KindResource, `{"id":"res1","htmlContent_it":` + q(html+"<p>it</p>") + `}`},
		{"root", "acme", cms.KindMap, `{"id":"map1","title":"Map","tourMultiday":[{"dayLabels":["D1"],"htmlContent":` + q(html) + `},{"dayLabels":["D2"],"htmlContent_it":"<i>giorno</i><img src=x onerror=y>"}]}`},
		{"otto", "other", cms.KindResource, `{"id":"res1","title":"Other","htmlContent":` + q(html) + `}`},
	}
	type answer struct {
		res cms.UpsertResult
		err string
	}
	run := func(svc *cms.Service, w write) answer {
		ctx := as(t, svc, w.account, w.user)
		res, err := svc.Upsert(ctx, w.kind, []byte(w.body), nil)
		a := answer{res: res}
		if err != nil {
			a.err = err.Error()
		}
		return a
	}
	for i, w := range writes {
		got, want := run(kept, w), run(each, w)
		if got != want || got.err != "" {
			t.Errorf("write %d: kept answers %+v, asked each time %+v", i, got, want)
		}
	}
	// Read as stored and posted back: a Skip on both.
	for _, svc := range []*cms.Service{kept, each} {
		doc := storedJSON(t, svc, "acme", "root", cms.KindResource, "res1")
		if res, err := svc.Upsert(as(t, svc, "acme", "root"), cms.KindResource, doc, nil); err != nil || res.Outcome != cms.Skipped {
			t.Errorf("posted back: %v %v", res.Outcome, err)
		}
	}
	batch := `[{"id":"bat1","title":"B1","htmlContent":` + q(html) + `},{"id":"bat2","title":"B2","htmlContent":` + q(html+"<p>2</p>") + `}]`
	for _, svc := range []*cms.Service{kept, each} {
		ctx := as(t, svc, "acme", "root")
		if _, err := svc.SubmitBatch(ctx, cms.KindResource, []byte(batch)); err != nil {
			t.Fatal(err)
		}
		if ok, err := svc.ProcessBatch(ctx, "test"); !ok || err != nil {
			t.Fatalf("process batch: %v %v", ok, err)
		}
	}
	for _, r := range []struct {
		account, user string
		kind          cms.Kind
		id            string
	}{
		{"acme", "root", cms.KindResource, "res1"}, {"acme", "root", cms.KindResource, "res2"},
		{"acme", "root", cms.KindMap, "map1"}, {"other", "otto", cms.KindResource, "res1"},
		{"acme", "root", cms.KindResource, "bat1"}, {"acme", "root", cms.KindResource, "bat2"},
	} {
		got, want := storedJSON(t, kept, r.account, r.user, r.kind, r.id), storedJSON(t, each, r.account, r.user, r.kind, r.id)
		if string(got) != string(want) {
			t.Errorf("%s %s %s: kept answers stored\n%s\nasked each time\n%s", r.account, r.kind, r.id, got, want)
		}
		if strings.Contains(string(got), "onclick") || strings.Contains(string(got), "<script") {
			t.Errorf("%s %s %s: not sanitized: %s", r.account, r.kind, r.id, got)
		}
	}
	// Every HTML value of every write (9), of the record posted back (2)
	// and of the batch, at submit and when applied (2+2): a host's
	// sanitizer is never skipped.
	if got, want := asked.Load(), int64(9+2+4); got != want {
		t.Errorf("host's sanitizer asked %d times, want %d", got, want)
	}
}

// as is the context of user of account, with the account's languages.
func as(t *testing.T, svc *cms.Service, account, user string) context.Context {
	t.Helper()
	u, err := svc.User(t.Context(), user)
	if err != nil {
		t.Fatal(err)
	}
	p, err := svc.AccountLanguages(t.Context(), cms.Principal{Account: account, User: user, Perms: u.Perms})
	if err != nil {
		t.Fatal(err)
	}
	return cms.WithPrincipal(t.Context(), p)
}

// storedJSON is the record as a read answers it.
func storedJSON(t *testing.T, svc *cms.Service, account, user string, kind cms.Kind, id string) []byte {
	t.Helper()
	ctx := as(t, svc, account, user)
	p, _ := cms.PrincipalFrom(ctx)
	codec, err := cms.NewCodec(p.Langs)
	if err != nil {
		t.Fatal(err)
	}
	recs, err := svc.Read(ctx, kind, cms.ReadParams{IDs: []string{id}, Published: cms.PublishedAny})
	if err != nil {
		t.Fatal(err)
	}
	for e, err := range recs {
		if err != nil {
			t.Fatal(err)
		}
		return codec.Marshal(e.Record)
	}
	t.Fatalf("%s %s %s not found", account, kind, id)
	return nil
}
