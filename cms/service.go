package cms

import (
	"encoding/hex"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"sync"
	"sync/atomic"
	"time"
)

// Service is the content service: every business rule of the API, on top
// of a Store. It is safe for concurrent use.
type Service struct {
	store  Store
	opts   Options
	log    *slog.Logger
	hasher *hasher
	creds  Credentials
	users  *userCache
	// doc is the storage form's codec; codecs caches one Codec per
	// language configuration (key Languages.String()).
	doc    *Codec
	codecs sync.Map
	// handoff passes submitted batches to the workers of this process;
	// workers counts those running (RunBatchWorkers).
	handoff *handoff
	workers atomic.Int32
	// idleWarned is set once SubmitBatch has warned that no worker runs.
	idleWarned atomic.Bool
	// runs are the batches this process's workers apply now, with their
	// progress (BatchStatus).
	runs batchRuns
	// decodes bounds the uploads judged and thumbnails made at once
	// (Options.FileDecodes); thumbnails makes each thumbnail once when
	// several requests ask for it together.
	decodes    chan struct{}
	thumbnails thumbnailJobs
	// subs are the subscriptions of Subscribe, which Run runs.
	subs subscriptions
	// fences shares the changes feed's fences among its readers.
	fences fences
	// sanitized keeps the default sanitizer's recent answers; nil with a
	// host's sanitizer, which is asked every time.
	sanitized *sanitizedTexts
}

// NewService returns a Service on store.
func NewService(store Store, opts *Options) (*Service, error) {
	if store == nil {
		return nil, errors.New("cms: NewService needs a Store")
	}
	var o Options
	if opts != nil {
		o = *opts
	}
	o, err := o.withDefaults()
	if err != nil {
		return nil, err
	}
	s := &Service{store: store, opts: o, log: o.Logger,
		hasher: newHasher(o.Passwords, o.HashConcurrency, o.Rand), handoff: newHandoff(o.BatchHandoff)}
	s.creds = o.Credentials
	if s.creds == nil {
		s.creds = storeCredentials{s}
	}
	s.users = newUserCache(o.UserRecheck)
	s.doc = NewDocumentCodec()
	s.decodes = make(chan struct{}, o.FileDecodes)
	if _, ok := o.HTML.(ugc); ok {
		s.sanitized = newSanitizedTexts(o.HTML, keptHTMLBytes)
	}
	return s, nil
}

// Now reads the service's clock (Options.Now, default time.Now): the time
// records, batches and sessions are dated by, so a host (and the HTTP
// layer's tokens) can date things by the same clock.
func (s *Service) Now() time.Time { return s.opts.Now() }

func (s *Service) randomHex(n int) (string, error) {
	b := make([]byte, n)
	if _, err := io.ReadFull(s.opts.Rand, b); err != nil {
		return "", fmt.Errorf("cms: random: %w", err)
	}
	return hex.EncodeToString(b), nil
}

// Location is the zone of the timestamps on the wire (Options.Location).
func (s *Service) Location() *time.Location { return s.opts.Location }

// Timestamp formats t as the contract's YYYY-MM-DD HH:MM:SS in the
// service's zone (Options.Location).
func (s *Service) Timestamp(t time.Time) string {
	return t.In(s.opts.Location).Format(time.DateTime)
}
