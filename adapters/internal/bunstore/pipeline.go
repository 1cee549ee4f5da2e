package bunstore

import (
	"context"
	"database/sql"
	"time"
)

// Pipeline sends statements of a transaction in one round trip, in
// order, on c, the transaction's connection (PostgreSQL: a pgx batch).
// It answers the rows the last statement touched, or the index of the
// statement that failed and its error: the database ran none after it.
type Pipeline func(ctx context.Context, c *sql.Conn, queries []string, args [][]any) (rows int64, failed int, err error)

// pipeline holds the writes of a transaction whose answer nobody waits
// for (later) until the next statement that needs one, which takes them
// along in its round trip, or until the transaction commits. A write
// that fails fails the next statement and the commit: the transaction
// is lost with it (PostgreSQL runs nothing after an error in it).
type pipeline struct {
	conn    *sql.Conn
	send    Pipeline
	queries []string
	args    [][]any
	// onErr gives each held write's failure its meaning at the call
	// that held it (nil: as is).
	onErr []func(error) error
	// failed is the error of a write that failed: every statement after
	// it answers it.
	failed error
}

// later runs a write whose caller needs only to know that it failed:
// inside a pipelined transaction it goes with the next statement's
// round trip (or the commit's), else at once. onErr, when set, turns
// its error into the caller's.
func (s *Store) later(ctx context.Context, onErr func(error) error, query string, args ...any) error {
	p := s.pipe
	if p == nil {
		_, err := s.exec(ctx, query, args...)
		if err != nil && onErr != nil {
			err = onErr(err)
		}
		return err
	}
	if p.failed != nil {
		return p.failed
	}
	if s.opts.Trace != nil {
		s.opts.Trace(query, args)
	}
	p.queries = append(p.queries, s.text(query))
	p.args = append(p.args, args)
	p.onErr = append(p.onErr, onErr)
	return nil
}

// flush sends the held writes (with query and args last when query is
// not empty, whose touched rows it answers).
func (s *Store) flush(ctx context.Context, query string, args []any) (int64, error) {
	ctx = s.stmtContext(ctx)
	p := s.pipe
	if p.failed != nil {
		return 0, p.failed
	}
	queries, all, onErr := p.queries, p.args, p.onErr
	p.queries, p.args, p.onErr = nil, nil, nil
	if query != "" {
		if s.opts.Trace != nil {
			s.opts.Trace(query, args)
		}
		queries, all, onErr = append(queries, s.text(query)), append(all, args), append(onErr, nil)
	}
	if len(queries) == 0 {
		return 0, nil
	}
	// Each statement has its own limit on the server: the round trip
	// waits for as many.
	sctx, cancel := ctx, context.CancelFunc(func() {})
	if s.wait > 0 {
		sctx, cancel = context.WithTimeout(ctx, s.wait*time.Duration(len(queries)))
	}
	defer cancel()
	n, failed, err := p.send(sctx, p.conn, queries, all)
	if err == nil {
		return n, nil
	}
	err = s.failBound(ctx, sctx, err)
	if failed >= 0 && failed < len(onErr) && onErr[failed] != nil {
		err = onErr[failed](err)
	}
	p.failed = err
	return 0, err
}

// held reports whether writes wait in the transaction's pipeline.
func (s *Store) held() bool {
	return s.pipe != nil && (len(s.pipe.queries) > 0 || s.pipe.failed != nil)
}

// settle sends the held writes now and answers their error, for a
// caller that judges them itself (before releasing its savepoint).
func (s *Store) settle(ctx context.Context) error {
	if !s.held() {
		return nil
	}
	_, err := s.flush(ctx, "", nil)
	return err
}

// discard forgets the held writes and the failure of any, for a caller
// that rolls back to its savepoint: the rollback undoes them, sent or
// not, and the transaction goes on.
func (s *Store) discard() {
	if s.pipe != nil {
		s.pipe.queries, s.pipe.args, s.pipe.onErr, s.pipe.failed = nil, nil, nil, nil
	}
}
