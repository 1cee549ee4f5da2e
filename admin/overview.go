package admin

import (
	"net/http"

	"github.com/bwcms/cms/cms"
)

func (h *Handler) overviewRoutes(mux *http.ServeMux) {
	mux.HandleFunc("GET /{$}", h.signedIn(h.overview))
}

// overviewPage is the data of the overview.
type overviewPage struct {
	Kinds []overviewKind
	Langs cms.Languages
}

type overviewKind struct {
	Kind     cms.Kind
	List     string
	New      string // "" without write permission
	CanWrite bool
	// Recent are the records updated last, newest first.
	Recent []listRow
}

// recentLimit is how many recently updated records the overview shows
// per kind.
const recentLimit = 10

func (h *Handler) overview(w http.ResponseWriter, r *http.Request) {
	s, _ := sessionFrom(r)
	page := overviewPage{Langs: s.P.Langs}
	for _, k := range cms.Kinds() {
		if !s.P.Can(k, cms.ActionRead) {
			continue
		}
		ok := overviewKind{Kind: k, List: h.url("/" + string(k) + "/")}
		if s.P.Can(k, cms.ActionWrite) {
			ok.New = h.url("/" + string(k) + "/new")
		}
		recent, err := h.svc.Browse(r.Context(), k, cms.BrowseParams{Sort: cms.BrowseUpdated, Desc: true, Limit: recentLimit, Published: cms.PublishedAny})
		if err != nil {
			h.fail(w, r, err)
			return
		}
		for _, row := range recent.Rows {
			ok.Recent = append(ok.Recent, h.listRow(k, s.P.Langs, row))
		}
		page.Kinds = append(page.Kinds, ok)
	}
	h.render(w, r, http.StatusOK, "overview", &view{Title: "Overview", Session: s, Section: "overview", Page: page})
}
