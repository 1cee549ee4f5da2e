package transport

import (
	"bytes"
	"errors"
	"mime"
	"net/http"
	"net/url"
	"slices"
	"strconv"

	"github.com/bwcms/cms/cms"
)

// serveRecords answers every path under /api/bw/v2/<kind>/: routing
// first (404, 405), then 401 and 403, then the path's options (400).
func (h *Handler) serveRecords(w http.ResponseWriter, r *http.Request, rest string) {
	rp, perr := parseRequest(r.Method, rest, r.URL.RawQuery, h.loc)
	if perr != nil {
		if m, ok := errors.AsType[*methodError](perr); ok {
			w.Header().Set("Allow", joinMethods(m.allow))
			writeFail(w, http.StatusMethodNotAllowed, textMethodNotAllowed)
			return
		}
		if cms.ErrorCode(perr) != cms.CodeMalformed {
			writeFail(w, http.StatusNotFound, textNotFound)
			return
		}
	}
	kind, e := rawEndpoint(r.Method, rest)
	if slices.Contains(cms.Kinds(), kind) { // never a label a client makes up
		nameRoute(r, string(kind)+" bad path") // named again below when it parsed
	}
	if perr == nil {
		kind, e = rp.Kind, rp.Endpoint
		nameRoute(r, string(rp.Kind)+" "+rp.Endpoint.String())
	}
	target, action := permissionOf(r.Method, kind, e)
	ctx, err := h.authorize(r, target, action)
	if err != nil {
		h.writeError(w, r, err)
		return
	}
	if perr != nil {
		h.writeError(w, r, perr)
		return
	}
	r = r.WithContext(ctx)
	switch rp.Endpoint {
	case endpointUpsert:
		h.upsert(w, r, rp)
	case endpointRead:
		h.read(w, r, rp)
	case endpointDelete:
		h.delete(w, r, rp)
	case endpointClone:
		h.clone(w, r, rp)
	case endpointSchema:
		h.schema(w, r, rp)
	case endpointBatch:
		h.batch(w, r, rp)
	case endpointBatchStatus:
		h.batchStatus(w, r, rp)
	}
}

// upsertBody is the answer of a create or update.
type upsertBody struct {
	Done   string `json:"done" jsonschema_description:"Create, Update, Skip or Delete, then <Kind> <id>"`
	ID     string `json:"id" jsonschema_description:"the record's id"`
	New    bool   `json:"new" jsonschema_description:"the record was created"`
	Update bool   `json:"update" jsonschema_description:"anything was written (false for a Skip)"`
}

func (h *Handler) upsert(w http.ResponseWriter, r *http.Request, rp *recordPath) {
	body, err := h.readBody(w, r, h.maxBody)
	if err != nil {
		h.writeError(w, r, err)
		return
	}
	res, err := h.svc.Upsert(r.Context(), rp.Kind, body, &cms.UpsertOptions{IfMatch: r.Header.Get("If-Match")})
	if err != nil {
		h.writeError(w, r, err)
		return
	}
	title := rp.Kind.Title() + " " + res.ID
	switch res.Outcome {
	case cms.Skipped:
		writeJSON(w, http.StatusOK, upsertBody{"Skip " + title, res.ID, false, false})
	case cms.Created:
		writeJSON(w, http.StatusCreated, upsertBody{"Create " + title, res.ID, true, true})
	case cms.Updated:
		writeJSON(w, http.StatusAccepted, upsertBody{"Update " + title, res.ID, false, true})
	case cms.Deleted:
		writeJSON(w, http.StatusAccepted, upsertBody{"Delete " + title, res.ID, false, true})
	}
}

// readBody reads a create/update body: the raw JSON document whatever its
// Content-Type, or the field json of an urlencoded or multipart form
// (docs/api.md, Create or update). An urlencoded body that opens like a JSON
// document is the document: `curl -d` sends one so. Over the limit:
// CodeTooLarge.
func (h *Handler) readBody(w http.ResponseWriter, r *http.Request, limit int64) ([]byte, error) {
	if err := limitBody(w, r, limit); err != nil {
		return nil, err
	}
	ct, _, _ := mime.ParseMediaType(r.Header.Get("Content-Type"))
	if ct == "multipart/form-data" {
		if err := r.ParseMultipartForm(limit); err != nil {
			return nil, bodyReadError(err)
		}
		return formDocument(r.MultipartForm.Value["json"])
	}
	// A declared length sizes the buffer once: a large batch is then held
	// once, not in a chain of doubling copies.
	buf := bytes.NewBuffer(make([]byte, 0, min(max(r.ContentLength, 0), limit)+bytes.MinRead))
	if _, err := buf.ReadFrom(r.Body); err != nil {
		return nil, bodyReadError(err)
	}
	body := buf.Bytes()
	if ct == "application/x-www-form-urlencoded" && !opensJSONDocument(body) {
		form, err := url.ParseQuery(string(body))
		if err != nil {
			return nil, bodyReadError(err)
		}
		return formDocument(form["json"])
	}
	return body, nil
}

// formDocument is the document of a form's json fields: exactly one.
func formDocument(values []string) ([]byte, error) {
	if len(values) != 1 {
		return nil, &cms.Error{Code: cms.CodeMalformed, Message: "Wrong request", Err: errors.New("form without one json field")}
	}
	return []byte(values[0]), nil
}

// opensJSONDocument reports whether body starts, after JSON whitespace,
// with an object or an array: no form field name does.
func opensJSONDocument(body []byte) bool {
	rest := bytes.TrimLeft(body, " \t\r\n")
	return len(rest) > 0 && (rest[0] == '{' || rest[0] == '[')
}

func bodyReadError(err error) error {
	if f := readFailure(err); f != nil {
		return f
	}
	return &cms.Error{Code: cms.CodeMalformed, Message: "Wrong request", Err: err}
}

func (h *Handler) delete(w http.ResponseWriter, r *http.Request, rp *recordPath) {
	res, err := h.svc.Delete(r.Context(), rp.Kind, rp.IDs, &cms.DeleteOptions{IfMatch: r.Header.Get("If-Match")})
	if err != nil {
		h.writeError(w, r, err)
		return
	}
	plural := rp.Kind.Plural()
	body := deleteBody{Done: "Deletion of " + strconv.Itoa(len(res.Deleted)) + " " + plural + " done", Count: len(res.Deleted)}
	if len(res.Failed) > 0 {
		body.Fail = "Deletion of " + strconv.Itoa(len(res.Failed)) + " " + plural + " not done"
		body.Failed = res.Failed
	}
	writeJSON(w, http.StatusAccepted, body)
}

func (h *Handler) clone(w http.ResponseWriter, r *http.Request, rp *recordPath) {
	res, err := h.svc.Clone(r.Context(), rp.Kind, rp.IDs[0], rp.MapID)
	if err != nil {
		h.writeError(w, r, err)
		return
	}
	writeJSON(w, http.StatusCreated, cloneBody{"Cloned " + rp.Kind.Title() + " " + res.ID + " to " + rp.Kind.Title() + " " + res.NewID, res.NewID})
}
