package postgres

import (
	"strings"
	"testing"
	"time"

	"github.com/bwcms/cms/adapters/internal/bunstoretest"
	"github.com/bwcms/cms/cms/cmstest"
)

// planOverviewRecords is how many Resources TestOverviewStatementsUseIndexes
// fills.
const planOverviewRecords = 100_000

// TestOverviewStatementsUseIndexes runs the overview's store calls
// (cmstest.OverviewOperations) over 100,000 Resources of account "a"
// (bunstoretest.FillAssigned), 100,000 of its changes beside 100,000 of
// other accounts, and 2,000 finished and 5 waiting batches, and explains
// every statement, as given and as a generic plan, on the tables never
// analyzed (autovacuum off) and again after VACUUM ANALYZE: the counts read the
// records' key and the terms' key, the newest changes the feed's indexes
// backwards, the running batches batches_running; none scans a table
// sequentially or filters a scan by a key's equality. It logs what the
// service's calls take (-v).
func TestOverviewStatementsUseIndexes(t *testing.T) {
	if testing.Short() {
		t.Skip("fills 100,000 records")
	}
	t.Parallel()
	var log bunstoretest.StatementLog
	s := openTraced(t, &log)
	noAutovacuum(t, s)
	for _, table := range []string{"changes", "batches"} {
		if _, err := s.Write().ExecContext(t.Context(), "ALTER TABLE "+table+" SET (autovacuum_enabled = false)"); err != nil {
			t.Fatal(err)
		}
	}
	bunstoretest.FillAssigned(t, s.Store, planOverviewRecords)
	fillChanges(t, s)
	_, err := s.Write().ExecContext(t.Context(), `INSERT INTO changes (commit_seq, account, kind, record_id, rev, op, time, author, document, lists)
		SELECT ? + n + 1, 'a', CASE WHEN n % 50 = 0 THEN 'map' ELSE 'resource' END, 'r' || n, 1, 'upsert', 1700000000000000 + n, 'filler',
			'{"id":"f"}', NULL FROM generate_series(0, ?) AS n`, planChanges, planOverviewRecords-1)
	if err == nil {
		_, err = s.Write().ExecContext(t.Context(), "SELECT setval('change_commit_seq', ?)", planChanges+planOverviewRecords)
	}
	if err == nil {
		_, err = s.Write().ExecContext(t.Context(), `INSERT INTO batches (id, account, kind, payload, count, status, requested_at, status_at)
			SELECT 'run-' || n, 'a', 'resource', '', 10, 'waiting', 1700000000000000 + n, 1700000000000000 + n FROM generate_series(0, 4) AS n`)
	}
	if err != nil {
		t.Fatal(err)
	}
	log.Record(true)
	cmstest.OverviewOperations(t, s)
	log.Record(false)
	ran := log.Statements()
	want := map[string]string{
		"FROM records WHERE":                        "records_pkey",
		"FROM terms WHERE":                          "terms_pkey",
		"WHERE account || '/' || kind = ? ORDER BY": "Index Scan Backward using changes_kind on changes",
		"FROM batches":                              "Index Scan using batches_running on batches",
	}
	for _, state := range []string{"never analyzed", "vacuumed and analyzed"} {
		if state != "never analyzed" {
			// As autovacuum leaves tables that took many inserts (its
			// insert threshold): the visibility map set, so a count
			// reads the index alone. Before (never analyzed) it goes
			// through the key and reads the pages it names; analyzed
			// but never vacuumed, a count of an account holding every
			// record may be a sequential scan, the planner's right
			// choice there, which autovacuum soon takes away.
			if !vacuumAllVisible(t, s, "records", "terms", "changes", "batches") {
				t.Logf("%s: VACUUM could not mark the tables' pages visible to all (another session of the server holds an older snapshot): the plans of this state are not checked", state)
				continue
			}
		}
		found := map[string]bool{}
		for query, args := range ran {
			for _, plan := range []string{explain(t, s, query, args), explainGeneric(t, s, query, args)} {
				if bad := changesPlanLine(plan); bad != "" {
					t.Errorf("%s: %q\n%s\nplan:\n%s", state, bad, query, plan)
				}
				if bad := badPlanLine(plan); bad != "" {
					t.Errorf("%s: %q\n%s\nplan:\n%s", state, bad, query, plan)
				}
				if strings.Contains(plan, "Sort") && !strings.Contains(query, "UNION ALL") {
					t.Errorf("%s: a sort\n%s\nplan:\n%s", state, query, plan)
				}
				for part, index := range want {
					if strings.Contains(query, part) {
						found[part] = true
						if state != "never analyzed" && strings.Contains(query, "count(*)") {
							index = "Index Only Scan using " + index
						}
						if !strings.Contains(plan, index) {
							t.Errorf("%s: want %q in the plan of\n%s\nplan:\n%s", state, index, query, plan)
						}
					}
				}
			}
		}
		for part := range want {
			if !found[part] {
				t.Errorf("no statement of %q ran", part)
			}
		}
	}
	bunstoretest.OverviewFigures(t, s)
}

// vacuumAllVisible vacuums and analyzes tables until VACUUM has marked
// most of records' and terms' pages visible to all, as autovacuum leaves
// them, and reports whether it did within a minute. It cannot while any
// session of the server (another test's long transaction) holds a
// snapshot older than the rows: then a count reads the table, rightly.
func vacuumAllVisible(t *testing.T, s *Store, tables ...string) bool {
	t.Helper()
	deadline := time.Now().Add(time.Minute)
	for {
		for _, table := range tables {
			if _, err := s.Write().ExecContext(t.Context(), "VACUUM ANALYZE "+table); err != nil {
				t.Fatal(err)
			}
		}
		var behind int
		err := s.Write().QueryRowContext(t.Context(), `SELECT count(*) FROM pg_class
			WHERE relnamespace = current_schema()::regnamespace AND relname IN ('records', 'terms')
			AND relallvisible < relpages * 9 / 10`).Scan(&behind)
		if err != nil {
			t.Fatal(err)
		}
		if behind == 0 {
			return true
		}
		if time.Now().After(deadline) {
			return false
		}
		time.Sleep(time.Second)
	}
}
