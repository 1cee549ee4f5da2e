package admin

import (
	"net/http"
	"net/url"
	"time"

	"github.com/bwcms/cms/cms"
)

func (h *Handler) overviewRoutes(mux *http.ServeMux) {
	mux.HandleFunc("GET /{$}", h.signedIn(h.overview))
}

// overviewPage is the data of the overview: the records of each kind
// the user may read (counts, missing translations), the account's newest
// changes and its batches running.
type overviewPage struct {
	Langs   cms.Languages
	Kinds   []overviewKind
	Recent  []overviewChange
	Batches []overviewBatch
}

type overviewKind struct {
	Kind cms.Kind
	List string
	New  string // "" without write permission
	// Published and Unpublished count the records, each linking to the
	// list filtered by it.
	Published, Unpublished         int
	PublishedList, UnpublishedList string
	Total                          int
	// Missing counts the records without a title in each of the
	// account's languages, in the account's order.
	Missing []overviewMissing
}

type overviewMissing struct {
	Lang  string
	Name  string // the language's name, for people
	Count int
	List  string // the list filtered by it
}

// overviewChange is a row of the recent changes.
type overviewChange struct {
	Kind cms.Kind
	ID   string
	// Title is the record's title now (displayTitle), "" when it has
	// none or no longer exists.
	Title     string
	TitleLang string
	// Link opens the record's form, or its history when it is deleted.
	Link    string
	Op      string // created, updated, deleted
	Who     string
	When    string
	WhenAt  string // RFC 3339
	Deleted bool
}

// overviewBatch is a row of the batches running.
type overviewBatch struct {
	ID     string
	Kind   cms.Kind
	Count  int
	Status cms.BatchStatus
	// Since is when the batch was submitted (waiting) or taken up
	// (processing).
	Since, SinceAt string
	// Processed is the records applied so far, while processing.
	Processed    int
	ShowProgress bool
}

// recentChanges is how many of the newest changes the overview shows.
const recentChanges = 20

func (h *Handler) overview(w http.ResponseWriter, r *http.Request) {
	s, _ := sessionFrom(r)
	ctx := r.Context()
	page := overviewPage{Langs: s.P.Langs}
	for _, k := range cms.Kinds() {
		if !s.P.Can(k, cms.ActionRead) {
			continue
		}
		counts, err := h.svc.CountKind(ctx, k)
		if err != nil {
			h.fail(w, r, err)
			return
		}
		list := h.url("/" + string(k) + "/")
		ok := overviewKind{Kind: k, List: list, Published: counts.Published, Unpublished: counts.Unpublished,
			Total: counts.Published + counts.Unpublished, PublishedList: list + "?published=yes", UnpublishedList: list + "?published=no"}
		if s.P.Can(k, cms.ActionWrite) {
			ok.New = h.url("/" + string(k) + "/new")
		}
		for _, lang := range s.P.Langs.All {
			ok.Missing = append(ok.Missing, overviewMissing{Lang: lang, Name: languageName(lang), Count: counts.Missing[lang],
				List: list + "?missing=" + url.QueryEscape(lang)})
		}
		page.Kinds = append(page.Kinds, ok)
	}
	if len(page.Kinds) > 0 {
		recent, err := h.svc.RecentChanges(ctx, recentChanges)
		if err != nil {
			h.fail(w, r, err)
			return
		}
		for _, c := range recent {
			page.Recent = append(page.Recent, h.overviewChange(s.P.Langs, c))
		}
		batches, err := h.svc.RunningBatches(ctx)
		if err != nil {
			h.fail(w, r, err)
			return
		}
		for _, b := range batches {
			since := b.Requested
			if b.Status == cms.BatchProcessing {
				since = b.StatusAt
			}
			page.Batches = append(page.Batches, overviewBatch{ID: b.ID, Kind: b.Kind, Count: b.Count, Status: b.Status,
				Since: h.svc.Timestamp(since), SinceAt: since.Format(time.RFC3339), Processed: b.Processed,
				ShowProgress: b.Status == cms.BatchProcessing})
		}
	}
	h.render(w, r, http.StatusOK, "overview", &view{Title: "Overview", Session: s, Section: "overview", Page: page})
}

func (h *Handler) overviewChange(langs cms.Languages, c cms.RecentChange) overviewChange {
	row := overviewChange{Kind: c.Kind, ID: c.ID, Who: who(c.User), When: h.svc.Timestamp(c.Time),
		WhenAt: c.Time.Format(time.RFC3339), Deleted: !c.Exists}
	switch {
	case c.Op == cms.ChangeDelete:
		row.Op = "deleted"
	case c.Created:
		row.Op = "created"
	default:
		row.Op = "updated"
	}
	if c.Exists {
		row.Link = h.editURL(c.Kind, c.ID)
		row.Title, row.TitleLang, _ = displayTitle(langs, c.Titles)
	} else {
		row.Link = h.historyURL(c.Kind, c.ID, 0)
	}
	return row
}
