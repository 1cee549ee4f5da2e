package browsertest

import (
	"context"
	_ "embed"
	"fmt"
	"strings"
	"testing"

	"github.com/chromedp/chromedp"
)

// AxeVersion is the version of the vendored axe-core (testdata/, MPL-2.0,
// refreshed by admin/tools/vendor.sh). It is embedded in test binaries
// only: package admin never imports this package.
const AxeVersion = "4.14.1"

//go:embed testdata/axe-core@4.14.1/axe.min.js
var axeSource string

// Violation is an accessibility rule that the page breaks, as axe-core
// reports it.
type Violation struct {
	ID          string          `json:"id"`     // the rule, such as "label"
	Impact      string          `json:"impact"` // "minor", "moderate", "serious" or "critical"
	Help        string          `json:"help"`   // what the rule asks for, in a line
	Description string          `json:"description"`
	HelpURL     string          `json:"helpUrl"`
	Nodes       []ViolationNode `json:"nodes"` // the elements that break it
}

// ViolationNode is one element that breaks a rule.
type ViolationNode struct {
	// Target is the element's CSS selector; an element inside shadow DOM has
	// the selectors of its hosts first, joined with " >>> ".
	Target         string `json:"target"`
	HTML           string `json:"html"` // the element's opening tag, shortened by axe
	Impact         string `json:"impact"`
	FailureSummary string `json:"failureSummary"` // what to fix
}

func (v Violation) String() string {
	var b strings.Builder
	fmt.Fprintf(&b, "%s %s: %s (%s)", v.Impact, v.ID, v.Help, v.HelpURL)
	for _, n := range v.Nodes {
		fmt.Fprintf(&b, "\n    %s  %s\n      %s", n.Target, n.HTML, strings.ReplaceAll(n.FailureSummary, "\n", "\n      "))
	}
	return b.String()
}

// axeRun runs axe on the whole document, once the finite animations
// running have ended (a popup fading in is measured at its final colours,
// not half transparent), and returns its violations as a JSON string
// (selectors flattened).
const axeRun = `Promise.all(document.getAnimations().filter((a) => a.effect && a.effect.getComputedTiming().endTime !== Infinity)
  .map((a) => a.finished.catch(() => {}))).then(() => axe.run(document, {resultTypes: ["violations"]})).then((r) => JSON.stringify(r.violations.map((v) => ({
  id: v.id, impact: v.impact || "", help: v.help, description: v.description, helpUrl: v.helpUrl,
  nodes: v.nodes.map((n) => ({
    target: n.target.map((s) => Array.isArray(s) ? s.join(" >>> ") : String(s)).join(" "),
    html: n.html, impact: n.impact || "", failureSummary: n.failureSummary || "",
  })),
}))))`

// Axe runs axe-core's rules on the page in the tab of ctx (injected through
// the DevTools protocol, so the page's CSP neither blocks it nor reports it)
// and returns the violations, of every impact.
func Axe(t testing.TB, ctx context.Context) []Violation {
	t.Helper()
	loaded, err := chromedp.Run(ctx, chromedp.Evaluate[bool](`typeof window.axe === "object" && typeof axe.run === "function"`))
	if err != nil {
		t.Fatalf("axe: %v", err)
	}
	if !loaded {
		if err := chromedp.Do(ctx, chromedp.Evaluate[chromedp.Void](axeSource+"\n;undefined")); err != nil {
			t.Fatalf("axe: injecting axe-core %s: %v", AxeVersion, err)
		}
	}
	raw, err := chromedp.Run(ctx, chromedp.Evaluate[[]byte](axeRun, chromedp.EvalAwaitPromise))
	if err != nil {
		t.Fatalf("axe: running: %v", err)
	}
	var vs []Violation
	if err := decodeJSON(raw, &vs); err != nil {
		t.Fatalf("axe: %v", err)
	}
	return vs
}

// RequireNoSeriousAxe fails t when axe finds a serious or critical violation
// on the page in the tab of ctx, listing each with the elements and what to
// fix; minor and moderate ones are logged.
func RequireNoSeriousAxe(t testing.TB, ctx context.Context) {
	t.Helper()
	var serious, other []string
	for _, v := range Axe(t, ctx) {
		if v.Impact == "serious" || v.Impact == "critical" {
			serious = append(serious, v.String())
		} else {
			other = append(other, v.String())
		}
	}
	if len(other) > 0 {
		t.Logf("axe: %d minor or moderate violation(s):\n  %s", len(other), strings.Join(other, "\n  "))
	}
	if len(serious) > 0 {
		t.Errorf("axe: %d serious or critical violation(s):\n  %s", len(serious), strings.Join(serious, "\n  "))
	}
}
