package track

import (
	"errors"
	"time"
)

// Point is one track point; Ele and Time are optional (HasEle, Time.IsZero()).
type Point struct {
	Lat, Lon float64 // degrees, WGS 84
	Ele      float64 // meters; meaningful only when HasEle
	HasEle   bool
	Time     time.Time // zero when the point has none
}

// Track is what a file holds: its segments of points in document order, and
// the texts found (name, description) as plain text.
type Track struct {
	// Name is the file's own name (GPX metadata, KML Document or Folder),
	// else its first track's; plain text, at most 500 bytes.
	Name string
	// Description likewise, plain text (markup removed), at most 10,000
	// bytes.
	Description string
	// Segments are the lines, in document order; the distance is never
	// measured across two of them.
	Segments [][]Point
}

// Points is the number of points in all segments.
func (t *Track) Points() int {
	n := 0
	for _, s := range t.Segments {
		n += len(s)
	}
	return n
}

// Limits bound parsing. Zero fields take the defaults.
type Limits struct {
	// MaxBytes is the most bytes read from the file; more is ErrTooLarge.
	// Default 10 MB (10 << 20).
	MaxBytes int64
	// MaxPoints is the most points a file may hold; more is ErrTooLarge.
	// Default 2,000,000.
	MaxPoints int
}

// The defaults of Limits.
const (
	DefaultMaxBytes  = 10 << 20
	DefaultMaxPoints = 2_000_000
)

func (l Limits) withDefaults() Limits {
	if l.MaxBytes <= 0 {
		l.MaxBytes = DefaultMaxBytes
	}
	if l.MaxPoints <= 0 {
		l.MaxPoints = DefaultMaxPoints
	}
	return l
}

// ErrTooLarge is wrapped by the error a parser returns when the file is over
// Limits.MaxBytes or holds more than Limits.MaxPoints points; test it with
// errors.Is.
var ErrTooLarge = errors.New("the file is too large")

// tooLargeError says which limit was passed and is ErrTooLarge for errors.Is.
type tooLargeError struct{ msg string }

func (e *tooLargeError) Error() string        { return e.msg }
func (e *tooLargeError) Is(target error) bool { return target == ErrTooLarge }

// FormatError is a file that cannot be read as a track; Msg says what was
// wrong in words meant for the person who uploaded it, and is safe to show.
type FormatError struct {
	Msg string
	// noLine marks a well-formed file without a line to measure
	// (ErrNoLine).
	noLine bool
}

func (e *FormatError) Error() string { return e.Msg }

// Is makes a file without a line ErrNoLine for errors.Is.
func (e *FormatError) Is(target error) bool { return target == ErrNoLine && e.noLine }

// ErrNoLine is what a parser's FormatError is when the file reads well but
// holds no line of two points or more: a KML map layer of placemarks and
// shapes is such a file.
var ErrNoLine = errors.New("the file holds no line")

func formatError(msg string) error { return &FormatError{Msg: msg} }
