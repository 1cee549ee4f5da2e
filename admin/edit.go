package admin

import (
	"context"
	"encoding/json"
	"errors"
	"io"
	"net/http"
	"net/url"
	"slices"
	"strings"
	"sync"

	"github.com/bwcms/cms/cms"
)

// editRoutes registers the record forms (<prefix>/<kind>/new,
// <prefix>/<kind>/{id}/edit): GET shows the form, POST to the same
// address saves it or does what the button pressed asks. The kind is a
// literal of each pattern ("/{kind}/new" would clash with
// "/static/{path...}").
func (h *Handler) editRoutes(mux *http.ServeMux) {
	ed := &editor{Handler: h}
	for _, kind := range cms.Kinds() {
		k := string(kind)
		mux.HandleFunc("GET /"+k+"/new", h.signedIn(ed.editPage))
		mux.HandleFunc("POST /"+k+"/new", h.signedIn(ed.editPost))
		mux.HandleFunc("GET /"+k+"/{id}/edit", h.signedIn(ed.editPage))
		mux.HandleFunc("POST /"+k+"/{id}/edit", h.signedIn(ed.editPost))
	}
	h.historyRoutes(mux, ed)
}

// editor serves the record forms, keeping the schemas it read.
type editor struct {
	*Handler
	mu      sync.Mutex
	schemas map[string]*kindSchema // by kind and languages
}

// maxSchemas bounds the schemas kept (one per kind and language
// configuration in use).
const maxSchemas = 256

// schema is the account's schema of kind, read once per language
// configuration. A kindSchema is never changed once made.
func (h *editor) schema(kind cms.Kind, langs cms.Languages) (*kindSchema, error) {
	key := string(kind) + ":" + langs.String()
	h.mu.Lock()
	ks := h.schemas[key]
	h.mu.Unlock()
	if ks != nil {
		return ks, nil
	}
	ks, err := schemaOf(kind, langs)
	if err != nil {
		return nil, err
	}
	h.mu.Lock()
	defer h.mu.Unlock()
	if h.schemas == nil {
		h.schemas = map[string]*kindSchema{}
	}
	if len(h.schemas) < maxSchemas {
		h.schemas[key] = ks
	}
	return ks, nil
}

// maxFormBody bounds a posted form: the service's body limit (8 MiB of
// JSON) and room for the encoding.
const maxFormBody = 24 << 20

// formCtx is one request's form: the record, its schema and the state.
type formCtx struct {
	s     *session
	ks    *kindSchema
	kind  cms.Kind
	id    string // the record's id; "" for a new one
	isNew bool
	st    *formState
	rec   *stored // nil for a new record
	shown []string
	etag  string
	base  string
	saved string // the outcome of the save that led to this page
	// restored is the revision a save restores (0: a form's save).
	restored int64
}

// stored is a record as the form reads it.
type stored struct {
	obj  map[string]any // as the API answers it
	vals url.Values     // as controls hold it
	etag string
}

func (fc *formCtx) canWrite() bool { return fc.s.P.Can(fc.kind, cms.ActionWrite) }

// editURL is the address of a record's form.
func (h *Handler) editURL(kind cms.Kind, id string) string {
	return h.url("/" + string(kind) + "/" + url.PathEscape(id) + "/edit")
}

// open reads what every form request needs: the kind, the schema and,
// for an existing record, the record. It answers the failure itself.
func (h *editor) open(w http.ResponseWriter, r *http.Request) (*formCtx, bool) {
	s, _ := sessionFrom(r)
	first, _, _ := strings.Cut(strings.TrimPrefix(r.URL.Path, "/"), "/")
	kind, err := cms.ParseKind(first)
	if err != nil {
		h.notFound(w, r)
		return nil, false
	}
	if !s.P.Can(kind, cms.ActionRead) {
		h.fail(w, r, &cms.Error{Code: cms.CodeForbidden, Message: "Forbidden"})
		return nil, false
	}
	ks, err := h.schema(kind, s.P.Langs)
	if err != nil {
		h.fail(w, r, err)
		return nil, false
	}
	fc := &formCtx{s: s, ks: ks, kind: kind, id: r.PathValue("id")}
	fc.isNew = fc.id == ""
	if !fc.isNew {
		if fc.rec, err = h.readRecord(r.Context(), ks, kind, fc.id); err != nil {
			h.fail(w, r, err)
			return nil, false
		}
		fc.etag = fc.rec.etag
	}
	return fc, true
}

// readRecord reads one record of the caller's account without counting
// a visit. Errors: CodeNotFound when there is none, the service's.
func (h *editor) readRecord(ctx context.Context, ks *kindSchema, kind cms.Kind, id string) (*stored, error) {
	seq, err := h.svc.Read(ctx, kind, cms.ReadParams{IDs: []string{id}, Published: cms.PublishedAny, Uncounted: true})
	if err != nil {
		return nil, err
	}
	codec, err := h.svc.Codec(ctx)
	if err != nil {
		return nil, err
	}
	for e, err := range seq {
		if err != nil {
			return nil, err
		}
		etag := cms.ETag(e, ks.langs)
		obj, err := decodeRecord(codec.Marshal(h.svc.Wire(e)))
		if err != nil {
			return nil, err
		}
		return &stored{obj: obj, vals: recordValues(ks, obj), etag: etag}, nil
	}
	return nil, &cms.Error{Code: cms.CodeNotFound, Message: "Not found"}
}

// openState is the state of a form just opened: every property but the
// read-only and write-only ones, multi-language ones in the languages
// shown (the others stay as stored), nested lists in every language
// (a list is replaced whole).
func openState(ks *kindSchema, vals url.Values, shown []string) *formState {
	st := &formState{vals: url.Values{}}
	for _, f := range ks.fields {
		if f.ReadOnly || f.WriteOnly || f.Name == "id" {
			continue
		}
		langs := []string{""}
		if f.MultiLang {
			langs = shown
		}
		for _, lang := range langs {
			st.fields = append(st.fields, ks.wire(f, lang))
		}
	}
	carried := make(map[string]bool, len(st.fields))
	for _, wire := range st.fields {
		carried[wire] = true
	}
	for k, v := range vals {
		if carried[ownerOf(k)] {
			st.vals[k] = slices.Clone(v)
		}
	}
	return st
}

// showLanguages makes the state carry every property shown in langs it
// does not carry yet, with the stored values (none for a new record).
func (fc *formCtx) showLanguages() {
	from := url.Values{}
	if fc.rec != nil {
		from = fc.rec.vals
	}
	for _, f := range fc.ks.fields {
		if !f.MultiLang || f.ReadOnly || f.WriteOnly {
			continue
		}
		for _, lang := range fc.shown {
			if wire := fc.ks.wire(f, lang); !fc.st.carries(wire) {
				fc.st.carry(wire, from)
				fc.base = withBase(fc.base, wire, fc.storedValue(wire))
			}
		}
	}
}

func (fc *formCtx) storedValue(wire string) any {
	if fc.rec == nil {
		return nil
	}
	return fc.rec.obj[wire]
}

// editPage answers GET: the form of a record, or a blank one.
func (h *editor) editPage(w http.ResponseWriter, r *http.Request) {
	fc, ok := h.open(w, r)
	if !ok {
		return
	}
	if fc.isNew && !fc.canWrite() {
		h.fail(w, r, &cms.Error{Code: cms.CodeForbidden, Message: "Forbidden"})
		return
	}
	fc.shown = h.shownLangs(w, r, fc.ks.langs, r.URL.Query()["langs"], r.URL.Query().Has("langs"))
	vals := url.Values{}
	if fc.rec != nil {
		vals = fc.rec.vals
	}
	fc.st = openState(fc.ks, vals, fc.langsWithDefault())
	fc.st.vals.Set("id", fc.id)
	fc.base = baseOf(fc.st.fields, fc.storedValue)
	var notices []notice
	if !fc.isNew {
		notices, fc.saved = h.takeFlash(w, r, fc.kind, fc.id)
	}
	for _, p := range overfull(fc.ks, fc.st) {
		notices = append(notices, notice{Kind: "warn", Text: problemLabel(fc.ks, p.Field) + " " + p.Text + "."})
	}
	h.showForm(w, r, http.StatusOK, fc, notices, nil)
}

// langsWithDefault is the default language and the shown ones.
func (fc *formCtx) langsWithDefault() []string {
	return append([]string{fc.ks.langs.Default}, fc.shown...)
}

// formUnreadable answers a posted form that could not be read: 413 when
// it was too large, else 400.
func (h *editor) formUnreadable(w http.ResponseWriter, r *http.Request, err error) {
	status := http.StatusBadRequest
	if _, ok := errors.AsType[*http.MaxBytesError](err); ok {
		status = http.StatusRequestEntityTooLarge
	}
	h.renderError(w, r, status, "The form could not be read. Go back and try again.")
}

// editPost answers POST: a save, or a button that changes the form.
func (h *editor) editPost(w http.ResponseWriter, r *http.Request) {
	uploads, err := h.readPostedForm(w, r)
	if err != nil {
		h.formUnreadable(w, r, err)
		return
	}
	fc, ok := h.open(w, r)
	if !ok {
		return
	}
	form := renameLangs(fc.ks, r.PostForm)
	r.PostForm, r.Form = form, form
	action := form.Get(ctlAction)
	fc.shown = h.postedLangs(w, r, fc.ks.langs, form, action)
	if form.Has(ctlETag) || fc.canWrite() {
		// The version the editor opened: a save or a delete without it
		// never overwrites (it meets a conflict).
		fc.etag = form.Get(ctlETag)
	}
	if fc.canWrite() {
		fc.st = postedState(fc.ks, form)
		fc.base = form.Get(ctlBase)
	} else {
		// Nothing a reader posts is saved: show what is stored.
		vals := url.Values{}
		if fc.rec != nil {
			vals = fc.rec.vals
		}
		fc.st = openState(fc.ks, vals, fc.langsWithDefault())
	}
	if fc.isNew {
		fc.etag, fc.base = "", ""
	}
	fc.st.vals.Set("id", fc.id)
	if fc.isNew {
		fc.st.vals.Set("id", strings.TrimSpace(form.Get("id")))
	}
	fc.showLanguages()
	if fc.canWrite() && (len(uploads) > 0 || strings.HasPrefix(action, "upload:")) {
		// The files chosen in the form's file inputs: their urls go in
		// their fields first; a refused one stops the button (nothing
		// is saved) and shows why beside its field.
		probs, done := h.applyUploads(r, fc, uploads)
		if len(probs) > 0 {
			h.showForm(w, r, http.StatusConflict, fc, nil, probs)
			return
		}
		if strings.HasPrefix(action, "upload:") {
			n := notice{Kind: "ok", Text: done}
			if done == "" {
				n = notice{Kind: "warn", Text: "Choose a file to upload first, then press Upload."}
			}
			h.showForm(w, r, http.StatusOK, fc, []notice{n}, nil)
			return
		}
	}
	switch {
	case action == "" || action == "save":
		h.save(w, r, fc)
	case action == "restore":
		// The drafts script posts a draft kept in the browser: the form
		// shows it, with the version it was made from, and saves nothing.
		h.showForm(w, r, http.StatusOK, fc, []notice{{Kind: "ok",
			Text: "Your unsaved changes are back in the form. Nothing is saved until you save."}}, nil)
	case action == "langs" || strings.HasPrefix(action, "show:"):
		var notices []notice
		if _, more := pickLangs(fc.ks.langs, form[ctlLangs]); more && action == "langs" {
			notices = append(notices, notice{Kind: "warn", Text: "A form shows up to three languages beside " +
				fc.ks.langs.Default + ": showing " + strings.Join(fc.shown, ", ") + "."})
		}
		h.showForm(w, r, http.StatusOK, fc, notices, nil)
	case action == "clone" && !fc.isNew:
		h.clone(w, r, fc)
	case action == "delete" && !fc.isNew:
		h.confirmDelete(w, r, fc)
	case action == "delete-confirm" && !fc.isNew:
		h.deleteRecord(w, r, fc)
	case action == "resolve" || action == "apply":
		h.resolve(w, r, fc, action == "resolve")
	default:
		msg, ok := "", false
		if fc.canWrite() {
			msg, ok = applyAction(fc.ks, fc.st, action)
		}
		if !ok {
			h.renderError(w, r, http.StatusBadRequest, "The form asked for something this page does not do. Reload it and try again.")
			return
		}
		h.showForm(w, r, http.StatusOK, fc, []notice{{Kind: "ok", Text: msg}}, nil)
	}
}

// parseForm reads a posted urlencoded form into r.PostForm (and
// r.Form), as ParseForm does but without its limit of 10,000 fields: a
// Map's form holds one per Resource it lists. maxFormBody bounds it.
func parseForm(r *http.Request) error {
	ct, _, _ := strings.Cut(r.Header.Get("Content-Type"), ";")
	if strings.TrimSpace(strings.ToLower(ct)) != "application/x-www-form-urlencoded" {
		return errors.New("admin: a form must be urlencoded")
	}
	raw, err := io.ReadAll(r.Body)
	if err != nil {
		return err
	}
	vals := url.Values{}
	for pair := range strings.SplitSeq(string(raw), "&") {
		if pair == "" {
			continue
		}
		k, v, _ := strings.Cut(pair, "=")
		key, err := url.QueryUnescape(k)
		if err != nil {
			return err
		}
		val, err := url.QueryUnescape(v)
		if err != nil {
			return err
		}
		vals[key] = append(vals[key], val)
	}
	r.PostForm, r.Form = vals, vals
	return nil
}

// save sends the form to the service with the ETag the editor opened.
func (h *editor) save(w http.ResponseWriter, r *http.Request, fc *formCtx) {
	ctx := r.Context()
	id := fc.id
	if fc.isNew {
		id = fc.st.get("id")
		if id != "" {
			if _, err := h.readRecord(ctx, fc.ks, fc.kind, id); err == nil {
				h.showForm(w, r, http.StatusConflict, fc, nil, []cms.Problem{idTaken(fc.kind, id)})
				return
			} else if cms.ErrorCode(err) != cms.CodeNotFound {
				h.fail(w, r, err)
				return
			}
		}
	}
	if probs := overfull(fc.ks, fc.st); len(probs) > 0 {
		h.showForm(w, r, http.StatusConflict, fc, nil, probs)
		return
	}
	sent := body(fc.ks, fc.st, id, fc.isNew)
	if fc.rec != nil {
		keepStored(sent, fc.rec.obj)
	}
	raw, err := json.Marshal(sent)
	if err != nil {
		h.fail(w, r, err)
		return
	}
	ifMatch := fc.etag
	if !fc.isNew && ifMatch == "" {
		ifMatch = `"none"` // a form without its version never overwrites: a conflict
	}
	// A new record is made only if its id is still free when it commits:
	// the look-up above cannot see another editor's create racing it.
	res, err := h.svc.Upsert(ctx, fc.kind, raw, &cms.UpsertOptions{IfMatch: ifMatch, CreateOnly: fc.isNew})
	if err != nil {
		switch e, _ := errors.AsType[*cms.Error](err); cms.ErrorCode(err) {
		case cms.CodeInvalid:
			h.showForm(w, r, http.StatusConflict, fc, nil, e.Problems)
		case cms.CodePrecondition:
			if fc.isNew {
				h.showForm(w, r, http.StatusConflict, fc, nil, []cms.Problem{idTaken(fc.kind, id)})
				return
			}
			h.conflict(w, r, fc, sent, "")
		default:
			h.fail(w, r, err)
		}
		return
	}
	f := flash{Kind: fc.kind, ID: res.ID, Saved: res.Outcome.String(), Restored: fc.restored}
	if after, err := h.readRecord(ctx, fc.ks, fc.kind, res.ID); err == nil {
		f.Cleaned = sanitized(fc.ks, sent, after.obj)
	}
	h.setFlash(w, r, f)
	http.Redirect(w, r, h.editURL(fc.kind, res.ID), http.StatusSeeOther)
}

// idTaken is the problem of a new record whose id another record has.
func idTaken(kind cms.Kind, id string) cms.Problem {
	return cms.Problem{Kind: kind, ID: id, Field: "id",
		Text: "a " + kind.Title() + " with this id exists already: choose another id, or open that one"}
}

// keepStored sends a stored value back as it is stored when the form's
// value is what a form makes of it, so that opening and saving a record
// changes nothing: a form cannot tell null from "" or []; a browser posts
// a textarea's line ends as CRLF (the form sends LF) and drops line
// breaks from a one-line input; list items are read one a line, trimmed.
// Nested items are compared item by item.
func keepStored(sent object, obj map[string]any) {
	for i, m := range sent {
		if st, ok := obj[m.key]; ok {
			sent[i].val = keepValue(m.val, st)
		}
	}
}

func keepValue(mine, stored any) any {
	if isBlank(mine) && isBlank(stored) {
		return stored
	}
	switch x := mine.(type) {
	case string:
		if s, ok := stored.(string); ok && formsText(s, x) {
			return stored
		}
	case []string:
		list, ok := stored.([]any)
		if !ok || len(list) != len(x) {
			return mine
		}
		for i, v := range list {
			if s, ok := v.(string); !ok || strings.TrimSpace(lineEnds.Replace(s)) != x[i] {
				return mine
			}
		}
		return stored
	case []any:
		list, ok := stored.([]any)
		if !ok || len(list) != len(x) {
			return mine
		}
		for i, item := range x {
			o, ok := item.(object)
			m, isMap := list[i].(map[string]any)
			if ok && isMap {
				keepStored(o, m)
			}
		}
	}
	return mine
}

// lineEnds writes CRLF and CR line ends as LF, as the form reads a
// textarea.
var lineEnds = strings.NewReplacer("\r\n", "\n", "\r", "\n")

// formsText reports whether posted is what a form makes of stored text:
// its line ends as LF (a textarea), or without its line breaks (a one-line
// input).
func formsText(stored, posted string) bool {
	return posted == lineEnds.Replace(stored) || posted == strings.NewReplacer("\r", "", "\n", "").Replace(stored)
}

// showForm renders the form with notices and the problems of a refused
// save.
func (h *editor) showForm(w http.ResponseWriter, r *http.Request, status int, fc *formCtx, notices []notice, problems []cms.Problem) {
	ctx := r.Context()
	b := &formBuild{ks: fc.ks, st: fc.st, shown: fc.langsWithDefault(), editable: fc.canWrite(), isNew: fc.isNew,
		titles: h.refTitles(ctx, fc.s, refIDs(fc.ks, fc.st)), perms: fc.s.P, files: h.trackFiles(ctx, fc.s.P, fc.ks, fc.st)}
	if fc.rec != nil {
		b.stored = fc.rec.vals
	}
	v := &formView{Kind: fc.kind, ID: fc.id, New: fc.isNew, ETag: fc.etag, Base: fc.base, User: fc.s.P.User,
		CanWrite: fc.canWrite(), CanClone: !fc.isNew && fc.canWrite(), CanDel: !fc.isNew && fc.s.P.Can(fc.kind, cms.ActionDelete),
		Default: fc.ks.langs.Default, Shown: fc.shown, ListURL: h.url("/" + string(fc.kind) + "/"), Notices: notices,
		Saved: fc.saved, Unsaved: r.Method == http.MethodPost && fc.unsaved()}
	if fc.isNew {
		v.Action = h.url("/" + string(fc.kind) + "/new")
		v.Heading = "New " + kindLabels[fc.kind].one
	} else {
		v.Action = h.editURL(fc.kind, fc.id)
		v.Heading = kindLabels[fc.kind].one + " " + fc.id
		v.HistoryURL = h.historyURL(fc.kind, fc.id, 0)
	}
	for _, code := range fc.ks.langs.Others() {
		v.Picker = append(v.Picker, langChoice{Code: code, Checked: slices.Contains(fc.shown, code)})
	}
	v.Rows = b.rows()
	h.addPlacing(ctx, fc, b, v)
	v.MapEditor = h.mapEditorOf(ctx, fc)
	v.Summary = b.attachProblems(problems)
	v.Hidden = b.hidden()
	v.Fields = fc.st.fields
	title := v.Heading
	if len(v.Summary) > 0 {
		title = "Error: " + title
	}
	h.render(w, r, status, "edit", &view{Title: title, Session: fc.s, Section: string(fc.kind), Page: v})
}

// refTitles reads the titles of the records the form's ids name, in the
// kinds the user may read; an id without a record is marked missing.
func (h *editor) refTitles(ctx context.Context, s *session, ids map[string][]string) map[string]refTitle {
	out := map[string]refTitle{}
	for target, list := range ids {
		kinds := []cms.Kind{cms.Kind(target)}
		if target == cms.RefMapOrLanding {
			kinds = []cms.Kind{cms.KindMap, cms.KindLanding}
		}
		for _, kind := range kinds {
			if !s.P.Can(kind, cms.ActionRead) {
				continue
			}
			seq, err := h.svc.Read(ctx, kind, cms.ReadParams{IDs: list, Published: cms.PublishedAny, Uncounted: true})
			if err != nil {
				continue
			}
			for e, err := range seq {
				if err != nil {
					h.log.Warn("admin: titles of ids", "err", err)
					break
				}
				key := titleKey(target, e.Record.RecordID())
				if _, done := out[key]; !done {
					out[key] = refTitle{title: recordTitle(s.P.Langs, e.Record), found: true, url: h.editURL(kind, e.Record.RecordID())}
				}
			}
		}
	}
	return out
}
