// Package browsertest drives a real, headless Chromium from Go tests of the
// admin: it starts Debian's chromium (no browser download) with chromedp,
// opens isolated tabs, saves full-page screenshots, runs the axe-core
// accessibility checker in the page, and records what went wrong in the page
// (uncaught exceptions, console errors, browser log errors such as a failed
// load, and Content-Security-Policy violations) so that a test can assert that
// nothing did.
//
// Tests that use it carry the build tag `browser` so that `go test ./...`
// does not run them; CI runs `go test -tags browser ./admin/...`. Without a
// browser, New skips the test, unless CMS_BROWSER_REQUIRED is set (CI), when
// it fails it.
//
//	b := browsertest.New(t)
//	ctx := b.NewTab(t)
//	if err := chromedp.Do(ctx, chromedp.Navigate(srv.URL+"/admin/")); err != nil {
//		t.Fatal(err)
//	}
//	browsertest.RequireNoSeriousAxe(t, ctx)
//	browsertest.Screenshot(t, ctx, "overview")
//	browsertest.RequireNoErrors(t, ctx)
package browsertest

import (
	"bytes"
	"context"
	_ "embed"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/chromedp/cdproto/cdp"
	"github.com/chromedp/cdproto/page"
	"github.com/chromedp/cdproto/runtime"
	"github.com/chromedp/chromedp"
)

// The environment variables the package reads.
const (
	// EnvRequired, when set (CI sets it to 1), makes New fail instead of skip
	// when no browser is found.
	EnvRequired = "CMS_BROWSER_REQUIRED"
	// EnvChromium names the browser executable to use instead of searching
	// the PATH.
	EnvChromium = "CHROMIUM"
	// EnvScreenshots is the folder Screenshot writes to; a relative path is
	// taken from the module root. Unset, screenshots go to the test's
	// temporary directory, so nothing is written to the repository.
	EnvScreenshots = "CMS_SCREENSHOTS"
)

// browserNames are the executables FindChromium looks for on the PATH, in
// order: Debian's chromium first.
var browserNames = []string{"chromium", "chromium-browser", "headless-shell", "headless_shell"}

// FindChromium returns the browser executable: $CHROMIUM when set (an error
// when it is not an executable), else the first of chromium,
// chromium-browser, headless-shell found on the PATH or /usr/bin/chromium.
func FindChromium() (string, error) {
	if p := os.Getenv(EnvChromium); p != "" {
		found, err := exec.LookPath(p)
		if err != nil {
			return "", fmt.Errorf("%s=%s: %w", EnvChromium, p, err)
		}
		return found, nil
	}
	for _, name := range browserNames {
		if found, err := exec.LookPath(name); err == nil {
			return found, nil
		}
	}
	if found, err := exec.LookPath("/usr/bin/chromium"); err == nil {
		return found, nil
	}
	return "", fmt.Errorf("no browser found: none of %s on the PATH, no /usr/bin/chromium, and %s is not set",
		strings.Join(browserNames, ", "), EnvChromium)
}

// Browser is one headless Chromium process for one test; it ends when the
// test does.
type Browser struct {
	ctx context.Context // chromedp context that owns the browser process
}

// New starts a headless Chromium for the test t, stopped and its profile
// removed when t ends. Without a browser it skips t, or fails it when
// CMS_BROWSER_REQUIRED is set.
func New(t testing.TB) *Browser {
	t.Helper()
	path, err := FindChromium()
	if err != nil {
		if os.Getenv(EnvRequired) != "" {
			t.Fatalf("browser tests: %v (%s is set, so a browser is required: apt-get install chromium)", err, EnvRequired)
		}
		t.Skipf("browser tests skipped: %v (install Debian's chromium or set %s; %s=1 makes this a failure)", err, EnvChromium, EnvRequired)
	}
	profile, err := os.MkdirTemp("", "bwcms-chromium-")
	if err != nil {
		t.Fatalf("browser profile directory: %v", err)
	}
	output := &lockedBuffer{}
	opts := append(chromedp.DefaultExecAllocatorOptions[:],
		chromedp.ExecPath(path),
		chromedp.UserDataDir(profile),
		chromedp.Headless,
		chromedp.NoSandbox,
		chromedp.DisableGPU,
		chromedp.NoFirstRun,
		chromedp.Flag("disable-quic", true),
		chromedp.Flag("disable-background-networking", true),
		chromedp.Flag("disable-component-update", true),
		chromedp.Flag("disable-sync", true),
		chromedp.WindowSize(1280, 900),
		chromedp.CombinedOutput(output),
	)
	allocCtx, cancelAlloc := chromedp.NewExecAllocator(context.Background(), opts...)
	ctx, cancelBrowser := chromedp.NewContext(allocCtx)
	t.Cleanup(func() {
		cancelBrowser()
		cancelAlloc() // waits for the process to end
		if err := os.RemoveAll(profile); err != nil {
			t.Logf("removing the browser profile %s: %v", profile, err)
		}
	})
	if err := chromedp.Do(ctx); err != nil {
		t.Fatalf("starting %s: %v\nbrowser output:\n%s", path, err, output.String())
	}
	return &Browser{ctx: ctx}
}

// NewTab opens a tab in a browser context of its own (its own cookies and
// storage, like a separate browser profile: two tabs are two editors), closed
// when t ends. The returned context carries the tab for chromedp.Do and Run
// and for this package's functions; it ends 30 seconds before t's deadline
// (when t has one) so that a wait that never ends fails the test with an
// error rather than a panic of the test binary.
func (b *Browser) NewTab(t testing.TB) context.Context {
	t.Helper()
	tab := &tabState{}
	ctx, cancel := chromedp.NewContext(b.ctx, chromedp.WithNewBrowserContext(), chromedp.WithListener(tab.listen))
	t.Cleanup(cancel)
	if d, ok := t.(interface{ Deadline() (time.Time, bool) }); ok {
		if deadline, ok := d.Deadline(); ok {
			var cancelDeadline context.CancelFunc
			ctx, cancelDeadline = context.WithDeadline(ctx, deadline.Add(-30*time.Second))
			t.Cleanup(cancelDeadline)
		}
	}
	ctx = context.WithValue(ctx, tabKey{}, tab)
	err := chromedp.Do(ctx, chromedp.Func(func(ctx context.Context, tgt *chromedp.Target) error {
		if _, err := cdp.Call(ctx, tgt, runtime.AddBinding, runtime.AddBindingParams{Name: cspBinding}); err != nil {
			return err
		}
		_, err := cdp.Call(ctx, tgt, page.AddScriptToEvaluateOnNewDocument,
			page.AddScriptToEvaluateOnNewDocumentParams{Source: cspListener})
		return err
	}))
	if err != nil {
		t.Fatalf("opening a tab: %v", err)
	}
	return ctx
}

// Screenshot saves a full-page PNG of the tab as <test name>-<name>.png in
// $CMS_SCREENSHOTS (relative to the module root) or, when that is unset, in
// a temporary directory of t; it returns the file's path.
func Screenshot(t testing.TB, ctx context.Context, name string) string {
	t.Helper()
	dir := os.Getenv(EnvScreenshots)
	if dir == "" {
		dir = t.TempDir()
	} else if !filepath.IsAbs(dir) {
		root, err := moduleRoot()
		if err != nil {
			t.Fatalf("screenshot %q: %s=%s is relative, but: %v", name, EnvScreenshots, dir, err)
		}
		dir = filepath.Join(root, dir)
	}
	if err := os.MkdirAll(dir, 0o755); err != nil {
		t.Fatalf("screenshot %q: %v", name, err)
	}
	png, err := chromedp.Run(ctx, chromedp.FullScreenshot(100))
	if err != nil {
		t.Fatalf("screenshot %q: %v", name, err)
	}
	file := filepath.Join(dir, fileName(t.Name())+"-"+fileName(name)+".png")
	if err := os.WriteFile(file, png, 0o644); err != nil {
		t.Fatalf("screenshot %q: %v", name, err)
	}
	t.Logf("screenshot %s", file)
	return file
}

// fileName makes s safe as (part of) a file name.
func fileName(s string) string {
	return strings.Map(func(r rune) rune {
		switch {
		case r >= 'a' && r <= 'z', r >= 'A' && r <= 'Z', r >= '0' && r <= '9', r == '-', r == '_', r == '.':
			return r
		}
		return '-'
	}, s)
}

// moduleRoot returns the nearest directory up from the working directory (a
// test's package) that holds go.mod.
func moduleRoot() (string, error) {
	dir, err := os.Getwd()
	if err != nil {
		return "", err
	}
	for {
		if _, err := os.Stat(filepath.Join(dir, "go.mod")); err == nil {
			return dir, nil
		}
		parent := filepath.Dir(dir)
		if parent == dir {
			return "", errors.New("no go.mod above the working directory")
		}
		dir = parent
	}
}

// lockedBuffer collects the browser's output, written from another goroutine.
type lockedBuffer struct {
	mu  sync.Mutex
	buf bytes.Buffer
}

func (b *lockedBuffer) Write(p []byte) (int, error) {
	b.mu.Lock()
	defer b.mu.Unlock()
	if b.buf.Len() > 64<<10 { // enough to explain a failed start
		return len(p), nil
	}
	return b.buf.Write(p)
}

func (b *lockedBuffer) String() string {
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.buf.String()
}

// decodeJSON decodes the JSON text a page script returned.
func decodeJSON(data []byte, v any) error {
	var s string
	// Evaluate[[]byte] gives the raw JSON of the result; the scripts here
	// return a JSON string (JSON.stringify) to keep numbers and nesting as is.
	if err := json.Unmarshal(data, &s); err != nil {
		return fmt.Errorf("page script result %.200q: %w", data, err)
	}
	if err := json.Unmarshal([]byte(s), v); err != nil {
		return fmt.Errorf("page script result %.200q: %w", s, err)
	}
	return nil
}

// tabKey is the context key of a tab's *tabState.
type tabKey struct{}

func tabOf(ctx context.Context) (*tabState, error) {
	tab, ok := ctx.Value(tabKey{}).(*tabState)
	if !ok {
		return nil, errors.New("browsertest: the context is not a tab of Browser.NewTab")
	}
	return tab, nil
}
