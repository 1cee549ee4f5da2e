package postgres

import (
	"testing"
	"time"
)

// TestOptionsRefused: Open and OpenPool refuse every negative option that
// is not NoTimeout, before connecting, with the field named.
func TestOptionsRefused(t *testing.T) {
	t.Parallel()
	for _, c := range []struct {
		opts Options
		want string
	}{
		{Options{MaxConns: -1}, "postgres: Options.MaxConns is -1: must be 0 (default 20; OpenPool: the pool's) or more"},
		{Options{ConnWait: -time.Second}, "postgres: Options.ConnWait is -1s: must be 0 (default 10s), postgres.NoTimeout or more"},
		{Options{MaxIdleConns: -1}, "postgres: Options.MaxIdleConns is -1: must be 0 (default MaxConns) or more"},
		{Options{ConnMaxLifetime: -time.Minute}, "postgres: Options.ConnMaxLifetime is -1m0s: must be 0 (default 30m0s) or more"},
		{Options{LockTimeout: -time.Second}, "postgres: Options.LockTimeout is -1s: must be 0 (default 10s), postgres.NoTimeout or more"},
		{Options{StatementTimeout: -time.Second}, "postgres: Options.StatementTimeout is -1s: must be 0 (default 30s), postgres.NoTimeout or more"},
		{Options{IdleInTxTimeout: -time.Second}, "postgres: Options.IdleInTxTimeout is -1s: must be 0 (default 15s), postgres.NoTimeout or more"},
		{Options{BatchLockTimeout: -time.Second}, "postgres: Options.BatchLockTimeout is -1s: must be 0 (default 2m0s), postgres.NoTimeout or more"},
		{Options{BatchStatementTimeout: -time.Second}, "postgres: Options.BatchStatementTimeout is -1s: must be 0 (default 5m0s), postgres.NoTimeout or more"},
		{Options{NetworkTimeout: -time.Second}, "postgres: Options.NetworkTimeout is -1s: must be 0 (default 10s), postgres.NoTimeout or more"},
	} {
		// A closed port: the options are refused before any connection.
		s, err := Open(t.Context(), "postgres://nobody@127.0.0.1:1/none?sslmode=disable", &c.opts)
		if err == nil || err.Error() != c.want {
			t.Errorf("got %v, %v; want error %q", s, err, c.want)
		}
	}
}

// TestOptionsDefaults: 0 is the default, NoTimeout is off (0 for the
// server), a positive value stays.
func TestOptionsDefaults(t *testing.T) {
	t.Parallel()
	o, err := options(&Options{StatementTimeout: NoTimeout, ConnWait: NoTimeout, LockTimeout: 3 * time.Second})
	if err != nil {
		t.Fatal(err)
	}
	lim := newLimits(o)
	if o.ConnWait != 0 || lim.statement != 0 || lim.lock != 3*time.Second || lim.idleInTx != DefaultIdleInTxTimeout ||
		lim.network != DefaultNetworkTimeout || o.ConnMaxLifetime != DefaultConnMaxLifetime {
		t.Errorf("options %+v, limits %+v", o, lim)
	}
}
