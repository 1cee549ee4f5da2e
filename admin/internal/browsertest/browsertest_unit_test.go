package browsertest

import (
	"fmt"
	"strings"
	"testing"
)

// These tests need no browser: they run in the plain `go test ./...`.

// stopper is a testing.TB whose Skipf and Fatalf record the message and stop
// the function under test, as the real ones stop the test.
type stopper struct {
	testing.TB
	skipped, fatal string
}

type stopped struct{}

func (s *stopper) Helper() {}
func (s *stopper) Skipf(format string, args ...any) {
	s.skipped = fmt.Sprintf(format, args...)
	panic(stopped{})
}
func (s *stopper) Fatalf(format string, args ...any) {
	s.fatal = fmt.Sprintf(format, args...)
	panic(stopped{})
}

// run calls New(s) and reports whether it stopped through Skipf or Fatalf.
func (s *stopper) run() (b *Browser) {
	defer func() {
		if r := recover(); r != nil {
			if _, ok := r.(stopped); !ok {
				panic(r)
			}
		}
	}()
	return New(s)
}

func TestNewWithoutABrowserSkipsUnlessRequired(t *testing.T) {
	t.Setenv(EnvChromium, "/nonexistent/chromium")

	t.Setenv(EnvRequired, "")
	s := &stopper{TB: t}
	if b := s.run(); b != nil || s.fatal != "" || !strings.Contains(s.skipped, "/nonexistent/chromium") || !strings.Contains(s.skipped, EnvRequired) {
		t.Errorf("not required: browser %v, skipped %q, fatal %q; want a skip naming the missing browser and %s", b, s.skipped, s.fatal, EnvRequired)
	}

	t.Setenv(EnvRequired, "1")
	s = &stopper{TB: t}
	if b := s.run(); b != nil || s.skipped != "" || !strings.Contains(s.fatal, "/nonexistent/chromium") || !strings.Contains(s.fatal, "required") {
		t.Errorf("required: browser %v, skipped %q, fatal %q; want a failure saying a browser is required", b, s.skipped, s.fatal)
	}
}

func TestFindChromium(t *testing.T) {
	t.Setenv(EnvChromium, "/nonexistent/chromium")
	if p, err := FindChromium(); err == nil {
		t.Errorf("CHROMIUM names no file, yet FindChromium found %s", p)
	}
	t.Setenv("PATH", t.TempDir())
	t.Setenv(EnvChromium, "")
	if p, err := FindChromium(); err == nil && p != "/usr/bin/chromium" {
		t.Errorf("with an empty PATH, FindChromium found %s; want /usr/bin/chromium or an error", p)
	} else if err != nil && !strings.Contains(err.Error(), "chromium") {
		t.Errorf("error %q does not say what was looked for", err)
	}
}

func TestMessagesAreReadable(t *testing.T) {
	for _, c := range []struct {
		got  fmt.Stringer
		want string
	}{
		{PageError{Kind: KindCSP, Directive: "script-src-elem", Blocked: "inline", URL: "http://h/p", Line: 3},
			"csp: script-src-elem blocked inline (http://h/p:3)"},
		{PageError{Kind: KindCSP, Directive: "img-src", Blocked: "data", Disposition: "report", Sample: "x"},
			`csp: img-src blocked data "x" (report only)`},
		{PageError{Kind: KindException, Text: "Uncaught Error: boom", URL: "http://h/a.js", Line: 1},
			"exception: Uncaught Error: boom (http://h/a.js:1)"},
		{Violation{ID: "label", Impact: "critical", Help: "Form elements must have labels", HelpURL: "https://x/label",
			Nodes: []ViolationNode{{Target: "#title", HTML: `<input id="title">`, FailureSummary: "Fix any:\n  add a label"}}},
			"critical label: Form elements must have labels (https://x/label)\n    #title  <input id=\"title\">\n      Fix any:\n        add a label"},
	} {
		if s := c.got.String(); s != c.want {
			t.Errorf("got\n%s\nwant\n%s", s, c.want)
		}
	}
	if got := fileName("TestX/sub test:1"); got != "TestX-sub-test-1" {
		t.Errorf("fileName = %q", got)
	}
}

func TestAxeIsEmbedded(t *testing.T) {
	if !strings.Contains(axeSource[:2000], "axe v"+AxeVersion) {
		t.Errorf("the embedded axe.min.js does not start with its version %s: %.200q", AxeVersion, axeSource)
	}
}
