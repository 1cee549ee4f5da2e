package admin

import (
	"net/http"
	"net/url"

	"github.com/bwcms/cms/cms"
)

// deleteView is the data of the delete confirmation and of its refusals.
type deleteView struct {
	Kind    cms.Kind
	ID      string
	Title   string
	Action  string
	EditURL string
	ETag    string
	// Stage: "confirm" asks; "blocked" says which records stop it;
	// "stale" says someone changed the record since it was opened.
	Stage string
	// Blockers name the record by a single reference: it cannot go while
	// they do. Lists name it in lists it will be taken out of.
	Blockers []referrer
	Lists    []referrer
	CanDel   bool
}

// referrer is a record that names the one being deleted.
type referrer struct {
	Kind  cms.Kind
	ID    string
	Label string // its title and id, as the bulk delete's report names it
	Field string
	URL   string
}

// clone copies the stored record (not the form's unsaved changes) and
// opens the copy.
func (h *editor) clone(w http.ResponseWriter, r *http.Request, fc *formCtx) {
	res, err := h.svc.Clone(r.Context(), fc.kind, fc.id, "")
	if err != nil {
		h.fail(w, r, err)
		return
	}
	h.setFlash(w, r, flash{Kind: fc.kind, ID: res.NewID, ClonedFrom: fc.id})
	http.Redirect(w, r, h.editURL(fc.kind, res.NewID), http.StatusSeeOther)
}

// referrers reads who names the record, split into those that stop its
// delete and the lists it will leave.
func (h *editor) referrers(r *http.Request, fc *formCtx) (blockers, lists []referrer, err error) {
	refs, err := h.svc.Referrers(r.Context(), fc.kind, fc.id)
	if err != nil {
		return nil, nil, err
	}
	byKind := map[cms.Kind][]string{}
	for _, ref := range refs {
		byKind[ref.FromKind] = append(byKind[ref.FromKind], ref.FromID)
	}
	titles := map[cms.Kind]map[string]string{}
	for kind, ids := range byKind {
		titles[kind] = h.titlesOf(r.Context(), fc.s, kind, selectedIDs(ids))
	}
	for _, ref := range refs {
		one := referrer{Kind: ref.FromKind, ID: ref.FromID, Label: recordLabel(ref.FromID, titles[ref.FromKind][ref.FromID]), Field: ref.Field}
		if fc.s.P.Can(ref.FromKind, cms.ActionRead) {
			one.URL = h.editURL(ref.FromKind, ref.FromID)
		}
		if ref.Single {
			blockers = append(blockers, one)
		} else {
			lists = append(lists, one)
		}
	}
	return blockers, lists, nil
}

// confirmDelete asks before deleting, naming what the delete changes.
func (h *editor) confirmDelete(w http.ResponseWriter, r *http.Request, fc *formCtx) {
	if !fc.s.P.Can(fc.kind, cms.ActionDelete) {
		h.fail(w, r, &cms.Error{Code: cms.CodeForbidden, Message: "Forbidden"})
		return
	}
	dv := h.deleteView(fc, "confirm")
	var err error
	if dv.Blockers, dv.Lists, err = h.referrers(r, fc); err != nil {
		h.fail(w, r, err)
		return
	}
	if len(dv.Blockers) > 0 {
		dv.Stage = "blocked"
	}
	h.render(w, r, http.StatusOK, "edit", &view{Title: "Delete " + dv.Title, Session: fc.s, Section: string(fc.kind), Page: &formView{Delete: dv}})
}

func (h *editor) deleteView(fc *formCtx, stage string) *deleteView {
	return &deleteView{Kind: fc.kind, ID: fc.id, Title: kindLabels[fc.kind].one + " " + fc.id, Stage: stage,
		Action: h.editURL(fc.kind, fc.id), EditURL: h.editURL(fc.kind, fc.id), ETag: fc.etag,
		CanDel: fc.s.P.Can(fc.kind, cms.ActionDelete)}
}

// deleteRecord deletes with If-Match the version the editor opened
// (DECISIONS §7): a record changed since is not deleted (412), nor one a
// single reference names (409, naming who).
func (h *editor) deleteRecord(w http.ResponseWriter, r *http.Request, fc *formCtx) {
	ifMatch := fc.etag
	if ifMatch == "" {
		ifMatch = `"none"`
	}
	_, err := h.svc.Delete(r.Context(), fc.kind, []string{fc.id}, &cms.DeleteOptions{IfMatch: ifMatch})
	switch cms.ErrorCode(err) {
	case cms.CodePrecondition:
		dv := h.deleteView(fc, "stale")
		h.render(w, r, http.StatusPreconditionFailed, "edit", &view{Title: "Not deleted: " + dv.Title, Session: fc.s, Section: string(fc.kind), Page: &formView{Delete: dv}})
		return
	case cms.CodeConflict:
		dv := h.deleteView(fc, "blocked")
		var rerr error
		if dv.Blockers, dv.Lists, rerr = h.referrers(r, fc); rerr != nil {
			h.fail(w, r, rerr)
			return
		}
		h.render(w, r, http.StatusConflict, "edit", &view{Title: "Not deleted: " + dv.Title, Session: fc.s, Section: string(fc.kind), Page: &formView{Delete: dv}})
		return
	}
	if err != nil {
		h.fail(w, r, err)
		return
	}
	http.Redirect(w, r, h.url("/"+string(fc.kind)+"/")+"?deleted="+url.QueryEscape(fc.id), http.StatusSeeOther)
}
