package bunstore

import (
	"context"
	"database/sql"
	"encoding/json"
	"slices"
	"time"

	"github.com/bwcms/cms/cms"
	"github.com/bwcms/cms/cms/track"
)

// fileColumns are what a file query reads, in the order scanFiles takes
// them.
const fileColumns = "files.account, files.id, files.name, files.type, files.size, files.sha256, files.width, " +
	"files.height, files.track, files.created"

// fileChunk is how many ids GetFiles and ExistingFileIDs look up in one
// statement: the purge asks thousands at once.
const fileChunk = 500

// CreateFile implements cms.Store. Either unique key taken (the id, or
// the account's digest) inserts nothing, and the caller is told of a
// conflict: a concurrent upload of the same content that committed
// first is waited for, not raced.
func (s *Store) CreateFile(ctx context.Context, f cms.File) error {
	var summary *string
	if f.Track != nil {
		data, err := json.Marshal(f.Track)
		if err != nil {
			return &cms.Error{Code: cms.CodeInternal, Message: "track summary not storable", Err: err}
		}
		text := string(data)
		summary = &text
	}
	n, err := s.exec(ctx, "INSERT INTO files (account, id, name, type, size, sha256, width, height, track, created) "+
		"VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?) ON CONFLICT DO NOTHING",
		f.Account, f.ID, f.Name, f.Type, f.Size, f.SHA256, f.Width, f.Height, summary, micros(f.Created))
	if err == nil && n == 0 {
		err = conflict("file " + f.ID + ", or a file of the same content, exists")
	}
	return err
}

// GetFiles implements cms.Store. Inside a transaction the files found are
// held with Options.ShareLock, looked up in ascending id order so that
// two transactions holding overlapping sets take them in one order. The
// statement names the ids alone, and the files of other accounts are
// left out here: given the account too, SQLite's planner without
// statistics searches the account's list index (every file of the
// account) for an id list rather than the key once an id.
func (s *Store) GetFiles(ctx context.Context, account string, ids []string) ([]cms.File, error) {
	ids = slices.Sorted(slices.Values(cms.Dedupe(ids)))
	files := make([]cms.File, 0, len(ids))
	for chunk := range slices.Chunk(ids, fileChunk) {
		query, args := s.selectByKeys(fileColumns, "files", "", nil, "id", chunk)
		if s.inTx && s.opts.ShareLock != "" {
			query += " " + s.opts.ShareLock
		}
		found, err := s.scanFiles(ctx, query, args...)
		if err != nil {
			return nil, err
		}
		for _, f := range found {
			if f.Account == account {
				files = append(files, f)
			}
		}
	}
	return files, nil
}

// FileByID implements cms.Store.
func (s *Store) FileByID(ctx context.Context, id string) (*cms.File, error) {
	return s.oneFile(ctx, "file "+id, "SELECT "+fileColumns+" FROM files WHERE id = ?", id)
}

// FileBySHA256 implements cms.Store.
func (s *Store) FileBySHA256(ctx context.Context, account, sha256 string) (*cms.File, error) {
	return s.oneFile(ctx, "file of digest "+sha256, "SELECT "+fileColumns+" FROM "+s.indexed("files", "files_sha256")+
		" WHERE "+fileSHAKey+" = ?", keyOf(account, sha256))
}

// ListFiles implements cms.Store. The page is read in the order of the
// account's index (files_list, or files_type with a type), from the
// place of q.After: its (created, id), looked up by its key in the same
// statement, which is no place when the account holds no such file.
func (s *Store) ListFiles(ctx context.Context, q cms.FileQuery) ([]cms.File, error) {
	if q.Limit <= 0 {
		return nil, &cms.Error{Code: cms.CodeInternal, Message: "ListFiles: a limit above 0"}
	}
	from, where, args := s.indexed("files", "files_list"), "account = ?", []any{q.Account}
	if q.Type != "" {
		from, where, args = s.indexed("files", "files_type"), fileTypeKey+" = ?", []any{keyOf(q.Account, q.Type)}
	}
	if q.After != "" {
		where += " AND (files.created, files.id) < (SELECT prev.created, prev.id FROM files AS prev " +
			"WHERE prev.id = ? AND prev.account = ?)"
		args = append(args, q.After, q.Account)
	}
	return s.scanFiles(ctx, "SELECT "+fileColumns+" FROM "+from+" WHERE "+where+
		" ORDER BY files.created DESC, files.id DESC LIMIT ?", append(args, q.Limit)...)
}

// LockFile implements cms.Store with Options.DeleteLock, which waits
// for every holder of GetFiles.
func (s *Store) LockFile(ctx context.Context, account, id string) (*cms.File, error) {
	query := "SELECT " + fileColumns + " FROM files WHERE id = ? AND account = ?"
	if s.inTx && s.opts.DeleteLock != "" {
		query += " " + s.opts.DeleteLock
	}
	return s.oneFile(ctx, "file "+id, query, id, account)
}

// DeleteFile implements cms.Store.
func (s *Store) DeleteFile(ctx context.Context, account, id string) error {
	n, err := s.exec(ctx, "DELETE FROM files WHERE id = ? AND account = ?", id, account)
	if err == nil && n == 0 {
		err = notFound("file " + id)
	}
	return err
}

// ExistingFileIDs implements cms.Store: the ids are looked up by key, a
// chunk at a time.
func (s *Store) ExistingFileIDs(ctx context.Context, ids []string) ([]string, error) {
	ids = cms.Dedupe(ids)
	found := make([]string, 0, len(ids))
	for chunk := range slices.Chunk(ids, fileChunk) {
		var part []string
		query, args := s.selectByKeys("files.id", "files", "", nil, "id", chunk)
		if err := s.scan(ctx, s.read, &part, query, args...); err != nil {
			return nil, err
		}
		found = append(found, part...)
	}
	return found, nil
}

// UnusedFiles implements cms.Store. The files are read oldest first
// (files_created, by its key expression), each tested for a reference with one look-up of
// refs_to and for a kept revision naming it with one of change_files_file: on PostgreSQL OFFSET 0 keeps the test a look-up per file,
// never a join that could read every reference of the deployment.
func (s *Store) UnusedFiles(ctx context.Context, before time.Time, limit int) ([]cms.File, error) {
	if limit <= 0 {
		return nil, &cms.Error{Code: cms.CodeInternal, Message: "UnusedFiles: a limit above 0"}
	}
	lookup := ""
	if s.opts.KeyLookups {
		lookup = " OFFSET 0"
	}
	return s.scanFiles(ctx, "SELECT "+fileColumns+" FROM "+s.indexed("files", "files_created")+" WHERE "+fileAgeKey+" < ? "+
		"AND NOT EXISTS (SELECT 1 FROM "+s.indexed("refs", "refs_to")+" WHERE "+refsToKey+" = files.account || '/' || files.id "+
		"AND to_kind = ?"+lookup+") "+
		"AND NOT EXISTS (SELECT 1 FROM "+s.indexed("change_files", "change_files_file")+" WHERE "+changeFileKey+" = files.account || '/' || files.id"+lookup+") "+
		"ORDER BY "+fileAgeKey+", files.id LIMIT ?", micros(before), cms.RefFile, limit)
}

// FileBytes implements cms.Store. Every account's total reads every
// file's row: it is meant for an occasional metrics scrape.
func (s *Store) FileBytes(ctx context.Context, account string) (count, bytes int64, err error) {
	query, args := "SELECT COUNT(*), CAST(COALESCE(SUM(size), 0) AS BIGINT) FROM files", []any(nil)
	if account != "" {
		query, args = query+" WHERE account = ?", []any{account}
	}
	err = s.queryEach(ctx, s.read, query, args, func(rows *sql.Rows) error {
		return rows.Scan(&count, &bytes)
	})
	return count, bytes, err
}

// oneFile runs a query of at most one file; CodeNotFound names what when
// there is none.
func (s *Store) oneFile(ctx context.Context, what, query string, args ...any) (*cms.File, error) {
	files, err := s.scanFiles(ctx, query, args...)
	if err != nil {
		return nil, err
	}
	if len(files) == 0 {
		return nil, notFound(what)
	}
	return &files[0], nil
}

// scanFiles runs a file query (fileColumns) on the read side.
func (s *Store) scanFiles(ctx context.Context, query string, args ...any) ([]cms.File, error) {
	var files []cms.File
	err := s.queryEach(ctx, s.read, query, args, func(rows *sql.Rows) error {
		var f cms.File
		var summary sql.NullString
		var created int64
		if err := rows.Scan(&f.Account, &f.ID, &f.Name, &f.Type, &f.Size, &f.SHA256, &f.Width, &f.Height,
			&summary, &created); err != nil {
			return err
		}
		if summary.Valid {
			f.Track = new(track.Summary)
			if err := json.Unmarshal([]byte(summary.String), f.Track); err != nil {
				return &cms.Error{Code: cms.CodeInternal, Message: "stored track summary unreadable", Err: err}
			}
		}
		f.Created = fromMicros(created)
		files = append(files, f)
		return nil
	})
	if err != nil {
		return nil, err
	}
	return files, nil
}
