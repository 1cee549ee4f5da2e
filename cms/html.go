package cms

import (
	"strings"
	"sync"

	"github.com/microcosm-cc/bluemonday"
)

// Sanitizer cleans the HTML of HTML fields before it is stored. It must be
// safe for concurrent use.
type Sanitizer interface {
	Sanitize(html string) string
}

// UGCSanitizer returns the default sanitizer: bluemonday's policy for
// user-generated content (formatting, links and images kept; scripts,
// styles, event handlers and javascript: URLs removed).
func UGCSanitizer() Sanitizer {
	return &ugc{p: bluemonday.UGCPolicy(), done: map[string]string{}}
}

// ugc wraps a policy built once; bluemonday policies are safe for
// concurrent use after construction. The policy gives the same text for
// the same input, so recent answers are kept: an update that posts the
// whole record back, or an import sent again, brings the HTML it brought
// before, and sanitizing it again was most of such a write's own work.
type ugc struct {
	p    *bluemonday.Policy
	mu   sync.Mutex
	done map[string]string // input -> sanitized
	size int               // bytes held in done
}

// Bounds of the kept answers: a text over maxKeptHTML is sanitized each
// time; past keptHTMLBytes the answers kept are dropped, all at once.
const (
	maxKeptHTML   = 64 << 10
	keptHTMLBytes = 4 << 20
)

func (u *ugc) Sanitize(html string) string {
	if len(html) > maxKeptHTML {
		return u.p.Sanitize(html)
	}
	u.mu.Lock()
	out, ok := u.done[html]
	u.mu.Unlock()
	if ok {
		return out
	}
	out = u.p.Sanitize(html)
	// The input may share the memory of a whole body: the key is a copy.
	key := strings.Clone(html)
	u.mu.Lock()
	if u.size+len(key)+len(out) > keptHTMLBytes {
		clear(u.done)
		u.size = 0
	}
	if _, ok := u.done[key]; !ok {
		u.done[key] = out
		u.size += len(key) + len(out)
	}
	u.mu.Unlock()
	return out
}
