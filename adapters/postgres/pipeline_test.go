package postgres

import (
	"context"
	"database/sql"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/bwcms/cms/adapters/postgres/pgtest"
	"github.com/bwcms/cms/cms"
	"github.com/bwcms/cms/cms/cmstest"
)

// roundTrips records the statements each pipelined round trip sent.
type roundTrips struct {
	mu    sync.Mutex
	trips [][]string
}

func (r *roundTrips) send(ctx context.Context, c *sql.Conn, queries []string, args [][]any) (int64, int, error) {
	r.mu.Lock()
	r.trips = append(r.trips, slices.Clone(queries))
	r.mu.Unlock()
	return sendPipeline(ctx, c, queries, args)
}

func (r *roundTrips) reset() {
	r.mu.Lock()
	r.trips = nil
	r.mu.Unlock()
}

// TestPipelineSendsWritesTogether: a create of a Resource onto two Maps
// sends the writes nobody waits on (its row, alias, terms and the change
// records) in one round trip, at its commit, and everything is stored.
func TestPipelineSendsWritesTogether(t *testing.T) {
	t.Parallel()
	var trips roundTrips
	o := patientOptions()
	o.pipeline = trips.send
	s, err := Open(t.Context(), pgtest.DSN(t), o)
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	svc, ctx := cmstest.BenchService(t, s, nil)
	trips.reset()
	if _, err := svc.Upsert(ctx, cms.KindResource, []byte(`{"id":"r-1","title":"Lake","mapIds":["map-1","map-2"]}`), nil); err != nil {
		t.Fatal(err)
	}
	var last []string
	for _, trip := range trips.trips {
		if len(trip) > len(last) {
			last = trip
		}
	}
	for _, want := range []string{"INSERT INTO records", "INSERT INTO aliases", "INSERT INTO terms", "INSERT INTO changes"} {
		if !slices.ContainsFunc(last, func(q string) bool { return strings.Contains(q, want) }) {
			t.Errorf("the create's largest round trip has no %q: %d round trips:\n%s", want, len(trips.trips), strings.Join(last, "\n"))
		}
	}
	if e, err := s.GetRecord(t.Context(), "acc", cms.KindResource, "r-1"); err != nil || (*e.Record.Common().Title)["en"] != "Lake" {
		t.Fatalf("the created Resource: %+v, %v", e, err)
	}
	if maps, err := s.ResourceMaps(t.Context(), "acc", "r-1", cms.RolePrimary); err != nil || !slices.Equal(maps, []string{"map-1", "map-2"}) {
		t.Errorf("the created Resource's Maps: %v, %v", maps, err)
	}
	for kind, id := range map[cms.Kind]string{cms.KindResource: "r-1", cms.KindMap: "map-1"} {
		if rev, err := s.LastRevision(t.Context(), "acc", kind, id); err != nil || rev.Rev < 1 {
			t.Errorf("%s %s: change record %+v, %v", kind, id, rev, err)
		}
	}
}

// TestPipelineHeldWriteFails: a held write that fails (an alias another
// record took) fails the next statement of its transaction and the
// commit, with the error its caller gives it (a race, which the service
// runs again), and nothing of the transaction is stored.
func TestPipelineHeldWriteFails(t *testing.T) {
	t.Parallel()
	s, err := Open(t.Context(), pgtest.DSN(t), patientOptions())
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	ctx := t.Context()
	put := func(tx cms.Store, id string) error {
		return tx.PutRecords(ctx, []*cms.Entry{{Account: "acc", Updated: time.Now(), New: true,
			Record: &cms.Resource{ID: id, Title: cms.Langs[string]{"en": id}, URLAlias: cms.Langs[string]{"en": "/lake"}}}})
	}
	if err := s.WithTx(ctx, func(tx cms.Store) error { return put(tx, "first") }); err != nil {
		t.Fatal(err)
	}
	for _, read := range []bool{true, false} {
		var readErr error
		err := s.WithTx(ctx, func(tx cms.Store) error {
			if err := put(tx, "second"); err != nil {
				return err
			}
			if !read {
				return nil // the commit sends it
			}
			_, readErr = tx.GetRecord(ctx, "acc", cms.KindResource, "first")
			return readErr
		})
		if !cms.IsRace(err) {
			t.Errorf("read %v: the transaction answered %v, want a race", read, err)
		}
		if read && !cms.IsRace(readErr) {
			t.Errorf("the read after the failed write answered %v, want the write's race", readErr)
		}
		if _, err := s.GetRecord(ctx, "acc", cms.KindResource, "second"); cms.ErrorCode(err) != cms.CodeNotFound {
			t.Errorf("read %v: the failed transaction's record: %v, want not found", read, err)
		}
		if holder, err := s.AliasHolder(ctx, "acc", cms.KindResource, "en", "/lake"); err != nil || holder != "first" {
			t.Errorf("read %v: /lake is held by %q (%v), want first", read, holder, err)
		}
	}
}
