package cms

import (
	"errors"
	"strings"
)

// Code classifies a library error; transport maps each code to one HTTP
// status and body, in one table.
type Code string

// The error codes.
const (
	// CodeMalformed: the request cannot be read at all (not JSON, duplicate
	// keys, invalid UTF-8, too deep, a bad path option). HTTP 400.
	CodeMalformed Code = "malformed"
	// CodeInvalid: the request reads but its contents break the rules;
	// Problems lists every problem. HTTP 409.
	CodeInvalid Code = "invalid"
	// CodeNotFound: the named record does not exist for the caller. HTTP 404.
	CodeNotFound Code = "not_found"
	// CodeConflict: the operation cannot be done in the current state
	// (a referenced record, a clone name that cannot be made). HTTP 409.
	CodeConflict Code = "conflict"
	// CodeTooLarge: the body or a list is over its limit. HTTP 413.
	CodeTooLarge Code = "too_large"
	// CodeUnauthorized: no valid credentials. HTTP 401.
	CodeUnauthorized Code = "unauthorized"
	// CodeForbidden: valid credentials without the permission. HTTP 403.
	CodeForbidden Code = "forbidden"
	// CodePrecondition: If-Match no longer matches. HTTP 412.
	CodePrecondition Code = "precondition"
	// CodeTooMany: throttled. HTTP 429.
	CodeTooMany Code = "too_many"
	// CodeGone: what the request names is no longer kept (a changes
	// cursor older than the history kept). HTTP 410.
	CodeGone Code = "gone"
	// CodeUnavailable: the store cannot be reached (connection refused or
	// lost, the database shutting down, no connection free in time), or a
	// write kept meeting concurrent writers past its retries; the same
	// request may succeed later. HTTP 503 with Retry-After.
	CodeUnavailable Code = "unavailable"
	// CodeInternal: anything else; never shown in detail. HTTP 500.
	CodeInternal Code = "internal"
)

// Codes lists every code, so the HTTP layer can prove each has a row.
func Codes() []Code {
	return []Code{CodeMalformed, CodeInvalid, CodeNotFound, CodeConflict, CodeTooLarge,
		CodeUnauthorized, CodeForbidden, CodePrecondition, CodeTooMany, CodeGone, CodeUnavailable, CodeInternal}
}

// Error is the library's error: a stable Code for programs, a Message safe
// to show, the Problems of an invalid body, and the Err cause for operators
// (logged, never sent). Each call returns an *Error of its own, which the
// caller may change.
type Error struct {
	// Code classifies the error; ErrorCode reads it from a chain.
	Code Code
	// Message is safe to show a client; the HTTP layer sends it.
	Message string
	// Problems are the broken rules of a CodeInvalid refusal, every one.
	Problems []Problem
	// Err is the cause, for logs; never sent.
	Err error
}

// Error is "cms: <code>" and the message, the problems and the cause that
// are set, for logs: the HTTP layer sends only Message and Problems.
func (e *Error) Error() string {
	var b strings.Builder
	b.WriteString("cms: ")
	b.WriteString(string(e.Code))
	if e.Message != "" {
		b.WriteString(": ")
		b.WriteString(e.Message)
	}
	if len(e.Problems) > 0 {
		b.WriteString(": ")
		b.WriteString(e.ProblemText())
	}
	if e.Err != nil {
		b.WriteString(": ")
		b.WriteString(e.Err.Error())
	}
	return b.String()
}

// Unwrap returns the cause, Err.
func (e *Error) Unwrap() error { return e.Err }

// ProblemText is the 409 fail text: one problem per line.
func (e *Error) ProblemText() string {
	lines := make([]string, len(e.Problems))
	for i, p := range e.Problems {
		lines[i] = p.String()
	}
	return strings.Join(lines, "\n")
}

// ErrorCode returns the Code of the first *Error in err's chain, or
// CodeInternal when there is none.
func ErrorCode(err error) Code {
	if e, ok := errors.AsType[*Error](err); ok {
		return e.Code
	}
	return CodeInternal
}

// Problem is one broken rule of one record.
type Problem struct {
	// Kind is the kind of the record.
	Kind Kind
	// ID is the record id as sent, or "(no id)" when the body has no
	// string id.
	ID string
	// Field is the wire name or path: title_it, multimedia[1],
	// tourMultiday[0].dayLabels.
	Field string
	// Text says what is wrong ("must be at most 100 characters").
	Text string
}

// String formats the problem as "<Kind> <id>: <field>: <problem>".
func (p Problem) String() string {
	return p.Kind.Title() + " " + p.ID + ": " + p.Field + ": " + p.Text
}

// RaceError is the cause of a store error that another attempt of the
// whole transaction may not meet: a deadlock, a serialization failure, or
// a unique key taken by a concurrent writer's insert. Adapters wrap such
// driver errors in it, under an *Error of CodeUnavailable; the Service
// runs the transaction again before it answers (Options.TxAttempts).
type RaceError struct {
	// Err is the driver's error.
	Err error
}

// Error is "write race: " and the driver's error.
func (e *RaceError) Error() string { return "write race: " + e.Err.Error() }

// Unwrap returns the driver's error.
func (e *RaceError) Unwrap() error { return e.Err }

// IsRace reports whether err is a clash with a concurrent writer that a
// new attempt of the transaction may not meet.
func IsRace(err error) bool {
	_, ok := errors.AsType[*RaceError](err)
	return ok
}

// Race wraps a driver error of a clash with another writer as the
// library's error: CodeUnavailable with a *RaceError cause.
func Race(err error) error {
	return &Error{Code: CodeUnavailable, Message: "write race", Err: &RaceError{Err: err}}
}

// Unavailable wraps a driver error that says the store cannot be reached.
func Unavailable(err error) error {
	return &Error{Code: CodeUnavailable, Message: "store unavailable", Err: err}
}
