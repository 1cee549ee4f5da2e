package cms

import (
	"context"
	"errors"
	"fmt"
	"slices"

	"github.com/bwcms/cms/cms/media"
)

// fileCaller returns the principal of ctx when it may do action on files.
func (s *Service) fileCaller(ctx context.Context, action Action) (Principal, error) {
	return s.caller(ctx, AreaFile, action)
}

// errNoFiles refuses file calls of a service that keeps no files.
func errNoFiles() error {
	return &Error{Code: CodeConflict, Message: "This server keeps no files",
		Err: errors.New("cms: Options.Files is not set")}
}

// fileTypes are the media types the service accepts, in the order lists
// name them.
var fileTypes = []string{media.JPEG, media.PNG, media.WebP, media.KML, media.KMZ, media.GPX}

// FileTypes lists the media types an upload may have.
func FileTypes() []string { return slices.Clone(fileTypes) }

// ListFiles returns a page of the caller's files, newest first, and the
// id to pass as After for the next page ("" after the last).
// Errors: CodeUnauthorized; CodeForbidden without file:read;
// CodeMalformed for a Limit out of range or a Type not in FileTypes.
func (s *Service) ListFiles(ctx context.Context, page FilePage) (files []File, next string, err error) {
	p, err := s.fileCaller(ctx, ActionRead)
	if err != nil {
		return nil, "", err
	}
	if page.Limit == 0 {
		page.Limit = DefaultFilePage
	}
	if page.Limit < 0 || page.Limit > MaxFilePage || page.Type != "" && !slices.Contains(fileTypes, page.Type) ||
		page.After != "" && !IsFileID(page.After) {
		return nil, "", malformed(fmt.Errorf("files: limit %d, type %q, after %q", page.Limit, page.Type, page.After))
	}
	files, err = s.store.ListFiles(ctx, FileQuery{Account: p.Account, Type: page.Type, After: page.After, Limit: page.Limit + 1})
	if err != nil {
		return nil, "", err
	}
	if len(files) > page.Limit {
		files = files[:page.Limit]
		next = files[len(files)-1].ID
	}
	return files, next, nil
}

// GetFile returns one file of the caller's account and the record fields
// that use it, in (kind, id, field) order. Errors: CodeUnauthorized;
// CodeForbidden without file:read; CodeNotFound.
func (s *Service) GetFile(ctx context.Context, id string) (*File, []FileUse, error) {
	p, err := s.fileCaller(ctx, ActionRead)
	if err != nil {
		return nil, nil, err
	}
	files, err := s.store.GetFiles(ctx, p.Account, []string{id})
	if err != nil {
		return nil, nil, err
	}
	if len(files) == 0 {
		return nil, nil, errFileNotFound(id)
	}
	uses, err := s.store.Referrers(ctx, p.Account, []string{RefFile}, id)
	if err != nil {
		return nil, nil, err
	}
	return &files[0], uses, nil
}

func errFileNotFound(id string) error {
	return &Error{Code: CodeNotFound, Message: "Not found", Err: errors.New("file " + id + " not found")}
}

// DeleteFile deletes one file of the caller's account with its bytes,
// thumbnails and track line. Errors: CodeUnauthorized; CodeForbidden
// without file:delete; CodeNotFound; CodeConflict "File <id> is used by
// <Kind> <id>" while a record names it.
func (s *Service) DeleteFile(ctx context.Context, id string) error {
	p, err := s.fileCaller(ctx, ActionDelete)
	if err != nil {
		return err
	}
	if !IsFileID(id) {
		return errFileNotFound(id)
	}
	if err := s.deleteUnused(ctx, p.Account, id); err != nil {
		return err
	}
	s.removeBytes(ctx, id)
	return nil
}

// deleteUnused deletes the row of account's file id unless a record uses
// it: the file is held first, so a record naming it meanwhile either
// commits before (and is seen) or waits and then finds no file.
func (s *Service) deleteUnused(ctx context.Context, account, id string) error {
	return s.store.WithTx(ctx, func(tx Store) error {
		if _, err := tx.LockFile(ctx, account, id); err != nil {
			if ErrorCode(err) == CodeNotFound {
				return errFileNotFound(id)
			}
			return err
		}
		uses, err := tx.Referrers(ctx, account, []string{RefFile}, id)
		if err != nil {
			return err
		}
		if len(uses) > 0 {
			u := uses[0]
			return &Error{Code: CodeConflict, Message: "File " + id + " is used by " + u.FromKind.Title() + " " + u.FromID}
		}
		return tx.DeleteFile(ctx, account, id)
	})
}

// FileTotals counts the files of every account and the bytes their
// originals hold, for metrics.
func (s *Service) FileTotals(ctx context.Context) (count, bytes int64, err error) {
	return s.store.FileBytes(ctx, "")
}
