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
func UGCSanitizer() Sanitizer {
	p := bluemonday.UGCPolicy()
	return ugc{p, newCleanForms(p)}
}

// ugc wraps a policy built once; bluemonday policies are safe for
// concurrent use after construction. HTML the policy would give back as
// it is (or with its links' rel="nofollow" added) is recognized without
// running it (cleanForms).
type ugc struct {
	p     *bluemonday.Policy
	clean *cleanForms
}

func (u ugc) Sanitize(html string) string {
	if out, ok := u.clean.sanitize(html); ok {
		return out
	}
	return u.p.Sanitize(html)
}
