package transport

import (
	"context"
	"errors"
	"iter"
	"net/http/httptest"
	"sync/atomic"
	"testing"

	"github.com/bwcms/cms/cms"
)

// raceStore fails the first races transactions that put a record with a
// write race, and every call with an outage while down is set.
type raceStore struct {
	cms.Store
	races *atomic.Int32
	down  *atomic.Bool
}

var errOutage = errors.New("dial tcp 127.0.0.1:5432: connect: connection refused")

func (s raceStore) WithTx(ctx context.Context, fn func(cms.Store) error) error {
	if s.down.Load() {
		return cms.Unavailable(errOutage)
	}
	return s.Store.WithTx(ctx, func(tx cms.Store) error {
		if err := fn(tx); err != nil {
			return err
		}
		if s.races.Add(-1) >= 0 {
			return cms.Race(errors.New("deadlock detected (SQLSTATE 40P01)"))
		}
		return nil
	})
}

func (s raceStore) GetRecord(ctx context.Context, account string, kind cms.Kind, id string) (*cms.Entry, error) {
	if s.down.Load() {
		return nil, cms.Unavailable(errOutage)
	}
	return s.Store.GetRecord(ctx, account, kind, id)
}

// TestWriteRaceRetried: a transaction that meets another writer is run
// again before any answer; past Options.TxAttempts the answer is 503 with
// Retry-After, and nothing is stored.
func TestWriteRaceRetried(t *testing.T) {
	t.Parallel()
	races, down := new(atomic.Int32), new(atomic.Bool)
	e := newEnv(t, envOptions{
		svc:   func(o *cms.Options) { o.TxAttempts = 3 },
		store: func(tb testing.TB) cms.Store { return raceStore{Store: openSQLite(tb), races: races, down: down} },
	})
	races.Store(2)
	runFlow(t, e, []step{
		{name: "two races, third attempt", user: "admin", method: "POST", path: "/api/bw/v2/resource",
			body: `{"id":"raced","title":"Raced"}`, status: 201},
	})
	races.Store(3)
	runFlow(t, e, []step{
		{name: "three races: given up", user: "admin", method: "POST", path: "/api/bw/v2/resource",
			body: `{"id":"lost","title":"Lost"}`, status: 503, want: `{"fail":"Service unavailable"}`,
			check: func(t *testing.T, _ *env, w *httptest.ResponseRecorder) {
				if got := w.Header().Get("Retry-After"); got != "1" {
					t.Errorf("Retry-After %q, want 1", got)
				}
			}},
		{name: "nothing stored", user: "admin", method: "GET", path: "/api/bw/v2/resource/lost/published/*", status: 404},
		{name: "the first is there", user: "admin", method: "GET", path: "/api/bw/v2/resource/raced/published/*", status: 200},
	})
	down.Store(true)
	runFlow(t, e, []step{
		{name: "store down: write", user: "admin", method: "POST", path: "/api/bw/v2/resource",
			body: `{"id":"later"}`, status: 503, want: `{"fail":"Service unavailable"}`,
			check: func(t *testing.T, _ *env, w *httptest.ResponseRecorder) {
				if got := w.Header().Get("Retry-After"); got != "5" {
					t.Errorf("Retry-After %q, want 5", got)
				}
			}},
		{name: "store down: read", user: "admin", method: "GET", path: "/api/bw/v2/resource/raced/published/*", status: 503,
			want: `{"fail":"Service unavailable"}`},
	})
	down.Store(false)
	runFlow(t, e, []step{
		{name: "back up", user: "admin", method: "POST", path: "/api/bw/v2/resource", body: `{"id":"later"}`, status: 201},
	})
}

func (s raceStore) GetRecords(ctx context.Context, account string, kind cms.Kind, ids []string) ([]*cms.Entry, error) {
	if s.down.Load() {
		return nil, cms.Unavailable(errOutage)
	}
	return s.Store.GetRecords(ctx, account, kind, ids)
}

func (s raceStore) StreamRecords(ctx context.Context, account string, kind cms.Kind, ids []string) iter.Seq2[*cms.Entry, error] {
	if s.down.Load() {
		return func(yield func(*cms.Entry, error) bool) { yield(nil, cms.Unavailable(errOutage)) }
	}
	return s.Store.StreamRecords(ctx, account, kind, ids)
}
