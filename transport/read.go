package transport

import (
	"bufio"
	"net/http"
	"strconv"
	"strings"

	"github.com/bwcms/cms/cms"
)

// flushEvery is how many bytes of a streamed list are buffered before they
// go to the client.
const flushEvery = 32 << 10

func (h *Handler) read(w http.ResponseWriter, r *http.Request, rp *recordPath) {
	ctx := r.Context()
	codec, err := h.svc.Codec(ctx)
	if err != nil {
		h.writeError(w, r, err)
		return
	}
	proj, err := codec.NewProjection(rp.Kind, rp.Fields, rp.IgnoreFields, rp.ExcludeFiles)
	if err != nil {
		h.writeError(w, r, err)
		return
	}
	seq, err := h.svc.Read(ctx, rp.Kind, cms.ReadParams{IDs: rp.IDs, Published: rp.Published, MapID: rp.MapID,
		After: rp.After, Limit: rp.Limit, BBox: rp.BBox, UpdatedSince: rp.UpdatedSince, Search: rp.Search,
		// Whole records are answered from their stored bytes; a projection
		// decodes them.
		Documents: proj == nil && !h.decodeReads})
	if err != nil {
		h.writeError(w, r, err)
		return
	}
	if rp.IDs == nil {
		h.stream(w, r, codec, proj, seq, nil)
		return
	}
	// Named ids: 404 when none is found. The answer starts with the first
	// record found, so the status is still free until then.
	exportFail := &cms.Error{Code: cms.CodeNotFound, Message: "ERROR: Export fail"}
	if rp.Single {
		for e, err := range seq {
			if err != nil {
				h.writeError(w, r, err)
				return
			}
			h.writeOne(w, r, codec, proj, e)
			return
		}
		h.writeError(w, r, exportFail)
		return
	}
	h.stream(w, r, codec, proj, seq, exportFail)
}

// writeOne answers one record with its ETag; If-None-Match with it is 304.
func (h *Handler) writeOne(w http.ResponseWriter, r *http.Request, codec *cms.Codec, proj *cms.Projection, e *cms.Entry) {
	etag := cms.ETag(e, codec.Languages())
	w.Header().Set("ETag", etag)
	if inm := r.Header.Get("If-None-Match"); inm != "" && etagListHas(inm, etag) {
		w.WriteHeader(http.StatusNotModified)
		return
	}
	buf := h.answer()
	defer h.putAnswer(buf)
	out, err := h.svc.AppendEntry(*buf, codec, e, proj)
	if err != nil {
		w.Header().Del("ETag")
		h.writeError(w, r, err)
		return
	}
	*buf = append(out, '\n')
	writeRaw(w, http.StatusOK, *buf)
}

// maxPooledAnswer bounds the buffers kept for later answers: a rare
// answer of a thousand records is not held for ever.
const maxPooledAnswer = 1 << 20

// answer returns an empty buffer for an answer; putAnswer gives it back
// once written (a ResponseWriter keeps nothing it was given).
func (h *Handler) answer() *[]byte {
	if buf, ok := h.answers.Get().(*[]byte); ok {
		return buf
	}
	buf := make([]byte, 0, 8192)
	return &buf
}

func (h *Handler) putAnswer(buf *[]byte) {
	if cap(*buf) <= maxPooledAnswer {
		*buf = (*buf)[:0]
		h.answers.Put(buf)
	}
}

// stream writes a list as it comes from the store; none, when set, is the
// answer when the list is empty (else []). The status goes with the first
// flushEvery bytes, so a failure before them is answered with its own
// status (503 with Retry-After for an outage); a failure after them
// cannot change the status any more: the connection is cut, so the client
// never takes a partial list for a whole one.
func (h *Handler) stream(w http.ResponseWriter, r *http.Request, codec *cms.Codec, proj *cms.Projection, seq func(func(*cms.Entry, error) bool), none error) {
	var bw *bufio.Writer
	sw := &startWriter{w: w}
	buf := make([]byte, 0, 8192)
	n := 0
	for e, err := range seq {
		if err == nil {
			buf = buf[:0]
			if n > 0 {
				buf = append(buf, ',')
			}
			buf, err = h.svc.AppendEntry(buf, codec, e, proj)
		}
		if err != nil {
			if !sw.started {
				h.writeError(w, r, err) // what bw holds is dropped
				return
			}
			h.log.ErrorContext(r.Context(), "transport: list failed while streaming", "path", r.URL.EscapedPath(), "err", err)
			panic(http.ErrAbortHandler)
		}
		if bw == nil {
			bw = bufio.NewWriterSize(sw, flushEvery)
			bw.WriteByte('[')
		}
		n++
		if _, err := bw.Write(buf); err != nil {
			return // the client went away
		}
	}
	if bw == nil {
		if none != nil {
			h.writeError(w, r, none)
			return
		}
		writeRaw(w, http.StatusOK, []byte("[]\n"))
		return
	}
	bw.WriteString("]\n")
	bw.Flush()
}

// startWriter sends a 200 list answer's header with its first bytes.
type startWriter struct {
	w       http.ResponseWriter
	started bool
}

func (s *startWriter) Write(p []byte) (int, error) {
	if !s.started {
		s.started = true
		s.w.Header().Set("Content-Type", "application/json; charset=utf-8")
		s.w.WriteHeader(http.StatusOK)
	}
	return s.w.Write(p)
}

// writeRaw answers body whole, its length declared (net/http would send
// an answer over 2 KB in chunks).
func writeRaw(w http.ResponseWriter, status int, body []byte) {
	w.Header().Set("Content-Type", "application/json; charset=utf-8")
	w.Header().Set("Content-Length", strconv.Itoa(len(body)))
	w.WriteHeader(status)
	_, _ = w.Write(body)
}

func etagListHas(header, etag string) bool {
	for tag := range strings.SplitSeq(header, ",") {
		if tag = strings.TrimSpace(tag); tag == "*" || tag == etag || tag == "W/"+etag {
			return true
		}
	}
	return false
}
