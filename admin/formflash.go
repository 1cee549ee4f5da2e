package admin

import (
	"encoding/base64"
	"encoding/json"
	"net/http"
	"strconv"
	"strings"
	"time"

	"github.com/bwcms/cms/cms"
)

// A save, a clone or a delete answers 303 to the page to show next; what
// it did travels in a short-lived cookie of the admin's that the next
// page of that record reads once (a reload shows the form alone).
const (
	flashCookie = "bw_admin_flash"
	flashKept   = time.Minute
	// maxFlash bounds the cookie (browsers keep 4 KB a cookie).
	maxFlash = 3000
)

// flash is what the page of record Kind ID says after a redirect.
type flash struct {
	Kind cms.Kind `json:"k"`
	ID   string   `json:"i"`
	// Saved is the outcome of a save: "created", "updated", "skipped".
	Saved string `json:"s,omitempty"`
	// ClonedFrom is the id of the record this one was cloned from.
	ClonedFrom string `json:"c,omitempty"`
	// Restored is the revision the save restored.
	Restored int64 `json:"r,omitempty"`
	// Cleaned lists the HTML fields that sanitizing changed.
	Cleaned []cleaned `json:"h,omitempty"`
}

// cleaned is an HTML field that sanitizing changed, with what it removed.
type cleaned struct {
	Field   string   `json:"f"`
	Removed []string `json:"r,omitempty"`
}

func (h *Handler) setFlash(w http.ResponseWriter, r *http.Request, f flash) {
	for {
		b, err := json.Marshal(f)
		if err != nil {
			return
		}
		v := base64.RawURLEncoding.EncodeToString(b)
		if len(v) <= maxFlash || len(f.Cleaned) == 0 {
			h.setCookie(w, r, flashCookie, v, flashKept)
			return
		}
		f.Cleaned = f.Cleaned[:len(f.Cleaned)-1]
	}
}

// takeFlash reads and clears the flash of record kind id as notices,
// with the outcome of the save it reports ("" when it reports none).
func (h *Handler) takeFlash(w http.ResponseWriter, r *http.Request, kind cms.Kind, id string) ([]notice, string) {
	v := h.cookie(r, flashCookie)
	if v == "" {
		return nil, ""
	}
	h.setCookie(w, r, flashCookie, "", 0)
	b, err := base64.RawURLEncoding.DecodeString(v)
	var f flash
	if err != nil || json.Unmarshal(b, &f) != nil || f.Kind != kind || f.ID != id {
		return nil, ""
	}
	var out []notice
	rev := strconv.FormatInt(f.Restored, 10)
	switch {
	case f.Restored > 0 && f.Saved == "updated":
		out = append(out, notice{Kind: "ok", Text: "Restored revision " + rev + ": the record has its values again, saved as a new revision."})
	case f.Restored > 0 && f.Saved == "skipped":
		out = append(out, notice{Kind: "ok", Text: "Nothing to restore: the record already had the values of revision " + rev + "."})
	case f.Saved == "created":
		out = append(out, notice{Kind: "ok", Text: "Saved: " + kindLabels[kind].one + " " + id + " created."})
	case f.Saved == "updated":
		out = append(out, notice{Kind: "ok", Text: "Saved."})
	case f.Saved == "skipped":
		out = append(out, notice{Kind: "ok", Text: "Saved: nothing had changed."})
	}
	if f.ClonedFrom != "" {
		out = append(out, notice{Kind: "ok", Text: "This is a copy of " + f.ClonedFrom + ", unpublished. Change what differs and save."})
	}
	if len(f.Cleaned) > 0 {
		n := notice{Kind: "warn", Text: "Sanitizing changed the HTML of these fields when saving; check them:"}
		for _, c := range f.Cleaned {
			line := c.Field
			if len(c.Removed) > 0 {
				line += ": removed " + strings.Join(c.Removed, ", ")
			}
			n.Items = append(n.Items, line)
		}
		out = append(out, n)
	}
	return out, f.Saved
}
