package cms

import (
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

func BenchmarkSanitize(b *testing.B) {
	s := UGCSanitizer()
	html := strings.Repeat(`<p>Some <b>bold</b> text with a <a href="https://example.org/x">link</a> and <i>more</i>.</p>`, 300)
	b.SetBytes(int64(len(html)))
	b.ReportAllocs()
	for b.Loop() {
		s.Sanitize(html)
	}
}
