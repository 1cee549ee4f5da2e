package admin

import (
	"context"
	"errors"
	"io"
	"net/http"
	"net/url"
	"strconv"
	"strings"

	"github.com/bwcms/cms/cms"
)

// The media library: <prefix>/file/ lists the account's files, newest
// first, filtered by kind (?kind=image|layer|track) and paged by the
// service's cursor (?after=<id>), with a form that uploads several files
// at once (POST <prefix>/file/upload, multipart, part "file" repeated).
// Each file has its page (filepage.go). Scripts (the record form's
// picker, files.js) ask the same addresses for JSON.

func (h *Handler) fileRoutes(mux *http.ServeMux) {
	mux.HandleFunc("GET /file/{$}", h.signedIn(h.fileList))
	mux.HandleFunc("POST /file/upload", h.signedIn(h.fileUpload))
	mux.HandleFunc("GET /file/{id}", h.signedIn(h.filePage))
	mux.HandleFunc("POST /file/{id}/delete", h.signedIn(h.fileDelete))
}

const (
	// filePageSize is how many files a page of the library shows;
	// maxFilePageSize the most a script may ask for.
	filePageSize    = 48
	maxFilePageSize = 200
	// fileScan is how many files one look-up reads when a kind is
	// chosen (ListFiles filters by one type; a kind has several), and
	// fileScans how many look-ups one page makes at most before it
	// offers the next.
	fileScan  = 200
	fileScans = 10
	// thumbWidth and previewWidth are the widths of the thumbnails the
	// list and a file's page show (of cms.ThumbnailWidths).
	thumbWidth   = 160
	previewWidth = 640
)

// filesPage is the data of the media library.
type filesPage struct {
	Kind      string
	Kinds     []option
	Files     []fileCard
	Next      string // the next page's address; "" on the last
	First     string // the first page's address when this is another
	Filtered  bool
	CanUpload bool
	Upload    string // the upload form's action
	Accept    string
	// Results are the outcomes of an upload without scripts.
	Results []uploadResult
	Refused int
	// NoFile marks an upload that sent no file.
	NoFile  bool
	Deleted string // the id of the file just deleted
}

// uploadResult is the outcome of one file of an upload.
type uploadResult struct {
	Name string
	// Card is the file stored (or the one already stored with the same
	// bytes, Existing); nil when refused.
	Card     *fileCard
	Existing bool
	Fail     string
}

// canReadFiles answers 403 unless the user may read files.
func (h *Handler) canReadFiles(w http.ResponseWriter, r *http.Request) (*session, bool) {
	s, _ := sessionFrom(r)
	if !s.P.Can(cms.AreaFile, cms.ActionRead) {
		h.fail(w, r, &cms.Error{Code: cms.CodeForbidden, Message: "Forbidden"})
		return s, false
	}
	return s, true
}

func (h *Handler) fileList(w http.ResponseWriter, r *http.Request) {
	s, ok := h.canReadFiles(w, r)
	if !ok {
		return
	}
	q := r.URL.Query()
	limit := filePageSize
	if n, err := strconv.Atoi(q.Get("limit")); err == nil && n >= 1 && n <= maxFilePageSize {
		limit = n
	}
	g, filtered := groupNamed(q.Get("kind"))
	after := q.Get("after")
	if !cms.IsFileID(after) {
		after = ""
	}
	files, next, err := h.filesOf(r.Context(), g, filtered, after, limit)
	if err != nil {
		h.fail(w, r, err)
		return
	}
	if wantsJSON(r) {
		out := struct {
			Files []fileCard `json:"files"`
			Next  string     `json:"next"`
		}{Files: []fileCard{}, Next: next}
		for _, f := range files {
			out.Files = append(out.Files, h.card(r, f))
		}
		writeListJSON(w, http.StatusOK, out)
		return
	}
	page := h.newFilesPage(s, g.Name)
	for _, f := range files {
		page.Files = append(page.Files, h.card(r, f))
	}
	link := func(after string) string {
		v := url.Values{}
		if filtered {
			v.Set("kind", g.Name)
		}
		if limit != filePageSize {
			v.Set("limit", strconv.Itoa(limit))
		}
		if after != "" {
			v.Set("after", after)
		}
		if len(v) == 0 {
			return h.url("/file/")
		}
		return h.url("/file/") + "?" + v.Encode()
	}
	if next != "" {
		page.Next = link(next)
	}
	if after != "" {
		page.First = link("")
	}
	page.Filtered = filtered
	if id := q.Get("deleted"); cms.IsFileID(id) {
		page.Deleted = id
	}
	h.render(w, r, http.StatusOK, "files", &view{Title: "Files", Session: s, Section: "file", Page: page})
}

// newFilesPage is the library page's frame: the filter and the upload
// form.
func (h *Handler) newFilesPage(s *session, kind string) *filesPage {
	page := &filesPage{Kind: kind, CanUpload: s.P.Can(cms.AreaFile, cms.ActionWrite), Upload: h.url("/file/upload")}
	page.Kinds = []option{{"", "All files", kind == ""}}
	for _, g := range fileGroups {
		page.Kinds = append(page.Kinds, option{g.Name, g.Label, g.Name == kind})
	}
	var exts []string
	for _, m := range mediaTypes {
		exts = append(exts, dotted(m.Exts)...)
	}
	page.Accept = strings.Join(exts, ",")
	return page
}

// filesOf reads a page of the caller's files after the file after,
// those of group g when filtered, and the cursor of the next page ("" on
// the last). A group has several types and ListFiles filters by one:
// pages of every file are read and filtered, at most fileScans of them,
// and the next page goes on from the last file read.
func (h *Handler) filesOf(ctx context.Context, g fileGroup, filtered bool, after string, limit int) ([]cms.File, string, error) {
	if !filtered {
		return h.svc.ListFiles(ctx, cms.FilePage{After: after, Limit: limit})
	}
	var out []cms.File
	cursor := after
	for range fileScans {
		files, next, err := h.svc.ListFiles(ctx, cms.FilePage{After: cursor, Limit: fileScan})
		if err != nil {
			return nil, "", err
		}
		for i, f := range files {
			cursor = f.ID
			if !g.takes(f) {
				continue
			}
			out = append(out, f)
			if len(out) == limit {
				if i == len(files)-1 && next == "" {
					return out, "", nil
				}
				return out, cursor, nil
			}
		}
		if next == "" {
			return out, "", nil
		}
	}
	return out, cursor, nil
}

// takes reports whether f is of the group.
func (g fileGroup) takes(f cms.File) bool {
	for _, t := range g.Types {
		if f.Type == t && (!g.Track || f.Track != nil) {
			return true
		}
	}
	return false
}

// fileUpload stores the files of the library's upload form (several
// "file" parts) or of a script (one): each streamed to the service as
// it arrives. A page shows the outcome of each beside its name; a script
// gets {"results":[{"name","file"}|{"name","fail"}]}, with the status of
// the first refusal.
func (h *Handler) fileUpload(w http.ResponseWriter, r *http.Request) {
	s, _ := sessionFrom(r)
	if !s.P.Can(cms.AreaFile, cms.ActionWrite) {
		h.fail(w, r, &cms.Error{Code: cms.CodeForbidden, Message: "Forbidden"})
		return
	}
	r.Body = http.MaxBytesReader(w, r.Body, maxFormFiles*maxUploadBody+64<<10)
	results, status, err := h.uploadParts(r)
	if err != nil {
		var svcErr serviceError
		switch {
		case errors.As(err, &svcErr):
			h.fail(w, r, svcErr.err)
		case isMaxBytes(err):
			h.renderError(w, r, http.StatusRequestEntityTooLarge, "Request too large: upload at most "+strconv.Itoa(maxFormFiles)+" files of "+strconv.Itoa(cms.MaxUpload>>20)+" MB at once.")
		default:
			h.renderError(w, r, http.StatusBadRequest, "The upload could not be read. Go back and try again.")
		}
		return
	}
	if len(results) == 0 {
		if wantsJSON(r) {
			writeListJSON(w, http.StatusBadRequest, struct {
				Fail string `json:"fail"`
			}{"Choose a file to upload."})
			return
		}
		status = http.StatusBadRequest
	}
	if wantsJSON(r) {
		type result struct {
			Name     string    `json:"name"`
			File     *fileCard `json:"file,omitempty"`
			Existing bool      `json:"existing,omitempty"`
			Fail     string    `json:"fail,omitempty"`
		}
		out := struct {
			Results []result `json:"results"`
		}{}
		for _, res := range results {
			out.Results = append(out.Results, result{res.Name, res.Card, res.Existing, res.Fail})
		}
		writeListJSON(w, status, out)
		return
	}
	page := h.newFilesPage(s, "")
	page.Results = results
	page.NoFile = len(results) == 0
	for _, res := range results {
		if res.Card == nil {
			page.Refused++
		}
	}
	files, next, err := h.svc.ListFiles(r.Context(), cms.FilePage{Limit: filePageSize})
	if err != nil {
		h.fail(w, r, err)
		return
	}
	for _, f := range files {
		page.Files = append(page.Files, h.card(r, f))
	}
	if next != "" {
		page.Next = h.url("/file/") + "?after=" + url.QueryEscape(next)
	}
	title := "Files"
	if page.Refused > 0 || page.NoFile {
		title = "Error: " + title
	}
	h.render(w, r, status, "files", &view{Title: title, Session: s, Section: "file", Page: page})
}

// serviceError is a failure of the service that ends an upload (the
// session ended, a permission, the database), unlike a refused file.
type serviceError struct{ err error }

func (e serviceError) Error() string { return e.err.Error() }

func isMaxBytes(err error) bool {
	_, ok := errors.AsType[*http.MaxBytesError](err)
	return ok
}

// uploadParts uploads every "file" part of a multipart body, in order,
// and returns their outcomes and the status of the answer: 200, or that
// of the first refusal.
func (h *Handler) uploadParts(r *http.Request) ([]uploadResult, int, error) {
	mr, err := r.MultipartReader()
	if err != nil {
		return nil, 0, err
	}
	status := http.StatusOK
	var results []uploadResult
	for {
		part, err := mr.NextPart()
		if errors.Is(err, io.EOF) {
			return results, status, nil
		}
		if err != nil {
			return nil, 0, err
		}
		if part.FormName() != "file" || part.FileName() == "" {
			if _, err := io.Copy(io.Discard, part); err != nil {
				return nil, 0, err
			}
			continue
		}
		res := uploadResult{Name: part.FileName()}
		var f *cms.File
		if len(results) >= maxFormFiles {
			err = &cms.Error{Code: cms.CodeTooLarge, Message: "Upload at most " + strconv.Itoa(maxFormFiles) + " files at once."}
		} else {
			f, res.Existing, err = h.svc.UploadFile(r.Context(), cms.Upload{Name: res.Name, Body: part})
		}
		if isMaxBytes(err) {
			return nil, 0, err
		}
		if _, drainErr := io.Copy(io.Discard, part); drainErr != nil {
			return nil, 0, drainErr
		}
		if err != nil {
			code, msg := errorText(err)
			if code == http.StatusUnauthorized || code == http.StatusForbidden || code >= 500 {
				return nil, 0, serviceError{err}
			}
			res.Fail = msg
			if status == http.StatusOK {
				status = code
			}
		} else {
			c := h.card(r, *f)
			res.Card = &c
		}
		results = append(results, res)
	}
}
