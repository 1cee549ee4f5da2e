package cms_test

import (
	"testing"
	"time"

	"github.com/bwcms/cms/cms"
)

// TestOptionsRefused: every numeric option refuses a negative value that
// is not its named sentinel, and the error names the field.
func TestOptionsRefused(t *testing.T) {
	t.Parallel()
	_, st := openService(t, cheap, nil)
	for _, c := range []struct {
		opts cms.Options
		want string
	}{
		{cms.Options{HashConcurrency: -1}, "cms: Options.HashConcurrency is -1: must be 0 (default GOMAXPROCS) or more"},
		{cms.Options{RefreshIdle: -time.Second}, "cms: Options.RefreshIdle is -1s: must be 0 (default 168h0m0s) or more"},
		{cms.Options{RefreshLifetime: -time.Hour}, "cms: Options.RefreshLifetime is -1h0m0s: must be 0 (default 720h0m0s) or more"},
		{cms.Options{RefreshGrace: -time.Second}, "cms: Options.RefreshGrace is -1s: must be 0 (default 10s), cms.NoGrace or more"},
		{cms.Options{LoginAttempts: -1}, "cms: Options.LoginAttempts is -1: must be 0 (default 5) or more"},
		{cms.Options{LoginUserCeiling: -1}, "cms: Options.LoginUserCeiling is -1: must be 0 (default 100) or more"},
		{cms.Options{LoginWindow: -time.Minute}, "cms: Options.LoginWindow is -1m0s: must be 0 (default 15m0s) or more"},
		{cms.Options{MaxBatchRecords: -1}, "cms: Options.MaxBatchRecords is -1: must be 0 (default 10000) or more"},
		{cms.Options{BatchLease: -time.Second}, "cms: Options.BatchLease is -1s: must be 0 (default 1m0s) or more"},
		{cms.Options{BatchMaxAttempts: -1}, "cms: Options.BatchMaxAttempts is -1: must be 0 (default 5) or more"},
		{cms.Options{BatchRaceRetries: -1}, "cms: Options.BatchRaceRetries is -1: must be 0 (default 100) or more"},
		{cms.Options{BatchWorkers: -2}, "cms: Options.BatchWorkers is -2: must be 0 (default 1), cms.NoBatchWorkers or more"},
		{cms.Options{PurgeEvery: -time.Hour}, "cms: Options.PurgeEvery is -1h0m0s: must be 0 (default 1h0m0s) or more"},
		{cms.Options{BatchPoll: -time.Second}, "cms: Options.BatchPoll is -1s: must be 0 (default 1s) or more"},
		{cms.Options{BatchRetention: -time.Hour}, "cms: Options.BatchRetention is -1h0m0s: must be 0 (default 168h0m0s) or more"},
		{cms.Options{BatchHandoff: -2}, "cms: Options.BatchHandoff is -2: must be 0 (default 67108864), cms.NoBatchHandoff or more"},
		{cms.Options{TxAttempts: -1}, "cms: Options.TxAttempts is -1: must be 0 (default 5) or more"},
		{cms.Options{UserRecheck: -time.Second}, "cms: Options.UserRecheck is -1s: must be 0 (default 2s) or more"},
	} {
		svc, err := cms.NewService(st, &c.opts)
		if err == nil || err.Error() != c.want {
			t.Errorf("%+v: got %v, %v; want error %q", c.opts, svc, err, c.want)
		}
	}
}

// TestOptionsSentinels: the named sentinels are accepted.
func TestOptionsSentinels(t *testing.T) {
	t.Parallel()
	_, st := openService(t, cheap, nil)
	if _, err := cms.NewService(st, &cms.Options{RefreshGrace: cms.NoGrace, BatchWorkers: cms.NoBatchWorkers,
		BatchHandoff: cms.NoBatchHandoff}); err != nil {
		t.Fatal(err)
	}
}
