package track

import (
	"bufio"
	"bytes"
	"encoding/xml"
	"errors"
	"fmt"
	"io"
	"strings"
	"unicode/utf8"
)

// maxDepth bounds element nesting: real GPX and KML files stay within a
// dozen levels, and the bound keeps a hostile file from growing the stack.
const maxDepth = 100

// xmlFile reads the tokens of one GPX or KML file, safely: no DTD, bounded
// size and depth, start and end tags checked to match, and every failure
// turned into a FormatError or the ErrTooLarge error.
type xmlFile struct {
	dec     *xml.Decoder
	lim     *limitedReader
	kind    string   // "GPX" or "KML", for messages
	stack   []string // the open elements' qualified names, to match end tags
	started bool     // an element was read
	scratch []byte   // textBytes' buffer, reused
}

func newXMLFile(r io.Reader, maxBytes int64, kind string) (*xmlFile, error) {
	lim := &limitedReader{r: r, left: maxBytes, max: maxBytes}
	br := bufio.NewReaderSize(lim, 64<<10)
	// A byte order mark: UTF-8's is skipped; UTF-16 is refused in words
	// (the XML reader would only report garbage).
	head, _ := br.Peek(3)
	switch {
	case bytes.HasPrefix(head, []byte{0xEF, 0xBB, 0xBF}):
		_, _ = br.Discard(3)
	case bytes.HasPrefix(head, []byte{0xFE, 0xFF}), bytes.HasPrefix(head, []byte{0xFF, 0xFE}):
		return nil, formatError(fmt.Sprintf("the %s file is in UTF-16; save it as UTF-8", kind))
	}
	dec := xml.NewDecoder(br)
	dec.Strict = true
	dec.CharsetReader = CharsetReader
	return &xmlFile{dec: dec, lim: lim, kind: kind}, nil
}

// tokenKind says what a token is.
type tokenKind uint8

const (
	startToken tokenKind = iota + 1
	endToken
	textToken
)

// token is one start tag, end tag or run of text; a concrete type, so that
// reading a token allocates no interface value of its own.
type token struct {
	kind  tokenKind
	start xml.StartElement // for startToken
	text  []byte           // for textToken: valid until the next token
}

// next returns the next start element, end element or character data, and
// skips comments and processing instructions. Any directive (<!DOCTYPE>,
// <!ENTITY>) is refused: the formats need none, and refusing them is what
// keeps entity expansion out.
func (f *xmlFile) next() (token, error) {
	for {
		tok, err := f.dec.RawToken()
		if err != nil {
			return token{}, f.fail(err)
		}
		switch t := tok.(type) {
		case xml.StartElement:
			if len(f.stack) >= maxDepth {
				return token{}, formatError(fmt.Sprintf("the %s file nests elements more than %d deep", f.kind, maxDepth))
			}
			f.stack = append(f.stack, qualified(t.Name))
			f.started = true
			return token{kind: startToken, start: t}, nil
		case xml.EndElement:
			if len(f.stack) == 0 {
				return token{}, formatError(fmt.Sprintf("the %s file is not well-formed XML: </%s> closes no element at line %d", f.kind, qualified(t.Name), f.line()))
			}
			open := f.stack[len(f.stack)-1]
			if open != qualified(t.Name) {
				return token{}, formatError(fmt.Sprintf("the %s file is not well-formed XML: <%s> is closed by </%s> at line %d", f.kind, open, qualified(t.Name), f.line()))
			}
			f.stack = f.stack[:len(f.stack)-1]
			return token{kind: endToken}, nil
		case xml.CharData:
			return token{kind: textToken, text: t}, nil
		case xml.Directive:
			return token{}, directiveError(f.kind, t)
		}
	}
}

// depth is the number of open elements.
func (f *xmlFile) depth() int { return len(f.stack) }

func (f *xmlFile) line() int {
	line, _ := f.dec.InputPos()
	return line
}

// root reads up to the root element and checks its local name.
func (f *xmlFile) root(want string) (xml.StartElement, error) {
	for {
		tok, err := f.next()
		if errors.Is(err, io.EOF) {
			return xml.StartElement{}, formatError(fmt.Sprintf("not a %s file: it holds no XML element", f.kind))
		}
		if err != nil {
			return xml.StartElement{}, err
		}
		switch tok.kind {
		case startToken:
			if tok.start.Name.Local != want {
				return xml.StartElement{}, formatError(fmt.Sprintf("not a %s file: the root element is <%s>", f.kind, clip(qualified(tok.start.Name), 40)))
			}
			return tok.start, nil
		case textToken:
			if len(bytes.TrimSpace(tok.text)) > 0 {
				return xml.StartElement{}, formatError(fmt.Sprintf("not a %s file: it is not XML", f.kind))
			}
		}
	}
}

// finish reads what follows the root element to the end of the file: only
// comments, processing instructions and white space may.
func (f *xmlFile) finish() error {
	for {
		tok, err := f.next()
		if errors.Is(err, io.EOF) {
			return nil
		}
		if err != nil {
			return err
		}
		switch tok.kind {
		case startToken:
			return formatError(fmt.Sprintf("the %s file is not well-formed XML: a second root element <%s> at line %d", f.kind, clip(qualified(tok.start.Name), 40), f.line()))
		case textToken:
			if len(bytes.TrimSpace(tok.text)) > 0 {
				return formatError(fmt.Sprintf("the %s file is not well-formed XML: text after the root element at line %d", f.kind, f.line()))
			}
		}
	}
}

// children calls fn for each child element of the element just started;
// fn must read the child to its end. Text between children is ignored.
func (f *xmlFile) children(fn func(xml.StartElement) error) error {
	depth := f.depth()
	for {
		tok, err := f.next()
		if err != nil {
			return f.unexpectedEnd(err)
		}
		switch tok.kind {
		case startToken:
			if err := fn(tok.start); err != nil {
				return err
			}
		case endToken:
			if f.depth() < depth {
				return nil
			}
		}
	}
}

// text returns the character data of the element just started, up to its
// end tag; nested elements are skipped. Beyond max bytes the text is cut.
func (f *xmlFile) text(max int) (string, error) {
	b, err := f.textBytes(max)
	return string(b), err
}

// textBytes is text in a buffer that the next call reuses, for values
// parsed at once.
func (f *xmlFile) textBytes(max int) ([]byte, error) {
	f.scratch = f.scratch[:0]
	depth := f.depth()
	for {
		tok, err := f.next()
		if err != nil {
			return nil, f.unexpectedEnd(err)
		}
		switch tok.kind {
		case textToken:
			if n := len(f.scratch); n < max {
				f.scratch = append(f.scratch, tok.text[:min(len(tok.text), max-n)]...)
			}
		case startToken:
			if err := f.skip(); err != nil {
				return nil, err
			}
		case endToken:
			if f.depth() < depth {
				return f.scratch, nil
			}
		}
	}
}

// skip reads past the end of the element just started.
func (f *xmlFile) skip() error {
	depth := f.depth()
	for f.depth() >= depth {
		if _, err := f.next(); err != nil {
			return f.unexpectedEnd(err)
		}
	}
	return nil
}

// unexpectedEnd turns an end of file inside an element into a FormatError.
func (f *xmlFile) unexpectedEnd(err error) error {
	if errors.Is(err, io.EOF) {
		return formatError(fmt.Sprintf("the %s file is not well-formed XML: it ends inside <%s>", f.kind, f.stack[len(f.stack)-1]))
	}
	return err
}

// fail translates an error of the XML decoder: over the size limit,
// a refused character encoding, a syntax error; io.EOF stays io.EOF for the
// callers that expect it, and a read error of the source is returned as is.
func (f *xmlFile) fail(err error) error {
	if f.lim.over {
		return &tooLargeError{msg: fmt.Sprintf("the %s file is larger than %d bytes", f.kind, f.lim.max)}
	}
	if errors.Is(err, io.EOF) {
		if len(f.stack) > 0 {
			return f.unexpectedEnd(err)
		}
		return io.EOF
	}
	var ce *charsetError
	if errors.As(err, &ce) {
		return formatError(fmt.Sprintf("the %s file is in the character encoding %q; only UTF-8, US-ASCII, ISO-8859-1 and Windows-1252 are read", f.kind, clip(ce.name, 40)))
	}
	var se *xml.SyntaxError
	if errors.As(err, &se) {
		if !f.started {
			return formatError(fmt.Sprintf("not a %s file: it is not XML", f.kind))
		}
		return formatError(fmt.Sprintf("the %s file is not well-formed XML: %s at line %d", f.kind, clip(se.Msg, 100), se.Line))
	}
	if strings.HasPrefix(err.Error(), "xml: ") {
		// The decoder's own refusals (an XML version other than 1.0).
		return formatError(fmt.Sprintf("the %s file is not well-formed XML: %s", f.kind, clip(strings.TrimPrefix(err.Error(), "xml: "), 100)))
	}
	return err
}

// directiveError names a refused <!...> directive in plain words.
func directiveError(kind string, d xml.Directive) error {
	s := strings.ToUpper(string(bytes.TrimSpace(d[:min(len(d), 64)])))
	if strings.HasPrefix(s, "DOCTYPE HTML") {
		return formatError(fmt.Sprintf("not a %s file: it is an HTML page", kind))
	}
	return formatError(fmt.Sprintf("the %s file declares a document type or entities (<!DOCTYPE> or <!ENTITY>), which are not accepted", kind))
}

func qualified(n xml.Name) string {
	if n.Space == "" {
		return n.Local
	}
	return n.Space + ":" + n.Local
}

// clip shortens s for a message, on a rune boundary.
func clip(s string, max int) string {
	s = strings.ToValidUTF8(s, "\uFFFD")
	if len(s) <= max {
		return s
	}
	cut := max
	for cut > 0 && !utf8.RuneStart(s[cut]) {
		cut--
	}
	return s[:cut] + "…"
}

// limitedReader reads at most max bytes of r, and notes when r holds more.
type limitedReader struct {
	r    io.Reader
	left int64 // bytes still allowed
	max  int64
	over bool
}

func (l *limitedReader) Read(p []byte) (int, error) {
	if l.over {
		return 0, ErrTooLarge
	}
	if l.left <= 0 {
		// Read one byte more to tell a file of exactly max bytes from a
		// larger one.
		var one [1]byte
		n, err := io.ReadFull(l.r, one[:])
		if n > 0 {
			l.over = true
			return 0, ErrTooLarge
		}
		if err == io.ErrUnexpectedEOF {
			err = io.EOF
		}
		return 0, err
	}
	if int64(len(p)) > l.left {
		p = p[:l.left]
	}
	n, err := l.r.Read(p)
	l.left -= int64(n)
	return n, err
}
