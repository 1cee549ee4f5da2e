package postgres

import (
	"slices"
	"strings"
	"testing"

	"github.com/bwcms/cms/adapters/internal/bunstoretest"
	"github.com/bwcms/cms/adapters/postgres/pgtest"
	"github.com/uptrace/bun/dialect/pgdialect"
)

// TestStatementsUseIndexes runs the service's record operations over a
// store of 3,000 Resources on 20 Maps, collects every statement the store
// ran, and explains each with the arguments it ran with, analyzed: none
// may scan a record table (records, aliases, refs, assignments)
// sequentially. (Never analyzed, PostgreSQL takes any index on (account,
// kind) for one row; that state is the next step.)
func TestStatementsUseIndexes(t *testing.T) {
	t.Parallel()
	var log bunstoretest.StatementLog
	s, err := Open(t.Context(), pgtest.DSN(t), &Options{MaxConns: 8, trace: log.Trace})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { s.Close() })
	ran := bunstoretest.OperationStatements(t, s.Store, &log)
	if _, err := s.Write().ExecContext(t.Context(), "ANALYZE"); err != nil {
		t.Fatal(err)
	}
	checked := 0
	for query, args := range ran {
		if !strings.HasPrefix(query, "SELECT") && !strings.HasPrefix(query, "UPDATE") && !strings.HasPrefix(query, "DELETE") {
			continue
		}
		if strings.HasPrefix(query, "SELECT pg_advisory") {
			continue
		}
		checked++
		text := explain(t, s, query, args)
		for _, table := range []string{"records", "aliases", "refs", "assignments"} {
			if strings.Contains(text, "Seq Scan on "+table+" ") || strings.HasSuffix(text, "Seq Scan on "+table) {
				t.Errorf("%s\nplan:\n%s", query, text)
			}
		}
	}
	if checked < 20 {
		t.Fatalf("only %d statements explained: the scenario ran too little", checked)
	}
}

// explain is PostgreSQL's plan of query run with args, one line a node.
func explain(tb testing.TB, s *Store, query string, args []any) string {
	tb.Helper()
	args = slices.Clone(args)
	for i, a := range args {
		if list, ok := a.([]string); ok {
			args[i] = pgdialect.Array(list) // bun inlines the arguments
		}
	}
	var plan []string
	if err := s.Write().NewRaw("EXPLAIN "+query, args...).Scan(tb.Context(), &plan); err != nil {
		tb.Fatalf("%s: %v", query, err)
	}
	return strings.Join(plan, "\n")
}

// noAutovacuum keeps autovacuum from analyzing the record tables, so a
// test sees them as never analyzed until it says otherwise.
func noAutovacuum(tb testing.TB, s *Store) {
	tb.Helper()
	for _, table := range []string{"records", "aliases", "refs", "assignments"} {
		if _, err := s.Write().ExecContext(tb.Context(), "ALTER TABLE "+table+" SET (autovacuum_enabled = false)"); err != nil {
			tb.Fatal(err)
		}
	}
}
