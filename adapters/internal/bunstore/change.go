package bunstore

import (
	"context"
	"database/sql"
	"encoding/json"
	"fmt"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/bwcms/cms/cms"
	"github.com/uptrace/bun/dialect"
)

// changeKey is the leading expression of changes_rev (migration 25): a
// record's revisions, looked up by keyOf(account, kind, id).
const changeKey = "account || '/' || kind || '/' || record_id"

// changeChunk is the most refs one statement of AppendChanges writes on
// SQLite, which takes them as one JSON argument: a batch's 10,000 refs
// are ten statements.
const changeChunk = 1000

// postgres reports whether the store is PostgreSQL's: the changes feed
// takes its commit positions from a sequence there, guarded by the
// account's change tail (change_tail, change_fence), and from the row
// ids on SQLite, whose write transactions run one at a time.
func (s *Store) postgres() bool { return s.opts.Write.Dialect().Name() == dialect.PG }

// changeSeq is the column of a change's commit position.
func (s *Store) changeSeq() string {
	if s.postgres() {
		return "commit_seq"
	}
	return "id"
}

// AppendChanges implements cms.Store. The documents of the earlier
// revisions of the records set deletes are removed first, so that the
// statement that takes the account's tail (PostgreSQL) is the last and
// waits for no lock after it. PostgreSQL: one statement a set without
// deletes, two with. SQLite: a statement a run of refs of one kind and
// operation (a chunk of 1,000 of them).
func (s *Store) AppendChanges(ctx context.Context, set cms.ChangeSet) error {
	if len(set.Refs) == 0 {
		return nil
	}
	if !s.inTx {
		return &cms.Error{Code: cms.CodeInternal, Message: "AppendChanges outside a transaction"}
	}
	var deleted []string
	for _, r := range set.Refs {
		if r.Op == cms.ChangeDelete {
			deleted = append(deleted, keyOf(set.Account, string(r.Kind), r.ID))
		}
	}
	if len(deleted) > 0 {
		if err := s.dropRevisionDocuments(ctx, deleted); err != nil {
			return err
		}
	}
	if s.postgres() {
		kinds, ids, ops := make([]string, len(set.Refs)), make([]string, len(set.Refs)), make([]string, len(set.Refs))
		touched := make([]string, len(set.Refs)) // booleans, as every other list goes: text
		for i, r := range set.Refs {
			kinds[i], ids[i], ops[i], touched[i] = string(r.Kind), r.ID, string(r.Op), strconv.FormatBool(r.Touched)
		}
		return s.later(ctx, nil, s.appendChangesText("unnest(CAST(? AS text[]), CAST(? AS text[]), CAST(? AS text[]), CAST(CAST(? AS text[]) AS boolean[])) "+
			"WITH ORDINALITY AS r(kind, id, op, touched, n)"),
			set.Account, set.Account, set.Account, micros(set.Time), set.Author, kinds, ids, ops, touched, set.Account)
	}
	// SQLite, whose statements cost their CPU rather than a round trip:
	// a statement a change in a short run (one row, nothing staged), one
	// for each longer run of refs of one kind and operation.
	first := int64(0) // the first change id written, 0 for none
	for run := range refRuns(set.Refs) {
		for chunk := range slices.Chunk(run, changeChunk) {
			id, err := s.appendRun(ctx, set, chunk)
			if err != nil {
				return err
			}
			if first == 0 {
				first = id
			}
		}
	}
	return s.nameChangeFiles(ctx, first)
}

// shortRun is the longest run of refs SQLite writes a statement a change:
// a single-row INSERT ... VALUES stages nothing in a temporary table and
// needs no statement journal, where the statement of a run does both.
const shortRun = 8

// refRuns yields refs in runs of one kind, operation and touch, in
// order.
func refRuns(refs []cms.ChangeRef) func(yield func([]cms.ChangeRef) bool) {
	return func(yield func([]cms.ChangeRef) bool) {
		start := 0
		for i := 1; i <= len(refs); i++ {
			if i == len(refs) || refs[i].Kind != refs[start].Kind || refs[i].Op != refs[start].Op || refs[i].Touched != refs[start].Touched {
				if !yield(refs[start:i]) {
					return
				}
				start = i
			}
		}
	}
}

// appendRun writes the changes of refs, of one kind and operation, on
// SQLite: an upsert copies its record's row (a ref whose record has no
// row writes none), a delete dates itself set.Time. It returns the id
// of the first change it wrote, 0 for none.
func (s *Store) appendRun(ctx context.Context, set cms.ChangeSet, refs []cms.ChangeRef) (int64, error) {
	if len(refs) <= shortRun {
		first := int64(0)
		for _, r := range refs {
			id, err := s.appendOne(ctx, set, r)
			if err != nil {
				return 0, err
			}
			if first == 0 {
				first = id
			}
		}
		return first, nil
	}
	kind, op := string(refs[0].Kind), refs[0].Op
	ids := make([]string, len(refs))
	for i, r := range refs {
		ids[i] = r.ID
	}
	b, err := json.Marshal(ids)
	if err != nil {
		return 0, &cms.Error{Code: cms.CodeInternal, Message: "storage failure", Err: err}
	}
	list := string(b)
	var query string
	var args []any
	if op == cms.ChangeDelete {
		query = changeColumns + "SELECT ?, ?, json_each.value, " + fmt.Sprintf(s.lastRev(), "? || '/' || json_each.value") +
			", 'delete', ?, ?, NULL, NULL FROM json_each(?) ORDER BY json_each.key"
		args = []any{set.Account, kind, keyOf(set.Account, kind), micros(set.Time), set.Author, list}
	} else {
		// Its arguments as sub-selects: a WHERE term of a bound parameter
		// marks the statement to be prepared again when the parameter is
		// bound anew, which the driver's statement cache does at each use.
		query = changeColumns + "SELECT rec.account, rec.kind, rec.id, " +
			fmt.Sprintf(s.lastRev(), "rec.account || '/' || rec.kind || '/' || rec.id") + ", 'upsert', rec.updated_at, ?, rec.doc, " +
			s.runLists(refs[0], "rec.account || '/' || rec.id") +
			" FROM json_each((SELECT ?)) CROSS JOIN records AS rec WHERE rec.account = (SELECT ?) AND rec.kind = (SELECT ?) " +
			"AND rec.id = json_each.value ORDER BY json_each.key"
		args = []any{set.Author, list, set.Account, kind}
	}
	n, last, err := s.execInsert(ctx, query, args...)
	if err != nil || n == 0 {
		return 0, err
	}
	return last - n + 1, nil // ids are the highest plus one, row after row
}

// changeColumns begins the statements that write change records.
const changeColumns = "INSERT INTO changes (account, kind, record_id, rev, op, time, author, document, lists) "

// lastRev is the expression of a record's next revision, one above its
// last; %s is its changeKey value.
func (s *Store) lastRev() string {
	return "COALESCE((SELECT rev FROM " + s.indexed("changes", "changes_rev") + " WHERE " + changeKey + " = %s ORDER BY rev DESC LIMIT 1), 0) + 1"
}

// appendOne writes the change of one ref on SQLite in a single-row
// INSERT ... VALUES, whose values the record's row gives through
// sub-selects: SQLite stages the rows of an INSERT ... SELECT that reads
// its own table (the revision look-up) in a temporary table, which costs
// more than the rest of the statement. An upsert whose record has no
// row fails the change's NOT NULL time, before anything is written: it
// writes none. It returns the change's id, 0 for none.
func (s *Store) appendOne(ctx context.Context, set cms.ChangeSet, r cms.ChangeRef) (int64, error) {
	if r.Op == cms.ChangeDelete {
		_, id, err := s.execInsert(ctx, s.oneChange.delete, set.Account, string(r.Kind), r.ID, micros(set.Time), set.Author)
		return id, err
	}
	query := s.oneChange.upsert
	switch listsSide(r) {
	case &resourceSide:
		query = s.oneChange.resource
	case &mapSide:
		query = s.oneChange.mapLists
	}
	_, id, err := s.execInsert(ctx, query, set.Account, string(r.Kind), r.ID, set.Author)
	if err != nil && s.opts.NotNull != nil && s.opts.NotNull(err, "changes.time") {
		return 0, nil
	}
	return id, err
}

// oneChangeTexts are the statements of appendOne: numbered parameters,
// each bound once (the keys are made of them by SQLite): ?1 account, ?2
// kind, ?3 id, ?4 the author of an upsert or the time of a delete, ?5
// the author of a delete.
type oneChangeTexts struct{ delete, upsert, resource, mapLists string }

func (s *Store) oneChangeTexts() *oneChangeTexts {
	rev := fmt.Sprintf(s.lastRev(), "(SELECT ?1 || '/' || ?2 || '/' || ?3)")
	row := func(col string) string {
		return "(SELECT " + col + " FROM records WHERE account = (SELECT ?1) AND kind = (SELECT ?2) AND id = (SELECT ?3))"
	}
	upsert := func(lists string) string {
		return changeColumns + "VALUES (?1, ?2, ?3, " + rev + ", 'upsert', " + row("updated_at") + ", ?4, " + row("doc") + ", " + lists + ")"
	}
	listsKey := "(SELECT ?1 || '/' || ?3)"
	return &oneChangeTexts{
		delete:   changeColumns + "VALUES (?1, ?2, ?3, " + rev + ", 'delete', ?4, ?5, NULL, NULL)",
		upsert:   upsert("NULL"),
		resource: upsert(s.listsOf(resourceSide, listsKey)),
		mapLists: upsert(s.listsOf(mapSide, listsKey)),
	}
}

// runLists is the expression of the assignment lists a change of ref
// holds (listsSide), its owner's key given by key, in a run's statement
// on SQLite: both lists from one walk of the owner's assignments, each
// sorted by the aggregate: for a run of many records without
// assignments this costs less than listsOf's two walks (a batch of 1,000
// new Resources: 17,000 instructions a record fewer).
func (s *Store) runLists(ref cms.ChangeRef, key string) string {
	sd := listsSide(ref)
	if sd == nil {
		return "NULL"
	}
	roles := []cms.Role{cms.RolePrimary, cms.RoleSecondary}
	parts := make([]string, len(roles))
	for i, role := range roles {
		parts[i] = "'" + string(role) + "', json_group_array(" + sd.other + " ORDER BY " + sd.ownerPos + ") FILTER (WHERE role = '" + string(role) + "')"
	}
	return "(SELECT json_object(" + strings.Join(parts, ", ") + ") FROM " + s.assignmentsBy(sd.owner) + " WHERE " + sd.ownerKey + " = " + key + ")"
}

// listsSide is the side whose assignment lists a change of ref holds:
// a Resource's and an untouched Map's, none (nil) for a touched Map
// (cms.ChangeRef.Touched) or another kind.
func listsSide(ref cms.ChangeRef) *side {
	switch {
	case ref.Kind == cms.KindResource:
		return &resourceSide
	case ref.Kind == cms.KindMap && !ref.Touched:
		return &mapSide
	}
	return nil
}

// nameChangeFiles notes the files the documents of the changes written
// from id first on name (change_files, DECISIONS §16: a file named by a
// kept revision is used): the file references their records hold, as
// the transaction leaves them. SQLite; on PostgreSQL the statement that
// writes the changes notes them (appendChangesText).
func (s *Store) nameChangeFiles(ctx context.Context, first int64) error {
	if first == 0 {
		return nil
	}
	_, err := s.exec(ctx, "INSERT OR IGNORE INTO change_files (change_id, account, file_id) "+
		"SELECT c.id, c.account, r.to_id FROM changes AS c JOIN refs AS r ON r.account = c.account AND r.from_kind = c.kind "+
		"AND r.from_id = c.record_id AND r.to_kind = 'file' WHERE c.id >= (SELECT ?) AND c.document IS NOT NULL", first)
	return err
}

// appendChangesText is PostgreSQL's statement that writes the changes
// of the refs source (a row source r of kind, id, op, touched and n,
// their order):
// its first step is change_tail, whose position every row takes; each
// change copies its record's row (the document, the update time) and
// assignment lists as the transaction left them (none for a touched
// Map: cms.ChangeRef.Touched), and numbers itself one
// above the record's last revision; an upsert whose record has no row
// writes none, as on SQLite. Its arguments: the account (three
// times: change_tail, the row, the revision look-up), the time of
// deletes, the author, source's, the account. The files the documents
// name (change_files, DECISIONS §16) are noted by the same statement,
// from the references the records hold: a trigger's transition table
// and function cost a create about a tenth of its time.
func (s *Store) appendChangesText(source string) string {
	return "WITH pos AS MATERIALIZED (SELECT change_tail(?) AS seq), added AS (" +
		"INSERT INTO changes (commit_seq, account, kind, record_id, rev, op, time, author, document, lists) " +
		"SELECT pos.seq, ?, r.kind, r.id, COALESCE((SELECT rev FROM changes WHERE " + changeKey +
		" = ? || '/' || r.kind || '/' || r.id ORDER BY rev DESC LIMIT 1), 0) + " +
		// A record deleted and written again comes twice: its delete
		// first, numbered one after the other.
		"row_number() OVER (PARTITION BY r.kind, r.id ORDER BY r.n), r.op, CASE WHEN r.op = 'delete' THEN ? ELSE rec.updated_at END, ?, rec.doc, " +
		"CASE WHEN rec.id IS NULL THEN NULL WHEN r.kind = '" + string(cms.KindResource) + "' THEN " + s.listsOf(resourceSide, "rec.account || '/' || rec.id") +
		" WHEN r.kind = '" + string(cms.KindMap) + "' AND NOT r.touched THEN " + s.listsOf(mapSide, "rec.account || '/' || rec.id") + " END FROM " + source + " CROSS JOIN pos " +
		// A look-up of each record by its key, whatever the planner
		// thinks of the list's length (KeyLookups).
		"LEFT JOIN LATERAL (SELECT account, id, updated_at, doc FROM records WHERE account = ? AND kind = r.kind " +
		"AND id = r.id AND r.op = 'upsert' OFFSET 0) AS rec ON true WHERE r.op = 'delete' OR rec.id IS NOT NULL ORDER BY r.n " +
		"RETURNING id, account, kind, record_id, document IS NOT NULL AS documented) " +
		// Each change's references by the key of refs (the account in
		// refs' collation, else no index fits); the kind is tested on
		// each one found, as an expression no index holds (migration 38:
		// a planner reading refs_to for the file kind read them all).
		"INSERT INTO change_files (change_id, account, file_id) SELECT a.id, a.account, f.to_id FROM added AS a CROSS JOIN LATERAL (" +
		"SELECT to_id FROM refs WHERE account = (a.account COLLATE \"default\") AND from_kind = a.kind AND from_id = a.record_id " +
		"AND to_kind || '' = 'file' OFFSET 0) AS f WHERE a.documented ON CONFLICT DO NOTHING"
}

// listsOf is the JSON of the assignment lists of the record whose
// assignments key (account/id) is key, owner on side sd, by role, each
// in the owner's order.
func (s *Store) listsOf(sd side, key string) string {
	roles := []cms.Role{cms.RolePrimary, cms.RoleSecondary}
	parts := make([]string, len(roles))
	if !s.postgres() {
		// SQLite, a single change's: each list from its own walk of the
		// owner's index, in the owner's order, where an ORDER BY inside
		// the aggregate sorts in a temporary table (a single create onto
		// two Maps: 22,000 instructions more). A sub-select is not
		// flattened into an aggregate, so its rows reach
		// json_group_array in order. The object is written around the
		// arrays: json_object would take a sub-select's array for a
		// string.
		for i, role := range roles {
			parts[i] = "'\"" + string(role) + "\":' || (SELECT json_group_array(" + sd.other + ") FROM (SELECT " + sd.other + " FROM " +
				s.assignmentsBy(sd.owner) + " WHERE " + sd.ownerKey + " = " + key + " AND role = '" + string(role) +
				"' ORDER BY " + sd.ownerPos + "))"
		}
		return "('{' || " + strings.Join(parts, " || ',' || ") + " || '}')"
	}
	for i, role := range roles {
		parts[i] = "'" + string(role) + "', COALESCE(json_agg(" + sd.other + " ORDER BY " + sd.ownerPos + ") FILTER (WHERE role = '" + string(role) + "'), '[]')"
	}
	return "(SELECT json_build_object(" + strings.Join(parts, ", ") + ")::text FROM " + s.assignmentsBy(sd.owner) + " WHERE " + sd.ownerKey +
		" = " + key + ")"
}

// dropRevisionDocuments removes the documents and lists of the revisions
// of the records of keys (changeKey values): they were deleted.
func (s *Store) dropRevisionDocuments(ctx context.Context, keys []string) error {
	for chunk := range slices.Chunk(keys, changeChunk) {
		where, arg := changeKey+" = ?", any(chunk[0])
		if len(chunk) > 1 {
			where, arg = changeKey+" "+s.opts.InList, s.opts.List(chunk)
		}
		if _, err := s.exec(ctx, "UPDATE "+s.indexed("changes", "changes_rev")+" SET document = NULL, lists = NULL WHERE "+
			where+" AND document IS NOT NULL", arg); err != nil {
			return err
		}
	}
	return nil
}

// ChangeFence implements cms.Store. PostgreSQL: change_fence, a
// statement of its own on the pool. SQLite: the last row id in a
// committed snapshot, every account's as PostgreSQL's sequence is; the
// transaction writing, if any, numbers its rows above every committed
// one.
func (s *Store) ChangeFence(ctx context.Context, account string) (int64, error) {
	if s.inTx {
		return 0, &cms.Error{Code: cms.CodeInternal, Message: "ChangeFence inside a transaction"}
	}
	query, args := "SELECT COALESCE(MAX(id), 0) FROM changes", []any{}
	if s.postgres() {
		query, args = "SELECT change_fence(?)", []any{account}
	}
	var fence int64
	err := s.queryEach(ctx, s.read, query, args, func(rows *sql.Rows) error { return rows.Scan(&fence) })
	return fence, err
}

// changeColumns are what changeRows scans, without the documents.
func (s *Store) changeColumns() string {
	return "id, " + s.changeSeq() + ", kind, record_id, rev, op, time, author"
}

// changeRows runs query (of changeColumns, then document and lists when
// documents) and returns its changes, of account.
func (s *Store) changeRows(ctx context.Context, account string, documents bool, query string, args ...any) ([]cms.Change, error) {
	var changes []cms.Change
	err := s.queryEach(ctx, s.read, query, args, func(rows *sql.Rows) error {
		var c cms.Change
		var kind, op string
		var at int64
		dest := []any{&c.Cursor.ID, &c.Cursor.Seq, &kind, &c.ID, &c.Rev, &op, &at, &c.Author}
		var doc, lists sql.NullString
		if documents {
			dest = append(dest, &doc, &lists)
		}
		if err := rows.Scan(dest...); err != nil {
			return err
		}
		c.Account, c.Kind, c.Op, c.Time, c.Document = account, cms.Kind(kind), cms.ChangeOp(op), fromMicros(at), doc.String
		if lists.Valid {
			if err := json.Unmarshal([]byte(lists.String), &c.Lists); err != nil {
				return &cms.Error{Code: cms.CodeInternal, Message: "stored change unreadable", Err: err}
			}
		}
		changes = append(changes, c)
		return nil
	})
	return changes, err
}

// Changes implements cms.Store: a walk of changes_kind from q.After for
// each kind asked (every kind when none is), merged.
func (s *Store) Changes(ctx context.Context, q cms.ChangeQuery) ([]cms.Change, error) {
	if q.Limit < 1 || q.Limit > 1000 {
		return nil, &cms.Error{Code: cms.CodeInternal, Message: "Changes: a limit of 1 to 1000"}
	}
	var where string
	args := []any{q.Account}
	if s.postgres() {
		where = "(commit_seq, id) > (?, ?) AND commit_seq <= ?"
		args = append(args, q.After.Seq, q.After.ID, q.UpTo)
	} else {
		// A change's cursor is (id, id): the ones after After are those
		// above its Seq, and the one at it when After.ID is below.
		after := q.After.Seq
		if q.After.ID < q.After.Seq {
			after--
		}
		where = "id > ? AND id <= ?"
		args = append(args, after, q.UpTo)
	}
	order := s.changeSeq()
	if s.postgres() {
		order += ", id"
	}
	// A walk of changes_kind for each kind, merged: a rare kind costs
	// what it holds, never a walk past every other kind's changes, and
	// no index of the feed of every kind is written with each change.
	kinds := q.Kinds
	if len(kinds) == 0 {
		kinds = cms.Kinds()
	}
	arms := make([]string, len(kinds))
	var all []any
	for i, k := range kinds {
		arms[i] = "SELECT * FROM (SELECT " + s.changeColumns() + " FROM " + s.indexed("changes", "changes_kind") +
			" WHERE " + changeKindKey + " = ? AND " + where + " ORDER BY " + order + " LIMIT ?) AS k" + fmt.Sprint(i)
		all = append(all, q.Account+"/"+string(k))
		all = append(all, args[1:]...)
		all = append(all, q.Limit)
	}
	byPosition := "1" // id, which is the position on SQLite
	if s.postgres() {
		byPosition = "2, 1" // commit_seq, id
	}
	return s.changeRows(ctx, q.Account, false, "SELECT * FROM ("+strings.Join(arms, " UNION ALL ")+") AS kinds ORDER BY "+
		byPosition+" LIMIT ?", append(all, q.Limit)...)
}

// ChangeHorizon implements cms.Store.
func (s *Store) ChangeHorizon(ctx context.Context, account string) (cms.ChangeCursor, error) {
	var c cms.ChangeCursor
	err := s.queryEach(ctx, s.read, "SELECT seq, id FROM change_horizons WHERE account = ?", []any{account},
		func(rows *sql.Rows) error { return rows.Scan(&c.Seq, &c.ID) })
	return c, err
}

// RecordHistory implements cms.Store: a walk of changes_rev backwards.
func (s *Store) RecordHistory(ctx context.Context, q cms.HistoryQuery) ([]cms.Change, error) {
	if q.Limit < 1 {
		return nil, &cms.Error{Code: cms.CodeInternal, Message: "RecordHistory: a limit above 0"}
	}
	cols := s.changeColumns()
	if q.Documents {
		cols += ", document, lists"
	}
	where, args := changeKey+" = ?", []any{keyOf(q.Account, string(q.Kind), q.ID)}
	if q.Before > 0 {
		where += " AND rev < ?"
		args = append(args, q.Before)
	}
	return s.changeRows(ctx, q.Account, q.Documents, "SELECT "+cols+" FROM "+s.indexed("changes", "changes_rev")+
		" WHERE "+where+" ORDER BY rev DESC LIMIT ?", append(args, q.Limit)...)
}

// RecordRevision implements cms.Store.
func (s *Store) RecordRevision(ctx context.Context, account string, kind cms.Kind, id string, rev int64) (cms.Change, error) {
	changes, err := s.changeRows(ctx, account, true, "SELECT "+s.changeColumns()+", document, lists FROM "+
		s.indexed("changes", "changes_rev")+" WHERE "+changeKey+" = ? AND rev = ?", keyOf(account, string(kind), id), rev)
	if err != nil {
		return cms.Change{}, err
	}
	if len(changes) == 0 {
		return cms.Change{}, notFound("revision")
	}
	return changes[0], nil
}

// LastRevision implements cms.Store.
func (s *Store) LastRevision(ctx context.Context, account string, kind cms.Kind, id string) (cms.Change, error) {
	changes, err := s.RecordHistory(ctx, cms.HistoryQuery{Account: account, Kind: kind, ID: id, Limit: 1})
	if err != nil {
		return cms.Change{}, err
	}
	if len(changes) == 0 {
		return cms.Change{}, notFound("revision")
	}
	return changes[0], nil
}

// purgePage is how many changes a step of PurgeChanges' walk reads.
const purgePage = 500

// PurgeChanges implements cms.Store: a walk of the changes in id order
// (their order of time, closely enough: ids are taken as the changes
// are written, dated by the writer's clock) up to the first dated at or
// after before, each kept when it is its record's newest (a look-up of
// changes_rev); then the ones found removed, and every account's horizon
// raised to the newest cursor removed, in one transaction. The walk
// passes over the old changes it keeps on every call: a store whose
// records mostly have one old revision reads them each time. A change
// dated ahead of the others (a clock set forward) holds the ones after
// it until its own date passes.
func (s *Store) PurgeChanges(ctx context.Context, before time.Time, limit int) (int, error) {
	if limit <= 0 {
		return 0, &cms.Error{Code: cms.CodeInternal, Message: "PurgeChanges: a limit above 0"}
	}
	removed := 0
	err := s.tx(ctx, func(s *Store) error {
		removed = 0
		var ids []int64
		after, end := int64(0), false
		for !end && len(ids) < limit {
			read := 0
			err := s.queryEach(ctx, s.write, "SELECT c.id, c.time, EXISTS (SELECT 1 FROM "+s.indexed("changes AS n", "changes_rev")+" WHERE "+
				"n.account || '/' || n.kind || '/' || n.record_id = c.account || '/' || c.kind || '/' || c.record_id AND n.rev > c.rev) "+
				"FROM changes AS c WHERE c.id > ? ORDER BY c.id LIMIT ?", []any{after, purgePage},
				func(rows *sql.Rows) error {
					var id, at int64
					var newer bool
					if err := rows.Scan(&id, &at, &newer); err != nil {
						return err
					}
					read++
					switch {
					case end || len(ids) == limit:
					case at >= micros(before):
						end = true
					default:
						after = id
						if newer {
							ids = append(ids, id)
						}
					}
					return nil
				})
			if err != nil {
				return err
			}
			end = end || read < purgePage
		}
		if len(ids) == 0 {
			return nil
		}
		horizons := map[string]cms.ChangeCursor{}
		// The ids as every list goes: text, as numbers again on PostgreSQL.
		in, text := "id IN (SELECT value FROM json_each(?))", make([]string, len(ids))
		if s.postgres() {
			in = "id = ANY(CAST(CAST(? AS text[]) AS bigint[]))"
		}
		for i, id := range ids {
			text[i] = strconv.FormatInt(id, 10)
		}
		list := s.opts.List(text)
		err := s.queryEach(ctx, s.write, "DELETE FROM changes WHERE "+in+" RETURNING account, "+s.changeSeq()+", id", []any{list},
			func(rows *sql.Rows) error {
				var account string
				var c cms.ChangeCursor
				if err := rows.Scan(&account, &c.Seq, &c.ID); err != nil {
					return err
				}
				removed++
				if h, ok := horizons[account]; !ok || h.Less(c) {
					horizons[account] = c
				}
				return nil
			})
		if err != nil {
			return err
		}
		accounts := make([]string, 0, len(horizons))
		for a := range horizons {
			accounts = append(accounts, a)
		}
		slices.Sort(accounts) // a fixed order: two purges never wait on each other
		for _, a := range accounts {
			h := horizons[a]
			if _, err := s.exec(ctx, "INSERT INTO change_horizons (account, seq, id) VALUES (?, ?, ?) ON CONFLICT (account) "+
				"DO UPDATE SET seq = excluded.seq, id = excluded.id "+
				"WHERE (change_horizons.seq, change_horizons.id) < (excluded.seq, excluded.id)", a, h.Seq, h.ID); err != nil {
				return err
			}
		}
		return nil
	})
	return removed, err
}
