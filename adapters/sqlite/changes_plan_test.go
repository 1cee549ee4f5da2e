package sqlite

import (
	"context"
	"strings"
	"testing"

	"github.com/bwcms/cms/adapters/internal/bunstoretest"
	"github.com/bwcms/cms/cms/cmstest"
)

// planChanges is how many changes TestChangeStatementsUseIndexes fills.
const planChanges = 100_000

// fillChanges writes planChanges changes of Resources: 10 accounts
// (acc-0 ...) of 1,000 records (f-0 ...) of 10 revisions, days before
// the conformance suite's clock, in the feed order of their revisions.
func fillChanges(tb testing.TB, s *Store) {
	tb.Helper()
	_, err := s.Write().ExecContext(tb.Context(), `WITH RECURSIVE x(n) AS (SELECT 0 UNION ALL SELECT n + 1 FROM x WHERE n < ?)
		INSERT INTO changes (account, kind, record_id, rev, op, time, author, document, lists)
		SELECT 'acc-' || (n % 10), 'resource', 'f-' || ((n / 10) % 1000), n / 10000 + 1, 'upsert', 1700000000000000 + n, 'filler',
			'{"id":"f"}', '{"primary":[],"secondary":[]}' FROM x`, planChanges-1)
	if err != nil {
		tb.Fatal(err)
	}
}

// TestChangeStatementsUseIndexes runs every change store call
// (cmstest.ChangeOperations) over 100,000 changes, and explains every
// statement it ran on the database never analyzed and again after
// ANALYZE (with 3,000 Resources on 20 Maps stored): none may scan the changes (or any table) whole; the appends'
// revision look-ups, the feed's pages, a record's history and last
// revision go through their indexes, the purge's walk through the ids.
func TestChangeStatementsUseIndexes(t *testing.T) {
	t.Parallel()
	var log bunstoretest.StatementLog
	s := openTraced(t, &log)
	bunstoretest.FillAssigned(t, s.Store, 3000)
	fillChanges(t, s)
	log.Record(true)
	cmstest.ChangeOperations(t, s, "acc-1")
	log.Record(false)
	ran := log.Statements()
	want := map[string]string{
		"INSERT INTO changes":                       "SEARCH changes USING COVERING INDEX changes_rev (<expr>=?)",
		"UPDATE changes":                            "SEARCH changes USING INDEX changes_rev (<expr>=?)",
		"WHERE account || '/' || kind = ? AND id >": "SEARCH changes USING INDEX changes_kind (<expr>=? AND id>? AND id<?)",
		"ORDER BY rev DESC":                         "INDEX changes_rev (<expr>=?",
		"AND rev = ?":                               "SEARCH changes USING INDEX changes_rev (<expr>=? AND rev=?)",
		"MAX(id)":                                   "SEARCH changes",
		"WHERE c.id > ?":                            "SEARCH c USING INTEGER PRIMARY KEY (rowid>?)",
		"INTO change_files":                         "SEARCH r USING PRIMARY KEY (account=? AND from_kind=? AND from_id=?)",
		"DELETE FROM changes":                       "SEARCH changes USING INTEGER PRIMARY KEY (rowid=?)",
		"FROM change_horizons":                      "SEARCH change_horizons USING INDEX sqlite_autoindex_change_horizons_1 (account=?)",
	}
	for _, state := range []string{"never analyzed", "analyzed"} {
		if state == "analyzed" {
			if _, err := s.Write().ExecContext(context.Background(), "ANALYZE"); err != nil {
				t.Fatal(err)
			}
		}
		found := map[string]bool{}
		for query, args := range ran {
			if !planned(query) {
				continue
			}
			plan := explainQuery(t, s, query, args)
			for _, line := range strings.Split(strings.TrimSpace(plan), "\n") {
				if strings.HasPrefix(line, "SCAN ") && !strings.HasPrefix(line, "SCAN json_each") &&
					!strings.HasPrefix(line, "SCAN CONSTANT ROW") && line != "SCAN x" && !strings.HasPrefix(line, "SCAN (subquery-") &&
					!(strings.HasPrefix(line, "SCAN k") && strings.Contains(query, "AS k")) { // a kind's page, LIMITed
					t.Errorf("%s: %q\n%s\nplan:\n%s", state, line, query, plan)
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
}
