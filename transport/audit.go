package transport

import (
	"net/http"

	"github.com/bwcms/cms/cms"
)

// auditSegment is the path of the audit list.
const auditSegment = "audit"

// auditObject is one entry of the audit list.
type auditObject struct {
	ID     int64  `json:"id" jsonschema:"minimum=1" jsonschema_description:"the entry's number in the account (newest highest)"`
	Time   string `json:"time" jsonschema:"pattern=^[0-9]{4}-[0-9]{2}-[0-9]{2} [0-9]{2}:[0-9]{2}:[0-9]{2}$" jsonschema_description:"when it was done (YYYY-MM-DD HH:MM:SS in the service's zone)"`
	User   string `json:"user" jsonschema_description:"who did it; empty for the service or an operator's command"`
	Action string `json:"action" jsonschema_description:"what was done: user.create, user.update, user.delete, user.password, user.disable, user.enable, language.add, language.default, webhook.create, webhook.update, webhook.delete, webhook.disable"`
	Target string `json:"target" jsonschema_description:"what it was done to: a username, a language code, a webhook id"`
	Detail string `json:"detail" jsonschema_description:"what changed, for people; never a password or a secret"`
}

// auditBody is the answer of GET audit: a page, newest first.
type auditBody struct {
	Entries []auditObject `json:"entries" jsonschema_description:"the entries, newest first"`
	Next    *int64        `json:"next" jsonschema_description:"the before of the next page; null on the last"`
}

// audit answers GET audit (user:read).
func (h *Handler) audit(w http.ResponseWriter, r *http.Request) {
	target, action := permissionOf(r.Method, "", endpointAudit)
	ctx, err := h.authorize(r, target, action)
	if err != nil {
		h.writeError(w, r, err)
		return
	}
	r = r.WithContext(ctx)
	p, err := auditParamsOf(r.URL.RawQuery)
	if err != nil {
		h.writeError(w, r, err)
		return
	}
	page, err := h.svc.Audit(r.Context(), p)
	if err != nil {
		h.writeError(w, r, err)
		return
	}
	body := auditBody{Entries: make([]auditObject, len(page.Entries))}
	for i, e := range page.Entries {
		body.Entries[i] = auditObject{ID: e.ID, Time: h.svc.Timestamp(e.Time), User: e.User, Action: e.Action, Target: e.Target, Detail: e.Detail}
	}
	if page.Next > 0 {
		body.Next = &page.Next
	}
	writeJSON(w, http.StatusOK, body)
}

// auditParamsOf reads ?limit=&before= of the audit list.
func auditParamsOf(rawQuery string) (cms.AuditParams, error) {
	var p cms.AuditParams
	_, limit, err := pageOf(rawQuery, "before", func(v string) (err error) {
		p.Before, err = checkPositive("before", v)
		return err
	})
	p.Limit = limit
	return p, err
}
