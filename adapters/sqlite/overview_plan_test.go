package sqlite

import (
	"context"
	"strings"
	"testing"

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
// every statement on the database never analyzed and again after
// ANALYZE: the counts read the key's index of the kind (the records'
// own rows never) and the terms' key, the newest changes the feed's
// indexes backwards, the running batches batches_running; none scans a
// table. It logs what the service's calls take (-v).
func TestOverviewStatementsUseIndexes(t *testing.T) {
	if testing.Short() {
		t.Skip("fills 100,000 records")
	}
	t.Parallel()
	var log bunstoretest.StatementLog
	s := openTraced(t, &log)
	bunstoretest.FillAssigned(t, s.Store, planOverviewRecords)
	fillChanges(t, s)
	_, err := s.Write().ExecContext(t.Context(), `WITH RECURSIVE x(n) AS (SELECT 0 UNION ALL SELECT n + 1 FROM x WHERE n < ?)
		INSERT INTO changes (account, kind, record_id, rev, op, time, author, document, lists)
		SELECT 'a', CASE WHEN n % 50 = 0 THEN 'map' ELSE 'resource' END, 'r' || n, 1, 'upsert', 1700000000000000 + n, 'filler',
			'{"id":"f"}', NULL FROM x`, planOverviewRecords-1)
	if err == nil {
		_, err = s.Write().ExecContext(t.Context(), `WITH RECURSIVE x(n) AS (SELECT 0 UNION ALL SELECT n + 1 FROM x WHERE n < 4)
			INSERT INTO batches (id, account, kind, payload, count, status, requested_at, status_at)
			SELECT 'run-' || n, 'a', 'resource', x'', 10, 'waiting', 1700000000000000 + n, 1700000000000000 + n FROM x`)
	}
	if err != nil {
		t.Fatal(err)
	}
	log.Record(true)
	cmstest.OverviewOperations(t, s)
	log.Record(false)
	ran := log.Statements()
	want := map[string]string{
		"FROM records WHERE":                        "SEARCH records USING COVERING INDEX sqlite_autoindex_records_1 (account=? AND kind=?)",
		"FROM terms WHERE":                          "SEARCH terms USING PRIMARY KEY (account=? AND kind=? AND term",
		"WHERE account || '/' || kind = ? ORDER BY": "SEARCH changes USING INDEX changes_kind (<expr>=?)",
		"FROM batches":                              "SEARCH batches USING INDEX batches_running (account=?)",
	}
	for _, state := range []string{"never analyzed", "analyzed"} {
		if state == "analyzed" {
			if _, err := s.Write().ExecContext(context.Background(), "ANALYZE"); err != nil {
				t.Fatal(err)
			}
		}
		found := map[string]bool{}
		for query, args := range ran {
			plan := explainQuery(t, s, query, args)
			for line := range strings.SplitSeq(strings.TrimSpace(plan), "\n") {
				if strings.HasPrefix(line, "SCAN ") && !strings.HasPrefix(line, "SCAN k") && !strings.HasPrefix(line, "SCAN kinds") {
					t.Errorf("%s: %q\n%s\nplan:\n%s", state, line, query, plan)
				}
				if strings.Contains(line, "USE TEMP B-TREE") && !strings.Contains(query, "UNION ALL") {
					t.Errorf("%s: a sort %q\n%s\nplan:\n%s", state, line, query, plan)
				}
			}
			for part, index := range want {
				if strings.Contains(query, part) {
					found[part] = true
					if !strings.Contains(plan, index) {
						t.Errorf("%s: want %q in the plan of\n%s\nplan:\n%s", state, index, query, plan)
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
