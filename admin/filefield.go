package admin

import (
	"context"
	"net/url"
	"path"
	"strings"

	"github.com/bwcms/cms/cms"
)

// The upload control of the record form's file fields (image,
// multimedia, mapLayerFile, trackFile, the Maps' custom...File, items'
// images: every URL field whose rule takes files, filetype.go). Beside
// the URL input:
//
//   - <div class="file-tools" data-for="<control id>" data-kind="image"
//     data-accept=".jpg,.jpeg,.png,.webp" [data-multiple]> holding a
//     labelled <input type="file" name="_upload.<control name>"
//     id="<control id>-upload" accept="..."> and a submit button
//     _action=upload:<control name>. Without scripts the form (sent as
//     multipart/form-data) uploads the chosen files with any button and
//     puts their urls in the field (a list of URLs gets one line each);
//     filefield.js uploads at once instead and adds "Choose from files".
//   - A track field naming one of the account's files with a track shows
//     the track's figures (<dl class="file-track">).

// fileControl is the upload control of a file field.
type fileControl struct {
	Accept string
	// Kind is the fileGroup the picker lists ("" for none).
	Kind string
	// Multiple marks a list of URLs: several files, one line each.
	Multiple  bool
	InputID   string
	InputName string
	Action    string
	// CanUpload and CanChoose follow file:write and file:read.
	CanUpload bool
	CanChoose bool
	exts      []string
	// Track is the track of the file the field names, when it holds one.
	Track *trackFigures
	// TrackNote says what a save does with the track's figures.
	TrackNote string
}

// AcceptText names the files the field takes: ".jpg, .jpeg, .png or
// .webp files".
func (fc *fileControl) AcceptText() string { return acceptText(fc.exts) }

// ctlUpload prefixes the file input of a file field's control name.
const ctlUpload = "_upload."

// fileControlOf is the upload control of c, a control of p, when p is a
// file field the form can change; nil otherwise.
func (b *formBuild) fileControlOf(c *formControl, p *propSchema) *fileControl {
	a := fileAcceptOf(p)
	if a == nil || !b.editable || c.ReadOnly || !(c.Widget == "text" && c.InputType == "url" || c.Widget == "lines") {
		return nil
	}
	fc := &fileControl{Accept: a.Accept(), exts: a.Exts, Kind: a.Group, Multiple: c.Widget == "lines",
		InputID: c.ID + "-upload", InputName: ctlUpload + c.Name, Action: "upload:" + c.Name,
		CanUpload: b.perms.Can(cms.AreaFile, cms.ActionWrite), CanChoose: b.perms.Can(cms.AreaFile, cms.ActionRead) && a.Group != ""}
	if !fc.CanUpload && !fc.CanChoose {
		return nil
	}
	if a.Group == "track" {
		if f := b.files[strings.TrimSpace(c.Value)]; f != nil && f.Track != nil {
			fc.Track = figuresOf(f.Track)
			fc.TrackNote = "The track fields left empty are filled from this file when the record is saved."
		}
	}
	return fc
}

// fileIDOfURL is the id of the service's file a URL names when its path
// has the shape of a file url (".../file/{id}/{name}"), as the service
// reads it: whatever the host, since references are kept by id.
func fileIDOfURL(raw string) (string, bool) {
	u, err := url.Parse(strings.TrimSpace(raw))
	if err != nil || u.Path == "" {
		return "", false
	}
	dir, name := path.Split(u.Path)
	dir = strings.TrimSuffix(dir, "/")
	parent, id := path.Split(dir)
	if name == "" || !strings.HasSuffix(parent, "/file/") || !cms.IsFileID(id) {
		return "", false
	}
	return id, true
}

// trackFiles reads the files with a track that the state's track fields
// name, by the URL the field holds, for the figures beside them. Files
// of other accounts, and any error, leave a field without figures.
func (h *Handler) trackFiles(ctx context.Context, p cms.Principal, ks *kindSchema, st *formState) map[string]*cms.File {
	if !p.Can(cms.AreaFile, cms.ActionRead) {
		return nil
	}
	out := map[string]*cms.File{}
	for _, f := range ks.fields {
		pr := ks.props[f.Name]
		if f.MultiLang || f.Items != nil || pr == nil || pr.File == nil || pr.File.Group != "track" {
			continue
		}
		raw := strings.TrimSpace(st.get(f.Name))
		id, ok := fileIDOfURL(raw)
		if !ok || out[raw] != nil {
			continue
		}
		file, _, err := h.svc.GetFile(ctx, id)
		if err != nil {
			if code := cms.ErrorCode(err); code != cms.CodeNotFound && code != cms.CodeForbidden {
				h.log.Warn("admin: track of a form", "file", id, "err", err)
			}
			continue
		}
		out[raw] = file
	}
	return out
}
