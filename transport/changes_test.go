package transport

import (
	"encoding/json"
	"fmt"
	"net/http"
	"net/url"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/bwcms/cms/cms"
	"github.com/bwcms/cms/internal/testenv"
)

// changesAnswer is the body of GET changes.
type changesAnswer struct {
	Changes []struct {
		Seq  string `json:"seq"`
		Kind string `json:"kind"`
		ID   string `json:"id"`
		Op   string `json:"op"`
		Rev  int64  `json:"rev"`
		Time string `json:"time"`
	} `json:"changes"`
	Next string `json:"next"`
}

// names are the changes as "<kind> <id> <op> <rev>".
func (a changesAnswer) names() []string {
	out := make([]string, len(a.Changes))
	for i, c := range a.Changes {
		out[i] = c.Kind + " " + c.ID + " " + c.Op + " " + strconv.FormatInt(c.Rev, 10)
	}
	return out
}

func (e *env) changes(user, query string) changesAnswer {
	e.t.Helper()
	w := e.send(user, http.MethodGet, "/api/bw/v2/changes?"+query, "", nil)
	if w.Code != http.StatusOK {
		e.t.Fatalf("changes?%s: %d %s", query, w.Code, w.Body)
	}
	var a changesAnswer
	if err := json.Unmarshal(w.Body.Bytes(), &a); err != nil {
		e.t.Fatal(err)
	}
	return a
}

// The changes feed through the API: commit order, deletions included,
// only the kinds the caller may read, paging by next (every change once),
// after=now, and another account's changes never.
func TestChangesFeed(t *testing.T) {
	t.Parallel()
	forEachStore(t, func(t *testing.T, e *env) {
		runFlow(t, e, []step{
			{user: "admin", method: http.MethodPost, path: "/api/bw/v2/resource", body: `{"id":"lake-walk","title":"Lake walk"}`, status: 201},
			{user: "admin", method: http.MethodPost, path: "/api/bw/v2/map", body: `{"id":"lakes","title":"Lakes"}`, status: 201},
			{user: "writer", method: http.MethodPost, path: "/api/bw/v2/resource", body: `{"id":"lake-walk","title":"Lake path"}`, status: 202},
			{user: "admin", method: http.MethodDelete, path: "/api/bw/v2/resource/lake-walk", status: 202},
			{user: "otto", method: http.MethodPost, path: "/api/bw/v2/resource", body: `{"id":"berg-weg","title":"Berg"}`, status: 201},
		})
		want := []string{"resource lake-walk upsert 1", "map lakes upsert 1", "resource lake-walk upsert 2", "resource lake-walk delete 3"}
		all := e.changes("admin", "")
		if got := all.names(); strings.Join(got, "|") != strings.Join(want, "|") {
			t.Fatalf("feed %q, want %q", got, want)
		}
		if all.Next == "" || all.Changes[0].Time == "" {
			t.Errorf("feed %+v", all)
		}
		// Paging by next, one change at a time: each once, in order.
		var walked []string
		after := ""
		for range 10 {
			query := "limit=1"
			if after != "" {
				query += "&after=" + url.QueryEscape(after)
			}
			page := e.changes("admin", query)
			walked = append(walked, page.names()...)
			if len(page.Changes) == 0 {
				break
			}
			after = page.Next
		}
		if strings.Join(walked, "|") != strings.Join(want, "|") {
			t.Errorf("walked %q", walked)
		}
		// Kinds: asked, and as permissions allow.
		if got := e.changes("admin", "kinds=map").names(); len(got) != 1 || got[0] != "map lakes upsert 1" {
			t.Errorf("kinds=map: %q", got)
		}
		if got := e.changes("reader", "").names(); len(got) != 3 || strings.Contains(strings.Join(got, " "), "map") {
			t.Errorf("reader (resource:read): %q", got)
		}
		if got := e.changes("otto", "").names(); len(got) != 1 || got[0] != "resource berg-weg upsert 1" {
			t.Errorf("another account: %q", got)
		}
		// now: nothing, then what comes after.
		now := e.changes("admin", "after=now")
		if len(now.Changes) != 0 || now.Next == "" {
			t.Fatalf("after=now: %+v", now)
		}
		runFlow(t, e, []step{{user: "admin", method: http.MethodPost, path: "/api/bw/v2/map", body: `{"id":"lakes","title":"Lakes and rivers"}`, status: 202}})
		if got := e.changes("admin", "after="+url.QueryEscape(now.Next)).names(); len(got) != 1 || got[0] != "map lakes upsert 2" {
			t.Errorf("after the present: %q", got)
		}
	})
}

// The refusals of the feed: 401, 403 (no kind readable, or only kinds
// not readable asked), 400 for a bad cursor, limit or kind, 410 for a
// cursor older than what is kept.
func TestChangesFeedRefusals(t *testing.T) {
	t.Parallel()
	e := newEnv(t, envOptions{svc: func(o *cms.Options) { o.HistoryKeep = time.Hour }})
	if err := testenv.CreateUsers(t.Context(), e.svc, "acme", testPassword,
		testenv.User{Name: "hooker", Perms: []string{"webhook:*", "file:*"}}); err != nil {
		t.Fatal(err)
	}
	runFlow(t, e, []step{{user: "admin", method: http.MethodPost, path: "/api/bw/v2/resource", body: `{"id":"lake-walk","title":"Lake walk"}`, status: 201}})
	old := e.changes("admin", "").Changes[0].Seq
	wrongRequest := `{"fail":"Wrong request"}`
	for _, s := range []step{
		{name: "POST", user: "admin", method: http.MethodPost, path: "", status: 405},
		{name: "no token", path: "", status: 401, want: `{"fail":"Unauthorized"}`},
		{name: "no kind readable", user: "hooker", path: "", status: 403, want: `{"fail":"Forbidden"}`},
		{name: "forbidden before malformed", user: "hooker", path: "?limit=0", status: 403},
		{name: "only kinds not readable", user: "reader", path: "?kinds=map", status: 403},
		{name: "after not a cursor", user: "admin", path: "?after=abc", status: 400, want: wrongRequest},
		{name: "after with a sign", user: "admin", path: "?after=-1", status: 400},
		{name: "after empty", user: "admin", path: "?after=", status: 400},
		{name: "after twice", user: "admin", path: "?after=now&after=now", status: 400},
		{name: "limit 0", user: "admin", path: "?limit=0", status: 400},
		{name: "limit 1001", user: "admin", path: "?limit=1001", status: 400},
		{name: "unknown kind", user: "admin", path: "?kinds=resource,file", status: 400},
		{name: "empty kind", user: "admin", path: "?kinds=", status: 400},
		{name: "trailing slash", user: "admin", path: "/", status: 404},
	} {
		method := s.method
		if method == "" {
			method = http.MethodGet
		}
		w := e.send(s.user, method, "/api/bw/v2/changes"+s.path, "", nil)
		if w.Code != s.status || s.want != "" && strings.TrimSpace(w.Body.String()) != s.want {
			t.Errorf("%s: %d %s, want %d %s", s.name, w.Code, w.Body, s.status, s.want)
		}
	}
	// Two hours on, the purge removes all but each record's newest: the
	// old cursor has expired.
	runFlow(t, e, []step{{user: "admin", method: http.MethodPost, path: "/api/bw/v2/resource", body: `{"id":"lake-walk","title":"Lake path"}`, status: 202}})
	e.clock.Advance(2 * time.Hour)
	delete(e.tokens, "admin") // expired
	runFlow(t, e, []step{{user: "admin", method: http.MethodPost, path: "/api/bw/v2/resource", body: `{"id":"lake-walk","title":"Lake road"}`, status: 202}})
	if err := e.svc.Purge(t.Context()); err != nil {
		t.Fatal(err)
	}
	w := e.send("admin", http.MethodGet, "/api/bw/v2/changes?after="+url.QueryEscape(old), "", nil)
	if w.Code != http.StatusGone || strings.TrimSpace(w.Body.String()) != `{"fail":"Cursor expired"}` {
		t.Errorf("expired cursor: %d %s", w.Code, w.Body)
	}
}

// Two writers on two instances (one on SQLite) while a reader follows
// the feed through the API: the reader sees every change exactly once, in
// the order the feed has at rest, and each record's revisions in order.
func TestChangesFeedFollowedWhileWriting(t *testing.T) {
	t.Parallel()
	for _, store := range []string{"sqlite", "postgres"} {
		t.Run(store, func(t *testing.T) {
			t.Parallel()
			in := newInstances(t, store, nil)
			tok := in.e.token("admin")
			read := func(i int, after string) changesAnswer {
				w := newRecorder()
				in.hs[i%len(in.hs)].ServeHTTP(w, newRequest(http.MethodGet, "/api/bw/v2/changes?limit=7&after="+url.QueryEscape(after), "", tok))
				var a changesAnswer
				if w.Code != http.StatusOK || json.Unmarshal(w.Body.Bytes(), &a) != nil {
					t.Errorf("follow: %d %s", w.Code, w.Body)
				}
				return a
			}
			start := read(0, "now").Next
			const writers, writes = 2, 40
			var wg sync.WaitGroup
			for wr := range writers {
				wg.Go(func() {
					for i := range writes {
						// Few ids, so revisions of one record come from both writers.
						id := fmt.Sprintf("walk-%d", i%5)
						if code, body := in.post(wr, "/api/bw/v2/resource", fmt.Sprintf(`{"id":%q,"title":"W%d-%d"}`, id, wr, i)); code >= 300 {
							t.Errorf("write: %d %s", code, body)
						}
					}
				})
			}
			writing := make(chan struct{})
			go func() { wg.Wait(); close(writing) }()
			var followed []string
			after, done := start, false
			for i := 0; ; i++ {
				select {
				case <-writing:
					done = true
				default:
				}
				page := read(i, after)
				followed = append(followed, page.names()...)
				after = page.Next
				if done && len(page.Changes) == 0 {
					break
				}
			}
			var atRest []string
			for after := start; ; {
				page := read(0, after)
				if len(page.Changes) == 0 {
					break
				}
				atRest, after = append(atRest, page.names()...), page.Next
			}
			if len(atRest) == 0 || strings.Join(followed, "|") != strings.Join(atRest, "|") {
				t.Fatalf("followed %d changes, the feed at rest has %d:\n%q\n%q", len(followed), len(atRest), followed, atRest)
			}
			last := map[string]int64{}
			for _, n := range followed {
				f := strings.Fields(n)
				rev, _ := strconv.ParseInt(f[3], 10, 64)
				if rev != last[f[1]]+1 && last[f[1]] != 0 {
					t.Errorf("%s: revision %d after %d", f[1], rev, last[f[1]])
				}
				last[f[1]] = rev
			}
		})
	}
}
