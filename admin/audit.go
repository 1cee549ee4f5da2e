package admin

import (
	"net/http"
	"strconv"

	"github.com/bwcms/cms/cms"
)

// The account page's audit list (DECISIONS §18): changes to users,
// permissions, languages and webhooks, newest first, paged with
// ?before=, for users with user:read (the account page's own right).

// auditPageSize is the entries of one page of the audit list.
const auditPageSize = 50

// auditList is the data of the audit section.
type auditList struct {
	Rows []auditRow
	// Failed says the list could not be read; the rest of the page
	// stands.
	Failed   string
	NextURL  string // older entries; "" on the last page
	FirstURL string // the newest entries, when this is not their page
}

type auditRow struct {
	When   string
	Who    string
	What   string
	Target string
	Detail string
}

// auditActions name the audit's actions for people.
var auditActions = map[string]string{
	"user.create":      "User added",
	"user.update":      "User changed",
	"user.delete":      "User deleted",
	"user.password":    "Password changed",
	"user.disable":     "User disabled",
	"user.enable":      "User enabled",
	"language.add":     "Language added",
	"language.default": "Default language changed",
	"webhook.create":   "Webhook added",
	"webhook.update":   "Webhook changed",
	"webhook.delete":   "Webhook deleted",
	"webhook.disable":  "Webhook disabled",
}

// auditList reads the page of the audit list the request asks for
// (?before=). A failure is said in the section: the languages above it
// stay usable.
func (h *Handler) auditList(r *http.Request) auditList {
	var before int64
	if b := r.URL.Query().Get("before"); b != "" {
		n, err := strconv.ParseInt(b, 10, 64)
		if err != nil || n < 1 {
			return auditList{Failed: "This page of the audit list does not exist.", FirstURL: h.url("/account") + "#h-audit"}
		}
		before = n
	}
	page, err := h.svc.Audit(r.Context(), cms.AuditParams{Before: before, Limit: auditPageSize})
	if err != nil {
		status, text := errorText(err)
		if status >= 500 {
			h.log.Error("admin: audit list", "err", err)
		}
		return auditList{Failed: "The audit list cannot be shown: " + text}
	}
	var out auditList
	for _, e := range page.Entries {
		what := auditActions[e.Action]
		if what == "" {
			what = e.Action
		}
		by := e.User
		if by == "" {
			by = "the server (an operator's command)"
		}
		out.Rows = append(out.Rows, auditRow{When: when(e.Time), Who: by, What: what, Target: e.Target, Detail: e.Detail})
	}
	if page.Next > 0 {
		out.NextURL = h.url("/account") + "?before=" + strconv.FormatInt(page.Next, 10) + "#h-audit"
	}
	if before > 0 {
		out.FirstURL = h.url("/account") + "#h-audit"
	}
	return out
}
