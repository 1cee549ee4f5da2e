package postgres

import (
	"strings"
	"testing"

	"github.com/bwcms/cms/adapters/postgres/pgtest"
	"github.com/jackc/pgx/v5/pgxpool"
)

// TestNoJIT: the store's connections never compile a statement (JIT):
// a statement estimated past jit_above_cost, as a page of an
// unanalyzed table can be, runs without it, on a store of its own
// connections and on one over a host's pool, whose connections get the
// host's setting back.
func TestNoJIT(t *testing.T) {
	t.Parallel()
	ctx := t.Context()
	// A billion rows by the planner's count (a set function of unknown
	// length counts 1,000), 27 run: far past jit_above_cost.
	const costly = "EXPLAIN (ANALYZE, COSTS) SELECT count(*) FROM generate_series(1, (SELECT 3)) a, " +
		"generate_series(1, (SELECT 3)) b, generate_series(1, (SELECT 3)) c"
	check := func(name string, s *Store) {
		t.Helper()
		var jit string
		if err := s.Write().QueryRowContext(ctx, "SHOW jit").Scan(&jit); err != nil || jit != "off" {
			t.Errorf("%s: jit = %q (%v), want off", name, jit, err)
		}
		var plan []string
		if err := s.Write().NewRaw(costly).Scan(ctx, &plan); err != nil {
			t.Fatal(err)
		}
		if text := strings.Join(plan, "\n"); strings.Contains(text, "JIT:") {
			t.Errorf("%s: the statement was compiled:\n%s", name, text)
		}
	}
	s, err := Open(ctx, pgtest.DSN(t), &Options{MaxConns: 2})
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	check("Open", s)

	config, err := pgxpool.ParseConfig(pgtest.Database(t))
	if err != nil {
		t.Fatal(err)
	}
	config.MaxConns = 1
	pool, err := pgxpool.NewWithConfig(ctx, config)
	if err != nil {
		t.Fatal(err)
	}
	defer pool.Close()
	var hostJIT string
	if err := pool.QueryRow(ctx, "SHOW jit").Scan(&hostJIT); err != nil {
		t.Fatal(err)
	}
	ps, err := OpenPool(ctx, pool, nil)
	if err != nil {
		t.Fatal(err)
	}
	defer ps.Close()
	check("OpenPool", ps)
	var after string
	if err := pool.QueryRow(ctx, "SHOW jit").Scan(&after); err != nil || after != hostJIT {
		t.Errorf("the host's connection has jit = %q (%v) after the store's use, want its own %q", after, err, hostJIT)
	}
}
