package postgres

import (
	"regexp"
	"strings"
	"testing"

	"github.com/bwcms/cms/adapters/internal/bunstoretest"
	"github.com/bwcms/cms/cms/cmstest"
)

// planChanges is how many changes TestChangeStatementsUseIndexes fills.
const planChanges = 100_000

// fillChanges writes planChanges changes of Resources: 10 accounts
// (acc-0 ...) of 1,000 records (f-0 ...) of 10 revisions, days before
// the conformance suite's clock, each its own commit.
func fillChanges(tb testing.TB, s *Store) {
	tb.Helper()
	_, err := s.Write().ExecContext(tb.Context(), `INSERT INTO changes (commit_seq, account, kind, record_id, rev, op, time, author, document, lists)
		SELECT n + 1, 'acc-' || (n % 10), 'resource', 'f-' || ((n / 10) % 1000), n / 10000 + 1, 'upsert', 1700000000000000 + n, 'filler',
			'{"id":"f"}', '{"primary":[],"secondary":[]}' FROM generate_series(0, ?) AS n`, planChanges-1)
	if err == nil {
		_, err = s.Write().ExecContext(tb.Context(), "SELECT setval('change_commit_seq', ?)", planChanges)
	}
	if err != nil {
		tb.Fatal(err)
	}
}

// changesTable matches the plan node of a scan of the changes (not of
// the horizons, an account's row each: a scan of a few rows is the
// planner's right choice).
var changesTable = regexp.MustCompile(`(Seq Scan|Index Scan|Index Only Scan|Bitmap Heap Scan)( Backward)? (using (\S+) )?on changes\b`)

// TestChangeStatementsUseIndexes runs every change store call
// (cmstest.ChangeOperations) over 100,000 changes (and 3,000 Resources
// on 20 Maps), and explains every statement it ran, as given and as a
// generic plan, on the tables never analyzed (autovacuum off) and again
// after ANALYZE: none may scan the changes sequentially or filter a scan
// of them by a key's equality (but the feed's kinds), nor break the
// record tables' rules (badPlanLine); the appends' revision look-ups, the
// feed's pages, a record's history and last revision go through their
// indexes.
func TestChangeStatementsUseIndexes(t *testing.T) {
	t.Parallel()
	var log bunstoretest.StatementLog
	s := openTraced(t, &log)
	noAutovacuum(t, s)
	for _, table := range []string{"changes", "change_horizons"} {
		if _, err := s.Write().ExecContext(t.Context(), "ALTER TABLE "+table+" SET (autovacuum_enabled = false)"); err != nil {
			t.Fatal(err)
		}
	}
	bunstoretest.FillAssigned(t, s.Store, 3000)
	fillChanges(t, s)
	log.Record(true)
	cmstest.ChangeOperations(t, s, "acc-1")
	log.Record(false)
	ran := log.Statements()
	want := map[string]string{
		"INSERT INTO changes": "changes_rev",
		"UPDATE changes":      "changes_rev",
		"WHERE account || '/' || kind = ? AND (commit_seq": "changes_kind",
		"ORDER BY rev DESC":   "changes_rev",
		"AND rev = ?":         "changes_rev",
		"WHERE c.id > ?":      "changes_pkey",
		"DELETE FROM changes": "changes_pkey",
	}
	for _, state := range []string{"never analyzed", "analyzed"} {
		if state == "analyzed" {
			analyzeSchema(t, s)
		}
		found := map[string]bool{}
		for query, args := range ran {
			if strings.HasPrefix(query, "SELECT change_fence") {
				continue // a function: no table
			}
			for _, plan := range []string{explain(t, s, query, args), explainGeneric(t, s, query, args)} {
				if bad := changesPlanLine(plan); bad != "" {
					t.Errorf("%s: %q\n%s\nplan:\n%s", state, bad, query, plan)
				}
				if bad := badPlanLine(plan); bad != "" {
					t.Errorf("%s: %q\n%s\nplan:\n%s", state, bad, query, plan)
				}
				for part, index := range want {
					if strings.Contains(query, part) {
						found[part] = true
						if !strings.Contains(plan, " "+index+" ") {
							t.Errorf("%s: want %s in the plan of\n%s\nplan:\n%s", state, index, query, plan)
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
}

// changesPlanLine returns the first line of a plan that scans a changes
// sequentially, or filters a scan of one by a key's equality.
func changesPlanLine(plan string) string {
	onChanges := false
	for line := range strings.SplitSeq(plan, "\n") {
		trimmed := strings.TrimLeft(line, " ->")
		switch {
		case changesTable.MatchString(trimmed):
			if strings.HasPrefix(trimmed, "Seq Scan") {
				return trimmed
			}
			onChanges = true
		case strings.Contains(trimmed, "Scan") || strings.HasPrefix(trimmed, "Nested Loop"):
			onChanges = false
		case onChanges && keyFilter.MatchString(trimmed) && !strings.Contains(trimmed, "kind = ANY"):
			return trimmed
		}
	}
	return ""
}
