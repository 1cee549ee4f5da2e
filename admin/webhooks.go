package admin

import (
	"crypto/rand"
	"encoding/base64"
	"errors"
	"net/http"
	"net/url"
	"slices"
	"strconv"
	"strings"

	"github.com/bwcms/cms/cms"
)

// The account's webhooks (<prefix>/webhooks/), for users with webhook
// permissions (DECISIONS §18): the list, adding one (its secret shown
// once), a webhook's page (change it, rotate its secret, its deliveries
// with Retry) and deleting one. Every change goes through the service's
// caller-checked methods, which refuse what the pages hide anyway.

func (h *Handler) webhookRoutes(mux *http.ServeMux) {
	mux.HandleFunc("GET /webhooks", func(w http.ResponseWriter, r *http.Request) {
		http.Redirect(w, r, h.url("/webhooks/"), http.StatusMovedPermanently)
	})
	mux.HandleFunc("GET /webhooks/{$}", h.signedIn(h.webhooks))
	mux.HandleFunc("GET /webhooks/new", h.signedIn(h.newWebhookForm))
	mux.HandleFunc("POST /webhooks/new", h.signedIn(h.createWebhook))
	mux.HandleFunc("GET /webhooks/{id}", h.signedIn(h.webhookPage))
	mux.HandleFunc("POST /webhooks/{id}", h.signedIn(h.updateWebhook))
	mux.HandleFunc("POST /webhooks/{id}/secret", h.signedIn(h.rotateWebhookSecret))
	mux.HandleFunc("GET /webhooks/{id}/delete", h.signedIn(h.confirmDeleteWebhook))
	mux.HandleFunc("POST /webhooks/{id}/delete", h.signedIn(h.deleteWebhook))
	mux.HandleFunc("POST /webhooks/{id}/deliveries/{delivery}/retry", h.signedIn(h.retryDelivery))
}

// webhookURL is the address of a webhook's page.
func (h *Handler) webhookURL(id string) string { return h.url("/webhooks/" + url.PathEscape(id)) }

// webhookRow is a webhook in the list and on its page.
type webhookRow struct {
	ID     string
	URL    string // its page
	Target string // where it sends
	Events []string
	User   string
	// Status is "Enabled", or "Disabled" and why.
	Status      string
	Enabled     bool
	FailedInRow int
	Created     string
	Updated     string
}

func (h *Handler) webhookRow(wh cms.Webhook) webhookRow {
	row := webhookRow{ID: wh.ID, URL: h.webhookURL(wh.ID), Target: wh.URL, Events: eventsText(wh.Events), User: wh.User,
		Enabled: wh.Enabled, FailedInRow: wh.FailedInRow, Created: when(wh.Created), Updated: when(wh.Updated), Status: "Enabled"}
	if !wh.Enabled {
		row.Status = "Disabled"
		if wh.Disabled != "" {
			row.Status += ": " + wh.Disabled
		} else {
			row.Status += " by a user"
		}
	}
	return row
}

// eventsText names events for people: "every change" for "*".
func eventsText(events []string) []string {
	if slices.Contains(events, "*") {
		return []string{"Every change"}
	}
	return events
}

// eventOps are the operations of events, as the grid's columns.
var eventOps = []cms.ChangeOp{cms.ChangeUpsert, cms.ChangeDelete}

// eventGrid is the events checkboxes: "everything" or per kind and
// operation.
type eventGrid struct {
	All   bool
	Rows  []eventRow
	Error string
}

type eventRow struct {
	Label string
	Boxes []eventBox
}

type eventBox struct {
	ID, Value, Label string
	Checked, Enabled bool
}

// events is the grid of chosen events; kinds s may not read are shown
// but cannot be ticked (the service refuses them).
func events(s *session, chosen []string) eventGrid {
	g := eventGrid{All: slices.Contains(chosen, "*")}
	for _, k := range cms.Kinds() {
		row := eventRow{Label: kindLabels[k].plural}
		for _, op := range eventOps {
			v := string(k) + "." + string(op)
			verb := "saved"
			if op == cms.ChangeDelete {
				verb = "deleted"
			}
			row.Boxes = append(row.Boxes, eventBox{ID: "ev-" + string(k) + "-" + string(op), Value: v,
				Label: kindLabels[k].plural + " " + verb, Checked: slices.Contains(chosen, v), Enabled: s.P.Can(k, cms.ActionRead)})
		}
		g.Rows = append(g.Rows, row)
	}
	return g
}

// formEvents are the events a form ticked: "*" alone when Everything is.
func formEvents(values []string) []string {
	if slices.Contains(values, "*") {
		return []string{"*"}
	}
	out := []string{}
	for _, v := range values {
		if v != "" && !slices.Contains(out, v) {
			out = append(out, v)
		}
	}
	return out
}

// noEvents is the refusal of a form that ticked no event.
const noEvents = "Choose the changes to send: tick Everything, or at least one kind and operation."

// webhookProblems are the service's refusal of a webhook form, by field
// ("url", "events", "secret"); a refusal naming no field is the form's.
func webhookProblems(err error) map[string]string {
	out := map[string]string{}
	if e, ok := errors.AsType[*cms.Error](err); ok {
		for _, p := range e.Problems {
			field := strings.ToLower(p.Field)
			switch {
			case strings.HasPrefix(field, "events"):
				field = "events"
			case field != "url" && field != "secret":
				field = "url"
			}
			if out[field] == "" {
				out[field] = p.Text
			}
		}
	}
	if len(out) == 0 {
		out["url"] = serviceText(err)
	}
	return out
}

// webhookForm is the data of the add and change forms.
type webhookForm struct {
	Action  string
	Target  string
	Grid    eventGrid
	Enabled bool
	// Edit marks the change form (it has the enabled box).
	Edit   bool
	Errors []formError
	Field  map[string]string
}

func (f *webhookForm) refuse(field, text string) {
	link := field
	if field == "events" {
		link, f.Grid.Error = "ev-all", text
	}
	f.Errors = append(f.Errors, formError{link, text})
	if f.Field == nil {
		f.Field = map[string]string{}
	}
	f.Field[field] = text
}

// webhooksPage is the data of the list.
type webhooksPage struct {
	Webhooks []webhookRow
	New      string // "" without webhook:write
	Notice   string
}

// mayWebhook answers 403 unless s may act on webhooks: the pages decide
// before reading anything, as the API does.
func (h *Handler) mayWebhook(w http.ResponseWriter, r *http.Request, action cms.Action) bool {
	s, _ := sessionFrom(r)
	if !s.P.Can(cms.AreaWebhook, action) {
		h.fail(w, r, &cms.Error{Code: cms.CodeForbidden, Message: "Forbidden"})
		return false
	}
	return true
}

func (h *Handler) webhooks(w http.ResponseWriter, r *http.Request) {
	s, _ := sessionFrom(r)
	if !h.mayWebhook(w, r, cms.ActionRead) {
		return
	}
	list, err := h.svc.Webhooks(r.Context())
	if err != nil {
		h.fail(w, r, err)
		return
	}
	page := webhooksPage{}
	for _, wh := range list {
		page.Webhooks = append(page.Webhooks, h.webhookRow(wh))
	}
	if s.P.Can(cms.AreaWebhook, cms.ActionWrite) {
		page.New = h.url("/webhooks/new")
	}
	if r.URL.Query().Get("done") == "deleted" {
		page.Notice = "The webhook was deleted with its deliveries."
	}
	h.render(w, r, http.StatusOK, "webhooks", &view{Title: "Webhooks", Session: s, Section: "webhooks", Page: page})
}

// newWebhookPage is the data of the add form and of its answer, which
// shows the secret once.
type newWebhookPage struct {
	Form    webhookForm
	Created *webhookRow
	Secret  string
}

func (h *Handler) renderNewWebhook(w http.ResponseWriter, r *http.Request, status int, page newWebhookPage) {
	s, _ := sessionFrom(r)
	title := "Add a webhook"
	if page.Created != nil {
		title = "Webhook added"
	} else if len(page.Form.Errors) > 0 {
		title = "Error: " + title
	}
	h.render(w, r, status, "webhook-new", &view{Title: title, Session: s, Section: "webhooks", Page: page})
}

func (h *Handler) newWebhookForm(w http.ResponseWriter, r *http.Request) {
	s, _ := sessionFrom(r)
	if !h.mayWebhook(w, r, cms.ActionWrite) {
		return
	}
	h.renderNewWebhook(w, r, http.StatusOK, newWebhookPage{Form: webhookForm{Action: h.url("/webhooks/new"), Grid: events(s, []string{"*"})}})
}

func (h *Handler) createWebhook(w http.ResponseWriter, r *http.Request) {
	s, _ := sessionFrom(r)
	if !h.mayWebhook(w, r, cms.ActionWrite) {
		return
	}
	if err := readForm(w, r); err != nil {
		h.fail(w, r, err)
		return
	}
	target := strings.TrimSpace(r.PostForm.Get("url"))
	evs := formEvents(r.PostForm["event"])
	form := webhookForm{Action: h.url("/webhooks/new"), Target: target, Grid: events(s, evs)}
	if len(evs) == 0 {
		form.refuse("events", noEvents)
		h.renderNewWebhook(w, r, http.StatusConflict, newWebhookPage{Form: form})
		return
	}
	wh, secret, err := h.svc.CreateWebhook(r.Context(), cms.WebhookInput{URL: &target, Events: evs})
	if err != nil {
		if !formRefusal(err) {
			h.fail(w, r, err)
			return
		}
		for _, field := range []string{"url", "events", "secret"} {
			if text := webhookProblems(err)[field]; text != "" {
				form.refuse(field, text)
			}
		}
		status, _ := errorText(err)
		h.renderNewWebhook(w, r, status, newWebhookPage{Form: form})
		return
	}
	row := h.webhookRow(wh)
	h.renderNewWebhook(w, r, http.StatusCreated, newWebhookPage{Created: &row, Secret: secret})
}

// webhookPageData is the data of a webhook's page.
type webhookPageData struct {
	Webhook   webhookRow
	CanWrite  bool
	CanDelete bool
	Form      webhookForm
	// Secret is a new secret, shown this once.
	Secret     string
	SecretURL  string
	DeleteURL  string
	Notice     string
	Deliveries []deliveryRow
	// Filter is the delivery status shown ("" all); Filters the choices.
	Filter   string
	Filters  []listOption
	NextURL  string
	FirstURL string
}

// deliveryRow is one delivery of the log.
type deliveryRow struct {
	ID         string
	Change     string
	Status     string
	Attempts   int
	Last       string // the last attempt's status or error
	Response   string
	Created    string
	Finished   string
	NextTry    string
	RetryURL   string // "" without webhook:write or while pending
	RetryLabel string
}

// maxDeliveries is the deliveries of one page of the log.
const maxDeliveries = 50

func (h *Handler) deliveryRow(s *session, wh cms.Webhook, d cms.Delivery) deliveryRow {
	c := d.Change
	row := deliveryRow{ID: d.ID, Change: string(c.Kind) + " " + c.ID + " " + string(c.Op), Status: string(d.Status),
		Attempts: d.Attempts, Response: d.Response, Created: when(d.Created)}
	if c.Rev > 0 {
		row.Change += " (revision " + strconv.FormatInt(c.Rev, 10) + ")"
	}
	switch {
	case d.LastStatus != 0:
		row.Last = "HTTP " + strconv.Itoa(d.LastStatus)
		if t := http.StatusText(d.LastStatus); t != "" {
			row.Last += " " + t
		}
	case d.LastError != "":
		row.Last = d.LastError
	case d.Attempts == 0:
		row.Last = "not tried yet"
	}
	if !d.Finished.IsZero() {
		row.Finished = when(d.Finished)
	}
	if d.Status == cms.DeliveryPending && !d.NextAttempt.IsZero() {
		row.NextTry = when(d.NextAttempt)
	}
	if s.P.Can(cms.AreaWebhook, cms.ActionWrite) && d.Status != cms.DeliveryPending {
		row.RetryURL = h.webhookURL(wh.ID) + "/deliveries/" + url.PathEscape(d.ID) + "/retry"
		row.RetryLabel = "Retry"
		if d.Status == cms.DeliveryDelivered {
			row.RetryLabel = "Send again"
		}
	}
	return row
}

// webhookData reads webhook id and a page of its deliveries for s's
// page. ok false: the answer is made.
func (h *Handler) webhookData(w http.ResponseWriter, r *http.Request, id string) (webhookPageData, bool) {
	s, _ := sessionFrom(r)
	ctx := r.Context()
	wh, err := h.svc.GetWebhook(ctx, id)
	if err != nil {
		h.failWebhook(w, r, err)
		return webhookPageData{}, false
	}
	q := r.URL.Query()
	filter := cms.DeliveryStatus(q.Get("status"))
	if !slices.Contains([]cms.DeliveryStatus{cms.DeliveryPending, cms.DeliveryDelivered, cms.DeliveryFailed}, filter) {
		filter = ""
	}
	after := q.Get("after")
	dp, err := h.svc.WebhookDeliveries(ctx, id, cms.DeliveriesParams{After: after, Limit: maxDeliveries, Status: filter})
	if err != nil {
		h.failWebhook(w, r, err)
		return webhookPageData{}, false
	}
	base := h.webhookURL(wh.ID)
	page := webhookPageData{Webhook: h.webhookRow(wh), CanWrite: s.P.Can(cms.AreaWebhook, cms.ActionWrite),
		CanDelete: s.P.Can(cms.AreaWebhook, cms.ActionDelete), SecretURL: base + "/secret", DeleteURL: base + "/delete",
		Filter: string(filter),
		Form:   webhookForm{Action: base, Target: wh.URL, Grid: events(s, wh.Events), Enabled: wh.Enabled, Edit: true}}
	page.Filters = selectOptions([][2]string{{"", "All"}, {"pending", "Pending"}, {"delivered", "Delivered"}, {"failed", "Failed"}}, string(filter))
	for _, d := range dp.Deliveries {
		page.Deliveries = append(page.Deliveries, h.deliveryRow(s, wh, d))
	}
	v := url.Values{}
	if filter != "" {
		v.Set("status", string(filter))
	}
	if after != "" {
		page.FirstURL = base + query2(v) + "#deliveries"
	}
	if dp.Next != "" {
		v.Set("after", dp.Next)
		page.NextURL = base + query2(v) + "#deliveries"
	}
	return page, true
}

// query2 is "?" and v encoded, or "" for none.
func query2(v url.Values) string {
	if len(v) == 0 {
		return ""
	}
	return "?" + v.Encode()
}

// failWebhook answers an error of a webhook's look-up: a webhook that is
// not in the account says so in words.
func (h *Handler) failWebhook(w http.ResponseWriter, r *http.Request, err error) {
	if cms.ErrorCode(err) == cms.CodeNotFound {
		h.renderError(w, r, http.StatusNotFound, "There is no such webhook in your account.")
		return
	}
	h.fail(w, r, err)
}

func (h *Handler) renderWebhook(w http.ResponseWriter, r *http.Request, status int, page webhookPageData) {
	s, _ := sessionFrom(r)
	title := "Webhook " + page.Webhook.Target
	if len(page.Form.Errors) > 0 {
		title = "Error: " + title
	}
	h.render(w, r, status, "webhook", &view{Title: title, Session: s, Section: "webhooks", Page: page})
}

// webhookNotices are the texts of ?done= after a change.
var webhookNotices = map[string]string{
	"saved":   "The webhook was saved.",
	"retried": "The delivery will be sent again shortly.",
}

func (h *Handler) webhookPage(w http.ResponseWriter, r *http.Request) {
	if !h.mayWebhook(w, r, cms.ActionRead) {
		return
	}
	page, ok := h.webhookData(w, r, r.PathValue("id"))
	if !ok {
		return
	}
	page.Notice = webhookNotices[r.URL.Query().Get("done")]
	h.renderWebhook(w, r, http.StatusOK, page)
}

func (h *Handler) updateWebhook(w http.ResponseWriter, r *http.Request) {
	s, _ := sessionFrom(r)
	if !h.mayWebhook(w, r, cms.ActionWrite) {
		return
	}
	if err := readForm(w, r); err != nil {
		h.fail(w, r, err)
		return
	}
	id := r.PathValue("id")
	target := strings.TrimSpace(r.PostForm.Get("url"))
	evs := formEvents(r.PostForm["event"])
	enabled := r.PostForm.Get("enabled") == "true"
	refused := func(status int, field, text string) {
		page, ok := h.webhookData(w, r, id)
		if !ok {
			return
		}
		page.Form.Target, page.Form.Grid, page.Form.Enabled = target, events(s, evs), enabled
		page.Form.refuse(field, text)
		h.renderWebhook(w, r, status, page)
	}
	if len(evs) == 0 {
		refused(http.StatusConflict, "events", noEvents)
		return
	}
	_, err := h.svc.UpdateWebhook(r.Context(), id, cms.WebhookInput{URL: &target, Events: evs, Enabled: &enabled})
	if err != nil {
		if !formRefusal(err) {
			h.failWebhook(w, r, err)
			return
		}
		status, _ := errorText(err)
		page, ok := h.webhookData(w, r, id)
		if !ok {
			return
		}
		page.Form.Target, page.Form.Grid, page.Form.Enabled = target, events(s, evs), enabled
		for _, field := range []string{"url", "events"} {
			if text := webhookProblems(err)[field]; text != "" {
				page.Form.refuse(field, text)
			}
		}
		h.renderWebhook(w, r, status, page)
		return
	}
	http.Redirect(w, r, h.webhookURL(id)+"?done=saved", http.StatusSeeOther)
}

// newSecret makes a webhook secret as the service does: "whsec_" and
// base64 of 32 random bytes.
func newSecret() (string, error) {
	b := make([]byte, 32)
	if _, err := rand.Read(b); err != nil {
		return "", err
	}
	return "whsec_" + base64.StdEncoding.EncodeToString(b), nil
}

// rotateWebhookSecret gives the webhook a new secret and shows it once:
// the old one keeps signing beside it for 24 hours.
func (h *Handler) rotateWebhookSecret(w http.ResponseWriter, r *http.Request) {
	if !h.mayWebhook(w, r, cms.ActionWrite) {
		return
	}
	id := r.PathValue("id")
	secret, err := newSecret()
	if err != nil {
		h.fail(w, r, err)
		return
	}
	if _, err := h.svc.UpdateWebhook(r.Context(), id, cms.WebhookInput{Secret: &secret}); err != nil {
		h.failWebhook(w, r, err)
		return
	}
	page, ok := h.webhookData(w, r, id)
	if !ok {
		return
	}
	page.Secret = secret
	h.renderWebhook(w, r, http.StatusOK, page)
}

func (h *Handler) confirmDeleteWebhook(w http.ResponseWriter, r *http.Request) {
	s, _ := sessionFrom(r)
	if !h.mayWebhook(w, r, cms.ActionDelete) {
		return
	}
	wh, err := h.svc.GetWebhook(r.Context(), r.PathValue("id"))
	if err != nil {
		h.failWebhook(w, r, err)
		return
	}
	h.render(w, r, http.StatusOK, "webhook-delete", &view{Title: "Delete webhook " + wh.URL, Session: s, Section: "webhooks",
		Page: h.webhookRow(wh)})
}

func (h *Handler) deleteWebhook(w http.ResponseWriter, r *http.Request) {
	if !h.mayWebhook(w, r, cms.ActionDelete) {
		return
	}
	if err := h.svc.DeleteWebhook(r.Context(), r.PathValue("id")); err != nil {
		h.failWebhook(w, r, err)
		return
	}
	http.Redirect(w, r, h.url("/webhooks/")+"?done=deleted", http.StatusSeeOther)
}

func (h *Handler) retryDelivery(w http.ResponseWriter, r *http.Request) {
	if !h.mayWebhook(w, r, cms.ActionWrite) {
		return
	}
	id := r.PathValue("id")
	if _, err := h.svc.RetryDelivery(r.Context(), id, r.PathValue("delivery")); err != nil {
		if cms.ErrorCode(err) == cms.CodeNotFound {
			h.renderError(w, r, http.StatusNotFound, "There is no such delivery of this webhook in your account.")
			return
		}
		h.fail(w, r, err)
		return
	}
	http.Redirect(w, r, h.webhookURL(id)+"?done=retried#deliveries", http.StatusSeeOther)
}
