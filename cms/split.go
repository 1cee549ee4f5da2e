package cms

import (
	"errors"
	"io"
)

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
