// Command standalone serves the whole /api/bw/v2 API on an embedded SQLite
// file (or a PostgreSQL database), and manages its accounts and users:
//
//	standalone [--addr A] [--db D] [--langs en,it] [--admin-user U] [--admin-password P] [--jwt-secret S] [--batch-workers N] [--batch-lease D]
//	           [--trusted-proxies P1,P2] [--base-path /P] [--cors-origins O1,O2] [--cookie-samesite strict|lax|none] [--cookie-domain D]
//	           [--files URL] [--file-unused-age D] [--history-keep D] [--webhook-allow-private]
//	           [--public-url U] [--refresh-grace D] [--read-header-timeout D] [--idle-timeout D] [--max-conns N] [--body-timeout D] [--write-timeout D]
//	standalone worker [--db D] [--batch-workers N] [--batch-lease D] [--history-keep D] [--webhook-allow-private]
//	standalone account add ID [--langs en,it]
//	standalone account list
//	standalone account add-lang ID CODE
//	standalone account default-lang ID CODE
//	standalone user add NAME [--account ID] [--perms P1,P2] [--password P]
//	standalone user passwd NAME [--password P]
//	standalone user perms NAME P1,P2
//	standalone user disable NAME | enable NAME
//	standalone user unlock NAME
//	standalone user delete NAME
//	standalone user list [--account ID]
//	standalone webhook add URL --user NAME [--account ID] [--events E1,E2] [--secret S] [--webhook-allow-private]
//	standalone webhook list [--account ID]
//	standalone webhook remove ID
//
// Every flag has an environment variable (CMS_ADDR, CMS_DB, CMS_LANGS,
// CMS_ADMIN_USER, CMS_ADMIN_PASSWORD, CMS_JWT_SECRET, CMS_BATCH_WORKERS, CMS_BATCH_LEASE,
// CMS_FILES, CMS_FILE_UNUSED_AGE, CMS_HISTORY_KEEP, CMS_WEBHOOK_ALLOW_PRIVATE, CMS_TRUSTED_PROXIES, CMS_BASE_PATH, CMS_CORS_ORIGINS, CMS_COOKIE_SAMESITE, CMS_COOKIE_DOMAIN,
// CMS_PUBLIC_URL, CMS_REFRESH_GRACE, CMS_READ_HEADER_TIMEOUT, CMS_IDLE_TIMEOUT,
// CMS_MAX_CONNS, CMS_BODY_TIMEOUT, CMS_WRITE_TIMEOUT;
// CMS_USER_PASSWORD for the user commands). This is the only program of the module that reads
// flags and the environment.
package main

import (
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"os/signal"
	"syscall"
)

func main() {
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	code := run(ctx, os.Args[1:], env{getenv: os.Getenv, stdin: os.Stdin, stdout: os.Stdout, stderr: os.Stderr})
	stop()
	os.Exit(code)
}

// env is what the program takes from its surroundings, so tests run it in
// process.
type env struct {
	getenv         func(string) string
	stdin          io.Reader
	stdout, stderr io.Writer
	// ready, when set, receives the server's address once it listens.
	ready func(addr string)
}

// run executes one command line and returns the exit code.
func run(ctx context.Context, args []string, e env) int {
	var err error
	switch {
	case len(args) > 0 && args[0] == "account":
		err = accountCommand(ctx, args[1:], e)
	case len(args) > 0 && args[0] == "user":
		err = userCommand(ctx, args[1:], e)
	case len(args) > 0 && args[0] == "webhook":
		err = webhookCommand(ctx, args[1:], e)
	case len(args) > 0 && args[0] == "worker":
		err = workerCommand(ctx, args[1:], e)
	default:
		err = serve(ctx, args, e)
	}
	if errors.Is(err, errHelp) {
		return 0
	}
	if err != nil {
		fmt.Fprintf(e.stderr, "standalone: %v\n", err)
		return 1
	}
	return 0
}
