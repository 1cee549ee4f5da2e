//go:build browser

package admin

import (
	"strings"
	"testing"

	"github.com/bwcms/cms/admin/internal/browsertest"
	"github.com/bwcms/cms/cms"
)

// TestE2ERestoreARevision: an editor saves a Resource twice, opens its
// history, views the first revision beside now (the title marked as
// different), restores it by keyboard after seeing what it changes; the
// record has the old title again and a new revision records it. Every
// page passes axe.
func TestE2ERestoreARevision(t *testing.T) {
	e := newEnv(t, envOptions{prefix: "/admin"})
	e.put(cms.KindResource, `{"id":"r-1","title":"Old harbour","title_it":"Porto vecchio","shortDescription":"Boats and nets."}`)
	b := browsertest.New(t)
	x := e2eEditor(t, e, b, "editor")
	path := editPath(cms.KindResource, "r-1")
	for _, title := range []string{"Harbour", "New harbour"} {
		e.clock.Advance(1e9)
		x.open(path, 200)
		x.fill(e2eCtl("title"), title)
		x.saved(x.click(`.form-bar button[name="_action"][value="save"]`), "save "+title)
	}

	if got := x.click("a.history-link"); got != 200 {
		t.Fatalf("History: status %d", got)
	}
	if got := x.count("table.history tbody tr"); got != 3 {
		t.Fatalf("%d revisions listed, want 3: %q", got, x.mainText())
	}
	if got := x.text("table.history tbody tr td"); !strings.HasSuffix(got, "UTC") {
		t.Errorf("when %q", got)
	}
	x.audit()

	if got := x.click(`table.history a[href$="/history/1"]`); got != 200 {
		t.Fatalf("revision 1: status %d", got)
	}
	if x.count(`tr.differs[data-field="title"]`) != 1 || x.text(`tr[data-field="title"] [data-side="then"]`) != "Old harbour" ||
		x.text(`tr[data-field="title"] [data-side="now"]`) != "New harbour" {
		t.Errorf("the title is not shown beside now: %q", x.text(`tr[data-field="title"]`))
	}
	if x.count(`tr.differs[data-field="shortDescription"]`) != 0 {
		t.Error("a field that did not change is marked")
	}
	x.audit()

	// By keyboard: Tab to Restore, Enter; then to the button, Enter.
	x.tabTo(`a[href$="/history/1/restore"]`, 40)
	if got := x.enter("Restore this revision…"); got != 200 {
		t.Fatalf("restore confirmation: status %d", got)
	}
	if got := x.text(`form.restore tbody th`); got != "Title (en)" {
		t.Errorf("the confirmation lists %q first, want the title", got)
	}
	x.audit()
	e.clock.Advance(1e9)
	x.tabTo(`form.restore button[type=submit]`, 40)
	if got := x.enter("Restore revision 1"); got != 200 {
		t.Fatalf("restore: status %d; the page says %q", got, x.mainText())
	}
	if got := x.text(".notice.ok"); !strings.HasPrefix(got, "Restored revision 1") {
		t.Errorf("notice %q", got)
	}
	if got := x.value(e2eCtl("title")); got != "Old harbour" {
		t.Errorf("the form shows %q", got)
	}
	x.clean()
	if got := e.stored(cms.KindResource, "r-1")["title"]; got != "Old harbour" {
		t.Errorf("stored title %v after the restore", got)
	}
	h, err := e.svc.History(e.acme(), cms.KindResource, "r-1", cms.HistoryParams{})
	if err != nil {
		t.Fatal(err)
	}
	if len(h.Revisions) != 4 || h.Revisions[0].User != "editor" {
		t.Errorf("history after the restore: %+v", h.Revisions)
	}
}

// TestE2EWebhookSecretShownOnce: a webhook added through the form shows
// its secret once, with a Copy button (the script's); its page never
// shows it again. The list, the form, the answer and the page pass axe.
func TestE2EWebhookSecretShownOnce(t *testing.T) {
	e := newEnv(t, envOptions{prefix: "/admin"})
	b := browsertest.New(t)
	x := e2eEditor(t, e, b, "admin")
	x.open("/webhooks/", 200)
	x.audit()
	if got := x.click(`a[href$="/webhooks/new"]`); got != 200 {
		t.Fatalf("Add a webhook: status %d", got)
	}
	x.audit()
	x.fill("#url", "https://hooks.example.com/bwcms")
	x.tap("#ev-all")
	x.tap("#ev-resource-upsert")
	x.tap("#ev-map-delete")
	if got := x.click(`form.webhook-form button[type=submit]`); got != 201 {
		t.Fatalf("add: status %d; the page says %q", got, x.mainText())
	}
	secret := x.value("#webhook-secret")
	if !strings.HasPrefix(secret, "whsec_") {
		t.Fatalf("secret shown %q", secret)
	}
	if err := x.poll(`!document.querySelector("button.copy-url").hidden`); err != nil {
		t.Errorf("the Copy button is not shown: %v", err)
	}
	x.audit()

	if got := x.click("a.webhook-open"); got != 200 {
		t.Fatalf("open the webhook: status %d", got)
	}
	if strings.Contains(x.mainText(), secret) {
		t.Error("the webhook's page shows the secret again")
	}
	x.audit()
	x.open("/webhooks/", 200)
	if strings.Contains(x.mainText(), secret) {
		t.Error("the list shows the secret")
	}
}

// TestE2EAuditShowsTheUserChange: a change of a user's permissions shows
// first in the account page's audit list, which passes axe.
func TestE2EAuditShowsTheUserChange(t *testing.T) {
	e := newEnv(t, envOptions{prefix: "/admin"})
	b := browsertest.New(t)
	x := e2eEditor(t, e, b, "admin")
	x.open("/users/editor", 200)
	x.tap(`input[name="perm"][value="file:read"]`)
	if got := x.click(`form[action$="/perms"] button[type=submit]`); got != 200 {
		t.Fatalf("save permissions: status %d; %q", got, x.mainText())
	}
	x.open("/account", 200)
	if got := x.text("table.audit tbody tr td:nth-child(3)"); got != "User changed editor" {
		t.Errorf("newest audit entry %q; the page says %q", got, x.mainText())
	}
	if got := x.text("table.audit tbody tr td:nth-child(2)"); got != "admin" {
		t.Errorf("who %q", got)
	}
	x.audit()
}
