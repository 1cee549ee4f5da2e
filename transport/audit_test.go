package transport

import (
	"encoding/json"
	"net/http"
	"strconv"
	"strings"
	"testing"
)

// auditAnswer is the body of GET audit.
type auditAnswer struct {
	Entries []struct {
		ID     int64  `json:"id"`
		Time   string `json:"time"`
		User   string `json:"user"`
		Action string `json:"action"`
		Target string `json:"target"`
		Detail string `json:"detail"`
	} `json:"entries"`
	Next *int64 `json:"next"`
}

func (e *env) auditList(user, query string) auditAnswer {
	e.t.Helper()
	w := e.send(user, http.MethodGet, "/api/bw/v2/audit"+query, "", nil)
	var a auditAnswer
	if w.Code != http.StatusOK || json.Unmarshal(w.Body.Bytes(), &a) != nil {
		e.t.Fatalf("audit%s: %d %s", query, w.Code, w.Body)
	}
	return a
}

// The audit list through the API: webhooks made, changed and deleted are
// listed newest first with who did it, never a secret; pages follow next;
// another account's entries are never shown; refusals are 401, 403, 400.
func TestAudit(t *testing.T) {
	t.Parallel()
	forEachStoreWith(t, envOptions{}, func(t *testing.T, e *env) {
		made, _ := e.webhook("admin", http.MethodPost, "/api/bw/v2/webhook", `{"url":"https://hooks.example.com/cms"}`, 201)
		e.webhook("admin", http.MethodPost, "/api/bw/v2/webhook/"+made.ID, `{"enabled":false}`, 200)
		runFlow(t, e, []step{{user: "admin", method: http.MethodDelete, path: "/api/bw/v2/webhook/" + made.ID, status: 202}})

		a := e.auditList("admin", "")
		var actions []string
		for _, en := range a.Entries {
			if en.Target == made.ID {
				actions = append(actions, en.Action+" by "+en.User)
			}
			if strings.Contains(en.Detail, "whsec_") || made.Secret != "" && strings.Contains(en.Detail, made.Secret) {
				t.Errorf("an entry shows a secret: %+v", en)
			}
			if en.Time == "" {
				t.Errorf("no time: %+v", en)
			}
		}
		want := "webhook.delete by admin|webhook.update by admin|webhook.create by admin"
		if got := strings.Join(actions, "|"); got != want {
			t.Fatalf("entries of the webhook %q, want %q (all: %+v)", got, want, a)
		}
		for i := 1; i < len(a.Entries); i++ {
			if a.Entries[i].ID >= a.Entries[i-1].ID {
				t.Errorf("not newest first: %+v", a.Entries)
			}
		}
		// Paging by next: the same entries, one at a time.
		var walked []int64
		query := "?limit=1"
		for range len(a.Entries) + 1 {
			p := e.auditList("admin", query)
			for _, en := range p.Entries {
				walked = append(walked, en.ID)
			}
			if p.Next == nil {
				break
			}
			query = "?limit=1&before=" + strconv.FormatInt(*p.Next, 10)
		}
		if len(walked) != len(a.Entries) {
			t.Errorf("walked %v of %d entries", walked, len(a.Entries))
		}
		for _, en := range e.auditList("otto", "").Entries {
			if en.Target == made.ID {
				t.Errorf("another account sees %+v", en)
			}
		}
		for _, s := range []step{
			{name: "POST", user: "admin", method: http.MethodPost, path: "/api/bw/v2/audit", status: 405},
			{name: "no token", method: http.MethodGet, path: "/api/bw/v2/audit", status: 401},
			{name: "records only", user: "writer", method: http.MethodGet, path: "/api/bw/v2/audit", status: 403, want: `{"fail":"Forbidden"}`},
			{name: "forbidden before malformed", user: "reader", method: http.MethodGet, path: "/api/bw/v2/audit?limit=0", status: 403},
			{name: "limit 0", user: "admin", method: http.MethodGet, path: "/api/bw/v2/audit?limit=0", status: 400, want: `{"fail":"Wrong request"}`},
			{name: "before 0", user: "admin", method: http.MethodGet, path: "/api/bw/v2/audit?before=0", status: 400},
			{name: "before twice", user: "admin", method: http.MethodGet, path: "/api/bw/v2/audit?before=3&before=4", status: 400},
		} {
			w := e.send(s.user, s.method, s.path, "", nil)
			if w.Code != s.status || s.want != "" && strings.TrimSpace(w.Body.String()) != s.want {
				t.Errorf("%s: %d %s, want %d %s", s.name, w.Code, w.Body, s.status, s.want)
			}
		}
	})
}
