package cms

import (
	"context"
	"errors"
	"io"
	"runtime"
	"sync"
)

var errBatchShape = errors.New("a batch is one JSON array of objects")

// recordSplitter cuts the records of a batch body (one JSON array of
// objects) out of it, one at a time, without reading them as JSON: it
// follows strings, escapes and nesting to find where each ends and how deep
// it goes. Each record is then decoded strictly on its own (exact syntax,
// valid UTF-8, no duplicate names), and the splitter checks what stands
// between them, so a body is refused exactly when a JSON reader of the
// whole array would refuse it, while it is read once instead of twice
// (TestSplitterAgrees, FuzzSplitter).
type recordSplitter struct {
	body []byte
	pos  int
	seen bool // a record was cut: a comma comes before the next
	done bool
}

var (
	errArrayEnd   = errors.New("the array is not closed")
	errSeparator  = errors.New("records are not separated by commas")
	errEmptyValue = errors.New("an array element is missing")
)

// newRecordSplitter starts on body, which must open an array.
func newRecordSplitter(body []byte) (*recordSplitter, error) {
	s := &recordSplitter{body: body}
	s.skipSpace()
	if s.pos == len(body) || body[s.pos] != '[' {
		return nil, malformed(errBatchShape)
	}
	s.pos++
	return s, nil
}

func (s *recordSplitter) skipSpace() {
	for s.pos < len(s.body) {
		switch s.body[s.pos] {
		case ' ', '\t', '\n', '\r':
			s.pos++
		default:
			return
		}
	}
}

// next returns the next record's bytes within body, or nil after the last
// (then it has checked that nothing but space follows the array).
func (s *recordSplitter) next() ([]byte, error) {
	if s.done {
		return nil, nil
	}
	s.skipSpace()
	if s.pos == len(s.body) {
		return nil, malformed(errArrayEnd)
	}
	switch c := s.body[s.pos]; {
	case c == ']':
		s.pos++
		s.done = true
		s.skipSpace()
		if s.pos != len(s.body) {
			return nil, malformed(errTrailing)
		}
		return nil, nil
	case s.seen && c != ',':
		return nil, malformed(errSeparator)
	case s.seen:
		s.pos++
		s.skipSpace()
	}
	if s.pos == len(s.body) {
		return nil, malformed(errArrayEnd)
	}
	switch s.body[s.pos] {
	case '{':
	case ']', ',':
		return nil, malformed(errEmptyValue)
	default:
		return nil, malformed(errNotObject)
	}
	start, depth, deepest := s.pos, 0, 0
	for s.pos < len(s.body) {
		switch s.body[s.pos] {
		case '"':
			// A string: to its closing quote, an escape taking the byte
			// after it along.
			for s.pos++; s.pos < len(s.body) && s.body[s.pos] != '"'; s.pos++ {
				if s.body[s.pos] == '\\' {
					s.pos++
				}
			}
		case '{', '[':
			depth++
			deepest = max(deepest, depth)
		case '}', ']':
			depth--
		}
		s.pos++
		if depth == 0 {
			break
		}
	}
	if depth != 0 {
		return nil, malformed(io.ErrUnexpectedEOF)
	}
	// Within the array the record is one level deeper than on its own.
	if 1+deepest > MaxDepth {
		return nil, malformed(errTooDeep)
	}
	s.seen = true
	return s.body[start:s.pos], nil
}

// window appends up to n next records to dst; fewer only at the end.
func (s *recordSplitter) window(dst [][]byte, n int) ([][]byte, error) {
	for len(dst) < n {
		raw, err := s.next()
		if err != nil || raw == nil {
			return dst, err
		}
		dst = append(dst, raw)
	}
	return dst, nil
}

// decodedWindow is a window of a batch's records, decoded (each with its
// error), or the error that ended the splitting.
type decodedWindow[R any] struct {
	items []R
	errs  []error
	err   error
}

// decodedWindows cuts a batch body into windows (splitWindows) and decodes
// each on every core, a window ahead of the caller, on a goroutine of its
// own. It stops after a window the splitter refused, or when ctx ends.
func decodedWindows[R any](ctx context.Context, split *recordSplitter, max int, decode func([]byte) (R, error)) <-chan decodedWindow[R] {
	out := make(chan decodedWindow[R], 1)
	go func() {
		defer close(out)
		for w := range splitWindows(ctx, split, max) {
			d := decodedWindow[R]{err: w.err}
			if w.err == nil {
				d.items, d.errs = decodeAll(w.raws, decode)
			}
			select {
			case out <- d:
			case <-ctx.Done():
				return
			}
			if w.err != nil {
				return
			}
		}
	}()
	return out
}

// rawWindow is a window of a batch body's records, or the error that
// ended the splitting.
type rawWindow struct {
	raws [][]byte
	err  error
}

// splitWindows cuts the records of a batch body into windows of bulkChunk
// on a goroutine of its own, a window ahead of the caller. It stops after
// the window that passes max records (the caller refuses the batch), or
// when ctx ends.
func splitWindows(ctx context.Context, split *recordSplitter, max int) <-chan rawWindow {
	out := make(chan rawWindow, 1)
	go func() {
		defer close(out)
		count := 0
		for full := true; full && count <= max; {
			raws, err := split.window(make([][]byte, 0, bulkChunk), bulkChunk)
			full = err == nil && len(raws) == bulkChunk
			count += len(raws)
			select {
			case out <- rawWindow{raws, err}:
			case <-ctx.Done():
				return
			}
			if err != nil {
				return
			}
		}
	}()
	return out
}

// decodeAll decodes raw records with decode, spread over the cores.
func decodeAll[R any](raws [][]byte, decode func([]byte) (R, error)) ([]R, []error) {
	items, errs := make([]R, len(raws)), make([]error, len(raws))
	workers := min(runtime.GOMAXPROCS(0), (len(raws)+31)/32)
	var wg sync.WaitGroup
	for w := range workers {
		wg.Go(func() {
			for i := w; i < len(raws); i += workers {
				items[i], errs[i] = decodeSafely(decode, raws[i])
			}
		})
	}
	wg.Wait()
	return items, errs
}

// decodeSafely is decode with a panic turned into the record's error: a
// decoding goroutine has no caller to recover it.
func decodeSafely[R any](decode func([]byte) (R, error), raw []byte) (item R, err error) {
	defer func() {
		if v := recover(); v != nil {
			err = panicError(v)
		}
	}()
	return decode(raw)
}
