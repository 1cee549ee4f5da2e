package transport

import (
	"net/http"

	"github.com/bwcms/cms/cms"
)

// DefaultMaxBatchBody is the default limit of a batch body.
const DefaultMaxBatchBody = 64 << 20

// batch is POST <kind>/batch: validated whole, stored, then 201.
func (h *Handler) batch(w http.ResponseWriter, r *http.Request, rp *recordPath) {
	body, err := h.readBody(w, r, h.maxBatchBody)
	if err != nil {
		h.writeError(w, r, err)
		return
	}
	receipt, err := h.svc.SubmitBatch(r.Context(), rp.Kind, body)
	if err != nil {
		h.writeError(w, r, err)
		return
	}
	writeJSON(w, http.StatusCreated, struct {
		Done    string `json:"done"`
		BatchID string `json:"batchId"`
		Count   int    `json:"count"`
	}{"Batch process created", receipt.ID, receipt.Count})
}

// batchStatusBody is the answer of GET <kind>/batch/{id}; the counts once
// done, the reason on error.
type batchStatusBody struct {
	Done        string  `json:"done"`
	Status      string  `json:"status"`
	DateStatus  string  `json:"dateStatus"`
	DateRequest string  `json:"dateRequest"`
	Count       int     `json:"count"`
	Created     *int    `json:"created,omitempty"`
	Updated     *int    `json:"updated,omitempty"`
	Skipped     *int    `json:"skipped,omitempty"`
	Error       *string `json:"error,omitempty"`
}

func (h *Handler) batchStatus(w http.ResponseWriter, r *http.Request, rp *recordPath) {
	b, err := h.svc.BatchStatus(r.Context(), rp.Kind, rp.IDs[0])
	if err != nil {
		h.writeError(w, r, err)
		return
	}
	body := batchStatusBody{Done: "Batch process status", Status: string(b.Status),
		DateStatus: h.svc.Timestamp(b.StatusAt), DateRequest: h.svc.Timestamp(b.Requested), Count: b.Count}
	switch b.Status {
	case cms.BatchDone:
		body.Created, body.Updated, body.Skipped = &b.Result.Created, &b.Result.Updated, &b.Result.Skipped
	case cms.BatchError:
		body.Error = &b.Result.Error
	}
	w.Header().Set("Cache-Control", "no-store")
	writeJSON(w, http.StatusOK, body)
}
