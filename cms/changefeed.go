package cms

import (
	"context"
	"fmt"
	"slices"
	"sync"
	"time"
)

// FeedChange is one change of the changes feed and of a webhook's
// message: the change record's metadata, no document (the reader reads
// the record).
type FeedChange struct {
	// Seq is the change's cursor (ChangeCursor.String).
	Seq  string
	Kind Kind
	ID   string
	Op   ChangeOp
	Rev  int64
	Time time.Time
}

// ChangesParams select a page of the changes feed.
type ChangesParams struct {
	// After is the cursor to read after: "" starts at the oldest change
	// kept, "now" at the present.
	After string
	// Limit is the most changes answered: 1..MaxChangesLimit, default
	// DefaultChangesLimit.
	Limit int
	// Kinds, when set, keeps the changes of these kinds (those the caller
	// may read among them).
	Kinds []Kind
}

// The page sizes of the changes feed.
const (
	DefaultChangesLimit = 100
	MaxChangesLimit     = 1000
)

// ChangesPage is a page of the feed: Next is the cursor to read after
// (the last change's, or the present when the page is not full).
type ChangesPage struct {
	Changes []FeedChange
	Next    string
}

// Changes reads the changes feed of the caller's account (DECISIONS
// §18): the changes after p.After in commit order, of the kinds the
// caller may read. A reader following Next sees every change once and in
// order, deletions included, whatever writes at once. Errors:
// CodeUnauthorized, CodeForbidden (no kind readable), CodeMalformed (a
// bad cursor, limit or kind), CodeGone (a cursor older than what is
// kept: "Cursor expired").
func (s *Service) Changes(ctx context.Context, p ChangesParams) (ChangesPage, error) {
	pr, ok := PrincipalFrom(ctx)
	if !ok {
		return ChangesPage{}, errUnauthorized()
	}
	var readable []Kind
	for _, k := range Kinds() {
		if pr.Can(k, ActionRead) {
			readable = append(readable, k)
		}
	}
	if len(readable) == 0 {
		return ChangesPage{}, errForbidden()
	}
	kinds := readable
	if len(p.Kinds) > 0 {
		kinds = slices.DeleteFunc(slices.Clone(p.Kinds), func(k Kind) bool { return !slices.Contains(readable, k) })
		if len(kinds) == 0 {
			return ChangesPage{}, errForbidden()
		}
	}
	p.Kinds = kinds
	return s.AccountChanges(ctx, pr.Account, p)
}

// AccountChanges reads account's changes feed as Changes does, for host
// code (webhooks, subscriptions): no permission is checked, Kinds nil
// keeps every kind.
func (s *Service) AccountChanges(ctx context.Context, account string, p ChangesParams) (ChangesPage, error) {
	limit := p.Limit
	switch {
	case limit == 0:
		limit = DefaultChangesLimit
	case limit < 0 || limit > MaxChangesLimit:
		return ChangesPage{}, &Error{Code: CodeMalformed, Message: "Wrong request",
			Err: fmt.Errorf("changes: limit %d is not within 1..%d", limit, MaxChangesLimit)}
	}
	for _, k := range p.Kinds {
		if _, err := ParseKind(string(k)); err != nil {
			return ChangesPage{}, err
		}
	}
	kinds := p.Kinds
	if len(kinds) == len(Kinds()) {
		kinds = nil // every kind: no filter to apply
	}
	upTo, err := s.fences.fence(ctx, account, s.store)
	if err != nil {
		return ChangesPage{}, err
	}
	horizon, err := s.store.ChangeHorizon(ctx, account)
	if err != nil {
		return ChangesPage{}, err
	}
	var after ChangeCursor
	switch p.After {
	case "":
		after = horizon
	case "now":
		return ChangesPage{Changes: []FeedChange{}, Next: EndOfCommit(upTo).String()}, nil
	default:
		if after, err = ParseChangeCursor(p.After); err != nil {
			return ChangesPage{}, err
		}
		if after.Less(horizon) {
			return ChangesPage{}, errCursorExpired(after, horizon)
		}
		if EndOfCommit(upTo).Less(after) {
			// No cursor handed out is ahead of a fence taken later.
			return ChangesPage{}, &Error{Code: CodeMalformed, Message: "Wrong request",
				Err: fmt.Errorf("changes: cursor %s is ahead of every change (%d)", after, upTo)}
		}
	}
	changes, err := s.store.Changes(ctx, ChangeQuery{Account: account, After: after, UpTo: upTo, Kinds: kinds, Limit: limit})
	if err != nil {
		return ChangesPage{}, err
	}
	if p.After != "" {
		// A purge that committed between the horizon's read and the
		// page's may have removed changes right after the cursor.
		if horizon, err = s.store.ChangeHorizon(ctx, account); err != nil {
			return ChangesPage{}, err
		}
		if after.Less(horizon) {
			return ChangesPage{}, errCursorExpired(after, horizon)
		}
	}
	page := ChangesPage{Changes: make([]FeedChange, len(changes))}
	for i, c := range changes {
		page.Changes[i] = feedChange(c)
	}
	switch {
	case len(changes) == limit:
		page.Next = changes[len(changes)-1].Cursor.String()
	case after.Less(EndOfCommit(upTo)):
		// Nothing more up to the fence: the next page starts there, so
		// a reader filtering by kind does not walk the same changes again.
		page.Next = EndOfCommit(upTo).String()
	default:
		page.Next = after.String() // the fence itself
	}
	return page, nil
}

func errCursorExpired(after, horizon ChangeCursor) error {
	return &Error{Code: CodeGone, Message: "Cursor expired",
		Err: fmt.Errorf("changes: cursor %s is older than the history kept (%s)", after, horizon)}
}

func feedChange(c Change) FeedChange {
	return FeedChange{Seq: c.Cursor.String(), Kind: c.Kind, ID: c.ID, Op: c.Op, Rev: c.Rev, Time: c.Time}
}

// fenceMinGap is the least time between two fences of one account in
// this process: each queues the account's writers for a moment, so many
// readers share one.
const fenceMinGap = 10 * time.Millisecond

// fenceWait bounds a fence, which waits for the account's transactions
// that took a commit position before it.
const fenceWait = 30 * time.Second

// fences shares ChangeFence calls among the readers of an account: a
// reader joins the next fence to start (never one that started before
// it asked, whose position may be older than the reader's own last
// commit), so a reader always sees what committed before it asked.
type fences struct {
	mu   sync.Mutex
	accs map[string]*accountFence
}

type accountFence struct {
	pending *fenceCall // accepting readers, not started
	running *fenceCall // started, not finished
	started time.Time  // when the last fence started
}

type fenceCall struct {
	done chan struct{}
	seq  int64
	err  error
}

// fence returns a commit position of account up to which every change
// has committed, taken after the call began.
func (f *fences) fence(ctx context.Context, account string, st Store) (int64, error) {
	f.mu.Lock()
	if f.accs == nil {
		f.accs = map[string]*accountFence{}
	}
	a := f.accs[account]
	if a == nil {
		a = &accountFence{}
		f.accs[account] = a
	}
	call := a.pending
	if call == nil {
		call = &fenceCall{done: make(chan struct{})}
		a.pending = call
		go f.run(context.WithoutCancel(ctx), account, a, call, st)
	}
	f.mu.Unlock()
	select {
	case <-call.done:
		return call.seq, call.err
	case <-ctx.Done():
		return 0, ctx.Err()
	}
}

// run starts call once the fence before it has finished and the gap has
// passed, taking it out of pending so that later readers make the next.
func (f *fences) run(ctx context.Context, account string, a *accountFence, call *fenceCall, st Store) {
	for {
		f.mu.Lock()
		prev, wait := a.running, fenceMinGap-time.Since(a.started)
		if prev == nil && wait <= 0 {
			a.pending, a.running, a.started = nil, call, time.Now()
			f.mu.Unlock()
			break
		}
		f.mu.Unlock()
		if prev != nil {
			<-prev.done
		} else {
			time.Sleep(wait)
		}
	}
	ctx, cancel := context.WithTimeout(ctx, fenceWait)
	call.seq, call.err = st.ChangeFence(ctx, account)
	cancel()
	if call.err != nil {
		call.err = fmt.Errorf("changes: fence: %w", call.err)
	}
	f.mu.Lock()
	a.running = nil
	f.mu.Unlock()
	close(call.done)
}
