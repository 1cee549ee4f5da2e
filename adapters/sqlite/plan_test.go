package sqlite

import (
	"context"
	"path/filepath"
	"strings"
	"testing"

	"github.com/bwcms/cms/adapters/internal/bunstoretest"
)

// TestStatementsUseIndexes runs the service's record operations (creates
// and updates naming Maps from both sides, a batch, reads by id and in
// lists with each option, a clone, deletes) over a store of 3,000 Resources on 20
// Maps, collects every statement the store ran, and explains each with the
// arguments it ran with, on the database never analyzed and again after
// ANALYZE: none may scan a table or search one on the bare account (or
// account and kind) prefix of its key when the statement names more. The
// intended scans are allowed: a json_each id list.
func TestStatementsUseIndexes(t *testing.T) {
	t.Parallel()
	var log bunstoretest.StatementLog
	s := openTraced(t, &log)
	ran := bunstoretest.OperationStatements(t, s.Store, &log)

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
// searches one on a bare account (or account and kind) prefix.
func badPlanLine(plan string) string {
	for line := range strings.SplitSeq(strings.TrimSpace(plan), "\n") {
		switch {
		case strings.HasPrefix(line, "SCAN ") && !strings.HasPrefix(line, "SCAN json_each") && !strings.HasPrefix(line, "SCAN CONSTANT ROW"):
			return line
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
