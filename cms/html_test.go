package cms

import (
	"strconv"
	"strings"
	"sync"
	"testing"
)

func TestUGCSanitizer(t *testing.T) {
	t.Parallel()
	s := UGCSanitizer()
	for in, want := range map[string]string{
		`<p>Hello <b>world</b></p>`:                           `<p>Hello <b>world</b></p>`,
		`<script>alert(1)</script><p>x</p>`:                   `<p>x</p>`,
		`<p onclick="steal()">x</p>`:                          `<p>x</p>`,
		`<a href="javascript:alert(1)">x</a>`:                 `x`,
		`<a href="https://example.org">x</a>`:                 `<a href="https://example.org" rel="nofollow">x</a>`,
		`<img src="data:image/png;base64,AAAA">`:              ``,
		`<style>p{}</style><iframe src="https://x"></iframe>`: ``,
		`<ul><li>a</li></ul><h2>t</h2>`:                       `<ul><li>a</li></ul><h2>t</h2>`,
	} {
		got := s.Sanitize(in)
		if got != want {
			t.Errorf("Sanitize(%q) = %q, want %q", in, got, want)
		}
		// What is stored is compared for Skip: sanitizing it again must
		// not change it.
		if again := s.Sanitize(got); again != got {
			t.Errorf("not idempotent: %q -> %q", got, again)
		}
	}
	// Safe for concurrent use.
	var wg sync.WaitGroup
	for range 8 {
		wg.Go(func() {
			for range 100 {
				if got := s.Sanitize(`<p onclick="x">y</p>`); got != `<p>y</p>` {
					t.Errorf("concurrent: %q", got)
				}
			}
		})
	}
	wg.Wait()
}

// The answers the default sanitizer keeps are the policy's, and they stay
// within their bound however many distinct texts come.
func TestUGCSanitizerKeptAnswers(t *testing.T) {
	t.Parallel()
	u := UGCSanitizer().(*ugc)
	text := func(i int) string {
		return strings.Repeat(`<p onclick="x">`+strconv.Itoa(i)+`</p>`, 1000)
	}
	for i := range 600 { // about 9 MB of input and answers: past the bound
		in := text(i % 300)
		want := u.p.Sanitize(in)
		for range 2 {
			if got := u.Sanitize(in); got != want {
				t.Fatalf("text %d: %.40q, want %.40q", i, got, want)
			}
		}
		u.mu.Lock()
		size := u.size
		u.mu.Unlock()
		if size > keptHTMLBytes {
			t.Fatalf("%d bytes kept, bound %d", size, keptHTMLBytes)
		}
	}
	big := strings.Repeat("<p>x</p>", maxKeptHTML/8+1)
	if got := u.Sanitize(big); got != big {
		t.Fatalf("a long text: %.40q", got)
	}
	if _, kept := u.done[big]; kept {
		t.Fatal("a text over maxKeptHTML was kept")
	}
}

// BenchmarkSanitize sanitizes a 30 KB text: a new one each time (the
// policy's work) and one sanitized before (a kept answer).
func BenchmarkSanitize(b *testing.B) {
	html := strings.Repeat(`<p>Some <b>bold</b> text with a <a href="https://example.org/x">link</a> and <i>more</i>.</p>`, 300)
	b.Run("new", func(b *testing.B) {
		s := UGCSanitizer().(*ugc)
		b.SetBytes(int64(len(html)))
		b.ReportAllocs()
		for b.Loop() {
			s.p.Sanitize(html)
		}
	})
	b.Run("again", func(b *testing.B) {
		s := UGCSanitizer()
		s.Sanitize(html)
		b.SetBytes(int64(len(html)))
		b.ReportAllocs()
		for b.Loop() {
			s.Sanitize(html)
		}
	})
}
