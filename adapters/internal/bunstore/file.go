package bunstore

import (
	"context"
	"errors"
	"time"

	"github.com/bwcms/cms/cms"
)

// The file store is being built: every method fails until it lands.
var errFileStore = &cms.Error{Code: cms.CodeInternal, Err: errors.New("bunstore: files not built yet")}

func (s *Store) CreateFile(ctx context.Context, f cms.File) error { return errFileStore }
func (s *Store) GetFiles(ctx context.Context, account string, ids []string) ([]cms.File, error) {
	return nil, errFileStore
}
func (s *Store) FileByID(ctx context.Context, id string) (*cms.File, error) { return nil, errFileStore }
func (s *Store) FileBySHA256(ctx context.Context, account, sha256 string) (*cms.File, error) {
	return nil, errFileStore
}
func (s *Store) ListFiles(ctx context.Context, q cms.FileQuery) ([]cms.File, error) {
	return nil, errFileStore
}
func (s *Store) LockFile(ctx context.Context, account, id string) (*cms.File, error) {
	return nil, errFileStore
}
func (s *Store) DeleteFile(ctx context.Context, account, id string) error { return errFileStore }
func (s *Store) ExistingFileIDs(ctx context.Context, ids []string) ([]string, error) {
	return nil, errFileStore
}
func (s *Store) UnusedFiles(ctx context.Context, before time.Time, limit int) ([]cms.File, error) {
	return nil, errFileStore
}
func (s *Store) FileBytes(ctx context.Context, account string) (int64, int64, error) {
	return 0, 0, errFileStore
}
