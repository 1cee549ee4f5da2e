package transport

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"net/http"
	"net/url"
	"slices"
	"sync"

	"github.com/bwcms/cms/cms"
)

// openapiKey names a generated OpenAPI document of an account's languages
// in the schema cache.
type openapiKey struct{ langs string }

// servedMarker is the servers URL of a cached document, replaced by the
// address each request fetched it at: one document per language
// configuration is kept, whatever the hosts it is asked under.
const servedMarker = "urn:bwcms:served-at"

// servedDescription describes the servers entry of a served document.
const servedDescription = "The address this document was fetched at, with the host's base path"

// openapi is GET /api/bw/v2/openapi.json (DECISIONS §3). With an access
// token: the document for the caller's account's languages as they are
// now. Without one: the languages of ?langs= (default en) and no account
// data, so generators can fetch it. Its servers entry is the address it
// was fetched at.
func (h *Handler) openapi(w http.ResponseWriter, r *http.Request) {
	langs, anonymous, err := h.openapiLanguages(r)
	if err != nil {
		h.writeError(w, r, err)
		return
	}
	doc, err := h.openapiDoc(r.Context(), langs, anonymous)
	if err != nil {
		h.writeError(w, r, err)
		return
	}
	at, err := marshalPlain(h.servedURL(r))
	if err != nil {
		h.writeError(w, r, err)
		return
	}
	writeRaw(w, http.StatusOK, bytes.Replace(doc, []byte(`"`+servedMarker+`"`), at, 1))
}

// openapiDoc is the document of langs, its servers URL servedMarker. The
// documents of accounts' languages are kept in the schema cache, as many
// as there are language configurations. Languages asked without a token
// (?langs=) may be any list, so only the few asked last are kept
// (anonymousDocs), and those are generated one at a time: anyone can ask
// for any list, and a list of hundreds of languages costs megabytes and
// a second of CPU.
func (h *Handler) openapiDoc(ctx context.Context, langs cms.Languages, anonymous bool) ([]byte, error) {
	key := openapiKey{langs.String()}
	if doc, ok := h.schemas.Load(key); ok {
		return doc.([]byte), nil
	}
	gen := func() ([]byte, error) {
		return openAPI(langs, &apiServer{URL: servedMarker, Description: servedDescription})
	}
	if anonymous {
		return h.anonDocs.get(ctx, key.langs, gen)
	}
	doc, err := gen()
	if err != nil {
		return nil, err
	}
	actual, _ := h.schemas.LoadOrStore(key, doc)
	return actual.([]byte), nil
}

// anonymousDocs is how many documents of languages asked without a token
// a handler keeps.
const anonymousDocs = 8

// docCache keeps the documents of the last anonymousDocs language lists
// asked without a token, and generates one document at a time.
type docCache struct {
	mu   sync.Mutex
	docs map[string][]byte
	// order lists the keys of docs, the least recently asked first.
	order []string
	// busy holds a token while a document is generated.
	busy chan struct{}
}

func newDocCache() *docCache {
	return &docCache{docs: map[string][]byte{}, busy: make(chan struct{}, 1)}
}

// get returns the document of key, made by gen when it is not kept.
func (c *docCache) get(ctx context.Context, key string, gen func() ([]byte, error)) ([]byte, error) {
	if doc, ok := c.lookup(key); ok {
		return doc, nil
	}
	select {
	case c.busy <- struct{}{}:
	case <-ctx.Done():
		return nil, ctx.Err()
	}
	defer func() { <-c.busy }()
	if doc, ok := c.lookup(key); ok { // made while this one waited
		return doc, nil
	}
	doc, err := gen()
	if err != nil {
		return nil, err
	}
	c.mu.Lock()
	defer c.mu.Unlock()
	c.docs[key] = doc
	c.order = append(c.order, key)
	if len(c.order) > anonymousDocs {
		delete(c.docs, c.order[0])
		c.order = slices.Delete(c.order, 0, 1)
	}
	return doc, nil
}

// lookup returns the document of key when it is kept, and marks it as
// the most recently asked.
func (c *docCache) lookup(key string) ([]byte, bool) {
	c.mu.Lock()
	defer c.mu.Unlock()
	doc, ok := c.docs[key]
	if ok {
		i := slices.Index(c.order, key)
		c.order = append(slices.Delete(c.order, i, i+1), key)
	}
	return doc, ok
}

// held is how many documents c keeps.
func (c *docCache) held() int {
	c.mu.Lock()
	defer c.mu.Unlock()
	return len(c.docs)
}

// openapiLanguages are the languages the document describes: the
// caller's account's with a token, else ?langs= (default en).
func (h *Handler) openapiLanguages(r *http.Request) (langs cms.Languages, anonymous bool, err error) {
	if bearerToken(r) != "" {
		_, p, err := h.authenticate(r)
		if err != nil {
			return cms.Languages{}, false, err
		}
		codec, err := h.svc.AccountCodec(cms.WithPrincipal(r.Context(), p))
		if err != nil {
			return cms.Languages{}, false, err
		}
		return codec.Languages(), false, nil
	}
	list := "en"
	if v := r.URL.Query()["langs"]; len(v) > 0 {
		list = v[0]
	}
	langs, err = cms.ParseLanguages(list)
	if err != nil || len(r.URL.Query()["langs"]) > 1 {
		return cms.Languages{}, true, &cms.Error{Code: cms.CodeMalformed, Message: "Wrong request", Err: errors.New("openapi.json: bad langs")}
	}
	return langs, true, nil
}

// servedURL is the address the document was fetched at, without
// /api/bw/v2 (its paths carry it): Options.PublicURL when set; else the
// request's scheme and host (those a trusted proxy names in
// X-Forwarded-Proto and X-Forwarded-Host, else Forwarded's proto= and
// host=), then BasePath.
func (h *Handler) servedURL(r *http.Request) string {
	if h.publicURL != "" {
		return h.publicURL
	}
	return h.requestURL(r)
}

// requestURL is r's own scheme and host (forwarded ones only from trusted
// proxies), then BasePath.
func (h *Handler) requestURL(r *http.Request) string {
	scheme := "http"
	if r.TLS != nil {
		scheme = "https"
	}
	if p := h.proxies.forwardedProto(r); p == "http" || p == "https" {
		scheme = p
	}
	host := r.Host
	if fh := h.proxies.forwardedHost(r); fh != "" {
		host = fh
	}
	return scheme + "://" + host + h.base
}

// CheckPublicURL reports whether s can be Options.PublicURL: "" or an
// absolute http or https URL with a host, optionally a path, and no user,
// query or fragment.
func CheckPublicURL(s string) error {
	if s == "" {
		return nil
	}
	u, err := url.Parse(s)
	if err != nil || (u.Scheme != "http" && u.Scheme != "https") || u.Host == "" || u.User != nil ||
		u.RawQuery != "" || u.ForceQuery || u.Fragment != "" || u.Opaque != "" {
		return fmt.Errorf("transport: public URL %q: want an http or https URL with a host and no query (https://cms.example.com/cms)", s)
	}
	return nil
}
