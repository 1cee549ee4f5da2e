package client_test

import (
	"crypto/sha256"
	"encoding/base64"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"runtime"
	"sync/atomic"
	"testing"
	"time"

	"github.com/bwcms/cms/client"
)

// sink is a server that takes uploads as the API does (the part "file")
// and keeps only their digest and length: what the client sends, with
// none of the server's own costs. Each request's result comes on got.
type sink struct {
	requests atomic.Int32
	got      chan received
}

// received is what sink read of one upload.
type received struct {
	name    string
	size    int64
	sum     string
	readErr error
}

func newSink() *sink { return &sink{got: make(chan received, 10)} }

func (s *sink) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	s.requests.Add(1)
	var rec received
	defer func() { s.got <- rec }()
	mr, err := r.MultipartReader()
	if err != nil {
		rec.readErr = err
		http.Error(w, `{"fail":"Wrong request"}`, http.StatusBadRequest)
		return
	}
	part, err := mr.NextPart()
	if err != nil || part.FormName() != "file" {
		rec.readErr = fmt.Errorf("part: %v", err)
		http.Error(w, `{"fail":"Wrong request"}`, http.StatusBadRequest)
		return
	}
	h := sha256.New()
	rec.name = part.FileName()
	rec.size, rec.readErr = io.Copy(h, part)
	rec.sum = hex.EncodeToString(h.Sum(nil))
	if rec.readErr != nil {
		http.Error(w, `{"fail":"Wrong request"}`, http.StatusBadRequest)
		return
	}
	w.Header().Set("Content-Type", "application/json")
	w.WriteHeader(http.StatusCreated)
	fmt.Fprintf(w, `{"done":"Upload File aaaaaaaaaaaaaaaaaaaaaaaaaa","id":"aaaaaaaaaaaaaaaaaaaaaaaaaa","url":"http://x/f","name":%q,"type":"application/gpx+xml","size":%d,"sha256":%q,"created":"2026-11-22 11:00:00"}`,
		rec.name, rec.size, rec.sum)
}

// sessionFor returns a client of url holding a session that needs no
// server: an unsigned token of an account in English.
func sessionFor(t *testing.T, url string) *client.Client {
	t.Helper()
	c, err := client.New(url, nil)
	must(t, err)
	claims, _ := json.Marshal(client.Claims{Subject: "ed", Account: "acme", Lang: "en", Langs: []string{"en"},
		Expires: time.Now().Add(time.Hour).Unix(), IssuedAt: time.Now().Unix(), Type: "access"})
	enc := base64.RawURLEncoding.EncodeToString
	must(t, c.SetTokens(client.Tokens{Access: enc([]byte(`{"alg":"HS256","typ":"JWT"}`)) + "." + enc(claims) + ".sig", Refresh: "r"}))
	return c
}

// An upload streams: 64 MiB go through with a few MiB allocated in all
// (the server included), and arrive whole under their name. Not
// parallel, so that no other test allocates meanwhile.
func TestUploadStreams(t *testing.T) {
	s := newSink()
	srv := httptest.NewServer(s)
	defer srv.Close()
	c := sessionFor(t, srv.URL)
	const size = 64 << 20
	const name = `Giro del lago – "vista".gpx`

	var before, after runtime.MemStats
	runtime.GC()
	runtime.ReadMemStats(&before)
	f, err := c.UploadFile(t.Context(), name, &sized{left: size})
	runtime.ReadMemStats(&after)
	if err != nil {
		t.Fatal(err)
	}
	want := sha256.New()
	io.Copy(want, &sized{left: size})
	if got := <-s.got; got.size != size || got.name != name || got.sum != hex.EncodeToString(want.Sum(nil)) {
		t.Errorf("the server got %d bytes named %q (%v)", got.size, got.name, got.readErr)
	}
	if f.Name != name || f.Size != size || f.Existing {
		t.Errorf("the answer: %+v", f)
	}
	if alloc := after.TotalAlloc - before.TotalAlloc; alloc > 8<<20 {
		t.Errorf("uploading %d MiB allocated %d MiB", size>>20, alloc>>20)
	}
}

// failing reads n bytes of the pattern, then fails.
type failing struct {
	sized
	err error
}

func (f *failing) Read(p []byte) (int, error) {
	n, err := f.sized.Read(p)
	if err == io.EOF {
		return n, f.err
	}
	return n, err
}

// A reader that fails ends the upload with its error, and the server
// gets no complete file; a name with a control character and no reader
// are refused before any request.
func TestUploadRefusedByTheClient(t *testing.T) {
	t.Parallel()
	s := newSink()
	srv := httptest.NewServer(s)
	defer srv.Close()
	c := sessionFor(t, srv.URL)
	ctx := t.Context()

	boom := errors.New("disk on fire")
	_, err := c.UploadFile(ctx, "walk.gpx", &failing{sized{left: 3 << 20}, boom})
	if !errors.Is(err, boom) {
		t.Errorf("a failing reader: %v", err)
	}
	if got := <-s.got; got.readErr == nil {
		t.Errorf("the server read a whole file of %d bytes", got.size)
	}
	n := s.requests.Load()
	for _, name := range []string{"walk\n.gpx", "walk\x00.gpx", "walk\u0085.gpx"} {
		if _, err := c.UploadFile(ctx, name, &sized{left: 10}); err == nil {
			t.Errorf("%q: no error", name)
		}
	}
	if _, err := c.UploadFile(ctx, "walk.gpx", nil); err == nil {
		t.Error("no reader: no error")
	}
	if s.requests.Load() != n {
		t.Errorf("refused uploads sent %d requests", s.requests.Load()-n)
	}
}
