package postgres

import (
	"errors"
	"strconv"
	"time"

	"github.com/bwcms/cms/internal/option"
)

// The defaults of Options, applied where a field is 0.
const (
	DefaultMaxConns              = 20
	DefaultConnWait              = 10 * time.Second
	DefaultConnMaxLifetime       = 30 * time.Minute
	DefaultLockTimeout           = 10 * time.Second
	DefaultStatementTimeout      = 30 * time.Second
	DefaultIdleInTxTimeout       = 15 * time.Second
	DefaultBatchLockTimeout      = 2 * time.Minute
	DefaultBatchStatementTimeout = 5 * time.Minute
	DefaultNetworkTimeout        = 10 * time.Second
)

// NoTimeout, as a timeout of Options (or ConnWait), turns the limit off.
const NoTimeout time.Duration = -1

// options returns opts or the zero Options with the defaults both Open
// and OpenPool share applied (MaxConns and MaxIdleConns, which depend on
// which it is, stay 0 for them), or an error naming the first field it
// refuses. ConnWait's NoTimeout becomes 0, the store's "no limit"; the
// other timeouts keep it (newLimits reads it).
func options(opts *Options) (Options, error) {
	var o Options
	if opts != nil {
		o = *opts
	}
	const p = "postgres: Options."
	noTimeout := option.Sentinel[time.Duration]{Name: "postgres.NoTimeout", Value: NoTimeout}
	err := errors.Join(
		option.Check(p+"MaxConns", o.MaxConns, strconv.Itoa(DefaultMaxConns)+"; OpenPool: the pool's"),
		option.Default(p+"ConnWait", &o.ConnWait, DefaultConnWait, noTimeout),
		option.Check(p+"MaxIdleConns", o.MaxIdleConns, "MaxConns"),
		option.Default(p+"ConnMaxLifetime", &o.ConnMaxLifetime, DefaultConnMaxLifetime),
		option.Default(p+"LockTimeout", &o.LockTimeout, DefaultLockTimeout, noTimeout),
		option.Default(p+"StatementTimeout", &o.StatementTimeout, DefaultStatementTimeout, noTimeout),
		option.Default(p+"IdleInTxTimeout", &o.IdleInTxTimeout, DefaultIdleInTxTimeout, noTimeout),
		option.Default(p+"BatchLockTimeout", &o.BatchLockTimeout, DefaultBatchLockTimeout, noTimeout),
		option.Default(p+"BatchStatementTimeout", &o.BatchStatementTimeout, DefaultBatchStatementTimeout, noTimeout),
		option.Default(p+"NetworkTimeout", &o.NetworkTimeout, DefaultNetworkTimeout, noTimeout),
	)
	if err != nil {
		return Options{}, err
	}
	if o.ConnWait == NoTimeout {
		o.ConnWait = 0
	}
	return o, nil
}
