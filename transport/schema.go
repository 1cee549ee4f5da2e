package transport

import (
	"net/http"

	"github.com/bwcms/cms/cms"
)

// schemaKey names one generated schema in the cache.
type schemaKey struct {
	kind     cms.Kind
	langs    string
	multiple bool
}

// schema answers schema.json and schema.multiple.json for the caller's
// account's languages, generated once per language configuration; /full adds
// every record of the kind (docs/api.md, Schemas).
func (h *Handler) schema(w http.ResponseWriter, r *http.Request, rp *recordPath) {
	// The account's languages as they are now, not as the token has them.
	codec, err := h.svc.AccountCodec(r.Context())
	if err != nil {
		h.writeError(w, r, err)
		return
	}
	doc, err := h.schemaDoc(rp.Kind, codec.Languages(), rp.Multiple)
	if err != nil {
		h.writeError(w, r, err)
		return
	}
	if !rp.Full {
		writeRaw(w, http.StatusOK, doc)
		return
	}
	seq, err := h.svc.Read(r.Context(), rp.Kind, cms.ReadParams{Published: cms.PublishedAny})
	if err != nil {
		h.writeError(w, r, err)
		return
	}
	w.Header().Set("Content-Type", "application/json; charset=utf-8")
	w.WriteHeader(http.StatusOK)
	trimmed := doc
	for len(trimmed) > 0 && (trimmed[len(trimmed)-1] == '\n' || trimmed[len(trimmed)-1] == ' ') {
		trimmed = trimmed[:len(trimmed)-1]
	}
	w.Write([]byte(`{"schema":`))
	w.Write(trimmed)
	w.Write([]byte(`,"data":[`))
	buf := make([]byte, 0, 8192)
	n := 0
	for e, err := range seq {
		if err != nil {
			h.log.ErrorContext(r.Context(), "transport: schema data failed while streaming", "err", err)
			panic(http.ErrAbortHandler)
		}
		buf = buf[:0]
		if n > 0 {
			buf = append(buf, ',')
		}
		n++
		buf = codec.Append(buf, h.svc.Wire(e))
		if _, err := w.Write(buf); err != nil {
			return
		}
	}
	w.Write([]byte("]}\n"))
}

func (h *Handler) schemaDoc(kind cms.Kind, langs cms.Languages, multiple bool) ([]byte, error) {
	key := schemaKey{kind, langs.String(), multiple}
	if doc, ok := h.schemas.Load(key); ok {
		return doc.([]byte), nil
	}
	gen := cms.JSONSchema
	if multiple {
		gen = cms.JSONSchemaMultiple
	}
	doc, err := gen(kind, langs)
	if err != nil {
		return nil, err
	}
	actual, _ := h.schemas.LoadOrStore(key, doc)
	return actual.([]byte), nil
}
