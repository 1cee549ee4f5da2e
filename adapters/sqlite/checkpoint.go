package sqlite

import (
	"context"
	"database/sql"
	"log/slog"
	"time"
)

// walRestartFrames is the WAL length past which a checkpoint also runs
// in the writer's turn (SQLite's automatic checkpoint uses the same
// 1,000 pages). A checkpoint on a connection of its own copies the WAL
// while writes go on, so under a steady stream of writes it never finds
// the WAL wholly copied when a write begins, and only then does SQLite
// start the WAL over: it grew by every write (700 MB in 9 s of creates,
// 2 GB at 100,000 Resources) and the writes slowed as it grew.
const walRestartFrames = 1000

// walSizeLimit is what a WAL file is cut back to when it starts over
// (PRAGMA journal_size_limit): a large batch's WAL does not keep its
// size on disk.
const walSizeLimit = 64 << 20

// checkpoints copies the WAL into the database file every interval on a
// connection of its own, so no commit waits for it. The checkpoints are
// passive: they wait for no reader or writer and copy what they can. When
// the WAL is still longer than walRestartFrames after one, a second
// checkpoint runs on the writer's connection between two write
// transactions: it copies the little written meanwhile with no writer
// adding to it, so the next write starts the WAL over (unless a reader
// still reads an older snapshot: then a later round does).
type checkpoints struct {
	db     *sql.DB
	writer *sql.DB
	stop   context.CancelFunc
	done   chan struct{}
}

func startCheckpoints(db, writer *sql.DB, every time.Duration, log *slog.Logger) *checkpoints {
	ctx, stop := context.WithCancel(context.Background())
	c := &checkpoints{db: db, writer: writer, stop: stop, done: make(chan struct{})}
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
			err := c.round(ctx)
			if err != nil && ctx.Err() == nil && !failing {
				log.Warn("sqlite: background checkpoint failed; the WAL grows until one succeeds", "err", err)
			}
			failing = err != nil
		}
	}()
	return c
}

// round makes one checkpoint, and one in the writer's turn if the WAL is
// still long.
func (c *checkpoints) round(ctx context.Context) error {
	frames, err := checkpoint(ctx, c.db)
	if err != nil || frames <= walRestartFrames {
		return err
	}
	_, err = checkpoint(ctx, c.writer)
	return err
}

// checkpoint makes a passive checkpoint on db and returns the WAL's
// length in frames.
func checkpoint(ctx context.Context, db *sql.DB) (frames int, err error) {
	var busy, copied int
	err = db.QueryRowContext(ctx, "PRAGMA wal_checkpoint(PASSIVE)").Scan(&busy, &frames, &copied)
	return frames, err
}

// close stops the checkpoints; closing the last connection checkpoints
// what is left.
func (c *checkpoints) close() error {
	c.stop()
	<-c.done
	return c.db.Close()
}
