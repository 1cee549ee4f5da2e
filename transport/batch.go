package transport

import (
	"net/http"

	"github.com/bwcms/cms/cms"
)

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
	writeJSON(w, http.StatusCreated, batchReceiptBody{"Batch process created", receipt.ID, receipt.Count})
}

// batchStatusBody is the answer of GET <kind>/batch/{id}; the counts once
// done, the reason on error.
type batchStatusBody struct {
	Done        string  `json:"done" jsonschema_description:"Batch process status"`
	Status      string  `json:"status" jsonschema:"enum=waiting,enum=processing,enum=done,enum=error" jsonschema_description:"waiting, then processing, then done or error"`
	DateStatus  string  `json:"dateStatus" jsonschema_description:"when the status was last set (YYYY-MM-DD HH:MM:SS, the service's zone)"`
	DateRequest string  `json:"dateRequest" jsonschema_description:"when the batch was submitted (YYYY-MM-DD HH:MM:SS, the service's zone)"`
	Count       int     `json:"count" jsonschema_description:"how many records the batch holds"`
	Created     *int    `json:"created,omitempty" jsonschema_description:"records created (done only)"`
	Updated     *int    `json:"updated,omitempty" jsonschema_description:"records updated or deleted (done only)"`
	Skipped     *int    `json:"skipped,omitempty" jsonschema_description:"records unchanged (done only)"`
	Error       *string `json:"error,omitempty" jsonschema_description:"why the batch failed (error only); nothing of it was applied"`
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
