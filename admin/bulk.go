package admin

import (
	"context"
	"encoding/json"
	"errors"
	"net/http"
	"slices"
	"strconv"
	"strings"

	"github.com/bwcms/cms/cms"
)

// Bulk actions of a list (POST <prefix>/<kind>/bulk, form fields id (one
// per selected record), action (publish, unpublish, delete), confirm and
// back): publish and unpublish upsert each record and report each;
// delete first answers a confirmation listing what will go, and on
// confirm=yes deletes and reports what could not be deleted and why.
// Every change goes through the service, which refuses what the user may
// not do whatever the page offered.

// maxBulk is the most records one bulk action takes: a list's largest
// page.
const maxBulk = maxListLimit

// bulkPage is the data of the report of a bulk action.
type bulkPage struct {
	Kind    cms.Kind
	Heading string
	// Error says why nothing was done.
	Error   string
	Back    string
	Results []bulkResult
	Done    int
	Skipped int
	Failed  int
}

// bulkResult is what a bulk action did to one record.
type bulkResult struct {
	ID    string
	Label string
	// Edit is the record's form; "" when it no longer exists.
	Edit string
	// Outcome is "done", "skipped" or "failed"; Text says it for people.
	Outcome string
	Text    string
	// By are the records whose single reference kept it.
	By []bulkReferrer
}

// bulkReferrer is a record naming one that could not be deleted.
type bulkReferrer struct {
	Kind  cms.Kind
	Label string
	Edit  string // "" when the user cannot read its kind
	Field string
}

// bulkDeletePage is the data of the confirmation of a bulk delete.
type bulkDeletePage struct {
	Kind   cms.Kind
	Action string
	Back   string
	Items  []deleteItem
	// Gone are the ids selected that no longer exist.
	Gone []string
}

// deleteItem is a record a confirmed delete takes.
type deleteItem struct {
	ID, Label, Edit string
	// Effect says what else the deletion changes ("Removed from 3 Maps").
	Effect string
}

func (h *Handler) bulk(kind cms.Kind) http.HandlerFunc {
	return func(w http.ResponseWriter, r *http.Request) {
		s, _ := sessionFrom(r)
		r.Body = http.MaxBytesReader(w, r.Body, 256<<10)
		back := h.url("/" + string(kind) + "/")
		if err := r.ParseForm(); err != nil {
			h.bulkRefused(w, r, s, kind, back, http.StatusBadRequest, "The form could not be read. Go back to the list and try again.")
			return
		}
		back = h.listBack(kind, r.PostForm.Get("back"))
		ids := selectedIDs(r.PostForm["id"])
		action := r.PostForm.Get("action")
		switch {
		case len(ids) == 0:
			h.bulkRefused(w, r, s, kind, back, http.StatusBadRequest, "No record was selected. Select records with their checkboxes first.")
		case len(ids) > maxBulk:
			h.bulkRefused(w, r, s, kind, back, http.StatusBadRequest, "Select at most "+strconv.Itoa(maxBulk)+" records at once.")
		case action == "publish" || action == "unpublish":
			h.bulkPublish(w, r, s, kind, ids, action == "publish", back)
		case action == "delete" && r.PostForm.Get("confirm") == "yes":
			h.bulkDelete(w, r, s, kind, ids, back)
		case action == "delete":
			h.confirmDelete(w, r, s, kind, ids, back)
		default:
			h.bulkRefused(w, r, s, kind, back, http.StatusBadRequest, "Choose what to do with the selected records.")
		}
	}
}

// listBack is where a bulk action's report links back to: the list page
// it came from (with its filters) when back is one, else the list.
func (h *Handler) listBack(kind cms.Kind, back string) string {
	list := h.url("/" + string(kind) + "/")
	if back == list || strings.HasPrefix(back, list+"?") {
		return back
	}
	return list
}

// selectedIDs are the ids posted, once each, in order.
func selectedIDs(posted []string) []string {
	var ids []string
	for _, id := range posted {
		if id = strings.TrimSpace(id); id != "" && !slices.Contains(ids, id) {
			ids = append(ids, id)
		}
	}
	return ids
}

func (h *Handler) bulkRefused(w http.ResponseWriter, r *http.Request, s *session, kind cms.Kind, back string, status int, msg string) {
	h.render(w, r, status, "bulk", &view{Title: kindLabels[kind].plural, Session: s, Section: string(kind),
		Page: bulkPage{Kind: kind, Heading: "Nothing was done", Error: msg, Back: back}})
}

// bulkPublish sets published on each record with an upsert of its id and
// the flag; one that no longer exists is not created again.
func (h *Handler) bulkPublish(w http.ResponseWriter, r *http.Request, s *session, kind cms.Kind, ids []string, publish bool, back string) {
	ctx := r.Context()
	titles := h.titlesOf(ctx, s, kind, ids)
	page := bulkPage{Kind: kind, Back: back, Heading: "Unpublish " + kindLabels[kind].plural}
	done, already := "Unpublished", "Already not published"
	if publish {
		page.Heading, done, already = "Publish "+kindLabels[kind].plural, "Published", "Already published"
	}
	status := 0
	for _, id := range ids {
		res := bulkResult{ID: id, Label: recordLabel(id, titles[id]), Edit: h.editURL(kind, id)}
		body, _ := json.Marshal(struct {
			ID        string `json:"id"`
			Published bool   `json:"published"`
		}{id, publish})
		out, err := h.svc.Upsert(ctx, kind, body, &cms.UpsertOptions{IfMatch: "*"})
		switch {
		case err != nil:
			var st int
			st, res.Text = h.bulkFailure(r, err)
			res.Outcome = "failed"
			if cms.ErrorCode(err) == cms.CodePrecondition {
				res.Edit = ""
			}
			if status == 0 {
				status = st
			}
			page.Failed++
		case out.Outcome == cms.Skipped:
			res.Outcome, res.Text = "skipped", already
			page.Skipped++
		default:
			res.Outcome, res.Text = "done", done
			page.Done++
		}
		page.Results = append(page.Results, res)
	}
	if page.Done+page.Skipped > 0 || status == 0 {
		status = http.StatusOK
	}
	h.render(w, r, status, "bulk", &view{Title: page.Heading, Session: s, Section: string(kind), Page: page})
}

// bulkFailure is the status and the reason for people of a record's
// failed change.
func (h *Handler) bulkFailure(r *http.Request, err error) (int, string) {
	if cms.ErrorCode(err) == cms.CodePrecondition {
		return http.StatusNotFound, "It no longer exists."
	}
	status, msg := errorText(err)
	if e, ok := errors.AsType[*cms.Error](err); ok && e.Code == cms.CodeInvalid && len(e.Problems) > 0 {
		msg = e.ProblemText()
	}
	if status >= 500 {
		h.log.Error("admin: bulk change failed", "path", r.URL.Path, "err", err)
	}
	return status, msg
}

// confirmDelete lists what a delete of ids will take, and what else it
// changes, with a form to confirm it.
func (h *Handler) confirmDelete(w http.ResponseWriter, r *http.Request, s *session, kind cms.Kind, ids []string, back string) {
	if !s.P.Can(kind, cms.ActionDelete) {
		h.bulkRefused(w, r, s, kind, back, http.StatusForbidden, "Your permissions do not allow deleting "+kindLabels[kind].plural+".")
		return
	}
	recs, err := h.recordsNamed(r.Context(), kind, ids)
	if err != nil {
		h.fail(w, r, err)
		return
	}
	page := bulkDeletePage{Kind: kind, Action: h.url("/" + string(kind) + "/bulk"), Back: back}
	for _, id := range ids {
		rec, ok := recs[id]
		if !ok {
			page.Gone = append(page.Gone, id)
			continue
		}
		page.Items = append(page.Items, deleteItem{ID: id, Label: recordLabel(id, recordTitle(s.P.Langs, rec)),
			Edit: h.editURL(kind, id), Effect: deleteEffect(rec)})
	}
	h.render(w, r, http.StatusOK, "bulk_delete", &view{Title: "Delete " + kindLabels[kind].plural, Session: s, Section: string(kind), Page: page})
}

// deleteEffect says what deleting rec changes besides it: the Maps a
// Resource leaves, the Resources a Map loses.
func deleteEffect(rec cms.Record) string {
	switch r := rec.(type) {
	case *cms.Resource:
		if n := len(r.MapIDs.Value) + len(r.MapSecondaryIDs.Value); n > 0 {
			return "Removed from " + countOf(n, "Map", "Maps") + "."
		}
	case *cms.Map:
		if n := len(r.ResourceIDs.Value) + len(r.SecondaryResourceIDs.Value); n > 0 {
			return countOf(n, "Resource is", "Resources are") + " unassigned from it."
		}
	}
	return ""
}

func countOf(n int, one, many string) string {
	if n == 1 {
		return "1 " + one
	}
	return strconv.Itoa(n) + " " + many
}

// bulkDelete deletes ids in one request: the service deletes those it
// can and names the records keeping the others.
func (h *Handler) bulkDelete(w http.ResponseWriter, r *http.Request, s *session, kind cms.Kind, ids []string, back string) {
	ctx := r.Context()
	titles := h.titlesOf(ctx, s, kind, ids)
	res, err := h.svc.Delete(ctx, kind, ids, nil)
	status := http.StatusOK
	switch cms.ErrorCode(err) {
	case cms.CodeConflict, cms.CodeNotFound:
		status, _ = errorText(err)
		res.Failed, res.Referrers = ids, nil
		if nd, ok := errors.AsType[*cms.NotDoneError](err); ok {
			res.Failed, res.Referrers = nd.Failed, nd.Referrers
		}
	default:
		if err != nil {
			h.fail(w, r, err)
			return
		}
	}
	page := bulkPage{Kind: kind, Back: back, Heading: "Delete " + kindLabels[kind].plural}
	by := h.referrers(ctx, s, res.Referrers)
	for _, id := range ids {
		item := bulkResult{ID: id, Label: recordLabel(id, titles[id])}
		switch {
		case slices.Contains(res.Deleted, id):
			item.Outcome, item.Text = "done", "Deleted"
			page.Done++
		case len(by[id]) > 0:
			item.Outcome, item.Text, item.By, item.Edit = "failed", "Not deleted: other records name it.", by[id], h.editURL(kind, id)
			page.Failed++
		default:
			item.Outcome, item.Text = "failed", "It no longer exists."
			page.Failed++
		}
		page.Results = append(page.Results, item)
	}
	h.render(w, r, status, "bulk", &view{Title: page.Heading, Session: s, Section: string(kind), Page: page})
}

// referrers are the records of refs for people, by the id they name:
// labelled with their titles where the user may read their kind.
func (h *Handler) referrers(ctx context.Context, s *session, refs map[string][]cms.Reference) map[string][]bulkReferrer {
	byKind := map[cms.Kind][]string{}
	for _, list := range refs {
		for _, ref := range list {
			byKind[ref.FromKind] = append(byKind[ref.FromKind], ref.FromID)
		}
	}
	titles := map[cms.Kind]map[string]string{}
	for k, ids := range byKind {
		titles[k] = h.titlesOf(ctx, s, k, selectedIDs(ids))
	}
	out := map[string][]bulkReferrer{}
	for id, list := range refs {
		for _, ref := range list {
			b := bulkReferrer{Kind: ref.FromKind, Label: recordLabel(ref.FromID, titles[ref.FromKind][ref.FromID]), Field: ref.Field}
			if s.P.Can(ref.FromKind, cms.ActionRead) {
				b.Edit = h.editURL(ref.FromKind, ref.FromID)
			}
			out[id] = append(out[id], b)
		}
		slices.SortFunc(out[id], func(a, b bulkReferrer) int {
			return strings.Compare(string(a.Kind)+" "+a.Label, string(b.Kind)+" "+b.Label)
		})
	}
	return out
}

// titlesOf are the titles to show of the records of ids that exist, by
// id; none when the user cannot read kind (the report then shows ids).
func (h *Handler) titlesOf(ctx context.Context, s *session, kind cms.Kind, ids []string) map[string]string {
	out := map[string]string{}
	if !s.P.Can(kind, cms.ActionRead) {
		return out
	}
	recs, err := h.recordsNamed(ctx, kind, ids)
	if err != nil {
		h.log.Warn("admin: titles", "kind", kind, "err", err)
		return out
	}
	for id, rec := range recs {
		out[id] = recordTitle(s.P.Langs, rec)
	}
	return out
}

// recordTitle is the title to show of rec.
func recordTitle(langs cms.Languages, rec cms.Record) string {
	var titles map[string]string
	if t := rec.Common().Title; t != nil {
		titles = *t
	}
	title, _, _ := displayTitle(langs, titles)
	return title
}

// recordsNamed reads the records of ids that exist, by id, without
// counting a Proposal visit: the admin's reads are not visits.
func (h *Handler) recordsNamed(ctx context.Context, kind cms.Kind, ids []string) (map[string]cms.Record, error) {
	out := map[string]cms.Record{}
	if len(ids) == 0 {
		return out, nil
	}
	seq, err := h.svc.Read(ctx, kind, cms.ReadParams{IDs: ids, Published: cms.PublishedAny, Uncounted: true})
	if err != nil {
		return nil, err
	}
	for e, err := range seq {
		if err != nil {
			return nil, err
		}
		out[e.Record.RecordID()] = e.Record
	}
	return out, nil
}
