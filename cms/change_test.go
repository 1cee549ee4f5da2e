package cms_test

import (
	"context"
	"fmt"
	"net/netip"
	"slices"
	"testing"
	"time"

	"github.com/bwcms/cms/cms"
	"github.com/bwcms/cms/internal/testenv"
)

// changes is the fixture of the change-record tests: account acme (en,
// it) and other, a settable clock.
type changes struct {
	svc   *cms.Service
	store cms.Store
	clock *testenv.Clock
}

var changeAccounts = []testenv.Account{
	{Name: "acme", Langs: testenv.Langs("en", "it"), Users: []testenv.User{
		{Name: "root", Perms: []string{"*"}},
		{Name: "mapper", Perms: []string{"map:*"}},
		{Name: "nobody", Perms: []string{"file:read"}},
	}},
	{Name: "other", Langs: testenv.Langs("en"), Users: []testenv.User{{Name: "otto", Perms: []string{"*"}}}},
}

func forEachChangeDatabase(t *testing.T, adjust func(*cms.Options), test func(t *testing.T, e *changes)) {
	for _, db := range []testenv.Database{{Name: "sqlite", Open: testenv.OpenSQLiteMemory}, {Name: "postgres", Open: testenv.OpenPostgres}} {
		t.Run(db.Name, func(t *testing.T) {
			t.Parallel()
			st := db.Open(t)
			clock := testenv.NewClock()
			svc := testenv.NewService(t, st, clock, adjust, changeAccounts...)
			test(t, &changes{svc: svc, store: st, clock: clock})
		})
	}
}

func (e *changes) as(t *testing.T, user string) context.Context {
	t.Helper()
	sess, err := e.svc.Login(t.Context(), user, testenv.Password, netip.Addr{})
	if err != nil {
		t.Fatalf("login %s: %v", user, err)
	}
	return cms.WithPrincipal(t.Context(), sess.Principal)
}

func (e *changes) upsert(t *testing.T, ctx context.Context, kind cms.Kind, body string) cms.UpsertResult {
	t.Helper()
	e.clock.Advance(time.Second) // each write its own timeLastUpdate
	res, err := e.svc.Upsert(ctx, kind, []byte(body), nil)
	if err != nil {
		t.Fatalf("upsert %s %s: %v", kind, body, err)
	}
	return res
}

// feed reads the whole feed from after, page by page (limit each).
func (e *changes) feed(t *testing.T, ctx context.Context, after string, limit int) ([]cms.FeedChange, string) {
	t.Helper()
	var all []cms.FeedChange
	for range 1000 {
		page, err := e.svc.Changes(ctx, cms.ChangesParams{After: after, Limit: limit})
		if err != nil {
			t.Fatalf("changes after %q: %v", after, err)
		}
		all = append(all, page.Changes...)
		if page.Next == after && len(page.Changes) == 0 {
			return all, after
		}
		after = page.Next
		if len(page.Changes) < limit {
			return all, after
		}
	}
	t.Fatal("the feed did not end")
	return nil, ""
}

// changeNames names changes "<kind> <id> <op> <rev>", in feed order.
func changeNames(cs []cms.FeedChange) []string {
	names := make([]string, len(cs))
	for i, c := range cs {
		names[i] = fmt.Sprintf("%s %s %s %d", c.Kind, c.ID, c.Op, c.Rev)
	}
	return names
}

// TestChangesOfEveryWrite: each write records one change per record it
// changed, side effects included, and nothing for a refused write, a
// Skip or a read; another account sees none of them.
func TestChangesOfEveryWrite(t *testing.T) {
	forEachChangeDatabase(t, nil, func(t *testing.T, e *changes) {
		ctx := e.as(t, "root")
		cursor := ""
		// step runs a write and checks the changes it added to the feed
		// (in any order: one transaction's changes come together).
		step := func(write func(), want ...string) {
			t.Helper()
			write()
			got, next := e.feed(t, ctx, cursor, 2)
			cursor = next
			names := changeNames(got)
			slices.Sort(names)
			slices.Sort(want)
			if !slices.Equal(names, want) {
				t.Fatalf("changes:\n got %q\nwant %q", names, want)
			}
		}
		step(func() { e.upsert(t, ctx, cms.KindMap, `{"id":"map1","title":"Map one"}`) }, "map map1 upsert 1")
		step(func() {
			e.upsert(t, ctx, cms.KindResource, `{"id":"res1","title":"Rock","resourceType":"POI","mapIds":["map1"]}`)
		}, "resource res1 upsert 1", "map map1 upsert 2") // the Map gains the Resource
		step(func() { e.upsert(t, ctx, cms.KindResource, `{"id":"res1","title":"Rock face"}`) }, "resource res1 upsert 2")
		step(func() {
			if _, err := e.svc.Upsert(ctx, cms.KindResource, []byte(`{"id":"res1","nope":1}`), nil); err == nil {
				t.Fatal("an unknown field was accepted")
			}
			e.upsert(t, ctx, cms.KindResource, `{"id":"res1","title":"Rock face"}`) // the same: a Skip
			readOne(t, e.svc, ctx, cms.KindResource, "res1")
		})
		step(func() {
			if _, err := e.svc.Clone(ctx, cms.KindResource, "res1", "map1"); err != nil {
				t.Fatal(err)
			}
		}, "resource res1-copy upsert 1", "map map1 upsert 3")
		step(func() {
			if _, err := e.svc.Delete(ctx, cms.KindMap, []string{"map1"}, nil); err != nil {
				t.Fatal(err)
			}
		}, "map map1 delete 4", "resource res1 upsert 3", "resource res1-copy upsert 2") // the Resources lose the Map
		if other, _ := e.feed(t, e.as(t, "otto"), "", 10); len(other) != 0 {
			t.Fatalf("account other sees %q", changeNames(other))
		}
	})
}

// TestChangesOfBatchAndLanguage: a batch records a change per record
// by "batch <id>"; a language added records the records given an alias.
func TestChangesOfBatchAndLanguage(t *testing.T) {
	forEachChangeDatabase(t, nil, func(t *testing.T, e *changes) {
		ctx := e.as(t, "root")
		rec, err := e.svc.SubmitBatch(ctx, cms.KindResource, []byte(`[{"id":"bat1","title":"One","resourceType":"POI"},{"id":"bat2","title":"Two","resourceType":"POI"}]`))
		if err != nil {
			t.Fatal(err)
		}
		if ok, err := e.svc.ProcessBatch(ctx, "test"); !ok || err != nil {
			t.Fatalf("process batch: %v %v", ok, err)
		}
		now, _ := e.feed(t, ctx, "", 10)
		if want := []string{"resource bat1 upsert 1", "resource bat2 upsert 1"}; !slices.Equal(changeNames(now), want) {
			t.Fatalf("batch changes %q, want %q", changeNames(now), want)
		}
		page, err := e.svc.History(ctx, cms.KindResource, "bat2", cms.HistoryParams{})
		if err != nil {
			t.Fatal(err)
		}
		if got := page.Revisions[0].User; got != "batch "+rec.ID {
			t.Fatalf("batch change by %q, want %q", got, "batch "+rec.ID)
		}
		_, next := e.feed(t, ctx, "", 10)
		if _, err := e.svc.AddLanguage(ctx, "acme", "de"); err != nil {
			t.Fatal(err)
		}
		added, _ := e.feed(t, ctx, next, 10)
		if want := []string{"resource bat1 upsert 2", "resource bat2 upsert 2"}; !slices.Equal(changeNames(added), want) {
			t.Fatalf("language changes %q, want %q", changeNames(added), want)
		}
	})
}

// TestChangesFeedCursor: paging, kinds, "now", bad cursors, permissions
// and the cursor that expired with the history purged.
func TestChangesFeedCursor(t *testing.T) {
	forEachChangeDatabase(t, func(o *cms.Options) { o.HistoryKeep = time.Hour }, func(t *testing.T, e *changes) {
		ctx := e.as(t, "root")
		start, err := e.svc.Changes(ctx, cms.ChangesParams{After: "now"})
		if err != nil {
			t.Fatal(err)
		}
		for i := range 5 {
			e.upsert(t, ctx, cms.KindResource, fmt.Sprintf(`{"id":"res%d","title":"R","resourceType":"POI"}`, i))
			e.upsert(t, ctx, cms.KindMap, fmt.Sprintf(`{"id":"map%d","title":"M"}`, i))
		}
		all, end := e.feed(t, ctx, "", 3)
		if len(all) != 10 {
			t.Fatalf("%d changes, want 10", len(all))
		}
		// The mapper reads only Maps, however it asks.
		maps, _ := e.feed(t, e.as(t, "mapper"), "", 100)
		for _, c := range maps {
			if c.Kind != cms.KindMap {
				t.Fatalf("mapper sees %v", c)
			}
		}
		if len(maps) != 5 {
			t.Fatalf("mapper sees %d changes, want 5", len(maps))
		}
		if _, err := e.svc.Changes(e.as(t, "mapper"), cms.ChangesParams{Kinds: []cms.Kind{cms.KindResource}}); cms.ErrorCode(err) != cms.CodeForbidden {
			t.Fatalf("mapper asking for resources: %v, want forbidden", err)
		}
		if _, err := e.svc.Changes(e.as(t, "nobody"), cms.ChangesParams{}); cms.ErrorCode(err) != cms.CodeForbidden {
			t.Fatalf("no kind readable: %v, want forbidden", err)
		}
		for _, bad := range []string{"x", "-1", "1.", ".1", "01", "1.2.3"} {
			if _, err := e.svc.Changes(ctx, cms.ChangesParams{After: bad}); cms.ErrorCode(err) != cms.CodeMalformed {
				t.Fatalf("cursor %q: %v, want malformed", bad, err)
			}
		}
		if _, err := e.svc.Changes(ctx, cms.ChangesParams{After: "999999999999"}); cms.ErrorCode(err) != cms.CodeMalformed {
			t.Fatalf("a cursor ahead of every change: %v, want malformed", err)
		}
		// "now" answers nothing and the cursor of the present.
		now, err := e.svc.Changes(ctx, cms.ChangesParams{After: "now"})
		if err != nil || len(now.Changes) != 0 || now.Next != end {
			t.Fatalf("now: %+v %v, want next %q", now, err, end)
		}
		e.upsert(t, ctx, cms.KindResource, `{"id":"res0","title":"R again"}`)
		after, _ := e.feed(t, ctx, now.Next, 10)
		if want := []string{"resource res0 upsert 2"}; !slices.Equal(changeNames(after), want) {
			t.Fatalf("after now: %q, want %q", changeNames(after), want)
		}
		// Two hours on, the purge removes all but each record's newest:
		// an old cursor has expired, a reader from the start begins past
		// what was removed.
		e.clock.Advance(2 * time.Hour)
		if err := e.svc.Purge(t.Context()); err != nil {
			t.Fatal(err)
		}
		if _, err := e.svc.Changes(ctx, cms.ChangesParams{After: start.Next}); cms.ErrorCode(err) != cms.CodeGone {
			t.Fatalf("expired cursor: %v, want gone", err)
		}
		if _, err := e.svc.Changes(ctx, cms.ChangesParams{After: after[0].Seq}); err != nil {
			t.Fatalf("newest cursor after purge: %v", err)
		}
		page, err := e.svc.History(ctx, cms.KindResource, "res0", cms.HistoryParams{})
		if err != nil || len(page.Revisions) != 1 || page.Revisions[0].Rev != 2 {
			t.Fatalf("history of res0 after purge: %+v %v, want rev 2 alone", page, err)
		}
	})
}

// TestHistoryAndRevisions: revisions newest first with the fields they
// changed; a revision reads as the record was, lists included; a delete
// removes the documents and leaves a tombstone; a re-create numbers on.
func TestHistoryAndRevisions(t *testing.T) {
	forEachChangeDatabase(t, nil, func(t *testing.T, e *changes) {
		ctx := e.as(t, "root")
		e.upsert(t, ctx, cms.KindMap, `{"id":"map1","title":"Map"}`)
		e.upsert(t, ctx, cms.KindResource, `{"id":"res1","title":"Rock","resourceType":"POI","mapIds":["map1"]}`)
		e.upsert(t, ctx, cms.KindResource, `{"id":"res1","title":"Rock face","title_it":"Parete"}`)
		page, err := e.svc.History(ctx, cms.KindResource, "res1", cms.HistoryParams{})
		if err != nil {
			t.Fatal(err)
		}
		if len(page.Revisions) != 2 || page.Revisions[0].Rev != 2 || page.Revisions[0].User != "root" || page.Revisions[1].Changed != nil {
			t.Fatalf("history: %+v", page)
		}
		if got := page.Revisions[0].Changed; !slices.Contains(got, "title") || !slices.Contains(got, "title_it") || slices.Contains(got, "type") {
			t.Fatalf("changed fields %q, want title and title_it, not type", got)
		}
		old, err := e.svc.Revision(ctx, cms.KindResource, "res1", 1)
		if err != nil || old.Entry == nil {
			t.Fatalf("revision 1: %+v %v", old, err)
		}
		res := old.Entry.Record.(*cms.Resource)
		if res.Title["en"] != "Rock" || !slices.Equal(res.MapIDs.Value, []string{"map1"}) {
			t.Fatalf("revision 1 reads %+v", res)
		}
		// The Map, touched by the Resource's assignment, records its
		// document but not its lists (ChangeRef.Touched); its own write
		// records them.
		e.upsert(t, ctx, cms.KindMap, `{"id":"map1","title":"Map again"}`)
		touched, err := e.svc.Revision(ctx, cms.KindMap, "map1", 2)
		if err != nil || touched.Entry == nil || touched.Entry.Record.(*cms.Map).ResourceIDs.Set {
			t.Fatalf("touched Map's revision: %+v %v, want its document without lists", touched, err)
		}
		own, err := e.svc.Revision(ctx, cms.KindMap, "map1", 3)
		if err != nil || !slices.Equal(own.Entry.Record.(*cms.Map).ResourceIDs.Value, []string{"res1"}) {
			t.Fatalf("Map's own revision: %+v %v, want resourceIds [res1]", own, err)
		}
		mapPage, err := e.svc.History(ctx, cms.KindMap, "map1", cms.HistoryParams{})
		if err != nil || !slices.Equal(mapPage.Revisions[0].Changed, []string{"title"}) || len(mapPage.Revisions[1].Changed) != 0 {
			t.Fatalf("Map history: %+v %v, want title changed at 3 and nothing told at 2", mapPage, err)
		}
		if _, err := e.svc.Revision(ctx, cms.KindResource, "res1", 9); cms.ErrorCode(err) != cms.CodeNotFound {
			t.Fatalf("revision 9: %v, want not found", err)
		}
		if _, err := e.svc.Revision(e.as(t, "otto"), cms.KindResource, "res1", 1); cms.ErrorCode(err) != cms.CodeNotFound {
			t.Fatalf("another account's revision: %v, want not found", err)
		}
		if _, err := e.svc.History(e.as(t, "mapper"), cms.KindResource, "res1", cms.HistoryParams{}); cms.ErrorCode(err) != cms.CodeForbidden {
			t.Fatalf("history without read: %v, want forbidden", err)
		}
		if _, err := e.svc.Delete(ctx, cms.KindResource, []string{"res1"}, nil); err != nil {
			t.Fatal(err)
		}
		gone, err := e.svc.Revision(ctx, cms.KindResource, "res1", 1)
		if err != nil || gone.Entry != nil || gone.Tombstone == nil || gone.Tombstone.Rev != 3 || gone.Tombstone.Op != cms.ChangeDelete {
			t.Fatalf("revision 1 after delete: %+v %v, want the tombstone of rev 3", gone, err)
		}
		e.upsert(t, ctx, cms.KindResource, `{"id":"res1","title":"Back","resourceType":"POI"}`)
		page, err = e.svc.History(ctx, cms.KindResource, "res1", cms.HistoryParams{Limit: 2})
		if err != nil || len(page.Revisions) != 2 || page.Revisions[0].Rev != 4 || page.Revisions[1].Op != cms.ChangeDelete || page.Next != 3 {
			t.Fatalf("history after re-create: %+v %v", page, err)
		}
		rest, err := e.svc.History(ctx, cms.KindResource, "res1", cms.HistoryParams{After: page.Next})
		if err != nil || len(rest.Revisions) != 2 || rest.Revisions[0].Rev != 2 || rest.Next != 0 {
			t.Fatalf("second page: %+v %v", rest, err)
		}
	})
}

// TestRestoreRevision: posting a revision back with If-Match of the
// current version brings its values back as a new revision.
func TestRestoreRevision(t *testing.T) {
	forEachChangeDatabase(t, nil, func(t *testing.T, e *changes) {
		ctx := e.as(t, "root")
		e.upsert(t, ctx, cms.KindResource, `{"id":"res1","title":"First","resourceType":"POI"}`)
		e.upsert(t, ctx, cms.KindResource, `{"id":"res1","title":"Second"}`)
		old, err := e.svc.Revision(ctx, cms.KindResource, "res1", 1)
		if err != nil {
			t.Fatal(err)
		}
		codec, err := e.svc.Codec(ctx)
		if err != nil {
			t.Fatal(err)
		}
		cur := readOne(t, e.svc, ctx, cms.KindResource, "res1")
		e.clock.Advance(time.Second)
		_, err = e.svc.Upsert(ctx, cms.KindResource, codec.Marshal(e.svc.Wire(old.Entry)), &cms.UpsertOptions{IfMatch: cms.ETag(cur, codec.Languages())})
		if err != nil {
			t.Fatalf("restore: %v", err)
		}
		if got := readOne(t, e.svc, ctx, cms.KindResource, "res1").Record.(*cms.Resource).Title["en"]; got != "First" {
			t.Fatalf("restored title %q", got)
		}
		page, _ := e.svc.History(ctx, cms.KindResource, "res1", cms.HistoryParams{})
		if len(page.Revisions) != 3 || !slices.Equal(page.Revisions[0].Changed, []string{"title"}) {
			t.Fatalf("history after restore: %+v", page)
		}
	})
}

func readOne(t *testing.T, svc *cms.Service, ctx context.Context, kind cms.Kind, id string) *cms.Entry {
	t.Helper()
	seq, err := svc.Read(ctx, kind, cms.ReadParams{IDs: []string{id}, Published: cms.PublishedAny, Uncounted: true})
	if err != nil {
		t.Fatal(err)
	}
	for e, err := range seq {
		if err != nil {
			t.Fatal(err)
		}
		return e
	}
	t.Fatalf("%s %s not found", kind, id)
	return nil
}

// TestBatchDeleteThenCreate: a batch that deletes a record and creates
// it again records the delete (its tombstone, the documents before it
// removed) and then the new record.
func TestBatchDeleteThenCreate(t *testing.T) {
	forEachChangeDatabase(t, nil, func(t *testing.T, e *changes) {
		ctx := e.as(t, "root")
		e.upsert(t, ctx, cms.KindResource, `{"id":"res1","title":"Secret title","resourceType":"POI"}`)
		body := `[{"id":"res1","deleteElementIrreversibly":true},{"id":"res1","title":"Fresh","resourceType":"POI"}]`
		if _, err := e.svc.SubmitBatch(ctx, cms.KindResource, []byte(body)); err != nil {
			t.Fatal(err)
		}
		if ok, err := e.svc.ProcessBatch(ctx, "test"); !ok || err != nil {
			t.Fatalf("process batch: %v %v", ok, err)
		}
		if got := readOne(t, e.svc, ctx, cms.KindResource, "res1").Record.(*cms.Resource).Title["en"]; got != "Fresh" {
			t.Fatalf("after the batch: title %q", got)
		}
		old, err := e.svc.Revision(ctx, cms.KindResource, "res1", 1)
		if err != nil || old.Entry != nil || old.Tombstone == nil || old.Tombstone.Rev != 2 {
			t.Fatalf("revision 1 after a delete and a re-create: %+v %v, want the tombstone of rev 2", old, err)
		}
		page, err := e.svc.History(ctx, cms.KindResource, "res1", cms.HistoryParams{})
		if err != nil || len(page.Revisions) != 3 || page.Revisions[0].Op != cms.ChangeUpsert || page.Revisions[1].Op != cms.ChangeDelete {
			t.Fatalf("history: %+v %v, want the upsert 3 after the delete 2", page, err)
		}
	})
}
