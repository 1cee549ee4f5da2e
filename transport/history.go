package transport

import (
	"net/http"
	"net/url"
	"regexp"
	"slices"
	"strconv"
	"strings"

	"github.com/bwcms/cms/cms"
)

// historySegment follows a record's id in the one grammar after an id
// that is no option (DECISIONS §3): <kind>/{id}/history[/{rev}]. It is no
// reserved word: a record may be called history.
const historySegment = "history"

// methodsHistory are the methods of the history routes.
var methodsHistory = []string{http.MethodGet}

// historyPath is a history path as routing reads it.
type historyPath struct {
	kind cms.Kind
	// rawID is the id segment, still escaped; rawRev the revision
	// segment, "" for the list.
	rawID, rawRev string
	one           bool
	// trailing: the path ends with a slash (the route written wrong).
	trailing bool
}

// parseHistoryPath reads rest, the path under the API's root, when it is
// <kind>/{id}/history or <kind>/{id}/history/{rev}; ok is false for any
// other path (a keyword in the id's place is a read option, so
// resource/limit/history stays a read).
func parseHistoryPath(rest string) (hp historyPath, ok bool) {
	segs := strings.Split(rest, "/")
	if n := len(segs); n > 1 && segs[n-1] == "" {
		hp.trailing = true
		segs = segs[:n-1]
	}
	if len(segs) < 3 || len(segs) > 4 || segs[2] != historySegment {
		return hp, false
	}
	hp.kind = cms.Kind(segs[0])
	if !slices.Contains(cms.Kinds(), hp.kind) || segs[1] == "" || isKeyword(segs[1]) {
		return hp, false
	}
	hp.rawID = segs[1]
	if len(segs) == 4 {
		hp.rawRev, hp.one = segs[3], true
	}
	return hp, true
}

// label is the route's name for the Observer and the access log.
func (hp historyPath) label() string {
	if hp.one {
		return string(hp.kind) + " revision"
	}
	return string(hp.kind) + " history"
}

// serveHistory answers the history routes: 405, then 401 and 403 (read
// on the kind), then the id, revision and query (400), then the service.
func (h *Handler) serveHistory(w http.ResponseWriter, r *http.Request, hp historyPath) {
	nameRoute(r, hp.label())
	if !slices.Contains(methodsHistory, r.Method) {
		w.Header().Set("Allow", joinMethods(methodsHistory))
		writeFail(w, http.StatusMethodNotAllowed, textMethodNotAllowed)
		return
	}
	target, action := permissionOf(r.Method, hp.kind, endpointHistory)
	ctx, err := h.authorize(r, target, action)
	if err != nil {
		h.writeError(w, r, err)
		return
	}
	r = r.WithContext(ctx)
	if hp.trailing {
		h.writeError(w, r, wrong("trailing slash"))
		return
	}
	id, err := parseID(hp.rawID)
	if err != nil {
		h.writeError(w, r, err)
		return
	}
	if hp.one {
		h.revision(w, r, hp.kind, id, hp.rawRev)
		return
	}
	h.history(w, r, hp.kind, id)
}

// revisionObject is one entry of a record's history.
type revisionObject struct {
	Rev     int64    `json:"rev" jsonschema:"minimum=1" jsonschema_description:"the revision: 1, 2, ... per record, continuing across a delete and a re-create"`
	Time    string   `json:"time" jsonschema:"pattern=^[0-9]{4}-[0-9]{2}-[0-9]{2} [0-9]{2}:[0-9]{2}:[0-9]{2}$" jsonschema_description:"when it was made (YYYY-MM-DD HH:MM:SS in the service's zone, as timeLastUpdate)"`
	User    string   `json:"user" jsonschema_description:"who made it: a username, batch <id> for a batch's records, empty for the service's own work"`
	Op      string   `json:"op" jsonschema:"enum=upsert,enum=delete" jsonschema_description:"upsert (the record stored in a new form) or delete"`
	Changed []string `json:"changed" jsonschema_description:"the wire fields whose value differs from the revision before (language variants included: title_it); null when that is not known (the first revision kept, a delete)"`
}

// historyBody is the answer of GET <kind>/{id}/history: a page, newest
// first.
type historyBody struct {
	Revisions []revisionObject `json:"revisions" jsonschema_description:"the revisions, newest first"`
	Next      *int64           `json:"next" jsonschema_description:"the after of the next page (the last rev of this one); null on the last"`
}

// tombstoneBody is what is left of a deleted record: a revision of it
// answers this.
type tombstoneBody struct {
	Kind string `json:"kind" jsonschema:"enum=resource,enum=map,enum=landing,enum=proposal" jsonschema_description:"the record's kind"`
	ID   string `json:"id" jsonschema_description:"the record's id"`
	Rev  int64  `json:"rev" jsonschema:"minimum=1" jsonschema_description:"the revision of the delete"`
	Time string `json:"time" jsonschema:"pattern=^[0-9]{4}-[0-9]{2}-[0-9]{2} [0-9]{2}:[0-9]{2}:[0-9]{2}$" jsonschema_description:"when it was deleted (YYYY-MM-DD HH:MM:SS in the service's zone)"`
	User string `json:"user" jsonschema_description:"who deleted it"`
	Op   string `json:"op" jsonschema:"enum=delete" jsonschema_description:"delete"`
}

func (h *Handler) revisionObjectOf(v cms.Revision) revisionObject {
	return revisionObject{Rev: v.Rev, Time: h.svc.Timestamp(v.Time), User: v.User, Op: string(v.Op), Changed: v.Changed}
}

func (h *Handler) history(w http.ResponseWriter, r *http.Request, kind cms.Kind, id string) {
	p, err := historyParamsOf(r.URL.RawQuery)
	if err != nil {
		h.writeError(w, r, err)
		return
	}
	page, err := h.svc.History(r.Context(), kind, id, p)
	if err != nil {
		h.writeError(w, r, err)
		return
	}
	body := historyBody{Revisions: make([]revisionObject, len(page.Revisions))}
	for i, v := range page.Revisions {
		body.Revisions[i] = h.revisionObjectOf(v)
	}
	if page.Next > 0 {
		body.Next = &page.Next
	}
	writeJSON(w, http.StatusOK, body)
}

// historyParamsOf reads ?limit=&after= of a history list.
func historyParamsOf(rawQuery string) (cms.HistoryParams, error) {
	var p cms.HistoryParams
	_, limit, err := pageOf(rawQuery, "after", func(v string) (err error) {
		p.After, err = checkPositive("after", v)
		return err
	})
	p.Limit = limit
	return p, err
}

func (h *Handler) revision(w http.ResponseWriter, r *http.Request, kind cms.Kind, id, rawRev string) {
	rev, err := checkPositive("rev", rawRev)
	if err != nil {
		h.writeError(w, r, err)
		return
	}
	rr, err := h.svc.Revision(r.Context(), kind, id, rev)
	if err != nil {
		h.writeError(w, r, err)
		return
	}
	switch {
	case rr.Tombstone != nil:
		t := rr.Tombstone
		writeJSON(w, http.StatusOK, tombstoneBody{Kind: string(kind), ID: id, Rev: t.Rev, Time: h.svc.Timestamp(t.Time),
			User: t.User, Op: string(cms.ChangeDelete)})
	case rr.Entry != nil:
		codec, err := h.svc.Codec(r.Context())
		if err != nil {
			h.writeError(w, r, err)
			return
		}
		buf := h.answer()
		defer h.putAnswer(buf)
		*buf = append(codec.AppendProjected(*buf, h.svc.Wire(rr.Entry), nil), '\n')
		writeRaw(w, http.StatusOK, *buf)
	default:
		h.writeError(w, r, &cms.Error{Code: cms.CodeNotFound, Message: textNotFound})
	}
}

// positivePattern is an integer 1..2^63-1 written plainly: no sign, no
// leading zero.
var positivePattern = regexp.MustCompile(`^[1-9][0-9]{0,18}$`)

// checkPositive reads a positive int64 named name (a revision, an
// audit id).
func checkPositive(name, v string) (int64, error) {
	if !positivePattern.MatchString(v) {
		return 0, wrong(name + ": want a positive integer")
	}
	n, err := strconv.ParseInt(v, 10, 64)
	if err != nil {
		return 0, wrong(name + ": want a positive integer")
	}
	return n, nil
}

// onceQuery is a query string whose parameters are each given at most
// once; the parameters a route does not take are not read.
type onceQuery url.Values

func parseOnceQuery(rawQuery string) (onceQuery, error) {
	q, err := url.ParseQuery(rawQuery)
	if err != nil {
		return nil, wrong("bad query string")
	}
	return onceQuery(q), nil
}

// pageOf reads ?limit= and the list's paging parameter named cursor
// (read checks and keeps its value) of rawQuery, and returns the query
// for the list's other parameters.
func pageOf(rawQuery, cursor string, read func(v string) error) (q onceQuery, limit int, err error) {
	if q, err = parseOnceQuery(rawQuery); err != nil {
		return nil, 0, err
	}
	err = q.with("limit", func(v string) (err error) {
		limit, err = checkLimit(v)
		return err
	})
	if err == nil {
		err = q.with(cursor, read)
	}
	return q, limit, err
}

// with calls read with the value of key when the query gives it.
func (q onceQuery) with(key string, read func(v string) error) error {
	v, ok, err := q.get(key)
	if err != nil || !ok {
		return err
	}
	return read(v)
}

// get is the value of key; ok false when it is not given, an error when
// it is given twice.
func (q onceQuery) get(key string) (v string, ok bool, err error) {
	vs, ok := q[key]
	if len(vs) > 1 {
		return "", false, wrong(key + " given twice")
	}
	if !ok {
		return "", false, nil
	}
	return vs[0], true, nil
}
