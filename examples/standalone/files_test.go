package main

import (
	"bytes"
	"context"
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"image"
	"image/color"
	"image/png"
	"io"
	"math/rand/v2"
	"mime/multipart"
	"net/http"
	"net/http/httptest"
	"net/url"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/johannesboyne/gofakes3"
	"github.com/johannesboyne/gofakes3/backend/s3mem"

	"github.com/bwcms/cms/adapters/postgres/pgtest"
	"github.com/bwcms/cms/cms"
)

// sharedFiles is a --files value for servers on one PostgreSQL database,
// which requires one: a folder of the test's that they all share.
func sharedFiles(tb testing.TB) string {
	return (&url.URL{Scheme: "file", Path: filepath.ToSlash(tb.TempDir())}).String()
}

// testPNG is a w×h PNG of noise, which compresses about as little as a
// photograph: a file of realistic size (megabytes).
func testPNG(tb testing.TB, w, h int) []byte {
	tb.Helper()
	r := rand.New(rand.NewPCG(uint64(w), uint64(h)))
	img := image.NewNRGBA(image.Rect(0, 0, w, h))
	for y := range h {
		for x := range w {
			img.SetNRGBA(x, y, color.NRGBA{uint8(r.Uint32()), uint8(x), uint8(y), 255})
		}
	}
	var b bytes.Buffer
	if err := png.Encode(&b, img); err != nil {
		tb.Fatal(err)
	}
	return b.Bytes()
}

// uploaded is the answer to an upload.
type uploaded struct {
	Done   string `json:"done"`
	ID     string `json:"id"`
	URL    string `json:"url"`
	Name   string `json:"name"`
	Type   string `json:"type"`
	Size   int    `json:"size"`
	SHA256 string `json:"sha256"`
	Width  int    `json:"width"`
	Height int    `json:"height"`
}

// upload sends data as a browser form (curl -F file=@name) and wants
// status.
func (c *client) upload(tb testing.TB, name string, data []byte, status int) uploaded {
	tb.Helper()
	var body bytes.Buffer
	mw := multipart.NewWriter(&body)
	part, _ := mw.CreateFormFile("file", name)
	part.Write(data)
	mw.Close()
	r := c.do(tb.Context(), "POST", "/api/bw/v2/file", mw.FormDataContentType(), body.Bytes(), nil)
	if r.err != nil || r.status != status {
		tb.Fatalf("upload %s: %d %s %v; want %d", name, r.status, r.body, r.err, status)
	}
	var f uploaded
	jsonUnmarshal(string(r.body), &f)
	return f
}

// fetchPublic GETs u with no token.
func fetchPublic(tb testing.TB, u string) reply {
	tb.Helper()
	res, err := http.Get(u)
	if err != nil {
		tb.Fatalf("GET %s: %v", u, err)
	}
	defer res.Body.Close()
	b, err := io.ReadAll(res.Body)
	return reply{status: res.StatusCode, body: b, header: res.Header, err: err}
}

// wantBytes fails unless u answers 200 with want, without a token.
func wantBytes(tb testing.TB, u string, want []byte) reply {
	tb.Helper()
	r := fetchPublic(tb, u)
	if r.err != nil || r.status != 200 || !bytes.Equal(r.body, want) {
		tb.Fatalf("GET %s: %d, %d bytes %v; want 200 and the %d bytes uploaded", u, r.status, len(r.body), r.err, len(want))
	}
	return r
}

// at is u with the scheme and host of the server at base: the same file
// asked of another instance.
func at(tb testing.TB, base, u string) string {
	tb.Helper()
	p, err := url.Parse(u)
	if err != nil {
		tb.Fatal(err)
	}
	return base + p.RequestURI()
}

func sha256Hex(b []byte) string {
	sum := sha256.Sum256(b)
	return hex.EncodeToString(sum[:])
}

// TestFilesDefault: a fresh start on SQLite keeps files in a folder files
// beside the database; an upload is served without a token, and still
// after a restart, from the bytes in that folder.
func TestFilesDefault(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	db := "sqlite:" + filepath.Join(dir, "cms.db")
	s, password := startNewcomer(t, db)
	folder := filepath.Join(dir, "files")
	if fi, err := os.Stat(folder); err != nil || !fi.IsDir() {
		t.Fatalf("no folder files beside the database after the start: %v", err)
	}
	if !strings.Contains(s.stderr.String(), `files="file://`+filepath.ToSlash(folder)) {
		t.Errorf("the log does not say where files go: %s", s.stderr.String())
	}
	c := loginAt(t, s.url, password)
	img := testPNG(t, 1200, 800)
	f := c.upload(t, "Lake view.png", img, 201)
	if f.Type != "image/png" || f.Size != len(img) || f.Width != 1200 || f.Height != 800 || f.SHA256 != sha256Hex(img) ||
		f.URL != s.url+"/api/bw/v2/file/"+f.ID+"/lake-view.png" {
		t.Errorf("upload: %+v", f)
	}
	r := wantBytes(t, f.URL, img)
	if r.header.Get("Content-Type") != "image/png" {
		t.Errorf("served as %q", r.header.Get("Content-Type"))
	}
	// The bytes are in the folder, where a backup of it finds them.
	if b, err := os.ReadFile(filepath.Join(folder, "files", f.ID, "original")); err != nil || !bytes.Equal(b, img) {
		t.Errorf("the original in the folder: %d bytes, %v", len(b), err)
	}
	s.shutdown(t)

	s2 := startServer(t, &cli{env: map[string]string{}}, "--db", db)
	wantBytes(t, at(t, s2.url, f.URL), img)
	// The file's row outlived the restart too: the same bytes are the
	// same file.
	c2 := loginAt(t, s2.url, password)
	if again := c2.upload(t, "again.png", img, 200); again.ID != f.ID || again.Done != "Skip File "+f.ID {
		t.Errorf("the same bytes after the restart: %+v", again)
	}
}

// s3Env is the environment of a server on the fake S3: credentials the
// AWS way, and nothing read from the machine's AWS set-up (no shared
// files, no instance metadata).
var s3Env = []string{"AWS_ACCESS_KEY_ID=test-access-key", "AWS_SECRET_ACCESS_KEY=test-secret-key", "AWS_REGION=eu-west-1",
	"AWS_CONFIG_FILE=" + os.DevNull, "AWS_SHARED_CREDENTIALS_FILE=" + os.DevNull, "AWS_EC2_METADATA_DISABLED=true"}

// fakeS3 starts an S3-compatible server in memory with one bucket and
// returns its backend and the --files URL of the bucket.
func fakeS3(t *testing.T, bucket string) (*s3mem.Backend, string) {
	t.Helper()
	backend := s3mem.New()
	if err := backend.CreateBucket(bucket); err != nil {
		t.Fatal(err)
	}
	ts := httptest.NewServer(gofakes3.New(backend).Server())
	t.Cleanup(ts.Close)
	q := url.Values{"endpoint": {ts.URL}, "use_path_style": {"true"}}
	return backend, "s3://" + bucket + "?" + q.Encode()
}

// keys lists the objects of bucket under prefix.
func keys(t *testing.T, b *s3mem.Backend, bucket, prefix string) []string {
	t.Helper()
	list, err := b.ListBucket(bucket, &gofakes3.Prefix{Prefix: prefix, HasPrefix: true}, gofakes3.ListBucketPage{})
	if err != nil {
		t.Fatal(err)
	}
	var out []string
	for _, c := range list.Contents {
		out = append(out, c.Key)
	}
	return out
}

// TestFilesS3: with --files naming an S3 bucket (an S3-compatible server
// at an endpoint), the bytes go to the bucket, are served from it,
// thumbnails join them there, and a delete removes them all.
func TestFilesS3(t *testing.T) {
	t.Parallel()
	const bucket = "cms-files"
	backend, files := fakeS3(t, bucket)
	dir := t.TempDir()
	p := startProcEnv(t, s3Env, "--db", "sqlite:"+filepath.Join(dir, "cms.db"), "--files", files)
	if _, err := os.Stat(filepath.Join(dir, "files")); !errors.Is(err, os.ErrNotExist) {
		t.Errorf("a folder files was made beside the database with --files on S3: %v", err)
	}
	c := newClient(t, p)
	img := testPNG(t, 1600, 1000)
	f := c.upload(t, "summit.png", img, 201)
	if got := keys(t, backend, bucket, "files/"+f.ID+"/"); strings.Join(got, ",") != "files/"+f.ID+"/original" {
		t.Fatalf("objects of the upload in the bucket: %v", got)
	}
	obj, err := backend.GetObject(bucket, "files/"+f.ID+"/original", nil)
	if err != nil {
		t.Fatal(err)
	}
	stored, _ := io.ReadAll(obj.Contents)
	obj.Contents.Close()
	if !bytes.Equal(stored, img) {
		t.Errorf("the object holds %d bytes, not the %d uploaded", len(stored), len(img))
	}
	wantBytes(t, f.URL, img)
	if r := fetchPublic(t, f.URL+"?w=320"); r.status != 200 || imageWidth(t, r.body) != 320 {
		t.Fatalf("thumbnail: %d %.100s", r.status, r.body)
	}
	if got := keys(t, backend, bucket, "files/"+f.ID+"/"); len(got) != 2 {
		t.Errorf("objects after the thumbnail: %v; want the original and w320", got)
	}

	if r := c.do(t.Context(), "DELETE", "/api/bw/v2/file/"+f.ID, "", nil, nil); r.status != 202 ||
		strings.TrimSpace(string(r.body)) != `{"done":"Deletion of 1 Files done","count":1}` {
		t.Fatalf("delete: %d %s %v", r.status, r.body, r.err)
	}
	if got := keys(t, backend, bucket, "files/"); len(got) != 0 {
		t.Errorf("objects left in the bucket after the delete: %v", got)
	}
	if r := fetchPublic(t, f.URL); r.status != 404 {
		t.Errorf("url of the deleted file: %d", r.status)
	}
	p.stop()
	if !strings.Contains(p.stderr.String(), `files="s3://`+bucket) {
		t.Errorf("the log does not say where files go: %s", p.stderr.String())
	}
}

// imageWidth is the width of an encoded image.
func imageWidth(tb testing.TB, b []byte) int {
	tb.Helper()
	cfg, _, err := image.DecodeConfig(bytes.NewReader(b))
	if err != nil {
		tb.Fatalf("not an image: %v", err)
	}
	return cfg.Width
}

// TestFilesTwoInstances: two servers on one PostgreSQL database and one
// blob store, behind one public URL, are one service: a file uploaded on
// one is served, thumbnailed, named and deleted on the other.
func TestFilesTwoInstances(t *testing.T) {
	t.Parallel()
	db, files := pgtest.DSN(t), t.TempDir()
	const public = "https://cms.example.org"
	env := map[string]string{"CMS_DB": db, "CMS_FILES": "file://" + filepath.ToSlash(files), "CMS_PUBLIC_URL": public,
		"CMS_ADMIN_PASSWORD": "admin password"}
	a := startServer(t, &cli{env: env})
	b := startServer(t, &cli{env: env})
	ca, cb := loginAt(t, a.url, "admin password"), loginAt(t, b.url, "admin password")

	img := testPNG(t, 1280, 960)
	f := ca.upload(t, "harbour.png", img, 201)
	if !strings.HasPrefix(f.URL, public+"/api/bw/v2/file/"+f.ID+"/") {
		t.Fatalf("url %q is not under --public-url", f.URL)
	}
	wantBytes(t, at(t, b.url, f.URL), img)

	// A thumbnail made on B is kept in the shared store and served by A.
	thumb := fetchPublic(t, at(t, b.url, f.URL)+"?w=160")
	if thumb.status != 200 || imageWidth(t, thumb.body) != 160 {
		t.Fatalf("thumbnail on B: %d %.100s", thumb.status, thumb.body)
	}
	if _, err := os.Stat(filepath.Join(files, "files", f.ID, "w160")); err != nil {
		t.Errorf("the thumbnail is not in the shared store: %v", err)
	}
	wantBytes(t, at(t, a.url, f.URL)+"?w=160", thumb.body)

	// B checks the urls of the public URL as its own: one naming no file
	// is refused, the file uploaded on A is accepted.
	missing := public + "/api/bw/v2/file/" + strings.Repeat("a", cms.FileIDLength) + "/x.png"
	if r := cb.post(t.Context(), "/api/bw/v2/resource", map[string]any{"id": "harbour", "image": missing}); r.status != 409 ||
		!strings.Contains(string(r.body), "does not exist") {
		t.Errorf("a record naming no file: %d %s", r.status, r.body)
	}
	if r := cb.post(t.Context(), "/api/bw/v2/resource", map[string]any{"id": "harbour", "title": "Harbour", "image": f.URL}); r.status != 201 {
		t.Fatalf("a record naming the file of A: %d %s %v", r.status, r.body, r.err)
	}
	del := func(c *client) reply { return c.do(t.Context(), "DELETE", "/api/bw/v2/file/"+f.ID, "", nil, nil) }
	if r := del(cb); r.status != 409 || strings.TrimSpace(string(r.body)) != `{"fail":"File `+f.ID+` is used by Resource harbour"}` {
		t.Errorf("delete of a used file on B: %d %s", r.status, r.body)
	}
	wantBytes(t, at(t, a.url, f.URL), img)

	if r := cb.post(t.Context(), "/api/bw/v2/resource", map[string]any{"id": "harbour", "image": nil}); r.status != 202 {
		t.Fatalf("record without the image: %d %s", r.status, r.body)
	}
	if r := del(cb); r.status != 202 || strings.TrimSpace(string(r.body)) != `{"done":"Deletion of 1 Files done","count":1}` {
		t.Fatalf("delete of the unused file on B: %d %s", r.status, r.body)
	}
	for _, u := range []string{f.URL, f.URL + "?w=160"} {
		if r := fetchPublic(t, at(t, a.url, u)); r.status != 404 {
			t.Errorf("%s on A after the delete on B: %d", u, r.status)
		}
	}
	if r := ca.get(t.Context(), "/api/bw/v2/file/"+f.ID); r.status != 404 {
		t.Errorf("the deleted file's metadata on A: %d %s", r.status, r.body)
	}
	// fileblob leaves the emptied folder of the file.
	if left, _ := os.ReadDir(filepath.Join(files, "files", f.ID)); len(left) != 0 {
		t.Errorf("the deleted file's bytes are still in the store: %v", left)
	}
}

// TestFilesSettingsRefused: a --files of another kind of store, none with
// PostgreSQL, or a bad --file-unused-age stops the start with a message
// naming it, before anything is created.
func TestFilesSettingsRefused(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		args []string
		want string
	}{
		{[]string{"--files", "gs://bucket"}, `--files "gs://bucket": want file:///dir or s3://bucket?region=R, the two stores this server links`},
		{[]string{"--files", "/var/lib/cms/files"}, `--files "/var/lib/cms/files": want file:///dir or s3://bucket?region=R`},
		{[]string{"--files", "file://"}, `--files "file://": want the folder's path`},
		{[]string{"--files", "s3://?region=eu-west-1"}, `--files "s3://?region=eu-west-1": want the bucket's name`},
		{[]string{"--db", "postgres://cms@127.0.0.1:1/cms"}, "--files (CMS_FILES) is required with PostgreSQL"},
		{[]string{"--db", "sqlite::memory:"}, "--files (CMS_FILES) is required with a database in memory"},
		{[]string{"--file-unused-age", "a month"}, `--file-unused-age "a month": want a duration`},
		{[]string{"--file-unused-age", "-1h"}, `--file-unused-age "-1h"`},
	} {
		dir := t.TempDir()
		c := &cli{env: map[string]string{}}
		args := tc.args
		if tc.args[0] != "--db" {
			args = append([]string{"--db", "sqlite:" + filepath.Join(dir, "cms.db")}, tc.args...)
		}
		if code := c.run(t, args...); code != 1 || !strings.Contains(c.stderr.String(), tc.want) {
			t.Errorf("%v: exit %d, %q; want %q", tc.args, code, c.stderr.String(), tc.want)
		}
		if entries, _ := os.ReadDir(dir); len(entries) != 0 {
			t.Errorf("%v: created %v", tc.args, entries)
		}
		if c.stdout.String() != "" {
			t.Errorf("%v: printed %q", tc.args, c.stdout.String())
		}
	}
	// CMS_FILES is read like the flag.
	c := &cli{env: map[string]string{"CMS_FILES": "azblob://container"}}
	if code := c.run(t, "--db", "sqlite:"+filepath.Join(t.TempDir(), "cms.db")); code != 1 ||
		!strings.Contains(c.stderr.String(), `--files "azblob://container"`) {
		t.Errorf("CMS_FILES azblob: exit %d, %q", code, c.stderr.String())
	}
}

// TestFilesStoreUnreachable: a store that cannot be opened or does not
// answer (a missing folder, an S3 endpoint where nothing listens) stops
// the start with a message naming --files, before an admin password is
// printed.
func TestFilesStoreUnreachable(t *testing.T) {
	t.Parallel()
	missing := filepath.Join(t.TempDir(), "missing")
	c := &cli{env: map[string]string{}}
	if code := c.run(t, "--addr", "127.0.0.1:0", "--db", "sqlite:"+filepath.Join(t.TempDir(), "cms.db"), "--files", "file://"+missing); code != 1 ||
		!strings.Contains(c.stderr.String(), "--files file://"+missing) || c.stdout.String() != "" {
		t.Errorf("missing folder: exit %d, %q, printed %q", code, c.stderr.String(), c.stdout.String())
	}

	ln := httptest.NewServer(http.NotFoundHandler())
	closed := ln.URL
	ln.Close()
	files := "s3://cms-files?" + url.Values{"endpoint": {closed}, "use_path_style": {"true"}}.Encode()
	code, stdout, stderr := runProc(t, s3Env, "--db", "sqlite:"+filepath.Join(t.TempDir(), "cms.db"), "--files", files)
	if code != 1 || !strings.Contains(stderr, "--files s3://cms-files?") || !strings.Contains(stderr, "the store does not answer") || stdout != "" {
		t.Errorf("S3 endpoint not listening: exit %d, %q, printed %q", code, stderr, stdout)
	}
}

// runProc runs the server as a process of its own with env added, on any
// free port, and returns how it ended; it must end by itself.
func runProc(t *testing.T, env []string, args ...string) (code int, stdout, stderr string) {
	t.Helper()
	exe, err := os.Executable()
	if err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithTimeout(t.Context(), 2*time.Minute)
	defer cancel()
	cmd := exec.CommandContext(ctx, exe, append([]string{"--addr", "127.0.0.1:0"}, args...)...)
	cmd.Env = append(append(childEnv(), env...), faultServerEnv+"=1")
	var out, errOut bytes.Buffer
	cmd.Stdout, cmd.Stderr = &out, &errOut
	err = cmd.Run()
	var exit *exec.ExitError
	switch {
	case err == nil:
	case errors.As(err, &exit):
		code = exit.ExitCode()
	default:
		t.Fatal(err)
	}
	return code, out.String(), errOut.String()
}

// TestFilesStartup: the default store is an absolute file:// URL of the
// folder files beside the SQLite file, made when missing and written
// without crossing file systems; a given --files is kept as given, and
// --file-unused-age reaches the service's option (0: unused files kept).
func TestFilesStartup(t *testing.T) {
	t.Parallel()
	cwd, err := os.Getwd()
	if err != nil {
		t.Fatal(err)
	}
	for _, tc := range []struct {
		args      []string
		files     string
		unusedAge time.Duration
	}{
		{[]string{"--db", "sqlite:data/cms.db"}, "file://" + filepath.ToSlash(filepath.Join(cwd, "data", "files")) + "?create_dir=1&no_tmp_dir=1", 0},
		{[]string{"--db", "sqlite:/srv/cms/cms.db", "--file-unused-age", "720h"}, "file:///srv/cms/files?create_dir=1&no_tmp_dir=1", 720 * time.Hour},
		{[]string{"--db", "sqlite:/srv/cms/cms.db", "--files", "file:///mnt/shared/cms"}, "file:///mnt/shared/cms", 0},
		{[]string{"--db", "postgres://cms@db/cms", "--files", "s3://cms-files?region=eu-west-1", "--file-unused-age", "0"}, "s3://cms-files?region=eu-west-1", 0},
	} {
		cfg, _, err := settings(env{getenv: func(string) string { return "" }}, "standalone", tc.args, allServerSettings())
		if err != nil {
			t.Fatal(err)
		}
		st, err := readStartup(cfg)
		if err != nil || st.files != tc.files || st.unusedAge != tc.unusedAge {
			t.Errorf("%v: files %q, unused age %v, %v; want %q, %v", tc.args, st.files, st.unusedAge, err, tc.files, tc.unusedAge)
		}
	}
}
