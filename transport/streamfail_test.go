package transport

import (
	"context"
	"iter"
	"net/http"
	"net/http/httptest"
	"testing"

	"github.com/bwcms/cms/cms"
)

// midStreamStore streams the first record of a read by ids, then fails
// with an outage (the next group's query meets a lock or statement
// timeout, or a partition).
type midStreamStore struct{ cms.Store }

func (s midStreamStore) StreamRecords(ctx context.Context, account string, kind cms.Kind, ids []string) iter.Seq2[*cms.Entry, error] {
	return func(yield func(*cms.Entry, error) bool) {
		for e, err := range s.Store.StreamRecords(ctx, account, kind, ids) {
			if err != nil || !yield(e, nil) {
				return
			}
			yield(nil, cms.Unavailable(errOutage))
			return
		}
	}
}

// TestReadFailsBeforeFirstFlush: a read by ids (or a list) whose store
// fails before anything went to the client answers the failure's status
// (503 with Retry-After) instead of cutting the connection: the answer
// is buffered up to flushEvery before its status is sent.
func TestReadFailsBeforeFirstFlush(t *testing.T) {
	t.Parallel()
	e := newEnv(t, envOptions{store: func(tb testing.TB) cms.Store { return midStreamStore{openSQLite(tb)} }})
	for _, id := range []string{"sf1", "sf2"} {
		if w := e.send("admin", http.MethodPost, "/api/bw/v2/resource", `{"id":"`+id+`","title":"T `+id+`","published":true}`, nil); w.Code != http.StatusCreated {
			t.Fatalf("POST %s: %d %s", id, w.Code, w.Body)
		}
	}
	r := httptest.NewRequest(http.MethodGet, "/api/bw/v2/resource/sf1,sf2/published/*", nil)
	r.Header.Set("Authorization", "Bearer "+e.token("admin"))
	w := httptest.NewRecorder()
	cut := func() (cut bool) {
		defer func() {
			if v := recover(); v != nil {
				if v != http.ErrAbortHandler {
					panic(v)
				}
				cut = true
			}
		}()
		e.h.ServeHTTP(w, r)
		return false
	}()
	if cut {
		t.Fatalf("connection cut (status %d already sent, %d bytes buffered): want 503", w.Code, w.Body.Len())
	}
	if w.Code != http.StatusServiceUnavailable || w.Header().Get("Retry-After") == "" {
		t.Fatalf("status %d, Retry-After %q, body %s: want 503 with Retry-After", w.Code, w.Header().Get("Retry-After"), w.Body)
	}
}
