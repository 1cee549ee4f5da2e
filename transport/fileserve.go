package transport

import (
	"net/http"
	"net/url"
	"path"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/bwcms/cms/cms"
)

// The headers of every file served: the bytes are whatever was uploaded,
// so a browser must never run them as a page of this origin, and they
// never change under their url.
const (
	fileCSP          = "sandbox; default-src 'none'"
	fileCacheControl = "public, max-age=31536000, immutable"
)

// serveFileBytes answers the public urls of files: the bytes (or a
// thumbnail, ?w=) of <base>/file/{id}/{slug}.{ext} and the GeoJSON of
// <base>/file/{id}/track.geojson. No token is asked for or read: whoever
// has the url may read the file. Range, HEAD and If-None-Match are
// http.ServeContent's.
func (h *Handler) serveFileBytes(w http.ResponseWriter, r *http.Request, fp filePath) {
	if fp.trailing || !cms.IsFileID(fp.id) {
		h.writeError(w, r, errNoFile())
		return
	}
	width, err := thumbnailWidth(r.URL.RawQuery)
	if err != nil {
		h.writeError(w, r, err)
		return
	}
	var content *cms.FileContent
	isTrack := fp.name == trackName
	if isTrack {
		if width != 0 {
			h.writeError(w, r, wrong("w on a track"))
			return
		}
		content, err = h.svc.OpenTrack(r.Context(), fp.id)
	} else {
		// Any slug names the file; the extension must be its type's.
		ext := path.Ext(fp.name)
		if len(ext) < 2 {
			h.writeError(w, r, errNoFile())
			return
		}
		content, err = h.svc.OpenFile(r.Context(), fp.id, ext[1:], width)
	}
	if err != nil {
		h.writeError(w, r, err)
		return
	}
	defer content.Body.Close()
	hd := w.Header()
	hd.Set("Content-Type", content.Type)
	hd.Set("ETag", content.ETag)
	hd.Set("Cache-Control", fileCacheControl)
	if !isTrack && !strings.HasPrefix(content.Type, "image/") {
		hd.Set("Content-Disposition", `attachment; filename="`+path.Base(cms.FilePath(content.File))+`"`)
	}
	http.ServeContent(w, r, "", time.Time{}, content.Body)
}

// setFileSafety sets the headers of every answer of a public file url
// (serveFiles sets them before routing, so refusals carry them too: a
// script on another site reads a 404 as a 404, not as a CORS failure).
func setFileSafety(w http.ResponseWriter) {
	w.Header().Set("X-Content-Type-Options", "nosniff")
	w.Header().Set("Content-Security-Policy", fileCSP)
	w.Header().Set("Access-Control-Allow-Origin", "*")
}

// widthPattern is a width written plainly: digits, no sign, no leading
// zero.
var widthPattern = regexp.MustCompile(`^[1-9][0-9]{0,4}$`)

// thumbnailWidth reads ?w=, at most once and one of the thumbnail
// widths; 0 when it is not given. Other parameters are not read (a cache
// buster changes nothing).
func thumbnailWidth(rawQuery string) (int, error) {
	if rawQuery == "" {
		return 0, nil
	}
	q, err := url.ParseQuery(rawQuery)
	if err != nil {
		return 0, wrong("bad query string")
	}
	v, ok := q["w"]
	if !ok {
		return 0, nil
	}
	if len(v) != 1 || !widthPattern.MatchString(v[0]) {
		return 0, wrong("w: want one of the thumbnail widths")
	}
	n, err := strconv.Atoi(v[0])
	if err != nil || !slices.Contains(cms.ThumbnailWidths(), n) {
		return 0, wrong("w: want one of the thumbnail widths")
	}
	return n, nil
}
