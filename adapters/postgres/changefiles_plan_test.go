package postgres

import (
	"strings"
	"testing"

	"github.com/bwcms/cms/adapters/postgres/pgtest"
)

// TestChangeFilesByKey: the trigger that names a change record's files
// (changes_name_files) finds each change's references through the key of
// refs, never by reading refs_to for the file kind, among 20,000
// references of no file on tables never analyzed and again analyzed.
// Its statement, taken from the function the migrations left, is
// explained with a temporary table standing for the trigger's new rows.
func TestChangeFilesByKey(t *testing.T) {
	t.Parallel()
	ctx := t.Context()
	s, err := Open(ctx, pgtest.DSN(t), &Options{MaxConns: 2})
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	noAutovacuum(t, s)
	if _, err := s.Write().ExecContext(ctx, `INSERT INTO refs (account, from_kind, from_id, field, to_kind, to_id, single)
		SELECT 'acc', 'landing', 'l-' || n, 'mapId', 'map', 'm-' || (n % 100), true FROM generate_series(1, 20000) AS n`); err != nil {
		t.Fatal(err)
	}
	var body string
	if err := s.Write().QueryRowContext(ctx, "SELECT prosrc FROM pg_proc WHERE proname = 'changes_name_files' AND pronamespace = current_schema()::regnamespace").
		Scan(&body); err != nil {
		t.Fatal(err)
	}
	start, end := strings.Index(body, "INSERT INTO change_files"), strings.Index(body, "ON CONFLICT DO NOTHING")
	if start < 0 || end < start {
		t.Fatalf("changes_name_files has no INSERT INTO change_files ... ON CONFLICT DO NOTHING:\n%s", body)
	}
	statement := body[start : end+len("ON CONFLICT DO NOTHING")]
	conn, err := s.Write().Conn(ctx)
	if err != nil {
		t.Fatal(err)
	}
	defer conn.Close()
	if _, err := conn.ExecContext(ctx, `CREATE TEMPORARY TABLE added AS SELECT * FROM changes WITH NO DATA`); err != nil {
		t.Fatal(err)
	}
	if _, err := conn.ExecContext(ctx, `INSERT INTO added (id, commit_seq, account, kind, record_id, rev, op, time, author, document)
		SELECT n, n, 'acc', 'landing', 'l-' || n, 1, 'upsert', 0, 'a', '{}' FROM generate_series(1, 3) AS n`); err != nil {
		t.Fatal(err)
	}
	for _, state := range []string{"never analyzed", "analyzed"} {
		if state == "analyzed" {
			analyzeSchema(t, s)
		}
		var plan []string
		if err := conn.NewRaw("EXPLAIN "+statement).Scan(ctx, &plan); err != nil {
			t.Fatal(err)
		}
		text := strings.Join(plan, "\n")
		if strings.Contains(text, "refs_to") || !strings.Contains(text, "refs_pkey") {
			t.Errorf("%s: the files of the changes are not found by the key of refs:\n%s", state, text)
		}
	}
}
