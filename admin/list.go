package admin

import (
	"encoding/json"
	"net/http"
	"net/url"
	"slices"
	"strconv"
	"strings"
	"time"
	"unicode/utf8"

	"github.com/bwcms/cms/cms"
)

// The record lists: <prefix>/<kind>/ shows one page of records of a kind,
// sorted and filtered by its query string (all of its state is there, so
// that a page can be bookmarked), and pages on with the cursors of
// cms.Service.Browse. Its table is a form posting to <prefix>/<kind>/bulk
// (bulk.go).
//
// Query string: sort (updated, id, title), order (asc, desc; by default
// newest first for updated, A to Z otherwise), published (all, yes, no),
// map, type and category (Resources), missing (a language), q (the
// search), limit (rows per page) and cursor (from Browse).

// listRoutes registers the record lists (<prefix>/<kind>/) and their bulk
// actions.
func (h *Handler) listRoutes(mux *http.ServeMux) {
	for _, k := range cms.Kinds() {
		mux.HandleFunc("GET /"+string(k)+"/{$}", h.signedIn(h.list(k)))
		mux.HandleFunc("POST /"+string(k)+"/bulk", h.signedIn(h.bulk(k)))
	}
}

const (
	// listLimit is the default number of rows of a page; maxListLimit
	// Browse's largest.
	listLimit    = 50
	maxListLimit = 200
	// maxSearch is the longest search kept, in characters.
	maxSearch = 200
)

// listLimits are the page sizes the form offers.
var listLimits = []int{10, 25, 50, 100, 200}

// listQuery is the state of a list page, read from its query string.
type listQuery struct {
	Sort      cms.BrowseSort
	Desc      bool
	Published string // "all", "yes", "no"
	Map       string
	Type      string
	Category  string
	Missing   string
	Search    string
	Limit     int
	Cursor    string
}

// parseListQuery reads the query of a list page. A value the page never
// makes (an unknown sort, a language not of the account) is ignored, as
// if absent: an old bookmark still opens a list.
func parseListQuery(v url.Values, kind cms.Kind, langs cms.Languages) listQuery {
	q := listQuery{Sort: cms.BrowseUpdated, Published: "all", Limit: listLimit}
	switch s := cms.BrowseSort(v.Get("sort")); s {
	case cms.BrowseUpdated, cms.BrowseID, cms.BrowseTitle:
		q.Sort = s
	}
	q.Desc = q.Sort == cms.BrowseUpdated
	switch v.Get("order") {
	case "asc":
		q.Desc = false
	case "desc":
		q.Desc = true
	}
	switch p := v.Get("published"); p {
	case "yes", "no":
		q.Published = p
	}
	if kind == cms.KindResource {
		q.Map = strings.TrimSpace(v.Get("map"))
		q.Type = v.Get("type")
		q.Category = v.Get("category")
	}
	if m := v.Get("missing"); slices.Contains(langs.All, m) {
		q.Missing = m
	}
	q.Search = strings.TrimSpace(v.Get("q"))
	if utf8.RuneCountInString(q.Search) > maxSearch {
		q.Search = string([]rune(q.Search)[:maxSearch])
	}
	if n, err := strconv.Atoi(v.Get("limit")); err == nil && n >= 1 && n <= maxListLimit {
		q.Limit = n
	}
	q.Cursor = v.Get("cursor")
	return q
}

// searchText says why a search cannot be run (DECISIONS §14: no letter
// or digit, more than cms.MaxSearchWords words), "" when it can: the
// service refuses such a search, and the list says why instead of
// showing records as if they matched.
func searchText(search string) string {
	if search == "" {
		return ""
	}
	words := cms.Words(search)
	switch {
	case len(words) == 0:
		return "The search has no letter or digit: search by words of a title, or by an id."
	case len(words) > cms.MaxSearchWords:
		return "A search holds at most " + strconv.Itoa(cms.MaxSearchWords) + " words: leave some out."
	}
	if _, err := cms.SearchTerms(search); err != nil {
		return "This search cannot be run: change it."
	}
	return ""
}

// defaultDesc is the order a sort starts in: newest first for the last
// update, A to Z for the others.
func defaultDesc(s cms.BrowseSort) bool { return s == cms.BrowseUpdated }

// filtered reports whether a filter or a search narrows the list.
func (q listQuery) filtered() bool {
	return q.Published != "all" || q.Map != "" || q.Type != "" || q.Category != "" || q.Missing != "" || q.Search != ""
}

// values is the query string of q without its cursor: defaults left out,
// so that addresses stay short.
func (q listQuery) values() url.Values {
	v := url.Values{}
	if q.Sort != cms.BrowseUpdated {
		v.Set("sort", string(q.Sort))
	}
	if q.Desc != defaultDesc(q.Sort) {
		v.Set("order", orderName(q.Desc))
	}
	set := func(k, val, def string) {
		if val != def {
			v.Set(k, val)
		}
	}
	set("published", q.Published, "all")
	set("map", q.Map, "")
	set("type", q.Type, "")
	set("category", q.Category, "")
	set("missing", q.Missing, "")
	set("q", q.Search, "")
	if q.Limit != listLimit {
		v.Set("limit", strconv.Itoa(q.Limit))
	}
	return v
}

func orderName(desc bool) string {
	if desc {
		return "desc"
	}
	return "asc"
}

// params are the Browse parameters of q.
func (q listQuery) params() cms.BrowseParams {
	p := cms.BrowseParams{Sort: q.Sort, Desc: q.Desc, Cursor: q.Cursor, Limit: q.Limit, Published: cms.PublishedAny,
		MapID: q.Map, Type: q.Type, Category: q.Category, MissingLang: q.Missing, Search: q.Search}
	switch q.Published {
	case "yes":
		p.Published = cms.PublishedOnly
	case "no":
		p.Published = cms.UnpublishedOnly
	}
	return p
}

// listPage is the data of a list page.
type listPage struct {
	Kind cms.Kind
	// Resource shows the Resource-only columns and filters.
	Resource bool
	Query    listQuery
	// Action is the list's own address: the filter form's action.
	Action string
	// Self is this page's address, where bulk actions come back to.
	Self    string
	Clear   string
	New     string // "" without write permission
	Bulk    string // the bulk form's action; "" without any bulk action
	Publish bool   // the publish actions are offered
	Delete  bool   // the delete action is offered
	Headers []sortHeader
	Caption string
	Rows    []listRow
	// First, Prev and Next are the paging links ("" when not offered).
	First, Prev, Next string
	Filtered          bool
	// Error says why the list could not be read with these filters;
	// SearchError too when the search is the cause (beside its box).
	Error       string
	SearchError string
	// Notice tells of a page that no longer exists.
	Notice string
	// Deleted is the id of the record the editor just deleted from its
	// form.
	Deleted string
	Filters listFilters
	// ListView and MapView switch between the list and the map of the
	// same filters (Resources only; "" otherwise).
	ListView, MapView string
	// OnMap tells the page is the map.
	OnMap bool
}

// listFilters are the choices of the filter form.
type listFilters struct {
	Published, Types, Cats, Missing, Sorts, Orders, Limits selectField
	// Maps are suggestions for the Map filter (ids with titles).
	Maps []listOption
}

// selectField is a labelled select of the filter form.
type selectField struct {
	ID, Name, Label string
	Options         []listOption
}

type listOption struct {
	Value, Label string
	Selected     bool
}

// sortHeader is a column header that sorts.
type sortHeader struct {
	Label string
	// URL sorts by the column: the other order when it is the current
	// one.
	URL string
	// AriaSort is "ascending" or "descending" for the current sort.
	AriaSort string
	// Hint says what following URL does, for screen readers.
	Hint string
}

// listRow is one record of a list.
type listRow struct {
	ID   string
	Edit string
	// Title is the title in the default language or, when it has none,
	// in TitleLang (Fallback); "" when it has none at all.
	Title     string
	TitleLang string
	Fallback  bool
	// Label names the record for its checkbox.
	Label     string
	Missing   []string
	Published bool
	Updated   string // in the service's time zone, as timeLastUpdate
	UpdatedAt string // RFC 3339, for <time datetime>
	Type      string
	Category  string
}

// sortLabels name the sorts and their orders for people.
var sortLabels = map[cms.BrowseSort]struct{ name, asc, desc string }{
	cms.BrowseUpdated: {"last update", "oldest first", "newest first"},
	cms.BrowseID:      {"id", "A to Z", "Z to A"},
	cms.BrowseTitle:   {"title", "A to Z", "Z to A"},
}

func (h *Handler) list(kind cms.Kind) http.HandlerFunc {
	return func(w http.ResponseWriter, r *http.Request) {
		s, _ := sessionFrom(r)
		if !s.P.Can(kind, cms.ActionRead) {
			h.fail(w, r, &cms.Error{Code: cms.CodeForbidden, Message: "Forbidden"})
			return
		}
		q := parseListQuery(r.URL.Query(), kind, s.P.Langs)
		if kind == cms.KindResource && r.URL.Query().Get("view") == "map" && !wantsJSON(r) {
			h.mapView(w, r, s, q)
			return
		}
		status, notice, problem := http.StatusOK, "", ""
		var res cms.BrowsePage
		var err error
		searchProblem := searchText(q.Search)
		if searchProblem == "" {
			res, err = h.svc.Browse(r.Context(), kind, q.params())
		}
		if cms.ErrorCode(err) == cms.CodeMalformed && q.Cursor != "" {
			// A cursor of another version, or a hand-made one: the
			// first page instead.
			q.Cursor = ""
			notice = "That page of the list no longer exists: here is the first page."
			res, err = h.svc.Browse(r.Context(), kind, q.params())
		}
		switch {
		case searchProblem != "":
			status, problem = http.StatusBadRequest, searchProblem
		case cms.ErrorCode(err) == cms.CodeMalformed:
			status = http.StatusBadRequest
			problem = "These filters cannot be applied. Change them, or clear them."
		case err != nil:
			h.fail(w, r, err)
			return
		}
		if wantsJSON(r) {
			h.listJSON(w, status, kind, s.P.Langs, res)
			return
		}
		page := h.listPageOf(r, s, kind, q)
		page.Notice, page.Error, page.SearchError = notice, problem, searchProblem
		// The id of a record just deleted: an id, never other text a link
		// put there.
		if d := r.URL.Query().Get("deleted"); cms.ValidID(d) {
			page.Deleted = d
		}
		for _, row := range res.Rows {
			page.Rows = append(page.Rows, h.listRow(kind, s.P.Langs, row))
		}
		base := q.values()
		if q.Cursor != "" {
			page.First = page.Action + encodeQuery(base)
		}
		if res.Prev != "" {
			page.Prev = page.Action + encodeQuery(withCursor(base, res.Prev))
		}
		if res.Next != "" {
			page.Next = page.Action + encodeQuery(withCursor(base, res.Next))
		}
		h.render(w, r, status, "list", &view{Title: kindLabels[kind].plural, Session: s, Section: string(kind), Page: page})
	}
}

// listPageOf is the page of q before its rows.
func (h *Handler) listPageOf(r *http.Request, s *session, kind cms.Kind, q listQuery) listPage {
	action := h.url("/" + string(kind) + "/")
	page := listPage{Kind: kind, Resource: kind == cms.KindResource, Query: q, Action: action,
		Self: action + encodeQuery(withCursor(q.values(), q.Cursor)), Clear: action, Filtered: q.filtered(),
		Publish: s.P.Can(kind, cms.ActionWrite), Delete: s.P.Can(kind, cms.ActionDelete)}
	if page.Publish {
		page.New = h.url("/" + string(kind) + "/new")
	}
	if page.Publish || page.Delete {
		page.Bulk = h.url("/" + string(kind) + "/bulk")
	}
	// Sorting by a column keeps the filters and starts at the first page.
	for _, c := range []struct {
		label string
		sort  cms.BrowseSort
	}{{"Id", cms.BrowseID}, {"Title", cms.BrowseTitle}, {"Last update", cms.BrowseUpdated}} {
		next := q
		next.Sort, next.Desc = c.sort, defaultDesc(c.sort)
		hd := sortHeader{Label: c.label}
		if q.Sort == c.sort {
			next.Desc = !q.Desc
			hd.AriaSort = "ascending"
			if q.Desc {
				hd.AriaSort = "descending"
			}
		}
		l := sortLabels[c.sort]
		hd.Hint = ", sort " + map[bool]string{false: l.asc, true: l.desc}[next.Desc]
		hd.URL = action + encodeQuery(next.values())
		page.Headers = append(page.Headers, hd)
	}
	l := sortLabels[q.Sort]
	page.Caption = kindLabels[kind].plural + ", by " + l.name + ", " + map[bool]string{false: l.asc, true: l.desc}[q.Desc]
	if page.Filtered {
		page.Caption += ", filtered"
	}
	page.Filters = h.listFilters(r, s, kind, q)
	if page.Resource {
		page.ListView, page.MapView = h.viewSwitch(q)
	}
	return page
}

// listFilters are the choices of q's filter form: types, categories and
// Maps read from the account.
func (h *Handler) listFilters(r *http.Request, s *session, kind cms.Kind, q listQuery) listFilters {
	f := listFilters{
		Published: selectField{"f-published", "published", "Published",
			selectOptions([][2]string{{"all", "All"}, {"yes", "Published"}, {"no", "Not published"}}, q.Published)},
		Sorts: selectField{"f-sort", "sort", "Sort by",
			selectOptions([][2]string{{"updated", "Last update"}, {"id", "Id"}, {"title", "Title"}}, string(q.Sort))},
		Orders: selectField{"f-order", "order", "Order", []listOption{
			{"desc", "Descending", q.Desc},
			{"asc", "Ascending", !q.Desc},
		}},
	}
	miss := [][2]string{{"", "Any"}}
	for _, l := range s.P.Langs.All {
		label := l
		if l == s.P.Langs.Default {
			label += " (default)"
		}
		miss = append(miss, [2]string{l, label})
	}
	f.Missing = selectField{"f-missing", "missing", "Missing a title in", selectOptions(miss, q.Missing)}
	f.Limits = selectField{ID: "f-limit", Name: "limit", Label: "Rows per page"}
	limits := listLimits
	if !slices.Contains(limits, q.Limit) {
		limits = append(slices.Clone(limits), q.Limit)
		slices.Sort(limits)
	}
	for _, n := range limits {
		f.Limits.Options = append(f.Limits.Options, listOption{strconv.Itoa(n), strconv.Itoa(n), n == q.Limit})
	}
	if kind != cms.KindResource {
		return f
	}
	types, cats, err := h.svc.Facets(r.Context(), kind)
	if err != nil {
		h.log.Warn("admin: facets", "err", err)
	}
	f.Types = selectField{"f-type", "type", "Type", facetOptions(types, q.Type)}
	f.Cats = selectField{"f-category", "category", "Category", facetOptions(cats, q.Category)}
	if s.P.Can(cms.KindMap, cms.ActionRead) {
		maps, err := h.svc.Browse(r.Context(), cms.KindMap, cms.BrowseParams{Sort: cms.BrowseTitle, Limit: maxListLimit, Published: cms.PublishedAny})
		if err != nil {
			h.log.Warn("admin: maps for the filter", "err", err)
		}
		for _, m := range maps.Rows {
			t, _, _ := displayTitle(s.P.Langs, m.Titles)
			f.Maps = append(f.Maps, listOption{Value: m.ID, Label: t})
		}
	}
	return f
}

func selectOptions(pairs [][2]string, selected string) []listOption {
	out := make([]listOption, len(pairs))
	for i, p := range pairs {
		out[i] = listOption{p[0], p[1], p[0] == selected}
	}
	return out
}

// facetOptions offer "Any" and every value; a value asked for that the
// account no longer has stays selectable, so the form shows it.
func facetOptions(values []string, selected string) []listOption {
	values = slices.Clone(values)
	slices.Sort(values)
	out := []listOption{{"", "Any", selected == ""}}
	for _, v := range values {
		out = append(out, listOption{v, v, v == selected})
	}
	if selected != "" && !slices.Contains(values, selected) {
		out = append(out, listOption{selected, selected, true})
	}
	return out
}

func withCursor(v url.Values, cursor string) url.Values {
	if cursor == "" {
		return v
	}
	c := url.Values{}
	for k, vs := range v {
		c[k] = vs
	}
	c.Set("cursor", cursor)
	return c
}

func encodeQuery(v url.Values) string {
	if len(v) == 0 {
		return ""
	}
	return "?" + v.Encode()
}

// displayTitle is the title to show from titles: the default language's,
// else the first of the account's languages that has one, else any.
// fallback tells that it is not the default language's.
func displayTitle(langs cms.Languages, titles map[string]string) (title, lang string, fallback bool) {
	if t := titles[langs.Default]; t != "" {
		return t, langs.Default, false
	}
	for _, l := range langs.All {
		if t := titles[l]; t != "" {
			return t, l, true
		}
	}
	others := make([]string, 0, len(titles))
	for l, t := range titles {
		if t != "" {
			others = append(others, l)
		}
	}
	if len(others) == 0 {
		return "", "", false
	}
	slices.Sort(others)
	return titles[others[0]], others[0], true
}

func (h *Handler) listRow(kind cms.Kind, langs cms.Languages, r cms.BrowseRow) listRow {
	// The missing languages in the account's order, whatever Browse's.
	var missing []string
	for _, l := range langs.All {
		if slices.Contains(r.Missing, l) {
			missing = append(missing, l)
		}
	}
	row := listRow{ID: r.ID, Edit: h.editURL(kind, r.ID), Missing: missing, Published: r.Published,
		Updated: h.svc.Timestamp(r.Updated), UpdatedAt: r.Updated.Format(time.RFC3339), Type: r.Type, Category: r.Category}
	row.Title, row.TitleLang, row.Fallback = displayTitle(langs, r.Titles)
	row.Label = recordLabel(row.ID, row.Title)
	return row
}

// recordLabel names a record for people: its title and id, or its id.
func recordLabel(id, title string) string {
	if title == "" || title == id {
		return id
	}
	return title + " (" + id + ")"
}

// listJSONRow is a row of the list's JSON answer, for the admin's scripts
// (the id picker).
type listJSONRow struct {
	ID        string `json:"id"`
	Title     string `json:"title"`
	TitleLang string `json:"titleLang,omitempty"`
	Published bool   `json:"published"`
	Updated   string `json:"updated"`
	Edit      string `json:"edit"`
}

// listJSON answers a script: the rows and the cursor of the next page.
func (h *Handler) listJSON(w http.ResponseWriter, status int, kind cms.Kind, langs cms.Languages, res cms.BrowsePage) {
	body := struct {
		Rows []listJSONRow `json:"rows"`
		Next string        `json:"next,omitempty"`
		Fail string        `json:"fail,omitempty"`
	}{Rows: []listJSONRow{}, Next: res.Next}
	if status != http.StatusOK {
		body.Fail = "Wrong request"
	}
	for _, r := range res.Rows {
		t, l, _ := displayTitle(langs, r.Titles)
		body.Rows = append(body.Rows, listJSONRow{ID: r.ID, Title: t, TitleLang: l, Published: r.Published,
			Updated: h.svc.Timestamp(r.Updated), Edit: h.editURL(kind, r.ID)})
	}
	writeListJSON(w, status, body)
}

// writeListJSON answers v as JSON with status, never cached.
func writeListJSON(w http.ResponseWriter, status int, v any) {
	w.Header().Set("Content-Type", "application/json")
	w.Header().Set("Cache-Control", "no-store")
	w.WriteHeader(status)
	_ = json.NewEncoder(w).Encode(v)
}
