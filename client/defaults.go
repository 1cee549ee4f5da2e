package client

import (
	"errors"
	"fmt"
	"log/slog"
	"net/http"
	"time"

	"github.com/bwcms/cms/internal/option"
)

// The defaults of Options, applied where a field is 0.
const (
	// DefaultPageSize is how many records List asks for a page.
	DefaultPageSize        = 100
	DefaultPollInterval    = 100 * time.Millisecond
	DefaultMaxPollInterval = 2 * time.Second
	DefaultRefreshTimeout  = 30 * time.Second
)

// withDefaults returns o with every default applied, or an error naming
// the first field New refuses.
func (o Options) withDefaults() (Options, error) {
	if o.HTTPClient == nil {
		o.HTTPClient = http.DefaultClient
	}
	if o.Logger == nil {
		o.Logger = slog.New(slog.DiscardHandler)
	}
	if o.Location == nil {
		o.Location = time.FixedZone("CET", 3600)
	}
	const p = "client: Options."
	var pageSize error
	switch {
	case o.PageSize == 0:
		o.PageSize = DefaultPageSize
	case o.PageSize < 0 || o.PageSize > MaxPageSize:
		pageSize = fmt.Errorf("%sPageSize is %d: must be 0 (default %d) or 1 to %d", p, o.PageSize, DefaultPageSize, MaxPageSize)
	}
	err := errors.Join(
		pageSize,
		option.Default(p+"PollInterval", &o.PollInterval, DefaultPollInterval),
		option.Default(p+"MaxPollInterval", &o.MaxPollInterval, DefaultMaxPollInterval),
		option.Default(p+"RefreshTimeout", &o.RefreshTimeout, DefaultRefreshTimeout),
	)
	if err != nil {
		return Options{}, err
	}
	return o, nil
}
