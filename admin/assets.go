package admin

import (
	"bytes"
	"crypto/sha256"
	"embed"
	"encoding/hex"
	"io/fs"
	"mime"
	"net/http"
	"path"
	"strings"
	"time"
)

//go:embed static templates
var embedded embed.FS

// asset is one static file with its content hash.
type asset struct {
	body []byte
	hash string // first 16 hex digits of its SHA-256
	mime string
}

// assets are the static files by their path under static/, and the hashed
// names pages link to.
type assets struct {
	byPath   map[string]*asset // "js/edit.js"
	byHashed map[string]*asset // "js/edit.0123456789abcdef.js"
}

func loadAssets() (*assets, error) {
	as := &assets{byPath: map[string]*asset{}, byHashed: map[string]*asset{}}
	err := fs.WalkDir(embedded, "static", func(p string, d fs.DirEntry, err error) error {
		if err != nil || d.IsDir() {
			return err
		}
		body, err := embedded.ReadFile(p)
		if err != nil {
			return err
		}
		sum := sha256.Sum256(body)
		rel := strings.TrimPrefix(p, "static/")
		a := &asset{body: body, hash: hex.EncodeToString(sum[:8]), mime: mime.TypeByExtension(path.Ext(p))}
		if a.mime == "" {
			a.mime = "application/octet-stream"
		}
		as.byPath[rel] = a
		as.byHashed[hashedName(rel, a.hash)] = a
		return nil
	})
	return as, err
}

// hashedName puts hash before the extension: js/edit.js -> js/edit.<hash>.js.
func hashedName(rel, hash string) string {
	ext := path.Ext(rel)
	return strings.TrimSuffix(rel, ext) + "." + hash + ext
}

// link is the address pages use for a static file: its hashed name, which
// is cached for good. A file that does not exist is a programming error
// the page tests catch; it links to the plain name.
func (h *Handler) link(rel string) string {
	if a, ok := h.assets.byPath[rel]; ok {
		return h.url("/static/" + hashedName(rel, a.hash))
	}
	return h.url("/static/" + rel)
}

// serveAsset answers a static file. Hashed names never change content and
// are cached for a year; plain names (what ES modules import one another
// by) are revalidated by their hash.
func (h *Handler) serveAsset(w http.ResponseWriter, r *http.Request) {
	rel := r.PathValue("path")
	hd := w.Header()
	if a, ok := h.assets.byHashed[rel]; ok {
		hd.Set("Cache-Control", "public, max-age=31536000, immutable")
		serveAssetBody(w, r, a)
		return
	}
	if a, ok := h.assets.byPath[rel]; ok {
		hd.Set("Cache-Control", "no-cache")
		hd.Set("ETag", `"`+a.hash+`"`)
		serveAssetBody(w, r, a)
		return
	}
	http.NotFound(w, r)
}

func serveAssetBody(w http.ResponseWriter, r *http.Request, a *asset) {
	w.Header().Set("Content-Type", a.mime)
	http.ServeContent(w, r, "", time.Time{}, bytes.NewReader(a.body))
}
