package cms

import (
	"context"
	"time"
)

// Revision is one entry of a record's history.
type Revision struct {
	Rev  int64
	Time time.Time
	// User is who made it (ChangeSet.Author).
	User string
	Op   ChangeOp
	// Changed lists the wire fields (language variants included:
	// title_it) whose value differs from the revision before; nil when
	// that revision's document is no longer kept (the first kept one, a
	// delete).
	Changed []string
}

// HistoryParams select a page of a record's history, newest first.
type HistoryParams struct {
	// After, when above 0, keeps revisions below it (the last rev of the
	// previous page).
	After int64
	// Limit is the most revisions answered: 1..1000, default 50.
	Limit int
}

// HistoryPage is a page of History; Next is the After of the next page
// (0: none).
type HistoryPage struct {
	Revisions []Revision
	Next      int64
}

// History lists the revisions of the caller's record of kind, newest
// first (DECISIONS §18): read permission, no published filter. A record
// deleted lists its tombstone first. CodeNotFound when the record has no
// change kept.
func (s *Service) History(ctx context.Context, kind Kind, id string, p HistoryParams) (HistoryPage, error) {
	return HistoryPage{}, errNotYet
}

// RevisionRecord is a record as it was at one revision: Entry in the
// read shape (assignment lists included), or, for a record deleted
// since, Tombstone set and Entry nil.
type RevisionRecord struct {
	Revision  Revision
	Entry     *Entry
	Tombstone *Revision
}

// Revision answers the caller's record of kind as it was at rev.
// CodeNotFound when it has no such revision kept.
func (s *Service) Revision(ctx context.Context, kind Kind, id string, rev int64) (RevisionRecord, error) {
	return RevisionRecord{}, errNotYet
}
