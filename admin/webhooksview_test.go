package admin

import (
	"slices"
	"testing"
	"time"

	"github.com/PuerkitoBio/goquery"

	"github.com/bwcms/cms/cms"
)

func TestFormEvents(t *testing.T) {
	t.Parallel()
	for _, c := range []struct{ in, want []string }{
		{[]string{"resource.upsert", "*"}, []string{"*"}},
		{[]string{"map.delete", "map.delete", "", "resource.upsert"}, []string{"map.delete", "resource.upsert"}},
		{nil, []string{}},
	} {
		if got := formEvents(c.in); !slices.Equal(got, c.want) {
			t.Errorf("formEvents(%v) = %v, want %v", c.in, got, c.want)
		}
	}
}

func TestWebhookProblemsByField(t *testing.T) {
	t.Parallel()
	err := &cms.Error{Code: cms.CodeInvalid, Message: "Invalid", Problems: []cms.Problem{
		{Field: "url", Text: "must be http or https"}, {Field: "events[1]", Text: "unknown event"}}}
	got := webhookProblems(err)
	if got["url"] != "must be http or https" || got["events"] != "unknown event" {
		t.Errorf("problems %v", got)
	}
	if got := webhookProblems(&cms.Error{Code: cms.CodeInvalid, Message: "url is refused"}); got["url"] != "url is refused" {
		t.Errorf("a refusal without problems %v", got)
	}
}

func TestWebhookViews(t *testing.T) {
	t.Parallel()
	e := newEnv(t, envOptions{prefix: "/admin"})
	s := &session{P: cms.Principal{Account: "acme", User: "editor", Perms: []string{"resource:*", "webhook:*"}}}
	at := time.Date(2026, 11, 27, 9, 30, 0, 0, time.UTC)
	wh := cms.Webhook{ID: "wh-1", URL: "https://example.com/<hook>", Events: []string{"resource.upsert"}, User: "editor",
		Disabled: "5 failed deliveries in a row", FailedInRow: 5, Created: at, Updated: at}
	row := e.h.webhookRow(wh)
	if row.Status != "Disabled: 5 failed deliveries in a row" {
		t.Errorf("status %q", row.Status)
	}
	doc := e.renderAs("admin", "webhooks", "Webhooks", webhooksPage{Webhooks: []webhookRow{row}, New: "/admin/webhooks/new"})
	tr := doc.Find("table.webhooks tbody tr")
	if text(tr.Find("th a")) != "https://example.com/<hook>" || text(tr.Find(".badge.off")) != row.Status || text(tr.Find("td").Eq(2)) != "5" {
		t.Errorf("list row: %s", text(tr))
	}

	// The grid: kinds the user may not read cannot be ticked.
	g := events(s, wh.Events)
	if g.All || !g.Rows[0].Boxes[0].Checked || !g.Rows[0].Boxes[0].Enabled || g.Rows[1].Boxes[0].Enabled {
		t.Errorf("grid %+v", g)
	}

	d := cms.Delivery{ID: "msg_1", WebhookID: "wh-1", Status: cms.DeliveryFailed, Attempts: 7, LastStatus: 502,
		Response: "<h1>Bad gateway</h1>", Created: at, Finished: at,
		Change: cms.FeedChange{Kind: cms.KindResource, ID: "r-1", Op: cms.ChangeUpsert, Rev: 4}}
	dr := e.h.deliveryRow(s, wh, d)
	if dr.Change != "resource r-1 upsert (revision 4)" || dr.Last != "HTTP 502 Bad Gateway" || dr.RetryLabel != "Retry" {
		t.Errorf("delivery row %+v", dr)
	}
	pending := e.h.deliveryRow(s, wh, cms.Delivery{ID: "msg_2", Status: cms.DeliveryPending, LastError: "connection refused", Attempts: 1, NextAttempt: at})
	if pending.RetryURL != "" || pending.Last != "connection refused" || pending.NextTry == "" {
		t.Errorf("pending row %+v", pending)
	}
	page := webhookPageData{Webhook: row, CanWrite: true, CanDelete: true, Secret: "whsec_abc", SecretURL: "/s", DeleteURL: "/d",
		Form:       webhookForm{Action: "/w", Target: wh.URL, Grid: g, Edit: true},
		Deliveries: []deliveryRow{dr, pending}, Filters: selectOptions([][2]string{{"", "All"}}, "")}
	doc = e.renderAs("admin", "webhook", "Webhook", page)
	if doc.Find("input#webhook-secret").AttrOr("value", "") != "whsec_abc" || doc.Find(`button.copy-url[data-copy="webhook-secret"]`).Length() != 1 {
		t.Error("the new secret or its Copy button is missing")
	}
	if doc.Find(`script[src*="js/copy."]`).Length() != 1 {
		t.Error("the copy script is not loaded")
	}
	resp := doc.Find(`tr[data-delivery="msg_1"] pre.response`)
	if resp.Text() != "<h1>Bad gateway</h1>" || resp.Find("h1").Length() != 0 {
		t.Errorf("the response is not text: %q", resp.Text())
	}
	if got := text(doc.Find(`tr[data-delivery="msg_1"] form button`)); got != "Retry delivery msg_1" {
		t.Errorf("retry button %q", got)
	}
	if doc.Find(`tr[data-delivery="msg_2"] form`).Length() != 0 {
		t.Error("a pending delivery offers Retry")
	}
	if doc.Find(`input[name="event"][value="map.upsert"][disabled]`).Length() != 1 {
		t.Error("a kind the user may not read can be ticked")
	}
	// Every control has its label.
	doc.Find("form.webhook-form input[id], form.webhook-form select[id]").Each(func(_ int, in *goquery.Selection) {
		if doc.Find(`label[for="`+in.AttrOr("id", "")+`"]`).Length() != 1 {
			t.Errorf("control %s has no label", in.AttrOr("id", ""))
		}
	})

	// The add form refused: the errors beside their fields and linked.
	f := webhookForm{Action: "/n", Target: "ftp://x", Grid: events(s, nil)}
	f.refuse("url", "must be http or https")
	f.refuse("events", noEvents)
	doc = e.renderAs("admin", "webhook-new", "Error", newWebhookPage{Form: f})
	if text(doc.Find("#url-error")) != "Error: must be http or https" || doc.Find(`input#url[aria-invalid="true"]`).AttrOr("value", "") != "ftp://x" {
		t.Errorf("url error: %s", text(doc.Find("form")))
	}
	if got := attrs(doc.Find(".error-summary a"), "href"); !slices.Equal(got, []string{"#url", "#ev-all"}) {
		t.Errorf("summary links %v", got)
	}
	doc = e.renderAs("admin", "webhook-delete", "Delete", row)
	if got := doc.Find("form.confirm").AttrOr("action", ""); got != row.URL+"/delete" {
		t.Errorf("delete form posts to %q", got)
	}
}

func attrs(s *goquery.Selection, name string) []string {
	var out []string
	s.Each(func(_ int, x *goquery.Selection) { out = append(out, x.AttrOr(name, "")) })
	return out
}

func TestAccountAuditView(t *testing.T) {
	t.Parallel()
	e := newEnv(t, envOptions{prefix: "/admin"})
	page := accountPageData{Account: "acme", Audit: auditList{NextURL: "/admin/account?before=9#h-audit", Rows: []auditRow{
		{When: "2026-11-27 09:30 UTC", Who: "admin", What: "User changed", Target: "ann", Detail: "perms resource:* -> *"},
	}}}
	doc := e.renderAs("admin", "account", "Account", page)
	tr := doc.Find("table.audit tbody tr")
	if got := texts(tr.Find("td")); !slices.Equal(got, []string{"2026-11-27 09:30 UTC", "admin", "User changed ann", "perms resource:* -> *"}) {
		t.Errorf("audit row %v", got)
	}
	if doc.Find(`nav.pager a[rel="next"]`).AttrOr("href", "") != "/admin/account?before=9#h-audit" {
		t.Error("no link to older entries")
	}
	doc = e.renderAs("admin", "account", "Account", accountPageData{Account: "acme", Audit: auditList{Failed: "The audit list cannot be shown: x"}})
	if got := text(doc.Find("section .notice.warn")); got != "The audit list cannot be shown: x" {
		t.Errorf("a failed audit list says %q", got)
	}
	if doc.Find("table.langs").Length() != 1 {
		t.Error("the languages are gone with the audit list")
	}
}
