package admin

import (
	"bytes"
	"errors"
	"fmt"
	"html/template"
	"io/fs"
	"net/http"
	"path"
	"strings"

	"github.com/bwcms/cms/cms"
)

// pages are the parsed templates, one set per page: the layout, the
// partials and the page's own file, which defines "content".
type pages struct {
	byName map[string]*template.Template
}

func parsePages(funcs template.FuncMap) (*pages, error) {
	shared, err := fs.Glob(embedded, "templates/partials/*.tmpl")
	if err != nil {
		return nil, err
	}
	files, err := fs.Glob(embedded, "templates/*.tmpl")
	if err != nil {
		return nil, err
	}
	ps := &pages{byName: map[string]*template.Template{}}
	for _, f := range files {
		name := strings.TrimSuffix(path.Base(f), ".tmpl")
		if name == "layout" {
			continue
		}
		all := append([]string{"templates/layout.tmpl"}, shared...)
		all = append(all, f)
		t, err := template.New("layout.tmpl").Funcs(funcs).ParseFS(embedded, all...)
		if err != nil {
			return nil, fmt.Errorf("admin: template %s: %w", name, err)
		}
		ps.byName[name] = t
	}
	return ps, nil
}

func (h *Handler) templateFuncs() template.FuncMap {
	return template.FuncMap{
		"url":   h.url,
		"asset": h.link,
		"tiles": func() Tiles { return h.tiles },
		"kindLabel": func(k cms.Kind) string {
			return kindLabels[k].plural
		},
		"kindOne": func(k cms.Kind) string {
			return kindLabels[k].one
		},
	}
}

// kindLabels name the kinds for people.
var kindLabels = map[cms.Kind]struct{ one, plural string }{
	cms.KindResource: {"Resource", "Resources"},
	cms.KindMap:      {"Map", "Maps"},
	cms.KindLanding:  {"Landing", "Landings"},
	cms.KindProposal: {"Proposal", "Proposals"},
}

// view is what every page's template gets: the layout's data and the
// page's own in Page.
type view struct {
	Title string
	// Session is the signed-in user; nil on the sign-in and error pages
	// of a visitor.
	Session *session
	Nav     []navLink
	// Section is the Nav entry the page belongs to.
	Section string
	Page    any
}

type navLink struct {
	Label, URL, Section string
}

// nav is the menu of what s may see.
func (h *Handler) nav(s *session) []navLink {
	if s == nil {
		return nil
	}
	var links []navLink
	for _, k := range cms.Kinds() {
		if s.P.Can(k, cms.ActionRead) {
			links = append(links, navLink{kindLabels[k].plural, h.url("/" + string(k) + "/"), string(k)})
		}
	}
	if s.P.Can(cms.AreaFile, cms.ActionRead) {
		links = append(links, navLink{"Files", h.url("/file/"), "file"})
	}
	if len(importKinds(s)) > 0 {
		links = append(links, navLink{"Import", h.url("/import"), "import"})
	}
	if s.P.Can(cms.AreaWebhook, cms.ActionRead) {
		links = append(links, navLink{"Webhooks", h.url("/webhooks/"), "webhooks"})
	}
	if s.P.Can(cms.AreaUser, cms.ActionRead) {
		links = append(links, navLink{"Users", h.url("/users/"), "users"}, navLink{"Account", h.url("/account"), "account"})
	}
	return links
}

// render writes page name with status. The page is rendered into a buffer
// first so that a template failure is a 500, not half a page.
func (h *Handler) render(w http.ResponseWriter, r *http.Request, status int, name string, v *view) {
	t, ok := h.pages.byName[name]
	if !ok {
		h.log.Error("admin: no template", "page", name)
		http.Error(w, "Internal Server Error", http.StatusInternalServerError)
		return
	}
	if v.Nav == nil {
		v.Nav = h.nav(v.Session)
	}
	var buf bytes.Buffer
	if err := t.ExecuteTemplate(&buf, "layout.tmpl", v); err != nil {
		h.log.Error("admin: render", "page", name, "err", err)
		http.Error(w, "Internal Server Error", http.StatusInternalServerError)
		return
	}
	h.setPageHeaders(w, r)
	w.WriteHeader(status)
	_, _ = w.Write(buf.Bytes())
}

// errorPage is the data of the error page.
type errorPage struct {
	Status  int
	Message string
}

// renderError answers a page with a message for people, or {"fail":...}
// to a script. The signed-in user, when there is one, keeps the menu.
func (h *Handler) renderError(w http.ResponseWriter, r *http.Request, status int, message string) {
	if wantsJSON(r) {
		// A script's request (the id picker): the same text, as JSON.
		writeListJSON(w, status, struct {
			Fail string `json:"fail"`
		}{message})
		return
	}
	s, _ := sessionFrom(r)
	h.render(w, r, status, "error", &view{Title: http.StatusText(status), Session: s, Page: errorPage{status, message}})
}

// fail answers err of the service as a page: its status as the API would
// give it and a text that names no internals.
func (h *Handler) fail(w http.ResponseWriter, r *http.Request, err error) {
	status, message := errorText(err)
	if status >= 500 {
		h.log.Error("admin: request failed", "method", r.Method, "path", r.URL.Path, "err", err)
	}
	if status == http.StatusServiceUnavailable {
		w.Header().Set("Retry-After", "5")
	}
	h.renderError(w, r, status, message)
}

// errorText is the status and the message for people of a service error.
// Messages of the service are safe to show (the API sends them too).
func errorText(err error) (int, string) {
	msg := ""
	if e, ok := errors.AsType[*cms.Error](err); ok {
		msg = e.Message
	}
	switch cms.ErrorCode(err) {
	case cms.CodeNotFound:
		return http.StatusNotFound, "There is no such record in your account."
	case cms.CodeForbidden:
		return http.StatusForbidden, "Your permissions do not allow this."
	case cms.CodeUnauthorized:
		return http.StatusUnauthorized, "Your session has ended. Sign in again."
	case cms.CodeMalformed:
		return http.StatusBadRequest, "The request was not understood: " + msg
	case cms.CodeInvalid, cms.CodeConflict:
		return http.StatusConflict, msg
	case cms.CodeTooLarge:
		return http.StatusRequestEntityTooLarge, msg
	case cms.CodePrecondition:
		return http.StatusPreconditionFailed, "Someone else changed this meanwhile."
	case cms.CodeTooMany:
		return http.StatusTooManyRequests, "Too many attempts. Wait a moment and try again."
	case cms.CodeUnavailable:
		return http.StatusServiceUnavailable, "The database cannot be reached right now. Try again in a moment."
	}
	return http.StatusInternalServerError, "Something went wrong on the server. Try again; if it persists, tell the site's administrator."
}
