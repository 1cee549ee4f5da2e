package transport

import (
	"net/http"
	"slices"
	"strings"

	"github.com/bwcms/cms/cms"
)

// changesSegment is the path of the changes feed.
const changesSegment = "changes"

// afterNow is the after of the feed that starts at the present.
const afterNow = "now"

// changeObject is one change of the feed.
type changeObject struct {
	Seq  string `json:"seq" jsonschema:"pattern=^(0|[1-9][0-9]*)(\\.(0|[1-9][0-9]*))?$" jsonschema_description:"the change's cursor: after=<seq> reads the changes that follow it"`
	Kind string `json:"kind" jsonschema:"enum=resource,enum=map,enum=landing,enum=proposal" jsonschema_description:"the record's kind"`
	ID   string `json:"id" jsonschema_description:"the record's id"`
	Op   string `json:"op" jsonschema:"enum=upsert,enum=delete" jsonschema_description:"upsert (created or changed, side effects included) or delete"`
	Rev  int64  `json:"rev" jsonschema:"minimum=1" jsonschema_description:"the record's revision this change made (its history has it)"`
	Time string `json:"time" jsonschema:"pattern=^[0-9]{4}-[0-9]{2}-[0-9]{2} [0-9]{2}:[0-9]{2}:[0-9]{2}$" jsonschema_description:"when it was made (YYYY-MM-DD HH:MM:SS in the service's zone)"`
}

// changesBody is the answer of GET changes: a page in commit order.
type changesBody struct {
	Changes []changeObject `json:"changes" jsonschema_description:"the changes after the cursor asked, in commit order ([] when none)"`
	Next    string         `json:"next" jsonschema_description:"the cursor to ask with next (after=): the last change's, or the present when the page is not full"`
}

// changes answers GET changes: 401, then 403 unless the caller may read
// some kind, then the query (400), then the service (410 for a cursor
// older than what is kept).
func (h *Handler) changes(w http.ResponseWriter, r *http.Request) {
	ctx, err := h.authorizeIf(r, func(p cms.Principal) bool {
		return slices.ContainsFunc(cms.Kinds(), func(k cms.Kind) bool { return p.Can(k, cms.ActionRead) })
	})
	if err != nil {
		h.writeError(w, r, err)
		return
	}
	r = r.WithContext(ctx)
	p, err := changesParamsOf(r.URL.RawQuery)
	if err != nil {
		h.writeError(w, r, err)
		return
	}
	page, err := h.svc.Changes(r.Context(), p)
	if err != nil {
		h.writeError(w, r, err)
		return
	}
	writeJSON(w, http.StatusOK, h.changesBodyOf(page))
}

func (h *Handler) changesBodyOf(page cms.ChangesPage) changesBody {
	body := changesBody{Changes: make([]changeObject, len(page.Changes)), Next: page.Next}
	for i, c := range page.Changes {
		body.Changes[i] = changeObject{Seq: c.Seq, Kind: string(c.Kind), ID: c.ID, Op: string(c.Op), Rev: c.Rev, Time: h.svc.Timestamp(c.Time)}
	}
	return body
}

// changesParamsOf reads ?after=&limit=&kinds= of the feed: after a
// cursor or now, limit 1..1000, kinds a comma-separated list of kinds.
func changesParamsOf(rawQuery string) (cms.ChangesParams, error) {
	var p cms.ChangesParams
	q, limit, err := pageOf(rawQuery, "after", func(v string) error {
		if v != afterNow {
			if _, err := cms.ParseChangeCursor(v); err != nil {
				return wrong("after: not a cursor")
			}
		}
		p.After = v
		return nil
	})
	p.Limit = limit
	if err != nil {
		return p, err
	}
	err = q.with("kinds", func(v string) error {
		for name := range strings.SplitSeq(v, ",") {
			kind := cms.Kind(name)
			if !slices.Contains(cms.Kinds(), kind) {
				return wrong("kinds: not a kind")
			}
			if !slices.Contains(p.Kinds, kind) {
				p.Kinds = append(p.Kinds, kind)
			}
		}
		return nil
	})
	return p, err
}
