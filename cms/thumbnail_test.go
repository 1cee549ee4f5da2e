package cms

import (
	"bytes"
	"context"
	"image"
	"image/png"
	"io"
	"strings"
	"testing"
	"time"

	"gocloud.dev/blob/memblob"
)

// oneFileStore holds one file's row; a thumbnail asks nothing else.
type oneFileStore struct {
	Store
	f File
}

func (s oneFileStore) FileByID(_ context.Context, id string) (*File, error) {
	if id != s.f.ID {
		return nil, errFileNotFound(id)
	}
	f := s.f
	return &f, nil
}

// thumbnailService is a service of one decode at a time holding one PNG
// of w x h pixels.
func thumbnailService(t *testing.T, w, h int) (*Service, File) {
	t.Helper()
	bucket := memblob.OpenBucket(nil)
	t.Cleanup(func() { bucket.Close() })
	var b bytes.Buffer
	if err := png.Encode(&b, image.NewGray(image.Rect(0, 0, w, h))); err != nil {
		t.Fatal(err)
	}
	f := File{Account: "acme", ID: strings.Repeat("t", FileIDLength), Name: "a.png", Type: "image/png",
		Size: int64(b.Len()), SHA256: strings.Repeat("0", 64), Width: w, Height: h}
	if err := bucket.WriteAll(t.Context(), originalKey(f.ID), b.Bytes(), nil); err != nil {
		t.Fatal(err)
	}
	svc, err := NewService(oneFileStore{f: f}, &Options{Files: bucket, FileDecodes: 1})
	if err != nil {
		t.Fatal(err)
	}
	return svc, f
}

// waitFor fails the test when done does not come: a call that hangs.
func waitFor[T any](t *testing.T, what string, done <-chan T) T {
	t.Helper()
	select {
	case v := <-done:
		return v
	case <-time.After(30 * time.Second):
		t.Fatalf("%s: still waiting", what)
	}
	panic("unreachable")
}

// TestThumbnailLeftWhileWaiting: a request for a thumbnail that waits
// for a decode (all busy) returns when its client leaves, instead of
// staying until a decode is free and then making the thumbnail for no
// one; another request for the same thumbnail still gets it, and so
// does a request after every earlier one left.
func TestThumbnailLeftWhileWaiting(t *testing.T) {
	svc, f := thumbnailService(t, 400, 200)
	svc.decodes <- struct{}{} // every decode busy

	// Two ask; the first leaves, the second stays.
	type answer struct {
		c   *FileContent
		err error
	}
	open := func(ctx context.Context) <-chan answer {
		done := make(chan answer, 1)
		go func() {
			c, err := svc.OpenFile(ctx, f.ID, "png", 160)
			done <- answer{c, err}
		}()
		return done
	}
	leaving, leave := context.WithCancel(t.Context())
	first := open(leaving)
	second := open(t.Context())
	leave()
	if a := waitFor(t, "the request whose client left", first); ErrorCode(a.err) != CodeUnavailable {
		t.Fatalf("the request whose client left: %v, %v", a.c, a.err)
	}
	<-svc.decodes // a decode free
	a := waitFor(t, "the request that stayed", second)
	if a.err != nil {
		t.Fatalf("the request that stayed: %v", a.err)
	}
	cfg, err := png.DecodeConfig(a.c.Body)
	a.c.Body.Close()
	if err != nil || cfg.Width != 160 || cfg.Height != 80 {
		t.Fatalf("thumbnail %+v %v", cfg, err)
	}

	// Everyone who asked for w320 leaves while the decodes are busy:
	// nothing is made; the next to ask gets it.
	svc.decodes <- struct{}{}
	for range 3 {
		ctx, cancel := context.WithCancel(t.Context())
		done := make(chan error, 1)
		go func() {
			_, err := svc.OpenFile(ctx, f.ID, "png", 320)
			done <- err
		}()
		cancel()
		if err := waitFor(t, "a request for w320 whose client left", done); ErrorCode(err) != CodeUnavailable {
			t.Fatalf("a request for w320 whose client left: %v", err)
		}
	}
	<-svc.decodes
	c, err := svc.OpenFile(t.Context(), f.ID, "png", 320)
	if err != nil {
		t.Fatal(err)
	}
	defer c.Body.Close()
	if b, _ := io.ReadAll(c.Body); len(b) == 0 {
		t.Fatal("an empty thumbnail")
	}
}
