package admin

import (
	"bytes"
	"errors"
	"io"
	"net/http"
	"net/url"
	"slices"
	"strconv"

	"github.com/bwcms/cms/cms"
	"github.com/bwcms/cms/transport"
)

// Imports (<prefix>/import, DECISIONS §19): a form posts one file (a
// JSON array of records of a kind, or a GeoJSON FeatureCollection of
// points) or several GPX files; the server makes them one batch body
// (importsource.go) and checks it as a dry run (Service.CheckBatch:
// nothing is stored), showing every record's problems and, for GeoJSON,
// the mapping of its properties and the first records mapped. Import
// posts the same form again and submits the batch (GPX files are
// uploaded first, each track's Resource naming its file); the answer
// redirects to the batch's page (importstatus.go), whose script follows
// its progress. import.js keeps the chosen files between the two posts.

// importMaxBody is the largest import form: a batch body's limit
// (transport.DefaultMaxBatchBody, 64 MiB) and room for the form's fields.
const importMaxBody = transport.DefaultMaxBatchBody + 1<<20

// maxImportTracks is the most GPX files one import takes.
const maxImportTracks = 100

// maxShownProblems is the most problems a page lists; the rest are
// counted.
const maxShownProblems = 1000

func (h *Handler) importRoutes(mux *http.ServeMux) {
	mux.HandleFunc("GET /import/{$}", func(w http.ResponseWriter, r *http.Request) {
		http.Redirect(w, r, h.url("/import"), http.StatusMovedPermanently)
	})
	mux.HandleFunc("GET /import", h.signedIn(h.importForm))
	mux.HandleFunc("POST /import", h.signedIn(h.importPost))
	mux.HandleFunc("GET /import/{kind}/{id}", h.signedIn(h.importStatus))
}

// importKinds are the kinds s may write, which it may import.
func importKinds(s *session) []cms.Kind {
	var out []cms.Kind
	for _, k := range cms.Kinds() {
		if s.P.Can(k, cms.ActionWrite) {
			out = append(out, k)
		}
	}
	return out
}

// importProblem is one problem of one record.
type importProblem struct {
	Record int // 1-based; 0 when it cannot be told
	ID     string
	Field  string
	Text   string
}

// importPage is the data of the import page.
type importPage struct {
	Action  string
	Sources []option
	Source  string
	Kinds   []option
	// GeoAllowed and GPXAllowed: Resources may be written (and files
	// uploaded, for GPX).
	GeoAllowed, GPXAllowed bool
	MaxMB, MaxRecords      int
	// Error refuses the whole post (no file, unreadable, too large).
	Error  string
	Result *importResult
}

// importResult is a checked upload.
type importResult struct {
	Files     []string
	KindLabel string
	Count     int
	Problems  []importProblem
	// ProblemCount counts them all; Problems holds maxShownProblems.
	ProblemCount int
	// Refused marks an import the service refused (nothing stored).
	Refused bool
	// Of a GeoJSON file.
	Geo         bool
	Props       []importProperty
	Targets     []importTarget
	PreviewCols []string
	Preview     [][]string
	NotPoints   int
	// Of GPX files.
	Tracks []importTrack
}

// newImportPage is the form for s with the choices of f.
func (h *Handler) newImportPage(s *session, source string, kind cms.Kind) *importPage {
	p := &importPage{Action: h.url("/import"), MaxMB: transport.DefaultMaxBatchBody >> 20, MaxRecords: cms.DefaultMaxBatchRecords,
		GeoAllowed: s.P.Can(cms.KindResource, cms.ActionWrite)}
	p.GPXAllowed = p.GeoAllowed && s.P.Can(cms.AreaFile, cms.ActionWrite)
	if !slices.Contains([]string{sourceJSON, sourceGeoJSON, sourceGPX}, source) {
		source = sourceJSON
	}
	p.Source = source
	p.Sources = append(p.Sources, option{sourceJSON, "Records as JSON: an array of records of one kind, as the API's batch takes them", source == sourceJSON})
	if p.GeoAllowed {
		p.Sources = append(p.Sources, option{sourceGeoJSON, "GeoJSON: a FeatureCollection of points, each becoming a Resource", source == sourceGeoJSON})
	}
	if p.GPXAllowed {
		p.Sources = append(p.Sources, option{sourceGPX, "GPX tracks: one or more files, each becoming a TRACK Resource", source == sourceGPX})
	}
	for _, k := range importKinds(s) {
		p.Kinds = append(p.Kinds, option{string(k), kindLabels[k].plural, k == kind})
	}
	return p
}

func (h *Handler) renderImport(w http.ResponseWriter, r *http.Request, status int, page *importPage) {
	s, _ := sessionFrom(r)
	title := "Import"
	if page.Error != "" || page.Result != nil && (page.Result.ProblemCount > 0 || page.Result.Refused) {
		title = "Error: " + title
	}
	h.render(w, r, status, "import", &view{Title: title, Session: s, Section: "import", Page: page})
}

// mayImport answers 403 unless s may write some kind.
func (h *Handler) mayImport(w http.ResponseWriter, r *http.Request) (*session, bool) {
	s, _ := sessionFrom(r)
	if len(importKinds(s)) == 0 {
		h.fail(w, r, &cms.Error{Code: cms.CodeForbidden, Message: "Forbidden"})
		return s, false
	}
	return s, true
}

func (h *Handler) importForm(w http.ResponseWriter, r *http.Request) {
	s, ok := h.mayImport(w, r)
	if !ok {
		return
	}
	q := r.URL.Query()
	h.renderImport(w, r, http.StatusOK, h.newImportPage(s, q.Get("source"), cms.Kind(q.Get("kind"))))
}

// importPost is what the import form sent.
type importPost struct {
	source string
	kind   cms.Kind
	step   string // "check" or "import"
	// mapping: the property of each "prop" field and the field chosen in
	// the "to" field beside it; none on the first check (guessed).
	props, to []string
	files     []importFile
}

// readImportPost reads the multipart form, files whole.
func readImportPost(w http.ResponseWriter, r *http.Request) (*importPost, error) {
	r.Body = http.MaxBytesReader(w, r.Body, importMaxBody)
	mr, err := r.MultipartReader()
	if err != nil {
		return nil, &cms.Error{Code: cms.CodeMalformed, Message: "the form could not be read", Err: err}
	}
	p := &importPost{}
	for {
		part, err := mr.NextPart()
		if errors.Is(err, io.EOF) {
			return p, nil
		}
		if err != nil {
			return nil, err
		}
		name := part.FormName()
		if part.FileName() != "" {
			if name != "file" {
				continue
			}
			if len(p.files) == maxImportTracks {
				return nil, &cms.Error{Code: cms.CodeTooLarge, Message: "Import at most " + strconv.Itoa(maxImportTracks) + " files at once."}
			}
			f, err := readImportFile(part.FileName(), part, transport.DefaultMaxBatchBody)
			if err != nil {
				return nil, err
			}
			if len(f.body) > 0 {
				p.files = append(p.files, f)
			}
			continue
		}
		raw, err := io.ReadAll(io.LimitReader(part, 4<<10))
		if err != nil {
			return nil, err
		}
		v := string(raw)
		switch name {
		case "source":
			p.source = v
		case "kind":
			p.kind = cms.Kind(v)
		case "step":
			p.step = v
		case "prop":
			p.props = append(p.props, v)
		case "to":
			p.to = append(p.to, v)
		}
	}
}

// importPost checks (step "check") or imports (step "import") the
// upload.
func (h *Handler) importPost(w http.ResponseWriter, r *http.Request) {
	s, ok := h.mayImport(w, r)
	if !ok {
		return
	}
	in, err := readImportPost(w, r)
	if err != nil {
		status, text := http.StatusBadRequest, "The upload could not be read. Choose the file again and retry."
		if isMaxBytes(err) {
			status, text = http.StatusRequestEntityTooLarge, "Request too large: an import may have at most "+strconv.Itoa(transport.DefaultMaxBatchBody>>20)+" MB."
		} else if e, ok := errors.AsType[*cms.Error](err); ok && e.Code == cms.CodeTooLarge {
			status, text = http.StatusRequestEntityTooLarge, e.Message
		}
		page := h.newImportPage(s, "", "")
		page.Error = text
		h.renderImport(w, r, status, page)
		return
	}
	kind := in.kind
	if in.source != sourceJSON {
		kind = cms.KindResource
	}
	page := h.newImportPage(s, in.source, kind)
	refuse := func(status int, text string) {
		page.Error = text
		h.renderImport(w, r, status, page)
	}
	switch {
	case !slices.Contains(importKinds(s), kind):
		refuse(http.StatusForbidden, "Your permissions do not allow writing "+kindLabel(kind)+".")
		return
	case in.source == sourceGPX && !page.GPXAllowed:
		refuse(http.StatusForbidden, "Your permissions do not allow uploading files: GPX tracks cannot be imported.")
		return
	case len(in.files) == 0:
		refuse(http.StatusBadRequest, "Choose the file to import, then press Check.")
		return
	case in.source != sourceGPX && len(in.files) > 1:
		refuse(http.StatusBadRequest, "Choose one file: only GPX tracks are imported several at once.")
		return
	}
	res := &importResult{KindLabel: kindLabels[kind].plural}
	for _, f := range in.files {
		res.Files = append(res.Files, f.name)
	}
	page.Result = res
	b, err := h.buildImport(s, in, res)
	if err != nil {
		if e, ok := errors.AsType[*cms.Error](err); ok && e.Code == cms.CodeMalformed {
			refuse(http.StatusBadRequest, "The file could not be read: "+e.Message+".")
			return
		}
		h.fail(w, r, err)
		return
	}
	ctx := r.Context()
	if len(b.problems) > 0 {
		res.Problems, res.ProblemCount = b.problems, len(b.problems)
		h.renderImport(w, r, http.StatusConflict, page)
		return
	}
	if in.step == "import" && in.source != sourceGPX {
		// SubmitBatch checks the body as CheckBatch does.
		var receipt cms.BatchReceipt
		if receipt, err = h.svc.SubmitBatch(ctx, kind, b.body); err == nil {
			http.Redirect(w, r, h.importStatusURL(kind, receipt.ID), http.StatusSeeOther)
			return
		}
		res.Refused = true
	} else {
		res.Count, err = h.svc.CheckBatch(ctx, kind, b.body)
	}
	if err == nil && in.step == "import" {
		if in.source == sourceGPX {
			// The tracks checked without their files; now uploaded,
			// each Resource names its own.
			b, err = gpxBatch(in.files, func(t importTrack) (string, error) {
				f, _, err := h.svc.UploadFile(ctx, cms.Upload{Name: t.File, Body: bytes.NewReader(t.body)})
				if err != nil {
					return "", err
				}
				return h.api.FileURL(r, *f), nil
			})
		}
		var receipt cms.BatchReceipt
		if err == nil {
			receipt, err = h.svc.SubmitBatch(ctx, kind, b.body)
		}
		if err == nil {
			http.Redirect(w, r, h.importStatusURL(kind, receipt.ID), http.StatusSeeOther)
			return
		}
		res.Refused = true
	}
	if err != nil {
		status, text := errorText(err)
		switch {
		case cms.ErrorCode(err) == cms.CodeInvalid:
			res.ProblemCount = len(problemsOf(err))
			res.Problems = numberProblems(b.ids, problemsOf(err))
		case status == http.StatusBadRequest || status == http.StatusConflict || status == http.StatusRequestEntityTooLarge:
			if cms.ErrorCode(err) == cms.CodeMalformed {
				text = "The file is not a JSON array of records: " + serviceMessage(err) + "."
			}
			refuse(status, text)
			return
		default:
			h.fail(w, r, err)
			return
		}
		h.renderImport(w, r, status, page)
		return
	}
	h.renderImport(w, r, http.StatusOK, page)
}

// buildImport makes the batch of an upload, without files uploaded,
// and fills what res shows of the source.
func (h *Handler) buildImport(s *session, in *importPost, res *importResult) (*importBatch, error) {
	switch in.source {
	case sourceGeoJSON:
		f := in.files[0]
		props, err := geoProperties(f.body)
		if err != nil {
			return nil, err
		}
		targets := importTargets(s.P.Langs)
		chosen := map[string]string{}
		if len(in.props) > 0 {
			for i, p := range in.props {
				if i < len(in.to) {
					chosen[p] = in.to[i]
				}
			}
		} else {
			for _, p := range props {
				chosen[p.Name] = guessTarget(p.Name, s.P.Langs)
			}
		}
		names := make([]string, len(props))
		for i, p := range props {
			names[i] = p.Name
		}
		m := newImportMapping(names, chosen, targets)
		for i := range props {
			props[i].To = m.to[props[i].Name]
		}
		b, err := geoBatch(f, props, m)
		if err != nil {
			return nil, err
		}
		res.Geo, res.Props, res.Targets, res.NotPoints = true, props, targets, b.notPoints
		res.PreviewCols, res.Preview = b.previewCols, b.preview
		return b, nil
	case sourceGPX:
		b, err := gpxBatch(in.files, nil)
		if err != nil {
			return nil, err
		}
		res.Tracks = b.tracks
		return b, nil
	}
	return jsonBatch(in.kind, in.files[0]), nil
}

// problemsOf are the problems of an invalid batch.
func problemsOf(err error) []cms.Problem {
	if e, ok := errors.AsType[*cms.Error](err); ok {
		return e.Problems
	}
	return nil
}

// serviceMessage is the message of a service error (safe to show).
func serviceMessage(err error) string {
	if e, ok := errors.AsType[*cms.Error](err); ok {
		return e.Message
	}
	return ""
}

// numberProblems gives each problem its record's number: the service
// lists them in record order, each record's together, by id as sent, so
// each group is the next record with that id ("(no id)": one without a
// valid string id). At most maxShownProblems are kept.
func numberProblems(ids []string, probs []cms.Problem) []importProblem {
	out := make([]importProblem, 0, min(len(probs), maxShownProblems))
	next, cur, curID := 0, 0, ""
	for i, p := range probs {
		if i == 0 || p.ID != curID {
			cur, curID = 0, p.ID
			for j := next; j < len(ids); j++ {
				if ids[j] == p.ID || p.ID == "(no id)" && !cms.ValidID(ids[j]) {
					cur, next = j+1, j+1
					break
				}
			}
		}
		if len(out) == maxShownProblems {
			break
		}
		out = append(out, importProblem{Record: cur, ID: p.ID, Field: p.Field, Text: p.Text})
	}
	return out
}

// kindLabel names a kind's records ("Resources"), or the kind as sent.
func kindLabel(k cms.Kind) string {
	if l, ok := kindLabels[k]; ok {
		return l.plural
	}
	return "records of kind " + strconv.Quote(string(k))
}

// importStatusURL is the page of an import's batch.
func (h *Handler) importStatusURL(kind cms.Kind, id string) string {
	return h.url("/import/" + string(kind) + "/" + url.PathEscape(id))
}
