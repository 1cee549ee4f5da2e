package bunstore

import (
	"context"
	"database/sql"

	"github.com/bwcms/cms/cms"
)

// AppendAudit implements cms.Store; the database numbers the entry.
func (s *Store) AppendAudit(ctx context.Context, e cms.AuditEntry) error {
	_, err := s.exec(ctx, "INSERT INTO audit (account, at, username, action, target, detail) VALUES (?, ?, ?, ?, ?, ?)",
		e.Account, micros(e.Time), e.User, e.Action, e.Target, e.Detail)
	return err
}

// ListAudit implements cms.Store, reading audit_list backwards from
// before.
func (s *Store) ListAudit(ctx context.Context, account string, before int64, limit int) ([]cms.AuditEntry, error) {
	if limit <= 0 {
		return nil, &cms.Error{Code: cms.CodeInternal, Message: "ListAudit: a limit above 0"}
	}
	where, args := "account = ?", []any{account}
	if before > 0 {
		where += " AND id < ?"
		args = append(args, before)
	}
	entries := make([]cms.AuditEntry, 0, min(limit, 64))
	err := s.queryEach(ctx, s.read, "SELECT id, account, at, username, action, target, detail FROM "+
		s.indexed("audit", "audit_list")+" WHERE "+where+" ORDER BY id DESC LIMIT ?", append(args, limit),
		func(rows *sql.Rows) error {
			var e cms.AuditEntry
			var at int64
			if err := rows.Scan(&e.ID, &e.Account, &at, &e.User, &e.Action, &e.Target, &e.Detail); err != nil {
				return err
			}
			e.Time = fromMicros(at)
			entries = append(entries, e)
			return nil
		})
	if err != nil {
		return nil, err
	}
	return entries, nil
}
