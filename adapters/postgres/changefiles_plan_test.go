package postgres

import (
	"strings"
	"testing"

	"github.com/bwcms/cms/adapters/internal/bunstoretest"
	"github.com/bwcms/cms/adapters/postgres/pgtest"
	"github.com/bwcms/cms/cms/cmstest"
)

// TestChangeFilesByKey: the statement that writes change records also
// notes the files their documents name (change_files), finding each
// change's references through the key of refs, never by reading refs_to
// for the file kind, among 20,000 references of no file, on tables never
// analyzed and again analyzed, as given and as a generic plan.
func TestChangeFilesByKey(t *testing.T) {
	t.Parallel()
	var log bunstoretest.StatementLog
	s := openTraced(t, &log)
	noAutovacuum(t, s)
	ctx := t.Context()
	if _, err := s.Write().ExecContext(ctx, `INSERT INTO refs (account, from_kind, from_id, field, to_kind, to_id, single)
		SELECT 'acc', 'landing', 'l-' || n, 'mapId', 'map', 'm-' || (n % 100), true FROM generate_series(1, 20000) AS n`); err != nil {
		t.Fatal(err)
	}
	log.Record(true)
	cmstest.ChangeOperations(t, s, "acc")
	log.Record(false)
	explained := 0
	for _, state := range []string{"never analyzed", "analyzed"} {
		if state == "analyzed" {
			analyzeSchema(t, s)
		}
		for query, args := range log.Statements() {
			if !strings.Contains(query, "INSERT INTO change_files") {
				continue
			}
			explained++
			for _, plan := range []string{explain(t, s, query, args), explainGeneric(t, s, query, args)} {
				if strings.Contains(plan, "refs_to") || !strings.Contains(plan, "refs_pkey") {
					t.Errorf("%s: %s\nwant the files of the changes found by the key of refs:\n%s", state, query, plan)
				}
			}
		}
	}
	if explained == 0 {
		t.Fatal("no statement noted the files of changes")
	}
}

// TestChangeFilesForgottenByKey: the triggers that let a change record's
// files go when its document is removed (changes_forget_files) or the
// change is purged (changes_purge_files) find them by the key of
// change_files, the change's id, among 20,000 changes' files, on tables
// never analyzed and again analyzed: a record's delete or a purge of a
// few changes reads no other change's files. Their statements, taken
// from the functions the migrations left, are explained with a
// temporary table of three changes standing for the trigger's rows (a
// purge of 1,000 changes at once may rightly read a small table whole).
func TestChangeFilesForgottenByKey(t *testing.T) {
	t.Parallel()
	explainTrigger(t, triggerPlan{
		fill: `INSERT INTO change_files (change_id, account, file_id)
			SELECT n, 'acc', 'f-' || (n % 500) FROM generate_series(1, 20000) AS n`,
		rows: "gone",
		fillRows: `INSERT INTO gone (id, commit_seq, account, kind, record_id, rev, op, time, author)
			SELECT n * 1000, n * 1000, 'acc', 'resource', 'r-' || n, 2, 'delete', 0, 'a' FROM generate_series(1, 3) AS n`,
		statements: [][3]string{
			{"changes_forget_files", "DELETE FROM change_files", "))"},
			{"changes_purge_files", "DELETE FROM change_files", "))"},
		},
		check: func(plan string) bool {
			return !strings.Contains(plan, "Seq Scan on change_files") && strings.Contains(plan, "change_files_pkey")
		},
		want: "the files found by the change's id",
	})
}

// triggerPlan is a test of the plans of a trigger function's statements.
type triggerPlan struct {
	// fill fills the store's tables.
	fill string
	// rows is the name the statements give the trigger's rows (a
	// transition table), stood for by a temporary table of changes that
	// fillRows fills.
	rows, fillRows string
	// statements are each a function, and the first text of its
	// statement and the last.
	statements [][3]string
	// check tells a good plan; want says what it is.
	check func(plan string) bool
	want  string
}

// explainTrigger explains tp's statements, taken from the functions the
// migrations left, on tables never analyzed (autovacuum off) and again
// analyzed.
func explainTrigger(t *testing.T, tp triggerPlan) {
	t.Helper()
	ctx := t.Context()
	s, err := Open(ctx, pgtest.DSN(t), &Options{MaxConns: 2})
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	noAutovacuum(t, s)
	if _, err := s.Write().ExecContext(ctx, "ALTER TABLE change_files SET (autovacuum_enabled = false)"); err != nil {
		t.Fatal(err)
	}
	if _, err := s.Write().ExecContext(ctx, tp.fill); err != nil {
		t.Fatal(err)
	}
	statements := make([]string, len(tp.statements))
	for i, st := range tp.statements {
		statements[i] = triggerStatement(t, s, st[0], st[1], st[2])
	}
	conn, err := s.Write().Conn(ctx)
	if err != nil {
		t.Fatal(err)
	}
	defer conn.Close()
	// The planner knows a trigger's transition table's row count; a
	// temporary table's it knows once analyzed.
	for _, q := range []string{"CREATE TEMPORARY TABLE " + tp.rows + " AS SELECT * FROM changes WITH NO DATA", tp.fillRows, "ANALYZE " + tp.rows} {
		if _, err := conn.ExecContext(ctx, q); err != nil {
			t.Fatal(err)
		}
	}
	for _, state := range []string{"never analyzed", "analyzed"} {
		if state == "analyzed" {
			analyzeSchema(t, s)
		}
		for _, statement := range statements {
			var plan []string
			if err := conn.NewRaw("EXPLAIN "+statement).Scan(ctx, &plan); err != nil {
				t.Fatal(err)
			}
			if text := strings.Join(plan, "\n"); !tp.check(text) {
				t.Errorf("%s: %s\nwant %s:\n%s", state, statement, tp.want, text)
			}
		}
	}
}

// triggerStatement is the statement of the store's trigger function
// function from its first "from" to the first "to" after it.
func triggerStatement(t *testing.T, s *Store, function, from, to string) string {
	t.Helper()
	var body string
	if err := s.Write().QueryRowContext(t.Context(), "SELECT prosrc FROM pg_proc WHERE proname = ? AND pronamespace = current_schema()::regnamespace", function).
		Scan(&body); err != nil {
		t.Fatal(err)
	}
	start := strings.Index(body, from)
	end := -1
	if start >= 0 {
		end = strings.Index(body[start:], to)
	}
	if end < 0 {
		t.Fatalf("%s has no %s ... %s:\n%s", function, from, to, body)
	}
	return body[start : start+end+len(to)]
}
