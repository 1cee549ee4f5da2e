package transport

import (
	"context"
	"encoding/json"
	"net/http"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/bwcms/cms/cms"
	"github.com/bwcms/cms/internal/testenv"
)

// webhookAnswer is a webhook as the API answers it, secret included
// when there is one.
type webhookAnswer struct {
	ID          string   `json:"id"`
	URL         string   `json:"url"`
	Events      []string `json:"events"`
	User        string   `json:"user"`
	Enabled     bool     `json:"enabled"`
	Disabled    string   `json:"disabled"`
	FailedInRow int      `json:"failedInRow"`
	Created     string   `json:"created"`
	Updated     string   `json:"updated"`
	Secret      string   `json:"secret"`
}

// newWebhookEnv is an env with two more users of account acme: hooker
// (webhook:*) and watcher (webhook:read, resource:read).
func newWebhookEnv(t *testing.T, o envOptions) *env {
	t.Helper()
	e := newEnv(t, o)
	if err := testenv.CreateUsers(t.Context(), e.svc, "acme", testPassword,
		testenv.User{Name: "hooker", Perms: []string{"webhook:*", "resource:read", "map:read"}},
		testenv.User{Name: "watcher", Perms: []string{"webhook:read", "resource:read"}}); err != nil {
		t.Fatal(err)
	}
	return e
}

// webhook sends a webhook request and decodes a webhook answer of want.
func (e *env) webhook(user, method, path, body string, want int) (webhookAnswer, map[string]any) {
	e.t.Helper()
	w := e.send(user, method, path, body, nil)
	if w.Code != want {
		e.t.Fatalf("%s %s %s: %d %s, want %d", method, path, body, w.Code, w.Body, want)
	}
	var a webhookAnswer
	var raw map[string]any
	if err := json.Unmarshal(w.Body.Bytes(), &a); err != nil {
		e.t.Fatal(err)
	}
	json.Unmarshal(w.Body.Bytes(), &raw)
	return a, raw
}

// webhookList is GET webhook as user: the webhooks, each as sent.
func (e *env) webhookList(user string) []map[string]any {
	e.t.Helper()
	w := e.send(user, http.MethodGet, "/api/bw/v2/webhook", "", nil)
	var list struct {
		Webhooks []map[string]any `json:"webhooks"`
	}
	if w.Code != http.StatusOK || json.Unmarshal(w.Body.Bytes(), &list) != nil {
		e.t.Fatalf("list webhooks: %d %s", w.Code, w.Body)
	}
	return list.Webhooks
}

// Webhooks through the API: made with a secret answered once, listed and
// read without it, changed, deleted; another account sees none of them.
func TestWebhooks(t *testing.T) {
	t.Parallel()
	forEachStoreWith(t, envOptions{}, func(t *testing.T, e *env) {
		if err := testenv.CreateUsers(t.Context(), e.svc, "acme", testPassword,
			testenv.User{Name: "hooker", Perms: []string{"webhook:*", "resource:read", "map:read"}}); err != nil {
			t.Fatal(err)
		}
		made, raw := e.webhook("hooker", http.MethodPost, "/api/bw/v2/webhook",
			`{"url":"https://hooks.example.com/cms","events":["resource.upsert","map.delete"]}`, 201)
		if made.ID == "" || made.URL != "https://hooks.example.com/cms" || strings.Join(made.Events, ",") != "resource.upsert,map.delete" ||
			made.User != "hooker" || !made.Enabled || made.FailedInRow != 0 || made.Created == "" || made.Updated == "" ||
			!strings.HasPrefix(made.Secret, "whsec_") || raw["disabled"] != nil {
			t.Fatalf("made %s", mustJSON(t, raw))
		}
		e.clock.Advance(time.Second) // listed oldest first
		own, raw := e.webhook("hooker", http.MethodPost, "/api/bw/v2/webhook",
			`{"url":"https://hooks.example.com/two","secret":"whsec_`+strings.Repeat("QUFB", 8)+`"}`, 201)
		if _, ok := raw["secret"]; ok || strings.Join(own.Events, ",") != "*" {
			t.Fatalf("made with a secret: %s", mustJSON(t, raw))
		}
		list := e.webhookList("hooker")
		if len(list) != 2 || list[0]["id"] != made.ID || list[1]["id"] != own.ID {
			t.Fatalf("list %s", mustJSON(t, list))
		}
		for _, wh := range list {
			if _, ok := wh["secret"]; ok {
				t.Errorf("a listed webhook shows its secret: %v", wh)
			}
		}
		got, raw := e.webhook("hooker", http.MethodGet, "/api/bw/v2/webhook/"+made.ID, "", 200)
		if _, ok := raw["secret"]; ok || got.ID != made.ID || got.URL != made.URL {
			t.Errorf("get %s", mustJSON(t, raw))
		}
		// Changes: what the body sets, the rest as it was.
		changed, _ := e.webhook("hooker", http.MethodPost, "/api/bw/v2/webhook/"+made.ID, `{"enabled":false}`, 200)
		if changed.Enabled || changed.URL != made.URL || strings.Join(changed.Events, ",") != "resource.upsert,map.delete" {
			t.Errorf("disabled %+v", changed)
		}
		changed, raw = e.webhook("hooker", http.MethodPost, "/api/bw/v2/webhook/"+made.ID, `{"url":"https://hooks.example.com/new","enabled":true,"secret":"whsec_`+strings.Repeat("QkJC", 8)+`"}`, 200)
		if !changed.Enabled || changed.URL != "https://hooks.example.com/new" || raw["secret"] != nil {
			t.Errorf("changed %s", mustJSON(t, raw))
		}
		if got, _ := e.webhook("hooker", http.MethodGet, "/api/bw/v2/webhook/"+made.ID, "", 200); got.URL != changed.URL || !got.Enabled {
			t.Errorf("read back %+v", got)
		}
		// Another account: none of them, and nothing it does reaches them.
		if list := e.webhookList("otto"); len(list) != 0 {
			t.Errorf("otto sees %v", list)
		}
		for _, s := range []step{
			{user: "otto", method: http.MethodGet, path: "/api/bw/v2/webhook/" + made.ID, status: 404},
			{user: "otto", method: http.MethodPost, path: "/api/bw/v2/webhook/" + made.ID, body: `{"enabled":false}`, status: 404},
			{user: "otto", method: http.MethodDelete, path: "/api/bw/v2/webhook/" + made.ID, status: 404},
			{user: "otto", method: http.MethodGet, path: "/api/bw/v2/webhook/" + made.ID + "/deliveries", status: 404},
		} {
			runFlow(t, e, []step{s})
		}
		if got, _ := e.webhook("hooker", http.MethodGet, "/api/bw/v2/webhook/"+made.ID, "", 200); !got.Enabled {
			t.Errorf("another account changed it: %+v", got)
		}
		// Delete.
		runFlow(t, e, []step{
			{user: "hooker", method: http.MethodDelete, path: "/api/bw/v2/webhook/" + own.ID, status: 202, want: `{"done":"Deletion of 1 Webhooks done","count":1}`},
			{user: "hooker", method: http.MethodGet, path: "/api/bw/v2/webhook/" + own.ID, status: 404},
			{user: "hooker", method: http.MethodDelete, path: "/api/bw/v2/webhook/" + own.ID, status: 404},
		})
		if list := e.webhookList("hooker"); len(list) != 1 || list[0]["id"] != made.ID {
			t.Errorf("after delete %v", list)
		}
	})
}

func mustJSON(t *testing.T, v any) string {
	t.Helper()
	b, err := json.Marshal(v)
	if err != nil {
		t.Fatal(err)
	}
	return string(b)
}

// The refusals of the webhook routes, in the order of DECISIONS §1
// (405, 401, 403, then 400, 404, 409, 413); none stores or changes
// anything.
func TestWebhookRefusals(t *testing.T) {
	t.Parallel()
	e := newWebhookEnv(t, envOptions{})
	made, _ := e.webhook("hooker", http.MethodPost, "/api/bw/v2/webhook", `{"url":"https://hooks.example.com/cms"}`, 201)
	before := mustJSON(t, e.webhookList("hooker"))
	one := "/api/bw/v2/webhook/" + made.ID
	retry := one + "/deliveries/msg-1/retry"
	wrongRequest := `{"fail":"Wrong request"}`
	for _, s := range []step{
		{name: "PUT the list", user: "hooker", method: http.MethodPut, path: "/api/bw/v2/webhook", status: 405},
		{name: "PATCH one", user: "hooker", method: http.MethodPatch, path: one, status: 405},
		{name: "GET a retry", user: "hooker", method: http.MethodGet, path: retry, status: 405},
		{name: "no such route", user: "hooker", method: http.MethodGet, path: one + "/other", status: 404},
		{name: "no such route under deliveries", user: "hooker", method: http.MethodPost, path: one + "/deliveries/msg-1", status: 404},
		{name: "no token", method: http.MethodGet, path: "/api/bw/v2/webhook", status: 401, want: `{"fail":"Unauthorized"}`},
		{name: "no token, create", method: http.MethodPost, path: "/api/bw/v2/webhook", body: `{"url":"https://x.example.com"}`, status: 401},
		{name: "no token, delete", method: http.MethodDelete, path: one, status: 401},
		{name: "no token, retry", method: http.MethodPost, path: retry, status: 401},
		{name: "*:* is not webhook", user: "writer", method: http.MethodGet, path: "/api/bw/v2/webhook", status: 403, want: `{"fail":"Forbidden"}`},
		{name: "admin of records only", user: "reader", method: http.MethodGet, path: one, status: 403},
		{name: "read only, create", user: "watcher", method: http.MethodPost, path: "/api/bw/v2/webhook", body: `{"url":"https://x.example.com"}`, status: 403},
		{name: "read only, update", user: "watcher", method: http.MethodPost, path: one, body: `{"enabled":false}`, status: 403},
		{name: "read only, delete", user: "watcher", method: http.MethodDelete, path: one, status: 403},
		{name: "read only, retry", user: "watcher", method: http.MethodPost, path: retry, status: 403},
		{name: "forbidden before malformed", user: "watcher", method: http.MethodPost, path: "/api/bw/v2/webhook", body: `nonsense`, status: 403},
		{name: "not JSON", user: "hooker", method: http.MethodPost, path: "/api/bw/v2/webhook", body: `url=https://x.example.com`, status: 400, want: wrongRequest},
		{name: "an array", user: "hooker", method: http.MethodPost, path: "/api/bw/v2/webhook", body: `[{"url":"https://x.example.com"}]`, status: 400},
		{name: "unknown member", user: "hooker", method: http.MethodPost, path: "/api/bw/v2/webhook", body: `{"url":"https://x.example.com","user":"admin"}`, status: 400},
		{name: "member of another case", user: "hooker", method: http.MethodPost, path: "/api/bw/v2/webhook", body: `{"URL":"https://x.example.com"}`, status: 400},
		{name: "duplicate member", user: "hooker", method: http.MethodPost, path: "/api/bw/v2/webhook", body: `{"url":"https://x.example.com","url":"https://y.example.com"}`, status: 400},
		{name: "trailing data", user: "hooker", method: http.MethodPost, path: "/api/bw/v2/webhook", body: `{"url":"https://x.example.com"} {}`, status: 400},
		{name: "wrong type", user: "hooker", method: http.MethodPost, path: one, body: `{"enabled":"no"}`, status: 400},
		{name: "empty body", user: "hooker", method: http.MethodPost, path: one, body: ``, status: 400},
		{name: "trailing slash", user: "hooker", method: http.MethodGet, path: one + "/", status: 400},
		{name: "deliveries: bad status", user: "hooker", method: http.MethodGet, path: one + "/deliveries?status=lost", status: 400},
		{name: "deliveries: limit 0", user: "hooker", method: http.MethodGet, path: one + "/deliveries?limit=0", status: 400},
		{name: "deliveries: after twice", user: "hooker", method: http.MethodGet, path: one + "/deliveries?after=a1&after=a2", status: 400},
		{name: "not an id", user: "hooker", method: http.MethodGet, path: "/api/bw/v2/webhook/%21%21", status: 404, want: `{"fail":"Not found"}`},
		{name: "no such webhook", user: "hooker", method: http.MethodGet, path: "/api/bw/v2/webhook/wh_missing", status: 404},
		{name: "no such webhook, update", user: "hooker", method: http.MethodPost, path: "/api/bw/v2/webhook/wh_missing", body: `{"enabled":false}`, status: 404},
		{name: "no such delivery", user: "hooker", method: http.MethodPost, path: retry, status: 404},
		{name: "no url", user: "hooker", method: http.MethodPost, path: "/api/bw/v2/webhook", body: `{"events":["*"]}`, status: 409},
		{name: "not http", user: "hooker", method: http.MethodPost, path: "/api/bw/v2/webhook", body: `{"url":"ftp://x.example.com/"}`, status: 409},
		{name: "loopback", user: "hooker", method: http.MethodPost, path: "/api/bw/v2/webhook", body: `{"url":"http://127.0.0.1:8080/hook"}`, status: 409},
		{name: "metadata address", user: "hooker", method: http.MethodPost, path: one, body: `{"url":"http://169.254.169.254/latest"}`, status: 409},
		{name: "unknown event", user: "hooker", method: http.MethodPost, path: "/api/bw/v2/webhook", body: `{"url":"https://x.example.com","events":["resource.frobnicate"]}`, status: 409},
		{name: "a kind the user may not read", user: "hooker", method: http.MethodPost, path: "/api/bw/v2/webhook", body: `{"url":"https://x.example.com","events":["landing.upsert"]}`, status: 409},
	} {
		w := e.send(s.user, s.method, s.path, s.body, nil)
		if w.Code != s.status || s.want != "" && strings.TrimSpace(w.Body.String()) != s.want {
			t.Errorf("%s: %d %s, want %d %s", s.name, w.Code, w.Body, s.status, s.want)
		}
	}
	// Over the limit, declared or not.
	big := `{"url":"https://x.example.com/` + strings.Repeat("a", MaxWebhookBody) + `"}`
	if w := e.send("hooker", http.MethodPost, "/api/bw/v2/webhook", big, nil); w.Code != http.StatusRequestEntityTooLarge {
		t.Errorf("too large: %d %s", w.Code, w.Body)
	}
	if after := mustJSON(t, e.webhookList("hooker")); after != before {
		t.Errorf("refusals changed the webhooks:\n%s\nwas\n%s", after, before)
	}
	if w := e.send("hooker", http.MethodGet, "/api/bw/v2/webhook/"+made.ID, "", nil); w.Code != 200 || !strings.Contains(w.Body.String(), `"enabled":true`) {
		t.Errorf("after refusals: %d %s", w.Code, w.Body)
	}
}

// recordingSender answers every message with status and keeps them.
type recordingSender struct {
	mu       sync.Mutex
	status   int
	messages []cms.WebhookMessage
}

func (s *recordingSender) Send(_ context.Context, m cms.WebhookMessage) cms.WebhookAttempt {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.messages = append(s.messages, m)
	return cms.WebhookAttempt{Status: s.status, Response: []byte(`{"ok":true}`)}
}

// deliveriesAnswer is the body of GET webhook/{id}/deliveries.
type deliveriesAnswer struct {
	Deliveries []map[string]any `json:"deliveries"`
	Next       *string          `json:"next"`
}

// The delivery log through the API: a change delivered, its fields, a
// page of it, a filter by status, and a retry.
func TestWebhookDeliveries(t *testing.T) {
	t.Parallel()
	sender := &recordingSender{status: http.StatusOK}
	e := newWebhookEnv(t, envOptions{svc: func(o *cms.Options) { o.WebhookSender = sender }})
	ctx, cancel := context.WithCancel(t.Context())
	done := make(chan struct{})
	go func() { defer close(done); e.svc.Run(ctx) }()
	defer func() { cancel(); <-done }()

	made, _ := e.webhook("hooker", http.MethodPost, "/api/bw/v2/webhook", `{"url":"https://hooks.example.com/cms","events":["resource.upsert"]}`, 201)
	runFlow(t, e, []step{
		{user: "admin", method: http.MethodPost, path: "/api/bw/v2/resource", body: `{"id":"lake-walk","title":"Lake walk"}`, status: 201},
		{user: "admin", method: http.MethodPost, path: "/api/bw/v2/map", body: `{"id":"lakes","title":"Lakes"}`, status: 201}, // no event of the webhook
		{user: "admin", method: http.MethodPost, path: "/api/bw/v2/resource", body: `{"id":"lake-walk","title":"Lake path"}`, status: 202},
	})
	base := "/api/bw/v2/webhook/" + made.ID + "/deliveries"
	log := func(query string) deliveriesAnswer {
		t.Helper()
		w := e.send("watcher", http.MethodGet, base+query, "", nil)
		var a deliveriesAnswer
		if w.Code != http.StatusOK || json.Unmarshal(w.Body.Bytes(), &a) != nil {
			t.Fatalf("deliveries%s: %d %s", query, w.Code, w.Body)
		}
		return a
	}
	// The workers send in the background: wait until both are delivered.
	var all deliveriesAnswer
	for deadline := time.Now().Add(time.Minute); ; {
		all = log("?status=delivered")
		if len(all.Deliveries) == 2 || time.Now().After(deadline) {
			break
		}
		time.Sleep(20 * time.Millisecond)
	}
	if len(all.Deliveries) != 2 {
		t.Fatalf("delivered: %s", mustJSON(t, all))
	}
	newest := all.Deliveries[0]
	if newest["kind"] != "resource" || newest["recordId"] != "lake-walk" || newest["op"] != "upsert" || newest["rev"] != float64(2) ||
		newest["status"] != "delivered" || newest["attempts"] != float64(1) || newest["lastStatus"] != float64(200) ||
		newest["response"] != `{"ok":true}` || newest["nextAttempt"] != nil || newest["finished"] == nil || newest["seq"] == "" ||
		all.Deliveries[1]["rev"] != float64(1) {
		t.Errorf("deliveries %s", mustJSON(t, all))
	}
	if pending := log("?status=pending"); len(pending.Deliveries) != 0 {
		t.Errorf("pending: %s", mustJSON(t, pending))
	}
	page := log("?limit=1")
	if len(page.Deliveries) != 1 || page.Next == nil || page.Deliveries[0]["id"] != newest["id"] {
		t.Fatalf("page 1: %s", mustJSON(t, page))
	}
	if rest := log("?limit=1&after=" + *page.Next); len(rest.Deliveries) != 1 || rest.Deliveries[0]["id"] != all.Deliveries[1]["id"] {
		t.Errorf("page 2: %s", mustJSON(t, rest))
	}
	// A retry sends it again, under the same id.
	id, _ := newest["id"].(string)
	w := e.send("hooker", http.MethodPost, base+"/"+id+"/retry", "", nil)
	if w.Code != http.StatusAccepted || !strings.Contains(w.Body.String(), `"id":"`+id+`"`) {
		t.Fatalf("retry: %d %s", w.Code, w.Body)
	}
	for deadline := time.Now().Add(time.Minute); ; {
		sender.mu.Lock()
		n := 0
		for _, m := range sender.messages {
			if m.ID == id {
				n++
			}
		}
		sender.mu.Unlock()
		if n == 2 {
			break
		}
		if time.Now().After(deadline) {
			t.Fatalf("retried delivery sent %d times", n)
		}
		time.Sleep(20 * time.Millisecond)
	}
}
