package postgres

import (
	"fmt"
	"io/fs"
	"regexp"
	"slices"
	"strings"
	"testing"

	"github.com/bwcms/cms/adapters/internal/bunstoretest"
	"github.com/bwcms/cms/adapters/postgres/pgtest"
	"github.com/bwcms/cms/cms"
)

// boxGrid is the side of the grid of located Resources the box plan test
// fills for each of two accounts (boxGrid² each, about 100,000), one
// boxCell apart from (45, 9) north and east.
const (
	boxGrid = 317
	boxCell = 0.003
)

// boxIndexRows matches the rows a scan of records_box found (EXPLAIN
// ANALYZE): a bitmap scan's, or a plain index scan's with those its
// filter removed after (the planner takes either, by its estimates).
var boxIndexRows = regexp.MustCompile(`(?:Bitmap Index Scan on records_box|Index Scan using records_box on records) .*actual time=\S+ rows=(\d+) .*(?:\n\s+(?:Index Cond|Filter): .*)*(?:\n\s+Rows Removed by Filter: (\d+))?`)

// boxIndexScan matches a scan of records_box in a plan, of either kind.
var boxIndexScan = regexp.MustCompile(`Bitmap Index Scan on records_box|Index Scan using records_box on records`)

// TestBoxPlansAt100k explains the list statements of a box (within the
// meridians, across the 180° one, after an id, with a search's terms)
// over about 100,000 located Resources of account "a" and as many of
// account "b" on the same grid, never analyzed and analyzed, custom and
// generic: each reads the GiST index records_box (the meridian's box in
// its two halves) and sorts what it found, never a table's scan. Run, the
// index answers account "a"'s records in the box alone, none of "b"'s:
// the account and kind's bucket separates them. The lists answer the
// grid's records in the box.
func TestBoxPlansAt100k(t *testing.T) {
	if testing.Short() {
		t.Skip("fills 200,000 records")
	}
	t.Parallel()
	s := openTestStore(t, patientOptions())
	noAutovacuum(t, s)
	ctx := t.Context()
	for _, account := range []string{"a", "b"} {
		_, err := s.Write().ExecContext(ctx, `INSERT INTO records (account, kind, id, published, updated_at, lat, lon, doc, terms)
			SELECT ?, 'resource', 'g' || lpad(g::text, 6, '0'), true, g, 45 + (g / ?) * ?::float8, 9 + (g % ?) * ?::float8,
				jsonb_build_object('id', 'g' || lpad(g::text, 6, '0')), ? FROM generate_series(0, ?) AS g`,
			account, boxGrid, boxCell, boxGrid, boxCell, cms.JoinTerms([]string{cms.TypeTerm("POI").From}), boxGrid*boxGrid-1)
		if err == nil {
			// Every record a POI: a search's type term too dense for
			// candidates, so the box drives.
			_, err = s.Write().ExecContext(ctx, "INSERT INTO terms (account, kind, term, id) SELECT account, kind, ?, id FROM records WHERE account = ?",
				cms.TypeTerm("POI").From, account)
		}
		if err == nil {
			// Each on a Map: the lists' assignments read by key.
			_, err = s.Write().ExecContext(ctx, `INSERT INTO assignments (account, map_id, resource_id, role, map_pos, resource_pos)
				SELECT account, 'm1', id, 'primary', updated_at, 0 FROM records WHERE account = ?`, account)
		}
		if err != nil {
			t.Fatal(err)
		}
	}
	var apart bool
	if err := s.Write().QueryRowContext(ctx, "SELECT hashtext('a|resource') & 65535 <> hashtext('b|resource') & 65535").Scan(&apart); err != nil || !apart {
		t.Fatalf("the two accounts' Resources share a bucket (%v): the test shows nothing", err)
	}
	// Rows 100-109, columns 200-209 (the box's edges between the cells),
	// and the meridian's box over two rows of the grid.
	box := &cms.BBox{MinLon: 9 + 199.5*boxCell, MinLat: 45 + 99.5*boxCell, MaxLon: 9 + 209.5*boxCell, MaxLat: 45 + 109.5*boxCell}
	var inBox []string
	for row := 100; row < 110; row++ {
		for col := 200; col < 210; col++ {
			inBox = append(inBox, fmt.Sprintf("g%06d", row*boxGrid+col))
		}
	}
	across := &cms.BBox{MinLon: 179, MinLat: 45 + 99.5*boxCell, MaxLon: 9 + 0.5*boxCell, MaxLat: 45 + 101.5*boxCell}
	acrossIDs := []string{fmt.Sprintf("g%06d", 100*boxGrid), fmt.Sprintf("g%06d", 101*boxGrid)}
	lists := []struct {
		p    cms.ListParams
		want []string
	}{
		{cms.ListParams{BBox: box}, inBox},
		{cms.ListParams{BBox: box, After: inBox[49], Limit: 10}, inBox[50:60]},
		{cms.ListParams{BBox: box, Terms: []cms.TermRange{cms.TypeTerm("POI")}}, inBox},
		{cms.ListParams{BBox: across}, acrossIDs},
	}
	for _, state := range []string{"never analyzed", "analyzed"} {
		if state == "analyzed" {
			analyzeSchema(t, s)
		}
		// Whether the planner still knows nothing of the table: on a busy
		// server something (seen: 775 pages and 0 tuples, counted while
		// the fill had not committed) can record the table as empty
		// though autovacuum is off for it; the planner then rates
		// reading the whole index as free, and what the index answered
		// says nothing of the box's plan.
		var tuples float64
		if err := s.Write().QueryRowContext(ctx, "SELECT reltuples FROM pg_class WHERE oid = 'records'::regclass").Scan(&tuples); err != nil {
			t.Fatal(err)
		}
		countsChecked := state == "analyzed" || tuples < 0
		if !countsChecked {
			t.Logf("%s: the table's statistics say %v tuples: what the index answered is not checked in this state", state, tuples)
		}
		for _, l := range lists {
			l.p.Account, l.p.Kind, l.p.Published = "a", cms.KindResource, cms.PublishedAny
			query, args := s.ListQuery(l.p, "", 256)
			for kind, plan := range map[string]string{"custom": explain(t, s, query, args), "generic": explainGeneric(t, s, query, args)} {
				if bad := badPlanLine(plan); bad != "" || !boxIndexScan.MatchString(plan) {
					t.Errorf("%s, %s plan of %+v: want records_box (%q):\n%s", state, kind, l.p.BBox, bad, plan)
				}
			}
			// What the index answered: the box's own records (and, the
			// edges being between cells, no other).
			var lines []string
			if err := s.Write().NewRaw("EXPLAIN ANALYZE "+query, args...).Scan(ctx, &lines); err != nil {
				t.Fatal(err)
			}
			plan := strings.Join(lines, "\n")
			var found int
			for _, m := range boxIndexRows.FindAllStringSubmatch(plan, -1) {
				for _, rows := range m[1:] {
					var n int
					fmt.Sscan(rows, &n)
					found += n
				}
			}
			if countsChecked && found != len(l.want) && l.p.After == "" {
				// What the planner knew of the table and the index.
				var stats []string
				_ = s.Write().NewRaw("SELECT relname || ' ' || relpages || ' pages ' || reltuples || ' tuples' FROM pg_class "+
					"WHERE oid IN ('records'::regclass, 'records_box'::regclass)").Scan(ctx, &stats)
				t.Errorf("%s: %+v: the index answered %d records, want %d (%v):\n%s", state, l.p.BBox, found, len(l.want), stats, plan)
			}
			if got := bunstoretest.ListedIDs(t, s, l.p); !slices.Equal(got, l.want) {
				t.Errorf("%s: %+v after %q: got %v, want %v", state, l.p.BBox, l.p.After, got, l.want)
			}
		}
	}
}

// TestBoxMigration upgrades a store written before migration 36
// (records_geo): records_box holds the located records stored before, so
// a box answers them through it, and the writes after the upgrade keep
// it in step; records_geo is gone.
func TestBoxMigration(t *testing.T) {
	t.Parallel()
	ctx := t.Context()
	dsn := pgtest.DSN(t)
	all, err := fs.ReadDir(migrations, "migrations")
	if err != nil {
		t.Fatal(err)
	}
	before := slices.IndexFunc(all, func(e fs.DirEntry) bool { return e.Name() == "20261127000036_records_box.tx.up.sql" })
	if before < 0 {
		t.Fatal("migration 36 not found")
	}
	old, err := Open(ctx, dsn, &Options{MaxConns: 4, migrations: firstMigrations(t, before)})
	if err != nil {
		t.Fatal(err)
	}
	s := bunstoretest.BoxMigration(t, old, func() cms.Store {
		old.Close()
		s, err := Open(ctx, dsn, &Options{MaxConns: 4})
		if err != nil {
			t.Fatal(err)
		}
		t.Cleanup(func() { s.Close() })
		return s
	}).(*Store)
	var indexes []string
	if err := s.Write().NewRaw("SELECT indexname FROM pg_indexes WHERE schemaname = current_schema() AND tablename = 'records' ORDER BY 1").
		Scan(ctx, &indexes); err != nil {
		t.Fatal(err)
	}
	if !slices.Contains(indexes, "records_box") || slices.Contains(indexes, "records_geo") {
		t.Errorf("records' indexes: %v, want records_box and no records_geo", indexes)
	}
	// The box read through the index (no sequential scan on a table this
	// small without it forbidden).
	query, args := s.ListQuery(cms.ListParams{Account: "a", Kind: cms.KindResource, Published: cms.PublishedAny, BBox: &cms.BBox{MinLon: 9, MinLat: 45, MaxLon: 10, MaxLat: 46}}, "", 256)
	conn, err := s.Write().Conn(ctx)
	if err != nil {
		t.Fatal(err)
	}
	defer conn.Close()
	if _, err := conn.ExecContext(ctx, "SET enable_seqscan = off"); err != nil {
		t.Fatal(err)
	}
	var plan []string
	if err := conn.NewRaw("EXPLAIN "+query, args...).Scan(ctx, &plan); err != nil {
		t.Fatal(err)
	}
	if text := strings.Join(plan, "\n"); !strings.Contains(text, "Index Scan on records_box") && !strings.Contains(text, "Index Scan using records_box") {
		t.Errorf("the box does not read records_box:\n%s", text)
	}
}
