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

// sanitizedCorpus is HTML the kept answers are checked on: the policy's
// own cases, the load tool's rich text, texts the policy rewrites.
var sanitizedCorpus = []string{
	`<p>Hello <b>world</b></p>`,
	`<script>alert(1)</script><p>x</p>`,
	`<p onclick="steal()">x</p>`,
	`<a href="javascript:alert(1)">x</a>`,
	`<a href="https://example.org">x</a>`,
	`<img src="data:image/png;base64,AAAA">`,
	`<style>p{}</style><iframe src="https://x"></iframe>`,
	`<h2>Resource</h2>` + strings.Repeat(`<p>Lorem <strong>ipsum</strong> <a href="https://example.com/info">More info</a> &amp; details.</p>`, 20),
	`<p>unclosed <b>bold`,
	`a < b & c > d "quoted" 'single'`,
	``,
}

// The kept answers are the policy's, whichever account and kind asks, in
// any order, while generations turn over (a limit of a few texts).
func TestSanitizedTextsAgree(t *testing.T) {
	t.Parallel()
	policy := UGCSanitizer()
	want := map[string]string{}
	for _, in := range sanitizedCorpus {
		want[in] = policy.Sanitize(in)
	}
	for _, limit := range []int{0, 600, keptHTMLBytes} {
		kept := newSanitizedTexts(policy, limit)
		for round := range 3 {
			for i, in := range sanitizedCorpus {
				account := []string{"acme", "other"}[(i+round)%2]
				kind := []Kind{KindResource, KindMap}[round%2]
				if got := kept.sanitize(sanitizedRecord{account, kind, "r-1"}, in); got != want[in] {
					t.Errorf("limit %d, round %d: sanitize(%q) = %q, want %q", limit, round, in, got, want[in])
				}
			}
		}
	}
	// Over maxKeptHTML: sanitized each time, never kept.
	long := strings.Repeat(`<p onclick="x">y</p>`, maxKeptHTML/10)
	kept := newSanitizedTexts(policy, keptHTMLBytes)
	if got, want := kept.sanitize(sanitizedRecord{"acme", KindResource, "r-1"}, long), policy.Sanitize(long); got != want {
		t.Errorf("long text: got %d bytes, want %d", len(got), len(want))
	}
	if len(kept.cur) != 0 {
		t.Errorf("long text kept: %d answers", len(kept.cur))
	}
}

// An answer is kept for the record that asked: another's first request
// for the same text (another account's, kind's or id's) is sanitized
// again, so its time tells nothing about what others wrote, and records
// sharing a text gain nothing.
func TestSanitizedTextsPerRecord(t *testing.T) {
	t.Parallel()
	calls := 0
	kept := newSanitizedTexts(countingSanitizer{UGCSanitizer(), &calls}, keptHTMLBytes)
	in := `<p onclick="x">y</p>`
	for _, ask := range []struct {
		sanitizedRecord
		calls int
	}{
		{sanitizedRecord{"acme", KindResource, "r-1"}, 1},
		{sanitizedRecord{"acme", KindResource, "r-1"}, 1},
		{sanitizedRecord{"other", KindResource, "r-1"}, 2},
		{sanitizedRecord{"acme", KindMap, "r-1"}, 3},
		{sanitizedRecord{"acme", KindResource, "r-2"}, 4},
		{sanitizedRecord{"other", KindResource, "r-1"}, 4},
		{sanitizedRecord{"acme", KindResource, "r-2"}, 4},
	} {
		if got := kept.sanitize(ask.sanitizedRecord, in); got != `<p>y</p>` {
			t.Errorf("%v: %q", ask.sanitizedRecord, got)
		}
		if calls != ask.calls {
			t.Errorf("%v: policy asked %d times, want %d", ask.sanitizedRecord, calls, ask.calls)
		}
	}
}

// A text found in the older generation moves to the newer, so the texts
// in use outlive a turn-over; the others are dropped with the older.
func TestSanitizedTextsGenerations(t *testing.T) {
	t.Parallel()
	calls := 0
	a, b, c, d := `<p>a</p>`, `<p>b</p>`, `<p>c</p>`, `<p>d</p>`
	// Two texts and their answers fill a generation.
	kept := newSanitizedTexts(countingSanitizer{UGCSanitizer(), &calls}, 2*(len("acme")+len("r-1")+2*len(a)))
	for _, in := range []string{a, b, c, a, d, b, a} {
		kept.sanitize(sanitizedRecord{"acme", KindResource, "r-1"}, in)
	}
	// a, b, c asked; c turns {a, b} older; a found there moves up beside
	// c; d asked turns {c, a} older and drops b, asked again; a, in use,
	// is still kept.
	if calls != 5 {
		t.Errorf("policy asked %d times, want 5", calls)
	}
}

type countingSanitizer struct {
	Sanitizer
	calls *int
}

func (c countingSanitizer) Sanitize(html string) string {
	*c.calls++
	return c.Sanitizer.Sanitize(html)
}

func BenchmarkSanitizeKept(b *testing.B) {
	kept := newSanitizedTexts(UGCSanitizer(), keptHTMLBytes)
	html := strings.Repeat(`<p>Some <b>bold</b> text with a <a href="https://example.org/x">link</a> and <i>more</i>.</p>`, 20)
	b.SetBytes(int64(len(html)))
	b.ReportAllocs()
	for b.Loop() {
		kept.sanitize(sanitizedRecord{"acme", KindResource, "r-1"}, html)
	}
}

// FuzzSanitize: the kept answers are the policy's, asked once or again,
// by any account, while generations turn over; and the policy's answer
// is its own answer again, which a record read and posted back relies on
// to be a Skip (DECISIONS §13).
func FuzzSanitize(f *testing.F) {
	for _, in := range sanitizedCorpus {
		f.Add(in)
	}
	policy := UGCSanitizer()
	kept := newSanitizedTexts(policy, 4<<10)
	f.Fuzz(func(t *testing.T, in string) {
		want := policy.Sanitize(in)
		for _, account := range []string{"acme", "acme", "other"} {
			if got := kept.sanitize(sanitizedRecord{account, KindResource, "r-1"}, in); got != want {
				t.Fatalf("kept answer %q, policy %q", got, want)
			}
		}
		if again := policy.Sanitize(want); again != want {
			t.Fatalf("not idempotent: %q -> %q -> %q", in, want, again)
		}
	})
}
