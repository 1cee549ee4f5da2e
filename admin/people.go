package admin

import (
	"errors"
	"net/http"
	"net/url"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/bwcms/cms/cms"
)

// The account's users (<prefix>/users/) and the account's languages
// (<prefix>/account), for users with the "user" permission. Every change
// goes through the service's caller-checked methods (cms/people.go), which
// refuse what the pages hide anyway.

// peopleRoutes registers the users of the account and the account page.
func (h *Handler) peopleRoutes(mux *http.ServeMux) {
	mux.HandleFunc("GET /users", func(w http.ResponseWriter, r *http.Request) {
		http.Redirect(w, r, h.url("/users/"), http.StatusMovedPermanently)
	})
	mux.HandleFunc("GET /users/{$}", h.signedIn(h.users))
	mux.HandleFunc("GET /users/new", h.signedIn(h.newUserForm))
	mux.HandleFunc("POST /users/new", h.signedIn(h.createUser))
	mux.HandleFunc("GET /users/{name}", h.signedIn(h.userPage))
	mux.HandleFunc("POST /users/{name}/perms", h.signedIn(h.setUserPerms))
	mux.HandleFunc("POST /users/{name}/password", h.signedIn(h.resetUserPassword))
	mux.HandleFunc("POST /users/{name}/disabled", h.signedIn(h.setUserDisabled))
	mux.HandleFunc("GET /users/{name}/delete", h.signedIn(h.confirmDeleteUser))
	mux.HandleFunc("POST /users/{name}/delete", h.signedIn(h.deleteUser))
	mux.HandleFunc("GET /account", h.signedIn(h.accountPage))
	mux.HandleFunc("POST /account/languages", h.signedIn(h.addLanguage))
	mux.HandleFunc("POST /account/default", h.signedIn(h.setDefaultLanguage))
}

// userPath is the address of a user's page. A name that cannot be a path
// segment of its own ("new" is the form, "." and ".." are cleaned away)
// is written with a "~" first, which no username has.
func userPath(name string) string {
	if name == "new" || name == "." || name == ".." {
		name = "~" + name
	}
	return "/users/" + name
}

// userName is the username of a userPath.
func userName(r *http.Request) string {
	return strings.TrimPrefix(r.PathValue("name"), "~")
}

// permTarget is a row of the permission grid.
type permTarget struct {
	T     cms.Target
	Name  string // "resource", "file"
	Label string // "Resources"
}

func permTargets() []permTarget {
	var ts []permTarget
	for _, k := range cms.Kinds() {
		ts = append(ts, permTarget{k, string(k), kindLabels[k].plural})
	}
	return append(ts, permTarget{cms.AreaFile, "file", "Files"}, permTarget{cms.AreaWebhook, "webhook", "Webhooks"},
		permTarget{cms.AreaUser, "user", "Users"})
}

var permActions = []cms.Action{cms.ActionRead, cms.ActionWrite, cms.ActionDelete}

// allows is the grid of what perms allow, by "<target>:<action>".
func allows(perms []string) map[string]bool {
	m := map[string]bool{}
	for _, t := range permTargets() {
		for _, a := range permActions {
			if cms.Allowed(perms, t.T, a) {
				m[t.Name+":"+string(a)] = true
			}
		}
	}
	return m
}

// everything reports whether a grid has every box.
func everything(grid map[string]bool) bool {
	return len(grid) == len(permTargets())*len(permActions)
}

// permsText says in words what perms allow, one line a target.
func permsText(perms []string) []string {
	grid := allows(perms)
	if everything(grid) {
		return []string{"Everything"}
	}
	var lines []string
	for _, t := range permTargets() {
		var acts []string
		for _, a := range permActions {
			if grid[t.Name+":"+string(a)] {
				acts = append(acts, string(a))
			}
		}
		if len(acts) > 0 {
			lines = append(lines, t.Label+": "+strings.Join(acts, ", "))
		}
	}
	if len(lines) == 0 {
		return []string{"No permissions"}
	}
	return lines
}

// formPerms are the permissions a grid form sent, written short: "*"
// for everything, "*:<action>" when every kind and files have it,
// "<target>:*" for a row of three. A value the grid does not have (a
// forged form) is passed on as sent, for the service to refuse.
func formPerms(values []string) []string {
	if slices.Contains(values, "*") {
		return []string{"*"}
	}
	known := allows([]string{"*"})
	grid := map[string]bool{}
	for _, v := range values {
		if !known[v] {
			return values
		}
		grid[v] = true
	}
	if everything(grid) {
		return []string{"*"}
	}
	perms := []string{}
	// "*:<action>" covers the kinds and files, never webhooks or users.
	byAny := map[cms.Action]bool{}
	for _, a := range permActions {
		byAny[a] = true
		for _, t := range permTargets() {
			if t.T != cms.AreaWebhook && t.T != cms.AreaUser && !grid[t.Name+":"+string(a)] {
				byAny[a] = false
			}
		}
	}
	if byAny[cms.ActionRead] && byAny[cms.ActionWrite] && byAny[cms.ActionDelete] {
		perms = append(perms, "*:*")
	} else {
		for _, a := range permActions {
			if byAny[a] {
				perms = append(perms, "*:"+string(a))
			}
		}
	}
	for _, t := range permTargets() {
		covered := t.T != cms.AreaWebhook && t.T != cms.AreaUser
		var acts []string
		for _, a := range permActions {
			if grid[t.Name+":"+string(a)] && !(covered && byAny[a]) {
				acts = append(acts, string(a))
			}
		}
		switch {
		case len(acts) == len(permActions):
			perms = append(perms, t.Name+":*")
		default:
			for _, a := range acts {
				perms = append(perms, t.Name+":"+a)
			}
		}
	}
	return perms
}

// permGrid is the permission form: a row a target, a box an action.
type permGrid struct {
	All  permBox
	Rows []permRow
	// First is the id of the first box the user may change, for the
	// error summary's link.
	First string
	// Error is the refusal of the permissions sent.
	Error string
}

type permRow struct {
	Label string
	Boxes []permBox
}

type permBox struct {
	ID, Value, Label string
	Checked, Enabled bool
}

// grid is the form of perms (checked) for a caller holding mine
// (enabled: what the caller may grant).
func grid(perms, mine []string) permGrid {
	has, can := allows(perms), allows(mine)
	g := permGrid{All: permBox{ID: "perm-all", Value: "*", Label: "Everything (*)",
		Checked: everything(has), Enabled: everything(can)}}
	if g.All.Enabled {
		g.First = g.All.ID
	}
	for _, t := range permTargets() {
		row := permRow{Label: t.Label}
		for _, a := range permActions {
			v := t.Name + ":" + string(a)
			b := permBox{ID: "perm-" + t.Name + "-" + string(a), Value: v, Label: t.Label + ": " + string(a),
				Checked: has[v], Enabled: can[v]}
			if b.Enabled && g.First == "" {
				g.First = b.ID
			}
			row.Boxes = append(row.Boxes, b)
		}
		g.Rows = append(g.Rows, row)
	}
	return g
}

// lacking lists the boxes of perms that mine lack: a user holding any is
// above the caller, who cannot change them.
func lacking(perms, mine []string) []string {
	has, can := allows(perms), allows(mine)
	var out []string
	for _, t := range permTargets() {
		for _, a := range permActions {
			if v := t.Name + ":" + string(a); has[v] && !can[v] {
				out = append(out, v)
			}
		}
	}
	return out
}

// formError is a problem of a form: shown in the summary at the top,
// linking to the field, and beside the field.
type formError struct {
	Field string // the id the summary links to
	Text  string
}

// userRow is a user in the list and on its page.
type userRow struct {
	Name      string
	URL       string
	Perms     []string
	PermsText []string
	Disabled  bool
	Created   string
}

func (h *Handler) userRow(u cms.UserInfo) userRow {
	return userRow{Name: u.Name, URL: h.url(userPath(u.Name)), Perms: u.Perms, PermsText: permsText(u.Perms),
		Disabled: u.Disabled, Created: when(u.Created)}
}

// when is a time for the pages, in UTC; "unknown" for none.
func when(t time.Time) string {
	if t.IsZero() {
		return "unknown"
	}
	return t.UTC().Format("2006-01-02 15:04 UTC")
}

// serviceText is what a refusal of the service says, for a form: the
// service's own message (safe to show, the API sends it) when it has
// one worth more than its code.
func serviceText(err error) string {
	if e, ok := errors.AsType[*cms.Error](err); ok && e.Message != "" && e.Message != "Forbidden" {
		switch e.Code {
		case cms.CodeInvalid, cms.CodeConflict, cms.CodeForbidden:
			return e.Message
		}
	}
	_, text := errorText(err)
	return text
}

// formRefusal reports whether err is a refusal to show on a form (a 409,
// or a 403 naming a permission); any other error is a page of its own.
func formRefusal(err error) bool {
	switch cms.ErrorCode(err) {
	case cms.CodeInvalid, cms.CodeConflict:
		return true
	case cms.CodeForbidden:
		e, _ := errors.AsType[*cms.Error](err)
		return e != nil && e.Message != "Forbidden"
	}
	return false
}

func readForm(w http.ResponseWriter, r *http.Request) error {
	r.Body = http.MaxBytesReader(w, r.Body, 64<<10)
	if err := r.ParseForm(); err != nil {
		return &cms.Error{Code: cms.CodeMalformed, Message: "the form could not be read", Err: err}
	}
	return nil
}

// usersPage is the data of the list of users.
type usersPage struct {
	Users   []userRow
	New     string // "" without user:write
	Deleted string // the user just deleted
}

func (h *Handler) users(w http.ResponseWriter, r *http.Request) {
	s, _ := sessionFrom(r)
	list, err := h.svc.AccountUsers(r.Context())
	if err != nil {
		h.fail(w, r, err)
		return
	}
	page := usersPage{}
	for _, u := range list {
		page.Users = append(page.Users, h.userRow(u))
	}
	if s.P.Can(cms.AreaUser, cms.ActionWrite) {
		page.New = h.url("/users/new")
	}
	if d := r.URL.Query().Get("deleted"); cms.ValidUsername(d) {
		page.Deleted = d
	}
	h.render(w, r, http.StatusOK, "users", &view{Title: "Users", Session: s, Section: "users", Page: page})
}

// newUserPage is the data of the form of a new user, and of its answer.
type newUserPage struct {
	Action   string
	Name     string
	Generate bool
	Grid     permGrid
	Errors   []formError
	Field    map[string]string // field id -> its error
	// Created is the user made, with the password generated for it
	// (shown this once).
	Created *userRow
	Shown   *shownPassword
}

// shownPassword is a password generated for a user, shown once.
type shownPassword struct {
	Name, Password string
}

func (h *Handler) newUserForm(w http.ResponseWriter, r *http.Request) {
	s, _ := sessionFrom(r)
	if !s.P.Can(cms.AreaUser, cms.ActionWrite) {
		h.fail(w, r, &cms.Error{Code: cms.CodeForbidden, Message: "Forbidden"})
		return
	}
	h.renderNewUser(w, r, http.StatusOK, newUserPage{Generate: true, Grid: grid(nil, s.P.Perms)})
}

func (h *Handler) renderNewUser(w http.ResponseWriter, r *http.Request, status int, page newUserPage) {
	s, _ := sessionFrom(r)
	page.Action = h.url("/users/new")
	title := "Add a user"
	if page.Created != nil {
		title = "User " + page.Created.Name + " added"
	}
	h.render(w, r, status, "users-new", &view{Title: title, Session: s, Section: "users", Page: page})
}

func (h *Handler) createUser(w http.ResponseWriter, r *http.Request) {
	s, _ := sessionFrom(r)
	if err := readForm(w, r); err != nil {
		h.fail(w, r, err)
		return
	}
	f := r.PostForm
	perms := formPerms(f["perm"])
	nu := cms.NewAccountUser{Name: strings.TrimSpace(f.Get("name")), Perms: perms, GeneratePassword: f.Get("generate") != ""}
	if !nu.GeneratePassword {
		nu.Password = f.Get("password")
	}
	password, err := h.svc.CreateAccountUser(r.Context(), nu)
	if err != nil {
		if !formRefusal(err) {
			h.fail(w, r, err)
			return
		}
		// The service checks the name, then the password, then the
		// permissions, then whether the name is free.
		field := "perms"
		switch {
		case !cms.ValidUsername(nu.Name) || cms.ErrorCode(err) == cms.CodeConflict:
			field = "name"
		case cms.ErrorCode(err) == cms.CodeInvalid && strings.HasPrefix(serviceText(err), "password"):
			field = "password"
		}
		g := grid(perms, s.P.Perms)
		link := field
		status, _ := errorText(err)
		text := serviceText(err)
		if field == "perms" {
			link, g.Error = g.First, text
		}
		h.renderNewUser(w, r, status, newUserPage{Name: nu.Name, Generate: nu.GeneratePassword, Grid: g,
			Errors: []formError{{link, text}}, Field: map[string]string{field: text}})
		return
	}
	if password == "" {
		http.Redirect(w, r, h.url(userPath(nu.Name))+"?done=created", http.StatusSeeOther)
		return
	}
	u, err := h.svc.AccountUser(r.Context(), nu.Name)
	if err != nil {
		h.fail(w, r, err)
		return
	}
	row := h.userRow(u)
	h.renderNewUser(w, r, http.StatusCreated, newUserPage{Created: &row, Shown: &shownPassword{row.Name, password}})
}

// userPageData is the data of a user's page.
type userPageData struct {
	User userRow
	// CanWrite and CanDelete are the caller's user permissions; Self is
	// the caller's own page; Above lists what the user holds that the
	// caller does not (then the caller cannot change them).
	CanWrite, CanDelete, Self bool
	Above                     []string
	Grid                      permGrid
	Errors                    []formError
	Field                     map[string]string
	Notice                    string
	// Shown is a new password generated, shown this once.
	Shown *shownPassword

	PermsURL, PasswordURL, DisabledURL, DeleteURL string
}

// userData reads user name for s's page. ok false: the answer is made.
func (h *Handler) userData(w http.ResponseWriter, r *http.Request, name string) (userPageData, bool) {
	s, _ := sessionFrom(r)
	u, err := h.svc.AccountUser(r.Context(), name)
	if err != nil {
		if cms.ErrorCode(err) == cms.CodeNotFound {
			msg := "There is no such user in your account."
			if cms.ValidUsername(name) { // a name, never other text a link put in the address
				msg = "There is no user " + strconv.Quote(name) + " in your account."
			}
			h.renderError(w, r, http.StatusNotFound, msg)
			return userPageData{}, false
		}
		h.fail(w, r, err)
		return userPageData{}, false
	}
	base := h.url(userPath(u.Name))
	return userPageData{User: h.userRow(u), CanWrite: s.P.Can(cms.AreaUser, cms.ActionWrite),
		CanDelete: s.P.Can(cms.AreaUser, cms.ActionDelete), Self: u.Name == s.P.User,
		Above: lacking(u.Perms, s.P.Perms), Grid: grid(u.Perms, s.P.Perms),
		PermsURL: base + "/perms", PasswordURL: base + "/password", DisabledURL: base + "/disabled",
		DeleteURL: base + "/delete"}, true
}

func (h *Handler) renderUser(w http.ResponseWriter, r *http.Request, status int, page userPageData) {
	s, _ := sessionFrom(r)
	h.render(w, r, status, "users-user", &view{Title: "User " + page.User.Name, Session: s, Section: "users", Page: page})
}

// userNotices are the texts of ?done= after a change.
var userNotices = map[string]string{
	"created":  "The user was added.",
	"perms":    "Permissions saved. They reach the user's session at its next token refresh, within 15 minutes.",
	"disabled": "The user is disabled: their sessions ended and they cannot sign in.",
	"enabled":  "The user is enabled and can sign in again.",
}

func (h *Handler) userPage(w http.ResponseWriter, r *http.Request) {
	page, ok := h.userData(w, r, userName(r))
	if !ok {
		return
	}
	page.Notice = userNotices[r.URL.Query().Get("done")]
	h.renderUser(w, r, http.StatusOK, page)
}

// refuseOnUserPage shows err of a change on the user's page, beside
// field (a section's id), or as a page of its own when it is not a
// form's refusal.
func (h *Handler) refuseOnUserPage(w http.ResponseWriter, r *http.Request, name, field, link string, err error, adjust func(*userPageData)) {
	if !formRefusal(err) {
		h.fail(w, r, err)
		return
	}
	page, ok := h.userData(w, r, name)
	if !ok {
		return
	}
	if adjust != nil {
		adjust(&page)
	}
	status, _ := errorText(err)
	text := serviceText(err)
	if !page.Shows(field) {
		link = "" // the section is not on the page (a request no form of it sent)
	}
	page.Errors = []formError{{link, text}}
	page.Field = map[string]string{field: text}
	if field == "perms" {
		page.Grid.Error = text
	}
	h.renderUser(w, r, status, page)
}

// Shows reports whether the page has the section of a change: only
// for a caller who may make it, to a user who is not above them, and
// neither disabling nor deleting oneself.
func (p userPageData) Shows(section string) bool {
	if len(p.Above) > 0 {
		return false
	}
	switch section {
	case "status":
		return p.CanWrite && !p.Self
	case "delete":
		return p.CanDelete && !p.Self
	}
	return p.CanWrite
}

func (h *Handler) setUserPerms(w http.ResponseWriter, r *http.Request) {
	s, _ := sessionFrom(r)
	name := userName(r)
	if err := readForm(w, r); err != nil {
		h.fail(w, r, err)
		return
	}
	perms := formPerms(r.PostForm["perm"])
	if err := h.svc.SetAccountUserPerms(r.Context(), name, perms); err != nil {
		g := grid(perms, s.P.Perms)
		h.refuseOnUserPage(w, r, name, "perms", g.First, err, func(p *userPageData) { p.Grid = g })
		return
	}
	http.Redirect(w, r, h.url(userPath(name))+"?done=perms", http.StatusSeeOther)
}

func (h *Handler) resetUserPassword(w http.ResponseWriter, r *http.Request) {
	name := userName(r)
	password, err := h.svc.ResetAccountUserPassword(r.Context(), name, cms.PasswordReset{Generate: true})
	if err != nil {
		h.refuseOnUserPage(w, r, name, "password", "password", err, nil)
		return
	}
	page, ok := h.userData(w, r, name)
	if !ok {
		return
	}
	page.Shown = &shownPassword{page.User.Name, password}
	h.renderUser(w, r, http.StatusOK, page)
}

func (h *Handler) setUserDisabled(w http.ResponseWriter, r *http.Request) {
	name := userName(r)
	if err := readForm(w, r); err != nil {
		h.fail(w, r, err)
		return
	}
	disabled := r.PostForm.Get("disabled") == "true"
	if err := h.svc.SetAccountUserDisabled(r.Context(), name, disabled); err != nil {
		h.refuseOnUserPage(w, r, name, "status", "status", err, nil)
		return
	}
	done := "enabled"
	if disabled {
		done = "disabled"
	}
	http.Redirect(w, r, h.url(userPath(name))+"?done="+done, http.StatusSeeOther)
}

// deletePage is the data of the confirmation of a user's deletion.
type deletePage struct {
	User    userRow
	Action  string
	Back    string
	Errors  []formError
	Refused string
}

func (h *Handler) confirmDeleteUser(w http.ResponseWriter, r *http.Request) {
	s, _ := sessionFrom(r)
	page, ok := h.userData(w, r, userName(r))
	if !ok {
		return
	}
	if !page.CanDelete {
		h.fail(w, r, &cms.Error{Code: cms.CodeForbidden, Message: "Forbidden"})
		return
	}
	h.render(w, r, http.StatusOK, "users-delete", &view{Title: "Delete user " + page.User.Name, Session: s, Section: "users",
		Page: deletePage{User: page.User, Action: page.DeleteURL, Back: page.User.URL}})
}

func (h *Handler) deleteUser(w http.ResponseWriter, r *http.Request) {
	name := userName(r)
	if err := h.svc.DeleteAccountUser(r.Context(), name); err != nil {
		h.refuseOnUserPage(w, r, name, "delete", "delete", err, nil)
		return
	}
	http.Redirect(w, r, h.url("/users/")+"?deleted="+url.QueryEscape(name), http.StatusSeeOther)
}

// accountPage is the data of the account page.
type accountPageData struct {
	Account  string
	Langs    []accountLang
	CanWrite bool
	// Addable are the ISO 639-1 languages the account does not have,
	// by name.
	Addable       []isoLanguage
	AddAction     string
	DefaultAction string
	Errors        []formError
	Field         map[string]string
	Notice        string
	// Picked keeps a choice the service refused.
	Picked string
	Audit  auditList
}

type accountLang struct {
	Code, Name string
	Default    bool
}

// accountData is the account page of the languages of now.
func (h *Handler) accountData(r *http.Request) accountPageData {
	s, _ := sessionFrom(r)
	langs := s.P.Langs
	page := accountPageData{Account: s.P.Account, CanWrite: s.P.Can(cms.AreaUser, cms.ActionWrite),
		AddAction: h.url("/account/languages"), DefaultAction: h.url("/account/default")}
	for _, c := range langs.All {
		page.Langs = append(page.Langs, accountLang{c, languageName(c), c == langs.Default})
	}
	for _, l := range isoLanguages {
		if !slices.Contains(langs.All, l.Code) {
			page.Addable = append(page.Addable, l)
		}
	}
	slices.SortStableFunc(page.Addable, func(a, b isoLanguage) int { return strings.Compare(a.Name, b.Name) })
	page.Audit = h.auditList(r)
	return page
}

func (h *Handler) renderAccount(w http.ResponseWriter, r *http.Request, status int, page accountPageData) {
	s, _ := sessionFrom(r)
	h.render(w, r, status, "account", &view{Title: "Account " + s.P.Account, Session: s, Section: "account", Page: page})
}

func (h *Handler) accountPage(w http.ResponseWriter, r *http.Request) {
	s, _ := sessionFrom(r)
	if !s.P.Can(cms.AreaUser, cms.ActionRead) {
		h.fail(w, r, &cms.Error{Code: cms.CodeForbidden, Message: "Forbidden"})
		return
	}
	page := h.accountData(r)
	q := r.URL.Query()
	if added := q.Get("added"); added != "" && slices.Contains(s.P.Langs.All, added) {
		n, err := strconv.Atoi(q.Get("aliases"))
		if err == nil && n >= 0 {
			page.Notice = languageName(added) + " (" + added + ") was added. " + recordsText(n) +
				" got an address (urlAlias) in it; their other fields in " + languageName(added) + " are empty until someone fills them."
		}
	}
	if d := q.Get("default"); d != "" && d == s.P.Langs.Default {
		page.Notice = languageName(d) + " (" + d + ") is the default language now: the bare field names (title, urlAlias) address it."
	}
	h.renderAccount(w, r, http.StatusOK, page)
}

func recordsText(n int) string {
	if n == 1 {
		return "1 record"
	}
	return strconv.Itoa(n) + " records"
}

// refuseOnAccount shows err of a change on the account page beside field.
func (h *Handler) refuseOnAccount(w http.ResponseWriter, r *http.Request, field, picked string, err error) {
	if !formRefusal(err) {
		h.fail(w, r, err)
		return
	}
	page := h.accountData(r)
	status, _ := errorText(err)
	text := serviceText(err)
	page.Errors = []formError{{field, text}}
	page.Field = map[string]string{field: text}
	page.Picked = picked
	h.renderAccount(w, r, status, page)
}

func (h *Handler) addLanguage(w http.ResponseWriter, r *http.Request) {
	if err := readForm(w, r); err != nil {
		h.fail(w, r, err)
		return
	}
	lang := r.PostForm.Get("lang")
	n, err := h.svc.AddAccountLanguage(r.Context(), lang)
	if err != nil {
		h.refuseOnAccount(w, r, "lang", lang, err)
		return
	}
	http.Redirect(w, r, h.url("/account")+"?added="+url.QueryEscape(lang)+"&aliases="+strconv.Itoa(n), http.StatusSeeOther)
}

func (h *Handler) setDefaultLanguage(w http.ResponseWriter, r *http.Request) {
	if err := readForm(w, r); err != nil {
		h.fail(w, r, err)
		return
	}
	lang := r.PostForm.Get("default")
	if err := h.svc.SetAccountDefaultLanguage(r.Context(), lang); err != nil {
		h.refuseOnAccount(w, r, "default", lang, err)
		return
	}
	http.Redirect(w, r, h.url("/account")+"?default="+url.QueryEscape(lang), http.StatusSeeOther)
}
