package transport

import (
	"bytes"
	"encoding/json"
	"errors"
	"log/slog"
	"math"
	"net/http"
	"strconv"

	"github.com/bwcms/cms/cms"
)

// failure is the HTTP form of one error code.
type failure struct {
	status int
	// text is the fail text; the error's own Message replaces it where
	// useText is set (texts that name kinds and ids, made by cms).
	text    string
	useText bool
}

// failureOf is the one table from library error codes to statuses and
// bodies, which every refusal goes through. ok is false for a code without a
// row; a test checks that every code has one.
func failureOf(code cms.Code) (f failure, ok bool) {
	switch code {
	case cms.CodeMalformed:
		return failure{http.StatusBadRequest, "Wrong request", false}, true
	case cms.CodeInvalid:
		return failure{http.StatusConflict, "Invalid request", true}, true
	case cms.CodeNotFound:
		return failure{http.StatusNotFound, "Not found", true}, true
	case cms.CodeConflict:
		return failure{http.StatusConflict, "Conflict", true}, true
	case cms.CodeTooLarge:
		return failure{http.StatusRequestEntityTooLarge, "Request too large", false}, true
	case cms.CodeUnauthorized:
		return failure{http.StatusUnauthorized, "Unauthorized", false}, true
	case cms.CodeForbidden:
		return failure{http.StatusForbidden, "Forbidden", false}, true
	case cms.CodePrecondition:
		return failure{http.StatusPreconditionFailed, "Precondition failed", false}, true
	case cms.CodeTooMany:
		return failure{http.StatusTooManyRequests, "Too many attempts", false}, true
	case cms.CodeGone:
		return failure{http.StatusGone, "Gone", true}, true
	case cms.CodeUnavailable:
		return failure{http.StatusServiceUnavailable, "Service unavailable", false}, true
	case cms.CodeInternal:
		return failure{http.StatusInternalServerError, "Internal error", false}, true
	}
	return failure{}, false
}

// The fail texts transport writes itself, outside any operation.
const (
	textNotFound         = "Not found"
	textMethodNotAllowed = "Method not allowed"
	textRequestTimeout   = "Request timeout"
)

// unavailableRetryAfter is the Retry-After, in seconds, of a 503 when the
// store cannot be reached.
const unavailableRetryAfter = 5

const realm = `Bearer realm="api/bw/v2"`

// failBody is every error body: {"fail": text}, plus the ids not deleted
// of a delete that deleted none.
type failBody struct {
	Fail   string   `json:"fail" jsonschema_description:"what went wrong; a 409 of a body lists every problem, one per line"`
	Failed []string `json:"failed,omitempty" jsonschema_description:"the ids not deleted, of a delete that deleted none (409)"`
}

// writeError answers err through the table. Anything without a code is a
// 500, logged with its cause and never shown.
func (h *Handler) writeError(w http.ResponseWriter, r *http.Request, err error) {
	if errors.Is(err, errSlowBody) {
		h.log.DebugContext(r.Context(), "transport: request failed", "method", r.Method, "path", r.URL.EscapedPath(),
			"status", http.StatusRequestTimeout, "err", err)
		w.Header().Set("Connection", "close")
		writeFail(w, http.StatusRequestTimeout, textRequestTimeout)
		return
	}
	e, ok := errors.AsType[*cms.Error](err)
	if !ok {
		e = &cms.Error{Code: cms.CodeInternal, Err: err}
	}
	f, ok := failureOf(e.Code)
	if !ok {
		f, _ = failureOf(cms.CodeInternal)
	}
	text := f.text
	if f.useText {
		switch {
		case len(e.Problems) > 0:
			text = e.ProblemText()
		case e.Message != "":
			text = e.Message
		}
	}
	level := slog.LevelDebug
	if f.status >= 500 {
		level = slog.LevelError
	}
	h.log.Log(r.Context(), level, "transport: request failed", "method", r.Method, "path", r.URL.EscapedPath(),
		"status", f.status, "err", err)
	switch f.status {
	case http.StatusUnauthorized:
		challenge := realm
		if bearerToken(r) != "" {
			challenge += `, error="invalid_token"`
		}
		w.Header().Set("WWW-Authenticate", challenge)
	case http.StatusForbidden:
		w.Header().Set("WWW-Authenticate", realm+`, error="insufficient_scope"`)
	case http.StatusTooManyRequests:
		if wait, ok := cms.IsThrottled(err); ok {
			w.Header().Set("Retry-After", strconv.Itoa(int(math.Ceil(wait.Seconds()))))
		}
	case http.StatusRequestEntityTooLarge:
		// The rest of the body is not read: a new connection costs less
		// than draining it, and the client may never send it.
		w.Header().Set("Connection", "close")
	case http.StatusServiceUnavailable:
		// A writer that kept meeting others may try again at once; a
		// store out of reach is given a few seconds.
		retry := unavailableRetryAfter
		if cms.IsRace(err) {
			retry = 1
		}
		w.Header().Set("Retry-After", strconv.Itoa(retry))
	}
	body := failBody{Fail: text}
	if nd, ok := errors.AsType[*cms.NotDoneError](err); ok {
		body.Failed = nd.Failed
	}
	writeJSON(w, f.status, body)
}

// writeFail answers a status transport decides itself (routing).
func writeFail(w http.ResponseWriter, status int, text string) {
	writeJSON(w, status, failBody{Fail: text})
}

// writeJSON writes v as the JSON body, without HTML escaping (texts carry
// record ids and problem lines as they are).
func writeJSON(w http.ResponseWriter, status int, v any) {
	var buf bytes.Buffer
	enc := json.NewEncoder(&buf)
	enc.SetEscapeHTML(false)
	if err := enc.Encode(v); err != nil {
		status, buf = http.StatusInternalServerError, *bytes.NewBufferString(`{"fail":"Internal error"}` + "\n")
	}
	w.Header().Set("Content-Type", "application/json; charset=utf-8")
	w.Header().Set("Content-Length", strconv.Itoa(buf.Len()))
	w.WriteHeader(status)
	_, _ = w.Write(buf.Bytes())
}
