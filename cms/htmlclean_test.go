package cms

import (
	"math/rand/v2"
	"strings"
	"testing"

	"github.com/microcosm-cc/bluemonday"
)

// cleanFragments are the pieces TestCleanFormsAgreeWithPolicy builds HTML
// from: text the policy keeps and text it escapes or changes, every
// reference it writes and some it does not, the tags cleanForms knows in
// their bare forms and with attributes, tags it does not know (those whose
// content the tokenizer reads raw among them), links to URLs the policy
// keeps, rewrites or refuses, and broken markup.
func cleanFragments() []string {
	fragments := []string{
		"Lorem ipsum dolor sit amet, ", "l'acqua", `"quoted"`, "a > b", "a < b", "x\r\ny", "nul\x00", "\ttab\n", "é ü 日本",
		"&", "&amp;", "&lt;", "&gt;", "&#39;", "&#34;", "&quot;", "&nbsp;", "&#39", "&amp", "&#x27;", "&AMP;", "&amp;lt;",
		"\x7f", "\xff", "</a>", "<!-- c -->", "<!DOCTYPE html>", "<", ">", "</", "<a", "<a href=x>", "</>", "<>", " ",
	}
	names := append([]string{"a", "script", "style", "img", "textarea", "title", "iframe", "xmp", "P", "Br", "xyz", "h7"}, cleanTagNames...)
	for _, n := range names {
		fragments = append(fragments, "<"+n+">", "</"+n+">", "<"+n+"/>", "<"+n+" >", "<"+n+` class="c">`, "<"+n+` id="i">`,
			"< "+n+">", "<"+n+"\n>", "<"+n+" title='t'>", "</"+n+" x>")
	}
	urls := []string{
		"https://example.com/info", "http://e.com/a?b=c&amp;d=e", "http://e.com/a?b=c&d=e", "/rel", "rel", "#frag",
		"mailto:a@b.c", "javascript:alert(1)", "JAVASCRIPT:x", "HTTPS://E.com", "https://e.com/%7e", "https://e.com/a b",
		"ftp://x", "data:text/html,x", "//evil.com", "https://e.com/&#34;x", "", " https://x", "https://例え.jp",
		"https://e.com/~u", "https://e.com/(x)", "vbscript:x", "https://e.com/a%2", "?q=1", "https://user:pw@e.com/",
		"https://e.com/a?q=%zz", "https://e.com:99999/", "https://[::1]/", "https://e.com/a#b#c", "java&#115;cript:x",
		"https://e.com/\x7f", "HTTP://e.com/", "https:e.com", "mailto:", "https://e.com/a?b=c&amp",
	}
	for _, u := range urls {
		for _, rest := range []string{"", ` rel="nofollow"`, ` rel="noopener"`, ` rel="nofollow" `, ` target="_blank"`, ` REL="nofollow"`, ` rel=nofollow`} {
			fragments = append(fragments, `<a href="`+u+`"`+rest+">link</a>", `<a href="`+u+`"`+rest+"><em>x</em>", `<a href='`+u+`'`+rest+">q</a>")
		}
	}
	return fragments
}

// TestCleanFormsAgreeWithPolicy builds random HTML from cleanFragments and
// checks that whatever cleanForms recognizes, the policy answers the
// same; and that it recognizes a good share of it, and the HTML of the
// load tool and of a record the policy wrote.
func TestCleanFormsAgreeWithPolicy(t *testing.T) {
	t.Parallel()
	policy := bluemonday.UGCPolicy()
	clean := newCleanForms(policy)
	if len(clean.tags) < 60 {
		t.Fatalf("the policy keeps %d bare tags of cleanTagNames: %v", len(clean.tags), clean.tags)
	}
	fragments := cleanFragments()
	rng := rand.New(rand.NewPCG(1, 2))
	// Fragments the policy keeps as they are, drawn more often so that
	// long inputs are recognized often enough to be tested.
	var kept []string
	for _, f := range fragments {
		if _, ok := clean.sanitize(f); ok {
			kept = append(kept, f)
		}
	}
	recognized := 0
	const rounds = 30000
	for range rounds {
		var b strings.Builder
		for range 1 + rng.IntN(12) {
			if rng.IntN(4) == 0 {
				b.WriteString(fragments[rng.IntN(len(fragments))])
			} else {
				b.WriteString(kept[rng.IntN(len(kept))])
			}
		}
		html := b.String()
		got, ok := clean.sanitize(html)
		if !ok {
			continue
		}
		recognized++
		if want := policy.Sanitize(html); got != want {
			t.Fatalf("cleanForms on %q:\n%q\nthe policy:\n%q", html, got, want)
		}
	}
	if recognized < rounds/10 || recognized == rounds {
		t.Errorf("recognized %d of %d: too few to test it, or nothing refused", recognized, rounds)
	}

	const loadTool = "<h2>Resource</h2>\n<p>Lorem ipsum dolor sit amet, <strong>consectetur</strong> adipiscing elit. Sed do eiusmod tempor " +
		"incididunt ut labore et dolore magna aliqua. <a href=\"https://example.com/info\">More info</a> &amp; details.</p>\n"
	for _, html := range []string{loadTool, policy.Sanitize(loadTool), policy.Sanitize("<p>l'acqua \"x\" <em>a</em><br>b<ul><li>c</li></ul></p>")} {
		if got, ok := clean.sanitize(html); !ok || got != policy.Sanitize(html) {
			t.Errorf("cleanForms on %q: %q, %v; want the policy's %q", html, got, ok, policy.Sanitize(html))
		}
	}
	for _, html := range []string{`<a href="javascript:alert(1)">x</a>`, `<p onclick="x">`, "<script>alert(1)</script>", `<a href="https://e.com/">x`} {
		if got, ok := clean.sanitize(html); ok {
			t.Errorf("cleanForms recognized %q: %q", html, got)
		}
	}
}

// FuzzCleanForms: whatever cleanForms recognizes, the policy answers the
// same.
func FuzzCleanForms(f *testing.F) {
	policy := bluemonday.UGCPolicy()
	clean := newCleanForms(policy)
	fragments := cleanFragments()
	for i := 0; i < len(fragments); i += 7 {
		f.Add(strings.Join(fragments[i:min(i+7, len(fragments))], ""))
	}
	f.Add(`<p>Lorem <a href="https://example.com/a?b=c&amp;d=e">x</a> &#39;q&#39;</p><br/>`)
	f.Fuzz(func(t *testing.T, html string) {
		if got, ok := clean.sanitize(html); ok {
			if want := policy.Sanitize(html); got != want {
				t.Fatalf("cleanForms on %q:\n%q\nthe policy:\n%q", html, got, want)
			}
		}
	})
}

// BenchmarkUGCSanitize: the load tool's HTML (2 KB with links) through
// the default sanitizer and through the policy alone.
func BenchmarkUGCSanitize(b *testing.B) {
	const para = "<p>Lorem ipsum dolor sit amet, <strong>consectetur</strong> adipiscing elit. Sed do eiusmod tempor " +
		"incididunt ut labore et dolore magna aliqua. <a href=\"https://example.com/info\">More info</a> &amp; details.</p>\n"
	html := "<h2>Resource</h2>\n" + strings.Repeat(para, 10)
	b.Run("sanitizer", func(b *testing.B) {
		s := UGCSanitizer()
		for b.Loop() {
			s.Sanitize(html)
		}
	})
	b.Run("policy", func(b *testing.B) {
		p := bluemonday.UGCPolicy()
		for b.Loop() {
			p.Sanitize(html)
		}
	})
}

// The default sanitizer's kept answers (sanitizedTexts) hold only what
// needed the policy: HTML it keeps as it is is answered by cleanForms
// before the look-up, and kept nowhere.
func TestSanitizedTextsKeepOnlyPolicyAnswers(t *testing.T) {
	t.Parallel()
	policy := bluemonday.UGCPolicy()
	kept := newSanitizedTexts(UGCSanitizer(), keptHTMLBytes)
	rec := sanitizedRecord{"acme", KindResource, "r-1"}
	for _, html := range []string{`<p>Kept <a href="https://example.com/">as it is</a></p>`, `<p onclick="x">changed</p>`, `<p>kept</p>`} {
		if got, want := kept.sanitize(rec, html), policy.Sanitize(html); got != want {
			t.Errorf("sanitize(%q) = %q, want the policy's %q", html, got, want)
		}
	}
	if len(kept.cur) != 1 {
		t.Errorf("%d answers kept, want 1 (the one the policy changed): %v", len(kept.cur), kept.cur)
	}
}

// cleanForms recognizes HTML by the UGC policy's rules for links: made
// for a policy with other rules (no relative URLs, no mailto, nofollow on
// outside links only), it recognizes nothing.
func TestCleanFormsOnlyForUGCLinks(t *testing.T) {
	t.Parallel()
	for name, policy := range map[string]func() *bluemonday.Policy{
		"absolute https only": func() *bluemonday.Policy {
			p := bluemonday.UGCPolicy()
			p.AllowRelativeURLs(false)
			return p
		},
		"nofollow outside": func() *bluemonday.Policy {
			p := bluemonday.NewPolicy()
			p.AllowElements("p")
			p.AllowAttrs("href").OnElements("a")
			p.RequireParseableURLs(true)
			p.AllowURLSchemes("https")
			p.RequireNoFollowOnFullyQualifiedLinks(true)
			return p
		},
	} {
		if c := newCleanForms(policy()); len(c.tags) != 0 {
			t.Errorf("%s: %d forms recognized, want none", name, len(c.tags))
		}
		if _, ok := newCleanForms(policy()).sanitize(`<p>plain</p>`); ok {
			t.Errorf("%s: plain HTML recognized", name)
		}
	}
}
