package admin

import (
	"errors"
	"io"
	"mime"
	"mime/multipart"
	"net/http"
	"net/url"
	"slices"
	"strconv"
	"strings"

	"github.com/bwcms/cms/cms"
)

// The record form is sent as multipart/form-data, so that the file
// inputs of its file fields upload without scripts: any button uploads
// the files chosen and puts their urls in their fields before it does
// what it does (a save saves them, "Upload" only shows them). Scripts
// upload at once instead (filefield.js) and send no file.

const (
	// maxUploadBody is the largest body of one upload: the service's
	// largest accepted file and room for multipart framing.
	maxUploadBody = cms.MaxUpload + 64<<10
	// maxFormFiles bounds the files one post of a form uploads.
	maxFormFiles = 10
)

// formUpload is one file a posted record form uploaded.
type formUpload struct {
	Field string // the control name of the file field
	Name  string // the file's name as sent
	File  *cms.File
	Err   error
}

// isMultipart reports a multipart/form-data body.
func isMultipart(r *http.Request) bool {
	mt, _, err := mime.ParseMediaType(r.Header.Get("Content-Type"))
	return err == nil && mt == "multipart/form-data"
}

// readPostedForm reads a posted record form, urlencoded (parseForm) or
// multipart: then the files of its file inputs are uploaded as they
// stream in, when the user may change records of the form's kind.
func (h *editor) readPostedForm(w http.ResponseWriter, r *http.Request) ([]formUpload, error) {
	if !isMultipart(r) {
		r.Body = http.MaxBytesReader(w, r.Body, maxFormBody)
		return nil, parseForm(r)
	}
	r.Body = http.MaxBytesReader(w, r.Body, maxFormBody+maxFormFiles*maxUploadBody)
	s, _ := sessionFrom(r)
	first, _, _ := strings.Cut(strings.TrimPrefix(r.URL.Path, "/"), "/")
	kind, err := cms.ParseKind(first)
	upload := err == nil && s != nil && s.P.Can(kind, cms.ActionWrite)
	return h.readMultipartForm(r, upload)
}

// readMultipartForm reads a multipart form into r.PostForm (and r.Form)
// without ParseForm's limit of 10,000 fields: its text parts, at most
// maxFormBody bytes of them. Each part "_upload.<control name>" holding a
// file is uploaded through the service as it streams in (never held
// whole), when upload is true; skipped otherwise.
func (h *editor) readMultipartForm(r *http.Request, upload bool) ([]formUpload, error) {
	mr, err := r.MultipartReader()
	if err != nil {
		return nil, err
	}
	vals := url.Values{}
	var uploads []formUpload
	left := int64(maxFormBody)
	for {
		part, err := mr.NextPart()
		if errors.Is(err, io.EOF) {
			break
		}
		if err != nil {
			return nil, err
		}
		name := part.FormName()
		if field, ok := strings.CutPrefix(name, ctlUpload); ok || isFilePart(part) {
			if ok && part.FileName() != "" && upload {
				uploads = append(uploads, h.uploadPart(r, field, part, len(uploads)))
			}
			if _, err := io.Copy(io.Discard, part); err != nil {
				return nil, err
			}
			continue
		}
		b, err := io.ReadAll(io.LimitReader(part, left+1))
		if err != nil {
			return nil, err
		}
		left -= int64(len(b))
		if left < 0 {
			return nil, &http.MaxBytesError{Limit: maxFormBody}
		}
		vals[name] = append(vals[name], string(b))
	}
	r.PostForm, r.Form = vals, vals
	return uploads, nil
}

// uploadPart uploads one file of a form; n is how many it uploaded before.
func (h *editor) uploadPart(r *http.Request, field string, part *multipart.Part, n int) formUpload {
	u := formUpload{Field: field, Name: part.FileName()}
	if n >= maxFormFiles {
		u.Err = &cms.Error{Code: cms.CodeTooLarge, Message: "a form uploads at most " + strconv.Itoa(maxFormFiles) + " files at once"}
		return u
	}
	u.File, _, u.Err = h.svc.UploadFile(r.Context(), cms.Upload{Name: u.Name, Body: part})
	return u
}

// isFilePart reports a part of a file input: its disposition has a
// filename (empty when no file was chosen).
func isFilePart(part *multipart.Part) bool {
	_, params, err := mime.ParseMediaType(part.Header.Get("Content-Disposition"))
	_, ok := params["filename"]
	return err == nil && ok
}

// applyUploads puts the urls of a form's uploads in their fields (a list
// of URLs gets one line each) and returns the problems of those refused,
// each on its field and naming the file, and a notice of those done.
// Files for a control the form does not carry, or that is no file
// field, are left out.
func (h *editor) applyUploads(r *http.Request, fc *formCtx, uploads []formUpload) ([]cms.Problem, string) {
	var probs []cms.Problem
	var done []string
	for _, u := range uploads {
		_, p, ok := fc.ks.fieldAt(u.Field)
		a := fileAcceptOf(p)
		if !ok || a == nil || !fc.st.carries(ownerOf(u.Field)) {
			continue
		}
		refuse := func(text string) {
			probs = append(probs, cms.Problem{Kind: fc.kind, ID: fc.st.get("id"), Field: u.Field,
				Text: strconv.Quote(u.Name) + " was not uploaded into this field. " + sentence(text)})
		}
		if u.Err != nil {
			_, msg := errorText(u.Err)
			refuse(msg)
			continue
		}
		if text := fileFits(a, u.File); text != "" {
			refuse(text)
			continue
		}
		link := h.api.FileURL(r, *u.File)
		if p.Type == "array" {
			fc.st.vals[u.Field] = append(fc.st.vals[u.Field], link)
		} else {
			fc.st.vals.Set(u.Field, link)
		}
		done = append(done, u.Name)
	}
	if len(done) == 0 {
		return probs, ""
	}
	return probs, "Uploaded " + strings.Join(done, ", ") + ": the url is in its field (not saved yet)."
}

// fileFits says why file does not fit a field that takes a ("" when it
// does): another type, or a track field's file without a track.
func fileFits(a *fileAccept, f *cms.File) string {
	if !slices.Contains(a.Exts, cms.FileExt(f.Type)) {
		return "This field takes " + acceptText(a.Exts) + ", not a " + typeLabel(f.Type) + "; the file is kept in Files."
	}
	if a.Group == "track" && f.Track == nil {
		return "The file holds no track; it is kept in Files."
	}
	return ""
}

// acceptText names the files of extensions exts: ".jpg, .jpeg or .png
// files".
func acceptText(exts []string) string {
	d := dotted(exts)
	if len(d) == 1 {
		return d[0] + " files"
	}
	return strings.Join(d[:len(d)-1], ", ") + " or " + d[len(d)-1] + " files"
}

// sentence makes a message a sentence: a capital first, a full stop last.
func sentence(s string) string {
	s = problemText(strings.TrimSpace(s))
	if s != "" && !strings.HasSuffix(s, ".") {
		s += "."
	}
	return s
}

func dotted(exts []string) []string {
	out := make([]string, len(exts))
	for i, e := range exts {
		out[i] = "." + e
	}
	return out
}
