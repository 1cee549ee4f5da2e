package admin

import (
	"net/http"
	"slices"
	"strconv"
	"strings"

	"github.com/bwcms/cms/cms"
)

// The form's controls of a restore.
const (
	ctlAssign = "_assign" // "yes": the assignment lists are restored too
)

// restoreView is the data of a restore's confirmation: what it would
// change, the assignment lists apart.
type restoreView struct {
	Kind        cms.Kind
	ID          string
	Heading     string
	Rev         int64
	When        string
	Who         string
	RevisionURL string
	Action      string
	// ETag and Base are the version shown and its values: the restore is
	// saved only onto that version (a conflict view otherwise).
	ETag    string
	Base    string
	Default string
	Fields  []string
	Changes []diffRow
	Assign  []diffRow
	// AssignChecked keeps the box ticked on a refused restore.
	AssignChecked bool
	Problem       string
}

// openRestore reads what a restore needs: the revision, the record now
// and write permission. It answers the failure itself.
func (h *editor) openRestore(w http.ResponseWriter, r *http.Request) (*revisionCtx, bool) {
	rc, ok := h.openRevision(w, r)
	if !ok {
		return nil, false
	}
	switch {
	case !rc.s.P.Can(rc.kind, cms.ActionWrite):
		h.fail(w, r, &cms.Error{Code: cms.CodeForbidden, Message: "Forbidden"})
	case rc.now == nil:
		h.renderError(w, r, http.StatusNotFound, "This record does not exist now: a revision restores only a record that exists.")
	case rc.then == nil:
		h.renderError(w, r, http.StatusConflict, "This revision is a deletion, or is no longer kept: there is nothing to restore.")
	default:
		return rc, true
	}
	return nil, false
}

// restoreData is the confirmation of restoring rc onto the record now.
func (h *editor) restoreData(rc *revisionCtx) *restoreView {
	rv := rc.rev.Revision
	v := &restoreView{Kind: rc.kind, ID: rc.id, Rev: rv.Rev, When: when(rv.Time), Who: who(rv.User),
		RevisionURL: h.historyURL(rc.kind, rc.id, rv.Rev), Action: h.historyURL(rc.kind, rc.id, rv.Rev) + "/restore",
		ETag: rc.now.etag, Default: rc.ks.langs.Default}
	v.Heading = "Restore revision " + strconv.FormatInt(rv.Rev, 10) + " of " + kindLabels[rc.kind].one + " " + rc.id
	v.Fields = rc.differing()
	v.Base = baseOf(v.Fields, rc.nowValue)
	for _, wire := range v.Fields {
		d := rc.row(wire)
		if d.Assign {
			v.Assign = append(v.Assign, d)
		} else {
			v.Changes = append(v.Changes, d)
		}
	}
	return v
}

func (h *editor) renderRestore(w http.ResponseWriter, r *http.Request, status int, rc *revisionCtx, v *restoreView) {
	title := v.Heading
	if v.Problem != "" {
		title = "Error: " + title
	}
	h.render(w, r, status, "restore", &view{Title: title, Session: rc.s, Section: string(rc.kind), Page: v})
}

// restorePage answers GET: what restoring the revision would change.
func (h *editor) restorePage(w http.ResponseWriter, r *http.Request) {
	rc, ok := h.openRestore(w, r)
	if !ok {
		return
	}
	h.renderRestore(w, r, http.StatusOK, rc, h.restoreData(rc))
}

// restorePost saves the revision's values of the properties the
// confirmation listed, through the form's save: If-Match of the version
// the confirmation showed; a conflict view when someone saved since.
func (h *editor) restorePost(w http.ResponseWriter, r *http.Request) {
	r.Body = http.MaxBytesReader(w, r.Body, maxFormBody)
	if err := parseForm(r); err != nil {
		h.formUnreadable(w, r, err)
		return
	}
	rc, ok := h.openRestore(w, r)
	if !ok {
		return
	}
	// A confirmation made before the default language changed names the
	// properties of then (title was English): renamed to today's names.
	form := renameLangs(rc.ks, r.PostForm)
	r.PostForm, r.Form = form, form
	withAssign := form.Get(ctlAssign) == "yes"
	known := rc.comparable()
	assign := cms.AssignmentFields(rc.kind)
	var fields []string
	for _, wire := range form[ctlFields] {
		if !slices.Contains(known, wire) || slices.Contains(fields, wire) || !withAssign && slices.Contains(assign, wire) {
			continue
		}
		fields = append(fields, wire)
	}
	if len(fields) == 0 {
		v := h.restoreData(rc)
		v.AssignChecked = withAssign
		v.Problem = "There is nothing to restore: this revision differs from now only in the Map assignments, and the box to restore them is not ticked."
		if len(v.Fields) == 0 {
			v.Problem = "There is nothing to restore: this revision is the same as the record now."
		}
		h.renderRestore(w, r, http.StatusConflict, rc, v)
		return
	}
	// The form as if opened now, with the revision's values in the
	// properties restored: a refused save shows the whole record, and a
	// conflict view judges each property against what the confirmation
	// showed (a property it did not list had the revision's value then).
	fc := &formCtx{s: rc.s, ks: rc.ks, kind: rc.kind, id: rc.id, rec: rc.now,
		shown: h.shownLangs(w, r, rc.ks.langs, nil, false), etag: form.Get(ctlETag), restored: rc.rev.Revision.Rev}
	fc.st = openState(rc.ks, rc.now.vals, fc.langsWithDefault())
	then := recordValues(rc.ks, rc.then)
	for _, wire := range fields {
		fc.st.carry(wire, then)
	}
	if !withAssign {
		for _, wire := range assign {
			fc.st.drop(wire)
			fc.st.fields = slices.DeleteFunc(fc.st.fields, func(f string) bool { return f == wire })
		}
	}
	fc.st.vals.Set("id", rc.id)
	shown := readBase(form.Get(ctlBase))
	var pairs []string
	for _, wire := range fc.st.fields {
		hash, ok := shown[wire]
		switch {
		case slices.Contains(fields, wire) && ok:
		case slices.Contains(fields, wire):
			continue // empty when shown
		case normal(rc.then[wire]) == nil:
			continue
		default:
			hash = valueHash(rc.then[wire])
		}
		pairs = append(pairs, wire+":"+hash)
	}
	fc.base = strings.Join(pairs, " ")
	h.save(w, r, fc)
}
