package admin

import (
	"context"
	"net/http"
	"net/url"
	"strconv"

	"github.com/bwcms/cms/cms"
)

// An import's batch (<prefix>/import/<kind>/<batch id>): its status,
// the records applied so far as a <progress> bar, and when done what
// became of the records. A script's request (Accept: application/json)
// gets the figures alone, which import-status.js polls: the bar only
// moves forward, and a batch taken up again after a failure (a new
// attempt, counted from 0) gets a new bar, said in words.

// importStatusData is the figures of a batch, for the page and as JSON.
type importStatusData struct {
	Status    string `json:"status"`
	Processed int    `json:"processed"`
	Count     int    `json:"count"`
	// Attempt is the batch's claim (1 the first; 0 while waiting).
	Attempt int    `json:"attempt"`
	Created int    `json:"created"`
	Updated int    `json:"updated"`
	Skipped int    `json:"skipped"`
	Error   string `json:"error,omitempty"`
}

// importStatusPage is the data of the batch's page.
type importStatusPage struct {
	importStatusData
	ID        string
	Kind      string
	KindLabel string
	KindOne   string
	// StatusText says where the batch is, in words; DoneText what a done
	// one did.
	StatusText string
	DoneText   string
	Finished   bool
	ListURL    string
	NewURL     string
	// Outcomes are the records with what became of each, when the
	// service reports them (importOutcomes); MoreOutcomes counts those
	// not listed.
	Outcomes     []importOutcome
	MoreOutcomes int
}

// importOutcome is a record of a done batch.
type importOutcome struct {
	ID      string
	URL     string
	Outcome string // created, updated or skipped
}

// maxShownOutcomes is the most records a finished import lists.
const maxShownOutcomes = 1000

func (h *Handler) importStatus(w http.ResponseWriter, r *http.Request) {
	s, _ := sessionFrom(r)
	kind := cms.Kind(r.PathValue("kind"))
	if _, ok := kindLabels[kind]; !ok {
		h.notFound(w, r)
		return
	}
	id := r.PathValue("id")
	b, err := h.svc.BatchStatus(r.Context(), kind, id)
	if err != nil {
		if cms.ErrorCode(err) == cms.CodeNotFound {
			h.renderError(w, r, http.StatusNotFound, "There is no such import in your account (finished imports are kept for a week).")
			return
		}
		h.fail(w, r, err)
		return
	}
	d := importFigures(b)
	if wantsJSON(r) {
		writeListJSON(w, http.StatusOK, d)
		return
	}
	page := importStatusPage{importStatusData: d, ID: b.ID, Kind: string(kind), KindLabel: kindLabels[kind].plural,
		KindOne: kindLabels[kind].one, StatusText: importStatusText(d), DoneText: importDoneText(d), ListURL: h.url("/" + string(kind) + "/"), NewURL: h.url("/import"),
		Finished: b.Status == cms.BatchDone || b.Status == cms.BatchError}
	if b.Status == cms.BatchDone {
		outcomes, err := h.importOutcomes(r.Context(), b)
		if err != nil {
			h.fail(w, r, err)
			return
		}
		if len(outcomes) > maxShownOutcomes {
			page.MoreOutcomes = len(outcomes) - maxShownOutcomes
			outcomes = outcomes[:maxShownOutcomes]
		}
		page.Outcomes = outcomes
	}
	h.render(w, r, http.StatusOK, "import-status", &view{Title: "Import of " + strconv.Itoa(b.Count) + " " + page.KindLabel,
		Session: s, Section: "import", Page: page})
}

// importFigures are b's figures as the page shows them: every record
// once done.
func importFigures(b *cms.Batch) importStatusData {
	d := importStatusData{Status: string(b.Status), Processed: b.Processed, Count: b.Count, Attempt: b.Attempts,
		Created: b.Result.Created, Updated: b.Result.Updated, Skipped: b.Result.Skipped, Error: b.Result.Error}
	switch b.Status {
	case cms.BatchDone:
		d.Processed = b.Count
	case cms.BatchWaiting:
		d.Processed = 0
	}
	d.Processed = min(max(d.Processed, 0), b.Count)
	return d
}

// importStatusText says where a batch is.
func importStatusText(d importStatusData) string {
	switch cms.BatchStatus(d.Status) {
	case cms.BatchWaiting:
		return "Waiting to start."
	case cms.BatchProcessing:
		t := "Importing: " + strconv.Itoa(d.Processed) + " of " + strconv.Itoa(d.Count) + " records applied."
		if d.Attempt > 1 {
			t = "Started again after an interruption (attempt " + strconv.Itoa(d.Attempt) + "), counting from 0: " +
				strconv.Itoa(d.Processed) + " of " + strconv.Itoa(d.Count) + " records applied."
		}
		return t
	case cms.BatchDone:
		return "Finished: every record was applied."
	case cms.BatchError:
		return "Failed, nothing was imported: " + d.Error
	}
	return d.Status
}

// importDoneText sums up what a done batch did.
func importDoneText(d importStatusData) string {
	return "Done: " + strconv.Itoa(d.Created) + " created, " + strconv.Itoa(d.Updated) + " updated, " +
		strconv.Itoa(d.Skipped) + " skipped (unchanged)."
}

// importOutcomes are the records of a done batch and what became of
// each, in the batch's order, with the address of each record's form (of
// its history for a deleted one).
func (h *Handler) importOutcomes(ctx context.Context, b *cms.Batch) ([]importOutcome, error) {
	got, err := h.svc.BatchOutcomes(ctx, b.Kind, b.ID)
	if err != nil {
		return nil, err
	}
	out := make([]importOutcome, len(got))
	for i, o := range got {
		page := "/edit"
		if o.Outcome == cms.Deleted {
			page = "/history"
		}
		out[i] = importOutcome{ID: o.ID, Outcome: o.Outcome.String(),
			URL: h.url("/" + string(b.Kind) + "/" + url.PathEscape(o.ID) + page)}
	}
	return out, nil
}
