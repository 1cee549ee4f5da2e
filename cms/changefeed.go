package cms

import (
	"context"
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
	// Limit is the most changes answered: 1..1000, default 100.
	Limit int
	// Kinds, when set, keeps the changes of these kinds (those the caller
	// may read among them).
	Kinds []Kind
}

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
	return ChangesPage{}, errNotYet
}

// AccountChanges reads account's changes feed as Changes does, for host
// code (webhooks, subscriptions): no permission is checked, kinds nil
// keeps every kind.
func (s *Service) AccountChanges(ctx context.Context, account string, p ChangesParams) (ChangesPage, error) {
	return ChangesPage{}, errNotYet
}
