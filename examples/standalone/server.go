package main

import (
	"cmp"
	"context"
	"crypto/rand"
	"encoding/hex"
	"errors"
	"fmt"
	"log/slog"
	"net"
	"net/http"
	"net/url"
	"slices"
	"strconv"
	"time"

	"github.com/bwcms/cms/adapters/postgres"
	"github.com/bwcms/cms/cms"
	"github.com/bwcms/cms/transport"
)

// The bootstrap account's id.
const defaultAccount = "default"

// jwtSecretSetting keeps the generated signing secret in the database, so
// every instance on it and every restart shares it.
const jwtSecretSetting = "standalone.jwt_secret"

// shutdownGrace is how long in-flight requests get to finish on SIGINT or
// SIGTERM.
const shutdownGrace = 15 * time.Second

// defaultAddr is where the server listens when --addr is not given.
const defaultAddr = "127.0.0.1:8080"

var serverSettings = []setting{
	{"addr", "CMS_ADDR", defaultAddr, "listen address"},
	dbSetting,
	{"langs", "CMS_LANGS", "", "languages of the bootstrap account when it is created, default first (en when not given)"},
	{"admin-user", "CMS_ADMIN_USER", "admin", "bootstrap admin username"},
	{"admin-password", "CMS_ADMIN_PASSWORD", "", "bootstrap admin password (default: generated and printed once)"},
	{"jwt-secret", "CMS_JWT_SECRET", "", "HS256 secret, 32 bytes or more (default: generated and kept in the database)"},
	{"trusted-proxies", "CMS_TRUSTED_PROXIES", "", "comma-separated addresses or CIDRs of reverse proxies whose X-Forwarded-For/Forwarded name the client"},
	batchWorkersSetting,
	batchLeaseSetting,
}

var batchLeaseSetting = setting{"batch-lease", "CMS_BATCH_LEASE", "60s",
	"how long a batch left processing by a stopped process waits before it is taken up again"}

// batchLease reads --batch-lease.
func batchLease(cfg map[string]string) (time.Duration, error) {
	d, err := time.ParseDuration(cfg["batch-lease"])
	if err != nil || d <= 0 {
		return 0, fmt.Errorf("--batch-lease %q: want a duration above 0 (60s)", cfg["batch-lease"])
	}
	return d, nil
}

var batchWorkersSetting = setting{"batch-workers", "CMS_BATCH_WORKERS", "1",
	"batch workers in this process (0: none; `standalone worker` processes apply them)"}

// batchWorkers reads --batch-workers.
func batchWorkers(cfg map[string]string) (int, error) {
	n, err := strconv.Atoi(cfg["batch-workers"])
	if err != nil || n < 0 {
		return 0, fmt.Errorf("--batch-workers %q: want a whole number, 0 or more", cfg["batch-workers"])
	}
	return n, nil
}

// runService runs the service's batch workers and purge (Service.Run)
// until ctx ends; the returned func stops them and waits. On shutdown a
// running batch is rolled back and taken up again at once by the next
// claim (here after a restart, or by another instance), so nothing is lost.
func runService(ctx context.Context, svc *cms.Service) (stop func()) {
	wctx, cancel := context.WithCancel(ctx)
	done := make(chan struct{})
	go func() {
		defer close(done)
		svc.Run(wctx)
	}()
	return func() {
		cancel()
		<-done
	}
}

// workersOption is Options.BatchWorkers for --batch-workers n.
func workersOption(n int) int {
	if n == 0 {
		return cms.NoBatchWorkers
	}
	return n
}

// allServerSettings are the settings of the server, in the order --help
// lists them.
func allServerSettings() []setting {
	return slices.Concat(serverSettings, fileSettings, historySettings, webSettings, tuningSettings, observeSettings, pgSettings)
}

// startup is every server setting, read and judged before a port opens.
type startup struct {
	workers int
	lease   time.Duration
	langs   cms.Languages
	pg      *postgres.Options
	tune    tuning
	web     transport.Options
	obs     *observing
	// files is the blob store's URL; unusedAge is 0 when unused files
	// are kept.
	files     string
	unusedAge time.Duration
	changes   changeOptions
}

// readStartup judges every setting of the server, so that a bad one stops
// the start before a port is opened, a file created or a password printed.
func readStartup(cfg map[string]string) (startup, error) {
	var s startup
	var err error
	if s.workers, err = batchWorkers(cfg); err != nil {
		return s, err
	}
	if s.lease, err = batchLease(cfg); err != nil {
		return s, err
	}
	if s.tune, err = parseTuning(cfg); err != nil {
		return s, err
	}
	if s.web, err = webOptions(cfg); err != nil {
		return s, err
	}
	if s.obs, err = newObserving(cfg); err != nil {
		return s, err
	}
	if s.langs, err = cms.ParseLanguages(cmp.Or(cfg["langs"], "en")); err != nil {
		return s, fmt.Errorf("--langs: %w", err)
	}
	if err := checkDB(cfg["db"]); err != nil {
		return s, err
	}
	if s.pg, err = pgOptions(cfg); err != nil {
		return s, err
	}
	if s.files, err = filesURL(cfg); err != nil {
		return s, err
	}
	if s.unusedAge, err = fileUnusedAge(cfg); err != nil {
		return s, err
	}
	if s.changes, err = readChangeOptions(cfg); err != nil {
		return s, err
	}
	for _, name := range []string{"addr", "metrics-addr"} {
		if _, _, err := net.SplitHostPort(cfg[name]); err != nil && cfg[name] != "" {
			return s, fmt.Errorf("--%s %q: want HOST:PORT (127.0.0.1:8080; port 0: any free one)", name, cfg[name])
		}
	}
	if !cms.ValidUsername(cfg["admin-user"]) {
		return s, fmt.Errorf("--admin-user %q: want 1 to %d characters of A-Z a-z 0-9 . _ @ -", cfg["admin-user"], cms.MaxUsernameLength)
	}
	if p := cfg["admin-password"]; p != "" && (len([]rune(p)) < cms.MinPasswordLength || len(p) > cms.MaxPasswordLength) {
		return s, fmt.Errorf("--admin-password: want %d characters to %d bytes", cms.MinPasswordLength, cms.MaxPasswordLength)
	}
	if secret := cfg["jwt-secret"]; secret != "" && len(secret) < transport.MinSecretLength {
		return s, fmt.Errorf("--jwt-secret: want at least %d bytes (it has %d)", transport.MinSecretLength, len(secret))
	}
	return s, nil
}

// serve runs the server until ctx ends.
func serve(ctx context.Context, args []string, e env) error {
	cfg, rest, err := settings(e, "standalone", args, allServerSettings())
	if errors.Is(err, errHelp) {
		printCommands(e.stdout)
	}
	if err != nil {
		return err
	}
	if len(rest) > 0 {
		return fmt.Errorf("unknown command %q (want worker, account, user, webhook, or flags only; --help lists them)", rest[0])
	}
	st, err := readStartup(cfg)
	if err != nil {
		return err
	}
	log := slog.New(slog.NewTextHandler(e.stderr, nil))
	// The ports first: when one is taken, nothing is created and no
	// password is printed (and lost).
	ln, err := net.Listen("tcp", cfg["addr"])
	if err != nil {
		return err
	}
	defer ln.Close()
	var metricsLn net.Listener
	if cfg["metrics-addr"] != "" {
		if metricsLn, err = net.Listen("tcp", cfg["metrics-addr"]); err != nil {
			return fmt.Errorf("--metrics-addr: %w", err)
		}
		defer metricsLn.Close()
	}
	obs := st.obs
	st.web.Observer, st.web.AccessLog = obs.metrics, obs.accessLog(log)
	h, svc, closeAll, err := setUp(ctx, cfg, st, e, log)
	if err != nil {
		return err
	}
	// Deferred before the service's run, so the store and the files close
	// after it has stopped.
	defer closeAll()
	if err := obs.metrics.WatchQueue(svc); err != nil {
		return err
	}
	if err := obs.metrics.WatchFiles(svc); err != nil {
		return err
	}
	if err := obs.metrics.WatchWrites(svc); err != nil {
		return err
	}
	defer runService(ctx, svc)()

	tune := st.tune
	ui, err := adminHandler(cfg, svc, h, log)
	if err != nil {
		return err
	}
	srv := &http.Server{Handler: obs.routes(h, ui, svc, metricsLn == nil), ReadHeaderTimeout: tune.readHeaderTimeout,
		IdleTimeout: tune.idleTimeout, ErrorLog: slog.NewLogLogger(log.Handler(), slog.LevelWarn)}
	if metricsLn != nil {
		msrv := &http.Server{Handler: obs.handler(), ReadHeaderTimeout: tune.readHeaderTimeout}
		go msrv.Serve(metricsLn)
		defer msrv.Close()
		log.Info("metrics", "addr", "http://"+metricsLn.Addr().String()+"/metrics")
	}
	log.Info("listening", "addr", "http://"+ln.Addr().String()+h.Path(), "db", redactDSN(cfg["db"]), "files", redactDSN(st.files))
	if ui != nil {
		log.Info("admin", "addr", "http://"+ln.Addr().String()+ui.Path())
	}
	if e.ready != nil {
		e.ready(ln.Addr().String())
	}
	ln = limitConns(ln, tune.maxConns)
	done := make(chan error, 1)
	go func() { done <- srv.Serve(ln) }()
	select {
	case err := <-done:
		return err
	case <-ctx.Done():
	}
	log.Info("shutting down")
	sctx, cancel := context.WithTimeout(context.Background(), shutdownGrace)
	defer cancel()
	if err := srv.Shutdown(sctx); err != nil {
		return fmt.Errorf("shutdown: %w", err)
	}
	if err := <-done; !errors.Is(err, http.ErrServerClosed) {
		return err
	}
	return nil
}

// setUp opens the files' blob store and the database, creates the
// bootstrap account and admin when missing, and builds the handler on
// st.web, the options webOptions read. closeAll closes the database and
// the blob store.
func setUp(ctx context.Context, cfg map[string]string, st startup, e env, log *slog.Logger) (h *transport.Handler, svc *cms.Service, closeAll func(), err error) {
	store, err := openStore(ctx, cfg["db"], st.pg, log)
	if err != nil {
		return nil, nil, nil, err
	}
	// Before the bootstrap: a blob store that does not answer stops the
	// start before an admin password is printed.
	files, err := openFiles(ctx, st.files)
	if err != nil {
		store.Close()
		return nil, nil, nil, err
	}
	closeAll = func() {
		store.Close()
		if err := files.Close(); err != nil {
			log.Warn("closing the files' store", "err", err)
		}
	}
	fail := func(err error) (*transport.Handler, *cms.Service, func(), error) {
		closeAll()
		return nil, nil, nil, err
	}
	opts := &cms.Options{Logger: log, RefreshGrace: st.tune.refreshGrace, BatchLease: st.lease,
		BatchWorkers: workersOption(st.workers), Observer: st.obs.metrics, Files: files, UnusedFileAge: st.unusedAge}
	st.changes.apply(opts)
	svc, err = cms.NewService(store, opts)
	if err != nil {
		return fail(err)
	}
	if err := bootstrap(ctx, svc, cfg, st.langs, e, log); err != nil {
		return fail(err)
	}
	secret := []byte(cfg["jwt-secret"])
	if len(secret) == 0 {
		if secret, err = storedSecret(ctx, store); err != nil {
			return fail(err)
		}
	}
	web := st.web
	web.Logger, web.JWTSecret, web.BodyReadTimeout, web.WriteTimeout = log, secret, st.tune.bodyTimeout, st.tune.writeTimeout
	if h, err = transport.NewHandler(svc, &web); err != nil {
		return fail(err)
	}
	return h, svc, closeAll, nil
}

// bootstrap creates the default account and the admin user when missing.
// Instances started together on a new database may all try: whichever
// creates each first wins, and the others take it as made.
func bootstrap(ctx context.Context, svc *cms.Service, cfg map[string]string, langs cms.Languages, e env, log *slog.Logger) error {
	if err := svc.CreateAccount(ctx, defaultAccount, langs); err != nil {
		if cms.ErrorCode(err) != cms.CodeConflict {
			return err
		}
		// Only a --langs that was given and differs is worth a word.
		if acc, err := svc.Account(ctx, defaultAccount); err == nil && cfg["langs"] != "" && acc.Langs.String() != langs.String() {
			log.Warn("the default account keeps its languages; --langs applies at creation only "+
				"(standalone account add-lang / default-lang change them)",
				"langs", acc.Langs.String(), "given", langs.String())
		}
	}
	name := cfg["admin-user"]
	_, err := svc.User(ctx, name)
	if err == nil && cfg["admin-password"] != "" {
		// The password applies at creation only; a login with it would
		// fail without a word otherwise.
		log.Warn("--admin-password (CMS_ADMIN_PASSWORD) is ignored: the admin user exists and keeps its password; "+
			"change it with: standalone user passwd "+name, "user", name)
	}
	if cms.ErrorCode(err) != cms.CodeNotFound {
		return err // nil: the admin exists
	}
	password := cfg["admin-password"]
	generated := password == ""
	if generated {
		password = randomText(12)
	}
	err = svc.CreateUser(ctx, cms.NewUser{Name: name, Account: defaultAccount, Password: password, Perms: []string{"*"}})
	if cms.ErrorCode(err) == cms.CodeConflict {
		// Another instance started at the same moment made it first; its
		// password is the one (printed there when generated).
		log.Info("admin user made by another instance", "user", name)
		return nil
	}
	if err != nil {
		return fmt.Errorf("creating the admin user: %w", err)
	}
	if generated {
		fmt.Fprintf(e.stdout, "admin user %q created with password %s (shown once)\n", name, password)
	} else {
		log.Info("admin user created", "user", name)
	}
	return nil
}

func storedSecret(ctx context.Context, store cms.Store) ([]byte, error) {
	secret, err := store.InitSetting(ctx, jwtSecretSetting, randomText(32))
	if err != nil {
		return nil, err
	}
	return []byte(secret), nil
}

// randomText is n random bytes in hex.
func randomText(n int) string {
	b := make([]byte, n)
	_, _ = rand.Read(b) // crypto/rand.Read never fails
	return hex.EncodeToString(b)
}

// redactDSN hides a password in a PostgreSQL URL for the log.
func redactDSN(db string) string {
	if u, err := url.Parse(db); err == nil && u.User != nil {
		if _, ok := u.User.Password(); ok {
			return u.Redacted()
		}
	}
	return db
}

// workerCommand applies batches (and purges) without serving HTTP until
// ctx ends: beside servers started with --batch-workers 0, on one database.
func workerCommand(ctx context.Context, args []string, e env) error {
	cfg, rest, err := settings(e, "standalone worker", args, slices.Concat([]setting{dbSetting, batchWorkersSetting, batchLeaseSetting}, historySettings, pgSettings))
	if err != nil {
		return err
	}
	if len(rest) > 0 {
		return fmt.Errorf("worker takes flags only, not %q", rest[0])
	}
	workers, err := batchWorkers(cfg)
	if err != nil {
		return err
	}
	if workers == 0 {
		return errors.New("--batch-workers 0: a worker needs at least one")
	}
	lease, err := batchLease(cfg)
	if err != nil {
		return err
	}
	pg, err := pgOptions(cfg)
	if err != nil {
		return err
	}
	// The worker purges history and delivers webhooks too: it must keep
	// what the servers keep.
	changes, err := readChangeOptions(cfg)
	if err != nil {
		return err
	}
	log := slog.New(slog.NewTextHandler(e.stderr, nil))
	store, err := openStore(ctx, cfg["db"], pg, log)
	if err != nil {
		return err
	}
	defer store.Close()
	opts := &cms.Options{Logger: log, BatchLease: lease, BatchWorkers: workers}
	changes.apply(opts)
	svc, err := cms.NewService(store, opts)
	if err != nil {
		return err
	}
	log.Info("applying batches", "workers", workers, "db", redactDSN(cfg["db"]))
	if e.ready != nil {
		e.ready("")
	}
	stop := runService(ctx, svc)
	<-ctx.Done()
	stop()
	return nil
}
