package main

import (
	"context"
	"errors"
	"fmt"
	"net/url"
	"path/filepath"
	"strings"
	"time"

	"gocloud.dev/blob"
	"gocloud.dev/blob/fileblob"
	"gocloud.dev/blob/s3blob"

	"github.com/bwcms/cms/adapters/sqlite"
)

// fileSettings are where uploaded files' bytes go and how long unused
// ones are kept.
var fileSettings = []setting{
	{"files", "CMS_FILES", "", "blob store of uploaded files: file:///dir or s3://bucket?region=R (default with SQLite: a folder files beside the database file; required with PostgreSQL)"},
	{"file-unused-age", "CMS_FILE_UNUSED_AGE", "0", "the hourly purge deletes files no record uses that were uploaded longer ago than this (0: unused files are kept)"},
}

// filesCheckTimeout bounds the look at the blob store on start: a wrong
// endpoint or a bucket that does not answer stops the start instead of
// hanging it.
const filesCheckTimeout = 30 * time.Second

// filesURL reads --files: the URL given, judged, or the default for db (a
// folder files beside a SQLite file, made when missing). Nothing is
// opened or created here.
func filesURL(cfg map[string]string) (string, error) {
	raw := strings.TrimSpace(cfg["files"])
	if raw == "" {
		return defaultFilesURL(cfg["db"])
	}
	u, err := url.Parse(raw)
	if err != nil {
		return "", errors.New("--files: not a URL (want file:///dir or s3://bucket?region=R)")
	}
	switch u.Scheme {
	case fileblob.Scheme:
		if u.Path == "" || u.Path == "/" {
			return "", fmt.Errorf("--files %q: want the folder's path, file:///var/lib/cms/files", raw)
		}
	case s3blob.Scheme:
		if u.Host == "" {
			return "", fmt.Errorf("--files %q: want the bucket's name, s3://bucket?region=R", raw)
		}
	default:
		return "", fmt.Errorf("--files %q: want file:///dir or s3://bucket?region=R, the two stores this server links", redactDSN(raw))
	}
	return raw, nil
}

// defaultFilesURL is the folder files beside the SQLite file of db, as an
// absolute file:// URL; a PostgreSQL database has no such place, as its
// instances may run on several machines.
func defaultFilesURL(db string) (string, error) {
	path, ok := strings.CutPrefix(db, "sqlite:")
	if !ok {
		return "", errors.New("--files (CMS_FILES) is required with PostgreSQL: a blob store every instance shares, " +
			"s3://bucket?region=R or file:///dir on a shared file system")
	}
	if path == sqlite.Memory {
		return "", errors.New("--files (CMS_FILES) is required with a database in memory: file:///dir or s3://bucket?region=R")
	}
	dir, err := filepath.Abs(filepath.Join(filepath.Dir(path), "files"))
	if err != nil {
		return "", fmt.Errorf("--files: the folder beside the database: %w", err)
	}
	// create_dir makes the folder on first start; no_tmp_dir writes each
	// upload beside its final name, so the rename that ends it never
	// crosses file systems (a data volume apart from /tmp).
	u := url.URL{Scheme: fileblob.Scheme, Path: filepath.ToSlash(dir), RawQuery: "create_dir=1&no_tmp_dir=1"}
	return u.String(), nil
}

// openFiles opens the blob store of a --files URL with the two drivers
// this server links, and checks it answers.
func openFiles(ctx context.Context, raw string) (*blob.Bucket, error) {
	mux := new(blob.URLMux)
	mux.RegisterBucket(fileblob.Scheme, &fileblob.URLOpener{})
	mux.RegisterBucket(s3blob.Scheme, &s3blob.URLOpener{})
	b, err := mux.OpenBucket(ctx, raw)
	if err != nil {
		return nil, fmt.Errorf("--files %s: %w", redactDSN(raw), err)
	}
	cctx, cancel := context.WithTimeout(ctx, filesCheckTimeout)
	defer cancel()
	if _, err := b.IsAccessible(cctx); err != nil {
		b.Close()
		return nil, fmt.Errorf("--files %s: the store does not answer: %w", redactDSN(raw), err)
	}
	return b, nil
}

// fileUnusedAge reads --file-unused-age; 0 keeps unused files (the
// service's default).
func fileUnusedAge(cfg map[string]string) (time.Duration, error) {
	d, err := time.ParseDuration(cfg["file-unused-age"])
	if err != nil || d < 0 {
		return 0, fmt.Errorf("--file-unused-age %q: want a duration such as 720h (0: unused files are kept)", cfg["file-unused-age"])
	}
	return d, nil
}
