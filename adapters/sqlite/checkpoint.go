package sqlite

import (
	"context"
	"database/sql"
	"log/slog"
	"time"
)

// checkpoints copies the WAL into the database file every interval on a
// connection of its own, so no commit waits for it. The checkpoints are
// passive: they wait for no reader or writer and copy what they can; the
// WAL starts over once a checkpoint has copied all of it and no reader
// still needs it, as with SQLite's automatic checkpoints.
type checkpoints struct {
	db   *sql.DB
	stop context.CancelFunc
	done chan struct{}
}

func startCheckpoints(db *sql.DB, every time.Duration, log *slog.Logger) *checkpoints {
	ctx, stop := context.WithCancel(context.Background())
	c := &checkpoints{db: db, stop: stop, done: make(chan struct{})}
	go func() {
		defer close(c.done)
		t := time.NewTicker(every)
		defer t.Stop()
		failing := false
		for {
			select {
			case <-ctx.Done():
				return
			case <-t.C:
			}
			_, err := db.ExecContext(ctx, "PRAGMA wal_checkpoint(PASSIVE)")
			if err != nil && ctx.Err() == nil && !failing {
				log.Warn("sqlite: background checkpoint failed; the WAL grows until one succeeds", "err", err)
			}
			failing = err != nil
		}
	}()
	return c
}

// close stops the checkpoints; closing the last connection checkpoints
// what is left.
func (c *checkpoints) close() error {
	c.stop()
	<-c.done
	return c.db.Close()
}
