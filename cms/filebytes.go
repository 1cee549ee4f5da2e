package cms

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"iter"
	"slices"
	"strconv"
	"strings"
	"sync"
	"time"

	"gocloud.dev/blob"
	"gocloud.dev/gcerrors"

	"github.com/bwcms/cms/cms/media"
)

// A file's bytes live in the blob store under "files/<id>/": the original,
// its thumbnails ("w320") and a track's line ("track.geojson"), so one
// prefix removes them all and the purge tells a file's bytes by their id.
const filesPrefix = "files/"

func originalKey(id string) string         { return filesPrefix + id + "/original" }
func thumbnailKey(id string, w int) string { return filesPrefix + id + "/w" + strconv.Itoa(w) }
func trackKey(id string) string            { return filesPrefix + id + "/track.geojson" }

// GeoJSONType is the media type of a track's line.
const GeoJSONType = "application/geo+json"

// removeBytes deletes every blob of file id. A failure is logged and left
// to the purge, which removes bytes without a row.
func (s *Service) removeBytes(ctx context.Context, id string) {
	if err := s.removeBlobs(ctx, filesPrefix+id+"/"); err != nil {
		s.log.WarnContext(ctx, "cms: file bytes left for the purge", "file", id, "err", err)
	}
}

func (s *Service) removeBlobs(ctx context.Context, prefix string) error {
	var errs []error
	for obj, err := range s.blobs(ctx, prefix) {
		if err != nil {
			return err
		}
		if err := s.opts.Files.Delete(ctx, obj.Key); err != nil && gcerrors.Code(err) != gcerrors.NotFound {
			errs = append(errs, err)
		}
	}
	return errors.Join(errs...)
}

// blobs lists the blob store's objects under prefix, in key order.
func (s *Service) blobs(ctx context.Context, prefix string) iter.Seq2[*blob.ListObject, error] {
	return func(yield func(*blob.ListObject, error) bool) {
		it := s.opts.Files.List(&blob.ListOptions{Prefix: prefix})
		for {
			obj, err := it.Next(ctx)
			if errors.Is(err, io.EOF) || !yield(obj, err) || err != nil {
				return
			}
		}
	}
}

// OpenFile opens a file's bytes for anyone who has its url (no principal
// needed): the original when width is 0, else the thumbnail of that width
// (one of ThumbnailWidths), made on first request. Errors: CodeNotFound
// (no such file, or ext is not its type's extension); CodeMalformed for a
// width not offered or a width on a file that is not an image.
func (s *Service) OpenFile(ctx context.Context, id, ext string, width int) (*FileContent, error) {
	f, err := s.publicFile(ctx, id)
	if err != nil {
		return nil, err
	}
	if ext != FileExt(f.Type) {
		return nil, errFileNotFound(id)
	}
	if width == 0 {
		return s.openBlob(ctx, f, originalKey(id), f.Type, `"`+f.SHA256+`"`)
	}
	if !slices.Contains(thumbnailWidths, width) || f.Width == 0 {
		return nil, malformed(errors.New("file " + id + ": no thumbnail of width " + strconv.Itoa(width)))
	}
	return s.openThumbnail(ctx, f, width)
}

// OpenTrack opens the GeoJSON of a track file: its simplified line with
// the measured figures (no principal needed). CodeNotFound when the file
// does not exist or holds no track.
func (s *Service) OpenTrack(ctx context.Context, id string) (*FileContent, error) {
	f, err := s.publicFile(ctx, id)
	if err != nil {
		return nil, err
	}
	if f.Track == nil {
		return nil, errFileNotFound(id)
	}
	return s.openBlob(ctx, f, trackKey(id), GeoJSONType, `"`+f.SHA256+`-track"`)
}

// publicFile reads the file of id whatever its account.
func (s *Service) publicFile(ctx context.Context, id string) (*File, error) {
	if s.opts.Files == nil || !IsFileID(id) {
		return nil, errFileNotFound(id)
	}
	f, err := s.store.FileByID(ctx, id)
	if ErrorCode(err) == CodeNotFound {
		return nil, errFileNotFound(id)
	}
	return f, err
}

// openBlob opens key of f. Bytes gone while the row stays (deleted by
// hand from the bucket) read as not found.
func (s *Service) openBlob(ctx context.Context, f *File, key, typ, etag string) (*FileContent, error) {
	r, err := s.opts.Files.NewReader(ctx, key, nil)
	if err != nil {
		if gcerrors.Code(err) == gcerrors.NotFound {
			return nil, errFileNotFound(f.ID)
		}
		return nil, blobError(err)
	}
	if typ == "" {
		typ = r.ContentType()
	}
	return &FileContent{File: *f, Type: typ, Body: r, Size: r.Size(), ETag: etag}, nil
}

// openThumbnail opens f's thumbnail of width w, made and stored first
// when it is the first request for it: once, however many ask at once,
// and a bounded number of images decoded at a time. A request whose
// client leaves while it waits returns at once.
func (s *Service) openThumbnail(ctx context.Context, f *File, w int) (*FileContent, error) {
	key, etag := thumbnailKey(f.ID, w), `"`+f.SHA256+"-w"+strconv.Itoa(w)+`"`
	c, err := s.openBlob(ctx, f, key, "", etag)
	if ErrorCode(err) != CodeNotFound {
		return c, err
	}
	if err := s.thumbnails.wait(ctx, key, func(jctx context.Context) error {
		return s.makeThumbnail(jctx, f, w)
	}); err != nil {
		return nil, err
	}
	return s.openBlob(ctx, f, key, "", etag)
}

// makeThumbnail waits for a decode while ctx lasts (its askers may all
// leave), then makes and stores the thumbnail whatever happens to them:
// the next request finds it.
func (s *Service) makeThumbnail(ctx context.Context, f *File, w int) error {
	select {
	case s.decodes <- struct{}{}:
		defer func() { <-s.decodes }()
	case <-ctx.Done():
		return ctx.Err()
	}
	if err := ctx.Err(); err != nil {
		return err // a decode came free as the last asker left
	}
	ctx = context.WithoutCancel(ctx)
	orig, err := s.openBlob(ctx, f, originalKey(f.ID), f.Type, "")
	if err != nil {
		return err
	}
	defer orig.Body.Close()
	var out bytes.Buffer
	typ, err := media.Thumbnail(&out, orig.Body, f.Type, w)
	if err != nil {
		return &Error{Code: CodeInternal, Err: fmt.Errorf("cms: thumbnail of file %s: %w", f.ID, err)}
	}
	return s.writeBlob(ctx, thumbnailKey(f.ID, w), typ, func(dst io.Writer) error {
		_, err := out.WriteTo(dst)
		return err
	})
}

// thumbnailJobs runs each thumbnail's making once for all who ask for it
// together. Unlike a singleflight.Group, an asker stops waiting when its
// own context ends, and a job whose askers all left is called off (its
// context ends) and forgotten, so the next asker starts afresh.
type thumbnailJobs struct {
	mu   sync.Mutex
	jobs map[string]*thumbnailJob
}

type thumbnailJob struct {
	done    chan struct{} // closed when err is set
	err     error
	waiters int
	cancel  context.CancelFunc
}

// wait joins the job of key, starting it with work when there is none,
// and returns its error, or CodeUnavailable when ctx ends first.
func (j *thumbnailJobs) wait(ctx context.Context, key string, work func(context.Context) error) error {
	j.mu.Lock()
	job := j.jobs[key]
	if job == nil {
		jctx, cancel := context.WithCancel(context.WithoutCancel(ctx))
		job = &thumbnailJob{done: make(chan struct{}), cancel: cancel}
		if j.jobs == nil {
			j.jobs = map[string]*thumbnailJob{}
		}
		j.jobs[key] = job
		go j.run(jctx, key, job, work)
	}
	job.waiters++
	j.mu.Unlock()
	select {
	case <-job.done:
		return job.err
	case <-ctx.Done():
		j.mu.Lock()
		if job.waiters--; job.waiters == 0 {
			job.cancel()
			j.forget(key, job)
		}
		j.mu.Unlock()
		return &Error{Code: CodeUnavailable, Message: "Service unavailable", Err: ctx.Err()}
	}
}

// run makes the job's thumbnail; a panic of a decoder is its error.
func (j *thumbnailJobs) run(ctx context.Context, key string, job *thumbnailJob, work func(context.Context) error) {
	defer func() {
		if v := recover(); v != nil {
			job.err = &Error{Code: CodeInternal, Err: fmt.Errorf("cms: making %s: panic: %v", key, v)}
		}
		j.mu.Lock()
		j.forget(key, job)
		j.mu.Unlock()
		job.cancel()
		close(job.done)
	}()
	job.err = work(ctx)
}

// forget drops job from the jobs of key, if it is still the one there.
// The caller holds j.mu.
func (j *thumbnailJobs) forget(key string, job *thumbnailJob) {
	if j.jobs[key] == job {
		delete(j.jobs, key)
	}
}

// blobError is a failure of the blob store: the request may succeed
// later.
func blobError(err error) error {
	return &Error{Code: CodeUnavailable, Message: "Service unavailable", Err: err}
}

// purgeFiles removes bytes without a row that are older than
// Options.FileOrphanAge and, with Options.UnusedFileAge, the files no
// record uses.
func (s *Service) purgeFiles(ctx context.Context) error {
	if s.opts.Files == nil {
		return nil
	}
	if err := s.purgeOrphans(ctx); err != nil {
		return err
	}
	if s.opts.UnusedFileAge <= 0 {
		return nil
	}
	for {
		unused, err := s.store.UnusedFiles(ctx, s.Now().Add(-s.opts.UnusedFileAge), 500)
		if err != nil || len(unused) == 0 {
			return err
		}
		deleted := 0
		for _, f := range unused {
			switch err := s.deleteUnused(ctx, f.Account, f.ID); {
			case err == nil:
				deleted++
				s.removeBytes(ctx, f.ID)
			case ErrorCode(err) != CodeConflict && ErrorCode(err) != CodeNotFound:
				return err
			}
		}
		if deleted == 0 {
			return nil // every one was taken into use meanwhile
		}
	}
}

// purgeOrphans removes the bytes of ids that have no row and are older
// than Options.FileOrphanAge: an upload that stopped between writing its
// bytes and committing its row, or a delete whose bytes could not be
// removed. Ages are read by the wall clock, as the blob store dates its
// objects by it.
func (s *Service) purgeOrphans(ctx context.Context) error {
	old := time.Now().Add(-s.opts.FileOrphanAge)
	// Keys come in order, a file's together: ids are judged a thousand at
	// a time as the listing goes, so memory does not grow with the store.
	var ids []string
	oldOnly := map[string]bool{} // id -> every blob of it is old
	judge := func() error {
		found, err := s.store.ExistingFileIDs(ctx, ids)
		if err != nil {
			return err
		}
		for _, id := range ids {
			if oldOnly[id] && !slices.Contains(found, id) {
				s.removeBytes(ctx, id)
			}
		}
		ids, oldOnly = ids[:0], map[string]bool{}
		return nil
	}
	for obj, err := range s.blobs(ctx, filesPrefix) {
		if err != nil {
			return blobError(err)
		}
		id, _, _ := strings.Cut(strings.TrimPrefix(obj.Key, filesPrefix), "/")
		if !IsFileID(id) {
			continue
		}
		if _, ok := oldOnly[id]; !ok {
			if len(ids) == 1000 {
				if err := judge(); err != nil {
					return err
				}
			}
			ids = append(ids, id)
			oldOnly[id] = true
		}
		if obj.ModTime.After(old) {
			oldOnly[id] = false
		}
	}
	if len(ids) == 0 {
		return nil
	}
	return judge()
}
