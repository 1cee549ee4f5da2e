package bunstore

import (
	"context"
	"database/sql"
	"fmt"
	"strings"

	"github.com/bwcms/cms/cms"
)

// CountRecords implements cms.Store: a count of the key's range of the
// kind, which the index answers alone (no record row read).
func (s *Store) CountRecords(ctx context.Context, account string, kind cms.Kind) (int, error) {
	var n int
	err := s.queryEach(ctx, s.read, "SELECT count(*) FROM records WHERE account = ? AND kind = ?", []any{account, string(kind)},
		func(rows *sql.Rows) error { return rows.Scan(&n) })
	return n, err
}

// CountTerms implements cms.Store: the term rows of the range, counted
// by term, from the terms' key.
func (s *Store) CountTerms(ctx context.Context, account string, kind cms.Kind, r cms.TermRange) (map[string]int, error) {
	query := "SELECT term, count(*) FROM terms WHERE account = ? AND kind = ? AND term = ? GROUP BY term"
	args := []any{account, string(kind), r.From}
	if !r.Exact() {
		query = "SELECT term, count(*) FROM terms WHERE account = ? AND kind = ? AND term >= ? AND term < ? GROUP BY term"
		args = append(args, r.To)
	}
	counts := map[string]int{}
	err := s.queryEach(ctx, s.read, query, args, func(rows *sql.Rows) error {
		var term string
		var n int
		if err := rows.Scan(&term, &n); err != nil {
			return err
		}
		counts[term] = n
		return nil
	})
	return counts, err
}

// RecentChanges implements cms.Store: changes_kind walked backwards for
// each kind asked (every kind when none is), merged (as Changes).
func (s *Store) RecentChanges(ctx context.Context, account string, kinds []cms.Kind, limit int) ([]cms.Change, error) {
	if limit < 1 || limit > 1000 {
		return nil, &cms.Error{Code: cms.CodeInternal, Message: "RecentChanges: a limit of 1 to 1000"}
	}
	order := "id DESC" // the position, on SQLite
	if s.postgres() {
		order = "commit_seq DESC, id DESC"
	}
	if len(kinds) == 0 {
		kinds = cms.Kinds()
	}
	arms := make([]string, len(kinds))
	var args []any
	for i, k := range kinds {
		arms[i] = "SELECT * FROM (SELECT " + s.changeColumns() + " FROM " + s.indexed("changes", "changes_kind") +
			" WHERE " + changeKindKey + " = ? ORDER BY " + order + " LIMIT ?) AS k" + fmt.Sprint(i)
		args = append(args, keyOf(account, string(k)), limit)
	}
	byPosition := "1 DESC" // id, the position on SQLite
	if s.postgres() {
		byPosition = "2 DESC, 1 DESC" // commit_seq, id
	}
	return s.changeRows(ctx, account, false, "SELECT * FROM ("+strings.Join(arms, " UNION ALL ")+") AS kinds ORDER BY "+
		byPosition+" LIMIT ?", append(args, limit)...)
}

// runningStatuses is the condition of batches_running (migration 32),
// spelled as the index's so that both planners see the index fits.
const runningStatuses = "status IN ('" + string(cms.BatchWaiting) + "', '" + string(cms.BatchProcessing) + "')"

// RunningBatches implements cms.Store: batches_running, an index of the
// unfinished batches by account and request time.
func (s *Store) RunningBatches(ctx context.Context, account string, limit int) ([]*cms.Batch, error) {
	if limit < 1 {
		return nil, &cms.Error{Code: cms.CodeInternal, Message: "RunningBatches: a limit above 0"}
	}
	var rows []batchRow
	err := s.scan(ctx, s.read, &rows, "SELECT "+batchColumns+" FROM "+s.indexed("batches", "batches_running")+
		" WHERE account = ? AND "+runningStatuses+" ORDER BY requested_at, id LIMIT ?", account, limit)
	if err != nil {
		return nil, s.fail(err)
	}
	out := make([]*cms.Batch, len(rows))
	for i, r := range rows {
		out[i] = r.batch()
	}
	return out, nil
}
