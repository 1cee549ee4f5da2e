package transport

import (
	"net/http"
	"net/url"

	"github.com/bwcms/cms/cms"
)

// batch is POST <kind>/batch: validated whole, stored, then 201; with
// ?dryRun=1 validated whole, stored nowhere, then 200 (DECISIONS §10).
func (h *Handler) batch(w http.ResponseWriter, r *http.Request, rp *recordPath) {
	dryRun, err := dryRunOf(r.URL.RawQuery)
	if err != nil {
		h.writeError(w, r, err)
		return
	}
	body, err := h.readBody(w, r, h.maxBatchBody)
	if err != nil {
		h.writeError(w, r, err)
		return
	}
	if dryRun {
		count, err := h.svc.CheckBatch(r.Context(), rp.Kind, body)
		if err != nil {
			h.writeError(w, r, err)
			return
		}
		writeJSON(w, http.StatusOK, batchCheckedBody{"Batch checked", count})
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
	Processed   *int    `json:"processed,omitempty" jsonschema_description:"extension: records the current attempt has applied so far (processing only); never decreases within an attempt, and starts again from 0 with the next attempt"`
	Attempt     *int    `json:"attempt,omitempty" jsonschema:"minimum=1" jsonschema_description:"extension: the number of the current attempt (processing only), 1 at first; a greater one than before means the batch was taken up again (after a failure, a stop or a lease that ran out) and processed restarted from 0"`
}

// batchCheckedBody is the 200 answer of a batch checked (?dryRun=1).
type batchCheckedBody struct {
	Done  string `json:"done" jsonschema_description:"Batch checked"`
	Count int    `json:"count" jsonschema_description:"how many records the batch holds"`
}

// queryDryRun asks POST <kind>/batch to check the body and store nothing.
const queryDryRun = "dryRun"

// dryRunOf reads ?dryRun= of a batch submission: 1 or true checks only,
// 0 or false (or none) submits; another value, or the parameter twice, is
// 400. Other parameters are not read (a cache buster changes nothing).
func dryRunOf(rawQuery string) (bool, error) {
	if rawQuery == "" {
		return false, nil
	}
	q, err := url.ParseQuery(rawQuery)
	if err != nil {
		return false, wrong("bad query string")
	}
	v, ok := q[queryDryRun]
	switch {
	case !ok:
		return false, nil
	case len(v) > 1:
		return false, wrong("dryRun given twice")
	}
	switch v[0] {
	case "1", "true":
		return true, nil
	case "0", "false":
		return false, nil
	}
	return false, wrong("dryRun: not 1, true, 0 or false")
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
	case cms.BatchProcessing:
		body.Processed, body.Attempt = &b.Processed, &b.Attempts
	}
	w.Header().Set("Cache-Control", "no-store")
	writeJSON(w, http.StatusOK, body)
}
