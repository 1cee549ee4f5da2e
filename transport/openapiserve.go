package transport

import (
	"bytes"
	"errors"
	"fmt"
	"net/http"
	"net/url"

	"github.com/bwcms/cms/cms"
)

// openapiKey names a generated OpenAPI document in the schema cache.
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
	langs, err := h.openapiLanguages(r)
	if err != nil {
		h.writeError(w, r, err)
		return
	}
	key := openapiKey{langs.String()}
	doc, ok := h.schemas.Load(key)
	if !ok {
		gen, err := openAPI(langs, &apiServer{URL: servedMarker, Description: servedDescription})
		if err != nil {
			h.writeError(w, r, err)
			return
		}
		doc, _ = h.schemas.LoadOrStore(key, gen)
	}
	at, err := marshalPlain(h.servedURL(r))
	if err != nil {
		h.writeError(w, r, err)
		return
	}
	writeRaw(w, http.StatusOK, bytes.Replace(doc.([]byte), []byte(`"`+servedMarker+`"`), at, 1))
}

// openapiLanguages are the languages the document describes: the
// caller's account's with a token, else ?langs= (default en).
func (h *Handler) openapiLanguages(r *http.Request) (cms.Languages, error) {
	if bearerToken(r) != "" {
		_, p, err := h.authenticate(r)
		if err != nil {
			return cms.Languages{}, err
		}
		codec, err := h.svc.AccountCodec(cms.WithPrincipal(r.Context(), p))
		if err != nil {
			return cms.Languages{}, err
		}
		return codec.Languages(), nil
	}
	list := "en"
	if v := r.URL.Query()["langs"]; len(v) > 0 {
		list = v[0]
	}
	langs, err := cms.ParseLanguages(list)
	if err != nil || len(r.URL.Query()["langs"]) > 1 {
		return cms.Languages{}, &cms.Error{Code: cms.CodeMalformed, Message: "Wrong request", Err: errors.New("openapi.json: bad langs")}
	}
	return langs, nil
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
