package transport

import (
	"bytes"
	"net/http"
	"net/url"
	"regexp"
	"slices"
	"strings"
	"time"

	"github.com/bwcms/cms/cms"
	jsonv2 "github.com/go-json-experiment/json"
)

// webhookSegment is the first path segment of every webhook route.
const webhookSegment = string(cms.AreaWebhook)

// The segments after a webhook's id.
const (
	deliveriesSegment = "deliveries"
	retrySegment      = "retry"
)

// MaxWebhookBody is the largest body of a webhook's create or update.
const MaxWebhookBody = 64 << 10

// The methods of each webhook route, sorted as Allow lists them.
var (
	methodsWebhooks   = []string{http.MethodGet, http.MethodPost}
	methodsWebhook    = []string{http.MethodDelete, http.MethodGet, http.MethodPost}
	methodsDeliveries = []string{http.MethodGet}
	methodsRetry      = []string{http.MethodPost}
)

// webhookPath is a webhook path as routing reads it.
type webhookPath struct {
	endpoint endpoint
	// id and delivery are the segments, still escaped.
	id, delivery string
	trailing     bool
}

// parseWebhookPath reads rest when it is webhook or under webhook/; ok
// is false for a path of no webhook route.
func parseWebhookPath(rest string) (wp webhookPath, ok bool) {
	segs := strings.Split(rest, "/")
	if segs[0] != webhookSegment {
		return wp, false
	}
	if n := len(segs); n > 1 && segs[n-1] == "" {
		wp.trailing = true
		segs = segs[:n-1]
	}
	if slices.Contains(segs[1:], "") {
		return wp, false
	}
	switch {
	case len(segs) == 1:
		wp.endpoint = endpointWebhooks
	case len(segs) == 2:
		wp.endpoint, wp.id = endpointWebhook, segs[1]
	case len(segs) == 3 && segs[2] == deliveriesSegment:
		wp.endpoint, wp.id = endpointDeliveries, segs[1]
	case len(segs) == 5 && segs[2] == deliveriesSegment && segs[4] == retrySegment:
		wp.endpoint, wp.id, wp.delivery = endpointRetry, segs[1], segs[3]
	default:
		return wp, false
	}
	return wp, true
}

func (wp webhookPath) methods() []string {
	switch wp.endpoint {
	case endpointWebhooks:
		return methodsWebhooks
	case endpointWebhook:
		return methodsWebhook
	case endpointDeliveries:
		return methodsDeliveries
	}
	return methodsRetry
}

// label is the route's name for the Observer and the access log: a few
// fixed names, never an id.
func (wp webhookPath) label(method string) string {
	switch wp.endpoint {
	case endpointWebhooks:
		if method == http.MethodPost {
			return "webhook create"
		}
		return "webhook list"
	case endpointWebhook:
		switch method {
		case http.MethodPost:
			return "webhook update"
		case http.MethodDelete:
			return "webhook delete"
		}
		return "webhook read"
	case endpointDeliveries:
		return "webhook deliveries"
	}
	return "webhook retry"
}

// serveWebhooks answers every path under <base>/webhook: routing first
// (404, 405), then 401 and 403 (webhook:read, write or delete), then the
// ids, query and body (404, 400), then the service.
func (h *Handler) serveWebhooks(w http.ResponseWriter, r *http.Request, rest string) {
	wp, ok := parseWebhookPath(rest)
	if !ok {
		writeFail(w, http.StatusNotFound, textNotFound)
		return
	}
	nameRoute(r, wp.label(r.Method))
	if methods := wp.methods(); !slices.Contains(methods, r.Method) {
		w.Header().Set("Allow", joinMethods(methods))
		writeFail(w, http.StatusMethodNotAllowed, textMethodNotAllowed)
		return
	}
	target, action := permissionOf(r.Method, "", wp.endpoint)
	ctx, err := h.authorize(r, target, action)
	if err != nil {
		h.writeError(w, r, err)
		return
	}
	r = r.WithContext(ctx)
	if wp.trailing {
		h.writeError(w, r, wrong("trailing slash"))
		return
	}
	var id, delivery string
	if wp.endpoint != endpointWebhooks {
		if id, ok = opaqueID(wp.id); !ok {
			h.writeError(w, r, errNoWebhook())
			return
		}
	}
	if wp.endpoint == endpointRetry {
		if delivery, ok = opaqueID(wp.delivery); !ok {
			h.writeError(w, r, errNoWebhook())
			return
		}
	}
	switch {
	case wp.endpoint == endpointWebhooks && r.Method == http.MethodGet:
		h.listWebhooks(w, r)
	case wp.endpoint == endpointWebhooks:
		h.createWebhook(w, r)
	case wp.endpoint == endpointWebhook && r.Method == http.MethodGet:
		h.getWebhook(w, r, id)
	case wp.endpoint == endpointWebhook && r.Method == http.MethodPost:
		h.updateWebhook(w, r, id)
	case wp.endpoint == endpointWebhook:
		h.deleteWebhook(w, r, id)
	case wp.endpoint == endpointDeliveries:
		h.listDeliveries(w, r, id)
	default:
		h.retryDelivery(w, r, id, delivery)
	}
}

// errNoWebhook is the 404 of an id that names no webhook (or delivery)
// of the caller.
func errNoWebhook() error { return &cms.Error{Code: cms.CodeNotFound, Message: textNotFound} }

// opaquePattern is what a webhook or delivery id may be: the service
// makes them, so anything else names none.
var opaquePattern = regexp.MustCompile(`^[A-Za-z0-9._~:@-]{1,100}$`)

// opaqueID unescapes a webhook or delivery id segment; ok is false when
// it cannot be one.
func opaqueID(raw string) (string, bool) {
	id, err := url.PathUnescape(raw)
	if err != nil || !opaquePattern.MatchString(id) {
		return "", false
	}
	return id, true
}

// webhookObject is a webhook as the API answers it; never its secret.
type webhookObject struct {
	ID          string   `json:"id" jsonschema_description:"the webhook's id"`
	URL         string   `json:"url" jsonschema:"format=uri" jsonschema_description:"where the messages are posted"`
	Events      []string `json:"events" jsonschema_description:"the events sent: <kind>.upsert, <kind>.delete, or * for every change of the kinds the webhook's user may read"`
	User        string   `json:"user" jsonschema_description:"the user the webhook acts for (who made it): it carries only the kinds that user may read, checked at every delivery"`
	Enabled     bool     `json:"enabled" jsonschema_description:"messages are sent"`
	Disabled    string   `json:"disabled,omitempty" jsonschema_description:"why the service disabled it (5 failed deliveries in a row, its user disabled or deleted); left out when it did not"`
	FailedInRow int      `json:"failedInRow" jsonschema:"minimum=0" jsonschema_description:"deliveries failed since the last one delivered"`
	Created     string   `json:"created" jsonschema:"pattern=^[0-9]{4}-[0-9]{2}-[0-9]{2} [0-9]{2}:[0-9]{2}:[0-9]{2}$" jsonschema_description:"when it was made (YYYY-MM-DD HH:MM:SS in the service's zone)"`
	Updated     string   `json:"updated" jsonschema:"pattern=^[0-9]{4}-[0-9]{2}-[0-9]{2} [0-9]{2}:[0-9]{2}:[0-9]{2}$" jsonschema_description:"when it was last changed"`
}

// webhookCreated is the answer of a create: the webhook, and the secret
// when the service made it (the only time it is answered).
type webhookCreated struct {
	webhookObject
	Secret string `json:"secret,omitempty" jsonschema:"pattern=^whsec_" jsonschema_description:"the secret the service made (whsec_ + base64), answered this once; left out when the body gave one"`
}

// webhookList is the answer of GET webhook.
type webhookList struct {
	Webhooks []webhookObject `json:"webhooks" jsonschema_description:"the account's webhooks, oldest first"`
}

// webhookInput is the body of a create or update: a member left out (or
// null) is left as it is.
type webhookInput struct {
	URL     *string  `json:"url,omitempty" jsonschema:"format=uri,maxLength=2000" jsonschema_description:"http or https, no user or password, not on a private network (unless the server allows it); required at creation"`
	Events  []string `json:"events,omitempty" jsonschema_description:"<kind>.upsert and <kind>.delete names, or * (the default at creation)"`
	Secret  *string  `json:"secret,omitempty" jsonschema_description:"the signing secret (whsec_ + base64); left out at creation, the service makes one and answers it once; a new one leaves the old one signing beside it for 24 hours"`
	Enabled *bool    `json:"enabled,omitempty" jsonschema_description:"false stops the messages; true sends them again and clears the failures (default true)"`
}

// deliveryObject is one delivery of a webhook's log.
type deliveryObject struct {
	ID          string  `json:"id" jsonschema_description:"the message's id, its webhook-id header: the same at every attempt"`
	Seq         string  `json:"seq" jsonschema_description:"the change's cursor in the changes feed"`
	Kind        string  `json:"kind" jsonschema:"enum=resource,enum=map,enum=landing,enum=proposal" jsonschema_description:"the record's kind"`
	RecordID    string  `json:"recordId" jsonschema_description:"the record's id"`
	Op          string  `json:"op" jsonschema:"enum=upsert,enum=delete" jsonschema_description:"upsert or delete"`
	Rev         int64   `json:"rev" jsonschema_description:"the record's revision"`
	Status      string  `json:"status" jsonschema:"enum=pending,enum=delivered,enum=failed" jsonschema_description:"pending (waiting for its turn or its next attempt), delivered (a 2xx answer), failed (retried for 24 hours, or given up)"`
	Attempts    int     `json:"attempts" jsonschema:"minimum=0" jsonschema_description:"attempts made"`
	NextAttempt *string `json:"nextAttempt" jsonschema:"pattern=^[0-9]{4}-[0-9]{2}-[0-9]{2} [0-9]{2}:[0-9]{2}:[0-9]{2}$" jsonschema_description:"when a pending delivery is tried next; null otherwise"`
	LastStatus  int     `json:"lastStatus" jsonschema:"minimum=0" jsonschema_description:"the HTTP status of the last attempt; 0 when none came (or no attempt yet)"`
	LastError   string  `json:"lastError" jsonschema_description:"what went wrong when no answer came"`
	Response    string  `json:"response" jsonschema_description:"the start of the last answer's body (at most 4 KiB)"`
	Created     string  `json:"created" jsonschema:"pattern=^[0-9]{4}-[0-9]{2}-[0-9]{2} [0-9]{2}:[0-9]{2}:[0-9]{2}$" jsonschema_description:"when the change was queued for the webhook"`
	Finished    *string `json:"finished" jsonschema:"pattern=^[0-9]{4}-[0-9]{2}-[0-9]{2} [0-9]{2}:[0-9]{2}:[0-9]{2}$" jsonschema_description:"when it was delivered or failed; null while pending"`
}

// deliveryList is the answer of GET webhook/{id}/deliveries.
type deliveryList struct {
	Deliveries []deliveryObject `json:"deliveries" jsonschema_description:"the deliveries, newest first"`
	Next       *string          `json:"next" jsonschema_description:"the after of the next page; null on the last"`
}

func (h *Handler) webhookObjectOf(wh cms.Webhook) webhookObject {
	events := wh.Events
	if events == nil {
		events = []string{}
	}
	return webhookObject{ID: wh.ID, URL: wh.URL, Events: events, User: wh.User, Enabled: wh.Enabled, Disabled: wh.Disabled,
		FailedInRow: wh.FailedInRow, Created: h.svc.Timestamp(wh.Created), Updated: h.svc.Timestamp(wh.Updated)}
}

// optionalTime is a wire timestamp, nil for the zero time.
func (h *Handler) optionalTime(t time.Time) *string {
	if t.IsZero() {
		return nil
	}
	s := h.svc.Timestamp(t)
	return &s
}

func (h *Handler) deliveryObjectOf(d cms.Delivery) deliveryObject {
	o := deliveryObject{ID: d.ID, Seq: d.Change.Seq, Kind: string(d.Change.Kind), RecordID: d.Change.ID, Op: string(d.Change.Op),
		Rev: d.Change.Rev, Status: string(d.Status), Attempts: d.Attempts, LastStatus: d.LastStatus, LastError: d.LastError,
		Response: d.Response, Created: h.svc.Timestamp(d.Created), Finished: h.optionalTime(d.Finished)}
	if d.Status == cms.DeliveryPending {
		o.NextAttempt = h.optionalTime(d.NextAttempt)
	}
	return o
}

func (h *Handler) listWebhooks(w http.ResponseWriter, r *http.Request) {
	hooks, err := h.svc.Webhooks(r.Context())
	if err != nil {
		h.writeError(w, r, err)
		return
	}
	body := webhookList{Webhooks: make([]webhookObject, len(hooks))}
	for i, wh := range hooks {
		body.Webhooks[i] = h.webhookObjectOf(wh)
	}
	writeJSON(w, http.StatusOK, body)
}

func (h *Handler) createWebhook(w http.ResponseWriter, r *http.Request) {
	in, err := h.webhookBody(w, r)
	if err != nil {
		h.writeError(w, r, err)
		return
	}
	wh, secret, err := h.svc.CreateWebhook(r.Context(), in)
	if err != nil {
		h.writeError(w, r, err)
		return
	}
	body := webhookCreated{webhookObject: h.webhookObjectOf(wh)}
	if in.Secret == nil {
		body.Secret = secret
	}
	writeJSON(w, http.StatusCreated, body)
}

func (h *Handler) getWebhook(w http.ResponseWriter, r *http.Request, id string) {
	wh, err := h.svc.GetWebhook(r.Context(), id)
	if err != nil {
		h.writeError(w, r, err)
		return
	}
	writeJSON(w, http.StatusOK, h.webhookObjectOf(wh))
}

func (h *Handler) updateWebhook(w http.ResponseWriter, r *http.Request, id string) {
	in, err := h.webhookBody(w, r)
	if err != nil {
		h.writeError(w, r, err)
		return
	}
	wh, err := h.svc.UpdateWebhook(r.Context(), id, in)
	if err != nil {
		h.writeError(w, r, err)
		return
	}
	writeJSON(w, http.StatusOK, h.webhookObjectOf(wh))
}

func (h *Handler) deleteWebhook(w http.ResponseWriter, r *http.Request, id string) {
	if err := h.svc.DeleteWebhook(r.Context(), id); err != nil {
		h.writeError(w, r, err)
		return
	}
	writeJSON(w, http.StatusAccepted, deleteBody{Done: "Deletion of 1 Webhooks done", Count: 1})
}

func (h *Handler) listDeliveries(w http.ResponseWriter, r *http.Request, id string) {
	p, err := deliveriesParamsOf(r.URL.RawQuery)
	if err != nil {
		h.writeError(w, r, err)
		return
	}
	page, err := h.svc.WebhookDeliveries(r.Context(), id, p)
	if err != nil {
		h.writeError(w, r, err)
		return
	}
	body := deliveryList{Deliveries: make([]deliveryObject, len(page.Deliveries))}
	for i, d := range page.Deliveries {
		body.Deliveries[i] = h.deliveryObjectOf(d)
	}
	if page.Next != "" {
		body.Next = &page.Next
	}
	writeJSON(w, http.StatusOK, body)
}

func (h *Handler) retryDelivery(w http.ResponseWriter, r *http.Request, id, delivery string) {
	d, err := h.svc.RetryDelivery(r.Context(), id, delivery)
	if err != nil {
		h.writeError(w, r, err)
		return
	}
	writeJSON(w, http.StatusAccepted, h.deliveryObjectOf(d))
}

// deliveriesParamsOf reads ?limit=&after=&status= of a delivery log.
func deliveriesParamsOf(rawQuery string) (cms.DeliveriesParams, error) {
	var p cms.DeliveriesParams
	q, limit, err := pageOf(rawQuery, "after", func(v string) error {
		if !opaquePattern.MatchString(v) {
			return wrong("after: not a delivery id")
		}
		p.After = v
		return nil
	})
	p.Limit = limit
	if err != nil {
		return p, err
	}
	err = q.with("status", func(v string) error {
		s := cms.DeliveryStatus(v)
		if s != cms.DeliveryPending && s != cms.DeliveryDelivered && s != cms.DeliveryFailed {
			return wrong("status: want pending, delivered or failed")
		}
		p.Status = s
		return nil
	})
	return p, err
}

// webhookBody reads the JSON object of a create or update: strict JSON
// (one value, valid UTF-8, no duplicate member), members named exactly,
// none unknown; anything else is 400, over MaxWebhookBody 413.
func (h *Handler) webhookBody(w http.ResponseWriter, r *http.Request) (cms.WebhookInput, error) {
	if err := limitBody(w, r, MaxWebhookBody); err != nil {
		return cms.WebhookInput{}, err
	}
	var buf bytes.Buffer
	if _, err := buf.ReadFrom(r.Body); err != nil {
		return cms.WebhookInput{}, bodyReadError(err)
	}
	return decodeWebhookInput(buf.Bytes())
}

// decodeWebhookInput reads the body of a create or update; every
// refusal is CodeMalformed.
func decodeWebhookInput(raw []byte) (cms.WebhookInput, error) {
	body := bytes.TrimLeft(raw, " \t\r\n")
	if len(body) == 0 || body[0] != '{' {
		return cms.WebhookInput{}, wrong("webhook body: not a JSON object")
	}
	var in webhookInput
	if err := jsonv2.Unmarshal(body, &in, jsonv2.RejectUnknownMembers(true)); err != nil {
		return cms.WebhookInput{}, &cms.Error{Code: cms.CodeMalformed, Message: "Wrong request", Err: err}
	}
	return cms.WebhookInput{URL: in.URL, Events: in.Events, Secret: in.Secret, Enabled: in.Enabled}, nil
}
