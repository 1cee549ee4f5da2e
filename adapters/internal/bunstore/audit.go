package bunstore

import (
	"context"
	"errors"

	"github.com/bwcms/cms/cms"
)

var errAuditNotYet = errors.New("bunstore: audit not built yet")

// AppendAudit implements cms.Store.
func (s *Store) AppendAudit(ctx context.Context, e cms.AuditEntry) error { return nil }

// ListAudit implements cms.Store.
func (s *Store) ListAudit(ctx context.Context, account string, before int64, limit int) ([]cms.AuditEntry, error) {
	return nil, errAuditNotYet
}
