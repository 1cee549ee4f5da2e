package main

import (
	"bytes"
	"context"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"image"
	"image/png"
	"math/rand/v2"
	"net/url"
	"sync"
	"sync/atomic"
	"testing"
	"time"
)

// ackedUpload is one upload the server acknowledged.
type ackedUpload struct {
	id, url, sha string
}

// noisyPNG is a PNG of random pixels (incompressible: tens of kilobytes),
// so the kill can land while its bytes are being written.
func noisyPNG(t *testing.T, seed uint64) []byte {
	r := rand.New(rand.NewPCG(seed, seed>>1))
	img := image.NewNRGBA(image.Rect(0, 0, 96, 96))
	for i := range img.Pix {
		img.Pix[i] = byte(r.Uint32())
	}
	var b bytes.Buffer
	if err := png.Encode(&b, img); err != nil {
		t.Fatal(err)
	}
	return b.Bytes()
}

// TestFaultKillUploads: a server killed with SIGKILL while clients upload
// files keeps every upload it acknowledged (its row and its bytes), and
// every file it lists has its bytes: a file's bytes are written before its
// row commits.
func TestFaultKillUploads(t *testing.T) {
	t.Parallel()
	eachDB(t, func(t *testing.T, d faultDB) {
		rounds, clients := long(2, 8), long(3, 6)
		args := []string{"--db", d.db}
		if d.files != "" {
			args = append(args, "--files", d.files)
		}
		p := startProc(t, args...)
		var mu sync.Mutex
		var acked []ackedUpload
		var acks, fivexx atomic.Int64
		seed := atomic.Uint64{}
		for range rounds {
			c := newClient(t, p)
			ctx, cancel := context.WithCancel(t.Context())
			var wg sync.WaitGroup
			for range clients {
				wg.Go(func() {
					for ctx.Err() == nil {
						body := noisyPNG(t, seed.Add(1))
						r := c.do(ctx, "POST", "/api/bw/v2/file?name=noise.png", "image/png", body, nil)
						switch {
						case r.err != nil:
							return // the server went away
						case r.status >= 500:
							fivexx.Add(1)
						case r.status == 201:
							var f struct{ ID, URL, SHA256 string }
							json.Unmarshal(r.body, &f)
							sum := sha256.Sum256(body)
							if f.SHA256 != hex.EncodeToString(sum[:]) {
								t.Errorf("upload answered digest %s for %x", f.SHA256, sum)
							}
							mu.Lock()
							acked = append(acked, ackedUpload{f.ID, f.URL, f.SHA256})
							mu.Unlock()
							acks.Add(1)
						default:
							t.Errorf("upload: %d %s", r.status, r.body)
						}
					}
				})
			}
			killAfter(t, p, acks.Load, acks.Load()+10, long(300*time.Millisecond, 2*time.Second))
			cancel()
			wg.Wait()
			p = p.restart()
		}
		c := newClient(t, p)
		listed := map[string]string{} // id -> url
		after := ""
		for {
			path := "/api/bw/v2/file?limit=1000"
			if after != "" {
				path += "&after=" + url.QueryEscape(after)
			}
			r := c.get(t.Context(), path)
			var page struct {
				Files []struct{ ID, URL, SHA256 string }
				Next  *string
			}
			if r.status != 200 || json.Unmarshal(r.body, &page) != nil {
				t.Fatalf("list: %d %s", r.status, r.body)
			}
			for _, f := range page.Files {
				listed[f.ID] = f.URL
				// Every listed file has its bytes, with its digest.
				b := c.get(t.Context(), mustPath(t, f.URL))
				sum := sha256.Sum256(b.body)
				if b.status != 200 || hex.EncodeToString(sum[:]) != f.SHA256 {
					t.Errorf("file %s listed, its bytes answer %d (digest %x, want %s)", f.ID, b.status, sum, f.SHA256)
				}
			}
			if page.Next == nil {
				break
			}
			after = *page.Next
		}
		for _, u := range acked {
			if _, ok := listed[u.id]; !ok {
				t.Errorf("acknowledged upload %s is lost", u.id)
			}
		}
		if n := fivexx.Load(); n > 0 {
			t.Errorf("%d uploads answered 5xx", n)
		}
		t.Logf("figures: kill -9 during uploads: kills=%d clients=%d acknowledged=%d listed=%d", rounds, clients, len(acked), len(listed))
	})
}

// mustPath is the path and query of an absolute url.
func mustPath(t *testing.T, raw string) string {
	u, err := url.Parse(raw)
	if err != nil {
		t.Fatal(err)
	}
	return u.RequestURI()
}
