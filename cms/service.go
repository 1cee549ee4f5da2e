package cms

import (
	"crypto/rand"
	"encoding/hex"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"runtime"
	"sync"
	"sync/atomic"
	"time"
)

// Options configure a Service. The zero value (or nil) gives the defaults
// each field names.
type Options struct {
	// Logger receives what operators should know. Default: discard.
	Logger *slog.Logger
	// Now is the clock. Default time.Now.
	Now func() time.Time
	// Rand is the source of tokens, salts and ids. Default crypto/rand.
	Rand io.Reader

	// Credentials checks usernames and passwords. Default: the users kept
	// in the Store. A host with its own users plugs in its check here.
	Credentials Credentials
	// Passwords are the argon2id parameters of new hashes; a stored hash
	// with other parameters is remade at the next successful login.
	// Defaults: 19 MiB, 2 passes, 1 thread.
	Passwords PasswordParams
	// HashConcurrency bounds the passwords hashed at once. Default
	// GOMAXPROCS.
	HashConcurrency int

	// RefreshIdle is how long a refresh token stays valid unused.
	// Default 7 days.
	RefreshIdle time.Duration
	// RefreshLifetime is how long a login's refresh family lasts at most.
	// Default 30 days.
	RefreshLifetime time.Duration
	// RefreshGrace is how long a spent refresh token still gets a fresh
	// pair instead of counting as reuse (tabs refreshing at once).
	// Default 10 s; NoGrace disables it.
	RefreshGrace time.Duration

	// LoginAttempts is how many failed logins a username may have from
	// one client address within LoginWindow before further attempts for
	// it from that address are refused. Default 5.
	LoginAttempts int
	// LoginUserCeiling is how many failed logins a username may have
	// within LoginWindow over all addresses before only its known
	// addresses (a successful login from them in the last 30 days) may
	// still try. Default 100.
	LoginUserCeiling int
	// LoginWindow is the throttling window. Default 15 minutes.
	LoginWindow time.Duration

	// Location is the zone of timeLastUpdate and the other timestamps on
	// the wire, and of /updatedSince. Default: a fixed UTC+1 (CET).
	Location *time.Location
	// HTML sanitizes the HTML fields of every write. Default
	// UGCSanitizer() (bluemonday's user-generated-content policy).
	HTML Sanitizer

	// MaxBatchRecords is the most records one batch may hold. Default
	// 10,000.
	MaxBatchRecords int
	// BatchLease is how long a claimed batch stays with its worker
	// without a heartbeat; after it, any instance takes the batch up
	// again. Default 60 s.
	BatchLease time.Duration
	// BatchMaxAttempts is how many times a batch is tried: a failure of
	// the store's (a write error) is tried again at once until the last
	// attempt records it, and a batch claimed this many times without an
	// outcome (its apply crashed the process each time) is given up with
	// status error. A clash with a concurrent writer and a store that
	// cannot be reached use up no attempt: the apply waits and runs
	// again. Default 5.
	BatchMaxAttempts int
	// BatchRaceRetries bounds how many times in a row a batch's apply is
	// run again after a clash with concurrent writers (a deadlock, a
	// serialization failure, a key taken meanwhile), each after a growing
	// wait: past it the clash is no longer taken for another writer's and
	// counts as a failed attempt (BatchMaxAttempts). An unreachable store
	// is waited out however long it lasts. Default 100 (minutes of waits).
	BatchRaceRetries int
	// BatchWorkers is how many workers Run starts to apply batches in
	// this process. Default 1; NoBatchWorkers: none, because another
	// process (a worker instance) applies them.
	BatchWorkers int
	// PurgeEvery is how often Run calls Purge. Default 1 hour.
	PurgeEvery time.Duration
	// BatchPoll is how long an idle worker waits before looking for a
	// batch again. Default 1 s.
	BatchPoll time.Duration
	// BatchRetention is how long finished batches are kept for status
	// queries before Purge deletes them. Default 7 days.
	BatchRetention time.Duration
	// BatchHandoff is how many bytes of submitted batch bodies the service
	// keeps in memory, while its own workers run, for them to apply
	// without reading the body back from the store. Default 64 MiB (one
	// largest batch); negative: none, workers always read the store.
	BatchHandoff int

	// TxAttempts is how many times a write transaction is tried when it
	// fails on a race with another writer (a deadlock, a serialization
	// failure, a unique key taken meanwhile) before the caller gets
	// CodeUnavailable. Default 5.
	TxAttempts int

	// Observer hears finished batches and refused logins, for metrics.
	// Default: nothing.
	Observer Observer

	// UserRecheck is how long a user's disabled state is trusted before
	// it is read again; a disabled user's access tokens stop working after
	// at most this long. Default 2 s.
	UserRecheck time.Duration
}

// NoBatchWorkers, as Options.BatchWorkers, runs no batch worker in this
// process: batches are stored, and another process applies them.
const NoBatchWorkers = -1

// NoGrace, as Options.RefreshGrace, turns the refresh grace period off.
const NoGrace time.Duration = -1

func (o Options) withDefaults() Options {
	if o.Logger == nil {
		o.Logger = slog.New(slog.DiscardHandler)
	}
	if o.Now == nil {
		o.Now = time.Now
	}
	if o.Rand == nil {
		o.Rand = rand.Reader
	}
	if o.HashConcurrency <= 0 {
		o.HashConcurrency = runtime.GOMAXPROCS(0)
	}
	if o.RefreshIdle == 0 {
		o.RefreshIdle = 7 * 24 * time.Hour
	}
	if o.RefreshLifetime == 0 {
		o.RefreshLifetime = 30 * 24 * time.Hour
	}
	switch {
	case o.RefreshGrace == 0:
		o.RefreshGrace = 10 * time.Second
	case o.RefreshGrace < 0:
		o.RefreshGrace = 0
	}
	if o.LoginAttempts == 0 {
		o.LoginAttempts = 5
	}
	if o.LoginUserCeiling == 0 {
		o.LoginUserCeiling = 100
	}
	if o.LoginWindow == 0 {
		o.LoginWindow = 15 * time.Minute
	}
	if o.Location == nil {
		o.Location = time.FixedZone("CET", 60*60)
	}
	if o.HTML == nil {
		o.HTML = UGCSanitizer()
	}
	if o.MaxBatchRecords == 0 {
		o.MaxBatchRecords = 10000
	}
	if o.BatchLease == 0 {
		o.BatchLease = 60 * time.Second
	}
	if o.BatchWorkers == 0 {
		o.BatchWorkers = 1
	}
	if o.PurgeEvery <= 0 {
		o.PurgeEvery = time.Hour
	}
	if o.BatchPoll == 0 {
		o.BatchPoll = time.Second
	}
	if o.BatchMaxAttempts == 0 {
		o.BatchMaxAttempts = 5
	}
	if o.BatchRaceRetries <= 0 {
		o.BatchRaceRetries = 100
	}
	if o.BatchRetention == 0 {
		o.BatchRetention = 7 * 24 * time.Hour
	}
	switch {
	case o.BatchHandoff == 0:
		o.BatchHandoff = 64 << 20
	case o.BatchHandoff < 0:
		o.BatchHandoff = 0
	}
	if o.TxAttempts <= 0 {
		o.TxAttempts = 5
	}
	if o.Observer == nil {
		o.Observer = noObserver{}
	}
	if o.UserRecheck == 0 {
		o.UserRecheck = 2 * time.Second
	}
	return o
}

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
	o = o.withDefaults()
	if o.RefreshIdle < 0 || o.RefreshLifetime < 0 || o.LoginAttempts < 0 || o.LoginUserCeiling < 0 || o.LoginWindow < 0 ||
		o.UserRecheck < 0 || o.MaxBatchRecords < 0 || o.BatchLease < 0 || o.BatchPoll < 0 || o.BatchRetention < 0 {
		return nil, errors.New("cms: Options durations and counts must not be negative")
	}
	s := &Service{store: store, opts: o, log: o.Logger,
		hasher: newHasher(o.Passwords, o.HashConcurrency, o.Rand), handoff: newHandoff(o.BatchHandoff)}
	s.creds = o.Credentials
	if s.creds == nil {
		s.creds = storeCredentials{s}
	}
	s.users = newUserCache(o.UserRecheck)
	s.doc = NewDocumentCodec()
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
