package client

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"mime/multipart"
	"net/http"
	"sync"
	"time"
	"unicode"
)

// UploadFile uploads what r reads as one file named name (POST file,
// multipart/form-data), streaming it: the content is never held whole in
// memory. The server judges the type from the content alone; the name is
// kept as the file's name and gives its URL's slug. The same bytes
// uploaded before in the account store nothing: the File returned is the
// stored one, with Existing set.
//
// A file of no accepted type, or one that cannot be read, is an *Error
// 409 (ErrConflict) whose Fail says what was wrong; one over its type's
// size limit an *Error 413 (ErrTooLarge). A refused upload stores nothing.
//
// Like every call, an upload refused for its access token (401, 403) is
// refreshed once and sent again, which needs r's content again: when r is
// an io.Seeker (a file, a bytes.Reader) it is sought back to where it
// was. Another reader can be sent again only when the refusal came before
// any of it went, which an HTTP client that waits for 100 Continue
// ensures (http.DefaultTransport waits up to a second; an http.Transport
// with ExpectContinueTimeout above 0). Otherwise the client refreshes an
// access token about to expire before it starts, and a refusal after r
// was read is the call's error, the session refreshed so that uploading
// again works.
//
// UploadFile returns once it has stopped reading r, unless ctx ends
// first; it does not close r.
func (c *Client) UploadFile(ctx context.Context, name string, r io.Reader) (*File, error) {
	if r == nil {
		return nil, errNoReader
	}
	if err := checkFileName(name); err != nil {
		return nil, err
	}
	seeker, _ := r.(io.Seeker)
	var start int64
	if seeker != nil {
		var err error
		if start, err = seeker.Seek(0, io.SeekCurrent); err != nil {
			seeker = nil // a pipe or terminal: not seekable after all
		}
	}
	s, gen, err := c.current()
	if err != nil {
		return nil, err
	}
	if seeker == nil && time.Until(s.expires) < refreshAhead {
		if err := c.refresh(ctx, gen); err != nil {
			return nil, err
		}
		if s, gen, err = c.current(); err != nil {
			return nil, err
		}
	}
	res, started, err := c.sendUpload(ctx, name, r, s.access)
	if err != nil {
		return nil, err
	}
	if res.StatusCode == http.StatusUnauthorized || res.StatusCode == http.StatusForbidden {
		refusal := failure(res)
		again := !started
		if started && seeker != nil {
			_, err := seeker.Seek(start, io.SeekStart)
			again = err == nil
		}
		if err := c.refresh(ctx, gen); err != nil {
			return nil, err
		}
		if !again {
			return nil, fmt.Errorf("client: upload of %q: %w (the content was read and cannot be sent again; the session is refreshed: upload again)", name, refusal)
		}
		if s, _, err = c.current(); err != nil {
			return nil, err
		}
		if res, _, err = c.sendUpload(ctx, name, r, s.access); err != nil {
			return nil, err
		}
	}
	return c.uploaded(res)
}

// refreshAhead is how long before its expiry UploadFile refreshes an
// access token when it cannot send its content twice.
const refreshAhead = time.Minute

// sendUpload sends one upload of r with token and returns the answer
// once it has stopped reading r; started tells whether it read from r at
// all. An answer other than a success stops the rest of the content.
func (c *Client) sendUpload(ctx context.Context, name string, r io.Reader, token string) (res *http.Response, started bool, err error) {
	body := newUploadBody(name, r)
	req := &request{method: http.MethodPost, path: "file", stream: body, contentType: body.mw.FormDataContentType()}
	if waitsForContinue(c.http) {
		// The content then goes only once the server has accepted the
		// token: a refusal leaves r unread, and the upload can be resent.
		// (A client that would not wait gains nothing from Expect, and the
		// server would close the connection after a refusal.)
		req.header = http.Header{"Expect": {"100-continue"}}
	}
	res, err = c.send(ctx, req, token)
	success := err == nil && (res.StatusCode == http.StatusOK || res.StatusCode == http.StatusCreated)
	started, readErr, ok := body.finish(ctx, !success)
	if !ok {
		if err == nil {
			res.Body.Close()
		}
		return nil, started, fmt.Errorf("client: upload of %q: %w", name, ctx.Err())
	}
	if readErr != nil {
		if err == nil {
			res.Body.Close()
		}
		return nil, started, fmt.Errorf("client: upload of %q: reading the content: %w", name, readErr)
	}
	if err != nil {
		return nil, started, err
	}
	return res, started, nil
}

// waitsForContinue reports whether hc holds back a request's content
// until the server answers 100 Continue (http.DefaultTransport does, for
// up to a second).
func waitsForContinue(hc *http.Client) bool {
	rt := hc.Transport
	if rt == nil {
		rt = http.DefaultTransport
	}
	t, ok := rt.(*http.Transport)
	return ok && t.ExpectContinueTimeout > 0
}

// uploaded reads the answer of an upload.
func (c *Client) uploaded(res *http.Response) (*File, error) {
	existing := res.StatusCode == http.StatusOK
	if !existing && res.StatusCode != http.StatusCreated {
		return nil, failure(res)
	}
	defer res.Body.Close()
	var w wireFile
	if err := json.NewDecoder(io.LimitReader(res.Body, maxErrorBody)).Decode(&w); err != nil {
		return nil, fmt.Errorf("client: reading the answer: %w", err)
	}
	f, err := c.file(w)
	if err != nil {
		return nil, err
	}
	f.Existing = existing
	return f, nil
}

// checkFileName refuses a name that a multipart header would mangle.
func checkFileName(name string) error {
	for _, r := range name {
		if unicode.IsControl(r) {
			return fmt.Errorf("client: the file name %q holds a control character", name)
		}
	}
	return nil
}

// errUploadStopped ends the content of an upload whose answer has come.
var errUploadStopped = errors.New("client: upload answered")

// uploadBody is the multipart body of one upload: a pipe that a
// goroutine fills from the reader, started by the first Read, so a
// request that never sends its body never touches the reader.
type uploadBody struct {
	name   string
	src    io.Reader
	mw     *multipart.Writer
	pr     *io.PipeReader
	pw     *io.PipeWriter
	once   sync.Once
	run    bool          // the goroutine started; set under once
	done   chan struct{} // closed when the goroutine ended, or at once when it never started
	srcErr error         // a read error of src, set before done closes
}

func newUploadBody(name string, src io.Reader) *uploadBody {
	pr, pw := io.Pipe()
	return &uploadBody{name: name, src: src, mw: multipart.NewWriter(pw), pr: pr, pw: pw, done: make(chan struct{})}
}

func (b *uploadBody) Read(p []byte) (int, error) {
	b.once.Do(func() {
		b.run = true
		go b.write()
	})
	return b.pr.Read(p)
}

// Close is the HTTP client's: the content is no longer wanted.
func (b *uploadBody) Close() error {
	b.pr.CloseWithError(errUploadStopped)
	return nil
}

// write copies src into the pipe as the part "file".
func (b *uploadBody) write() {
	defer close(b.done)
	part, err := b.mw.CreateFormFile("file", b.name)
	if err == nil {
		// Only Read, so that an error of src is told from one of the pipe.
		_, err = io.Copy(part, sourceReader{b})
	}
	if err == nil {
		err = b.mw.Close()
	}
	b.pw.CloseWithError(err)
}

// sourceReader reads src, keeping its error.
type sourceReader struct{ b *uploadBody }

func (s sourceReader) Read(p []byte) (int, error) {
	n, err := s.b.src.Read(p)
	if err != nil && err != io.EOF {
		s.b.srcErr = err
	}
	return n, err
}

// finish waits until the goroutine no longer reads src (stop: ending the
// pipe first) and tells whether it started and src's read error; ok is
// false when ctx ended first.
func (b *uploadBody) finish(ctx context.Context, stop bool) (started bool, srcErr error, ok bool) {
	b.once.Do(func() { close(b.done) })
	if stop {
		b.pr.CloseWithError(errUploadStopped)
	}
	select {
	case <-b.done:
	case <-ctx.Done():
		select {
		case <-b.done: // ended meanwhile: that wins
		default:
			return b.run, nil, false
		}
	}
	return b.run, b.srcErr, true
}
