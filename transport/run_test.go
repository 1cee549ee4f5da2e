package transport

import (
	"context"
	"log/slog"
	"strings"
	"testing"
	"time"

	"github.com/bwcms/cms/cms"
)

// TestRun: Service.Run starts the batch workers (and the purge) a host
// needs, logs what it runs, applies what is submitted, and returns once
// ctx ends.
func TestRun(t *testing.T) {
	forEachStoreOpts(t, func(o *envOptions, logs *lockedBuffer) {
		o.svc = func(so *cms.Options) {
			so.BatchPoll = time.Hour // only the hand-off wakes a worker
			so.Logger = slog.New(slog.NewTextHandler(logs, nil))
		}
	}, func(t *testing.T, e *env, logs *lockedBuffer) {
		ctx, cancel := context.WithCancel(t.Context())
		done := make(chan error, 1)
		go func() { done <- e.svc.Run(ctx) }()
		for !strings.Contains(logs.String(), "cms: running") {
			time.Sleep(time.Millisecond)
		}
		submitLandingsAndWait(t, e, "run", 3)
		cancel()
		select {
		case err := <-done:
			if err != nil {
				t.Errorf("Run: %v", err)
			}
		case <-time.After(10 * time.Second):
			t.Fatal("Run did not return after its context ended")
		}
		out := logs.String()
		if !strings.Contains(out, "cms: running") || !strings.Contains(out, "batch_workers=1") {
			t.Errorf("Run did not log what it runs: %s", out)
		}
		if strings.Contains(out, "no batch worker runs") {
			t.Errorf("warned of no workers while Run ran: %s", out)
		}
	})
}

// TestNoWorkerWarning: a batch stored with no worker running in the
// process warns once, unless the host said another process applies them.
func TestNoWorkerWarning(t *testing.T) {
	for _, c := range []struct {
		name    string
		workers int
		warn    bool
	}{{"default", 0, true}, {"none by choice", cms.NoBatchWorkers, false}} {
		t.Run(c.name, func(t *testing.T) {
			t.Parallel()
			logs := &lockedBuffer{}
			e := newEnv(t, envOptions{svc: func(so *cms.Options) {
				so.BatchWorkers = c.workers
				so.Logger = slog.New(slog.NewTextHandler(logs, nil))
			}})
			first := submit(t, e, "landing", `[{"id":"wait1"}]`)
			submit(t, e, "landing", `[{"id":"wait2"}]`)
			n := strings.Count(logs.String(), "no batch worker runs in this process")
			if want := map[bool]int{true: 1, false: 0}[c.warn]; n != want {
				t.Errorf("warnings: %d, want %d: %s", n, want, logs.String())
			}
			if c.warn && !strings.Contains(logs.String(), first) {
				t.Errorf("the warning does not name the batch %s: %s", first, logs.String())
			}
			if got := statusOf(t, e, "landing", first); !strings.Contains(got, `"status":"waiting"`) {
				t.Errorf("status without workers: %s", got)
			}
		})
	}
}

// forEachStoreOpts is forEachStore with options set per store and a log
// buffer of the env's own.
func forEachStoreOpts(t *testing.T, set func(*envOptions, *lockedBuffer), fn func(*testing.T, *env, *lockedBuffer)) {
	for _, st := range stores {
		t.Run(st.name, func(t *testing.T) {
			t.Parallel()
			logs := &lockedBuffer{}
			o := envOptions{store: st.open}
			set(&o, logs)
			fn(t, newEnv(t, o), logs)
		})
	}
}
