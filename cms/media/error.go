package media

import (
	"errors"
	"fmt"
)

// ErrTooLarge is returned, wrapped, when a file is larger than its type
// allows: more bytes or pixels than [Limits] permit, or a KMZ that unpacks
// to more than its limit. Callers answer it with 413 Request Entity Too Large.
var ErrTooLarge = errors.New("media: file too large")

// tooLarge wraps ErrTooLarge with a detail for logs; the detail names the
// type and the limit, never a path.
func tooLarge(format string, args ...any) error {
	return fmt.Errorf("%w: "+format, append([]any{ErrTooLarge}, args...)...)
}

// FormatError says why a file was refused: not an accepted type, or
// unreadable as the type it claims by its content. Msg is a plain sentence
// that can be shown to the person who uploaded the file.
type FormatError struct {
	Msg string
}

func (e *FormatError) Error() string { return e.Msg }

func formatError(format string, args ...any) error {
	return &FormatError{Msg: fmt.Sprintf(format, args...)}
}

// msgNotAccepted is the answer for content of no accepted type.
const msgNotAccepted = "the file is not a JPEG, PNG, WebP, KML, KMZ or GPX file"

func notAccepted() error { return &FormatError{Msg: msgNotAccepted} }

// quoteName shortens a name taken from the uploaded file (an entry of a zip,
// an attribute) before it appears in a message.
func quoteName(s string) string {
	const max = 80
	r := []rune(s)
	if len(r) > max {
		s = string(r[:max]) + "…"
	}
	return fmt.Sprintf("%q", s)
}
