package sqlite

import (
	"context"
	"strings"
	"testing"

	"github.com/bwcms/cms/adapters/internal/bunstoretest"
)

// TestWebhookStatementsUseIndexes runs the webhook store's calls over
// 100 webhooks and 200,000 deliveries (bunstoretest.WebhookOperations)
// and explains every statement, on the database never analyzed and
// again after ANALYZE: none may scan a table, but the list of every
// enabled webhook (the materializer's round), which reads them all.
func TestWebhookStatementsUseIndexes(t *testing.T) {
	t.Parallel()
	var log bunstoretest.StatementLog
	s := openTraced(t, &log)
	ran := bunstoretest.WebhookStatements(t, s.Store, &log, planDeliveries)
	for _, state := range []string{"never analyzed", "analyzed"} {
		if state == "analyzed" {
			if _, err := s.Write().ExecContext(context.Background(), "ANALYZE"); err != nil {
				t.Fatal(err)
			}
		}
		checked := 0
		for query, args := range ran {
			if !planned(query) || strings.Contains(query, "FROM webhooks WHERE enabled") {
				continue
			}
			checked++
			plan := explainQuery(t, s, query, args)
			// An account's webhooks in the list's order: the account is
			// that index's whole key.
			plan = strings.ReplaceAll(plan, "SEARCH webhooks USING INDEX webhooks_list (account=?)", "")
			if bad := badPlanLine(plan); bad != "" {
				t.Errorf("%s: %q\n%s\nplan:\n%s", state, bad, query, plan)
			}
		}
		if checked < 10 {
			t.Fatalf("%s: only %d statements explained", state, checked)
		}
	}
}

// planDeliveries is how many deliveries the webhook plan tests fill.
const planDeliveries = 200_000
