package bunstore

import (
	"context"
	"database/sql"
	"slices"
	"strings"

	"github.com/bwcms/cms/cms"
)

// fewCandidates is the most records of a term range that a search (or a
// filter) reads as its candidates, looked up by key and sorted: a range
// holding more is dense, and the list's own index drives instead,
// testing each record for the terms. A dense range holds more than one
// record in N / fewCandidates of a kind of N, so a page of a list driven
// in id order reads about N / fewCandidates records for each it keeps.
const fewCandidates = 1000

// termCondition is the condition of a term range on the column term.
func termCondition(r cms.TermRange) (string, []any) {
	if r.Exact() {
		return "term = ?", []any{r.From}
	}
	return "term >= ? AND term < ?", []any{r.From, r.To}
}

// termCandidates returns the ids of the records holding a term of one of
// ranges, in ascending order, when one of the ranges holds at most
// fewCandidates terms (the first such range, in the order given: the
// caller puts the likeliest narrowest first); few is false when every
// range holds more. Each range is read on the terms key, at most
// fewCandidates + 1 entries.
func (s *Store) termCandidates(ctx context.Context, account string, kind cms.Kind, ranges []cms.TermRange) (ids []string, few bool, err error) {
	for _, r := range ranges {
		ids, err := s.termIDs(ctx, account, kind, r, fewCandidates+1)
		if err != nil {
			return nil, false, err
		}
		if len(ids) <= fewCandidates {
			slices.Sort(ids)
			return slices.Compact(ids), true, nil
		}
	}
	return nil, false, nil
}

// termIDs returns the ids of at most limit terms of r, in the key's
// order.
func (s *Store) termIDs(ctx context.Context, account string, kind cms.Kind, r cms.TermRange, limit int) ([]string, error) {
	query, args := s.TermQuery(account, kind, r, limit)
	ids := make([]string, 0, 64)
	err := s.queryEach(ctx, s.read, query, args, func(rows *sql.Rows) error {
		var id string
		err := rows.Scan(&id)
		ids = append(ids, id)
		return err
	})
	return ids, err
}

// TermQuery returns the query of termIDs: the ids of at most limit terms
// of r on the key. Adapter tests explain it.
func (s *Store) TermQuery(account string, kind cms.Kind, r cms.TermRange, limit int) (string, []any) {
	cond, args := termCondition(r)
	return "SELECT id FROM terms WHERE account = ? AND kind = ? AND " + cond + " LIMIT ?",
		append(append([]any{account, string(kind)}, args...), limit)
}

// termFilters appends to where (and args) one condition a range of
// ranges on the record read as records: its own terms tested in its
// terms column (cms.JoinTerms), with no other look-up; a missing term
// (not its own) looked up on the terms key.
func (s *Store) termFilters(ranges []cms.TermRange, where []string, args []any) ([]string, []any) {
	for _, r := range ranges {
		if r.Own() {
			where = append(where, s.opts.InStr+"(records.terms, ?) > 0")
			args = append(args, r.TermNeedle())
			continue
		}
		// A sub-select, not EXISTS: PostgreSQL may turn an EXISTS into a
		// join that reads every row of the term, never a sub-select it
		// runs for each record read.
		where = append(where, "(SELECT true FROM terms WHERE terms.account = records.account AND terms.kind = records.kind "+
			"AND terms.term = ? AND terms.id = records.id)")
		args = append(args, r.From)
	}
	return where, args
}

// listCandidates yields the records of ids (ascending) that p selects,
// after p.After and at most p.Limit: read by key a group at a time,
// each group's records tested for every filter of p.
func (s *Store) listCandidates(ctx context.Context, p cms.ListParams, ids []string, yield func(*cms.Entry, error) bool) {
	i, _ := slices.BinarySearch(ids, p.After+"\x00")
	if p.After == "" {
		i = 0
	}
	kept := 0
	for i < len(ids) {
		n := listChunk
		if p.Limit > 0 {
			n = min(n, max(p.Limit-kept, 16))
		}
		group := ids[i:min(i+n, len(ids))]
		i += len(group)
		query, args := s.CandidateQuery(p, group, true)
		rows, err := s.scanRecords(ctx, p.Kind, query, args...)
		if err != nil {
			yield(nil, err)
			return
		}
		for j := range rows {
			row := rows[j]
			rows[j].Doc = "" // the document goes once yielded
			if row.Doc == "" {
				// Too large to come with the group: read alone, with the
				// filters (it may have changed since).
				query, args := s.CandidateQuery(p, []string{row.ID}, false)
				large, err := s.scanRecords(ctx, p.Kind, query, args...)
				if err != nil {
					yield(nil, err)
					return
				}
				if len(large) == 0 {
					continue
				}
				row = large[0]
			}
			entries, err := s.entries(p.Account, p.Kind, []recordRow{row}, p.Stored)
			if err != nil {
				yield(nil, err)
				return
			}
			if !yield(entries[0], nil) {
				return
			}
			if kept++; p.Limit > 0 && kept == p.Limit {
				return
			}
		}
	}
}

// CandidateQuery returns the query of listCandidates for a group of ids:
// the records of ids that every filter of p keeps, in id order, each
// looked up by key (a Map's membership too, on the assignments' key).
// inline leaves documents larger than inlineDoc out. Adapter tests
// explain it.
func (s *Store) CandidateQuery(p cms.ListParams, ids []string, inline bool) (string, []any) {
	where := []string{"account = ?", "kind = ?"}
	args := []any{p.Account, string(p.Kind)}
	if p.MapID != "" {
		where = append(where, "(SELECT true FROM assignments WHERE assignments.account = records.account "+
			"AND assignments.map_id = ? AND assignments.resource_id = records.id)")
		args = append(args, p.MapID)
	}
	where, args = s.listFilters(p, where, args)
	selection := s.recordSelection(p.Kind)
	if inline {
		selection = s.inlineSelection(p.Kind)
	}
	query, args := s.selectByKeys(selection, "records", strings.Join(where, " AND "), args, "id", ids)
	return query + " ORDER BY records.id", args
}
