package browsertest

import (
	"context"
	"encoding/json"
	"fmt"
	"strings"
	"sync"
	"testing"

	cdplog "github.com/chromedp/cdproto/log"
	"github.com/chromedp/cdproto/runtime"
	"github.com/chromedp/chromedp"
)

// Kinds of PageError.
const (
	// KindException is an uncaught exception or unhandled promise rejection.
	KindException = "exception"
	// KindConsole is a console.error call or a failed console.assert.
	KindConsole = "console"
	// KindLog is an error of the browser's own log: a resource that failed to
	// load (404, refused), a CSP block ("security"), a refused MIME type...
	KindLog = "log"
	// KindCSP is a securitypolicyviolation event: what a Content-Security-
	// Policy blocked (or would block, for a report-only policy). The browser
	// log usually reports the same block as a KindLog error with the hash
	// that would allow it.
	KindCSP = "csp"
)

// PageError is something that went wrong in a tab's pages.
type PageError struct {
	Kind string // KindException, KindConsole, KindLog or KindCSP
	Text string // the message, as the DevTools console would show it
	URL  string // the document or script it comes from, when known
	Line int64  // 1-based line in URL, 0 when unknown

	// For KindCSP: the effective directive (such as "script-src-elem"), the
	// blocked URL or "inline" or "eval", the first characters of the blocked
	// code, and "enforce" or "report".
	Directive   string
	Blocked     string
	Sample      string
	Disposition string
}

func (e PageError) String() string {
	var b strings.Builder
	b.WriteString(e.Kind)
	b.WriteString(": ")
	if e.Kind == KindCSP {
		fmt.Fprintf(&b, "%s blocked %s", e.Directive, e.Blocked)
		if e.Sample != "" {
			fmt.Fprintf(&b, " %q", e.Sample)
		}
		if e.Disposition == "report" {
			b.WriteString(" (report only)")
		}
	} else {
		b.WriteString(e.Text)
	}
	if e.URL != "" {
		fmt.Fprintf(&b, " (%s", e.URL)
		if e.Line > 0 {
			fmt.Fprintf(&b, ":%d", e.Line)
		}
		b.WriteString(")")
	}
	return b.String()
}

// cspBinding is the name of the function, bound to Go through the DevTools
// protocol, that cspListener calls with each violation.
const cspBinding = "__bwcmsBrowsertestCSP"

// cspListener runs in every document of a tab before the page's own scripts
// (a DevTools script, which the page's CSP does not restrict) and reports
// each securitypolicyviolation event.
const cspListener = `(() => {
  const report = globalThis.` + cspBinding + `;
  if (typeof report !== "function") return;
  document.addEventListener("securitypolicyviolation", (e) => {
    try {
      report(JSON.stringify({directive: e.effectiveDirective, blocked: e.blockedURI, url: e.sourceFile || e.documentURI,
        line: e.lineNumber, sample: e.sample, disposition: e.disposition}));
    } catch (_) {}
  }, true);
})();`

// tabState is what a tab's listener collected.
type tabState struct {
	mu   sync.Mutex
	errs []PageError
}

func (s *tabState) add(e PageError) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.errs = append(s.errs, e)
}

// listen is the tab's chromedp listener: it runs on the goroutine that reads
// the tab's messages, so it only records.
func (s *tabState) listen(ev any) {
	switch ev := ev.(type) {
	case *runtime.EventExceptionThrown:
		d := ev.ExceptionDetails
		if d == nil {
			return
		}
		text := d.Text
		if d.Exception != nil && d.Exception.Description != "" {
			text += " " + d.Exception.Description
		} else if d.Exception != nil && len(d.Exception.Value) > 0 {
			text += " " + remoteText(d.Exception)
		}
		s.add(PageError{Kind: KindException, Text: text, URL: d.URL, Line: d.LineNumber + 1})
	case *runtime.EventConsoleAPICalled:
		if ev.Type != runtime.ConsoleAPICalledTypeError && ev.Type != runtime.ConsoleAPICalledTypeAssert {
			return
		}
		parts := make([]string, 0, len(ev.Args))
		for _, a := range ev.Args {
			parts = append(parts, remoteText(a))
		}
		e := PageError{Kind: KindConsole, Text: "console." + string(ev.Type) + ": " + strings.Join(parts, " ")}
		if ev.StackTrace != nil && len(ev.StackTrace.CallFrames) > 0 {
			e.URL, e.Line = ev.StackTrace.CallFrames[0].URL, ev.StackTrace.CallFrames[0].LineNumber+1
		}
		s.add(e)
	case *cdplog.EventEntryAdded:
		if ev.Entry == nil || ev.Entry.Level != cdplog.EntryLevelError {
			return
		}
		line := ev.Entry.LineNumber
		if line > 0 {
			line++ // 0-based in the protocol
		}
		s.add(PageError{Kind: KindLog, Text: "[" + string(ev.Entry.Source) + "] " + ev.Entry.Text, URL: ev.Entry.URL, Line: line})
	case *runtime.EventBindingCalled:
		if ev.Name != cspBinding {
			return
		}
		var v struct {
			Directive, Blocked, URL, Sample, Disposition string
			Line                                         int64
		}
		if err := json.Unmarshal([]byte(ev.Payload), &v); err != nil {
			s.add(PageError{Kind: KindCSP, Text: "unreadable report: " + ev.Payload})
			return
		}
		s.add(PageError{Kind: KindCSP, Text: "Content-Security-Policy " + v.Directive + " blocked " + v.Blocked,
			URL: v.URL, Line: v.Line, Directive: v.Directive, Blocked: v.Blocked, Sample: v.Sample, Disposition: v.Disposition})
	}
}

// remoteText is how the console shows a logged value.
func remoteText(o *runtime.RemoteObject) string {
	if o == nil {
		return ""
	}
	if o.Type == runtime.RemoteObjectTypeString {
		var s string
		if json.Unmarshal([]byte(o.Value), &s) == nil {
			return s
		}
	}
	if o.Description != "" {
		return o.Description
	}
	if len(o.Value) > 0 {
		return string(o.Value)
	}
	if o.UnserializableValue != "" {
		return string(o.UnserializableValue)
	}
	return string(o.Type)
}

// settle lets what the page has already queued (an event listener's report)
// reach Go: the tab's messages arrive in order, so once a script that waits
// one task has answered, the reports sent before its answer were recorded.
func settle(ctx context.Context) {
	_ = chromedp.Do(ctx, chromedp.Evaluate[chromedp.Void](`new Promise((r) => setTimeout(r, 0))`, chromedp.EvalAwaitPromise))
}

// Errors returns what went wrong so far in the tab of ctx (every page it
// showed), oldest first.
func Errors(ctx context.Context) []PageError {
	tab, err := tabOf(ctx)
	if err != nil {
		return []PageError{{Kind: KindException, Text: err.Error()}}
	}
	settle(ctx)
	tab.mu.Lock()
	defer tab.mu.Unlock()
	return append([]PageError(nil), tab.errs...)
}

// ClearErrors forgets what Errors has recorded so far in the tab of ctx, for
// a test that caused some on purpose.
func ClearErrors(ctx context.Context) {
	tab, err := tabOf(ctx)
	if err != nil {
		return
	}
	settle(ctx)
	tab.mu.Lock()
	defer tab.mu.Unlock()
	tab.errs = nil
}

// RequireNoErrors fails t, listing them, when anything went wrong in the tab
// of ctx: an uncaught exception, a console error, a browser log error (such as
// a failed load) or a CSP violation.
func RequireNoErrors(t testing.TB, ctx context.Context) {
	t.Helper()
	if _, err := tabOf(ctx); err != nil {
		t.Fatal(err)
	}
	if errs := Errors(ctx); len(errs) > 0 {
		lines := make([]string, len(errs))
		for i, e := range errs {
			lines[i] = e.String()
		}
		t.Errorf("%d error(s) in the page:\n  %s", len(errs), strings.Join(lines, "\n  "))
	}
}
