package gencheck

import (
	"context"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/bwcms/cms/bwcmstest"
)

// The pinned generators; the TypeScript ones are in
// testdata/tsclient/package.json (and its lock file).
const oapiCodegen = "github.com/oapi-codegen/oapi-codegen/v2/cmd/oapi-codegen@v2.8.2"

// stepTimeout bounds each command (a download, a generation, a build, a
// session), so a hung registry fails the test instead of CI's budget.
const stepTimeout = 5 * time.Minute

// TestGeneratedClients generates a Go client (oapi-codegen) and a
// TypeScript client (openapi-typescript + openapi-fetch) from the
// committed docs/openapi.json, compiles both, and runs a session through
// each against its own test server: login, a create with a null, a batch
// and its status, reads with query options (published, fields, mapId,
// paging over 250 records, bbox, ids) and a refresh.
func TestGeneratedClients(t *testing.T) {
	if os.Getenv("CMS_GENCHECK") == "" {
		t.Skip("set CMS_GENCHECK=1 to generate and run the clients (needs the Go module proxy, npm and Node.js 20+)")
	}
	doc, err := filepath.Abs(filepath.Join("..", "..", "docs", "openapi.json"))
	if err != nil {
		t.Fatal(err)
	}
	t.Run("go", func(t *testing.T) {
		t.Parallel()
		api := bwcmstest.New(t, nil)
		dir := copyDir(t, filepath.Join("testdata", "goclient"))
		if err := os.Mkdir(filepath.Join(dir, "api"), 0o755); err != nil {
			t.Fatal(err)
		}
		run(t, dir, "go", "run", oapiCodegen, "-generate", "types,client", "-package", "api", "-o", "api/api.gen.go", doc)
		run(t, dir, "go", "build", "-o", "goclient", ".")
		run(t, dir, filepath.Join(dir, "goclient"), api.URL, bwcmstest.Admin, bwcmstest.Password)
	})
	t.Run("typescript", func(t *testing.T) {
		t.Parallel()
		api := bwcmstest.New(t, nil)
		dir := copyDir(t, filepath.Join("testdata", "tsclient"))
		run(t, dir, "npm", "ci", "--no-audit", "--no-fund", "--loglevel=error")
		run(t, dir, "npx", "--no-install", "openapi-typescript", doc, "-o", "schema.d.ts")
		run(t, dir, "npx", "--no-install", "tsc", "-p", ".")
		run(t, dir, "node", filepath.Join("dist", "session.js"), api.URL, bwcmstest.Admin, bwcmstest.Password)
	})
}

// run runs a command in dir and fails the test with its output when it
// fails. The generated client's module is its own: no go.work, and the
// proxy the environment names.
func run(t *testing.T, dir, name string, args ...string) {
	t.Helper()
	if _, err := exec.LookPath(name); err != nil {
		t.Fatalf("%s is needed to generate and run the clients: %v", name, err)
	}
	ctx, cancel := context.WithTimeout(t.Context(), stepTimeout)
	defer cancel()
	cmd := exec.CommandContext(ctx, name, args...)
	cmd.Dir = dir
	cmd.Env = append(os.Environ(), "GOWORK=off", "GOFLAGS=-mod=mod", "NO_UPDATE_NOTIFIER=1", "npm_config_update_notifier=false")
	start := time.Now()
	out, err := cmd.CombinedOutput()
	if err != nil {
		t.Fatalf("%s %s: %v\n%s", name, strings.Join(args, " "), err, out)
	}
	t.Logf("%s %s (%s): %s", filepath.Base(name), strings.Join(args, " "), time.Since(start).Round(time.Millisecond), strings.TrimSpace(lastLine(out)))
}

func lastLine(out []byte) string {
	lines := strings.Split(strings.TrimSpace(string(out)), "\n")
	return lines[len(lines)-1]
}

// copyDir copies the files of src (no folders) into a new temporary
// folder and returns it.
func copyDir(t *testing.T, src string) string {
	t.Helper()
	dst := t.TempDir()
	entries, err := os.ReadDir(src)
	if err != nil {
		t.Fatal(err)
	}
	for _, e := range entries {
		if e.IsDir() {
			continue
		}
		b, err := os.ReadFile(filepath.Join(src, e.Name()))
		if err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(filepath.Join(dst, e.Name()), b, 0o644); err != nil {
			t.Fatal(err)
		}
	}
	return dst
}
