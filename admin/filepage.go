package admin

import (
	"fmt"
	"net/http"
	"strconv"

	"github.com/bwcms/cms/cms"
)

// A file's page, <prefix>/file/{id}: a preview (an image at 640 pixels,
// a track's figures), its url to copy, the records that use it (links to
// their forms) and Delete, which asks first (POST
// <prefix>/file/{id}/delete, then again with confirm=yes) and is refused
// while a record uses the file.

// fileCard is what pages and scripts show of a file. Name is the name
// it was uploaded with: text, never HTML.
type fileCard struct {
	ID        string `json:"id"`
	Name      string `json:"name"`
	URL       string `json:"url"`
	Page      string `json:"page"`
	Type      string `json:"type"`
	TypeLabel string `json:"typeLabel"`
	Size      string `json:"size"`
	Width     int    `json:"width,omitempty"`
	Height    int    `json:"height,omitempty"`
	// Thumb is an image's thumbnail (ThumbWidth wide), "" for others.
	Thumb       string        `json:"thumb,omitempty"`
	ThumbWidth  int           `json:"thumbWidth,omitempty"`
	ThumbHeight int           `json:"thumbHeight,omitempty"`
	Created     string        `json:"created"`
	Track       *trackFigures `json:"track,omitempty"`
}

// card is f as pages show it, its url as r's client reaches it.
func (h *Handler) card(r *http.Request, f cms.File) fileCard {
	c := fileCard{ID: f.ID, Name: f.Name, URL: h.api.FileURL(r, f), Page: h.url("/file/" + f.ID),
		Type: f.Type, TypeLabel: typeLabel(f.Type), Size: sizeText(f.Size), Width: f.Width, Height: f.Height,
		Created: f.Created.In(h.svc.Location()).Format("2006-01-02 15:04"), Track: figuresOf(f.Track)}
	if isImageType(f.Type) && f.Width > 0 && f.Height > 0 {
		c.Thumb = c.URL + "?w=" + strconv.Itoa(thumbWidth)
		c.ThumbWidth, c.ThumbHeight = scaled(f.Width, f.Height, thumbWidth)
	}
	return c
}

// scaled are the dimensions of a w×h image made width wide (never
// wider than it is: thumbnails are not enlarged).
func scaled(w, h, width int) (int, int) {
	if w <= width {
		return w, h
	}
	return width, max(1, (h*width+w/2)/w)
}

// sizeText writes a byte count for people: "812 bytes", "14.2 KB",
// "3.4 MB" (of 1024).
func sizeText(n int64) string {
	switch {
	case n < 1024:
		return strconv.FormatInt(n, 10) + " bytes"
	case n < 1024*1024:
		return fmt.Sprintf("%.1f KB", float64(n)/1024)
	}
	return fmt.Sprintf("%.1f MB", float64(n)/(1024*1024))
}

// oneFilePage is the data of a file's page.
type oneFilePage struct {
	File fileCard
	// Preview is the image at previewWidth, with its dimensions.
	Preview              string
	PreviewW, PreviewH   int
	SHA256               string
	Uses                 []fileUseView
	CanDelete            bool
	Delete               string // the delete form's action
	Confirm              bool   // asking before a delete
	Refused              string // why a delete was refused
	ListURL              string
	TrackStart, TrackEnd string
	TrackCircular        bool
	// TrackName and TrackText are the file's own name and description,
	// shown as text (never as HTML).
	TrackName, TrackText string
}

// fileUseView is one record field that names the file.
type fileUseView struct {
	Kind  string // "Resource"
	ID    string
	Field string
	Edit  string // the record's form; "" when the user may not read its kind
}

func (h *Handler) filePage(w http.ResponseWriter, r *http.Request) {
	h.showFile(w, r, http.StatusOK, false, "")
}

// showFile renders the page of the file of the path; confirm asks before
// a delete, refused says why one was refused.
func (h *Handler) showFile(w http.ResponseWriter, r *http.Request, status int, confirm bool, refused string) {
	s, ok := h.canReadFiles(w, r)
	if !ok {
		return
	}
	id := r.PathValue("id")
	if !cms.IsFileID(id) {
		h.renderError(w, r, http.StatusNotFound, "There is no such file in your account.")
		return
	}
	f, uses, err := h.svc.GetFile(r.Context(), id)
	if err != nil {
		if cms.ErrorCode(err) == cms.CodeNotFound {
			h.renderError(w, r, http.StatusNotFound, "There is no such file in your account.")
			return
		}
		h.fail(w, r, err)
		return
	}
	page := oneFilePage{File: h.card(r, *f), SHA256: f.SHA256, CanDelete: s.P.Can(cms.AreaFile, cms.ActionDelete),
		Delete: h.url("/file/" + f.ID + "/delete"), Confirm: confirm, Refused: refused, ListURL: h.url("/file/")}
	if page.File.Thumb != "" {
		page.Preview = page.File.URL + "?w=" + strconv.Itoa(previewWidth)
		page.PreviewW, page.PreviewH = scaled(f.Width, f.Height, previewWidth)
	}
	if t := page.File.Track; t != nil {
		page.TrackStart, page.TrackEnd, page.TrackCircular = t.Start, t.End, t.Circular
	}
	if f.Track != nil {
		page.TrackName, page.TrackText = f.Track.Name, f.Track.Description
	}
	for _, u := range uses {
		k := cms.Kind(u.FromKind)
		v := fileUseView{Kind: kindLabels[k].one, ID: u.FromID, Field: u.Field}
		if v.Kind == "" {
			v.Kind = string(k)
		}
		if s.P.Can(k, cms.ActionRead) {
			v.Edit = h.editURL(k, u.FromID)
		}
		page.Uses = append(page.Uses, v)
	}
	title := f.Name
	if refused != "" {
		title = "Error: " + title
	}
	h.render(w, r, status, "file", &view{Title: title, Session: s, Section: "file", Page: page})
}

// fileDelete asks first, then deletes the file; a file a record uses is
// refused with the service's text, which names the record.
func (h *Handler) fileDelete(w http.ResponseWriter, r *http.Request) {
	s, _ := sessionFrom(r)
	r.Body = http.MaxBytesReader(w, r.Body, 64<<10)
	if err := r.ParseForm(); err != nil {
		h.renderError(w, r, http.StatusBadRequest, "The form could not be read. Go back and try again.")
		return
	}
	if !s.P.Can(cms.AreaFile, cms.ActionDelete) {
		h.fail(w, r, &cms.Error{Code: cms.CodeForbidden, Message: "Forbidden"})
		return
	}
	if r.PostForm.Get("confirm") != "yes" {
		h.showFile(w, r, http.StatusOK, true, "")
		return
	}
	id := r.PathValue("id")
	if err := h.svc.DeleteFile(r.Context(), id); err != nil {
		switch cms.ErrorCode(err) {
		case cms.CodeConflict:
			_, msg := errorText(err)
			h.showFile(w, r, http.StatusConflict, false, msg)
		case cms.CodeNotFound:
			h.renderError(w, r, http.StatusNotFound, "There is no such file in your account.")
		default:
			h.fail(w, r, err)
		}
		return
	}
	http.Redirect(w, r, h.url("/file/")+"?deleted="+id, http.StatusSeeOther)
}
