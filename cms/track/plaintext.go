package track

import (
	"html"
	"strings"
	"unicode/utf8"
)

// The most bytes kept of a name and of a description.
const (
	maxName        = 500
	maxDescription = 10_000
	// maxRawText bounds what is read of a name or description before its
	// markup is removed.
	maxRawText = 100_000
)

// plainText turns a name or description, which KML and some GPX writers
// fill with HTML, into plain text: markup removed (with the content of
// script and style elements), character references decoded, runs of white
// space made one space, invalid UTF-8 replaced, and cut to max bytes on a
// rune boundary. The result is text, not HTML: whoever shows it escapes it.
func plainText(s string, max int) string {
	var b strings.Builder
	skipUntil := "" // a closing tag whose element's content is dropped
	for len(s) > 0 {
		lt := strings.IndexByte(s, '<')
		if lt < 0 {
			if skipUntil == "" {
				b.WriteString(s)
			}
			break
		}
		if skipUntil == "" {
			b.WriteString(s[:lt])
		}
		s = s[lt:]
		gt := strings.IndexByte(s, '>')
		if gt < 0 || !looksLikeTag(s) {
			// A lone "<" is text ("a < b").
			if skipUntil == "" {
				b.WriteByte('<')
			}
			s = s[1:]
			continue
		}
		tag := strings.ToLower(s[1:gt])
		switch {
		case skipUntil != "":
			if strings.HasPrefix(tag, skipUntil) {
				skipUntil = ""
			}
		case strings.HasPrefix(tag, "script"), strings.HasPrefix(tag, "style"):
			skipUntil = "/" + strings.Fields(tag + " ")[0]
		case blockTag(tag):
			// A line break or block separates words, as a browser shows
			// them; inline tags (<b>, <a>) do not.
			b.WriteByte(' ')
		}
		s = s[gt+1:]
	}
	out := strings.Join(strings.Fields(html.UnescapeString(b.String())), " ")
	out = strings.ToValidUTF8(out, "\uFFFD")
	if len(out) > max {
		cut := max
		for cut > 0 && !utf8.RuneStart(out[cut]) {
			cut--
		}
		out = strings.TrimSpace(out[:cut])
	}
	return out
}

// looksLikeTag tells "<p>", "</b>", "<!-- x -->" from a "<" in text.
func looksLikeTag(s string) bool {
	if len(s) < 2 {
		return false
	}
	c := s[1]
	return c == '/' || c == '!' || c == '?' || ('a' <= c && c <= 'z') || ('A' <= c && c <= 'Z')
}

// blockTag tells whether a tag's text (lower case, without the brackets)
// opens or closes an element that a browser sets apart from its
// neighbours.
func blockTag(tag string) bool {
	name := strings.TrimPrefix(tag, "/")
	if i := strings.IndexAny(name, " \t\n\r/"); i >= 0 {
		name = name[:i]
	}
	switch name {
	case "br", "p", "div", "li", "ul", "ol", "tr", "td", "th", "table", "h1", "h2", "h3", "h4", "h5", "h6",
		"hr", "blockquote", "pre", "dd", "dt", "dl", "section", "article", "header", "footer", "img":
		return true
	}
	return false
}
