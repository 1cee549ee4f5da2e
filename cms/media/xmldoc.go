package media

import (
	"bytes"
	"encoding/xml"
	"errors"
	"fmt"
	"github.com/bwcms/cms/cms/track"
	"io"
	"strings"
	"unicode/utf8"
)

const bomUTF8 = "\xEF\xBB\xBF"

// readableLabel reports the encoding declarations the track reader reads
// too: UTF-8 and ASCII, and the single-byte ISO-8859-1 and Windows-1252 of
// older GPS software.
func readableLabel(label string) bool {
	if strings.EqualFold(label, "utf-8") {
		return true
	}
	_, err := track.CharsetReader(label, strings.NewReader(""))
	return err == nil
}

// detectXML judges a file that is none of the binary types: a KML or GPX
// document, or nothing accepted.
func detectXML(r io.ReaderAt, size int64, lim Limits, head []byte) (Info, error) {
	start := int64(0)
	if bytes.HasPrefix(head, []byte(bomUTF8)) {
		start = int64(len(bomUTF8))
	}
	rest := bytes.TrimLeft(head[start:], " \t\r\n")
	if len(rest) == 0 || rest[0] != '<' {
		if bytes.HasPrefix(head, []byte{0xFF, 0xFE, '<', 0}) || bytes.HasPrefix(head, []byte{0xFE, 0xFF, 0, '<'}) {
			return Info{}, formatError("the file is XML in UTF-16; KML and GPX files are accepted in UTF-8 only")
		}
		return Info{}, notAccepted()
	}
	// Only the first XMLBytes are read: enough to name the root element of
	// a file that is too large, and the whole of any other.
	rec := &recordingReaderAt{r: r, size: size}
	src := io.NewSectionReader(rec, start, min(size, lim.XMLBytes)-start)
	typ, err := checkXML(src, size > lim.XMLBytes, lim, "")
	if rec.err != nil {
		return Info{}, fmt.Errorf("media: reading the file: %w", rec.err)
	}
	if err != nil {
		return Info{}, err
	}
	return Info{Type: typ, Ext: Ext(typ)}, nil
}

// checkXML reads an XML document with encoding/xml: no DTD, no entity but
// the five predefined ones, bounded depth and token count, one root
// element. The root decides the type: <kml> in any namespace is KML, <gpx>
// of version 1.0 or 1.1 is GPX. When over is set (the document is over its limit), only the prolog is
// read: a KML or GPX root gives ErrTooLarge, anything else is not accepted.
// subject names the document in messages ("" for "the KML file" or "the
// GPX file", by its root).
func checkXML(src io.Reader, over bool, lim Limits, subject string) (typ string, err error) {
	d := xml.NewDecoder(src)
	// Any declared encoding is read as bytes while looking for the root
	// element (its name is ASCII in any encoding of interest); a KML or GPX
	// document that is not UTF-8 is refused below with a clear reason.
	var encoding string
	d.CharsetReader = func(label string, in io.Reader) (io.Reader, error) {
		encoding = label
		if r, err := track.CharsetReader(label, in); err == nil {
			return r, nil
		}
		return in, nil // read as bytes to find the root; refused below
	}
	tokens := 0
	var open []xml.Name // the elements open, outermost first
	next := func() (xml.Token, error) {
		tokens++
		if tokens > maxXMLTokens {
			return nil, errTooManyTokens
		}
		tok, err := d.RawToken()
		// RawToken leaves the nesting to the caller (Token would check it,
		// and resolve namespaces too, allocating a third more).
		switch t := tok.(type) {
		case xml.StartElement:
			open = append(open, t.Name)
		case xml.EndElement:
			if len(open) == 0 || open[len(open)-1] != t.Name {
				line, _ := d.InputPos()
				want := "nothing"
				if len(open) > 0 {
					want = "</" + qname(open[len(open)-1]) + ">"
				}
				return nil, &xml.SyntaxError{Msg: fmt.Sprintf("found </%s> where %s was expected", qname(t.Name), want), Line: line}
			}
			open = open[:len(open)-1]
		}
		if err == io.EOF && len(open) > 0 {
			line, _ := d.InputPos()
			return nil, &xml.SyntaxError{Msg: "unexpected end of file: <" + qname(open[len(open)-1]) + "> is not closed", Line: line}
		}
		return tok, err
	}

	// The prolog: declaration, comments, processing instructions, spaces,
	// and perhaps a DOCTYPE, which is noted and refused once the root says
	// the document is one of ours (so an HTML page is simply not accepted).
	var root xml.StartElement
	directive := false
prolog:
	for {
		tok, err := next()
		if err != nil {
			return "", notAccepted()
		}
		switch t := tok.(type) {
		case xml.StartElement:
			root = t
			break prolog
		case xml.Directive:
			directive = true
		case xml.CharData:
			if len(bytes.TrimSpace(t)) > 0 {
				return "", notAccepted()
			}
		}
	}

	switch root.Name.Local {
	case "kml":
		typ = KML
	case "gpx":
		typ = GPX
	default:
		return "", notAccepted()
	}
	if subject == "" {
		subject = "the " + typeName(typ) + " file"
	}
	if directive {
		return "", formatError("%s declares a DTD, which is not accepted", subject)
	}
	if encoding != "" && !readableLabel(encoding) {
		return "", formatError("%s declares the encoding %s; only UTF-8, ISO-8859-1 and Windows-1252 are accepted", subject, quoteName(encoding))
	}
	if typ == GPX {
		if err := checkGPXVersion(root); err != nil {
			return "", err
		}
	}
	if over {
		return "", tooLarge("%s document over %d bytes", typeName(typ), lim.XMLBytes)
	}

	// The body, to its end: the document must be well-formed.
	rootClosed := false
	for {
		tok, err := next()
		if err == io.EOF && len(open) == 0 {
			return typ, nil
		}
		if err != nil {
			return "", notWellFormed(subject, err)
		}
		switch t := tok.(type) {
		case xml.StartElement:
			if rootClosed {
				return "", formatError("%s is not well-formed XML: it has more than one root element", subject)
			}
			if len(open) > maxXMLDepth {
				return "", formatError("%s nests elements more than %d levels deep", subject, maxXMLDepth)
			}
		case xml.EndElement:
			rootClosed = len(open) == 0
		case xml.Directive:
			return "", formatError("%s declares a DTD, which is not accepted", subject)
		case xml.CharData:
			if len(open) == 0 && len(bytes.TrimSpace(t)) > 0 {
				return "", formatError("%s is not well-formed XML: it has text after its root element", subject)
			}
		}
	}
}

// qname writes an element name as it appeared, prefix included.
func qname(n xml.Name) string {
	if n.Space != "" {
		return n.Space + ":" + n.Local
	}
	return n.Local
}

var errTooManyTokens = errors.New("too many tokens")

func checkGPXVersion(root xml.StartElement) error {
	for _, a := range root.Attr {
		if a.Name.Space == "" && a.Name.Local == "version" {
			switch v := strings.TrimSpace(a.Value); v {
			case "1.0", "1.1":
				return nil
			default:
				return formatError("the GPX file is version %s; only GPX 1.0 and 1.1 are accepted", quoteName(v))
			}
		}
	}
	return formatError("the GPX file does not say its version; only GPX 1.0 and 1.1 are accepted")
}

// notWellFormed turns a decoder error into a sentence; the decoder's own
// text names a line and the problem, never a path.
func notWellFormed(subject string, err error) error {
	if errors.Is(err, errTooManyTokens) {
		return formatError("%s has more than %d XML elements, texts and comments", subject, maxXMLTokens)
	}
	var se *xml.SyntaxError
	if errors.As(err, &se) {
		msg := se.Msg
		if utf8.RuneCountInString(msg) > 120 {
			msg = string([]rune(msg)[:120]) + "…"
		}
		return formatError("%s is not well-formed XML (line %d: %s)", subject, se.Line, msg)
	}
	return formatError("%s is not well-formed XML", subject)
}
