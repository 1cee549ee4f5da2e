package bunstore

import (
	"cmp"
	"context"
	"database/sql"
	"slices"
	"strconv"
	"strings"

	"github.com/bwcms/cms/cms"
)

// BrowseRecords implements cms.Store. When a filter of q (a term, the
// unpublished mark, a Map, the untitled part of a title order) is held
// by at most fewCandidates records, those are the candidates: their keys
// read by key and sorted, then the page's records (browseFew).
// Otherwise the order's own index drives (BrowseQuery), each record read
// tested for the filters, until the page is full.
func (s *Store) BrowseRecords(ctx context.Context, q cms.BrowseQuery) ([]*cms.Entry, error) {
	if q.Limit <= 0 {
		return []*cms.Entry{}, nil
	}
	ids, rest, few, err := s.browseCandidates(ctx, q)
	if err != nil {
		return nil, err
	}
	if few {
		return s.browseFew(ctx, rest, ids)
	}
	query, args := s.BrowseQuery(q)
	rows, err := s.scanRecords(ctx, q.Kind, query, args...)
	if err != nil {
		return nil, err
	}
	entries := make([]*cms.Entry, 0, len(rows))
	for _, row := range rows {
		if row.Doc == "" {
			// Too large to come with the page: read alone.
			e, err := s.GetRecord(ctx, q.Account, q.Kind, row.ID)
			if cms.ErrorCode(err) == cms.CodeNotFound {
				continue // deleted meanwhile
			}
			if err != nil {
				return nil, err
			}
			entries = append(entries, e)
			continue
		}
		e, err := s.entries(q.Account, q.Kind, []recordRow{row}, false)
		if err != nil {
			return nil, err
		}
		entries = append(entries, e[0])
	}
	return entries, nil
}

// browseFilters are the filters of q, the order's part aside, as
// conditions on the record read as records.
func (s *Store) browseFilters(q cms.BrowseQuery, where []string, args []any) ([]string, []any) {
	where, args = publishedFilter(q.Published, where, args)
	if q.MapID != "" {
		where = append(where, "(SELECT true FROM assignments WHERE assignments.account = records.account "+
			"AND assignments.map_id = ? AND assignments.resource_id = records.id)")
		args = append(args, q.MapID)
	}
	return s.termFilters(q.Terms, where, args)
}

// browseCandidates returns the ids (ascending) of the records of the
// first filter of q held by at most fewCandidates, with few set, and q
// without that filter (its records are the candidates: testing them for
// it again would read each record for nothing); few is false when every
// filter is held by more. Each filter is read on a key, at most
// fewCandidates + 1 rows.
func (s *Store) browseCandidates(ctx context.Context, q cms.BrowseQuery) (ids []string, rest cms.BrowseQuery, few bool, err error) {
	type probe struct {
		r    cms.TermRange
		drop func(*cms.BrowseQuery)
	}
	var probes []probe
	for i, r := range q.Terms {
		probes = append(probes, probe{r, func(q *cms.BrowseQuery) {
			q.Terms = slices.Delete(slices.Clone(q.Terms), i, i+1)
		}})
	}
	if q.Sort == cms.BrowseTitle && q.Untitled {
		probes = append(probes, probe{cms.MissingTerm(q.TitleLang), func(q *cms.BrowseQuery) { q.TitleLang = "" }})
	}
	if q.Published == cms.UnpublishedOnly {
		probes = append(probes, probe{cms.UnpublishedTerm(), func(q *cms.BrowseQuery) { q.Published = cms.PublishedAny }})
	}
	for _, p := range probes {
		ids, err := s.termIDs(ctx, q.Account, q.Kind, p.r, fewCandidates+1)
		if err != nil {
			return nil, q, false, err
		}
		if len(ids) <= fewCandidates {
			slices.Sort(ids)
			rest = q
			p.drop(&rest)
			return slices.Compact(ids), rest, true, nil
		}
	}
	if q.MapID == "" {
		return nil, q, false, nil
	}
	var members []string
	if err := s.scan(ctx, s.read, &members, "SELECT resource_id FROM assignments WHERE account = ? AND map_id = ? LIMIT ?",
		q.Account, q.MapID, fewCandidates+1); err != nil {
		return nil, q, false, s.fail(err)
	}
	if len(members) > fewCandidates {
		return nil, q, false, nil
	}
	slices.Sort(members)
	rest = q
	rest.MapID = ""
	return slices.Compact(members), rest, true, nil
}

// browseFew is BrowseRecords of the candidates ids: their sort keys read
// by key (the filters and the order's part tested on each), sorted, the
// page's records then read by key.
func (s *Store) browseFew(ctx context.Context, q cms.BrowseQuery, ids []string) ([]*cms.Entry, error) {
	if q.Sort == cms.BrowseID {
		return s.browseFewByID(ctx, q, ids)
	}
	type key struct {
		id, title string
		updated   int64
	}
	var keys []key
	for group := range slices.Chunk(ids, 500) {
		query, args := s.BrowseKeysQuery(q, group)
		err := s.queryEach(ctx, s.read, query, args, func(rows *sql.Rows) error {
			var k key
			var terms string
			if err := rows.Scan(&k.id, &k.updated, &terms); err != nil {
				return err
			}
			if q.Sort == cms.BrowseTitle && !q.Untitled {
				k.title = titleOf(terms, q.TitleLang)
			}
			keys = append(keys, k)
			return nil
		})
		if err != nil {
			return nil, err
		}
	}
	compare := func(a, b key) int {
		var c int
		switch {
		case q.Sort == cms.BrowseUpdated:
			c = cmp.Compare(a.updated, b.updated)
		case q.Sort == cms.BrowseTitle && !q.Untitled:
			c = strings.Compare(a.title, b.title)
		}
		c = cmp.Or(c, strings.Compare(a.id, b.id))
		if q.Desc {
			return -c
		}
		return c
	}
	slices.SortFunc(keys, compare)
	if a := q.After; a != nil {
		after := key{id: a.ID, title: a.Title, updated: micros(a.Updated)}
		i, found := slices.BinarySearchFunc(keys, after, compare)
		if found {
			i++
		}
		keys = keys[i:]
	}
	keys = keys[:min(len(keys), q.Limit)]
	page := make([]string, len(keys))
	for i, k := range keys {
		page[i] = k.id
	}
	return s.GetRecords(ctx, q.Account, q.Kind, page)
}

// browseFewByID is browseFew in id order, which is the candidates': they
// are tested a group at a time from the cursor on, until the page is
// full.
func (s *Store) browseFewByID(ctx context.Context, q cms.BrowseQuery, ids []string) ([]*cms.Entry, error) {
	if q.Desc {
		ids = slices.Clone(ids)
		slices.Reverse(ids)
	}
	if q.After != nil {
		i := slices.IndexFunc(ids, func(id string) bool {
			if q.Desc {
				return id < q.After.ID
			}
			return id > q.After.ID
		})
		if i < 0 {
			i = len(ids)
		}
		ids = ids[i:]
	}
	var page []string
	for len(ids) > 0 && len(page) < q.Limit {
		group := ids[:min(len(ids), max(2*(q.Limit-len(page)), 64))]
		ids = ids[len(group):]
		kept := map[string]bool{}
		query, args := s.BrowseKeysQuery(q, group)
		err := s.queryEach(ctx, s.read, query, args, func(rows *sql.Rows) error {
			var id, terms string
			var updated int64
			if err := rows.Scan(&id, &updated, &terms); err != nil {
				return err
			}
			kept[id] = true
			return nil
		})
		if err != nil {
			return nil, err
		}
		for _, id := range group {
			if kept[id] && len(page) < q.Limit {
				page = append(page, id)
			}
		}
	}
	return s.GetRecords(ctx, q.Account, q.Kind, page)
}

// titleOf is the title sort key in lang of a terms column; "" without.
func titleOf(terms, lang string) string {
	needle := cms.TitleTerms(lang).TermNeedle()
	i := strings.Index(terms, needle)
	if i < 0 {
		return ""
	}
	rest := terms[i+1:]
	if j := strings.Index(rest, cms.TermSeparator); j >= 0 {
		rest = rest[:j]
	}
	return cms.TitleKey(rest)
}

// BrowseKeysQuery returns the query of browseFew for a group of
// candidates: the id, update time and terms column (only when a title
// order or a filter needs it: the column comes after the document) of
// those of ids that q's filters and the order's part keep, each looked
// up by key. q is what browseCandidates left of the filters: a title
// order's TitleLang cleared when the candidates are its untitled
// records. Adapter tests explain it.
func (s *Store) BrowseKeysQuery(q cms.BrowseQuery, ids []string) (string, []any) {
	where := []string{"account = ?", "kind = ?"}
	args := []any{q.Account, string(q.Kind)}
	where, args = s.browseFilters(q, where, args)
	terms := "''"
	if q.Sort == cms.BrowseTitle && q.TitleLang != "" {
		part := cms.TitleTerms(q.TitleLang)
		if q.Untitled {
			part = cms.MissingTerm(q.TitleLang)
		} else {
			terms = "records.terms"
		}
		where, args = s.termFilters([]cms.TermRange{part}, where, args)
	}
	if slices.ContainsFunc(q.Terms, cms.TermRange.Own) {
		terms = "records.terms"
	}
	return s.selectByKeys("records.id, records.updated_at, "+terms, "records", strings.Join(where, " AND "), args, "id", ids)
}

// BrowseQuery returns the statement of BrowseRecords when the order's
// index drives: the key in id order; records_updated in (updated_at, id)
// order; for a title order the terms key, the range of the language's
// title terms in (term, id) order, or its untitled term in id order, each
// record then looked up by key (on SQLite CROSS JOIN fixes the order of
// the loops, on PostgreSQL a LATERAL sub-select). Forwards or backwards,
// from after q.After. Adapter tests explain it.
func (s *Store) BrowseQuery(q cms.BrowseQuery) (string, []any) {
	dir, cmpOp := "", ">"
	if q.Desc {
		dir, cmpOp = " DESC", "<"
	}
	var from string
	var where, order []string
	var args []any
	switch q.Sort {
	case cms.BrowseTitle:
		// records is looked up for each sort term, in the terms' order.
		if s.opts.KeyLookups {
			from = "terms AS sorted CROSS JOIN LATERAL (SELECT * FROM records WHERE records.account = sorted.account " +
				"AND records.kind = sorted.kind AND records.id = sorted.id OFFSET 0) AS records"
		} else {
			from = "terms AS sorted CROSS JOIN records"
			where = []string{"records.account = sorted.account", "records.kind = sorted.kind", "records.id = sorted.id"}
		}
		where = append(where, "sorted.account = ?", "sorted.kind = ?")
		args = append(args, q.Account, string(q.Kind))
		if q.Untitled {
			where = append(where, "sorted.term = ?")
			args = append(args, cms.MissingTerm(q.TitleLang).From)
			if q.After != nil {
				where = append(where, "sorted.id "+cmpOp+" ?")
				args = append(args, q.After.ID)
			}
			order = []string{"sorted.id" + dir}
			break
		}
		titles := cms.TitleTerms(q.TitleLang)
		from, to := "sorted.term >= ?", "sorted.term < ?"
		lo, hi := titles.From, titles.To
		if q.After != nil {
			// The range starts at the cursor's term, so that the index is
			// read from there (the pair's condition alone would be a
			// filter on the whole range).
			after := titles.From + q.After.Title
			if q.Desc {
				to, hi = "sorted.term <= ?", after
			} else {
				lo = after
			}
		}
		where = append(where, from, to)
		args = append(args, lo, hi)
		if q.After != nil {
			where = append(where, "(sorted.term, sorted.id) "+cmpOp+" (?, ?)")
			args = append(args, titles.From+q.After.Title, q.After.ID)
		}
		order = []string{"sorted.term" + dir, "sorted.id" + dir}
	case cms.BrowseUpdated:
		from = s.indexed("records", "records_updated")
		where, args = []string{updatedKey + " = ?"}, []any{keyOf(q.Account, string(q.Kind))}
		id := s.updatedID()
		if q.After != nil {
			where = append(where, "(updated_at, "+id+") "+cmpOp+" (?, ?)")
			args = append(args, micros(q.After.Updated), q.After.ID)
		}
		order = []string{"updated_at" + dir, id + dir}
	default:
		from = "records"
		where, args = []string{"account = ?", "kind = ?"}, []any{q.Account, string(q.Kind)}
		if q.After != nil {
			where = append(where, "id "+cmpOp+" ?")
			args = append(args, q.After.ID)
		} else {
			where = append(where, firstID)
		}
		order = []string{"id" + dir}
	}
	where, args = s.browseFilters(q, where, args)
	args = append(args, q.Limit)
	return "SELECT " + s.browseSelection(q.Kind) + " FROM " + from + " WHERE " + strings.Join(where, " AND ") +
		" ORDER BY " + strings.Join(order, ", ") + " LIMIT ?", args
}

// browseSelection is what BrowseQuery reads of a record: its columns, the
// document unless it is larger than inlineDoc (read alone then), and no
// assignment lists (a list shows none).
func (s *Store) browseSelection(kind cms.Kind) string {
	sel := strings.Replace(recordsColumns, "records.doc",
		"CASE WHEN octet_length(records.doc) <= "+strconv.Itoa(inlineDoc)+" THEN records.doc ELSE '' END", 1)
	if hasAssigned(kind) {
		sel += ", CAST(NULL AS TEXT)"
	}
	return sel
}

// TermValues implements cms.Store: a walk of the terms key from one
// distinct term to the next, one look-up each (TermValueQuery).
func (s *Store) TermValues(ctx context.Context, account string, kind cms.Kind, r cms.TermRange, limit int) ([]string, error) {
	values := []string{}
	after := ""
	for len(values) < limit {
		query, args := s.TermValueQuery(account, kind, r, after)
		var next []string
		if err := s.scan(ctx, s.read, &next, query, args...); err != nil {
			return nil, s.fail(err)
		}
		if len(next) == 0 {
			break
		}
		values = append(values, next[0])
		after = next[0]
	}
	return values, nil
}

// TermValueQuery returns the query of one step of TermValues: the first
// term of r after after ("": the first of r). Adapter tests explain it.
func (s *Store) TermValueQuery(account string, kind cms.Kind, r cms.TermRange, after string) (string, []any) {
	cond, args := termCondition(r)
	if after != "" && !r.Exact() {
		// From the term after: a range from r.From with a filter on
		// after would read every row of the terms before.
		cond, args = "term > ? AND term < ?", []any{after, r.To}
	} else if after != "" {
		cond += " AND term > ?"
		args = append(args, after)
	}
	args = append([]any{account, string(kind)}, args...)
	return "SELECT term FROM terms WHERE account = ? AND kind = ? AND " + cond + " ORDER BY term LIMIT 1", args
}

// publishedFilter adds the condition of a Published filter on the record
// read as records.
func publishedFilter(p cms.Published, where []string, args []any) ([]string, []any) {
	switch p {
	case cms.PublishedOnly:
		return append(where, "records.published = ?"), append(args, true)
	case cms.UnpublishedOnly:
		return append(where, "records.published = ?"), append(args, false)
	}
	return where, args
}
