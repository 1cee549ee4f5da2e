//go:build browser

package admin

import (
	"context"
	"net/http"
	"net/http/httptest"
	"slices"
	"testing"
	"time"

	"github.com/chromedp/chromedp"

	"github.com/bwcms/cms/admin/internal/browsertest"
	"github.com/bwcms/cms/cms"
)

// TestE2EHistoryWebhookAuditViews runs axe (nothing serious or
// critical) and watches for errors (CSP included) on the history,
// revision, restore, webhook and audit pages rendered from answers made
// here, as the service gives them: the pages are checked whatever the
// service's state of build (the E2E tests drive them over the service).
func TestE2EHistoryWebhookAuditViews(t *testing.T) {
	e := newEnv(t, envOptions{prefix: "/admin"})
	e.put(cms.KindMap, `{"id":"m-1","title":"Coast"}`)
	e.put(cms.KindResource, `{"id":"r-1","title":"Old harbour","title_it":"Porto vecchio","shortDescription":"Boats.","mapIds":["m-1"]}`)
	rc := e.revisionOf(cms.KindResource, "r-1", `{"id":"r-1","title":"New harbour","title_it":"Porto vecchio","shortDescription":"Boats and nets.\nAnd a long second line of the description.","mapIds":[]}`)
	ed := &editor{Handler: e.h}
	at := time.Date(2026, 11, 27, 9, 30, 0, 0, time.UTC)

	rv := &revisionView{Kind: rc.kind, ID: rc.id, Rev: 1, When: when(at), Who: "ann", Heading: "Resource r-1, revision 1",
		HistoryURL: e.h.historyURL(rc.kind, rc.id, 0), EditURL: e.h.editURL(rc.kind, rc.id), Exists: true, RestoreURL: "#restore"}
	for _, wire := range rc.comparable() {
		if d := rc.row(wire); d.Lang == "" || slices.Contains([]string{"en", "it"}, d.Lang) {
			rv.Rows = append(rv.Rows, d)
		}
	}
	rv.Differs = len(rc.differing())
	hv := &historyView{Kind: rc.kind, ID: rc.id, Heading: "History of Resource r-1", EditURL: rv.EditURL, NextURL: "#older",
		Rows: []historyRow{
			{Rev: 3, When: when(at.Add(2 * time.Hour)), Who: "bob", Deleted: true},
			{Rev: 2, URL: "#2", When: when(at.Add(time.Hour)), Who: "ann", Changed: []string{"Title (en)", "Short description"}},
			{Rev: 1, URL: "#1", When: when(at), Who: "ann", Created: true},
		}}
	admin, _ := cms.PrincipalFrom(e.acme())
	s := &session{P: admin}
	wh := cms.Webhook{ID: "wh-1", URL: "https://hooks.example.com/bwcms", Events: []string{"resource.upsert", "map.delete"}, User: "admin",
		Enabled: true, FailedInRow: 1, Created: at, Updated: at}
	row := e.h.webhookRow(wh)
	failed := cms.Delivery{ID: "msg_1", Status: cms.DeliveryFailed, Attempts: 7, LastStatus: 502, Response: "<h1>Bad gateway</h1>",
		Created: at, Finished: at, Change: cms.FeedChange{Kind: cms.KindResource, ID: "r-1", Op: cms.ChangeUpsert, Rev: 2}}
	pending := cms.Delivery{ID: "msg_2", Status: cms.DeliveryPending, Attempts: 1, LastError: "connection refused", NextAttempt: at,
		Created: at, Change: cms.FeedChange{Kind: cms.KindMap, ID: "m-1", Op: cms.ChangeDelete, Rev: 5}}
	wp := webhookPageData{Webhook: row, CanWrite: true, CanDelete: true, Secret: "whsec_MfKQ9r8GKYqrTwjUPD8ILPZIo2LaLaSw", SecretURL: "#s",
		DeleteURL: "#d", Form: webhookForm{Action: "#", Target: wh.URL, Grid: events(s, wh.Events), Enabled: true, Edit: true},
		Deliveries: []deliveryRow{e.h.deliveryRow(s, wh, failed), e.h.deliveryRow(s, wh, pending)},
		Filters:    selectOptions([][2]string{{"", "All"}, {"failed", "Failed"}}, "")}
	refused := webhookForm{Action: "#", Target: "ftp://x", Grid: events(s, nil)}
	refused.refuse("url", "must be an http or https address")
	acct := e.h.accountData(httptest.NewRequest(http.MethodGet, "/account", nil).WithContext(context.WithValue(e.acme(), sessionKey{}, s)))
	acct.Audit = auditList{NextURL: "#older", Rows: []auditRow{
		{When: when(at), Who: "admin", What: "User changed", Target: "editor", Detail: "perms resource:*, map:* -> resource:*, map:*, file:read"},
		{When: when(at.Add(-time.Hour)), Who: "admin", What: "Webhook added", Target: "wh-1", Detail: "https://hooks.example.com/bwcms"},
	}}
	pages := map[string]struct {
		name string
		data any
	}{
		"history":       {"history", hv},
		"revision":      {"revision", rv},
		"restore":       {"restore", ed.restoreData(rc)},
		"webhooks":      {"webhooks", webhooksPage{Webhooks: []webhookRow{row}, New: "#new"}},
		"webhook":       {"webhook", wp},
		"webhook-added": {"webhook-new", newWebhookPage{Created: &row, Secret: wp.Secret}},
		"webhook-error": {"webhook-new", newWebhookPage{Form: refused}},
		"webhook-del":   {"webhook-delete", row},
		"account":       {"account", acct},
	}
	mux := http.NewServeMux()
	mux.Handle("/admin/static/", e.h)
	mux.HandleFunc("/admin/view/{page}", func(w http.ResponseWriter, r *http.Request) {
		p, ok := pages[r.PathValue("page")]
		if !ok {
			http.NotFound(w, r)
			return
		}
		e.h.render(w, r, http.StatusOK, p.name, &view{Title: p.name, Session: s, Page: p.data})
	})
	srv := httptest.NewServer(mux)
	t.Cleanup(srv.Close)

	// The screenshots docs/admin.md shows, cut to what a reader needs.
	shotHeight := map[string]int{"history": 0, "revision": 700, "restore": 0, "webhook-added": 0, "webhook": 1100, "account": 0}
	b := browsertest.New(t)
	x := e2eNewTab(t, e, b)
	for _, name := range []string{"history", "revision", "restore", "webhooks", "webhook", "webhook-added", "webhook-error", "webhook-del", "account"} {
		if got := x.load("GET "+name, chromedp.Navigate(srv.URL+"/admin/view/"+name)); got != 200 {
			t.Fatalf("%s: status %d", name, got)
		}
		x.audit()
		if height, ok := shotHeight[name]; ok {
			x.shot(name, height)
		}
	}
	// By keyboard, every control shows its focus on the way to the
	// buttons of the restore and of a webhook's form.
	x.load("GET restore", chromedp.Navigate(srv.URL+"/admin/view/restore"))
	x.tabTo("form.restore button[type=submit]", 40)
	x.load("GET webhook", chromedp.Navigate(srv.URL+"/admin/view/webhook"))
	x.tabTo("form.webhook-form button[type=submit]", 60)
	// The Copy button of a secret is the script's.
	x.load("GET webhook-added", chromedp.Navigate(srv.URL+"/admin/view/webhook-added"))
	if err := x.poll(`!document.querySelector("button.copy-url").hidden`); err != nil {
		t.Errorf("the Copy button is not shown: %v", err)
	}
	x.clean()
}
