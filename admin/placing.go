package admin

// Placing a Resource and showing its track, on the Resource form (issue
// 27). Two rows join the form's rows (templates/partials/placing.tmpl):
//
//   - <div class="place" data-lat="f-locationLat" data-lon="f-locationLon"
//     data-zoom="f-locationZoom" [data-editable] [data-area="s,w,n,e"
//     data-area-count="n"]> holds the rows of locationLat, locationLon
//     and locationZoom (unchanged: they stay the keyboard way and what a
//     save sends), and beside them the map (#place-map, a labelled
//     region), the paste field (#place-paste), "Use this zoom"
//     (#place-zoom) and the warning of a pair that looks swapped
//     (#place-swapped). The map and tools are hidden until
//     locationmap.js shows them. data-area is the account's area: where
//     its other located Resources lie (accountArea).
//   - <section class="track-panel" data-state="..." data-geojson="...">
//     after trackFile's row: the track's line on a map with its start and
//     end, the elevation profile and the figures (trackmap.js draws them
//     from <prefix>/file/{id}/track.geojson), or a sentence saying why
//     there is nothing to draw. Hidden unless the Resource is a TRACK or
//     names a track file.

import (
	"context"
	"encoding/json"
	"math"
	"net/http"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/bwcms/cms/cms"
)

// placeRow is the location controls with the map beside them.
type placeRow struct {
	Rows                 []*formRow
	LatID, LonID, ZoomID string
	Editable             bool
	// Area is "south,west,north,east" in degrees ("" when the account has
	// no other located Resource); AreaCount how many Resources made it.
	Area      string
	AreaCount int
}

// trackRow is the track panel of a Resource form.
type trackRow struct {
	Hidden bool
	// State: "measured", "none" (no file named), "foreign" (not a file
	// of this service), "missing" (no such file in the account),
	// "notrack" (the file holds no line), "unknown" (the user cannot
	// read files: the script asks).
	State   string
	Message string
	// GeoJSON is the admin's address of the track's line ("" for none).
	GeoJSON      string
	Figures      *trackFigures
	HasElevation bool
	TypeID       string // the resourceType control's id
	FileID       string // the trackFile control's id
}

// The location fields the map edits, by wire name.
const (
	wireLat  = "locationLat"
	wireLon  = "locationLon"
	wireZoom = "locationZoom"
)

// addPlacing puts the location map and the track panel in a Resource
// form's rows.
func (h *editor) addPlacing(ctx context.Context, fc *formCtx, b *formBuild, v *formView) {
	if fc.kind != cms.KindResource {
		return
	}
	v.Placing = true
	var rows []*formRow
	var place *placeRow
	for _, r := range v.Rows {
		c := r.Control
		switch {
		case c != nil && (c.Name == wireLat || c.Name == wireLon || c.Name == wireZoom):
			if place == nil {
				place = &placeRow{Editable: b.editable && !c.ReadOnly}
				place.Area, place.AreaCount = h.accountArea(ctx, fc.id)
				rows = append(rows, &formRow{Place: place})
			}
			place.Rows = append(place.Rows, r)
			switch c.Name {
			case wireLat:
				place.LatID = c.ID
			case wireLon:
				place.LonID = c.ID
			default:
				place.ZoomID = c.ID
			}
		case c != nil && c.Name == "trackFile":
			rows = append(rows, r, &formRow{Track: h.trackRow(b, c)})
		default:
			rows = append(rows, r)
		}
	}
	v.Rows = rows
}

// trackRow says what the form knows of the track its trackFile names.
func (h *editor) trackRow(b *formBuild, c *formControl) *trackRow {
	raw := strings.TrimSpace(c.Value)
	t := &trackRow{TypeID: controlID("resourceType"), FileID: c.ID,
		Hidden: raw == "" && b.st.get("resourceType") != "TRACK"}
	id, ours := fileIDOfURL(raw)
	switch {
	case raw == "":
		t.State, t.Message = "none", "No track file yet: upload a GPX or KML file into Track file, and its line and elevation profile show here."
		return t
	case !ours:
		t.State, t.Message = "foreign", "This track file is not one uploaded here, so it was not measured and cannot be drawn. Upload it to see its line and profile."
		return t
	}
	t.GeoJSON = h.url("/file/" + id + "/track.geojson")
	f := b.files[raw]
	switch {
	case f != nil && f.Track != nil:
		t.State, t.Figures, t.HasElevation = "measured", figuresOf(f.Track), f.Track.HasElevation
		if !t.HasElevation {
			t.Message = "This track has no elevations, so it has no profile."
		}
	case f != nil:
		t.State, t.Message, t.GeoJSON = "notrack", "This file holds no line to measure, so there is no track to draw.", ""
	case b.perms.Can(cms.AreaFile, cms.ActionRead):
		t.State, t.Message, t.GeoJSON = "missing", "There is no uploaded file of this account at this address.", ""
	default:
		t.State, t.Message = "unknown", "The track is read from its file when the page's scripts run."
	}
	return t
}

// areaSample is the most located Resources the area is made of: one
// read of at most this many records per form shown (the first ones by
// id), a sample of the account's places, not all of them.
const areaSample = 500

// accountArea is where the account's located Resources other than self
// lie, as "south,west,north,east": the box from the 2nd to the 98th
// percentile of their latitudes and longitudes (a few misplaced ones do
// not stretch it), widened by a quarter of its size and at least one
// degree each way. "" when there is none. A failed read leaves the form
// without the area (no swapped warning), logged.
func (h *editor) accountArea(ctx context.Context, self string) (string, int) {
	seq, err := h.svc.Read(ctx, cms.KindResource, cms.ReadParams{Published: cms.PublishedAny, Uncounted: true,
		Limit: areaSample, BBox: &cms.BBox{MinLon: -180, MinLat: -90, MaxLon: 180, MaxLat: 90}})
	if err != nil {
		h.log.Warn("admin: the account's area", "err", err)
		return "", 0
	}
	var lats, lons []float64
	for e, err := range seq {
		if err != nil {
			h.log.Warn("admin: the account's area", "err", err)
			return "", 0
		}
		r, ok := e.Record.(*cms.Resource)
		if !ok || e.Record.RecordID() == self || !r.LocationLat.Valid || !r.LocationLon.Valid {
			continue
		}
		lats, lons = append(lats, r.LocationLat.Value), append(lons, r.LocationLon.Value)
	}
	if len(lats) == 0 {
		return "", 0
	}
	s, n := spread(lats)
	w, e := spread(lons)
	s, n = math.Max(s, -90), math.Min(n, 90)
	w, e = math.Max(w, -180), math.Min(e, 180)
	f := func(v float64) string { return strconv.FormatFloat(v, 'f', 6, 64) }
	return f(s) + "," + f(w) + "," + f(n) + "," + f(e), len(lats)
}

// spread is the range from the 2nd to the 98th percentile of vs, widened
// by a quarter of its width and at least one degree on each side.
func spread(vs []float64) (lo, hi float64) {
	slices.Sort(vs)
	last := float64(len(vs) - 1)
	lo, hi = vs[int(math.Floor(0.02*last))], vs[int(math.Ceil(0.98*last))]
	pad := math.Max(1, (hi-lo)/4)
	return lo - pad, hi + pad
}

// placingRoutes registers the track line the form's map draws.
func (h *Handler) placingRoutes(mux *http.ServeMux) {
	mux.HandleFunc("GET /file/{id}/track.geojson", h.signedIn(h.trackGeoJSON))
}

// trackGeoJSON answers the GeoJSON of a track file of the user's
// account (the API serves the same at its public address; this one is on
// the admin's origin, which the pages' connect-src allows). 404 for a
// file of another account, one without a track, or none.
func (h *Handler) trackGeoJSON(w http.ResponseWriter, r *http.Request) {
	s, _ := sessionFrom(r)
	c, err := h.svc.OpenTrack(r.Context(), r.PathValue("id"))
	if err == nil && c.File.Account != s.P.Account {
		c.Body.Close()
		err = &cms.Error{Code: cms.CodeNotFound, Message: "Not found"}
	}
	if err != nil {
		status, msg := http.StatusNotFound, "This file holds no track."
		if cms.ErrorCode(err) != cms.CodeNotFound {
			status, msg = errorText(err)
			if status >= 500 {
				h.log.Error("admin: a track's line", "err", err)
			}
		}
		w.Header().Set("Content-Type", "application/json")
		w.Header().Set("Cache-Control", "no-store")
		w.WriteHeader(status)
		_ = json.NewEncoder(w).Encode(map[string]string{"fail": msg})
		return
	}
	defer c.Body.Close()
	hd := w.Header()
	hd.Set("Content-Type", c.Type)
	// A file's line never changes; it is one user's (signed in), so
	// private.
	hd.Set("Cache-Control", "private, max-age=86400")
	hd.Set("ETag", c.ETag)
	http.ServeContent(w, r, "", time.Time{}, c.Body)
}
