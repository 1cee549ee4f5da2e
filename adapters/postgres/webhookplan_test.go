package postgres

import (
	"regexp"
	"strings"
	"testing"

	"github.com/bwcms/cms/adapters/internal/bunstoretest"
)

// TestWebhookStatementsUseIndexes runs the webhook store's calls over
// 100 webhooks and 200,000 deliveries (bunstoretest.WebhookOperations)
// and explains every statement, with its arguments and as a generic
// plan, on the tables never analyzed and again analyzed: none may read
// the delivery log sequentially. (The webhooks are few: read whole, as
// the planner likes a table of a few pages, they cost nothing.)
func TestWebhookStatementsUseIndexes(t *testing.T) {
	t.Parallel()
	var log bunstoretest.StatementLog
	s := openTraced(t, &log)
	for _, table := range []string{"webhooks", "webhook_deliveries"} {
		if _, err := s.Write().ExecContext(t.Context(), "ALTER TABLE "+table+" SET (autovacuum_enabled = false)"); err != nil {
			t.Fatal(err)
		}
	}
	ran := bunstoretest.WebhookStatements(t, s.Store, &log, planDeliveries)
	for _, state := range []string{"never analyzed", "analyzed"} {
		if state == "analyzed" {
			analyzeSchema(t, s)
		}
		checked := 0
		for query, args := range ran {
			if !strings.HasPrefix(query, "SELECT") && !strings.HasPrefix(query, "UPDATE") && !strings.HasPrefix(query, "DELETE") {
				continue
			}
			checked++
			plans := []string{explain(t, s, query, args)}
			if len(args) > 0 {
				plans = append(plans, explainGeneric(t, s, query, args))
			}
			for _, plan := range plans {
				if bad := webhookTableScan.FindString(plan); bad != "" {
					t.Errorf("%s: %q\n%s\nplan:\n%s", state, bad, query, plan)
				}
			}
		}
		if checked < 10 {
			t.Fatalf("%s: only %d statements explained", state, checked)
		}
	}
}

// planDeliveries is how many deliveries the webhook plan tests fill.
const planDeliveries = 200_000

// webhookTableScan matches a sequential read of the delivery log.
var webhookTableScan = regexp.MustCompile(`Seq Scan on webhook_deliveries\b.*`)
