package postgres

import (
	"strings"
	"testing"

	"github.com/bwcms/cms/cms"
)

// TestPointPlansAt100k explains the statements of PointRows over 100,000
// located Resources (and 5,000 of another account), never analyzed and
// analyzed, custom and generic: each walks a key (or the Map's list) for
// its chunk, none reads the table whole or sorts it.
func TestPointPlansAt100k(t *testing.T) {
	t.Parallel()
	s := openTestStore(t, patientOptions())
	noAutovacuum(t, s)
	ctx := t.Context()
	// Straight into the tables: the plans need the rows, not the service's
	// writes of them.
	fill := func(account string, n int) {
		_, err := s.Write().ExecContext(ctx, `INSERT INTO records (account, kind, id, published, updated_at, lat, lon, doc, terms)
			SELECT ?, 'resource', 'pt-' || lpad(g::text, 6, '0'), g % 10 <> 0, g, 36 + (g % 997) * 0.02, -9 + (g % 89) * 0.3,
				'{"id":"pt-' || lpad(g::text, 6, '0') || '","title":{"en":"Place ' || g || '"}}',
				chr(31) || 'y:' || (ARRAY['POI','TRACK','HOTEL'])[g % 3 + 1] || chr(31)
			FROM generate_series(1, ?) AS g`, account, n)
		if err != nil {
			t.Fatal(err)
		}
		_, err = s.Write().ExecContext(ctx, `INSERT INTO assignments (account, map_id, resource_id, role, map_pos, resource_pos)
			SELECT ?, 'm' || (g % 20), 'pt-' || lpad(g::text, 6, '0'), 'primary', g, 0 FROM generate_series(1, ?) AS g`, account, n)
		if err != nil {
			t.Fatal(err)
		}
	}
	fill("a", 100_000)
	fill("b", 5_000)

	type stmt struct {
		name  string
		query string
		args  []any
	}
	var stmts []stmt
	for _, q := range []cms.PointQuery{
		{Account: "a", Published: cms.PublishedAny},
		{Account: "a", Published: cms.UnpublishedOnly, Terms: []cms.TermRange{cms.TypeTerm("POI")}},
		{Account: "a", MapID: "m3"},
	} {
		for _, after := range []string{"", "pt-050000"} {
			query, args := s.PointQuery(q, after, 500)
			stmts = append(stmts, stmt{"walk", query, args})
		}
	}
	ids := []string{"pt-000001", "pt-000002", "pt-000003", "pt-000004", "pt-000005", "pt-099999"}
	query, args := s.PointCandidateQuery(cms.PointQuery{Account: "a", Terms: []cms.TermRange{cms.TypeTerm("POI")}}, ids)
	stmts = append(stmts, stmt{"candidates", query, args})

	for _, state := range []string{"never analyzed", "analyzed"} {
		if state == "analyzed" {
			analyzeSchema(t, s)
		}
		for _, st := range stmts {
			for kind, plan := range map[string]string{"custom": explain(t, s, st.query, st.args), "generic": explainGeneric(t, s, st.query, st.args)} {
				bad := badPlanLine(plan)
				if bad == "" && strings.Contains(plan, "Sort Key") && !strings.Contains(plan, "Index") {
					bad = "a sort of the table"
				}
				if testing.Verbose() && state == "analyzed" && kind == "custom" {
					t.Logf("%s:\n%s", st.name, plan)
				}
				if bad != "" {
					t.Errorf("%s, %s plan of %s: %q\n%s\n%s", state, kind, st.name, bad, st.query, plan)
				}
			}
		}
	}
}
