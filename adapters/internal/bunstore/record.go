package bunstore

import (
	"context"
	"database/sql"
	"iter"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/bwcms/cms/cms"
)

// listChunk is how many records ListRecords reads per query: streaming in
// chunks keeps memory bounded and holds no read transaction open while the
// caller writes a response. A document larger than inlineDoc is read
// alone when its turn comes, so a chunk holds at most listChunk documents
// of inlineDoc bytes.
const listChunk = 256

// recordRow is a row of a record query (selectRecords), scanned by
// position (scanRecords).
type recordRow struct {
	Account         string
	Kind            string
	ID              string
	Published       bool
	UpdatedAt       int64
	Lat             sql.NullFloat64
	Lon             sql.NullFloat64
	StatsAccess     int64
	StatsLastAccess sql.NullInt64
	Doc             string
	// Assigned is a Resource's or Map's assignments, [other id, role]
	// pairs in its order (selectRecords adds it).
	Assigned sql.NullString
}

const recordColumns = "account, kind, id, published, updated_at, lat, lon, stats_access, stats_last_access, doc"

// recordsColumns are recordColumns named by table, as a statement that
// reads records with another table names them.
const recordsColumns = "records.account, records.kind, records.id, records.published, records.updated_at, records.lat, " +
	"records.lon, records.stats_access, records.stats_last_access, records.doc"

// GetRecord implements cms.Store.
func (s *Store) GetRecord(ctx context.Context, account string, kind cms.Kind, id string) (*cms.Entry, error) {
	query := s.selectRecords(kind, "records") + " WHERE account = ? AND kind = ? AND id = ?"
	if s.inTx && s.opts.RowLock != "" {
		query += " " + s.opts.RowLock
	}
	if s.inTx && s.opts.KeyLock != "" {
		// A row lock cannot hold an id that has no row yet: the key lock
		// makes a second creator wait, and its SELECT, a later statement,
		// then sees the first one's row.
		if _, err := s.exec(ctx, s.opts.KeyLock, account+"/"+string(kind)+"/"+id); err != nil {
			return nil, err
		}
	}
	rows, err := s.scanRecords(s.pointContext(ctx), kind, query, account, string(kind), id)
	if err == nil && len(rows) == 0 && s.inTx && s.opts.KindLockShared != "" {
		// A batch creating records of the kind holds them with LockKind:
		// wait for it, then look again.
		if _, err := s.exec(ctx, s.opts.KindLockShared, account+"/"+string(kind)); err != nil {
			return nil, err
		}
		rows, err = s.scanRecords(ctx, kind, query, account, string(kind), id)
	}
	if err != nil {
		return nil, err
	}
	if len(rows) == 0 {
		return nil, notFound(kind.Title() + " " + id)
	}
	entries, err := s.entries(account, kind, rows, false)
	if err != nil {
		return nil, err
	}
	return entries[0], nil
}

// GetRecords implements cms.Store.
func (s *Store) GetRecords(ctx context.Context, account string, kind cms.Kind, ids []string) ([]*cms.Entry, error) {
	ids = cms.Dedupe(ids)
	if len(ids) == 0 {
		return []*cms.Entry{}, nil
	}
	query, args := s.RecordsQuery(account, kind, ids)
	if s.inTx && s.opts.RowLock != "" {
		query += " " + s.opts.RowLock
	}
	rows, err := s.scanRecords(s.pointContext(ctx), kind, query, args...)
	if err != nil {
		return nil, err
	}
	entries, err := s.entries(account, kind, rows, false)
	if err != nil {
		return nil, err
	}
	byID := make(map[string]*cms.Entry, len(entries))
	for _, e := range entries {
		byID[e.Record.RecordID()] = e
	}
	ordered := make([]*cms.Entry, 0, len(entries))
	for _, id := range ids {
		if e, ok := byID[id]; ok {
			ordered = append(ordered, e)
		}
	}
	return ordered, nil
}

// streamGroup is how many ids StreamRecords reads per query, and
// inlineDoc the largest document (in bytes) such a query carries: a
// larger one is read alone when its turn comes, so a read by ids holds at
// most streamGroup documents of inlineDoc bytes and one larger document,
// however many ids are asked and however large their records are.
const (
	streamGroup = 64
	inlineDoc   = 32 << 10
)

// StreamRecords implements cms.Store.
func (s *Store) StreamRecords(ctx context.Context, account string, kind cms.Kind, ids []string) iter.Seq2[*cms.Entry, error] {
	return s.streamRecords(ctx, account, kind, ids, false)
}

// StreamStored implements cms.StoredStreamer.
func (s *Store) StreamStored(ctx context.Context, account string, kind cms.Kind, ids []string) iter.Seq2[*cms.Entry, error] {
	return s.streamRecords(ctx, account, kind, ids, true)
}

// streamRecords is StreamRecords, the records undecoded when stored.
func (s *Store) streamRecords(ctx context.Context, account string, kind cms.Kind, ids []string, stored bool) iter.Seq2[*cms.Entry, error] {
	return func(yield func(*cms.Entry, error) bool) {
		ids := cms.Dedupe(ids)
		for group := range slices.Chunk(ids, streamGroup) {
			if err := ctx.Err(); err != nil { // a group's read does not watch it
				yield(nil, s.fail(err))
				return
			}
			query, args := s.selectByKeys(s.inlineSelection(kind), "records", "account = ? AND kind = ?",
				[]any{account, string(kind)}, "id", group)
			rows, err := s.scanRecords(s.pointContext(ctx), kind, query, args...)
			if err != nil {
				yield(nil, err)
				return
			}
			byID := make(map[string]int, len(rows))
			for i, row := range rows {
				byID[row.ID] = i
			}
			for _, id := range group {
				i, ok := byID[id]
				if !ok {
					continue
				}
				row := rows[i]
				rows[i] = recordRow{} // the document goes once yielded
				if row.Doc == "" {
					// Too large to come with the group: read alone.
					large, err := s.scanRecords(s.pointContext(ctx), kind, s.selectRecords(kind, "records")+
						" WHERE account = ? AND kind = ? AND id = ?", account, string(kind), id)
					if err != nil {
						yield(nil, err)
						return
					}
					if len(large) == 0 {
						continue // deleted meanwhile
					}
					row = large[0]
				}
				entries, err := s.entries(account, kind, []recordRow{row}, stored)
				if err != nil {
					yield(nil, err)
					return
				}
				if !yield(entries[0], nil) {
					return
				}
			}
		}
	}
}

// inlineSelection is recordSelection with the document left empty when it
// is larger than inlineDoc (a stored document is never empty).
func (s *Store) inlineSelection(kind cms.Kind) string {
	return strings.Replace(s.recordSelection(kind), "records.doc",
		"CASE WHEN octet_length(records.doc) <= "+strconv.Itoa(inlineDoc)+" THEN records.doc ELSE '' END", 1)
}

// RecordsQuery returns the query of GetRecords outside a transaction.
// Adapter tests explain it.
func (s *Store) RecordsQuery(account string, kind cms.Kind, ids []string) (string, []any) {
	return s.selectByKeys(s.recordSelection(kind), "records", "account = ? AND kind = ?", []any{account, string(kind)}, "id", ids)
}

// ListRecords implements cms.Store. With terms (a search) whose rarest
// range holds few records, those records are the candidates, read by key
// (listCandidates); otherwise the list's index drives, each record tested
// for the terms (ListQuery).
func (s *Store) ListRecords(ctx context.Context, p cms.ListParams) iter.Seq2[*cms.Entry, error] {
	return func(yield func(*cms.Entry, error) bool) {
		if len(p.Terms) > 0 {
			ids, few, err := s.termCandidates(ctx, p.Account, p.Kind, p.Terms)
			if err != nil {
				yield(nil, err)
				return
			}
			if few {
				s.listCandidates(ctx, p, ids, yield)
				return
			}
		}
		after, remaining := p.After, p.Limit
		for {
			n := listChunk
			if p.Limit > 0 && remaining < n {
				n = remaining
			}
			rows, err := s.listChunk(ctx, p, after, n)
			if err != nil {
				yield(nil, err)
				return
			}
			prev := after
			for i := range rows {
				row := rows[i]
				rows[i].Doc = "" // the document goes once yielded
				if row.Doc == "" {
					// Too large to come with the chunk: read alone, with
					// the list's filters, as the next record after the
					// previous one; another id there means it no longer
					// matches (or was deleted) since the chunk was read.
					query, args := s.listQuery(p, prev, 1, false)
					large, err := s.scanRecords(ctx, p.Kind, query, args...)
					if err != nil {
						yield(nil, err)
						return
					}
					if len(large) == 0 || large[0].ID != row.ID {
						prev = row.ID
						continue
					}
					row = large[0]
				}
				prev = row.ID
				entries, err := s.entries(p.Account, p.Kind, []recordRow{row}, p.Stored)
				if err != nil {
					yield(nil, err)
					return
				}
				if !yield(entries[0], nil) {
					return
				}
			}
			if len(rows) < n {
				return
			}
			after = rows[len(rows)-1].ID
			if p.Limit > 0 {
				if remaining -= len(rows); remaining <= 0 {
					return
				}
			}
		}
	}
}

func (s *Store) listChunk(ctx context.Context, p cms.ListParams, after string, n int) ([]recordRow, error) {
	query, args := s.listQuery(p, after, n, true)
	return s.scanRecords(ctx, p.Kind, query, args...)
}

// scanRecords runs a record query of kind (selectRecords) on the read side
// and scans its rows by position: bun's scan by struct tags costs more
// than the driver's work on a row.
func (s *Store) scanRecords(ctx context.Context, kind cms.Kind, query string, args ...any) ([]recordRow, error) {
	ctx = s.stmtContext(ctx)
	c, release, err := s.acquire(ctx, s.read)
	if err != nil {
		return nil, err
	}
	defer release()
	if s.opts.Trace != nil {
		s.opts.Trace(query, args)
	}
	sctx, cancel := s.bound(ctx)
	defer cancel()
	rows, err := c.QueryContext(sctx, s.text(query), args...)
	if err != nil {
		return nil, s.failBound(ctx, sctx, err)
	}
	defer rows.Close()
	dest := make([]any, 11)
	if !hasAssigned(kind) {
		dest = dest[:10]
	}
	var out []recordRow
	for rows.Next() {
		out = append(out, recordRow{})
		r := &out[len(out)-1]
		dest[0], dest[1], dest[2], dest[3], dest[4] = &r.Account, &r.Kind, &r.ID, &r.Published, &r.UpdatedAt
		dest[5], dest[6], dest[7], dest[8], dest[9] = &r.Lat, &r.Lon, &r.StatsAccess, &r.StatsLastAccess, &r.Doc
		if len(dest) > 10 {
			dest[10] = &r.Assigned
		}
		if err := rows.Scan(dest...); err != nil {
			return nil, s.failBound(ctx, sctx, err)
		}
	}
	if err := rows.Err(); err != nil {
		return nil, s.failBound(ctx, sctx, err)
	}
	return out, nil
}

// hasAssigned reports whether the records of kind have assignment lists,
// read in the same statement (selectRecords).
func hasAssigned(kind cms.Kind) bool {
	return kind == cms.KindResource || kind == cms.KindMap
}

// ListQuery returns the query of one chunk of ListRecords: at most n
// records of p with ids above after. Adapter tests explain it.
//
// The statement names one way in: a Map's list in Resource id order, else
// the location index (boxScan), else the update time's index, else the key in id
// order. Each index is reached by its own key expression (keys.go), so no
// other can be taken; the other options filter what it reads.
func (s *Store) ListQuery(p cms.ListParams, after string, n int) (string, []any) {
	return s.listQuery(p, after, n, true)
}

// listFilters appends to where (and args) the conditions of p that the
// index a list statement reads by does not answer: each tested on the
// record read.
func (s *Store) listFilters(p cms.ListParams, where []string, args []any) ([]string, []any) {
	switch p.Published {
	case cms.PublishedOnly:
		where = append(where, "published = ?")
		args = append(args, true)
	case cms.UnpublishedOnly:
		where = append(where, "published = ?")
		args = append(args, false)
	}
	if !p.UpdatedSince.IsZero() {
		where = append(where, "updated_at >= ?")
		args = append(args, micros(p.UpdatedSince))
	}
	if b := p.BBox; b != nil {
		where = append(where, "lat >= ? AND lat <= ?")
		args = append(args, b.MinLat, b.MaxLat)
		if b.MinLon <= b.MaxLon {
			where = append(where, "lon >= ? AND lon <= ?")
		} else { // across the 180° meridian
			where = append(where, "(lon >= ? OR lon <= ?)")
		}
		args = append(args, b.MinLon, b.MaxLon)
	}
	return s.termFilters(p.Terms, where, args)
}

// listQuery is ListQuery; inline leaves out documents larger than
// inlineDoc (read alone afterwards), so a chunk's memory stays bounded
// whatever its records' sizes.
func (s *Store) listQuery(p cms.ListParams, after string, n int, inline bool) (string, []any) {
	if after == "" {
		after = p.After
	}
	from, order := "records", "id"
	var where []string
	var args []any
	switch {
	case p.MapID != "":
		// The Map's list drives: the records are looked up by key, one
		// entry at a time in the list's key order, until the page is full
		// (on SQLite CROSS JOIN fixes the order of the loops, on
		// PostgreSQL a LATERAL sub-select).
		from, where = s.mapListJoin()
		args, order = []any{string(p.Kind), p.Account, p.MapID}, "assignments.resource_id"
		if after != "" {
			where = append(where, "assignments.resource_id > ?")
			args = append(args, after)
		}
	case p.BBox != nil:
		from, where, args = s.boxScan(p.Account, string(p.Kind), p.BBox)
	case !p.UpdatedSince.IsZero():
		// Named on SQLite: analyzed, it walks the key in id order instead.
		from = s.indexed("records", "records_updated")
		where, args = []string{updatedKey + " = ?"}, []any{keyOf(p.Account, string(p.Kind))}
	default:
		where, args = []string{"account = ?", "kind = ?"}, []any{p.Account, string(p.Kind)}
	}
	if after != "" && p.MapID == "" {
		where = append(where, "id > ?")
		args = append(args, after)
	} else if p.MapID == "" && p.BBox == nil && p.UpdatedSince.IsZero() {
		where = append(where, firstID)
	}
	where, args = s.listFilters(p, where, args)
	args = append(args, n)
	selection := s.recordSelection(p.Kind)
	if inline {
		selection = s.inlineSelection(p.Kind)
	}
	return "SELECT " + selection + " FROM " + from + " WHERE " + strings.Join(where, " AND ") +
		" ORDER BY " + order + " LIMIT ?", args
}

// firstID is the condition of a walk of a kind's key in id order from
// its start: true of every id, but a range of the key's last column.
// Without it a PostgreSQL planner without statistics rates the kind's
// (account, kind) prefix as a few rows, and may read them all through a
// bitmap and sort them (57 ms for a page of 100,000 Resources) rather than
// walk the key for a page.
const firstID = "id >= ''"

// selectRecords is "SELECT ... FROM table" of records of kind.
func (s *Store) selectRecords(kind cms.Kind, table string) string {
	return "SELECT " + s.recordSelection(kind) + " FROM " + table
}

// recordSelection is what a statement reads of records of kind: the
// columns, and the assignment lists of Resources and Maps in the same
// statement.
func (s *Store) recordSelection(kind cms.Kind) string {
	sd := resourceSide
	switch kind {
	case cms.KindResource:
	case cms.KindMap:
		sd = mapSide
	default:
		return recordsColumns
	}
	return recordsColumns + ", (SELECT " + s.opts.PairsJSON(sd.other, "role", sd.ownerPos) +
		" FROM " + s.assignmentsBy(sd.owner) + " WHERE " + sd.ownerKey + " = records.account || '/' || records.id) AS assigned"
}

// entries decodes rows and fills the assignment lists of Resources and
// Maps; stored leaves the documents undecoded (cms.Entry.Stored).
func (s *Store) entries(account string, kind cms.Kind, rows []recordRow, stored bool) ([]*cms.Entry, error) {
	entries := make([]*cms.Entry, len(rows))
	for i, row := range rows {
		if stored {
			e, err := storedEntry(account, kind, row)
			if err != nil {
				return nil, err
			}
			entries[i] = e
			continue
		}
		rec := cms.NewRecord(kind)
		if err := s.docs.DecodeDocument(row.Doc, rec); err != nil {
			return nil, &cms.Error{Code: cms.CodeInternal, Message: "stored document unreadable", Err: err}
		}
		entries[i] = &cms.Entry{
			Account: account, Record: rec, Updated: fromMicros(row.UpdatedAt),
			StatsAccess: row.StatsAccess,
		}
		if row.StatsLastAccess.Valid {
			entries[i].StatsLastAccess = fromMicros(row.StatsLastAccess.Int64)
		}
		if hasAssigned(kind) {
			if err := setAssigned(rec, row.Assigned); err != nil {
				return nil, err
			}
		}
	}
	return entries, nil
}

// storedEntry is the entry of row with its document undecoded.
func storedEntry(account string, kind cms.Kind, row recordRow) (*cms.Entry, error) {
	e := &cms.Entry{Account: account, Updated: fromMicros(row.UpdatedAt), StatsAccess: row.StatsAccess,
		Stored: &cms.StoredRecord{Kind: kind, ID: row.ID, Published: row.Published, Document: row.Doc,
			Lat: nullFloat(row.Lat), Lon: nullFloat(row.Lon)}}
	if row.StatsLastAccess.Valid {
		e.StatsLastAccess = fromMicros(row.StatsLastAccess.Int64)
	}
	if hasAssigned(kind) {
		var err error
		if e.Stored.Primary, e.Stored.Secondary, err = assignedLists(row.Assigned); err != nil {
			return nil, err
		}
	}
	return e, nil
}

func nullFloat(f sql.NullFloat64) cms.Null[float64] {
	if !f.Valid {
		return cms.Nil[float64]()
	}
	return cms.NullOf(f.Float64)
}

// PutRecord implements cms.Store: PutRecords of one record.
func (s *Store) PutRecord(ctx context.Context, e *cms.Entry) error {
	return s.PutRecords(ctx, []*cms.Entry{e})
}

type aliasRow struct {
	Lang     string `bun:"lang"`
	Alias    string `bun:"alias"`
	RecordID string `bun:"record_id"`
}

type refRow struct {
	Account  string `bun:"account"`
	FromKind string `bun:"from_kind"`
	FromID   string `bun:"from_id"`
	Field    string `bun:"field"`
	ToKind   string `bun:"to_kind"`
	ToID     string `bun:"to_id"`
	Single   bool   `bun:"single"`
}

// DeleteRecord implements cms.Store.
func (s *Store) DeleteRecord(ctx context.Context, account string, kind cms.Kind, id string) error {
	return s.tx(ctx, func(s *Store) error {
		if err := s.deleteRecordTerms(ctx, account, kind, id); err != nil {
			return err
		}
		n, err := s.exec(ctx, "DELETE FROM records WHERE account = ? AND kind = ? AND id = ?", account, string(kind), id)
		if err != nil {
			return err
		}
		if n == 0 {
			return notFound(kind.Title() + " " + id)
		}
		if _, err := s.exec(ctx, "DELETE FROM "+s.indexed("aliases", "aliases_record")+" WHERE "+aliasRecordKey+" = ? AND record_id = ?",
			keyOf(account, string(kind)), id); err != nil {
			return err
		}
		if _, err := s.exec(ctx, "DELETE FROM refs WHERE account = ? AND from_kind = ? AND from_id = ?", account, string(kind), id); err != nil {
			return err
		}
		switch kind {
		case cms.KindResource:
			_, err = s.exec(ctx, "DELETE FROM "+s.assignmentsBy("resource_id")+" WHERE "+resourceKey+" = ?", keyOf(account, id))
		case cms.KindMap:
			_, err = s.exec(ctx, "DELETE FROM assignments WHERE account = ? AND map_id = ?", account, id)
		}
		return err
	})
}

// TouchRecord implements cms.Store.
func (s *Store) TouchRecord(ctx context.Context, account string, kind cms.Kind, id string, at time.Time) error {
	n, err := s.exec(ctx, "UPDATE records SET updated_at = ? WHERE account = ? AND kind = ? AND id = ?",
		micros(at), account, string(kind), id)
	if err == nil && n == 0 {
		err = notFound(kind.Title() + " " + id)
	}
	return err
}

// CountAccess implements cms.Store.
func (s *Store) CountAccess(ctx context.Context, account string, kind cms.Kind, id string, at time.Time) error {
	n, err := s.exec(ctx, "UPDATE records SET stats_access = stats_access + 1, stats_last_access = ? "+
		"WHERE account = ? AND kind = ? AND id = ?", micros(at), account, string(kind), id)
	if err == nil && n == 0 {
		err = notFound(kind.Title() + " " + id)
	}
	return err
}

// ExistingIDs implements cms.Store.
func (s *Store) ExistingIDs(ctx context.Context, account string, kind cms.Kind, ids []string) ([]string, error) {
	ids = cms.Dedupe(ids)
	found := make([]string, 0, len(ids))
	if len(ids) == 0 {
		return found, nil
	}
	query, args := s.selectByKeys("records.id", "records", "account = ? AND kind = ?", []any{account, string(kind)}, "id", ids)
	err := s.scan(ctx, s.read, &found, query, args...)
	if err != nil {
		return nil, s.fail(err)
	}
	return found, nil
}

// HoldReferenced implements cms.Store with Options.ReferLock.
func (s *Store) HoldReferenced(ctx context.Context, account string, kind cms.Kind, ids []string) ([]string, error) {
	return s.existingLocked(ctx, account, kind, ids, s.opts.ReferLock)
}

// LockForDelete implements cms.Store with Options.DeleteLock.
func (s *Store) LockForDelete(ctx context.Context, account string, kind cms.Kind, ids []string) ([]string, error) {
	return s.existingLocked(ctx, account, kind, ids, s.opts.DeleteLock)
}

// existingLocked is ExistingIDs with lock appended inside a transaction,
// the ids looked up (and so locked) in ascending order: two transactions
// locking overlapping sets take them in one order.
func (s *Store) existingLocked(ctx context.Context, account string, kind cms.Kind, ids []string, lock string) ([]string, error) {
	if !s.inTx || lock == "" {
		return s.ExistingIDs(ctx, account, kind, ids)
	}
	ids = slices.Sorted(slices.Values(cms.Dedupe(ids)))
	found := make([]string, 0, len(ids))
	if len(ids) == 0 {
		return found, nil
	}
	query, args := s.selectByKeys("records.id", "records", "account = ? AND kind = ?", []any{account, string(kind)}, "id", ids)
	if err := s.scan(ctx, s.read, &found, query+" "+lock, args...); err != nil {
		return nil, s.fail(err)
	}
	return found, nil
}

// AliasHolder implements cms.Store.
func (s *Store) AliasHolder(ctx context.Context, account string, kind cms.Kind, lang, alias string) (string, error) {
	var ids []string
	err := s.scan(ctx, s.read, &ids, "SELECT record_id FROM aliases WHERE account = ? AND kind = ? AND lang = ? AND alias = ?",
		account, string(kind), lang, alias)
	if err != nil {
		return "", s.fail(err)
	}
	if len(ids) == 0 {
		return "", notFound("urlAlias " + alias)
	}
	return ids[0], nil
}

// Referrers implements cms.Store.
func (s *Store) Referrers(ctx context.Context, account string, targets []string, id string) ([]cms.Reference, error) {
	if len(targets) == 0 {
		return []cms.Reference{}, nil
	}
	var rows []refRow
	err := s.scan(ctx, s.read, &rows, "SELECT account, from_kind, from_id, field, to_kind, to_id, single FROM "+s.indexed("refs", "refs_to")+" "+
		"WHERE "+refsToKey+" = ? AND to_kind "+s.opts.InList+" ORDER BY from_kind, from_id, field",
		keyOf(account, id), s.opts.List(targets))
	if err != nil {
		return nil, s.fail(err)
	}
	refs := make([]cms.Reference, len(rows))
	for i, r := range rows {
		refs[i] = cms.Reference{FromKind: cms.Kind(r.FromKind), FromID: r.FromID, Field: r.Field,
			ToKind: r.ToKind, ToID: r.ToID, Single: r.Single}
	}
	return refs, nil
}

func sortedKeys[V any](m map[string]V) []string {
	keys := make([]string, 0, len(m)) // sized once (slices.Sorted grows it)
	for k := range m {
		keys = append(keys, k)
	}
	slices.Sort(keys)
	return keys
}

// rowsOf is the VALUES list of n rows of cols placeholders: "(?, ?), (?, ?)".
func rowsOf(n, cols int) string {
	row := "(" + strings.Repeat("?, ", cols-1) + "?)"
	return strings.Repeat(row+", ", n-1) + row
}

// mapListJoin is the FROM and WHERE of records read in a Map's list
// order: the list drives and each record is looked up by key, one entry
// at a time in the list's key order (on SQLite CROSS JOIN fixes the order
// of the loops, on PostgreSQL a LATERAL sub-select). Its arguments, in
// order: the records' kind, the account, the Map's id.
func (s *Store) mapListJoin() (from string, where []string) {
	if s.opts.KeyLookups {
		return "assignments CROSS JOIN LATERAL (SELECT * FROM records WHERE records.account = assignments.account " +
				"AND records.kind = ? AND records.id = assignments.resource_id OFFSET 0) AS records",
			[]string{"assignments.account = ?", "assignments.map_id = ?"}
	}
	return "assignments CROSS JOIN records",
		[]string{"records.kind = ?", "records.account = assignments.account", "records.id = assignments.resource_id",
			"assignments.account = ?", "assignments.map_id = ?"}
}
