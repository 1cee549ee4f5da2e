package cms

import (
	"crypto/rand"
	"errors"
	"io"
	"log/slog"
	"runtime"
	"time"

	"github.com/bwcms/cms/internal/option"
	"gocloud.dev/blob"
)

// Options configure a Service. The zero value (or nil) gives the defaults
// each field names. Every number follows one rule: 0 means the default
// (a Default... constant), "off" is a named negative sentinel
// (NoGrace, NoBatchWorkers, NoBatchHandoff), and any other negative value
// is refused by NewService with an error naming the field.
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
	// Defaults: DefaultPasswordMemory (19 MiB), DefaultPasswordTime (2
	// passes), DefaultPasswordThreads (1).
	Passwords PasswordParams
	// HashConcurrency bounds the passwords hashed at once. Default
	// GOMAXPROCS.
	HashConcurrency int

	// RefreshIdle is how long a refresh token stays valid unused.
	// Default DefaultRefreshIdle (7 days).
	RefreshIdle time.Duration
	// RefreshLifetime is how long a login's refresh family lasts at most.
	// Default DefaultRefreshLifetime (30 days).
	RefreshLifetime time.Duration
	// RefreshGrace is how long a spent refresh token still gets a fresh
	// pair instead of counting as reuse (tabs refreshing at once).
	// Default DefaultRefreshGrace (10 s); NoGrace disables it.
	RefreshGrace time.Duration

	// LoginAttempts is how many failed logins a username may have from
	// one client address within LoginWindow before further attempts for
	// it from that address are refused. Default DefaultLoginAttempts (5).
	LoginAttempts int
	// LoginUserCeiling is how many failed logins a username may have
	// within LoginWindow over all addresses before only its known
	// addresses (a successful login from them in the last 30 days) may
	// still try. Default DefaultLoginUserCeiling (100).
	LoginUserCeiling int
	// LoginWindow is the throttling window. Default DefaultLoginWindow
	// (15 minutes).
	LoginWindow time.Duration

	// Location is the zone of timeLastUpdate and the other timestamps on
	// the wire, and of /updatedSince. Default: a fixed UTC+1 (CET).
	Location *time.Location
	// HTML sanitizes the HTML fields of every write. Default
	// UGCSanitizer() (bluemonday's user-generated-content policy), whose
	// recent answers the service keeps, since its policy answers a text
	// always alike (per record, up to 4 MiB: a record posted back with
	// the same rich text is not sanitized again); a host's sanitizer is
	// asked every time.
	HTML Sanitizer

	// MaxBatchRecords is the most records one batch may hold. Default
	// DefaultMaxBatchRecords (10,000).
	MaxBatchRecords int
	// BatchLease is how long a claimed batch stays with its worker
	// without a heartbeat; after it, any instance takes the batch up
	// again. Default DefaultBatchLease (60 s).
	BatchLease time.Duration
	// BatchMaxAttempts is how many times a batch is tried: a failure of
	// the store's (a write error) is tried again at once until the last
	// attempt records it, and a batch claimed this many times without an
	// outcome (its apply crashed the process each time) is given up with
	// status error. A clash with a concurrent writer and a store that
	// cannot be reached use up no attempt: the apply waits and runs
	// again. Default DefaultBatchMaxAttempts (5).
	BatchMaxAttempts int
	// BatchRaceRetries bounds how many times in a row a batch's apply is
	// run again after a clash with concurrent writers (a deadlock, a
	// serialization failure, a key taken meanwhile), each after a growing
	// wait: past it the clash is no longer taken for another writer's and
	// counts as a failed attempt (BatchMaxAttempts). An unreachable store
	// is waited out however long it lasts. Default DefaultBatchRaceRetries
	// (100: minutes of waits).
	BatchRaceRetries int
	// BatchWorkers is how many workers Run starts to apply batches in
	// this process. Default DefaultBatchWorkers (1); NoBatchWorkers: none, because another
	// process (a worker instance) applies them.
	BatchWorkers int
	// PurgeEvery is how often Run calls Purge. Default DefaultPurgeEvery
	// (1 hour).
	PurgeEvery time.Duration
	// BatchPoll is how long an idle worker waits before looking for a
	// batch again. Default DefaultBatchPoll (1 s).
	BatchPoll time.Duration
	// BatchRetention is how long finished batches are kept for status
	// queries before Purge deletes them. Default DefaultBatchRetention
	// (7 days).
	BatchRetention time.Duration
	// BatchHandoff is how many bytes of submitted batch bodies the service
	// keeps in memory, while its own workers run, for them to apply
	// without reading the body back from the store. Default
	// DefaultBatchHandoff (64 MiB, one largest batch); NoBatchHandoff:
	// none, workers always read the store.
	BatchHandoff int

	// TxAttempts is how many times a write transaction is tried when it
	// fails on a race with another writer (a deadlock, a serialization
	// failure, a unique key taken meanwhile) before the caller gets
	// CodeUnavailable. Default DefaultTxAttempts (5).
	TxAttempts int

	// Observer hears finished batches and refused logins, for metrics.
	// Default: nothing.
	Observer Observer

	// Files is where uploaded files' bytes live: a gocloud.dev/blob
	// bucket the host opens with the driver it imports (fileblob for
	// "file:///var/lib/cms/files", s3blob, gcsblob, azureblob; memblob in
	// tests). Several instances share one bucket as they share one
	// database; services on different databases must not share one (give
	// each its own, or its own blob.PrefixedBucket), since Purge removes
	// the bytes its database has no row for. The Service does not close
	// it. Default: none, and uploads are refused.
	Files *blob.Bucket
	// FileDecodes bounds the uploads judged and the thumbnails made at
	// once (each may decode a large image). Default GOMAXPROCS.
	FileDecodes int
	// UnusedFileAge, when set, makes Purge delete the files that no
	// record uses (file fields and <img> in HTML fields) and that were
	// uploaded longer ago than it. Default: unused files are kept.
	UnusedFileAge time.Duration
	// FileOrphanAge is how old bytes without a file row must be before
	// Purge removes them (by the blob store's clock): younger ones may
	// belong to an upload whose row is about to commit. Default
	// DefaultFileOrphanAge (1 hour).
	FileOrphanAge time.Duration

	// HistoryKeep is how long change records are kept: the revisions of
	// records (each record keeps its newest whatever its age), and how
	// far back the changes feed reaches. Default DefaultHistoryKeep (90
	// days); KeepAllHistory keeps everything.
	HistoryKeep time.Duration
	// WebhookSender sends webhooks' messages (package webhook's Sender).
	// Default: none, and Run delivers nothing (deliveries wait in the
	// store for an instance that has one).
	WebhookSender WebhookSender
	// WebhookAllowPrivate lets webhooks target loopback and private
	// networks (tests, a receiver beside the server). The Sender checks
	// the address it connects to as well; give it the same setting.
	// Default false.
	WebhookAllowPrivate bool
	// WebhookWorkers is how many deliveries Run sends at once in this
	// process. Default DefaultWebhookWorkers (4).
	WebhookWorkers int
	// WebhookRetryFor is how long a delivery is retried (with exponential
	// backoff), from its first attempt, before it fails. Default
	// DefaultWebhookRetryFor (24 h).
	WebhookRetryFor time.Duration
	// BenchmarkWithoutChanges writes no change records: for benchmarks
	// that measure what the records' changes cost, never for a service
	// in use (history, the changes feed, webhooks and subscriptions miss
	// what is written with it).
	BenchmarkWithoutChanges bool

	// UserRecheck is how long a user's disabled state is trusted before
	// it is read again; a disabled user's access tokens stop working after
	// at most this long. Default DefaultUserRecheck (2 s).
	UserRecheck time.Duration

	// SubscriptionLease is how long an instance holds a subscription
	// (Subscribe) without renewing it: the holder renews it every third
	// of it, and when the holder dies another instance takes over after
	// at most about this long. Default DefaultSubscriptionLease (30 s).
	SubscriptionLease time.Duration
}

// DefaultSubscriptionLease is Options.SubscriptionLease's default.
const DefaultSubscriptionLease = 30 * time.Second

// The defaults of Options, applied where a field is 0.
const (
	DefaultRefreshIdle      = 7 * 24 * time.Hour
	DefaultRefreshLifetime  = 30 * 24 * time.Hour
	DefaultRefreshGrace     = 10 * time.Second
	DefaultLoginAttempts    = 5
	DefaultLoginUserCeiling = 100
	DefaultLoginWindow      = 15 * time.Minute
	DefaultMaxBatchRecords  = 10000
	DefaultBatchLease       = 60 * time.Second
	DefaultBatchMaxAttempts = 5
	DefaultBatchRaceRetries = 100
	DefaultBatchWorkers     = 1
	DefaultPurgeEvery       = time.Hour
	DefaultBatchPoll        = time.Second
	DefaultBatchRetention   = 7 * 24 * time.Hour
	DefaultBatchHandoff     = 64 << 20
	DefaultTxAttempts       = 5
	DefaultUserRecheck      = 2 * time.Second
	DefaultFileOrphanAge    = time.Hour
	DefaultHistoryKeep      = 90 * 24 * time.Hour
	DefaultWebhookWorkers   = 4
	DefaultWebhookRetryFor  = 24 * time.Hour
)

// The sentinels of Options: a field's "off".
const (
	// NoBatchWorkers, as Options.BatchWorkers, runs no batch worker in
	// this process: batches are stored, and another process applies them.
	NoBatchWorkers = -1
	// NoGrace, as Options.RefreshGrace, turns the refresh grace period off.
	NoGrace time.Duration = -1
	// NoBatchHandoff, as Options.BatchHandoff, keeps no submitted batch in
	// memory: workers always read the store.
	NoBatchHandoff = -1
	// KeepAllHistory, as Options.HistoryKeep, keeps every change record.
	KeepAllHistory time.Duration = -1
)

// withDefaults returns o with every default applied and the sentinels
// turned into what the service uses (NoGrace: a grace of 0), or an error
// naming the first field that breaks the rule of Options.
func (o Options) withDefaults() (Options, error) {
	if o.Logger == nil {
		o.Logger = slog.New(slog.DiscardHandler)
	}
	if o.Now == nil {
		o.Now = time.Now
	}
	if o.Rand == nil {
		o.Rand = rand.Reader
	}
	if o.Location == nil {
		o.Location = time.FixedZone("CET", 60*60)
	}
	if o.HTML == nil {
		o.HTML = UGCSanitizer()
	}
	if o.Observer == nil {
		o.Observer = noObserver{}
	}
	const p = "cms: Options."
	err := errors.Join(
		option.Check(p+"HashConcurrency", o.HashConcurrency, "GOMAXPROCS"),
		option.Default(p+"RefreshIdle", &o.RefreshIdle, DefaultRefreshIdle),
		option.Default(p+"RefreshLifetime", &o.RefreshLifetime, DefaultRefreshLifetime),
		option.Default(p+"RefreshGrace", &o.RefreshGrace, DefaultRefreshGrace, option.Sentinel[time.Duration]{Name: "cms.NoGrace", Value: NoGrace}),
		option.Default(p+"LoginAttempts", &o.LoginAttempts, DefaultLoginAttempts),
		option.Default(p+"LoginUserCeiling", &o.LoginUserCeiling, DefaultLoginUserCeiling),
		option.Default(p+"LoginWindow", &o.LoginWindow, DefaultLoginWindow),
		option.Default(p+"MaxBatchRecords", &o.MaxBatchRecords, DefaultMaxBatchRecords),
		option.Default(p+"BatchLease", &o.BatchLease, DefaultBatchLease),
		option.Default(p+"BatchMaxAttempts", &o.BatchMaxAttempts, DefaultBatchMaxAttempts),
		option.Default(p+"BatchRaceRetries", &o.BatchRaceRetries, DefaultBatchRaceRetries),
		option.Default(p+"BatchWorkers", &o.BatchWorkers, DefaultBatchWorkers, option.Sentinel[int]{Name: "cms.NoBatchWorkers", Value: NoBatchWorkers}),
		option.Default(p+"PurgeEvery", &o.PurgeEvery, DefaultPurgeEvery),
		option.Default(p+"BatchPoll", &o.BatchPoll, DefaultBatchPoll),
		option.Default(p+"BatchRetention", &o.BatchRetention, DefaultBatchRetention),
		option.Default(p+"BatchHandoff", &o.BatchHandoff, DefaultBatchHandoff, option.Sentinel[int]{Name: "cms.NoBatchHandoff", Value: NoBatchHandoff}),
		option.Default(p+"TxAttempts", &o.TxAttempts, DefaultTxAttempts),
		option.Default(p+"UserRecheck", &o.UserRecheck, DefaultUserRecheck),
		option.Check(p+"FileDecodes", o.FileDecodes, "GOMAXPROCS"),
		option.Check(p+"UnusedFileAge", o.UnusedFileAge, "never"),
		option.Default(p+"FileOrphanAge", &o.FileOrphanAge, DefaultFileOrphanAge),
		option.Default(p+"SubscriptionLease", &o.SubscriptionLease, DefaultSubscriptionLease),
		option.Default(p+"HistoryKeep", &o.HistoryKeep, DefaultHistoryKeep, option.Sentinel[time.Duration]{Name: "cms.KeepAllHistory", Value: KeepAllHistory}),
		option.Default(p+"WebhookWorkers", &o.WebhookWorkers, DefaultWebhookWorkers),
		option.Default(p+"WebhookRetryFor", &o.WebhookRetryFor, DefaultWebhookRetryFor),
	)
	if err != nil {
		return Options{}, err
	}
	if o.HashConcurrency == 0 {
		o.HashConcurrency = runtime.GOMAXPROCS(0)
	}
	if o.FileDecodes == 0 {
		o.FileDecodes = runtime.GOMAXPROCS(0)
	}
	if o.RefreshGrace == NoGrace {
		o.RefreshGrace = 0
	}
	if o.BatchHandoff == NoBatchHandoff {
		o.BatchHandoff = 0
	}
	return o, nil
}
