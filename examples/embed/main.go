// Command embed is a small existing application (its own gorilla routes
// and middleware) that mounts the whole /api/bw/v2 API beside them. The
// lines that do it are marked; the rest is the host's own code.
//
//	go run ./examples/embed            # listens on 127.0.0.1:8081
//	curl http://127.0.0.1:8081/hello   # the host's own route
//	curl -X POST http://127.0.0.1:8081/api/bw/v2/auth -d u=editor -d p='editor password'
package main

import (
	"context"
	"crypto/rand"
	"fmt"
	"log/slog"
	"net/http"
	"os"
	"os/signal"
	"path/filepath"
	"time"

	"github.com/bwcms/cms/adapters/sqlite"
	"github.com/bwcms/cms/cms"
	"github.com/bwcms/cms/transport"
	"github.com/gorilla/mux"
)

func main() {
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt)
	defer stop()
	log := slog.New(slog.NewTextHandler(os.Stderr, nil))
	app, closeApp, err := newApp(ctx, filepath.Join(os.TempDir(), "embed-example.db"), log)
	if err != nil {
		log.Error("start", "err", err)
		os.Exit(1)
	}
	defer closeApp()
	srv := &http.Server{Addr: "127.0.0.1:8081", Handler: app, ReadHeaderTimeout: 10 * time.Second}
	go func() {
		<-ctx.Done()
		srv.Shutdown(context.Background())
	}()
	log.Info("listening", "addr", srv.Addr)
	if err := srv.ListenAndServe(); err != http.ErrServerClosed {
		log.Error("serve", "err", err)
	}
}

// newApp is the host application: its router, its middleware, its routes,
// and the CMS mounted beside them.
func newApp(ctx context.Context, dbPath string, log *slog.Logger) (http.Handler, func(), error) {
	r := mux.NewRouter()
	r.Use(requestID) // the host's middleware applies to the API too
	r.HandleFunc("/hello", func(w http.ResponseWriter, _ *http.Request) { fmt.Fprintln(w, "hello from the host") })

	// --- the CMS, in a few lines ---
	store, err := sqlite.Open(ctx, dbPath, nil)
	if err != nil {
		return nil, nil, err
	}
	svc, err := cms.NewService(store, &cms.Options{Logger: log})
	if err != nil {
		store.Close()
		return nil, nil, err
	}
	secret := make([]byte, 32)
	rand.Read(secret) // a real host keeps its secret; tokens then survive restarts
	api, err := transport.NewHandler(svc, &transport.Options{Logger: log, JWTSecret: secret})
	if err != nil {
		store.Close()
		return nil, nil, err
	}
	r.PathPrefix(api.Path()).Handler(api) // every path under /api/bw/v2/
	// Batch workers and the hourly purge, until closeApp stops them.
	runCtx, stopRun := context.WithCancel(ctx)
	running := make(chan error, 1)
	go func() { running <- svc.Run(runCtx) }()
	// --- end ---

	closeApp := func() {
		stopRun()
		<-running // a batch being applied is rolled back, taken up at the next start
		store.Close()
	}
	if err := seed(ctx, svc); err != nil {
		closeApp()
		return nil, nil, err
	}
	return r, closeApp, nil
}

// seed gives the example an account and a user the first time.
func seed(ctx context.Context, svc *cms.Service) error {
	langs, _ := cms.NewLanguages("en", "en", "it")
	if err := svc.CreateAccount(ctx, "shop", langs); err != nil && cms.ErrorCode(err) != cms.CodeConflict {
		return err
	}
	err := svc.CreateUser(ctx, cms.NewUser{Name: "editor", Account: "shop", Password: "editor password", Perms: []string{"*"}})
	if err != nil && cms.ErrorCode(err) != cms.CodeConflict {
		return err
	}
	return nil
}

// requestID is the host's own middleware.
func requestID(next http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("X-Request-Id", fmt.Sprintf("%d", time.Now().UnixNano()))
		next.ServeHTTP(w, r)
	})
}
