package sqlite

import (
	"errors"
	"log/slog"
	"runtime"
	"time"

	"github.com/bwcms/cms/internal/option"
)

// The defaults of Options, applied where a field is 0.
const (
	DefaultBusyTimeout     = 10 * time.Second
	DefaultCheckpointEvery = 200 * time.Millisecond
	DefaultTrimThreshold   = 64 << 20
)

// KeepTrimThreshold, as Options.TrimThreshold, leaves the C library's
// own setting.
const KeepTrimThreshold = -1

// AutoCheckpoints, as Options.CheckpointEvery, leaves checkpoints to
// SQLite: the commit that takes the WAL past 1,000 pages makes one.
const AutoCheckpoints time.Duration = -1

// withDefaults returns o with every default applied, or an error naming
// the first field Open refuses.
func (o Options) withDefaults() (Options, error) {
	const p = "sqlite: Options."
	err := errors.Join(
		option.Check(p+"ReadConns", o.ReadConns, "the number of CPUs, at least 2"),
		option.Default(p+"BusyTimeout", &o.BusyTimeout, DefaultBusyTimeout),
		option.Default(p+"CheckpointEvery", &o.CheckpointEvery, DefaultCheckpointEvery,
			option.Sentinel[time.Duration]{Name: "sqlite.AutoCheckpoints", Value: AutoCheckpoints}),
		option.Default(p+"TrimThreshold", &o.TrimThreshold, DefaultTrimThreshold,
			option.Sentinel[int]{Name: "sqlite.KeepTrimThreshold", Value: KeepTrimThreshold}),
	)
	if err != nil {
		return Options{}, err
	}
	if o.ReadConns == 0 {
		o.ReadConns = max(2, runtime.NumCPU())
	}
	if o.Logger == nil {
		o.Logger = slog.New(slog.DiscardHandler)
	}
	if o.setTrim == nil {
		o.setTrim = setTrimThreshold
	}
	if o.spaceProbe == nil {
		o.spaceProbe = probeRoom
	}
	return o, nil
}
