package postgres

import (
	"context"
	"net"
	"strconv"
	"time"

	"github.com/jackc/pgx/v5"
)

// limits are the timeouts of Options with their defaults applied; 0 is
// no limit.
type limits struct {
	lock, statement, idleInTx, batchLock, batchStatement, network time.Duration
}

// newLimits reads o's timeouts, its defaults applied (options).
func newLimits(o Options) limits {
	off := func(d time.Duration) time.Duration {
		if d == NoTimeout {
			return 0
		}
		return d
	}
	return limits{
		lock:           off(o.LockTimeout),
		statement:      off(o.StatementTimeout),
		idleInTx:       off(o.IdleInTxTimeout),
		batchLock:      off(o.BatchLockTimeout),
		batchStatement: off(o.BatchStatementTimeout),
		network:        off(o.NetworkTimeout),
	}
}

// millis is d as a setting's value in milliseconds ("0": off), rounded
// up: a limit under a millisecond is one, never "0", which the server
// reads as no limit.
func millis(d time.Duration) string { return strconv.FormatInt(ceilMillis(d), 10) }

// ceilMillis is d in whole milliseconds, rounded up (0 for 0 or less).
func ceilMillis(d time.Duration) int64 {
	if d <= 0 {
		return 0
	}
	return int64((d + time.Millisecond - 1) / time.Millisecond)
}

// sessionSettings are a request's limits, set on each connection of the
// store's (the server applies them to every statement and transaction),
// and JIT compilation off. The planner compiles a statement whose
// estimated cost passes jit_above_cost, and on a table whose statistics
// are missing or stale a page of 100 records can be estimated that
// high: an updatedSince page at 1,000,000 Resources took 200 to 500 ms
// of compiling for 1.4 ms of execution. The store's statements read a
// page or a few rows by an index, where compiling never pays.
//
// Prepared statements run their generic plan from the first execution
// (plan_cache_mode): the planner otherwise plans a statement whose
// argument is a list again at every execution, since its generic plan
// counts 10 rows a list where the custom one counts the real 1 to 3
// (the change records' statement of a create spent 0.38 ms planning
// for 0.1 ms of execution). The store's statements are shaped to look
// each key up by its index whatever the planner knows of the values,
// and the plan tests hold their generic plans to it.
func (l limits) sessionSettings() [][2]string {
	return [][2]string{
		{"lock_timeout", millis(l.lock)},
		{"statement_timeout", millis(l.statement)},
		{"idle_in_transaction_session_timeout", millis(l.idleInTx)},
		{"jit", "off"},
		{"plan_cache_mode", "force_generic_plan"},
	}
}

// batchTxStart is the statement that gives a batch's transaction its own
// lock and statement timeouts, for that transaction only.
func (l limits) batchTxStart() string {
	return "SELECT set_config('lock_timeout', '" + millis(l.batchLock) + "', true), " +
		"set_config('statement_timeout', '" + millis(l.batchStatement) + "', true)"
}

// migrationTxStart turns every limit off for the migration transaction:
// it waits for another instance's migration and takes as long as the
// data needs.
const migrationTxStart = "SELECT set_config('lock_timeout', '0', true), set_config('statement_timeout', '0', true), " +
	"set_config('idle_in_transaction_session_timeout', '0', true)"

// wait is how long the store waits for the answer of a statement whose
// server limit is statement: that limit and the network's margin (0: no
// bound, when either is off).
func (l limits) wait(statement time.Duration) time.Duration {
	if statement <= 0 || l.network <= 0 {
		return 0
	}
	return statement + l.network
}

// configure gives a connection config of Open the request's limits as
// startup parameters and a dialer that gives up on a silent peer within
// the network timeout.
func (l limits) configure(config *pgx.ConnConfig) {
	for _, kv := range l.sessionSettings() {
		config.RuntimeParams[kv[0]] = kv[1]
	}
	if l.network <= 0 {
		return
	}
	// The server too gives up on a connection whose data goes unacknowledged
	// that long (a partitioned instance): its session ends, its locks go.
	config.RuntimeParams["tcp_user_timeout"] = millis(l.network)
	if config.ConnectTimeout <= 0 || config.ConnectTimeout > l.network {
		config.ConnectTimeout = l.network
	}
	d := &net.Dialer{
		Timeout: l.network,
		KeepAliveConfig: net.KeepAliveConfig{Enable: true, Idle: l.network,
			Interval: max(l.network/3, time.Second), Count: 3},
		Control: userTimeout(l.network),
	}
	config.DialFunc = func(ctx context.Context, network, addr string) (net.Conn, error) {
		return d.DialContext(ctx, network, addr)
	}
}
