package cms

import (
	"context"
	"crypto/sha256"
	"encoding/base32"
	"encoding/hex"
	"errors"
	"fmt"
	"io"
	"os"
	"strings"
	"unicode"
	"unicode/utf8"

	"gocloud.dev/blob"

	"github.com/bwcms/cms/cms/media"
	"github.com/bwcms/cms/cms/track"
)

// MaxUpload is the most bytes an upload may hold: the largest accepted
// type's limit (an image's 20 MiB). Each type has its own, lower or equal.
const MaxUpload = 20 << 20

// maxNameLength bounds File.Name (in characters).
const maxNameLength = 255

// UploadFile stores one uploaded file of the caller's account: its type
// judged from the content, an image's dimensions, a track measured. The
// same bytes uploaded again answer the file already stored (existing
// true) and store nothing. Errors: CodeUnauthorized; CodeForbidden without
// file:write; CodeMalformed for an empty file; CodeConflict (a text saying
// what was wrong) for a file of no accepted type or one that cannot be
// read; CodeTooLarge over its type's limit (or MaxUpload); CodeConflict
// when the service keeps no files (Options.Files unset). A refusal stores
// nothing. The bytes are written to the blob store before the file's row
// commits, so a file listed always has its bytes.
func (s *Service) UploadFile(ctx context.Context, up Upload) (f *File, existing bool, err error) {
	p, err := s.fileCaller(ctx, ActionWrite)
	if err != nil {
		return nil, false, err
	}
	if s.opts.Files == nil {
		return nil, false, errNoFiles()
	}
	// The body is kept in a temporary file, not in memory: it is read
	// more than once (digest, type, track) and may be 20 MiB.
	tmp, err := os.CreateTemp("", "bwcms-upload-*")
	if err != nil {
		return nil, false, &Error{Code: CodeInternal, Err: err}
	}
	defer func() {
		tmp.Close()
		os.Remove(tmp.Name())
	}()
	digest := sha256.New()
	size, err := io.Copy(io.MultiWriter(tmp, digest), io.LimitReader(up.Body, MaxUpload+1))
	switch {
	case err != nil:
		return nil, false, &Error{Code: CodeMalformed, Message: "Wrong request", Err: fmt.Errorf("cms: reading an upload: %w", err)}
	case size > MaxUpload:
		return nil, false, s.refuseUpload(errTooLarge(errors.New("upload over MaxUpload")))
	case size == 0:
		return nil, false, malformed(errors.New("cms: an empty upload"))
	}
	sum := hex.EncodeToString(digest.Sum(nil))
	if f, err := s.store.FileBySHA256(ctx, p.Account, sum); err == nil {
		s.fileObserver().FileUploaded(*f, true)
		return f, true, nil
	} else if ErrorCode(err) != CodeNotFound {
		return nil, false, err
	}
	f = &File{Account: p.Account, Name: uploadName(up.Name), Size: size, SHA256: sum}
	if f.ID, err = s.newFileID(); err != nil {
		return nil, false, err
	}
	line, err := s.judge(ctx, tmp, f)
	if err != nil {
		return nil, false, s.refuseUpload(err)
	}
	if err := s.writeBytes(ctx, f, tmp, line); err != nil {
		s.removeBytes(context.WithoutCancel(ctx), f.ID)
		return nil, false, err
	}
	f.Created = s.Now()
	if err := s.store.CreateFile(ctx, *f); err != nil {
		if ErrorCode(err) != CodeConflict {
			// The row may have committed with its answer lost (a dropped
			// connection): its bytes stay; the purge removes them if no row
			// came of it.
			return nil, false, err
		}
		s.removeBytes(context.WithoutCancel(ctx), f.ID)
		// The same bytes, uploaded at the same time, committed first.
		won, err := s.store.FileBySHA256(ctx, p.Account, sum)
		if err != nil {
			return nil, false, err
		}
		s.fileObserver().FileUploaded(*won, true)
		return won, true, nil
	}
	s.fileObserver().FileUploaded(*f, false)
	return f, false, nil
}

// judge reads what the spooled upload is (f.Type, an image's size, a
// track's figures), a bounded number at once, and returns the track to
// write as a line (nil for none).
func (s *Service) judge(ctx context.Context, body *os.File, f *File) (*track.Track, error) {
	select {
	case s.decodes <- struct{}{}:
		defer func() { <-s.decodes }()
	case <-ctx.Done():
		return nil, &Error{Code: CodeUnavailable, Message: "Service unavailable", Err: ctx.Err()}
	}
	info, err := media.Detect(body, f.Size, media.Limits{})
	if err != nil {
		return nil, judgeError(err)
	}
	f.Type, f.Width, f.Height = info.Type, info.Width, info.Height
	var t *track.Track
	switch info.Type {
	case media.JPEG, media.PNG, media.WebP:
		// The header read well; the pixels must too, or every thumbnail
		// of the image would fail later.
		if err := media.Verify(io.NewSectionReader(body, 0, f.Size), info.Type, media.Limits{}); err != nil {
			return nil, judgeError(err)
		}
		return nil, nil
	case media.GPX:
		t, err = track.ParseGPX(io.NewSectionReader(body, 0, f.Size), track.Limits{})
	case media.KML:
		t, err = track.ParseKML(io.NewSectionReader(body, 0, f.Size), track.Limits{})
	default:
		return nil, nil
	}
	if errors.Is(err, track.ErrNoLine) {
		// A file of its type all the same: a map layer of placemarks, a
		// GPX of waypoints. It holds no track.
		return nil, nil
	}
	if err != nil {
		return nil, judgeError(err)
	}
	sum := track.Measure(t)
	f.Track = &sum
	return t, nil
}

// judgeError is the refusal of a file the media or track reader did not
// accept: over a limit (413), or a text saying what is wrong (409).
func judgeError(err error) error {
	var mf *media.FormatError
	var tf *track.FormatError
	switch {
	case errors.Is(err, media.ErrTooLarge), errors.Is(err, track.ErrTooLarge):
		return errTooLarge(err)
	case errors.As(err, &mf):
		return &Error{Code: CodeConflict, Message: sentence(mf.Msg), Err: err}
	case errors.As(err, &tf):
		return &Error{Code: CodeConflict, Message: sentence(tf.Msg), Err: err}
	}
	return &Error{Code: CodeConflict, Message: "The file cannot be read", Err: err}
}

// sentence starts a reader's text with a capital letter.
func sentence(msg string) string {
	r, n := utf8.DecodeRuneInString(msg)
	return string(unicode.ToUpper(r)) + msg[n:]
}

func errTooLarge(cause error) error {
	return &Error{Code: CodeTooLarge, Message: "Request too large", Err: cause}
}

// refuseUpload tells the observer of a refused upload and returns err.
func (s *Service) refuseUpload(err error) error {
	if c := ErrorCode(err); c == CodeConflict || c == CodeTooLarge {
		s.fileObserver().UploadRefused(c)
	}
	return err
}

// writeBytes writes the original and a track's line to the blob store.
func (s *Service) writeBytes(ctx context.Context, f *File, body *os.File, line *track.Track) error {
	if _, err := body.Seek(0, io.SeekStart); err != nil {
		return &Error{Code: CodeInternal, Err: err}
	}
	if err := s.writeBlob(ctx, originalKey(f.ID), f.Type, func(w io.Writer) error {
		_, err := io.Copy(w, body)
		return err
	}); err != nil {
		return err
	}
	if line == nil {
		return nil
	}
	return s.writeBlob(ctx, trackKey(f.ID), GeoJSONType, func(w io.Writer) error {
		return track.GeoJSON(w, line, *f.Track)
	})
}

// writeBlob writes key through fill; the blob exists only when every
// byte was written (a failed write is aborted).
func (s *Service) writeBlob(ctx context.Context, key, typ string, fill func(io.Writer) error) error {
	wctx, cancel := context.WithCancel(ctx)
	defer cancel()
	w, err := s.opts.Files.NewWriter(wctx, key, &blob.WriterOptions{ContentType: typ})
	if err != nil {
		return blobError(err)
	}
	if err := fill(w); err != nil {
		cancel() // aborts the write: nothing is stored
		w.Close()
		return blobError(err)
	}
	if err := w.Close(); err != nil {
		return blobError(err)
	}
	return nil
}

// newFileID returns FileIDLength random characters of lowercase base32.
func (s *Service) newFileID() (string, error) {
	b := make([]byte, 17)
	if _, err := io.ReadFull(s.opts.Rand, b); err != nil {
		return "", &Error{Code: CodeInternal, Err: err}
	}
	id := strings.ToLower(base32.StdEncoding.WithPadding(base32.NoPadding).EncodeToString(b))
	return id[:FileIDLength], nil
}

// uploadName is the name kept for an upload: its last path element (a
// browser may send a whole path), without control characters, at most
// maxNameLength characters, without control characters and bidirectional
// overrides; "file" when nothing is left.
func uploadName(name string) string {
	if i := strings.LastIndexAny(name, `/\`); i >= 0 {
		name = name[i+1:]
	}
	name = strings.Map(func(r rune) rune {
		// Controls, and the bidirectional overrides and isolates that
		// would show a name reversed ("gpj.exe") in a page.
		if unicode.IsControl(r) || r == utf8.RuneError || r >= 0x202A && r <= 0x202E || r >= 0x2066 && r <= 0x2069 {
			return -1
		}
		return r
	}, strings.ToValidUTF8(name, ""))
	name = strings.TrimSpace(name)
	if utf8.RuneCountInString(name) > maxNameLength {
		name = string([]rune(name)[:maxNameLength])
	}
	if name == "" {
		return "file"
	}
	return name
}

// fileObserver is the Observer's FileObserver, or one that hears nothing.
func (s *Service) fileObserver() FileObserver {
	if o, ok := s.opts.Observer.(FileObserver); ok {
		return o
	}
	return noFileObserver{}
}

type noFileObserver struct{}

func (noFileObserver) FileUploaded(File, bool) {}
func (noFileObserver) UploadRefused(Code)      {}
