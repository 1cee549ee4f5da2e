package client

import (
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/http"
	"strconv"
	"strings"
	"time"

	"github.com/bwcms/cms/cms"
)

// ErrLoginRequired is matched (errors.Is) by the error of a call made
// without a session (before Login, after Logout) and of a refresh the
// server refused: the session is over and a new Login is needed.
var ErrLoginRequired = errors.New("client: a new login is needed")

// ErrNotModified is the error of Get with IfNoneMatch when the record
// still has that ETag (304): the copy the caller holds is current.
var ErrNotModified = errors.New("client: not modified")

// ErrBatchFailed is matched by the error of WaitBatch and RunBatch when the
// batch ended with status error; the Batch returned beside it carries the
// reason.
var ErrBatchFailed = errors.New("client: batch failed")

// Errors that an *Error matches by its status (errors.Is(err,
// client.ErrNotFound)): 401, 403, 404, 409, 412, 413, 429 and 503, and
// 410 (ErrCursorExpired, the changes feed's only 410).
var (
	ErrUnauthorized       = errors.New("client: unauthorized")
	ErrForbidden          = errors.New("client: forbidden")
	ErrNotFound           = errors.New("client: not found")
	ErrConflict           = errors.New("client: conflict")
	ErrPreconditionFailed = errors.New("client: precondition failed")
	ErrTooLarge           = errors.New("client: request too large")
	ErrTooManyRequests    = errors.New("client: too many requests")
	ErrUnavailable        = errors.New("client: service unavailable")
)

var statusErrors = map[int]error{
	http.StatusUnauthorized:          ErrUnauthorized,
	http.StatusForbidden:             ErrForbidden,
	http.StatusNotFound:              ErrNotFound,
	http.StatusGone:                  ErrCursorExpired,
	http.StatusConflict:              ErrConflict,
	http.StatusPreconditionFailed:    ErrPreconditionFailed,
	http.StatusRequestEntityTooLarge: ErrTooLarge,
	http.StatusTooManyRequests:       ErrTooManyRequests,
	http.StatusServiceUnavailable:    ErrUnavailable,
}

// Error is an answer of the API that is not a success.
type Error struct {
	// Status is the HTTP status.
	Status int
	// Fail is the answer's fail text ({"fail": ...}), or for a refused
	// refresh its error_description; for a 409 of problems, every problem,
	// one per line.
	Fail string
	// Problems are the broken rules of a 409 whose text lists them
	// ("Resource lake-walk: locationZoom: must be ..."), one per line of
	// Fail; nil for any other answer.
	Problems []cms.Problem
	// Failed are the ids a delete did not delete (a 409 when none was
	// deleted).
	Failed []string
	// RetryAfter is the answer's Retry-After (429, 503); 0 without one.
	RetryAfter time.Duration
}

func (e *Error) Error() string {
	text := e.Fail
	if text == "" {
		text = http.StatusText(e.Status)
	}
	return "client: " + strconv.Itoa(e.Status) + " " + text
}

// Is matches the status errors (ErrNotFound, ...) of e.Status.
func (e *Error) Is(target error) bool {
	return statusErrors[e.Status] == target && target != nil
}

// maxErrorBody bounds how much of an error answer is read.
const maxErrorBody = 1 << 20

// failure reads a failed answer (and closes its body) into an *Error.
func failure(res *http.Response) *Error {
	defer res.Body.Close()
	e := &Error{Status: res.StatusCode}
	if s := res.Header.Get("Retry-After"); s != "" {
		if n, err := strconv.Atoi(s); err == nil && n >= 0 {
			e.RetryAfter = time.Duration(n) * time.Second
		}
	}
	raw, _ := io.ReadAll(io.LimitReader(res.Body, maxErrorBody))
	var body struct {
		Fail        string   `json:"fail"`
		Failed      []string `json:"failed"`
		Error       string   `json:"error"`
		Description string   `json:"error_description"`
	}
	if json.Unmarshal(raw, &body) == nil {
		e.Fail, e.Failed = body.Fail, body.Failed
		if e.Fail == "" {
			e.Fail = body.Description
		}
	}
	if e.Status == http.StatusConflict {
		e.Problems = parseProblems(e.Fail)
	}
	return e
}

// parseProblems reads a problem list, "<Kind> <id>: <field>: <text>" a
// line; nil unless every line has that shape.
func parseProblems(text string) []cms.Problem {
	if text == "" {
		return nil
	}
	lines := strings.Split(text, "\n")
	problems := make([]cms.Problem, 0, len(lines))
	for _, line := range lines {
		record, rest, ok1 := strings.Cut(line, ": ")
		field, what, ok2 := strings.Cut(rest, ": ")
		title, id, ok3 := strings.Cut(record, " ")
		kind, err := cms.ParseKind(strings.ToLower(title))
		if !ok1 || !ok2 || !ok3 || err != nil || kind.Title() != title || field == "" {
			return nil
		}
		problems = append(problems, cms.Problem{Kind: kind, ID: id, Field: field, Text: what})
	}
	return problems
}

// loginRequired is the error of a call that cannot be authenticated any
// more; cause (an *Error or nil) says why.
func loginRequired(why string, cause error) error {
	if cause == nil {
		return fmt.Errorf("%w (%s)", ErrLoginRequired, why)
	}
	return fmt.Errorf("%w (%s): %w", ErrLoginRequired, why, cause)
}
