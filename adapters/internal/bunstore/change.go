package bunstore

import (
	"context"
	"errors"
	"time"

	"github.com/bwcms/cms/cms"
)

var errChangesNotYet = errors.New("bunstore: changes not built yet")

// AppendChanges implements cms.Store.
func (s *Store) AppendChanges(ctx context.Context, set cms.ChangeSet) error { return nil }

// ChangeFence implements cms.Store.
func (s *Store) ChangeFence(ctx context.Context, account string) (int64, error) {
	return 0, errChangesNotYet
}

// Changes implements cms.Store.
func (s *Store) Changes(ctx context.Context, q cms.ChangeQuery) ([]cms.Change, error) {
	return nil, errChangesNotYet
}

// ChangeHorizon implements cms.Store.
func (s *Store) ChangeHorizon(ctx context.Context, account string) (cms.ChangeCursor, error) {
	return cms.ChangeCursor{}, errChangesNotYet
}

// RecordHistory implements cms.Store.
func (s *Store) RecordHistory(ctx context.Context, q cms.HistoryQuery) ([]cms.Change, error) {
	return nil, errChangesNotYet
}

// RecordRevision implements cms.Store.
func (s *Store) RecordRevision(ctx context.Context, account string, kind cms.Kind, id string, rev int64) (cms.Change, error) {
	return cms.Change{}, errChangesNotYet
}

// LastRevision implements cms.Store.
func (s *Store) LastRevision(ctx context.Context, account string, kind cms.Kind, id string) (cms.Change, error) {
	return cms.Change{}, errChangesNotYet
}

// PurgeChanges implements cms.Store.
func (s *Store) PurgeChanges(ctx context.Context, before time.Time, limit int) (int, error) {
	return 0, errChangesNotYet
}
