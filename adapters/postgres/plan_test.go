package postgres

import (
	"maps"
	"regexp"
	"slices"
	"strings"
	"testing"

	"github.com/bwcms/cms/adapters/internal/bunstore"
	"github.com/bwcms/cms/adapters/internal/bunstoretest"
	"github.com/bwcms/cms/adapters/postgres/pgtest"
	"github.com/uptrace/bun/dialect/pgdialect"
)

// TestStatementsUseIndexes runs the service's record operations over a
// store of 3,000 Resources on 20 Maps, collects every statement the store
// ran, and explains each with the arguments it ran with, on the tables
// never analyzed (autovacuum off) and again after ANALYZE: none may scan a
// record table (records, aliases, refs, assignments) sequentially, or
// search one on part of the equality it names and filter by the rest (a
// key's account and kind, then every record of the kind for the id).
func TestStatementsUseIndexes(t *testing.T) {
	t.Parallel()
	var log bunstoretest.StatementLog
	s := openTraced(t, &log)
	assertSchema(t, s)
	noAutovacuum(t, s)
	ran := bunstoretest.OperationStatements(t, s.Store, &log)
	maps.Copy(ran, bunstoretest.FileStatements(t, s.Store, &log, planFiles))
	for _, state := range []string{"never analyzed", "analyzed"} {
		if state == "analyzed" {
			analyzeSchema(t, s)
		}
		checked := 0
		for query, args := range ran {
			if !strings.HasPrefix(query, "SELECT") && !strings.HasPrefix(query, "UPDATE") && !strings.HasPrefix(query, "DELETE") {
				continue
			}
			if strings.HasPrefix(query, "SELECT pg_advisory") || strings.HasPrefix(query, "SELECT set_config") {
				continue // locks and a batch's limits: no table
			}
			checked++
			plan := explain(t, s, query, args)
			if bad := badPlanLine(plan); bad != "" {
				t.Errorf("%s: %q\n%s\nplan:\n%s", state, bad, query, plan)
			}
			// What a prepared statement may run after its fifth
			// execution: a plan for any value of the arguments.
			plan = explainGeneric(t, s, query, args)
			if bad := badPlanLine(plan); bad != "" {
				t.Errorf("%s, generic plan: %q\n%s\nplan:\n%s", state, bad, query, plan)
			}
		}
		if checked < 20 {
			t.Fatalf("%s: only %d statements explained: the scenario ran too little", state, checked)
		}
	}
}

// planFiles is how many files the plan tests fill.
const planFiles = 100_000

// recordTable matches the plan node of a scan of a record table.
var recordTable = regexp.MustCompile(`(Seq Scan|Index Scan|Index Only Scan|Bitmap Heap Scan)( Backward)? (using \S+ )?on (records|aliases|refs|assignments|terms|files)\b`)

// keyFilter matches a filter that tests a column, or a key expression
// (account || '/' || type), for equality (to a value or a list): on a
// record table, a part of the equality the index did not take. Roles are
// filtered on purpose (a Resource's few assignments).
var keyFilter = regexp.MustCompile(`(Filter|Join Filter): .*(\b(account|kind|id|lang|alias|record_id|from_kind|from_id|to_id|map_id|resource_id) = |\|\| \w+\) = )`)

// geoKeyFilter matches the test of a record's account and kind the
// location index's bucket leaves to the row (bunstore's geoKey).
var geoKeyFilter = regexp.MustCompile(`\(\(account \|\| '\|'::text\) \|\| kind\) = [^)]+\)`)

// badPlanLine returns the first line of a plan that scans a record table
// sequentially, or filters one of its scans by equality on a column.
func badPlanLine(plan string) string {
	onRecords := false
	for line := range strings.SplitSeq(plan, "\n") {
		trimmed := strings.TrimLeft(line, " ->")
		switch {
		case strings.HasPrefix(trimmed, "Seq Scan on batches "):
			return trimmed // every batch ever kept, to find the unfinished
		case recordTable.MatchString(trimmed):
			if strings.HasPrefix(trimmed, "Seq Scan") {
				return trimmed
			}
			// A file's key is its id alone: the account is tested on the
			// one row the key finds.
			onRecords = !strings.Contains(trimmed, "using files_pkey ")
		case strings.Contains(trimmed, "Scan") || strings.HasPrefix(trimmed, "Nested Loop"):
			onRecords = strings.HasPrefix(trimmed, "Nested Loop")
		case onRecords && keyFilter.MatchString(geoKeyFilter.ReplaceAllString(trimmed, "")):
			return trimmed
		}
	}
	return ""
}

// explain is PostgreSQL's plan of query run with args, one line a node.
// analyzeSchema analyzes the store's own tables only: a database-wide
// ANALYZE would walk (and wait for the locks of) every other test's
// schema of the shared test database.
func analyzeSchema(tb testing.TB, s *Store) {
	tb.Helper()
	var tables []string
	err := s.Write().NewRaw("SELECT tablename FROM pg_tables WHERE schemaname = current_schema()").Scan(tb.Context(), &tables)
	if err != nil {
		tb.Fatal(err)
	}
	for _, table := range tables {
		if _, err := s.Write().ExecContext(tb.Context(), "ANALYZE "+pgQuote(table)); err != nil {
			tb.Fatal(err)
		}
	}
}

// pgQuote quotes an identifier.
func pgQuote(name string) string { return `"` + strings.ReplaceAll(name, `"`, `""`) + `"` }

// patientOptions are a test store's options with no lock or statement
// limit: a fixture filling thousands of rows, or waiting for another
// test's schema being dropped, on a busy machine is no request.
func patientOptions() *Options {
	return &Options{MaxConns: 8, LockTimeout: NoTimeout, StatementTimeout: NoTimeout}
}

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

// explainGeneric is PostgreSQL's generic plan of query, the plan a
// prepared statement (the adapter's statements are prepared) may keep for
// every value of its arguments.
func explainGeneric(tb testing.TB, s *Store, query string, args []any) string {
	tb.Helper()
	ctx := tb.Context()
	conn, err := s.Write().Conn(ctx)
	if err != nil {
		tb.Fatal(err)
	}
	defer conn.Close()
	numbered, n := bunstore.NumberPlaceholders(query)
	if _, err := conn.ExecContext(ctx, "SET plan_cache_mode = force_generic_plan"); err != nil {
		tb.Fatal(err)
	}
	defer conn.ExecContext(ctx, "RESET plan_cache_mode")
	if _, err := conn.ExecContext(ctx, "PREPARE generic AS "+numbered); err != nil {
		tb.Fatalf("%s: %v", query, err)
	}
	defer conn.ExecContext(ctx, "DEALLOCATE generic")
	args = slices.Clone(args)
	for i, a := range args {
		if list, ok := a.([]string); ok {
			args[i] = pgdialect.Array(list)
		}
	}
	execute := "EXPLAIN EXECUTE generic"
	if n > 0 {
		execute += "(" + strings.TrimSuffix(strings.Repeat("?, ", n), ", ") + ")"
	}
	var plan []string
	if err := conn.NewRaw(execute, args...).Scan(ctx, &plan); err != nil {
		tb.Fatalf("%s: %v", query, err)
	}
	return strings.Join(plan, "\n")
}

// noAutovacuum keeps autovacuum from analyzing the record tables, so a
// test sees them as never analyzed until it says otherwise.
func noAutovacuum(tb testing.TB, s *Store) {
	tb.Helper()
	for _, table := range []string{"records", "aliases", "refs", "assignments", "terms", "files"} {
		if _, err := s.Write().ExecContext(tb.Context(), "ALTER TABLE "+table+" SET (autovacuum_enabled = false)"); err != nil {
			tb.Fatal(err)
		}
	}
}

// TestUpdateWritesOnlyWhatChanged: see bunstoretest.UpdateWritesOnlyWhatChanged.
func TestUpdateWritesOnlyWhatChanged(t *testing.T) {
	t.Parallel()
	var log bunstoretest.StatementLog
	s := openTraced(t, &log)
	bunstoretest.UpdateWritesOnlyWhatChanged(t, s, &log)
}

// openTraced opens a store in a new schema whose statements go to log.
func openTraced(t *testing.T, log *bunstoretest.StatementLog) *Store {
	t.Helper()
	s, err := Open(t.Context(), pgtest.DSN(t), &Options{MaxConns: 8, LockTimeout: NoTimeout, StatementTimeout: NoTimeout, trace: log.Trace})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { s.Close() })
	return s
}
