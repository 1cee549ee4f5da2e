package cms

import (
	"context"
	"net"
	"net/url"
	"strings"

	"github.com/bwcms/cms/cms/media"
)

// fileURLsKey holds the url prefixes of the request's own files.
type fileURLsKey struct{}

// WithFileURLs returns ctx carrying where the service's own file urls
// start for this request: each prefix "<scheme>://<host><base path>/file/"
// (the public URL's and the request's own). A record's file field whose
// URL starts with one of them names one of the service's files, which
// must exist in the caller's account and be of the field's type. The HTTP
// layer sets it for every request.
func WithFileURLs(ctx context.Context, prefixes ...string) context.Context {
	return context.WithValue(ctx, fileURLsKey{}, prefixes)
}

// fileURLs returns the prefixes of WithFileURLs.
func fileURLs(ctx context.Context) []string {
	p, _ := ctx.Value(fileURLsKey{}).([]string)
	return p
}

// ownURLs tells the service's own file urls of a request from others.
type ownURLs struct {
	raw    []string    // the prefixes as given
	parsed []ownPrefix // and as an origin and a path
}

type ownPrefix struct{ origin, path string }

// ownFileURLs reads the prefixes of WithFileURLs.
func ownFileURLs(ctx context.Context) ownURLs {
	o := ownURLs{raw: fileURLs(ctx)}
	for _, p := range o.raw {
		if u, err := url.Parse(p); err == nil && u.Host != "" {
			o.parsed = append(o.parsed, ownPrefix{origin(u), u.Path})
		}
	}
	return o
}

// holds reports whether raw is under one of the prefixes: by its text,
// or by its origin and its unescaped path, so that another spelling of
// the same address (a host in capitals, the scheme's default port,
// escapes) is told too.
func (o ownURLs) holds(raw string) bool {
	for _, p := range o.raw {
		if strings.HasPrefix(raw, p) {
			return true
		}
	}
	if len(o.parsed) == 0 {
		return false
	}
	u, err := url.Parse(raw)
	if err != nil || u.Host == "" {
		return false
	}
	at := origin(u)
	for _, p := range o.parsed {
		if at == p.origin && strings.HasPrefix(u.Path, p.path) {
			return true
		}
	}
	return false
}

// origin is u's scheme and host in lower case, without the scheme's
// default port.
func origin(u *url.URL) string {
	scheme, host, port := strings.ToLower(u.Scheme), strings.ToLower(u.Hostname()), u.Port()
	if port == "" || scheme == "http" && port == "80" || scheme == "https" && port == "443" {
		if strings.Contains(host, ":") {
			host = "[" + host + "]"
		}
		return scheme + "://" + host
	}
	return scheme + "://" + net.JoinHostPort(host, port)
}

// FilePath is the path of f's url below the API's base path:
// "/file/{id}/{slug}.{ext}", the slug made from f.Name without its
// extension ("file" when empty), ext the extension of f.Type.
func FilePath(f File) string {
	name := f.Name
	if i := strings.LastIndexByte(name, '.'); i > 0 {
		name = name[:i]
	}
	slug := Slug(name)
	if slug == "" {
		slug = "file"
	}
	return "/file/" + f.ID + "/" + slug + "." + FileExt(f.Type)
}

// fileIDOf returns the file id a URL's path names when it has the shape
// of one of the service's file urls (".../file/{id}/{name}"), whatever
// its host: references are kept by id, so a change of domain loses none.
func fileIDOf(raw string) (string, bool) {
	u, err := url.Parse(raw)
	if err != nil {
		return "", false
	}
	dir, name := pathSplit(u.Path)
	parent, id := pathSplit(dir)
	if name == "" || !strings.HasSuffix(parent, "/file") || !IsFileID(id) {
		return "", false
	}
	return id, true
}

func pathSplit(p string) (dir, last string) {
	i := strings.LastIndexByte(p, '/')
	if i < 0 {
		return "", p
	}
	return p[:i], p[i+1:]
}

// IsFileID reports whether id has the shape of a file id.
func IsFileID(id string) bool {
	if len(id) != FileIDLength {
		return false
	}
	for i := 0; i < len(id); i++ {
		c := id[i]
		if !(c >= 'a' && c <= 'z' || c >= '2' && c <= '7') {
			return false
		}
	}
	return true
}

// FileExt is the extension of a file url for a media type ("" for a type
// the service does not accept).
func FileExt(typ string) string { return media.Ext(typ) }
