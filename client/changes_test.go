package client_test

import (
	"context"
	"errors"
	"fmt"
	"net/http"
	"slices"
	"testing"
	"time"

	"github.com/bwcms/cms/client"
	"github.com/bwcms/cms/cms"
	"github.com/bwcms/cms/internal/testenv"
)

// feedNames are changes as "<kind> <id> <op> <rev>".
func feedNames(changes []cms.FeedChange) []string {
	out := make([]string, len(changes))
	for i, c := range changes {
		out[i] = fmt.Sprintf("%s %s %s %d", c.Kind, c.ID, c.Op, c.Rev)
	}
	return out
}

// History page after page, a revision decoded into its record type, and
// the tombstone a deleted record's revision answers.
func TestHistoryClient(t *testing.T) {
	eachStore(t, func(t *testing.T, e *env) {
		ctx := t.Context()
		c, err := client.New(e.url, &client.Options{HTTPClient: e.http, PageSize: 2})
		must(t, err)
		must(t, c.Login(ctx, "admin", testenv.Password))
		for _, title := range []string{"Lake walk", "Lake path", "Lake road"} {
			if _, err := c.Upsert(ctx, resource("lake-walk", title)); err != nil {
				t.Fatal(err)
			}
			e.clock.Advance(time.Minute)
		}
		var revs []cms.Revision
		for r, err := range c.History(ctx, cms.KindResource, "lake-walk", client.HistoryOptions{}) {
			must(t, err)
			revs = append(revs, r)
		}
		if len(revs) != 3 || revs[0].Rev != 3 || revs[2].Rev != 1 || revs[0].User != "admin" || revs[0].Op != cms.ChangeUpsert ||
			!slices.Contains(revs[0].Changed, "title") || !revs[0].Time.Equal(testenv.Epoch.Add(2*time.Minute)) {
			t.Fatalf("history %+v", revs)
		}
		var limited []int64
		for r, err := range c.History(ctx, cms.KindResource, "lake-walk", client.HistoryOptions{After: 3, Limit: 1}) {
			must(t, err)
			limited = append(limited, r.Rev)
		}
		if !slices.Equal(limited, []int64{2}) {
			t.Errorf("after 3, limit 1: %v", limited)
		}
		rr, err := c.Revision(ctx, cms.KindResource, "lake-walk", 1)
		must(t, err)
		r, ok := rr.Record.(*cms.Resource)
		if !ok || rr.Tombstone != nil || r.Title["en"] != "Lake walk" || r.Title["it"] != "Lake walk (it)" {
			t.Fatalf("revision 1: %+v", rr)
		}
		// Restore: the old revision written back over the record now.
		_, etag, err := c.Get(ctx, cms.KindResource, "lake-walk")
		must(t, err)
		if out, err := c.Upsert(ctx, r, client.IfMatch(etag)); err != nil || out != cms.Updated {
			t.Fatalf("restore: %v %v", out, err)
		}
		now, _, err := client.Get[*cms.Resource](ctx, c, "lake-walk")
		must(t, err)
		if now.Title["en"] != "Lake walk" {
			t.Errorf("restored %+v", now.Title)
		}
		_, err = c.Delete(ctx, cms.KindResource, "lake-walk")
		must(t, err)
		rr, err = c.Revision(ctx, cms.KindResource, "lake-walk", 2)
		must(t, err)
		if rr.Record != nil || rr.Tombstone == nil || rr.Tombstone.Rev != 5 || rr.Tombstone.ID != "lake-walk" ||
			rr.Tombstone.Kind != cms.KindResource || rr.Tombstone.User != "admin" {
			t.Fatalf("after delete: %+v %+v", rr, rr.Tombstone)
		}
		if _, err := c.Revision(ctx, cms.KindResource, "missing-one", 1); !errors.Is(err, client.ErrNotFound) {
			t.Errorf("missing record: %v", err)
		}
		for _, err := range c.History(ctx, cms.KindMap, "missing-one", client.HistoryOptions{}) {
			if !errors.Is(err, client.ErrNotFound) {
				t.Errorf("history of a missing record: %v", err)
			}
		}
	})
}

// Changes without Follow stops at the present; with Follow it reads page
// after page, waits at the present and sees what is written later, each
// change once and in order, until its context ends.
func TestChangesClient(t *testing.T) {
	eachStore(t, func(t *testing.T, e *env) {
		ctx := t.Context()
		c := e.client("admin")
		var want []string
		write := func(i int) {
			t.Helper()
			id := fmt.Sprintf("walk-%02d", i)
			if _, err := c.Upsert(ctx, resource(id, "Walk")); err != nil {
				t.Fatal(err)
			}
			want = append(want, "resource "+id+" upsert 1")
		}
		for i := range 5 {
			write(i)
		}
		var got []cms.FeedChange
		for ch, err := range c.Changes(ctx, client.ChangesOptions{Limit: 2}) {
			must(t, err)
			got = append(got, ch)
		}
		if !slices.Equal(feedNames(got), want) {
			t.Fatalf("feed %q, want %q", feedNames(got), want)
		}
		// Resume after the third: the last two.
		var rest []cms.FeedChange
		for ch, err := range c.Changes(ctx, client.ChangesOptions{After: got[2].Seq}) {
			must(t, err)
			rest = append(rest, ch)
		}
		if !slices.Equal(feedNames(rest), want[3:]) {
			t.Errorf("after the third: %q", feedNames(rest))
		}
		// Follow from the start while more is written.
		fctx, stop := context.WithCancel(ctx)
		defer stop()
		seen := make(chan cms.FeedChange)
		end := make(chan error, 1)
		go func() {
			for ch, err := range c.Changes(fctx, client.ChangesOptions{Limit: 2, Follow: true, Poll: 5 * time.Millisecond}) {
				if err != nil {
					end <- err
					return
				}
				seen <- ch
			}
			end <- nil
		}()
		var followed []cms.FeedChange
		for len(followed) < 5 {
			followed = append(followed, <-seen)
		}
		for i := 5; i < 8; i++ {
			write(i)
		}
		for len(followed) < 8 {
			followed = append(followed, <-seen)
		}
		stop()
		if err := <-end; !errors.Is(err, context.Canceled) {
			t.Errorf("follow ended with %v, want context.Canceled", err)
		}
		if !slices.Equal(feedNames(followed), want) {
			t.Errorf("followed %q, want %q", feedNames(followed), want)
		}
		// The options are checked before any request.
		for _, o := range []client.ChangesOptions{{Limit: -1}, {Limit: 1001}, {After: "x"}, {Kinds: []cms.Kind{"file"}}, {Poll: -time.Second}} {
			for _, err := range c.Changes(ctx, o) {
				var apiErr *client.Error
				if err == nil || errors.As(err, &apiErr) {
					t.Errorf("%+v: %v, want a client error", o, err)
				}
			}
		}
	})
}

// A cursor older than what is kept ends the sequence with an *Error 410
// that matches ErrCursorExpired.
func TestChangesExpiredCursor(t *testing.T) {
	e := newEnvWith(t, testenv.OpenSQLiteMemory, func(o *cms.Options) { o.HistoryKeep = time.Hour })
	ctx := t.Context()
	c := e.client("admin")
	_, err := c.Upsert(ctx, resource("lake-walk", "Lake walk"))
	must(t, err)
	var old string
	for ch, err := range c.Changes(ctx, client.ChangesOptions{}) {
		must(t, err)
		old = ch.Seq
	}
	_, err = c.Upsert(ctx, resource("lake-walk", "Lake path"))
	must(t, err)
	e.clock.Advance(2 * time.Hour)
	c = e.client("admin") // the old token has expired
	_, err = c.Upsert(ctx, resource("lake-walk", "Lake road"))
	must(t, err)
	must(t, e.svc.Purge(ctx))
	n := 0
	for _, err := range c.Changes(ctx, client.ChangesOptions{After: old, Follow: true}) {
		n++
		var apiErr *client.Error
		if !errors.Is(err, client.ErrCursorExpired) || !errors.As(err, &apiErr) || apiErr.Status != http.StatusGone || apiErr.Fail != "Cursor expired" {
			t.Fatalf("expired cursor: %v", err)
		}
	}
	if n != 1 {
		t.Errorf("%d values yielded, want the one error", n)
	}
}
