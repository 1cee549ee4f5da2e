package admin

import (
	"context"
	"net/http"
	"net/url"
	"slices"
	"strconv"
	"strings"

	"github.com/bwcms/cms/cms"
)

// A record's history (DECISIONS §18): <prefix>/<kind>/{id}/history lists
// its revisions newest first; .../history/{rev} shows one beside the
// record as it is now, field by field; .../history/{rev}/restore shows
// what a restore would change and, posted, saves it through the form's
// own save (If-Match of the version shown, a conflict view when someone
// saved meanwhile). The assignment lists are left out unless asked.

// historyRoutes registers the history pages of every kind (a literal of
// each pattern, as editRoutes).
func (h *Handler) historyRoutes(mux *http.ServeMux, ed *editor) {
	for _, kind := range cms.Kinds() {
		k := string(kind)
		mux.HandleFunc("GET /"+k+"/{id}/history", h.signedIn(ed.historyPage))
		mux.HandleFunc("GET /"+k+"/{id}/history/{rev}", h.signedIn(ed.revisionPage))
		mux.HandleFunc("GET /"+k+"/{id}/history/{rev}/restore", h.signedIn(ed.restorePage))
		mux.HandleFunc("POST /"+k+"/{id}/history/{rev}/restore", h.signedIn(ed.restorePost))
	}
}

// historyPageSize is the revisions of one page of a history.
const historyPageSize = 50

// historyURL is the address of a record's history, or of one revision
// (rev above 0).
func (h *Handler) historyURL(kind cms.Kind, id string, rev int64) string {
	u := "/" + string(kind) + "/" + url.PathEscape(id) + "/history"
	if rev > 0 {
		u += "/" + strconv.FormatInt(rev, 10)
	}
	return h.url(u)
}

// who names the author of a change for people.
func who(user string) string {
	if user == "" {
		return "the service"
	}
	return user
}

// historyView is the data of a record's history.
type historyView struct {
	Kind     cms.Kind
	ID       string
	Heading  string
	EditURL  string
	Rows     []historyRow
	NextURL  string // the next (older) page; "" on the last
	FirstURL string // the newest page, when this is not it
}

type historyRow struct {
	Rev     int64
	URL     string // the revision's page; "" for a delete
	When    string
	Who     string
	Deleted bool
	// Changed are the labels of the fields it changed; Created marks the
	// record's first revision, Unknown one whose fields are not known
	// (the first kept one).
	Changed []string
	Created bool
	Unknown bool
}

// openKind reads the kind of the path and checks read permission; it
// answers the failure itself.
func (h *editor) openKind(w http.ResponseWriter, r *http.Request) (*session, cms.Kind, *kindSchema, bool) {
	s, _ := sessionFrom(r)
	first, _, _ := strings.Cut(strings.TrimPrefix(r.URL.Path, "/"), "/")
	kind, err := cms.ParseKind(first)
	if err != nil {
		h.notFound(w, r)
		return nil, "", nil, false
	}
	if !s.P.Can(kind, cms.ActionRead) {
		h.fail(w, r, &cms.Error{Code: cms.CodeForbidden, Message: "Forbidden"})
		return nil, "", nil, false
	}
	ks, err := h.schema(kind, s.P.Langs)
	if err != nil {
		h.fail(w, r, err)
		return nil, "", nil, false
	}
	return s, kind, ks, true
}

func (h *editor) historyPage(w http.ResponseWriter, r *http.Request) {
	s, kind, ks, ok := h.openKind(w, r)
	if !ok {
		return
	}
	id := r.PathValue("id")
	var after int64
	if a := r.URL.Query().Get("after"); a != "" {
		n, err := strconv.ParseInt(a, 10, 64)
		if err != nil || n < 1 {
			h.renderError(w, r, http.StatusBadRequest, "This page of the history does not exist: open the history again.")
			return
		}
		after = n
	}
	page, err := h.svc.History(r.Context(), kind, id, cms.HistoryParams{After: after, Limit: historyPageSize})
	if err != nil {
		h.failHistory(w, r, err)
		return
	}
	v := &historyView{Kind: kind, ID: id, Heading: "History of " + kindLabels[kind].one + " " + id, EditURL: h.editURL(kind, id)}
	for _, rv := range page.Revisions {
		row := historyRow{Rev: rv.Rev, When: when(rv.Time), Who: who(rv.User), Deleted: rv.Op == cms.ChangeDelete}
		if rv.Changed == nil && !row.Deleted {
			row.Created, row.Unknown = rv.Rev == 1, rv.Rev != 1
		}
		if !row.Deleted {
			row.URL = h.historyURL(kind, id, rv.Rev)
		}
		for _, f := range rv.Changed {
			row.Changed = append(row.Changed, problemLabel(ks, f))
		}
		v.Rows = append(v.Rows, row)
	}
	if page.Next > 0 {
		v.NextURL = h.historyURL(kind, id, 0) + "?after=" + strconv.FormatInt(page.Next, 10)
	}
	if after > 0 {
		v.FirstURL = h.historyURL(kind, id, 0)
	}
	h.render(w, r, http.StatusOK, "history", &view{Title: v.Heading, Session: s, Section: string(kind), Page: v})
}

// failHistory answers an error of History or Revision: a record or a
// revision that is not kept says so in words.
func (h *editor) failHistory(w http.ResponseWriter, r *http.Request, err error) {
	if cms.ErrorCode(err) == cms.CodeNotFound {
		h.renderError(w, r, http.StatusNotFound, "There is no such record or revision kept in your account.")
		return
	}
	h.fail(w, r, err)
}

// revisionCtx is one revision beside the record as it is now.
type revisionCtx struct {
	s    *session
	kind cms.Kind
	ks   *kindSchema
	id   string
	rev  cms.RevisionRecord
	then map[string]any // the revision as the API answers it; nil for a tombstone
	now  *stored        // nil when the record does not exist now
}

// openRevision reads revision {rev} of the record and the record now;
// it answers the failure itself.
func (h *editor) openRevision(w http.ResponseWriter, r *http.Request) (*revisionCtx, bool) {
	s, kind, ks, ok := h.openKind(w, r)
	if !ok {
		return nil, false
	}
	rc := &revisionCtx{s: s, kind: kind, ks: ks, id: r.PathValue("id")}
	rev, err := strconv.ParseInt(r.PathValue("rev"), 10, 64)
	if err != nil || rev < 1 {
		h.renderError(w, r, http.StatusNotFound, "There is no such record or revision kept in your account.")
		return nil, false
	}
	ctx := r.Context()
	if rc.rev, err = h.svc.Revision(ctx, kind, rc.id, rev); err != nil {
		h.failHistory(w, r, err)
		return nil, false
	}
	if rc.rev.Entry != nil {
		if rc.then, err = h.entryObject(ctx, rc.rev.Entry); err != nil {
			h.fail(w, r, err)
			return nil, false
		}
	}
	rc.now, err = h.readRecord(ctx, ks, kind, rc.id)
	if err != nil && cms.ErrorCode(err) != cms.CodeNotFound {
		h.fail(w, r, err)
		return nil, false
	}
	return rc, true
}

// entryObject is an entry as the API answers it.
func (h *editor) entryObject(ctx context.Context, e *cms.Entry) (map[string]any, error) {
	codec, err := h.svc.Codec(ctx)
	if err != nil {
		return nil, err
	}
	return decodeRecord(codec.Marshal(h.svc.Wire(e)))
}

// comparable are the properties a revision is compared on: every one a
// form edits, in schema order, in every language.
func (rc *revisionCtx) comparable() []string {
	var out []string
	for _, f := range rc.ks.fields {
		if f.ReadOnly || f.WriteOnly || f.Name == "id" {
			continue
		}
		for _, lang := range rc.ks.fieldLangs(f) {
			out = append(out, rc.ks.wire(f, lang))
		}
	}
	return out
}

func (rc *revisionCtx) nowValue(wire string) any {
	if rc.now == nil {
		return nil
	}
	return rc.now.obj[wire]
}

// differing are the properties whose value in the revision differs from
// now's.
func (rc *revisionCtx) differing() []string {
	var out []string
	for _, wire := range rc.comparable() {
		if !sameValue(rc.then[wire], rc.nowValue(wire)) {
			out = append(out, wire)
		}
	}
	return out
}

// diffRow is one property of a revision beside its value now.
type diffRow struct {
	Wire    string
	Label   string
	Lang    string // the language of a multi-language property
	Then    string
	Now     string
	Differs bool
	Block   bool // a long or nested value, shown as a block
	Assign  bool // an assignment list
}

func (rc *revisionCtx) row(wire string) diffRow {
	_, lang, _ := rc.ks.topField(wire)
	d := diffRow{Wire: wire, Label: problemLabel(rc.ks, wire), Lang: lang, Then: display(rc.then[wire]), Now: display(rc.nowValue(wire)),
		Assign: slices.Contains(cms.AssignmentFields(rc.kind), wire)}
	d.Differs = !sameValue(rc.then[wire], rc.nowValue(wire))
	d.Block = strings.Contains(d.Then+d.Now, "\n") || len(d.Then)+len(d.Now) > 160
	return d
}

// revisionView is the data of a revision's page.
type revisionView struct {
	Kind       cms.Kind
	ID         string
	Heading    string
	Rev        int64
	When       string
	Who        string
	HistoryURL string
	EditURL    string // "" when the record does not exist now
	// Tombstone, when set, says the revision is a deletion, or that the
	// record was deleted since and this revision is no longer kept.
	Tombstone string
	Exists    bool
	Rows      []diffRow
	// Elsewhere are the labels of properties that differ in languages
	// the page does not show.
	Elsewhere  []string
	Differs    int
	RestoreURL string // "" when there is nothing to restore or no right to
}

// shownOf are the languages the pages of a record show: the default
// one and those the editor picked for the form.
func (h *editor) shownOf(w http.ResponseWriter, r *http.Request, ks *kindSchema) []string {
	return append([]string{ks.langs.Default}, h.shownLangs(w, r, ks.langs, nil, false)...)
}

func (h *editor) revisionPage(w http.ResponseWriter, r *http.Request) {
	rc, ok := h.openRevision(w, r)
	if !ok {
		return
	}
	rv := rc.rev.Revision
	v := &revisionView{Kind: rc.kind, ID: rc.id, Rev: rv.Rev, When: when(rv.Time), Who: who(rv.User),
		HistoryURL: h.historyURL(rc.kind, rc.id, 0), Exists: rc.now != nil}
	v.Heading = kindLabels[rc.kind].one + " " + rc.id + ", revision " + strconv.FormatInt(rv.Rev, 10)
	if rc.now != nil {
		v.EditURL = h.editURL(rc.kind, rc.id)
	}
	if t := rc.rev.Tombstone; rc.then == nil {
		if t == nil {
			t = &rv
		}
		v.Tombstone = "Deleted by " + who(t.User) + " at " + when(t.Time) + "."
		if t.Rev != rv.Rev {
			v.Tombstone = "This revision is no longer kept: the record was deleted by " + who(t.User) + " at " + when(t.Time) +
				" (revision " + strconv.FormatInt(t.Rev, 10) + ")."
		}
		h.render(w, r, http.StatusOK, "revision", &view{Title: v.Heading, Session: rc.s, Section: string(rc.kind), Page: v})
		return
	}
	shown := h.shownOf(w, r, rc.ks)
	for _, wire := range rc.comparable() {
		d := rc.row(wire)
		if d.Lang != "" && !slices.Contains(shown, d.Lang) {
			if d.Differs {
				v.Elsewhere = append(v.Elsewhere, d.Label)
			}
			continue
		}
		v.Rows = append(v.Rows, d)
	}
	v.Differs = len(rc.differing())
	if rc.now != nil && v.Differs > 0 && rc.s.P.Can(rc.kind, cms.ActionWrite) {
		v.RestoreURL = h.historyURL(rc.kind, rc.id, rv.Rev) + "/restore"
	}
	h.render(w, r, http.StatusOK, "revision", &view{Title: v.Heading, Session: rc.s, Section: string(rc.kind), Page: v})
}
