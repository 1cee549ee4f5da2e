package cms

import "github.com/microcosm-cc/bluemonday"

// Sanitizer cleans the HTML of HTML fields before it is stored. It must be
// safe for concurrent use.
type Sanitizer interface {
	// Sanitize returns html with what the policy refuses taken out; it
	// cannot fail.
	Sanitize(html string) string
}

// UGCSanitizer returns the default sanitizer: bluemonday's policy for
// user-generated content (formatting, links and images kept; scripts,
// styles, event handlers and javascript: URLs removed).
func UGCSanitizer() Sanitizer { return ugc{bluemonday.UGCPolicy()} }

// ugc wraps a policy built once; bluemonday policies are safe for
// concurrent use after construction.
type ugc struct{ p *bluemonday.Policy }

func (u ugc) Sanitize(html string) string { return u.p.Sanitize(html) }
