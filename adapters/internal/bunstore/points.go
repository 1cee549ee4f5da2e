package bunstore

import (
	"context"
	"database/sql"
	"iter"
	"slices"
	"strconv"
	"strings"

	"github.com/bwcms/cms/cms"
)

// pointChunk is how many Resources PointRows reads per statement: a
// chunk holds at most pointChunk documents of inlineDoc bytes (a larger
// one is read alone), and no read stays open between chunks.
const pointChunk = 500

// PointRows implements cms.Store. With terms (a search, a type, a
// category) whose rarest range holds few records, those records are the
// candidates, read by key a group at a time (PointCandidateQuery);
// otherwise the key drives in id order (or, with a Map, the Map's list),
// a chunk at a time, each row tested for the filters (PointQuery). Only
// the columns a point needs are read: no assignment lists, and no
// statement per record but for a document larger than inlineDoc.
func (s *Store) PointRows(ctx context.Context, q cms.PointQuery) iter.Seq2[cms.PointRow, error] {
	return func(yield func(cms.PointRow, error) bool) {
		if len(q.Terms) > 0 && q.MapID == "" {
			ids, few, err := s.termCandidates(ctx, q.Account, cms.KindResource, q.Terms)
			if err != nil {
				yield(cms.PointRow{}, err)
				return
			}
			if few {
				for group := range slices.Chunk(ids, pointChunk) {
					query, args := s.PointCandidateQuery(q, group)
					rows, err := s.pointRows(ctx, query, args)
					if err != nil {
						yield(cms.PointRow{}, err)
						return
					}
					if !s.yieldPoints(ctx, q, rows, yield) {
						return
					}
				}
				return
			}
		}
		after := ""
		for {
			query, args := s.PointQuery(q, after, pointChunk)
			rows, err := s.pointRows(ctx, query, args)
			if err != nil {
				yield(cms.PointRow{}, err)
				return
			}
			if !s.yieldPoints(ctx, q, rows, yield) || len(rows) < pointChunk {
				return
			}
			after = rows[len(rows)-1].ID
		}
	}
}

// pointRow is a row of a point statement: doc is NULL for a record the
// filters leave out, "" for a document read alone.
type pointRow struct {
	cms.PointRow
	doc sql.NullString
}

// pointRows runs a point statement.
func (s *Store) pointRows(ctx context.Context, query string, args []any) ([]pointRow, error) {
	rows := make([]pointRow, 0, pointChunk)
	err := s.queryEach(ctx, s.read, query, args, func(r *sql.Rows) error {
		var row pointRow
		var lat, lon sql.NullFloat64
		if err := r.Scan(&row.ID, &row.Published, &lat, &lon, &row.doc); err != nil {
			return err
		}
		row.Lat, row.Lon = lat.Float64, lon.Float64
		rows = append(rows, row)
		return nil
	})
	return rows, err
}

// yieldPoints yields the rows the filters kept, a document too large to
// come with the chunk read alone first (skipped when deleted meanwhile);
// false when the caller stopped or an error was yielded.
func (s *Store) yieldPoints(ctx context.Context, q cms.PointQuery, rows []pointRow, yield func(cms.PointRow, error) bool) bool {
	for i := range rows {
		row := rows[i]
		rows[i].doc = sql.NullString{} // the document goes once yielded
		if !row.doc.Valid {
			continue
		}
		row.Document = row.doc.String
		if row.Document == "" {
			var docs []string
			if err := s.scan(ctx, s.read, &docs, "SELECT doc FROM records WHERE account = ? AND kind = ? AND id = ?",
				q.Account, string(cms.KindResource), row.ID); err != nil {
				yield(cms.PointRow{}, s.fail(err))
				return false
			}
			if len(docs) == 0 {
				continue
			}
			row.Document = docs[0]
		}
		if !yield(row.PointRow, nil) {
			return false
		}
	}
	return true
}

// pointDoc is the document column of a point statement: empty when
// larger than inlineDoc (read alone afterwards).
var pointDoc = "CASE WHEN octet_length(records.doc) <= " + strconv.Itoa(inlineDoc) + " THEN records.doc ELSE '' END"

// pointSelection is what a point statement reads of a record whose
// filters are in the statement's WHERE.
var pointSelection = "records.id, records.published, records.lat, records.lon, " + pointDoc

// pointFilters are the conditions of q on the record read, the located
// ones only.
func (s *Store) pointFilters(q cms.PointQuery, where []string, args []any) ([]string, []any) {
	// One expression, null unless both are set, that no index answers:
	// a planner must never walk a location index whole for it (records_geo
	// before migration 36; records_box's predicate is on its own
	// expression, geo.go).
	where = append(where, "records.lat + records.lon IS NOT NULL")
	where, args = publishedFilter(q.Published, where, args)
	return s.termFilters(q.Terms, where, args)
}

// PointQuery returns the statement of one chunk of PointRows driven by a
// key: the next n Resources of the account with ids above after, in id
// order, on the records' key or, with a Map, on the Map's list (as
// ListQuery). The filters of q are tested in the selection, not in the
// WHERE: a record they leave out comes as its id with a NULL document.
// So the key walk is the statement's one plan: with the filters in the
// WHERE, a planner that rates them as keeping fewer records than the
// LIMIT reads every record of the table and sorts them. Adapter tests
// explain it.
func (s *Store) PointQuery(q cms.PointQuery, after string, n int) (string, []any) {
	cond, args := s.pointFilters(q, nil, nil)
	selection := "records.id, records.published, records.lat, records.lon, CASE WHEN " + strings.Join(cond, " AND ") +
		" THEN " + pointDoc + " END"
	from, order := "records", "records.id"
	var where []string
	if q.MapID != "" {
		from, where = s.mapListJoin()
		args, order = append(args, string(cms.KindResource), q.Account, q.MapID), "assignments.resource_id"
		if after != "" {
			where = append(where, "assignments.resource_id > ?")
			args = append(args, after)
		}
	} else {
		where = []string{"records.account = ?", "records.kind = ?"}
		args = append(args, q.Account, string(cms.KindResource))
		if after != "" {
			where = append(where, "records.id > ?")
			args = append(args, after)
		} else {
			where = append(where, "records."+firstID)
		}
	}
	args = append(args, n)
	return "SELECT " + selection + " FROM " + from + " WHERE " + strings.Join(where, " AND ") +
		" ORDER BY " + order + " LIMIT ?", args
}

// PointCandidateQuery returns the statement of PointRows for a group of
// candidates (ascending ids): each looked up by key, tested for every
// filter of q. Adapter tests explain it.
func (s *Store) PointCandidateQuery(q cms.PointQuery, ids []string) (string, []any) {
	where, args := s.pointFilters(q, []string{"account = ?", "kind = ?"}, []any{q.Account, string(cms.KindResource)})
	query, args := s.selectByKeys(pointSelection, "records", strings.Join(where, " AND "), args, "id", ids)
	return query + " ORDER BY records.id", args
}
