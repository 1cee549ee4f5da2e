package sqlite

import (
	"context"
	"maps"
	"path/filepath"
	"strings"
	"testing"

	"github.com/bwcms/cms/adapters/internal/bunstoretest"
)

// TestStatementsUseIndexes runs the service's record operations (creates
// and updates naming Maps from both sides, a batch, reads by id and in
// lists with each option, a clone, deletes) over a store of 3,000 Resources on 20
// Maps, and the file store's calls over 100,000 files, half of them
// referenced, collects every statement the store ran, and explains each with the
// arguments it ran with, on the database never analyzed and again after
// ANALYZE: none may scan a table or search one on the bare account (or
// account and kind) prefix of its key when the statement names more. The
// intended scans are allowed: a json_each id list, the location R*Tree.
func TestStatementsUseIndexes(t *testing.T) {
	t.Parallel()
	var log bunstoretest.StatementLog
	s := openTraced(t, &log)
	ran := bunstoretest.OperationStatements(t, s.Store, &log)
	maps.Copy(ran, bunstoretest.FileStatements(t, s.Store, &log, planFiles))

	for _, state := range []string{"never analyzed", "analyzed"} {
		if state == "analyzed" {
			if _, err := s.Write().ExecContext(context.Background(), "ANALYZE"); err != nil {
				t.Fatal(err)
			}
		}
		checked := 0
		for query, args := range ran {
			if !planned(query) {
				continue
			}
			checked++
			plan := explainQuery(t, s, query, args)
			if bad := badPlanLine(plan); bad != "" {
				t.Errorf("%s: %q\n%s\nplan:\n%s", state, bad, query, plan)
			}
		}
		if checked < 20 {
			t.Fatalf("%s: only %d statements explained: the scenario ran too little", state, checked)
		}
	}
}

// planFiles is how many files the plan tests fill.
const planFiles = 100_000

// planned reports whether a statement has a plan worth checking: not a
// transaction control, and not a plain multi-row insert.
func planned(query string) bool {
	for _, p := range []string{"SAVEPOINT", "RELEASE", "ROLLBACK", "ANALYZE", "PRAGMA"} {
		if strings.HasPrefix(query, p) {
			return false
		}
	}
	return !strings.HasPrefix(query, "INSERT") || strings.Contains(query, "SELECT")
}

// badPlanLine returns the first line of a query plan that scans a table or
// searches one on a bare account (or account and kind) prefix (but the
// files' list, whose key is the account).
func badPlanLine(plan string) string {
	for line := range strings.SplitSeq(strings.TrimSpace(plan), "\n") {
		switch {
		case strings.HasPrefix(line, "SCAN records_box VIRTUAL TABLE INDEX 2:B0D1"):
			// The location R*Tree searched on its account and kind's
			// dimension (B0D1), and the box's.
		case strings.HasPrefix(line, "SCAN (subquery-"):
			// The rows of a sub-select run as a co-routine, whose own
			// lines say how it reads its table.
		case strings.HasPrefix(line, "SCAN ") && !strings.HasPrefix(line, "SCAN json_each") && !strings.HasPrefix(line, "SCAN CONSTANT ROW"):
			return line
		case strings.HasSuffix(line, "USING INDEX files_list (account=?)"):
			// An account's files in the list's order: the account is
			// that index's whole key.
		case strings.HasSuffix(line, "(account=?)"), strings.HasSuffix(line, "PRIMARY KEY (account=? AND kind=?)"):
			return line
		}
	}
	return ""
}

// TestUpdateWritesOnlyWhatChanged: see bunstoretest.UpdateWritesOnlyWhatChanged.
func TestUpdateWritesOnlyWhatChanged(t *testing.T) {
	t.Parallel()
	var log bunstoretest.StatementLog
	s := openTraced(t, &log)
	bunstoretest.UpdateWritesOnlyWhatChanged(t, s, &log)
}

// openTraced opens a new store whose statements go to log.
func openTraced(t *testing.T, log *bunstoretest.StatementLog) *Store {
	t.Helper()
	s, err := Open(t.Context(), filepath.Join(t.TempDir(), "cms.db"), &Options{trace: log.Trace})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { s.Close() })
	return s
}
