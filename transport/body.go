package transport

import (
	"errors"
	"fmt"
	"io"
	"net/http"
	"os"
	"time"

	"github.com/bwcms/cms/cms"
)

// overLimitGrace is how long the server may still read a body declared
// over its limit, to discard what an eager client sent.
const overLimitGrace = time.Second

// errSlowBody marks a body that did not arrive at the minimum rate: the
// answer is 408 and the connection is closed.
var errSlowBody = errors.New("request body arrives too slowly")

// limitBody refuses a body whose declared length is over limit before
// reading any of it (so an Expect: 100-continue client is never asked to
// send it), and caps what is read of any other body at limit.
func limitBody(w http.ResponseWriter, r *http.Request, limit int64) error {
	if r.ContentLength > limit {
		// None of it is read here. Before answering, net/http discards a
		// body of up to 256 KiB that a client sent without waiting (else
		// closing on unread data would reset the connection and lose the
		// 413); it gets a moment for that, not the body's whole timeout,
		// so a client that sends nothing has its 413 at once.
		_ = http.NewResponseController(w).SetReadDeadline(time.Now().Add(overLimitGrace))
		return &cms.Error{Code: cms.CodeTooLarge, Err: fmt.Errorf("declared Content-Length %d over %d", r.ContentLength, limit)}
	}
	// The server's own writer, so that a body cut at the limit makes it
	// close the connection gently (the client reads the 413 first).
	for {
		u, ok := w.(interface{ Unwrap() http.ResponseWriter })
		if !ok {
			break
		}
		w = u.Unwrap()
	}
	r.Body = http.MaxBytesReader(w, r.Body, limit)
	return nil
}

// readFailure classifies the failures to read a body that say nothing of
// its content: over the limit (CodeTooLarge) or too slow (errSlowBody).
// nil for any other error.
func readFailure(err error) error {
	if _, ok := errors.AsType[*http.MaxBytesError](err); ok {
		return &cms.Error{Code: cms.CodeTooLarge, Err: err}
	}
	if errors.Is(err, errSlowBody) {
		return err
	}
	return nil
}

// progressBody reads a request body under a read deadline that moves on
// each time another chunk of the body has arrived: a large body sent at
// a steady rate passes, however long it takes in all, while a trickle is
// cut after one timeout. It replaces http.Server.ReadTimeout for the
// body.
type progressBody struct {
	io.ReadCloser
	rc      *http.ResponseController
	timeout time.Duration
	chunk   int64
	// got is what arrived since the deadline last moved.
	got     int64
	started bool
	done    bool
}

// newProgressBody sets the first deadline at once, so a body the handler
// never reads is bounded too while the server discards it; it returns
// nil when the connection takes no deadlines (a recorder, or a writer
// wrapped without Unwrap).
func newProgressBody(rc *http.ResponseController, body io.ReadCloser, timeout time.Duration, chunk int64) *progressBody {
	if rc.SetReadDeadline(time.Now().Add(timeout)) != nil {
		return nil
	}
	return &progressBody{ReadCloser: body, rc: rc, timeout: timeout, chunk: chunk}
}

func (b *progressBody) Read(p []byte) (int, error) {
	if b.done {
		return b.ReadCloser.Read(p)
	}
	if !b.started {
		// The window starts when the handler starts reading, so work
		// done before (authentication) does not eat it.
		b.started = true
		b.extend()
	}
	n, err := b.ReadCloser.Read(p)
	b.got += int64(n)
	switch {
	case err == io.EOF:
		// Once the body is in, nothing more is due from the client
		// (the server lifts the deadline too, as it starts watching
		// for the connection to close).
		b.done = true
		_ = b.rc.SetReadDeadline(time.Time{})
	case errors.Is(err, os.ErrDeadlineExceeded):
		return n, fmt.Errorf("%w: fewer than %d bytes in %v: %w", errSlowBody, b.chunk, b.timeout, err)
	case b.got >= b.chunk:
		b.extend()
	}
	return n, err
}

func (b *progressBody) extend() {
	b.got = 0
	_ = b.rc.SetReadDeadline(time.Now().Add(b.timeout))
}

// deadlineWriter gives each write of an answer WriteTimeout to go out,
// so a client that stops reading a long streamed list is cut instead of
// holding the handler for ever, and a slow reader that keeps taking
// chunks is served.
type deadlineWriter struct {
	http.ResponseWriter
	rc      *http.ResponseController
	timeout time.Duration
}

func (w *deadlineWriter) Write(p []byte) (int, error) {
	_ = w.rc.SetWriteDeadline(time.Now().Add(w.timeout))
	return w.ResponseWriter.Write(p)
}

// Unwrap lets http.ResponseController reach the connection.
func (w *deadlineWriter) Unwrap() http.ResponseWriter { return w.ResponseWriter }

// withDeadlines wraps the body and the writer of a request in the
// deadlines the options set; a connection that takes no deadlines is
// served without them.
func (h *Handler) withDeadlines(w http.ResponseWriter, r *http.Request) (http.ResponseWriter, *http.Request, func()) {
	rc := http.NewResponseController(w)
	if h.bodyTimeout > 0 && r.Body != nil && r.Body != http.NoBody {
		if b := newProgressBody(rc, r.Body, h.bodyTimeout, h.bodyChunk); b != nil {
			// A copy: the server keeps judging the original body
			// (Expect: 100-continue, what is left unread).
			r = r.WithContext(r.Context())
			r.Body = b
		}
	}
	if h.writeTimeout <= 0 || rc.SetWriteDeadline(time.Now().Add(h.writeTimeout)) != nil {
		return w, r, func() {}
	}
	// What is still buffered goes out after the handler returns, under
	// the deadline set last.
	return &deadlineWriter{ResponseWriter: w, rc: rc, timeout: h.writeTimeout}, r,
		func() { _ = rc.SetWriteDeadline(time.Now().Add(h.writeTimeout)) }
}
