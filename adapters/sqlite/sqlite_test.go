package sqlite

import (
	"context"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/bwcms/cms/adapters/internal/bunstore"
	"github.com/bwcms/cms/adapters/internal/bunstoretest"
	"github.com/bwcms/cms/cms"
)

func openTestStore(tb testing.TB) *Store {
	tb.Helper()
	s, err := Open(tb.Context(), filepath.Join(tb.TempDir(), "cms.db"), nil)
	if err != nil {
		tb.Fatal(err)
	}
	tb.Cleanup(func() { s.Close() })
	return s
}

// firstMigrations returns the embedded migrations up to and including n.
func firstMigrations(tb testing.TB, n int) fs.FS {
	tb.Helper()
	sub, err := fs.Sub(migrations, "migrations")
	if err == nil {
		sub, err = bunstoretest.FirstMigrations(sub, n)
	}
	if err != nil {
		tb.Fatal(err)
	}
	return sub
}

func applied(tb testing.TB, s *Store) []string {
	tb.Helper()
	names, err := bunstore.Applied(tb.Context(), s.Write())
	if err != nil {
		tb.Fatal(err)
	}
	return names
}

func TestMigrations(t *testing.T) {
	t.Parallel()
	ctx := t.Context()
	path := filepath.Join(t.TempDir(), "cms.db")

	// An older schema: only the first migration.
	old, err := Open(ctx, path, &Options{migrations: firstMigrations(t, 1)})
	if err != nil {
		t.Fatal(err)
	}
	put := &cms.Entry{Account: "a", Record: &cms.Resource{ID: "r-1", Title: cms.Langs[string]{"en": "kept"},
		URLAlias: cms.Langs[string]{"en": "/kept", "it": "/kept-3"}, POIResourceIDs: cms.NullOf([]string{"r-2"})}, Updated: time.Now()}
	if err := old.PutRecord(ctx, put); err != nil {
		t.Fatal(err)
	}
	if err := old.SetMapResources(ctx, "a", "m-1", cms.RolePrimary, []string{"r-1", "r-3"}); err != nil {
		t.Fatal(err)
	}
	if got := applied(t, old); len(got) != 1 {
		t.Fatalf("old schema applied %v, want one migration", got)
	}
	old.Close()

	// Opening with every migration upgrades it and keeps the data.
	s, err := Open(ctx, path, nil)
	if err != nil {
		t.Fatalf("open older schema: %v", err)
	}
	all, _ := fs.ReadDir(migrations, "migrations")
	if got := applied(t, s); len(got) != len(all)+len(s.DataMigrations()) {
		t.Fatalf("applied %v, want %d migrations", got, len(all)+len(s.DataMigrations()))
	}
	if err := s.CreateAccount(ctx, cms.Account{ID: "a", Langs: cms.Languages{Default: "en", All: []string{"en"}}}); err != nil {
		t.Fatalf("table of a later migration: %v", err)
	}
	e, err := s.GetRecord(ctx, "a", cms.KindResource, "r-1")
	if err != nil || e.Record.(*cms.Resource).Title["en"] != "kept" {
		t.Fatalf("record after upgrade: %v, %v", e, err)
	}
	// The alias and reference tables were rebuilt with their rows.
	if holder, err := s.AliasHolder(ctx, "a", cms.KindResource, "en", "/kept"); err != nil || holder != "r-1" {
		t.Fatalf("alias after upgrade: %q, %v", holder, err)
	}
	if refs, err := s.Referrers(ctx, "a", cms.ReferenceTargets(cms.KindResource), "r-2"); err != nil || len(refs) != 1 || refs[0].FromID != "r-1" {
		t.Fatalf("references after upgrade: %+v, %v", refs, err)
	}
	// Migration 11 split the stored aliases into base and number.
	for lang, want := range map[string]int64{"en": 1, "it": 3} {
		top, err := s.AliasNumbers(ctx, cms.AliasNumberParams{Account: "a", Kind: cms.KindResource, Lang: lang, Bases: []string{"/kept"}})
		if err != nil || top["/kept"] != want {
			t.Fatalf("alias numbers (%s) after upgrade: %v, %v; want %d", lang, top, err, want)
		}
	}
	// Migration 9 rebuilt the assignments in their key's b-tree, lists and
	// order kept, both list indexes back.
	if ids, err := s.MapResources(ctx, "a", "m-1", cms.RolePrimary); err != nil || !slices.Equal(ids, []string{"r-1", "r-3"}) {
		t.Fatalf("assignments after upgrade: %v, %v", ids, err)
	}
	if ids, err := s.ResourceMaps(ctx, "a", "r-3", cms.RolePrimary); err != nil || !slices.Equal(ids, []string{"m-1"}) {
		t.Fatalf("assignments of a Resource after upgrade: %v, %v", ids, err)
	}
	var table string
	var indexes int
	if err := s.Write().QueryRowContext(ctx, "SELECT sql, (SELECT COUNT(*) FROM sqlite_master WHERE type = 'index' AND tbl_name = 'assignments' "+
		"AND name IN ('assignments_resource', 'assignments_map_pos')) FROM sqlite_master WHERE type = 'table' AND name = 'assignments'").Scan(&table, &indexes); err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(table, "WITHOUT ROWID") || indexes != 2 {
		t.Fatalf("assignments after upgrade: %d list indexes, table %s", indexes, table)
	}
	s.Close()

	// Opening again, and twice at once, changes nothing and fails nothing.
	var wg sync.WaitGroup
	errs := make(chan error, 2)
	for range 2 {
		wg.Go(func() {
			s, err := Open(ctx, path, nil)
			if err == nil {
				err = s.Close()
			}
			errs <- err
		})
	}
	wg.Wait()
	close(errs)
	for err := range errs {
		if err != nil {
			t.Fatalf("reopen: %v", err)
		}
	}
	s, err = Open(ctx, path, nil)
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	if got := applied(t, s); len(got) != len(all)+len(s.DataMigrations()) || !slices.IsSorted(got) {
		t.Fatalf("after reopening: applied %v", got)
	}
}

// TestMigrationKeepsWaitingBatches upgrades a schema whose batches kept
// their payloads in the queue rows: a waiting batch is still applied whole.
func TestMigrationKeepsWaitingBatches(t *testing.T) {
	t.Parallel()
	path := filepath.Join(t.TempDir(), "cms.db")
	bunstoretest.UpgradeKeepsWaitingBatch(t, func(n int) (*bunstore.Store, error) {
		o := &Options{}
		if n > 0 {
			o.migrations = firstMigrations(t, n)
		}
		s, err := Open(t.Context(), path, o)
		if err != nil {
			return nil, err
		}
		return s.Store, nil
	})
}

func explain(tb testing.TB, s *Store, p cms.ListParams) string {
	tb.Helper()
	query, args := s.ListQuery(p, "", 256)
	return explainQuery(tb, s, query, args)
}

// TestBackgroundCheckpoints: a commit leaves its pages in the WAL (the
// writer does not checkpoint); the background connection copies them into
// the database file soon after. With CheckpointEvery negative, SQLite's
// automatic checkpoint does it in the commit.
func TestBackgroundCheckpoints(t *testing.T) {
	t.Parallel()
	const payload = 8 << 20 // 2,048 pages: past the automatic checkpoint's 1,000
	fileSize := func(path string) int64 {
		fi, err := os.Stat(path)
		if err != nil {
			t.Fatal(err)
		}
		return fi.Size()
	}
	write := func(every time.Duration) (path string, s *Store) {
		path = filepath.Join(t.TempDir(), "cms.db")
		s, err := Open(t.Context(), path, &Options{CheckpointEvery: every})
		if err != nil {
			t.Fatal(err)
		}
		t.Cleanup(func() { s.Close() })
		b := &cms.Batch{ID: "big", Account: "a", Kind: cms.KindResource, Payload: make([]byte, payload), Count: 1,
			Status: cms.BatchWaiting, Requested: time.Now(), StatusAt: time.Now()}
		if err := s.EnqueueBatch(t.Context(), b); err != nil {
			t.Fatal(err)
		}
		return path, s
	}

	path, _ := write(time.Hour)
	if n := fileSize(path); n >= payload {
		t.Errorf("the commit checkpointed: database file %d bytes", n)
	}

	path, _ = write(10 * time.Millisecond)
	deadline := time.Now().Add(10 * time.Second)
	for fileSize(path) < payload {
		if time.Now().After(deadline) {
			t.Fatalf("no background checkpoint: database file %d bytes", fileSize(path))
		}
		time.Sleep(10 * time.Millisecond)
	}

	path, _ = write(-1)
	if n := fileSize(path); n < payload {
		t.Errorf("SQLite's automatic checkpoint did not run: database file %d bytes", n)
	}
}

func TestUpgradeRepairsAliases(t *testing.T) {
	t.Parallel()
	path := filepath.Join(t.TempDir(), "cms.db")
	all, _ := fs.ReadDir(migrations, "migrations")
	open := func(o *Options) func() cms.Store {
		return func() cms.Store {
			s, err := Open(t.Context(), path, o)
			if err != nil {
				t.Fatal(err)
			}
			return s
		}
	}
	bunstoretest.UpgradeRepairsAliases(t, open(&Options{migrations: firstMigrations(t, len(all))}), open(nil))
}

// TestAliasNumberUsesIndex shows that the next number of an alias base is
// one search of the alias number index on its whole equality prefix
// (account, kind, language, base), read from its highest n: not a scan of
// the aliases that share the base.
func TestAliasNumberUsesIndex(t *testing.T) {
	t.Parallel()
	s := openTestStore(t)
	bunstoretest.FillNumberedAliases(t, s.Store, 3000)
	for _, c := range []struct {
		skip  []int64
		below int64
	}{{nil, 0}, {[]int64{3000, 2999}, 0}, {nil, 2000}} {
		skip := c.skip
		p := cms.AliasNumberParams{Account: "a", Kind: cms.KindResource, Lang: "en", Bases: []string{"/t"}, Skip: skip, Below: c.below}
		query, args := s.AliasNumberQuery(p, p.Bases)
		var rows []struct {
			ID     int    `bun:"id"`
			Parent int    `bun:"parent"`
			NotUse int    `bun:"notused"`
			Detail string `bun:"detail"`
		}
		if err := s.Write().NewRaw("EXPLAIN QUERY PLAN "+query, args...).Scan(t.Context(), &rows); err != nil {
			t.Fatal(err)
		}
		var b strings.Builder
		for _, r := range rows {
			fmt.Fprintln(&b, r.Detail)
		}
		plan := b.String()
		// One entry of the index, the highest, and its row.
		if !strings.Contains(plan, "INDEX aliases_number (<expr>=? AND base=?") ||
			strings.Contains(plan, "SCAN aliases") || strings.Contains(plan, "TEMP B-TREE") {
			t.Fatalf("plan (skip %v) does not search aliases_number on its prefix:\n%s", skip, plan)
		}
		t.Logf("query plan (skip %v):\n%s", skip, plan)
		top, err := s.AliasNumbers(t.Context(), p)
		want := int64(3000 - len(skip))
		if c.below > 0 {
			want = c.below - 1
		}
		if err != nil || top["/t"] != want {
			t.Fatalf("AliasNumbers = %v, %v; want /t %d", top, err, want)
		}
	}
}

// TestRecordReadsUseIndexes: reading Resources by id (with their
// assignment lists, read in the same statement) and a page of a Map's
// Resources search assignments on the whole key they have, on a filled
// database never analyzed and again after ANALYZE: never one account's
// whole list of assignments for every record read.
func TestRecordReadsUseIndexes(t *testing.T) {
	t.Parallel()
	s := openTestStore(t)
	bunstoretest.FillAssigned(t, s.Store, 3000)
	ids := []string{"r00001", "r02000"}
	for _, state := range []string{"never analyzed", "analyzed"} {
		if state == "analyzed" {
			if _, err := s.Write().ExecContext(t.Context(), "ANALYZE"); err != nil {
				t.Fatal(err)
			}
		}
		query, args := s.RecordsQuery("a", cms.KindResource, ids)
		plan := explainQuery(t, s, query, args)
		if !strings.Contains(plan, "SEARCH assignments USING INDEX assignments_resource (<expr>=?)") ||
			!strings.Contains(plan, "SEARCH records USING") || strings.Contains(plan, "SCAN records") {
			t.Errorf("%s: Resources by id:\n%s", state, plan)
		}
		query, args = s.RecordsQuery("a", cms.KindMap, []string{"m01"})
		if plan := explainQuery(t, s, query, args); !strings.Contains(plan, "assignments_map_pos (<expr>=?)") || strings.Contains(plan, "SCAN assignments") {
			t.Errorf("%s: Maps by id:\n%s", state, plan)
		}
		query, args = s.ListQuery(cms.ListParams{Account: "a", Kind: cms.KindResource, Published: cms.PublishedAny, MapID: "m03", Limit: 50}, "", 50)
		if plan := explainQuery(t, s, query, args); !strings.Contains(plan, "(account=? AND map_id=?)") ||
			!strings.Contains(plan, "assignments_resource (<expr>=?)") || strings.Contains(plan, "SCAN assignments") {
			t.Errorf("%s: a page of a Map's Resources:\n%s", state, plan)
		}
	}
}

func explainQuery(tb testing.TB, s *Store, query string, args []any) string {
	tb.Helper()
	// Through database/sql, as the store runs it: numbered parameters
	// (?1) are SQLite's, not bun's.
	rows, err := s.Write().DB.QueryContext(context.Background(), "EXPLAIN QUERY PLAN "+query, args...)
	if err != nil {
		tb.Fatal(err)
	}
	defer rows.Close()
	var b strings.Builder
	for rows.Next() {
		var id, parent, notUsed int
		var detail string
		if err := rows.Scan(&id, &parent, &notUsed, &detail); err != nil {
			tb.Fatal(err)
		}
		fmt.Fprintln(&b, detail)
	}
	if err := rows.Err(); err != nil {
		tb.Fatal(err)
	}
	return b.String()
}

// A transaction whose context ends commits nothing, though its statements
// do not watch the context (DetachTxStatements): the writes made before
// the end, and those after it, are rolled back.
func TestEndedContextRollsBackTransaction(t *testing.T) {
	s := openTestStore(t)
	ctx, cancel := context.WithCancel(t.Context())
	put := func(tx cms.Store, id string) error {
		return tx.PutRecord(ctx, &cms.Entry{Account: "a", Record: &cms.Resource{ID: id, Title: cms.Langs[string]{"en": id}}, Updated: time.Now()})
	}
	err := s.WithTx(ctx, func(tx cms.Store) error {
		if err := put(tx, "before"); err != nil {
			return err
		}
		cancel()
		put(tx, "after") // fails once database/sql has rolled back, or is rolled back with the rest
		return nil
	})
	if err == nil {
		t.Fatal("the transaction of an ended context committed")
	}
	got, err := s.ExistingIDs(t.Context(), "a", cms.KindResource, []string{"before", "after"})
	if err != nil || len(got) != 0 {
		t.Fatalf("records of the rolled back transaction: %v %v", got, err)
	}
	// The writer is free again.
	ctx = t.Context()
	if err := s.WithTx(ctx, func(tx cms.Store) error { return put(tx, "next") }); err != nil {
		t.Fatal(err)
	}
}

// TestReady: ready as opened; not with a migration missing or one of a
// newer version in the database.
func TestReady(t *testing.T) {
	t.Parallel()
	bunstoretest.ReadyFollowsMigrations(t, openTestStore(t))
}

func TestAliasNormalFormMigration(t *testing.T) {
	t.Parallel()
	bunstoretest.AliasNormalFormMigration(t, openTestStore(t).Store)
}

func TestUpgradeFillsTerms(t *testing.T) {
	t.Parallel()
	sub, _ := fs.Sub(migrations, "migrations")
	// From before the terms table, and from before the terms column.
	for _, first := range []string{"20261127000019", "20261127000021"} {
		t.Run(first, func(t *testing.T) {
			t.Parallel()
			path := filepath.Join(t.TempDir(), "cms.db")
			before, err := bunstoretest.MigrationsBefore(sub, first)
			if err != nil {
				t.Fatal(err)
			}
			open := func(o *Options) func() cms.Store {
				return func() cms.Store {
					s, err := Open(t.Context(), path, o)
					if err != nil {
						t.Fatal(err)
					}
					return s
				}
			}
			bunstoretest.UpgradeFillsTerms(t, open(&Options{migrations: firstMigrations(t, before)}), open(nil))
		})
	}
}

// TestUnusedFilesByReference: see bunstoretest.UnusedFilesByReference.
func TestUnusedFilesByReference(t *testing.T) {
	t.Parallel()
	bunstoretest.UnusedFilesByReference(t, openTestStore(t).Store)
}

// TestWALStartsOver: under a steady stream of writes the WAL is copied
// and started over, so its file stays a fraction of what was written. A
// checkpoint on its own connection alone never finds the WAL wholly
// copied when a write begins, and the file grew by every write.
func TestWALStartsOver(t *testing.T) {
	t.Parallel()
	const (
		payload = 64 << 10 // 16 pages a write
		writes  = 3000     // about 200 MB through the WAL
		bound   = writes * payload / 3
	)
	path := filepath.Join(t.TempDir(), "cms.db")
	s, err := Open(t.Context(), path, &Options{CheckpointEvery: 5 * time.Millisecond})
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	largest := int64(0)
	for i := range writes {
		b := &cms.Batch{ID: fmt.Sprintf("b%d", i), Account: "a", Kind: cms.KindResource, Payload: make([]byte, payload), Count: 1,
			Status: cms.BatchWaiting, Requested: time.Now(), StatusAt: time.Now()}
		if err := s.EnqueueBatch(t.Context(), b); err != nil {
			t.Fatal(err)
		}
		if fi, err := os.Stat(path + "-wal"); err == nil {
			largest = max(largest, fi.Size())
		}
	}
	if largest > bound {
		t.Errorf("the WAL grew to %d bytes with %d written: it never started over", largest, writes*payload)
	}
	t.Logf("largest WAL %d bytes of %d written", largest, writes*payload)
}
