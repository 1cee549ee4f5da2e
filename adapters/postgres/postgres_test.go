package postgres

import (
	"io/fs"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/bwcms/cms/adapters/internal/bunstore"
	"github.com/bwcms/cms/adapters/internal/bunstoretest"
	"github.com/bwcms/cms/adapters/postgres/pgtest"
	"github.com/bwcms/cms/cms"
	_ "github.com/jackc/pgx/v5/stdlib"
)

func openTestStore(tb testing.TB, opts *Options) *Store {
	tb.Helper()
	dsn := pgtest.DSN(tb)
	if opts == nil {
		opts = &Options{MaxConns: 8}
	}
	s, err := Open(tb.Context(), dsn, opts)
	if err != nil {
		tb.Fatal(err)
	}
	tb.Cleanup(func() { s.Close() })
	return s
}

var _ cms.Store = (*Store)(nil)

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

func TestMigrations(t *testing.T) {
	t.Parallel()
	ctx := t.Context()
	dsn := pgtest.DSN(t)

	old, err := Open(ctx, dsn, &Options{MaxConns: 4, migrations: firstMigrations(t, 1)})
	if err != nil {
		t.Fatal(err)
	}
	put := &cms.Entry{Account: "a", Record: &cms.Resource{ID: "r-1", Title: cms.Langs[string]{"en": "kept"},
		URLAlias: cms.Langs[string]{"en": "/kept-4"}}, Updated: time.Now()}
	if err := old.PutRecord(ctx, put); err != nil {
		t.Fatal(err)
	}
	old.Close()

	// Three instances start at once on the older schema: the advisory lock
	// lets one migrate, the others find it done.
	var wg sync.WaitGroup
	errs := make(chan error, 3)
	for range 3 {
		wg.Go(func() {
			s, err := Open(ctx, dsn, &Options{MaxConns: 4})
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
			t.Fatalf("open older schema: %v", err)
		}
	}
	s, err := Open(ctx, dsn, &Options{MaxConns: 4})
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	names, err := bunstore.Applied(ctx, s.Write())
	all, _ := fs.ReadDir(migrations, "migrations")
	if err != nil || len(names) != len(all)+len(s.DataMigrations()) {
		t.Fatalf("applied %v (%v), want %d migrations", names, err, len(all)+len(s.DataMigrations()))
	}
	e, err := s.GetRecord(ctx, "a", cms.KindResource, "r-1")
	if err != nil || e.Record.(*cms.Resource).Title["en"] != "kept" {
		t.Fatalf("record after upgrade: %v, %v", e, err)
	}
	// Migration 11 split the stored aliases into base and number.
	top, err := s.AliasNumbers(ctx, cms.AliasNumberParams{Account: "a", Kind: cms.KindResource, Lang: "en", Bases: []string{"/kept"}})
	if err != nil || top["/kept"] != 4 {
		t.Fatalf("alias numbers after upgrade: %v, %v; want /kept 4", top, err)
	}

	// Migration 7: documents are text (a JSONB one converted), new ones
	// compressed with lz4 when the server has it.
	var docType string
	if err := s.Write().QueryRowContext(ctx, "SELECT data_type FROM information_schema.columns "+
		"WHERE table_schema = current_schema() AND table_name = 'records' AND column_name = 'doc'").Scan(&docType); err != nil || docType != "text" {
		t.Errorf("records.doc is %q (%v), want text", docType, err)
	}
	big := &cms.Entry{Account: "a", Record: &cms.Resource{ID: "r-2", Title: cms.Langs[string]{"en": strings.Repeat("long title ", 500)}},
		Updated: time.Now()}
	if err := s.PutRecord(ctx, big); err != nil {
		t.Fatal(err)
	}
	var lz4, compression string
	if err := s.Write().QueryRowContext(ctx, "SELECT COALESCE((SELECT 'lz4' FROM pg_settings "+
		"WHERE name = 'default_toast_compression' AND 'lz4' = ANY (enumvals)), ''), "+
		"COALESCE(pg_column_compression(doc), '') FROM records WHERE id = 'r-2'").Scan(&lz4, &compression); err != nil {
		t.Fatal(err)
	}
	if compression != lz4 {
		t.Errorf("a new document is compressed with %q, want %q", compression, lz4)
	}
	if e, err := s.GetRecord(ctx, "a", cms.KindResource, "r-2"); err != nil || e.Record.(*cms.Resource).Title["en"] != big.Record.(*cms.Resource).Title["en"] {
		t.Errorf("the long document read back: %v", err)
	}
}

// TestMigrationKeepsWaitingBatches upgrades a schema whose batches kept
// their payloads in the queue rows: a waiting batch is still applied whole.
func TestMigrationKeepsWaitingBatches(t *testing.T) {
	t.Parallel()
	dsn := pgtest.DSN(t)
	bunstoretest.UpgradeKeepsWaitingBatch(t, func(n int) (*bunstore.Store, error) {
		o := &Options{MaxConns: 2}
		if n > 0 {
			o.migrations = firstMigrations(t, n)
		}
		s, err := Open(t.Context(), dsn, o)
		if err != nil {
			return nil, err
		}
		return s.Store, nil
	})
}

func TestUpgradeRepairsAliases(t *testing.T) {
	t.Parallel()
	dsn := pgtest.DSN(t)
	all, _ := fs.ReadDir(migrations, "migrations")
	open := func(o *Options) func() cms.Store {
		return func() cms.Store {
			s, err := Open(t.Context(), dsn, o)
			if err != nil {
				t.Fatal(err)
			}
			return s
		}
	}
	bunstoretest.UpgradeRepairsAliases(t, open(&Options{MaxConns: 4, migrations: firstMigrations(t, len(all))}), open(&Options{MaxConns: 4}))
}

// TestAliasNumberUsesIndex shows that the next number of an alias base is
// one backward scan of the alias number index on its whole equality
// prefix (account, kind, language, base), stopped at the first row: not a
// scan of the aliases that share the base.
func TestAliasNumberUsesIndex(t *testing.T) {
	t.Parallel()
	s := openTestStore(t, patientOptions())
	bunstoretest.FillNumberedAliases(t, s.Store, 3000)
	for _, c := range []struct {
		skip  []int64
		below int64
	}{{nil, 0}, {[]int64{3000, 2999}, 0}, {nil, 2000}} {
		skip := c.skip
		p := cms.AliasNumberParams{Account: "a", Kind: cms.KindResource, Lang: "en", Bases: []string{"/t"}, Skip: skip, Below: c.below}
		query, args := s.AliasNumberQuery(p, p.Bases)
		text := explain(t, s, query, args)
		if !strings.Contains(text, "Scan Backward using aliases_number on aliases") ||
			!strings.Contains(text, "Index Cond: ((((((account || '/'::text) || kind) || '/'::text) || lang) = 'a/resource/en'::text) AND (base = value.value)") ||
			!strings.Contains(text, "Limit") || strings.Contains(text, "Seq Scan on aliases") || strings.Contains(text, "Sort") {
			t.Fatalf("plan (skip %v) does not scan aliases_number on its prefix:\n%s", skip, text)
		}
		t.Logf("query plan (skip %v):\n%s", skip, text)
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

// TestRecordReadsUseIndexes: reading Resources and Maps by id (with their
// assignment lists, read in the same statement) and a page of a Map's
// Resources search assignments by index on the whole key they have, on a
// filled database never analyzed (autovacuum off on its tables) and
// again after ANALYZE: never a scan of the assignments for every record.
func TestRecordReadsUseIndexes(t *testing.T) {
	t.Parallel()
	s := openTestStore(t, patientOptions())
	assertSchema(t, s)
	noAutovacuum(t, s)
	bunstoretest.FillAssigned(t, s.Store, 3000)
	for _, state := range []string{"never analyzed", "analyzed"} {
		if state == "analyzed" {
			analyzeSchema(t, s)
		}
		// Each id a look-up of the key, each Resource's assignments a
		// look-up of their index, statistics or not.
		query, args := s.RecordsQuery("a", cms.KindResource, []string{"r00001", "r02000"})
		plan := explain(t, s, query, args)
		if !strings.Contains(plan, "assignments_resource") || !strings.Contains(plan, "using records_pkey on records") ||
			!strings.Contains(plan, "(id = wanted.wanted_key)") || strings.Contains(plan, "Seq Scan") {
			t.Errorf("%s: Resources by id:\n%s", state, plan)
		}
		query, args = s.RecordsQuery("a", cms.KindMap, []string{"m01"})
		if plan := explain(t, s, query, args); !strings.Contains(plan, "assignments_map_pos") ||
			!strings.Contains(plan, "using records_pkey on records") || strings.Contains(plan, "Seq Scan") {
			t.Errorf("%s: Maps by id:\n%s", state, plan)
		}
		query, args = s.ListQuery(cms.ListParams{Account: "a", Kind: cms.KindResource, Published: cms.PublishedAny, MapID: "m03", Limit: 50}, "", 50)
		if plan := explain(t, s, query, args); !strings.Contains(plan, "map_id = 'm03'") || strings.Contains(plan, "Seq Scan") {
			t.Errorf("%s: a page of a Map's Resources:\n%s", state, plan)
		}
	}
}

// TestReady: ready as opened; not with a migration missing or one of a
// newer version in the database.
func TestReady(t *testing.T) {
	t.Parallel()
	bunstoretest.ReadyFollowsMigrations(t, openTestStore(t, nil))
}

func TestAliasNormalFormMigration(t *testing.T) {
	t.Parallel()
	bunstoretest.AliasNormalFormMigration(t, openTestStore(t, nil).Store)
}

func TestUpgradeFillsTerms(t *testing.T) {
	t.Parallel()
	sub, _ := fs.Sub(migrations, "migrations")
	// From before the terms table, and from before the terms column.
	for _, first := range []string{"20261127000019", "20261127000021"} {
		t.Run(first, func(t *testing.T) {
			t.Parallel()
			dsn := pgtest.DSN(t)
			before, err := bunstoretest.MigrationsBefore(sub, first)
			if err != nil {
				t.Fatal(err)
			}
			open := func(o *Options) func() cms.Store {
				return func() cms.Store {
					s, err := Open(t.Context(), dsn, o)
					if err != nil {
						t.Fatal(err)
					}
					return s
				}
			}
			bunstoretest.UpgradeFillsTerms(t, open(&Options{MaxConns: 4, migrations: firstMigrations(t, before)}), open(&Options{MaxConns: 4}))
		})
	}
}

// TestUnusedFilesByReference: see bunstoretest.UnusedFilesByReference.
func TestUnusedFilesByReference(t *testing.T) {
	t.Parallel()
	bunstoretest.UnusedFilesByReference(t, openTestStore(t, nil).Store)
}
