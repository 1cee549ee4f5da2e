package cms

import (
	"context"
	"errors"
)

var errFilesTODO = errors.New("cms: files: not built yet")

// UploadFile stores one uploaded file of the caller's account: its type
// judged from the content, an image's dimensions, a track measured. The
// same bytes uploaded again answer the file already stored (existing
// true) and store nothing. Errors: CodeUnauthorized; CodeForbidden without
// file:write; CodeConflict (a 409 text saying what was wrong) for a file
// of no accepted type or one that cannot be read; CodeTooLarge over its
// type's limit; CodeConflict when the service keeps no files
// (Options.Files unset). A refusal stores nothing.
func (s *Service) UploadFile(ctx context.Context, up Upload) (f *File, existing bool, err error) {
	return nil, false, errFilesTODO
}

// ListFiles returns a page of the caller's files, newest first, and the
// id to pass as After for the next page ("" after the last).
// Errors: CodeUnauthorized; CodeForbidden without file:read;
// CodeMalformed for a Limit out of range.
func (s *Service) ListFiles(ctx context.Context, page FilePage) (files []File, next string, err error) {
	return nil, "", errFilesTODO
}

// GetFile returns one file of the caller's account and the record fields
// that use it. Errors: CodeUnauthorized; CodeForbidden without file:read;
// CodeNotFound.
func (s *Service) GetFile(ctx context.Context, id string) (*File, []FileUse, error) {
	return nil, nil, errFilesTODO
}

// DeleteFile deletes one file of the caller's account with its bytes and
// thumbnails. Errors: CodeUnauthorized; CodeForbidden without
// file:delete; CodeNotFound; CodeConflict "File <id> is used by <Kind>
// <id>" while a record names it.
func (s *Service) DeleteFile(ctx context.Context, id string) error {
	return errFilesTODO
}

// OpenFile opens a file's bytes for anyone who has its url (no principal
// needed): the original when width is 0, else the thumbnail of that width
// (one of ThumbnailWidths), made on first request. Errors: CodeNotFound
// (no such file, or ext is not the file's type's extension);
// CodeMalformed for a width on a file that is not an image or a width not
// offered.
func (s *Service) OpenFile(ctx context.Context, id, ext string, width int) (*FileContent, error) {
	return nil, errFilesTODO
}

// OpenTrack opens the GeoJSON of a track file: its simplified line with
// the measured figures (no principal needed). CodeNotFound when the file
// does not exist or holds no track.
func (s *Service) OpenTrack(ctx context.Context, id string) (*FileContent, error) {
	return nil, errFilesTODO
}

// FileTotals counts the files of every account and the bytes their
// originals hold, for metrics.
func (s *Service) FileTotals(ctx context.Context) (count, bytes int64, err error) {
	return s.store.FileBytes(ctx, "")
}
