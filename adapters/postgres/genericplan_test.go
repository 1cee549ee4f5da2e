package postgres

import (
	"testing"

	"github.com/bwcms/cms/adapters/internal/bunstoretest"
	"github.com/bwcms/cms/adapters/postgres/pgtest"
)

// TestGenericPlansOnly: every statement the store prepares runs its
// generic plan, planned once per connection, from its first execution
// (plan_cache_mode): none is planned again at each execution, as a
// statement taking a list was (the change records' statement of every
// create). One connection runs the record operations of the plan tests,
// whose prepared statements it then lists.
func TestGenericPlansOnly(t *testing.T) {
	t.Parallel()
	o := patientOptions()
	o.MaxConns = 1
	s, err := Open(t.Context(), pgtest.DSN(t), o)
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	bunstoretest.FillAssigned(t, s.Store, 200)
	bunstoretest.RunOperations(t, s)
	rows, err := s.Write().QueryContext(t.Context(), "SELECT statement, generic_plans, custom_plans FROM pg_prepared_statements")
	if err != nil {
		t.Fatal(err)
	}
	defer rows.Close()
	generic := 0
	for rows.Next() {
		var statement string
		var genericPlans, customPlans int64
		if err := rows.Scan(&statement, &genericPlans, &customPlans); err != nil {
			t.Fatal(err)
		}
		if customPlans > 0 {
			t.Errorf("planned for its arguments %d times:\n%s", customPlans, statement)
		}
		if genericPlans > 0 {
			generic++
		}
	}
	if err := rows.Err(); err != nil {
		t.Fatal(err)
	}
	if generic < 40 {
		t.Errorf("%d statements ran a generic plan: the operations ran too little", generic)
	}
}
