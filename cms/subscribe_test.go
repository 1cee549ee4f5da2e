package cms_test

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/bwcms/cms/cms"
	"github.com/bwcms/cms/internal/testenv"
)

// handled records a subscription's handler calls, and whether two of
// them (on any service sharing it) ever ran at once.
type handled struct {
	mu       sync.Mutex
	calls    []handlerCall
	active   atomic.Int32
	overlaps atomic.Int32
	// fail, when set, makes the call numbered n (from 0) fail or panic.
	fail func(n int) error
}

type handlerCall struct {
	by      string
	changes []cms.FeedChange
	err     error
	at      time.Time
}

// handler is the subscription's Handle as service by runs it.
func (h *handled) handler(by string) cms.ChangeHandler {
	return func(ctx context.Context, changes []cms.FeedChange) error {
		if h.active.Add(1) > 1 {
			h.overlaps.Add(1)
		}
		defer h.active.Add(-1)
		time.Sleep(5 * time.Millisecond) // a handler's work, so an overlap would show
		h.mu.Lock()
		n := len(h.calls)
		var err error
		if h.fail != nil {
			err = h.fail(n)
		}
		h.calls = append(h.calls, handlerCall{by: by, changes: slices.Clone(changes), err: err, at: time.Now()})
		h.mu.Unlock()
		if err != nil && err.Error() == "panic" {
			panic("handler panics")
		}
		return err
	}
}

// seen is every change handled successfully, in order.
func (h *handled) seen() []string {
	h.mu.Lock()
	defer h.mu.Unlock()
	var seqs []string
	for _, c := range h.calls {
		if c.err == nil {
			for _, ch := range c.changes {
				seqs = append(seqs, ch.Seq+" "+string(ch.Kind)+" "+ch.ID)
			}
		}
	}
	return seqs
}

func (h *handled) snapshot() []handlerCall {
	h.mu.Lock()
	defer h.mu.Unlock()
	return slices.Clone(h.calls)
}

func feedLines(cs []cms.FeedChange) []string {
	lines := make([]string, len(cs))
	for i, c := range cs {
		lines[i] = c.Seq + " " + string(c.Kind) + " " + c.ID
	}
	return lines
}

// eventually waits for cond, failing the test when it does not hold
// within a minute (a bound against hanging, not a measure of speed).
func eventually(t *testing.T, what string, cond func() bool) {
	t.Helper()
	deadline := time.Now().Add(time.Minute)
	for !cond() {
		if time.Now().After(deadline) {
			t.Fatalf("waited a minute for %s", what)
		}
		time.Sleep(10 * time.Millisecond)
	}
}

// run runs svc until the test ends or stop is called; stop returns once
// Run has.
func run(t *testing.T, svc *cms.Service) (stop func()) {
	t.Helper()
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan struct{})
	go func() {
		defer close(done)
		if err := svc.Run(ctx); err != nil {
			t.Errorf("Run: %v", err)
		}
	}()
	stop = sync.OnceFunc(func() { cancel(); <-done })
	t.Cleanup(stop)
	return stop
}

// storedCursor waits for the subscription's cursor to be stored, and
// returns it.
func storedCursor(t *testing.T, st cms.Store, name string) string {
	t.Helper()
	var cursor string
	eventually(t, "the cursor of "+name, func() bool {
		var err error
		cursor, err = st.Cursor(t.Context(), "sub:"+name)
		if err != nil {
			t.Fatal(err)
		}
		return cursor != ""
	})
	return cursor
}

// accountFeed is account's feed after cursor, of kinds, read whole.
func accountFeed(t *testing.T, svc *cms.Service, account, after string, kinds ...cms.Kind) []cms.FeedChange {
	t.Helper()
	var all []cms.FeedChange
	for range 1000 {
		page, err := svc.AccountChanges(t.Context(), account, cms.ChangesParams{After: after, Kinds: kinds, Limit: cms.MaxChangesLimit})
		if err != nil {
			t.Fatal(err)
		}
		all = append(all, page.Changes...)
		if len(page.Changes) < cms.MaxChangesLimit {
			return all
		}
		after = page.Next
	}
	t.Fatal("the feed did not end")
	return nil
}

func shortLease(o *cms.Options) { o.SubscriptionLease = 600 * time.Millisecond }

// TestSubscriptionSeesEveryChangeInOrder: a subscription starts at the
// present and is given every later change of its account and kinds
// once, in the feed's order, deletions included; the cursor stored is
// the feed's after the last.
func TestSubscriptionSeesEveryChangeInOrder(t *testing.T) {
	forEachChangeDatabase(t, shortLease, func(t *testing.T, e *changes) {
		ctx := e.as(t, "root")
		e.upsert(t, ctx, cms.KindResource, `{"id":"before","title":"Written before"}`)
		var resources, everything handled
		for _, sub := range []cms.Subscription{
			{Name: "resources", Account: "acme", Kinds: []cms.Kind{cms.KindResource}, Handle: resources.handler("svc")},
			{Name: "everything", Account: "acme", Handle: everything.handler("svc")},
		} {
			if err := e.svc.Subscribe(sub); err != nil {
				t.Fatal(err)
			}
		}
		run(t, e.svc)
		start := map[string]string{"resources": storedCursor(t, e.store, "resources"), "everything": storedCursor(t, e.store, "everything")}

		e.upsert(t, ctx, cms.KindMap, `{"id":"map-1","title":"Map"}`)
		e.upsert(t, ctx, cms.KindResource, `{"id":"res-1","title":"One","mapIds":["map-1"]}`)
		e.upsert(t, ctx, cms.KindResource, `{"id":"res-2","title":"Two"}`)
		e.upsert(t, ctx, cms.KindResource, `{"id":"res-1","title":"One again"}`)
		if _, err := e.svc.Delete(ctx, cms.KindResource, []string{"res-2"}, nil); err != nil {
			t.Fatal(err)
		}
		otto := cms.WithPrincipal(t.Context(), cms.Principal{Account: "other", User: "otto", Perms: []string{"*"}, Langs: testenv.Langs("en")})
		if _, err := e.svc.Upsert(otto, cms.KindResource, []byte(`{"id":"elsewhere","title":"Other account"}`), nil); err != nil {
			t.Fatal(err)
		}

		for _, c := range []struct {
			name  string
			h     *handled
			kinds []cms.Kind
		}{{"resources", &resources, []cms.Kind{cms.KindResource}}, {"everything", &everything, nil}} {
			want := feedLines(accountFeed(t, e.svc, "acme", start[c.name], c.kinds...))
			eventually(t, c.name+" to see every change", func() bool { return len(c.h.seen()) >= len(want) })
			if got := c.h.seen(); !slices.Equal(got, want) {
				t.Errorf("%s saw\n%q\nwant\n%q", c.name, got, want)
			}
			for _, line := range c.h.seen() {
				if strings.HasSuffix(line, " before") || strings.HasSuffix(line, " elsewhere") {
					t.Errorf("%s saw %s", c.name, line)
				}
			}
		}
		if got := len(resources.seen()); got != 4 {
			t.Errorf("resources saw %d changes, want 4 (r1 twice, r2 twice)", got)
		}
		if everything.overlaps.Load()+resources.overlaps.Load() != 0 {
			t.Error("a subscription's handler calls overlapped")
		}
	})
}

// TestSubscriptionResumesAfterRestart: a subscription stopped and run
// again by a new service resumes from its stored cursor: the changes
// written meanwhile are handled, none twice; its lease is released when
// Run stops.
func TestSubscriptionResumesAfterRestart(t *testing.T) {
	forEachChangeDatabase(t, shortLease, func(t *testing.T, e *changes) {
		ctx := e.as(t, "root")
		var h handled
		sub := cms.Subscription{Name: "restart", Account: "acme", Handle: h.handler("first")}
		if err := e.svc.Subscribe(sub); err != nil {
			t.Fatal(err)
		}
		stop := run(t, e.svc)
		start := storedCursor(t, e.store, "restart")
		for i := range 4 {
			e.upsert(t, ctx, cms.KindResource, fmt.Sprintf(`{"id":"a-%d","title":"Before the restart"}`, i))
		}
		eventually(t, "the first changes", func() bool { return len(h.seen()) == 4 })
		stop()

		// Released: another owner takes the lease at once.
		if held, err := e.store.TakeLease(t.Context(), "sub:restart", "probe", time.Minute); err != nil || !held {
			t.Fatalf("lease after Run stopped: %v, %v; want it free", held, err)
		}
		if err := e.store.ReleaseLease(t.Context(), "sub:restart", "probe"); err != nil {
			t.Fatal(err)
		}
		for i := range 3 {
			e.upsert(t, ctx, cms.KindResource, fmt.Sprintf(`{"id":"b-%d","title":"While stopped"}`, i))
		}
		o := testenv.ServiceOptions(e.clock)
		shortLease(&o)
		again, err := cms.NewService(e.store, &o)
		if err != nil {
			t.Fatal(err)
		}
		sub.Handle = h.handler("second")
		if err := again.Subscribe(sub); err != nil {
			t.Fatal(err)
		}
		run(t, again)
		e.upsert(t, ctx, cms.KindResource, `{"id":"c-0","title":"After the restart"}`)
		want := feedLines(accountFeed(t, e.svc, "acme", start))
		if len(want) != 8 {
			t.Fatalf("feed: %d changes, want 8", len(want))
		}
		eventually(t, "every change", func() bool { return len(h.seen()) >= len(want) })
		if got := h.seen(); !slices.Equal(got, want) {
			t.Errorf("saw\n%q\nwant\n%q", got, want)
		}
		for _, c := range h.snapshot() {
			if id := c.changes[0].ID; c.by == "second" && id[0] == 'a' {
				t.Errorf("the second service was given %s, handled before the restart", id)
			}
		}
	})
}

// TestSubscriptionHandlerFailure: a handler's error, or its panic, gets
// the same page again, and the cursor moves only past a page handled.
func TestSubscriptionHandlerFailure(t *testing.T) {
	forEachChangeDatabase(t, shortLease, func(t *testing.T, e *changes) {
		ctx := e.as(t, "root")
		h := handled{fail: func(n int) error {
			switch n {
			case 0:
				return errors.New("receiver down")
			case 1:
				return errors.New("panic")
			}
			return nil
		}}
		if err := e.svc.Subscribe(cms.Subscription{Name: "flaky", Account: "acme", Handle: h.handler("svc")}); err != nil {
			t.Fatal(err)
		}
		run(t, e.svc)
		start := storedCursor(t, e.store, "flaky")
		e.upsert(t, ctx, cms.KindResource, `{"id":"res-1","title":"One"}`)
		eventually(t, "a page handled", func() bool { return len(h.seen()) > 0 })
		calls := h.snapshot()
		if len(calls) < 3 {
			t.Fatalf("%d calls, want 3", len(calls))
		}
		for i := 1; i < 3; i++ {
			if !slices.Equal(feedLines(calls[i].changes), feedLines(calls[0].changes)) {
				t.Errorf("call %d given %q, want the failed page %q again", i, feedLines(calls[i].changes), feedLines(calls[0].changes))
			}
		}
		want := feedLines(accountFeed(t, e.svc, "acme", start))
		if got := h.seen(); !slices.Equal(got, want) {
			t.Errorf("handled %q, want %q", got, want)
		}
		eventually(t, "the cursor past the page", func() bool {
			c, err := e.store.Cursor(t.Context(), "sub:flaky")
			return err == nil && c != start
		})
	})
}

// TestSubscriptionTwoInstances: two services on one database run the
// same subscription: one at a time (its handler calls never overlap),
// the other taking over when the first stops, and every change written
// through both is handled once, in order.
func TestSubscriptionTwoInstances(t *testing.T) {
	for _, db := range []struct {
		name string
		open func(testing.TB) testenv.Opener
	}{{"sqlite", testenv.SharedSQLite}, {"postgres", testenv.SharedPostgres}} {
		t.Run(db.name, func(t *testing.T) {
			t.Parallel()
			open := db.open(t)
			clock := testenv.NewClock()
			adjust := func(o *cms.Options) { o.Now = time.Now; shortLease(o) }
			firstStore := open(t)
			first := testenv.NewService(t, firstStore, clock, adjust, changeAccounts...)
			o := testenv.ServiceOptions(clock)
			adjust(&o)
			second, err := cms.NewService(open(t), &o)
			if err != nil {
				t.Fatal(err)
			}
			var h handled
			svcs := map[string]*cms.Service{"first": first, "second": second}
			stops := map[string]func(){}
			for _, name := range []string{"first", "second"} {
				if err := svcs[name].Subscribe(cms.Subscription{Name: "shared", Account: "acme", Handle: h.handler(name)}); err != nil {
					t.Fatal(err)
				}
				stops[name] = run(t, svcs[name])
			}
			start := storedCursor(t, firstStore, "shared")
			e := &changes{svc: first, clock: clock}
			ctx := e.as(t, "root")
			write := func(from, to int) {
				var wg sync.WaitGroup
				for w, svc := range []*cms.Service{first, second} {
					wg.Go(func() {
						for i := from; i < to; i++ {
							body := fmt.Sprintf(`{"id":"r%d-%d","title":"Written by %d"}`, w, i, w)
							if _, err := svc.Upsert(ctx, cms.KindResource, []byte(body), nil); err != nil {
								t.Error(err)
								return
							}
						}
					})
				}
				wg.Wait()
			}
			write(0, 10)
			eventually(t, "a page handled", func() bool { return len(h.seen()) > 0 })
			holder := h.snapshot()[0].by
			stops[holder]()
			write(10, 20)
			want := feedLines(accountFeed(t, first, "acme", start))
			if len(want) != 40 {
				t.Fatalf("feed: %d changes, want 40", len(want))
			}
			eventually(t, "every change", func() bool { return len(h.seen()) >= len(want) })
			if got := h.seen(); !slices.Equal(got, want) {
				t.Errorf("handled\n%q\nwant each of\n%q\nonce, in order", got, want)
			}
			if n := h.overlaps.Load(); n != 0 {
				t.Errorf("handler calls overlapped %d times", n)
			}
			by := map[string]int{}
			for _, c := range h.snapshot() {
				by[c.by]++
			}
			if len(by) != 2 {
				t.Errorf("calls by service %v: want the other to take over", by)
			}
		})
	}
}

// TestSubscriptionTakesOverFromDeadHolder: a holder that died without
// releasing the lease is taken over once the lease expires, from the
// cursor it stored.
func TestSubscriptionTakesOverFromDeadHolder(t *testing.T) {
	forEachChangeDatabase(t, shortLease, func(t *testing.T, e *changes) {
		ctx := e.as(t, "root")
		e.upsert(t, ctx, cms.KindResource, `{"id":"res-1","title":"Handled by the dead"}`)
		e.upsert(t, ctx, cms.KindResource, `{"id":"res-2","title":"Not yet"}`)
		feed := accountFeed(t, e.svc, "acme", "")
		if len(feed) != 2 {
			t.Fatalf("feed: %d changes, want 2", len(feed))
		}
		const deadLease = 1500 * time.Millisecond
		taken := time.Now()
		if held, err := e.store.TakeLease(t.Context(), "sub:index", "dead", deadLease); err != nil || !held {
			t.Fatalf("dead holder's lease: %v, %v", held, err)
		}
		if err := e.store.SetCursor(t.Context(), "sub:index", "dead", feed[0].Seq); err != nil {
			t.Fatal(err)
		}
		var h handled
		if err := e.svc.Subscribe(cms.Subscription{Name: "index", Account: "acme", Handle: h.handler("svc")}); err != nil {
			t.Fatal(err)
		}
		run(t, e.svc)
		eventually(t, "the takeover", func() bool { return len(h.seen()) > 0 })
		first := h.snapshot()[0]
		if early := deadLease - first.at.Sub(taken); early > 0 {
			t.Errorf("handled %v before the dead holder's lease expired", early)
		}
		e.upsert(t, ctx, cms.KindResource, `{"id":"res-3","title":"After"}`)
		want := feedLines(accountFeed(t, e.svc, "acme", feed[0].Seq))
		eventually(t, "every change", func() bool { return len(h.seen()) >= len(want) })
		if got := h.seen(); !slices.Equal(got, want) {
			t.Errorf("handled %q, want %q (from the dead holder's cursor)", got, want)
		}
	})
}

// TestSubscribeRefuses: a subscription without a good name, an account,
// a handler or known kinds is invalid; a name taken in the service, or
// one subscribed after Run started, is a conflict.
func TestSubscribeRefuses(t *testing.T) {
	svc := testenv.NewService(t, testenv.OpenSQLiteMemory(t), nil, nil)
	handle := func(context.Context, []cms.FeedChange) error { return nil }
	for _, c := range []struct {
		name string
		sub  cms.Subscription
		code cms.Code
	}{
		{"no name", cms.Subscription{Account: "acme", Handle: handle}, cms.CodeInvalid},
		{"a space", cms.Subscription{Name: "search index", Account: "acme", Handle: handle}, cms.CodeInvalid},
		{"a colon", cms.Subscription{Name: "sub:x", Account: "acme", Handle: handle}, cms.CodeInvalid},
		{"101 characters", cms.Subscription{Name: strings.Repeat("n", 101), Account: "acme", Handle: handle}, cms.CodeInvalid},
		{"no account", cms.Subscription{Name: "index", Handle: handle}, cms.CodeInvalid},
		{"no handler", cms.Subscription{Name: "index", Account: "acme"}, cms.CodeInvalid},
		{"a bad kind", cms.Subscription{Name: "index", Account: "acme", Kinds: []cms.Kind{"user"}, Handle: handle}, cms.CodeInvalid},
	} {
		if err := svc.Subscribe(c.sub); cms.ErrorCode(err) != c.code {
			t.Errorf("%s: %v, want %s", c.name, err, c.code)
		}
	}
	ok := cms.Subscription{Name: "Search_index-2.v1" + strings.Repeat("x", 83), Account: "acme", Handle: handle}
	if err := svc.Subscribe(ok); err != nil {
		t.Fatalf("a good subscription: %v", err)
	}
	if err := svc.Subscribe(ok); cms.ErrorCode(err) != cms.CodeConflict {
		t.Errorf("the same name again: %v, want conflict", err)
	}
	stop := run(t, svc)
	late := 0
	eventually(t, "Run to take the subscriptions", func() bool {
		late++ // a new name each time: a conflict is Run's
		err := svc.Subscribe(cms.Subscription{Name: fmt.Sprintf("late-%d", late), Account: "acme", Handle: handle})
		return cms.ErrorCode(err) == cms.CodeConflict
	})
	stop()
}
