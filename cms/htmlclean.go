package cms

import (
	"net/url"
	"strings"
	"unicode/utf8"

	"github.com/microcosm-cc/bluemonday"
)

// cleanForms recognizes the HTML that a bluemonday policy gives back
// unchanged, or with rel="nofollow" added to its links, without running
// it: what an editor's toolbar writes (paragraphs, headings, emphasis,
// lists, links), and above all what the policy itself wrote before (a
// record read and posted back, a batch sanitized at submit and applied
// later). Sanitizing 2 KB with bluemonday costs tens of microseconds,
// about a tenth of a create's CPU and most of a batch's; recognizing it
// costs one pass over its bytes. Anything else (an attribute, an entity
// or a tag it does not know, a quote in text) goes to the policy, so the
// answer is always the policy's (TestCleanFormsAgreeWithPolicy compares
// the two over random HTML).
type cleanForms struct {
	// tags are the bare tags ("<p>", "</p>", "<br/>") the policy gives
	// back as they are, found by asking it (newCleanForms).
	tags map[string]bool
}

// cleanTagNames are the elements whose bare tags newCleanForms offers the
// policy (those it drops, such as the UGC policy's header or kbd, are
// never recognized). None of them holds raw text (script, style,
// textarea, title...: the tokenizer reads their content differently), so
// text between them is escaped as everywhere else.
var cleanTagNames = []string{
	"p", "br", "hr", "h1", "h2", "h3", "h4", "h5", "h6", "strong", "em", "b", "i", "u", "s", "del", "ins",
	"sub", "sup", "small", "mark", "code", "pre", "kbd", "samp", "blockquote", "q", "cite", "abbr", "dfn",
	"ul", "ol", "li", "dl", "dt", "dd", "table", "thead", "tbody", "tfoot", "tr", "td", "th", "caption",
	"span", "div", "section", "article", "aside", "header", "footer", "figure", "figcaption",
}

// cleanEntities are the character references the policy writes (it
// escapes text with html.EscapeString): each reads back as the one
// character the policy escapes to it again.
var cleanEntities = []string{"&amp;", "&lt;", "&gt;", "&#39;", "&#34;"}

const (
	linkOpen  = `<a href="`
	noFollow  = ` rel="nofollow"`
	linkClose = "</a>"
)

// newCleanForms asks policy which bare tags it keeps as they are: each
// form alone and around text, so a tag the policy drops, renames or
// gives attributes to is never recognized.
func newCleanForms(policy *bluemonday.Policy) *cleanForms {
	c := &cleanForms{tags: map[string]bool{}}
	for _, name := range cleanTagNames {
		for _, form := range []string{"<" + name + ">", "</" + name + ">", "<" + name + "/>"} {
			if policy.Sanitize(form) == form && policy.Sanitize("a&amp;"+form+"b&lt;") == "a&amp;"+form+"b&lt;" {
				c.tags[form] = true
			}
		}
	}
	// Links are recognized by the UGC policy's rules for them (keptURL):
	// a policy that answers any of these otherwise is not that one, and
	// nothing is recognized.
	for _, href := range []string{"https://example.com/a?b=c&amp;d=e", "http://example.com/", "/relative", "#fragment", "mailto:a@example.com"} {
		link := linkOpen + href + `">x` + linkClose
		if policy.Sanitize(link) != linkOpen+href+`"`+noFollow+">x"+linkClose || policy.Sanitize(linkOpen+href+`"`+noFollow+">x"+linkClose) != linkOpen+href+`"`+noFollow+">x"+linkClose {
			c.tags = nil
		}
	}
	return c
}

// sanitize returns what policy.Sanitize(html) returns, and true, when
// html is made only of text without quotes or control characters, the
// character references the policy writes, the bare tags it keeps, and
// links <a href="URL"> or <a href="URL" rel="nofollow"> (URL one the
// policy keeps as written) with their end tags; otherwise false.
func (c *cleanForms) sanitize(html string) (string, bool) {
	if c == nil || len(c.tags) == 0 || !utf8.ValidString(html) {
		return "", false
	}
	var out strings.Builder // only once a link needs its rel
	copied, links := 0, 0
	for i := 0; i < len(html); {
		switch ch := html[i]; {
		case ch == '<':
			end := strings.IndexByte(html[i:], '>')
			if end < 0 {
				return "", false
			}
			tag := html[i : i+end+1]
			switch {
			case c.tags[tag]:
			case tag == linkClose && links > 0:
				// The policy keeps any </a>; only a link's own is
				// recognized, the rest left to it (a choice, not a need).
				links--
			case strings.HasPrefix(tag, linkOpen):
				rest := tag[len(linkOpen) : len(tag)-1]
				quote := strings.IndexByte(rest, '"')
				if quote < 0 || !keptURL(rest[:quote]) {
					return "", false
				}
				switch rest[quote+1:] {
				case noFollow:
				case "":
					if copied == 0 {
						out.Grow(len(html) + 64)
					}
					out.WriteString(html[copied : i+end])
					out.WriteString(noFollow)
					copied = i + end
				default:
					return "", false
				}
				links++
			default:
				return "", false
			}
			i += end + 1
		case ch == '&':
			n := entityAt(html[i:])
			if n == 0 {
				return "", false
			}
			i += n
		case ch == '>' || ch == '"' || ch == '\'' || ch == '\r' || ch < ' ' && ch != '\n' && ch != '\t':
			return "", false
		default:
			i++
		}
	}
	if links > 0 {
		return "", false // an open link: left to the policy, as a stray </a>
	}
	if copied == 0 {
		return html, true
	}
	out.WriteString(html[copied:])
	return out.String(), true
}

// entityAt is the length of the character reference of cleanEntities that
// s starts with, 0 if none.
func entityAt(s string) int {
	for _, e := range cleanEntities {
		if strings.HasPrefix(s, e) {
			return len(e)
		}
	}
	return 0
}

// keptURL reports whether raw, an href attribute's text, is one the UGC
// policy keeps as written: its only references &amp;, no quote, angle
// bracket or white space, and, as the policy parses it, an http, https or
// mailto URL or a relative one that net/url writes back the same.
func keptURL(raw string) bool {
	if raw == "" {
		return false
	}
	for i := 0; i < len(raw); i++ {
		switch ch := raw[i]; {
		case ch == '&':
			if !strings.HasPrefix(raw[i:], "&amp;") {
				return false
			}
		case ch <= ' ' || ch == '<' || ch == '>' || ch == '\'' || ch == '"' || ch >= 0x7f:
			return false
		}
	}
	value := strings.ReplaceAll(raw, "&amp;", "&")
	u, err := url.Parse(value)
	if err != nil || u.String() != value {
		return false
	}
	switch u.Scheme {
	case "http", "https", "mailto", "":
		return true
	}
	return false
}
