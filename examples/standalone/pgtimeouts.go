package main

import (
	"fmt"
	"time"

	"github.com/bwcms/cms/adapters/postgres"
)

// pgSettings are the PostgreSQL store's limits (postgres.Options); SQLite
// ignores them.
var pgSettings = []setting{
	{"pg-lock-timeout", "CMS_PG_LOCK_TIMEOUT", postgres.DefaultLockTimeout.String(), "PostgreSQL: how long a request waits for a lock another transaction holds before it is answered 503 (0: as long as it takes)"},
	{"pg-statement-timeout", "CMS_PG_STATEMENT_TIMEOUT", postgres.DefaultStatementTimeout.String(), "PostgreSQL: the longest a request's statement runs before it is answered 503 (0: no limit)"},
	{"pg-idle-in-tx-timeout", "CMS_PG_IDLE_IN_TX_TIMEOUT", postgres.DefaultIdleInTxTimeout.String(), "PostgreSQL: how long a transaction may wait for its instance between statements before the server ends it and frees its locks (0: no limit)"},
	{"pg-network-timeout", "CMS_PG_NETWORK_TIMEOUT", postgres.DefaultNetworkTimeout.String(), "PostgreSQL: how long the network may stay silent beyond the statement timeout before a connection is given up as dead and the request answered 503 (0: no limit)"},
}

// pgOptions reads pgSettings; a 0 is postgres.NoTimeout.
func pgOptions(cfg map[string]string) (*postgres.Options, error) {
	var o postgres.Options
	for _, f := range []struct {
		name string
		to   *time.Duration
	}{
		{"pg-lock-timeout", &o.LockTimeout},
		{"pg-statement-timeout", &o.StatementTimeout},
		{"pg-idle-in-tx-timeout", &o.IdleInTxTimeout},
		{"pg-network-timeout", &o.NetworkTimeout},
	} {
		d, err := time.ParseDuration(cfg[f.name])
		if err != nil || d < 0 {
			return nil, fmt.Errorf("--%s %q: want a duration such as 10s or 1m (0: off)", f.name, cfg[f.name])
		}
		if d == 0 {
			d = postgres.NoTimeout
		}
		*f.to = d
	}
	return &o, nil
}
