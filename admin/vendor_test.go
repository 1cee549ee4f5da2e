package admin

import (
	"bufio"
	"bytes"
	"crypto/sha256"
	"encoding/hex"
	"io/fs"
	"maps"
	"os"
	"path"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"testing"
	"testing/fstest"
)

// The vendored third-party files (static/vendor, served; and axe-core under
// internal/browsertest/testdata, tests only) are committed unchanged from npm
// by tools/vendor.sh. These tests re-hash them from disk so that an edited,
// missing or unlisted file, or a folder without its licence, fails CI.

// vendorFolder is the name of a vendored package's folder: <name>@<version>.
var vendorFolder = regexp.MustCompile(`^[a-z0-9][a-z0-9._-]*@[0-9]+\.[0-9]+\.[0-9]+$`)

// sumsProblems checks the folder dir of fsys against dir/SHA256SUMS (the
// format of sha256sum: "<hex>  <path>" per line, paths relative to dir). It
// returns one readable problem per bad line, missing or changed file, and
// file under dir that the list leaves out (SHA256SUMS itself and README.md
// excepted); nil when all is well.
func sumsProblems(fsys fs.FS, dir string) []string {
	sums, err := fs.ReadFile(fsys, path.Join(dir, "SHA256SUMS"))
	if err != nil {
		return []string{"cannot read " + path.Join(dir, "SHA256SUMS") + ": " + err.Error()}
	}
	var problems []string
	listed := map[string]string{}
	sc := bufio.NewScanner(bytes.NewReader(sums))
	for n := 1; sc.Scan(); n++ {
		line := sc.Text()
		sum, name, ok := strings.Cut(line, "  ")
		if !ok {
			sum, name, ok = strings.Cut(line, " *")
		}
		if _, herr := hex.DecodeString(sum); !ok || herr != nil || len(sum) != 64 || !fs.ValidPath(name) || name == "." {
			problems = append(problems, path.Join(dir, "SHA256SUMS")+": line "+strconv.Itoa(n)+" is not \"<sha256>  <relative path>\": "+line)
			continue
		}
		if _, dup := listed[name]; dup {
			problems = append(problems, path.Join(dir, "SHA256SUMS")+": "+name+" is listed twice")
			continue
		}
		listed[name] = strings.ToLower(sum)
	}
	for _, name := range slices.Sorted(maps.Keys(listed)) {
		data, err := fs.ReadFile(fsys, path.Join(dir, name))
		if err != nil {
			problems = append(problems, path.Join(dir, name)+" is listed in SHA256SUMS but cannot be read: "+err.Error())
			continue
		}
		got := sha256.Sum256(data)
		if hex.EncodeToString(got[:]) != listed[name] {
			problems = append(problems, path.Join(dir, name)+" does not match its SHA256SUMS entry: edited, or vendored without tools/vendor.sh")
		}
	}
	err = fs.WalkDir(fsys, dir, func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		if d.IsDir() {
			return nil
		}
		rel := strings.TrimPrefix(p, dir+"/")
		if rel == "SHA256SUMS" || rel == "README.md" {
			return nil
		}
		if _, ok := listed[rel]; !ok {
			problems = append(problems, p+" is not listed in SHA256SUMS")
		}
		return nil
	})
	if err != nil {
		problems = append(problems, "cannot walk "+dir+": "+err.Error())
	}
	return problems
}

// folderProblems checks that every entry directly under dir is a
// <name>@<version> folder holding a LICENSE (dir's own SHA256SUMS and
// README.md excepted).
func folderProblems(fsys fs.FS, dir string) []string {
	entries, err := fs.ReadDir(fsys, dir)
	if err != nil {
		return []string{"cannot read " + dir + ": " + err.Error()}
	}
	var problems []string
	for _, e := range entries {
		if !e.IsDir() {
			if e.Name() != "SHA256SUMS" && e.Name() != "README.md" {
				problems = append(problems, path.Join(dir, e.Name())+" is a file: vendored files go in a <name>@<version> folder")
			}
			continue
		}
		if !vendorFolder.MatchString(e.Name()) {
			problems = append(problems, path.Join(dir, e.Name())+" is not named <name>@<version>")
		}
		if _, err := fs.Stat(fsys, path.Join(dir, e.Name(), "LICENSE")); err != nil {
			problems = append(problems, path.Join(dir, e.Name())+" has no LICENSE")
		}
	}
	return problems
}

func reportProblems(t *testing.T, problems []string) {
	t.Helper()
	if len(problems) > 0 {
		t.Errorf("%d problem(s) with the vendored files (refresh them with admin/tools/vendor.sh, never by hand):\n  %s",
			len(problems), strings.Join(problems, "\n  "))
	}
}

// TestVendoredFilesMatchChecksums re-hashes every file the admin serves from
// static/vendor against static/vendor/SHA256SUMS, checks each
// <name>@<version> folder has its LICENSE and is named in the README, and that
// the tests-only axe-core is not among them.
func TestVendoredFilesMatchChecksums(t *testing.T) {
	fsys := os.DirFS("static")
	reportProblems(t, sumsProblems(fsys, "vendor"))
	reportProblems(t, folderProblems(fsys, "vendor"))

	entries, err := fs.ReadDir(fsys, "vendor")
	if err != nil {
		t.Fatal(err)
	}
	readme, err := fs.ReadFile(fsys, "vendor/README.md")
	if err != nil {
		t.Fatalf("static/vendor/README.md (what each vendored library is, its version, licence and source): %v", err)
	}
	var folders []string
	for _, e := range entries {
		if !e.IsDir() {
			continue
		}
		folders = append(folders, e.Name())
		if !bytes.Contains(readme, []byte("`"+e.Name()+"`")) {
			t.Errorf("static/vendor/README.md does not describe %s", e.Name())
		}
		if strings.HasPrefix(e.Name(), "axe-core@") {
			t.Errorf("static/vendor/%s: axe-core is for the browser tests only and must not be served", e.Name())
		}
	}
	for _, want := range []string{"trix@", "sortablejs@"} {
		if !slices.ContainsFunc(folders, func(f string) bool { return strings.HasPrefix(f, want) }) {
			t.Errorf("static/vendor has no %s<version> folder (have %v)", want, folders)
		}
	}
}

// TestVendoredAxeMatchesChecksums does the same for the tests-only copy of
// axe-core that package browsertest embeds.
func TestVendoredAxeMatchesChecksums(t *testing.T) {
	fsys := os.DirFS("internal/browsertest/testdata")
	dirs, err := fs.Glob(fsys, "axe-core@*")
	if err != nil {
		t.Fatal(err)
	}
	if len(dirs) != 1 {
		t.Fatalf("internal/browsertest/testdata holds %d axe-core@<version> folders %v, want exactly 1", len(dirs), dirs)
	}
	reportProblems(t, folderProblems(fsys, "."))
	reportProblems(t, sumsProblems(fsys, dirs[0]))
	if _, err := fs.Stat(fsys, path.Join(dirs[0], "axe.min.js")); err != nil {
		t.Errorf("%s has no axe.min.js: %v", dirs[0], err)
	}
}

// TestVendorChecksRefuseTampering shows the checks above catch what they
// exist for, on a copy of the real static/vendor: an edited file, a deleted
// one, an added one, a malformed SHA256SUMS line and a folder without LICENSE.
func TestVendorChecksRefuseTampering(t *testing.T) {
	real := fstest.MapFS{}
	err := fs.WalkDir(os.DirFS("static"), "vendor", func(p string, d fs.DirEntry, err error) error {
		if err != nil || d.IsDir() {
			return err
		}
		data, err := fs.ReadFile(os.DirFS("static"), p)
		real[p] = &fstest.MapFile{Data: data}
		return err
	})
	if err != nil {
		t.Fatal(err)
	}
	if p := append(sumsProblems(real, "vendor"), folderProblems(real, "vendor")...); len(p) > 0 {
		t.Fatalf("the untouched copy already has problems: %v", p)
	}
	listedFile := func() string {
		for p := range real {
			if strings.HasSuffix(p, ".js") {
				return p
			}
		}
		t.Fatal("no .js file in static/vendor")
		return ""
	}
	cases := []struct {
		name   string
		tamper func(m fstest.MapFS)
		want   string // in one of the problems
		check  func(fs.FS, string) []string
	}{
		{"edited file", func(m fstest.MapFS) {
			f := listedFile()
			m[f] = &fstest.MapFile{Data: append(slices.Clone(m[f].Data), "\nalert(1)"...)}
		}, "does not match its SHA256SUMS entry", sumsProblems},
		{"missing file", func(m fstest.MapFS) { delete(m, listedFile()) }, "listed in SHA256SUMS but cannot be read", sumsProblems},
		{"unlisted file", func(m fstest.MapFS) {
			m[path.Join(path.Dir(listedFile()), "extra.js")] = &fstest.MapFile{Data: []byte("x")}
		}, "/extra.js is not listed in SHA256SUMS", sumsProblems},
		{"malformed line", func(m fstest.MapFS) {
			m["vendor/SHA256SUMS"] = &fstest.MapFile{Data: append(slices.Clone(m["vendor/SHA256SUMS"].Data), "deadbeef  ../../etc/passwd\n"...)}
		}, "line", sumsProblems},
		{"no LICENSE", func(m fstest.MapFS) {
			for p := range m {
				if path.Base(p) == "LICENSE" && strings.HasPrefix(p, "vendor/trix@") {
					delete(m, p)
				}
			}
		}, "has no LICENSE", folderProblems},
		{"loose file", func(m fstest.MapFS) {
			m["vendor/loose.js"] = &fstest.MapFile{Data: []byte("x")}
		}, "vendor/loose.js is a file", folderProblems},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			m := maps.Clone(real)
			c.tamper(m)
			problems := c.check(m, "vendor")
			if !slices.ContainsFunc(problems, func(p string) bool { return strings.Contains(p, c.want) }) {
				t.Errorf("problems %q, want one containing %q", problems, c.want)
			}
		})
	}
}
