package cms

import (
	"context"
	"encoding/json"
	"fmt"
	"maps"
	"slices"
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
	// either document is no longer kept (the oldest kept revision, a
	// delete and the revisions before it).
	Changed []string
}

// HistoryParams select a page of a record's history, newest first.
type HistoryParams struct {
	// After, when above 0, keeps revisions below it (the Next of the
	// page before).
	After int64
	// Limit is the most revisions answered: 1..MaxHistoryLimit, default
	// DefaultHistoryLimit.
	Limit int
}

// The page sizes of a record's history.
const (
	DefaultHistoryLimit = 50
	MaxHistoryLimit     = 1000
)

// HistoryPage is a page of History; Next is the After of the next page
// (0: none).
type HistoryPage struct {
	Revisions []Revision
	Next      int64
}

// History lists the revisions of the caller's record of kind, newest
// first (DECISIONS §18): read permission, no published filter. A record
// deleted lists its tombstone first. CodeNotFound when the record has no
// change kept; CodeMalformed for a limit or after out of range.
func (s *Service) History(ctx context.Context, kind Kind, id string, p HistoryParams) (HistoryPage, error) {
	pr, err := s.caller(ctx, kind, ActionRead)
	if err != nil {
		return HistoryPage{}, err
	}
	limit := p.Limit
	switch {
	case limit == 0:
		limit = DefaultHistoryLimit
	case limit < 0 || limit > MaxHistoryLimit || p.After < 0:
		return HistoryPage{}, &Error{Code: CodeMalformed, Message: "Wrong request",
			Err: fmt.Errorf("history: limit %d or after %d out of range", limit, p.After)}
	}
	codec, err := s.codec(pr.Langs)
	if err != nil {
		return HistoryPage{}, err
	}
	// One more than the page: the last revision's changes are told
	// against the one before it.
	changes, err := s.store.RecordHistory(ctx, HistoryQuery{Account: pr.Account, Kind: kind, ID: id,
		Before: p.After, Limit: limit + 1, Documents: true})
	if err != nil {
		return HistoryPage{}, err
	}
	if len(changes) == 0 {
		if p.After > 0 {
			return HistoryPage{Revisions: []Revision{}}, nil
		}
		return HistoryPage{}, errNotFound(kind, id)
	}
	page := HistoryPage{Revisions: make([]Revision, 0, min(len(changes), limit))}
	for i, c := range changes[:min(len(changes), limit)] {
		r := revisionOf(c)
		if i+1 < len(changes) {
			if r.Changed, err = s.changedFields(codec, c, changes[i+1]); err != nil {
				return HistoryPage{}, err
			}
		}
		page.Revisions = append(page.Revisions, r)
	}
	if len(changes) > limit {
		page.Next = page.Revisions[len(page.Revisions)-1].Rev
	}
	return page, nil
}

func revisionOf(c Change) Revision {
	return Revision{Rev: c.Rev, Time: c.Time, User: c.Author, Op: c.Op}
}

// changedFields lists the wire fields whose values differ between a
// change and the one before it, in the order of the newer record's
// fields then the removed ones; nil when either has no document.
func (s *Service) changedFields(codec *Codec, newer, older Change) ([]string, error) {
	if newer.Document == "" || older.Document == "" {
		return nil, nil
	}
	a, err := s.wireFields(codec, newer)
	if err != nil {
		return nil, err
	}
	b, err := s.wireFields(codec, older)
	if err != nil {
		return nil, err
	}
	// A change without lists (a touched Map's) says nothing of them.
	if newer.Lists == nil || older.Lists == nil {
		for _, name := range AssignmentFields(newer.Kind) {
			delete(a, name)
			delete(b, name)
		}
	}
	changed := []string{}
	for _, name := range slices.Sorted(maps.Keys(a)) {
		if string(a[name]) != string(b[name]) {
			changed = append(changed, name)
		}
	}
	for _, name := range slices.Sorted(maps.Keys(b)) {
		if _, ok := a[name]; !ok {
			changed = append(changed, name)
		}
	}
	return changed, nil
}

// AssignmentFields are the wire names of kind's assignment lists (a
// Resource's Maps, a Map's Resources; none for the other kinds): what a
// restore leaves out unless asked (DECISIONS §18).
func AssignmentFields(kind Kind) []string {
	switch kind {
	case KindResource:
		return []string{"mapIds", "mapSecondaryIds"}
	case KindMap:
		return []string{"resourceIds", "secondaryResourceIds"}
	}
	return nil
}

// wireFields is a change's record on the wire, field by field.
func (s *Service) wireFields(codec *Codec, c Change) (map[string]json.RawMessage, error) {
	rec, err := s.changeRecord(c)
	if err != nil {
		return nil, err
	}
	var fields map[string]json.RawMessage
	if err := json.Unmarshal(codec.Marshal(rec), &fields); err != nil {
		return nil, fmt.Errorf("cms: history: %w", err)
	}
	return fields, nil
}

// changeRecord decodes a change's document with its assignment lists.
func (s *Service) changeRecord(c Change) (Record, error) {
	rec := NewRecord(c.Kind)
	if err := s.doc.DecodeDocument(c.Document, rec); err != nil {
		return nil, fmt.Errorf("cms: history: revision %d of %s %s: %w", c.Rev, c.Kind, c.ID, err)
	}
	if c.Lists != nil { // else not recorded (a touched Map): left out
		SetAssignmentLists(rec, c.Lists[RolePrimary], c.Lists[RoleSecondary])
	}
	return rec, nil
}

// RevisionRecord is a record as it was at one revision: Entry in the
// read shape (assignment lists included, except a touched Map's, which
// are not recorded: ChangeRef.Touched; Updated the revision's time),
// or, for a record deleted since, Tombstone set and Entry nil.
type RevisionRecord struct {
	Revision  Revision
	Entry     *Entry
	Tombstone *Revision
}

// Revision answers the caller's record of kind as it was at rev (read
// permission, no published filter). A revision whose document was
// removed by the record's deletion answers that deletion's tombstone.
// CodeNotFound when the record has no such revision kept.
func (s *Service) Revision(ctx context.Context, kind Kind, id string, rev int64) (RevisionRecord, error) {
	pr, err := s.caller(ctx, kind, ActionRead)
	if err != nil {
		return RevisionRecord{}, err
	}
	c, err := s.store.RecordRevision(ctx, pr.Account, kind, id, rev)
	if ErrorCode(err) == CodeNotFound {
		return RevisionRecord{}, errNotFound(kind, id)
	}
	if err != nil {
		return RevisionRecord{}, err
	}
	out := RevisionRecord{Revision: revisionOf(c)}
	if c.Op == ChangeDelete {
		out.Tombstone = &out.Revision
		return out, nil
	}
	if c.Document == "" {
		tomb, err := s.deletionAfter(ctx, pr.Account, kind, id, rev)
		if err != nil {
			return RevisionRecord{}, err
		}
		out.Tombstone = &tomb
		return out, nil
	}
	rec, err := s.changeRecord(c)
	if err != nil {
		return RevisionRecord{}, err
	}
	out.Entry = &Entry{Account: pr.Account, Record: rec, Updated: c.Time}
	return out, nil
}

// deletionAfter finds the delete that removed revision rev's document:
// the oldest delete above it.
func (s *Service) deletionAfter(ctx context.Context, account string, kind Kind, id string, rev int64) (Revision, error) {
	var found *Revision
	before := int64(0)
	for {
		page, err := s.store.RecordHistory(ctx, HistoryQuery{Account: account, Kind: kind, ID: id, Before: before, Limit: 100})
		if err != nil {
			return Revision{}, err
		}
		for _, c := range page {
			if c.Rev <= rev {
				return deletionFound(found, kind, id)
			}
			if c.Op == ChangeDelete {
				r := revisionOf(c)
				found = &r
			}
		}
		if len(page) < 100 {
			return deletionFound(found, kind, id)
		}
		before = page[len(page)-1].Rev
	}
}

func deletionFound(r *Revision, kind Kind, id string) (Revision, error) {
	if r == nil {
		return Revision{}, fmt.Errorf("cms: history: %s %s has a revision without its document and no delete after it", kind, id)
	}
	return *r, nil
}

// errNotFound is the 404 of a record that has no history (or not that
// revision) for the caller.
func errNotFound(kind Kind, id string) error {
	return &Error{Code: CodeNotFound, Message: "Not found", Err: fmt.Errorf("%s %s: no such revision kept", kind, id)}
}
