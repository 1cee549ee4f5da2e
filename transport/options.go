package transport

import (
	"crypto/rand"
	"errors"
	"log/slog"
	"strings"
	"time"

	"github.com/bwcms/cms/internal/option"
)

// The defaults of Options, applied where a field is 0 (or "").
const (
	DefaultIssuer          = "bw"
	DefaultMaxBody         = 8 << 20
	DefaultMaxBatchBody    = 64 << 20
	DefaultBodyReadTimeout = 10 * time.Second
	DefaultBodyReadChunk   = 64 << 10
	DefaultWriteTimeout    = 30 * time.Second
	DefaultCORSMaxAge      = 10 * time.Minute
)

// The sentinels of Options: a field's "off".
const (
	// NoTimeout, as Options.BodyReadTimeout or WriteTimeout, turns that
	// deadline off.
	NoTimeout time.Duration = -1
	// NoCORSMaxAge, as Options.CORSMaxAge, sends no Access-Control-Max-Age:
	// browsers keep a preflight's answer as long as they do by default.
	NoCORSMaxAge time.Duration = -1
)

// withDefaults returns o with every default applied, or an error naming
// the first field NewHandler refuses. The signing key is checked with the
// tokens it makes.
func (o Options) withDefaults() (Options, error) {
	if o.Logger == nil {
		o.Logger = slog.New(slog.DiscardHandler)
	}
	if o.Rand == nil {
		o.Rand = rand.Reader
	}
	if o.Issuer == "" {
		o.Issuer = DefaultIssuer
	}
	const p = "transport: Options."
	noTimeout := option.Sentinel[time.Duration]{Name: "transport.NoTimeout", Value: NoTimeout}
	err := errors.Join(
		option.Default(p+"MaxBody", &o.MaxBody, DefaultMaxBody),
		option.Default(p+"MaxBatchBody", &o.MaxBatchBody, DefaultMaxBatchBody),
		option.Default(p+"BodyReadTimeout", &o.BodyReadTimeout, DefaultBodyReadTimeout, noTimeout),
		option.Default(p+"BodyReadChunk", &o.BodyReadChunk, DefaultBodyReadChunk),
		option.Default(p+"WriteTimeout", &o.WriteTimeout, DefaultWriteTimeout, noTimeout),
		option.Default(p+"CORSMaxAge", &o.CORSMaxAge, DefaultCORSMaxAge,
			option.Sentinel[time.Duration]{Name: "transport.NoCORSMaxAge", Value: NoCORSMaxAge}),
		inField("BasePath", CheckBasePath(o.BasePath)),
		checkCookie(&o),
		inField("AllowedOrigins", checkOrigins(&o)),
	)
	if err != nil {
		return Options{}, err
	}
	return o, nil
}

// fieldError is a check's error (CheckBasePath's, CheckOrigin's) told as
// the option's that holds the value.
type fieldError struct {
	field string
	err   error
}

func (e *fieldError) Error() string {
	return "transport: Options." + e.field + ": " + strings.TrimPrefix(e.err.Error(), "transport: ")
}

func (e *fieldError) Unwrap() error { return e.err }

// inField names field in err, when there is one.
func inField(field string, err error) error {
	if err == nil {
		return nil
	}
	return &fieldError{field: field, err: err}
}
