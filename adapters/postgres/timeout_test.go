package postgres

import (
	"context"
	"errors"
	"fmt"
	"testing"
	"time"

	"github.com/bwcms/cms/adapters/postgres/pgtest"
	"github.com/bwcms/cms/cms"
	"github.com/jackc/pgx/v5/pgconn"
)

// within runs do and returns its error and how long it took, or fails the
// test when it has not returned after limit (it hangs: the defect).
func within(t *testing.T, limit time.Duration, do func(ctx context.Context) error) (error, time.Duration) {
	t.Helper()
	ctx, cancel := context.WithCancel(t.Context())
	defer cancel()
	done := make(chan error, 1)
	start := time.Now()
	go func() { done <- do(ctx) }()
	select {
	case err := <-done:
		return err, time.Since(start)
	case <-time.After(limit):
		cancel()
		<-done
		t.Fatalf("no answer within %v", limit)
		return nil, 0
	}
}

func testEntry(id string) *cms.Entry {
	return &cms.Entry{Account: "a", Record: &cms.Resource{ID: id, Title: cms.Langs[string]{"en": id}},
		Updated: time.Date(2026, 11, 27, 5, 0, 0, 0, time.UTC)}
}

// TestFrozenHolder: a transaction whose process froze (here: its function
// waits) while holding the account's write lock, as a batch does, costs
// another instance's writers a bounded wait: they answer CodeUnavailable
// after Options.LockTimeout, every round, instead of waiting as long as
// the freeze lasts; the server ends the frozen session after
// Options.IdleInTxTimeout, which frees the lock, and the woken
// transaction's writes are refused, not stored.
func TestFrozenHolder(t *testing.T) {
	t.Parallel()
	dsn := pgtest.DSN(t)
	opts := &Options{MaxConns: 4, LockTimeout: 200 * time.Millisecond, IdleInTxTimeout: 1500 * time.Millisecond}
	frozen, err := Open(t.Context(), dsn, opts)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { frozen.Close() })
	other, err := Open(t.Context(), dsn, opts)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { other.Close() })

	held, wake := make(chan struct{}), make(chan struct{})
	woken := make(chan error, 1)
	go func() {
		woken <- frozen.WithTx(cms.WithBatchWork(t.Context()), func(tx cms.Store) error {
			if err := tx.LockAccountWrites(t.Context(), "a"); err != nil {
				return err
			}
			if err := tx.PutRecord(t.Context(), testEntry("frozen")); err != nil {
				return err
			}
			close(held)
			<-wake
			return tx.PutRecord(t.Context(), testEntry("frozen-after"))
		})
	}()
	<-held
	// Every writer that comes while the holder is frozen gets its answer
	// within a bounded wait.
	rounds, unavailable := 0, 0
	for rounds < 3 {
		rounds++
		err, took := within(t, 5*time.Second, func(ctx context.Context) error {
			return other.WithTx(ctx, func(tx cms.Store) error { return tx.LockAccountWrites(ctx, "a") })
		})
		if err == nil {
			break // the frozen session already ended
		}
		if cms.ErrorCode(err) != cms.CodeUnavailable {
			t.Fatalf("writer %d behind a frozen holder: %v, want CodeUnavailable", rounds, err)
		}
		unavailable++
		if took > 2*time.Second {
			t.Errorf("writer %d answered after %v, want about the lock timeout (200ms)", rounds, took)
		}
	}
	if unavailable == 0 {
		t.Errorf("no writer waited for the frozen holder")
	}
	// Past the idle-in-transaction timeout the server has ended the frozen
	// session: its lock is free.
	start := time.Now()
	for {
		err, _ := within(t, 5*time.Second, func(ctx context.Context) error {
			return other.WithTx(ctx, func(tx cms.Store) error {
				if err := tx.LockAccountWrites(ctx, "a"); err != nil {
					return err
				}
				return tx.PutRecord(ctx, testEntry("other"))
			})
		})
		if err == nil {
			break
		}
		if cms.ErrorCode(err) != cms.CodeUnavailable || time.Since(start) > 10*time.Second {
			t.Fatalf("writer after the idle-in-transaction timeout: %v", err)
		}
	}
	if took := time.Since(start); took > 5*time.Second {
		t.Errorf("the frozen session's lock was freed after %v, want about 1.5s", took)
	}
	close(wake)
	if err := <-woken; cms.ErrorCode(err) != cms.CodeUnavailable {
		t.Errorf("the woken transaction: %v, want CodeUnavailable (its session was ended)", err)
	}
	for _, id := range []string{"frozen", "frozen-after"} {
		if _, err := other.GetRecord(t.Context(), "a", cms.KindResource, id); cms.ErrorCode(err) != cms.CodeNotFound {
			t.Errorf("the frozen transaction's %s: %v, want it never stored", id, err)
		}
	}
	if _, err := other.GetRecord(t.Context(), "a", cms.KindResource, "other"); err != nil {
		t.Errorf("the other instance's write: %v", err)
	}
	// The woken instance works again.
	if err := frozen.PutRecord(t.Context(), testEntry("woken")); err != nil {
		t.Errorf("the woken store: %v", err)
	}
}

// TestBatchLimits: a batch's transaction (cms.WithBatchWork) waits for a
// lock held longer than a request's lock timeout, where a request's gives
// up with CodeUnavailable, in repeated rounds.
func TestBatchLimits(t *testing.T) {
	t.Parallel()
	dsn := pgtest.DSN(t)
	s, err := Open(t.Context(), dsn, &Options{MaxConns: 6, LockTimeout: 100 * time.Millisecond})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { s.Close() })
	ctx := t.Context()
	for round := range 5 {
		account := fmt.Sprintf("acc-%d", round)
		held, release := make(chan struct{}), make(chan struct{})
		holder := make(chan error, 1)
		go func() {
			holder <- s.WithTx(ctx, func(tx cms.Store) error {
				if err := tx.LockAccountWrites(ctx, account); err != nil {
					return err
				}
				close(held)
				<-release
				return nil
			})
		}()
		<-held
		batch := make(chan error, 1)
		go func() {
			batch <- s.WithTx(cms.WithBatchWork(ctx), func(tx cms.Store) error { return tx.LockAccountWrites(ctx, account) })
		}()
		err, _ := within(t, 5*time.Second, func(ctx context.Context) error {
			return s.WithTx(ctx, func(tx cms.Store) error { return tx.LockAccountWrites(ctx, account) })
		})
		if cms.ErrorCode(err) != cms.CodeUnavailable {
			t.Errorf("round %d: a request behind a held lock: %v, want CodeUnavailable", round, err)
		}
		time.Sleep(300 * time.Millisecond) // three request lock timeouts
		close(release)
		if err := <-holder; err != nil {
			t.Fatal(err)
		}
		if err := <-batch; err != nil {
			t.Errorf("round %d: a batch behind a lock held 3 request lock timeouts: %v, want it to wait", round, err)
		}
	}
}

// TestSilentPartition: with the network silent (the proxy forwards
// nothing and closes nothing), reads, writes and transactions on open
// connections and on new ones answer CodeUnavailable within
// StatementTimeout and NetworkTimeout (and the connection wait), instead
// of waiting for the network; once it heals, the same store works.
func TestSilentPartition(t *testing.T) {
	t.Parallel()
	proxy, dsn := pgtest.NewProxy(t, pgtest.DSN(t))
	s, err := Open(t.Context(), dsn, &Options{MaxConns: 4, ConnWait: time.Second,
		StatementTimeout: 500 * time.Millisecond, NetworkTimeout: 500 * time.Millisecond})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { s.Close() })
	if err := s.PutRecord(t.Context(), testEntry("before")); err != nil {
		t.Fatal(err)
	}
	calls := []struct {
		name string
		do   func(context.Context) error
	}{
		{"GetRecord", func(ctx context.Context) error {
			_, err := s.GetRecord(ctx, "a", cms.KindResource, "before")
			return err
		}},
		{"PutRecord", func(ctx context.Context) error { return s.PutRecord(ctx, testEntry("during")) }},
		{"WithTx", func(ctx context.Context) error {
			return s.WithTx(ctx, func(tx cms.Store) error { return tx.PutRecord(ctx, testEntry("during")) })
		}},
		{"batch WithTx", func(ctx context.Context) error {
			return s.WithTx(cms.WithBatchWork(ctx), func(tx cms.Store) error { return tx.PutRecord(ctx, testEntry("during")) })
		}},
		{"ClaimBatch", func(ctx context.Context) error {
			_, err := s.ClaimBatch(ctx, "w", time.Now(), time.Now().Add(time.Minute))
			return err
		}},
	}
	for round := range 2 {
		proxy.Partition()
		for _, c := range calls {
			err, took := within(t, 15*time.Second, c.do)
			if cms.ErrorCode(err) != cms.CodeUnavailable {
				t.Errorf("round %d: %s during the partition: %v, want CodeUnavailable", round, c.name, err)
			}
			if took > 5*time.Second {
				t.Errorf("round %d: %s answered after %v", round, c.name, took)
			}
		}
		proxy.Heal()
		deadline := time.Now().Add(10 * time.Second)
		for {
			err := s.PutRecord(t.Context(), testEntry(fmt.Sprintf("after-%d", round)))
			if err == nil {
				break
			}
			if time.Now().After(deadline) {
				t.Fatalf("round %d: PutRecord after the partition healed: %v", round, err)
			}
			time.Sleep(50 * time.Millisecond)
		}
	}
	if _, err := s.GetRecord(t.Context(), "a", cms.KindResource, "before"); err != nil {
		t.Errorf("GetRecord after the partition: %v", err)
	}
}

// TestTranslateTimeouts: the server's timeouts are outages (503 with
// Retry-After), never an internal error.
func TestTranslateTimeouts(t *testing.T) {
	for _, code := range []string{"55P03", "57014", "25P03"} {
		err := translate(fmt.Errorf("wrapped: %w", &pgconn.PgError{Code: code}))
		if cms.ErrorCode(err) != cms.CodeUnavailable || cms.IsRace(err) {
			t.Errorf("SQLSTATE %s: %v, want CodeUnavailable, not a race", code, err)
		}
		var pgErr *pgconn.PgError
		if !errors.As(err, &pgErr) {
			t.Errorf("SQLSTATE %s: the driver's error is not kept", code)
		}
	}
}

// TestSubMillisecondLimits: a limit under a millisecond is a limit of one
// millisecond, never "0", which PostgreSQL (and TCP_USER_TIMEOUT) read as
// no limit at all.
func TestSubMillisecondLimits(t *testing.T) {
	l := newLimits(Options{LockTimeout: 500 * time.Microsecond, StatementTimeout: 1500 * time.Microsecond,
		IdleInTxTimeout: time.Nanosecond, BatchLockTimeout: 10 * time.Microsecond, BatchStatementTimeout: time.Microsecond})
	for _, kv := range l.sessionSettings() {
		if kv[1] == "0" {
			t.Errorf("%s = %q for a limit set above 0: off", kv[0], kv[1])
		}
	}
	if want := "SELECT set_config('lock_timeout', '1', true), set_config('statement_timeout', '1', true)"; l.batchTxStart() != want {
		t.Errorf("batchTxStart = %q, want %q", l.batchTxStart(), want)
	}
	if got := millis(1500 * time.Microsecond); got != "2" {
		t.Errorf("millis(1.5ms) = %q, want 2 (rounded up)", got)
	}
	if got := millis(0); got != "0" {
		t.Errorf("millis(0) = %q, want 0 (off)", got)
	}
}
