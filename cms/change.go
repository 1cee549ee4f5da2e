package cms

import (
	"context"
	"math"
	"strconv"
	"strings"
	"time"
)

// ChangeOp is what a change did to its record.
type ChangeOp string

// The two operations of a change record: an upsert stored a new form of
// the record (a write, a clone, an assignment or a delete elsewhere that
// moved its timeLastUpdate or its lists, an alias made for an added
// language); a delete removed it.
const (
	ChangeUpsert ChangeOp = "upsert"
	ChangeDelete ChangeOp = "delete"
)

// ChangeRef names one record a transaction changed, for AppendChanges.
type ChangeRef struct {
	Kind Kind
	ID   string
	Op   ChangeOp
	// Touched says the transaction did not write the record itself: its
	// timeLastUpdate, or its assignment lists, moved with another
	// record's write (an assignment, a delete, a clone). A touched Map's
	// change records no lists: a Map can hold thousands of Resources,
	// and copying them at each Resource assigned would make every write
	// cost as much as the Map is big.
	Touched bool
}

// ChangeSet is what one write transaction changed in one account: one
// change record each, written by AppendChanges as the transaction's last
// step.
type ChangeSet struct {
	Account string
	// Author is the user who made the change, or "batch <id>" for a
	// batch's records; empty for the service's own work.
	Author string
	// Time dates the deletes; an upsert is dated by its record's
	// timeLastUpdate as stored.
	Time time.Time
	// Refs are the changed records, each once, in the order they were
	// first changed; a record deleted and written again (a batch can)
	// twice, its delete then its upsert.
	Refs []ChangeRef
}

// ChangeCursor is a position in an account's changes feed: changes are
// ordered by Seq, the commit position their transaction took at its
// tail, then by ID within one transaction. A cursor names the change it
// follows; ChangeCursor{Seq: s, ID: math.MaxInt64} follows every change
// of commit s (EndOfCommit).
type ChangeCursor struct {
	Seq, ID int64
}

// EndOfCommit is the cursor after every change of commit seq.
func EndOfCommit(seq int64) ChangeCursor { return ChangeCursor{Seq: seq, ID: math.MaxInt64} }

// Less reports whether c comes before d.
func (c ChangeCursor) Less(d ChangeCursor) bool {
	return c.Seq < d.Seq || c.Seq == d.Seq && c.ID < d.ID
}

// String is the cursor as clients see it: "<seq>.<id>", or "<seq>" for
// EndOfCommit(seq).
func (c ChangeCursor) String() string {
	if c.ID == math.MaxInt64 {
		return strconv.FormatInt(c.Seq, 10)
	}
	return strconv.FormatInt(c.Seq, 10) + "." + strconv.FormatInt(c.ID, 10)
}

// ParseChangeCursor reads a cursor of ChangeCursor.String. CodeMalformed
// when it is not one.
func ParseChangeCursor(s string) (ChangeCursor, error) {
	seq, id, dotted := strings.Cut(s, ".")
	c := ChangeCursor{ID: math.MaxInt64}
	var err error
	if c.Seq, err = strconv.ParseInt(seq, 10, 64); err != nil || c.Seq < 0 || seq != strconv.FormatInt(c.Seq, 10) {
		return ChangeCursor{}, &Error{Code: CodeMalformed, Message: "Malformed cursor"}
	}
	if dotted {
		if c.ID, err = strconv.ParseInt(id, 10, 64); err != nil || c.ID < 0 || c.ID == math.MaxInt64 || id != strconv.FormatInt(c.ID, 10) {
			return ChangeCursor{}, &Error{Code: CodeMalformed, Message: "Malformed cursor"}
		}
	}
	return c, nil
}

// Change is one change record (DECISIONS §18).
type Change struct {
	Cursor  ChangeCursor
	Account string
	Kind    Kind
	ID      string
	// Rev numbers the record's changes: 1, 2, ... continuing across a
	// delete and a re-create.
	Rev  int64
	Op   ChangeOp
	Time time.Time
	// Author as ChangeSet.Author.
	Author string
	// Document is the record as stored by the change (the storage form
	// of NewDocumentCodec, as Entry.Document) and Lists its assignment
	// lists by role (a Resource's Maps, a Map's Resources; none for the
	// other kinds, nor for a touched Map: ChangeRef.Touched). Both are
	// empty for a delete, for a revision of a record deleted since, and
	// where the store was asked for none.
	Document string
	Lists    map[Role][]string
}

// ChangeQuery selects the page of an account's changes Changes reads.
type ChangeQuery struct {
	Account string
	// After: changes after this cursor; UpTo: up to and including the
	// commit of this Seq (a fence, ChangeFence).
	After ChangeCursor
	UpTo  int64
	// Kinds, when set, keeps the changes of these kinds.
	Kinds []Kind
	// Limit is the most changes answered (1..1000).
	Limit int
}

// HistoryQuery selects the page of one record's changes RecordHistory
// reads, newest first.
type HistoryQuery struct {
	Account string
	Kind    Kind
	ID      string
	// Before, when above 0, keeps revisions below it.
	Before int64
	// Limit is the most changes answered.
	Limit int
	// Documents asks for each change's Document and Lists.
	Documents bool
}

// ChangeStore keeps the change records: the one source of history, the
// changes feed, webhooks and subscriptions (DECISIONS §18).
type ChangeStore interface {
	// AppendChanges, inside WithTx, as the transaction's last statement
	// before its commit, writes one change record per ref of set: for an
	// upsert the record's document and assignment lists as the
	// transaction stored them (copied by the database from the record's
	// row, not sent again) and its timeLastUpdate as the change's time;
	// for a delete set.Time and no document, and the documents of the
	// record's earlier revisions are removed (a tombstone stays). Each
	// change's Rev is one above the record's last. The changes take the
	// account's next commit position: on PostgreSQL the transaction holds
	// the account's change tail shared until it ends, then takes the next
	// value of the commit sequence, so that ChangeFence can tell when
	// every commit before a position has ended; nothing may wait for a
	// lock after it. On SQLite, where one transaction writes at a time,
	// the position is the change's own row number.
	AppendChanges(ctx context.Context, set ChangeSet) error
	// ChangeFence returns the commit position up to which every change
	// of account has committed or will never be (a transaction that took
	// a position at or below it has ended): on PostgreSQL it waits, in a
	// statement of its own, for the transactions holding the account's
	// tail. Changes read afterwards with UpTo of it miss none that could
	// still commit before them. Outside WithTx only.
	ChangeFence(ctx context.Context, account string) (int64, error)
	// Changes returns the changes q selects, in cursor order, without
	// documents.
	Changes(ctx context.Context, q ChangeQuery) ([]Change, error)
	// ChangeHorizon returns the newest cursor PurgeChanges removed from
	// account's changes (the zero cursor when none): a reader whose
	// cursor is below it has missed changes.
	ChangeHorizon(ctx context.Context, account string) (ChangeCursor, error)
	// RecordHistory returns the record's changes q selects, newest first.
	RecordHistory(ctx context.Context, q HistoryQuery) ([]Change, error)
	// RecordRevision returns one change of a record, with its document
	// and lists when it still has them. CodeNotFound when the record has
	// no such revision.
	RecordRevision(ctx context.Context, account string, kind Kind, id string, rev int64) (Change, error)
	// LastRevision returns the record's newest change (a tombstone when
	// it was deleted last), without document. CodeNotFound when it has
	// none.
	LastRevision(ctx context.Context, account string, kind Kind, id string) (Change, error)
	// PurgeChanges removes at most limit changes dated before before,
	// every account's, except each record's newest (which keeps the
	// numbering of its revisions), and raises the accounts' horizons
	// past what it removed. It returns how many it removed. It takes
	// them in the order they were written, up to the first dated at or
	// after before: a change dated ahead of the ones written after it (a
	// clock set forward) holds them until its date passes.
	PurgeChanges(ctx context.Context, before time.Time, limit int) (int, error)
}
