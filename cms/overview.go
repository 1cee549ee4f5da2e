package cms

import (
	"context"
	"fmt"
	"slices"
	"time"
)

// OverviewStore reads what the admin's overview shows (DECISIONS §19):
// counts, the newest changes and the unfinished batches of an account,
// each from an index, never by reading documents, so the page costs
// about the same at any number of records.
type OverviewStore interface {
	// CountRecords counts the records of kind in account, from the key's
	// index.
	CountRecords(ctx context.Context, account string, kind Kind) (int, error)
	// CountTerms counts, for each index term in r that records of kind
	// hold (RecordIndex.Terms, and the MissingTerms), the records holding
	// it, from the index of the terms; a term no record holds is absent.
	CountTerms(ctx context.Context, account string, kind Kind, r TermRange) (map[string]int, error)
	// RecentChanges returns account's newest changes of kinds (nil: of
	// every kind), newest first (the feed's order reversed), at most limit
	// (1..1000), without documents, walking the feed's index backwards.
	RecentChanges(ctx context.Context, account string, kinds []Kind, limit int) ([]Change, error)
	// RunningBatches returns account's waiting and processing batches,
	// the oldest requested first, at most limit (above 0), without
	// payloads, from an index of the unfinished batches (the finished
	// ones kept cost nothing).
	RunningBatches(ctx context.Context, account string, limit int) ([]*Batch, error)
}

// MissingTermsRange is the range of every m: term (MissingTerm): the
// records without a title in a language, of each of the account's.
func MissingTermsRange() TermRange { return prefixRange(termMissing) }

// KindCounts are the numbers of a kind's records in an account.
type KindCounts struct {
	Kind        Kind
	Published   int
	Unpublished int
	// Missing counts the records without a title, by language of the
	// account (every one of them, 0 included).
	Missing map[string]int
}

// CountKind counts the caller's records of kind: published, not
// published, and without a title in each of the account's languages,
// from the store's indexes (a few index ranges, no document read).
// Errors: CodeUnauthorized, CodeForbidden (no read permission).
func (s *Service) CountKind(ctx context.Context, kind Kind) (KindCounts, error) {
	pr, err := s.caller(ctx, kind, ActionRead)
	if err != nil {
		return KindCounts{}, err
	}
	total, err := s.store.CountRecords(ctx, pr.Account, kind)
	if err != nil {
		return KindCounts{}, err
	}
	unpublished, err := s.store.CountTerms(ctx, pr.Account, kind, UnpublishedTerm())
	if err != nil {
		return KindCounts{}, err
	}
	missing, err := s.store.CountTerms(ctx, pr.Account, kind, MissingTermsRange())
	if err != nil {
		return KindCounts{}, err
	}
	c := KindCounts{Kind: kind, Unpublished: unpublished[UnpublishedTerm().From], Missing: map[string]int{}}
	c.Published = total - c.Unpublished
	for _, lang := range pr.Langs.All {
		c.Missing[lang] = missing[MissingTerm(lang).From]
	}
	return c, nil
}

// RecentChange is one of the newest changes of the account.
type RecentChange struct {
	Kind Kind
	ID   string
	Rev  int64
	// Op is ChangeDelete or ChangeUpsert; Created tells an upsert that
	// made the record (its first revision, or the first after a delete).
	Op      ChangeOp
	Created bool
	Time    time.Time
	// User is who made it (ChangeSet.Author: a user, or a batch).
	User string
	// Exists tells whether the record exists now; Titles are its titles
	// now, by language (only the set ones), when it does.
	Exists bool
	Titles map[string]string
}

// The most changes RecentChanges answers.
const MaxRecentChanges = 100

// RecentChanges returns the newest changes of the caller's account,
// newest first, at most limit (1..MaxRecentChanges), of the kinds the
// caller may read, with the records' titles as they are now: the
// changes feed (DECISIONS §18) read backwards from its newest change,
// through its index. Errors: CodeUnauthorized, CodeForbidden (no kind
// readable), CodeMalformed (a limit out of range).
func (s *Service) RecentChanges(ctx context.Context, limit int) ([]RecentChange, error) {
	pr, ok := PrincipalFrom(ctx)
	if !ok {
		return nil, errUnauthorized()
	}
	if limit < 1 || limit > MaxRecentChanges {
		return nil, &Error{Code: CodeMalformed, Message: "Wrong request",
			Err: fmt.Errorf("recent changes: limit %d is not within 1..%d", limit, MaxRecentChanges)}
	}
	readable := readableKinds(pr)
	if len(readable) == 0 {
		return nil, errForbidden()
	}
	kinds := readable
	if len(kinds) == len(Kinds()) {
		kinds = nil // every kind: no filter
	}
	changes, err := s.store.RecentChanges(ctx, pr.Account, kinds, limit)
	if err != nil {
		return nil, err
	}
	out := make([]RecentChange, len(changes))
	ids := map[Kind][]string{}
	for i, c := range changes {
		out[i] = RecentChange{Kind: c.Kind, ID: c.ID, Rev: c.Rev, Op: c.Op, Time: c.Time, User: c.Author,
			Created: c.Op == ChangeUpsert && c.Rev == 1}
		if !slices.Contains(ids[c.Kind], c.ID) {
			ids[c.Kind] = append(ids[c.Kind], c.ID)
		}
	}
	if err := s.recentCreated(ctx, pr.Account, changes, out); err != nil {
		return nil, err
	}
	for kind, list := range ids {
		entries, err := s.store.GetRecords(ctx, pr.Account, kind, list)
		if err != nil {
			return nil, err
		}
		titles := make(map[string]map[string]string, len(entries))
		for _, e := range entries {
			t := map[string]string{}
			for lang, v := range *e.Record.Common().Title {
				if v != "" {
					t[lang] = v
				}
			}
			titles[e.Record.RecordID()] = t
		}
		for i := range out {
			if t, ok := titles[out[i].ID]; ok && out[i].Kind == kind {
				out[i].Exists, out[i].Titles = true, t
			}
		}
	}
	return out, nil
}

// recentCreated marks the upserts of changes that re-created their
// record: the revision before is a delete. It is looked up among the
// changes, else in the record's history (one key look-up each); a
// revision purged since counts as an update.
func (s *Service) recentCreated(ctx context.Context, account string, changes []Change, out []RecentChange) error {
	for i, c := range changes {
		if c.Op != ChangeUpsert || c.Rev == 1 {
			continue
		}
		// The page is newest first: the revision before comes later.
		found := false
		for _, older := range changes[i+1:] {
			if older.Kind == c.Kind && older.ID == c.ID {
				found, out[i].Created = true, older.Rev == c.Rev-1 && older.Op == ChangeDelete
				break
			}
		}
		if found {
			continue
		}
		before, err := s.store.RecordHistory(ctx, HistoryQuery{Account: account, Kind: c.Kind, ID: c.ID, Before: c.Rev, Limit: 1})
		if err != nil {
			return err
		}
		out[i].Created = len(before) == 1 && before[0].Rev == c.Rev-1 && before[0].Op == ChangeDelete
	}
	return nil
}

// MaxRunningBatches is the most unfinished batches RunningBatches
// answers.
const MaxRunningBatches = 100

// RunningBatches returns the waiting and processing batches of the
// caller's account, of the kinds the caller may read, the oldest
// requested first (at most MaxRunningBatches), without payloads.
// Errors: CodeUnauthorized, CodeForbidden (no kind readable).
func (s *Service) RunningBatches(ctx context.Context) ([]*Batch, error) {
	pr, ok := PrincipalFrom(ctx)
	if !ok {
		return nil, errUnauthorized()
	}
	readable := readableKinds(pr)
	if len(readable) == 0 {
		return nil, errForbidden()
	}
	batches, err := s.store.RunningBatches(ctx, pr.Account, MaxRunningBatches)
	if err != nil {
		return nil, err
	}
	batches = slices.DeleteFunc(batches, func(b *Batch) bool { return !slices.Contains(readable, b.Kind) })
	for _, b := range batches {
		// This process's own progress, which on SQLite no heartbeat can
		// store while the batch's transaction holds the write lock.
		s.runs.fill(b)
	}
	return batches, nil
}

// readableKinds are the kinds p may read, in Kinds' order.
func readableKinds(p Principal) []Kind {
	var kinds []Kind
	for _, k := range Kinds() {
		if p.Can(k, ActionRead) {
			kinds = append(kinds, k)
		}
	}
	return kinds
}
