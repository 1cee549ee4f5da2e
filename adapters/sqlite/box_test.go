package sqlite

import (
	"context"
	"fmt"
	"io/fs"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/bwcms/cms/adapters/internal/bunstoretest"
	"github.com/bwcms/cms/cms"
)

// boxGrid is the side of the grid of located Resources the box plan test
// fills for each of two accounts (boxGrid² each, about 100,000), one
// boxCell apart from (45, 9) north and east.
const (
	boxGrid = 317
	boxCell = 0.003
)

// TestBoxPlansAt100k explains the list statements of a box (within the
// meridians, across the 180° one, after an id, with a search's terms)
// over about 100,000 located Resources of account "a" and as many of
// account "b" on the same grid, never analyzed and analyzed: each reads
// the R*Tree records_box constrained on every dimension it can (the
// account and kind's, latitude, and longitude but across the meridian)
// and each record it finds by rowid, never a table's scan. The lists
// answer the grid's records in the box and no other account's.
func TestBoxPlansAt100k(t *testing.T) {
	if testing.Short() {
		t.Skip("fills 200,000 records")
	}
	t.Parallel()
	s := openTestStore(t)
	ctx := t.Context()
	// Straight into the table: its triggers fill the R*Tree.
	for _, account := range []string{"a", "b"} {
		_, err := s.Write().ExecContext(ctx, `WITH RECURSIVE x(n) AS (SELECT 0 UNION ALL SELECT n + 1 FROM x WHERE n < ?)
			INSERT INTO records (account, kind, id, published, updated_at, lat, lon, doc, terms)
			SELECT ?, 'resource', printf('g%06d', n), 1, n, 45 + (n / ?) * ?, 9 + (n % ?) * ?,
				'{"id":"' || printf('g%06d', n) || '"}', ? FROM x`,
			boxGrid*boxGrid-1, account, boxGrid, boxCell, boxGrid, boxCell, cms.JoinTerms([]string{cms.TypeTerm("POI").From}))
		if err == nil {
			// Every record a POI: a search's type term too dense for
			// candidates, so the box drives.
			_, err = s.Write().ExecContext(ctx, "INSERT INTO terms (account, kind, term, id) SELECT account, kind, ?, id FROM records WHERE account = ?",
				cms.TypeTerm("POI").From, account)
		}
		if err != nil {
			t.Fatal(err)
		}
	}
	// Rows 100-109, columns 200-209 (the box's edges between the cells),
	// and the meridian's box over the whole grid's latitudes.
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
		// scan is the R*Tree's constraints: each dimension's two bounds.
		scan string
	}{
		{cms.ListParams{BBox: box}, inBox, "B0D1B2D3B4D5"},
		{cms.ListParams{BBox: box, After: inBox[49], Limit: 10}, inBox[50:60], "B0D1B2D3B4D5"},
		{cms.ListParams{BBox: box, Terms: []cms.TermRange{cms.TypeTerm("POI")}}, inBox, "B0D1B2D3B4D5"},
		{cms.ListParams{BBox: across}, acrossIDs, "B0D1B2D3"},
	}
	for _, state := range []string{"never analyzed", "analyzed"} {
		if state == "analyzed" {
			if _, err := s.Write().ExecContext(context.Background(), "ANALYZE"); err != nil {
				t.Fatal(err)
			}
		}
		for _, l := range lists {
			l.p.Account, l.p.Kind, l.p.Published = "a", cms.KindResource, cms.PublishedAny
			query, args := s.ListQuery(l.p, "", 256)
			plan := explainQuery(t, s, query, args)
			if !strings.HasPrefix(plan, "SCAN records_box VIRTUAL TABLE INDEX 2:"+l.scan+"\n") ||
				!strings.Contains(plan, "SEARCH records USING INTEGER PRIMARY KEY (rowid=?)") {
				t.Errorf("%s: %+v: want records_box on %s, then records by rowid:\n%s", state, l.p.BBox, l.scan, plan)
			}
			for line := range strings.SplitSeq(plan, "\n") {
				if strings.HasPrefix(line, "SCAN ") && !strings.HasPrefix(line, "SCAN records_box ") {
					t.Errorf("%s: %+v: %q\n%s", state, l.p.BBox, line, plan)
				}
			}
			if got := bunstoretest.ListedIDs(t, s, l.p); !slices.Equal(got, l.want) {
				t.Errorf("%s: %+v after %q: got %v, want %v", state, l.p.BBox, l.p.After, got, l.want)
			}
		}
	}
}

// TestBoxAfterVacuum: VACUUM keeps the records' rowids, which the
// location R*Tree names (records has no INTEGER PRIMARY KEY, so SQLite
// does not promise it): after deletes leave gaps and VACUUM rewrites the
// file, a box answers the same records, and the R*Tree passes its check.
func TestBoxAfterVacuum(t *testing.T) {
	t.Parallel()
	s := openTestStore(t)
	ctx := t.Context()
	for i := range 300 {
		r := &cms.Resource{ID: fmt.Sprintf("v%03d", i), Published: cms.Some(true),
			LocationLat: cms.NullOf(45 + float64(i)/1000), LocationLon: cms.NullOf(9 + float64(i)/1000)}
		if err := s.PutRecord(ctx, &cms.Entry{Account: "a", Record: r}); err != nil {
			t.Fatal(err)
		}
	}
	for i := 0; i < 300; i += 3 {
		if err := s.DeleteRecord(ctx, "a", cms.KindResource, fmt.Sprintf("v%03d", i)); err != nil {
			t.Fatal(err)
		}
	}
	p := cms.ListParams{Account: "a", Kind: cms.KindResource, Published: cms.PublishedAny,
		BBox: &cms.BBox{MinLon: 9.05, MinLat: 45.05, MaxLon: 9.2, MaxLat: 45.2}}
	var want []string
	for i := 50; i <= 200; i++ {
		if i%3 != 0 {
			want = append(want, fmt.Sprintf("v%03d", i))
		}
	}
	if before := bunstoretest.ListedIDs(t, s, p); !slices.Equal(before, want) {
		t.Fatalf("before VACUUM: %v, want %v", before, want)
	}
	if _, err := s.Write().ExecContext(ctx, "VACUUM"); err != nil {
		t.Fatal(err)
	}
	if after := bunstoretest.ListedIDs(t, s, p); !slices.Equal(after, want) {
		t.Errorf("after VACUUM: %v, want %v", after, want)
	}
	var check string
	if err := s.Write().QueryRowContext(ctx, "SELECT rtreecheck('records_box')").Scan(&check); err != nil || check != "ok" {
		t.Errorf("rtreecheck: %q, %v", check, err)
	}
}

// TestBoxMigration upgrades a store written before migration 36
// (records_geo): the R*Tree holds the located records stored before, one
// scope a located account and kind, so a box answers them, and the
// writes after the upgrade keep it in step; records_geo is gone.
func TestBoxMigration(t *testing.T) {
	t.Parallel()
	ctx := t.Context()
	path := filepath.Join(t.TempDir(), "cms.db")
	all, err := fs.ReadDir(migrations, "migrations")
	if err != nil {
		t.Fatal(err)
	}
	before := slices.IndexFunc(all, func(e fs.DirEntry) bool { return e.Name() == "20261127000036_records_box.tx.up.sql" })
	if before < 0 {
		t.Fatal("migration 36 not found")
	}
	old, err := Open(ctx, path, &Options{migrations: firstMigrations(t, before)})
	if err != nil {
		t.Fatal(err)
	}
	s := bunstoretest.BoxMigration(t, old, func() cms.Store {
		if err := old.Close(); err != nil {
			t.Fatal(err)
		}
		s, err := Open(ctx, path, nil)
		if err != nil {
			t.Fatal(err)
		}
		t.Cleanup(func() { s.Close() })
		return s
	}).(*Store)
	var scopes, geo int
	if err := s.Write().QueryRowContext(ctx, "SELECT count(*) FROM geo_scopes").Scan(&scopes); err != nil || scopes != 3 {
		t.Errorf("geo_scopes: %d rows (%v), want 3", scopes, err)
	}
	if err := s.Write().QueryRowContext(ctx, "SELECT count(*) FROM sqlite_master WHERE name = 'records_geo'").Scan(&geo); err != nil || geo != 0 {
		t.Errorf("records_geo: %d (%v), want gone", geo, err)
	}
	var rtree string
	if err := s.Write().QueryRowContext(ctx, "SELECT rtreecheck('records_box')").Scan(&rtree); err != nil || rtree != "ok" {
		t.Errorf("rtreecheck: %q, %v", rtree, err)
	}
}
