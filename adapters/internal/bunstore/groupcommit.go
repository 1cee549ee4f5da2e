package bunstore

import (
	"context"
	"fmt"
	"slices"
	"sync"
	"sync/atomic"

	"github.com/bwcms/cms/cms"
	"github.com/uptrace/bun"
)

// groupMax is the most transactions one group commit holds: enough to
// share a COMMIT among every client of a busy server, few enough that the
// first of them is not kept long.
const groupMax = 64

// committer queues the write transactions of a group commit
// (Options.GroupCommit). The goroutine of the transaction at the head of
// the queue leads: it takes what is queued (its own first) into one
// database transaction, answers each after the COMMIT, and hands the lead
// to the new head. A transaction that finds nobody leading leads at once,
// so a lone writer waits for nothing.
type committer struct {
	mu      sync.Mutex
	queue   []*member
	leading bool
	// commits and grouped count the groups committed and the
	// transactions they held (WriteStats).
	commits, grouped atomic.Uint64
}

// member is one transaction waiting in a committer.
type member struct {
	ctx context.Context
	fn  func(cms.Store) error
	// done receives the answer, after the COMMIT that holds the member's
	// work (or its failure); lead, that this member's goroutine runs the
	// next group. leads says lead was sent (under committer.mu).
	done  chan outcome
	lead  chan struct{}
	leads bool
}

// outcome is a member's answer: its error, or the value its function
// panicked with, raised again in its own goroutine.
type outcome struct {
	err   error
	panic any
}

// run queues fn and returns its answer, leading groups meanwhile when
// handed the lead. A caller that gives up while queued leaves the queue;
// once its group runs, its answer is waited for.
func (c *committer) run(ctx context.Context, s *Store, fn func(cms.Store) error) error {
	m := &member{ctx: ctx, fn: fn, done: make(chan outcome, 1), lead: make(chan struct{}, 1)}
	c.mu.Lock()
	c.queue = append(c.queue, m)
	if !c.leading {
		c.leading = true
		c.handTo(m)
	}
	c.mu.Unlock()
	gaveUp := ctx.Done()
	for {
		select {
		case o := <-m.done:
			if o.panic != nil {
				panic(o.panic)
			}
			return o.err
		case <-m.lead:
			c.lead(s, m)
		case <-gaveUp:
			if c.leave(m) {
				return s.fail(ctx.Err())
			}
			gaveUp = nil // in a group already: its answer comes
		}
	}
}

// handTo gives the lead to m, under mu.
func (c *committer) handTo(m *member) {
	m.leads = true
	m.lead <- struct{}{}
}

// leave takes m out of the queue, passing the lead on if m had it, and
// reports whether m was still queued.
func (c *committer) leave(m *member) bool {
	c.mu.Lock()
	defer c.mu.Unlock()
	for i, q := range c.queue {
		if q != m {
			continue
		}
		c.queue = append(c.queue[:i], c.queue[i+1:]...)
		if m.leads {
			c.passLead()
		}
		return true
	}
	return false
}

// passLead hands the lead to the head of the queue, or ends the lead when
// nothing waits (under mu).
func (c *committer) passLead() {
	if len(c.queue) == 0 {
		c.leading = false
		return
	}
	c.handTo(c.queue[0])
}

// lead runs one group headed by m, the caller: it takes the writer's
// connection first, with m's context, so that while something else holds
// it (a batch) the callers queued behind m can still give up and leave;
// then m and those queued behind it go into the group. The lead passes on
// however the group ends.
func (c *committer) lead(s *Store, m *member) {
	defer func() {
		c.mu.Lock()
		c.passLead()
		c.mu.Unlock()
	}()
	conn, err := s.opts.Write.Conn(m.ctx)
	if err != nil {
		c.mu.Lock()
		c.queue = slices.DeleteFunc(c.queue, func(q *member) bool { return q == m })
		c.mu.Unlock()
		m.done <- outcome{err: s.fail(err)}
		return
	}
	defer conn.Close()
	c.mu.Lock()
	n := min(len(c.queue), groupMax)
	group := append([]*member(nil), c.queue[:n]...)
	c.queue = append(c.queue[:0:0], c.queue[n:]...)
	c.mu.Unlock()
	s.commitGroup(&conn, group)
	c.commits.Add(1)
	c.grouped.Add(uint64(len(group)))
}

// commitGroup runs group's functions in one transaction on conn, each in
// a SAVEPOINT: a function that fails has its own part rolled back and
// answers its own error; the others are answered once the COMMIT
// returned. A member alone runs as a transaction of its own, begun with
// its context, as without group commit. When the transaction itself
// fails (the database rolled it back, a SAVEPOINT could not be undone,
// the COMMIT failed), what every member did or met in it is void: each
// is answered a race (cms.Race), which the service's transactions try
// again on their own. Their functions are not run again here: a function
// given to WithTx need not be one that can run twice.
func (s *Store) commitGroup(conn *bun.Conn, group []*member) {
	answered := make([]bool, len(group))
	answer := func(i int, o outcome) {
		answered[i] = true
		group[i].done <- o
	}
	// However this ends (a function that calls runtime.Goexit included),
	// no member is left waiting.
	defer func() {
		for i := range group {
			if !answered[i] {
				answer(i, outcome{err: &cms.Error{Code: cms.CodeInternal, Message: "grouped transaction ended without an answer"}})
			}
		}
	}()
	if len(group) == 1 {
		m := group[0]
		var o outcome
		o.err = s.runTx(m.ctx, m.ctx, false, conn, func(txs *Store) error {
			err, p := call(m.fn, txs)
			o.panic = p
			return err
		})
		answer(0, o)
		return
	}
	// A member's own failure waits for the transaction's end: if the
	// transaction fails, the failure may be owed to another member's work
	// that it lost.
	failed := make([]*outcome, len(group))
	// The group's statements and COMMIT run whoever of its callers gives
	// up; each caller's own statements are detached too
	// (Options.DetachTxStatements).
	ctx := context.WithoutCancel(group[0].ctx)
	err := s.runTx(ctx, ctx, false, conn, func(txs *Store) error {
		for i, m := range group {
			if err := m.ctx.Err(); err != nil {
				answer(i, outcome{err: s.fail(err)}) // its function never runs
				continue
			}
			if _, err := txs.exec(ctx, "SAVEPOINT grouped"); err != nil {
				return err
			}
			err, p := call(m.fn, txs)
			if err == nil && p == nil {
				if _, err := txs.exec(ctx, "RELEASE grouped"); err != nil {
					return err
				}
				continue
			}
			failed[i] = &outcome{err: s.fail(err), panic: p}
			if _, err := txs.exec(ctx, "ROLLBACK TO grouped"); err != nil {
				return err
			}
			if _, err := txs.exec(ctx, "RELEASE grouped"); err != nil {
				return err
			}
		}
		return nil
	})
	for i := range group {
		switch {
		case answered[i]:
		case failed[i] != nil && (err == nil || failed[i].panic != nil):
			answer(i, *failed[i])
		case err == nil:
			answer(i, outcome{})
		default:
			answer(i, outcome{err: cms.Race(fmt.Errorf("bunstore: the grouped transaction failed: %w", err))})
		}
	}
}

// call runs fn on txs and returns its error, or what it panicked with.
func call(fn func(cms.Store) error, txs *Store) (err error, panicked any) {
	defer func() {
		if p := recover(); p != nil {
			panicked = p
			err = fmt.Errorf("bunstore: a grouped transaction panicked: %v", p)
		}
	}()
	return fn(txs), nil
}

// QueuedWrites is how many write transactions wait for a group commit to
// take them (0 without group commit).
func (s *Store) QueuedWrites() int {
	if s.group == nil {
		return 0
	}
	s.group.mu.Lock()
	defer s.group.mu.Unlock()
	return len(s.group.queue)
}

// WriteStats implements cms.WriteStatser.
func (s *Store) WriteStats() (cms.WriteStats, bool) {
	if s.group == nil {
		return cms.WriteStats{}, false
	}
	return cms.WriteStats{
		Commits:      s.group.commits.Load(),
		Transactions: s.group.grouped.Load(),
		Queued:       s.QueuedWrites(),
	}, true
}
