package admin

import (
	"context"
	"encoding/json"
	"errors"
	"io"
	"net/http"
	"regexp"
	"slices"
	"strconv"
	"strings"

	"github.com/bwcms/cms/cms"
)

// Maps edited on the map: a Map's form shows its primary and secondary
// Resources, and each day's of a multi-day tour, as numbered markers on a
// map beside its id lists (static/js/mapeditor.js). The page carries the
// locations of the Resources the form lists (mapEditorOf); the script asks
// two small JSON addresses for the rest:
//
//	GET <prefix>/mapeditor/places?ids=a,b        located or not, in the order asked
//	GET <prefix>/mapeditor/places?bbox=w,s,e,n   the account's located Resources in a box
//	GET <prefix>/mapeditor/track/{id}            the measured line of a TRACK Resource
//
// All go through cms.Service with the caller's principal: the same
// permissions and account as the API.

// mapEditorRoutes registers the map editor's JSON addresses.
func (h *Handler) mapEditorRoutes(mux *http.ServeMux) {
	mux.HandleFunc("GET /mapeditor/places", h.signedIn(h.mapPlaces))
	mux.HandleFunc("GET /mapeditor/track/{id}", h.signedIn(h.mapTrack))
}

const (
	// maxPlaceIDs bounds the ids of one places request (the script asks
	// for those added since the page was made, a few at a time).
	maxPlaceIDs = 200
	// maxNearPlaces bounds the candidates of one box: enough to choose
	// from, few enough to draw at once; the answer says when there are
	// more (zoom in).
	maxNearPlaces = 300
	// maxFormPlaces bounds the Resources whose locations a form carries.
	maxFormPlaces = 5000
	// maxTrackChoices bounds the TRACK Resources the form offers (by
	// title); the id box takes any other.
	maxTrackChoices = cms.MaxBrowseLimit
)

// place is what the map shows of a Resource. Lat and Lon are null for a
// Resource without a location.
type place struct {
	ID        string   `json:"id"`
	Title     string   `json:"title"`
	TitleLang string   `json:"titleLang,omitempty"`
	Type      string   `json:"type,omitempty"`
	Lat       *float64 `json:"lat"`
	Lon       *float64 `json:"lon"`
	// Track is set for a Resource whose trackFile names a file: its line
	// may be read from the track address.
	Track bool   `json:"track,omitempty"`
	Edit  string `json:"edit"`
}

// placesAnswer is the answer of the places address.
type placesAnswer struct {
	Places []place `json:"places"`
	// More is set when the box holds more Resources than were sent.
	More bool   `json:"more,omitempty"`
	Fail string `json:"fail,omitempty"`
}

func (h *Handler) placeOf(langs cms.Languages, e *cms.Entry) (place, bool) {
	r, ok := e.Record.(*cms.Resource)
	if !ok {
		return place{}, false
	}
	var titles map[string]string
	if t := r.Common().Title; t != nil {
		titles = *t
	}
	title, lang, _ := displayTitle(langs, titles)
	p := place{ID: r.ID, Title: title, TitleLang: lang, Type: r.ResourceType.Value, Edit: h.editURL(cms.KindResource, r.ID)}
	if r.LocationLat.Valid && r.LocationLon.Valid {
		p.Lat, p.Lon = &r.LocationLat.Value, &r.LocationLon.Value
	}
	if r.TrackFile.Valid {
		_, p.Track = fileIDOfURL(r.TrackFile.Value)
	}
	return p, true
}

// readPlaces reads the places of the Resources p selects, up to limit
// (0: no limit); more tells whether there were others.
func (h *Handler) readPlaces(ctx context.Context, langs cms.Languages, p cms.ReadParams, limit int) (out []place, more bool, err error) {
	p.Published, p.Uncounted = cms.PublishedAny, true
	if limit > 0 {
		p.Limit = limit + 1
	}
	seq, err := h.svc.Read(ctx, cms.KindResource, p)
	if err != nil {
		return nil, false, err
	}
	for e, err := range seq {
		if err != nil {
			return nil, false, err
		}
		if limit > 0 && len(out) == limit {
			return out, true, nil
		}
		if pl, ok := h.placeOf(langs, e); ok {
			out = append(out, pl)
		}
	}
	return out, false, nil
}

// mapPlaces answers GET <prefix>/mapeditor/places: the places of ids, or
// of a box. Errors are JSON {"fail": text}.
func (h *Handler) mapPlaces(w http.ResponseWriter, r *http.Request) {
	s, _ := sessionFrom(r)
	fail := func(status int, text string) {
		writeListJSON(w, status, placesAnswer{Places: []place{}, Fail: text})
	}
	if !s.P.Can(cms.KindResource, cms.ActionRead) {
		fail(http.StatusForbidden, "Your permissions do not allow reading Resources.")
		return
	}
	q := r.URL.Query()
	var params cms.ReadParams
	limit := 0
	switch {
	case q.Has("ids") == q.Has("bbox"):
		fail(http.StatusBadRequest, "Ask for ids or for a box.")
		return
	case q.Has("ids"):
		ids, ok := placeIDs(q.Get("ids"))
		if !ok {
			fail(http.StatusBadRequest, "Ask for 1 to "+strconv.Itoa(maxPlaceIDs)+" ids, separated by commas.")
			return
		}
		params.IDs = ids
	default:
		box, ok := parseBBox(q.Get("bbox"))
		if !ok {
			fail(http.StatusBadRequest, "The box must be west,south,east,north in degrees.")
			return
		}
		params.BBox, limit = box, maxNearPlaces
	}
	places, more, err := h.readPlaces(r.Context(), s.P.Langs, params, limit)
	if err != nil {
		status, text := errorText(err)
		if status >= 500 {
			h.log.Error("admin: places", "err", err)
		}
		fail(status, text)
		return
	}
	if places == nil {
		places = []place{}
	}
	w.Header().Set("Cache-Control", "no-store")
	writeListJSON(w, http.StatusOK, placesAnswer{Places: places, More: more})
}

// placeIDs reads a comma-separated list of ids: 1 to maxPlaceIDs valid
// ids, repeats dropped.
func placeIDs(raw string) ([]string, bool) {
	var ids []string
	for id := range strings.SplitSeq(raw, ",") {
		if !cms.ValidID(id) {
			return nil, false
		}
		if !slices.Contains(ids, id) {
			ids = append(ids, id)
		}
		if len(ids) > maxPlaceIDs {
			return nil, false
		}
	}
	return ids, len(ids) > 0
}

// decimalNumber is a plain decimal number, as the API's bbox takes it.
var decimalNumber = regexp.MustCompile(`^-?(0|[1-9][0-9]{0,2})(\.[0-9]{1,12})?$`)

// parseBBox reads west,south,east,north: each within its range, south <=
// north; west > east crosses the 180° meridian (DECISIONS §3).
func parseBBox(raw string) (*cms.BBox, bool) {
	parts := strings.Split(raw, ",")
	if len(parts) != 4 {
		return nil, false
	}
	var v [4]float64
	for i, s := range parts {
		if !decimalNumber.MatchString(s) {
			return nil, false
		}
		var err error
		if v[i], err = strconv.ParseFloat(s, 64); err != nil {
			return nil, false
		}
	}
	b := &cms.BBox{MinLon: v[0], MinLat: v[1], MaxLon: v[2], MaxLat: v[3]}
	lon := func(x float64) bool { return -180 <= x && x <= 180 }
	lat := func(x float64) bool { return -90 <= x && x <= 90 }
	if !lon(b.MinLon) || !lon(b.MaxLon) || !lat(b.MinLat) || !lat(b.MaxLat) || b.MinLat > b.MaxLat {
		return nil, false
	}
	return b, true
}

// mapTrack answers GET <prefix>/mapeditor/track/{id}: the GeoJSON of the
// measured track of the caller's Resource id (its trackFile's), 404 when
// it has none.
func (h *Handler) mapTrack(w http.ResponseWriter, r *http.Request) {
	s, _ := sessionFrom(r)
	fail := func(status int, text string) {
		writeListJSON(w, status, struct {
			Fail string `json:"fail"`
		}{text})
	}
	id := r.PathValue("id")
	if !s.P.Can(cms.KindResource, cms.ActionRead) {
		fail(http.StatusForbidden, "Your permissions do not allow reading Resources.")
		return
	}
	if !cms.ValidID(id) {
		fail(http.StatusNotFound, "There is no such Resource in your account.")
		return
	}
	seq, err := h.svc.Read(r.Context(), cms.KindResource, cms.ReadParams{IDs: []string{id}, Published: cms.PublishedAny, Uncounted: true})
	var res *cms.Resource
	if err == nil {
		for e, e2 := range seq {
			if err = e2; err != nil {
				break
			}
			res, _ = e.Record.(*cms.Resource)
		}
	}
	if err != nil {
		status, text := errorText(err)
		if status >= 500 {
			h.log.Error("admin: track of a Map's Resource", "err", err)
		}
		fail(status, text)
		return
	}
	if res == nil {
		fail(http.StatusNotFound, "There is no such Resource in your account.")
		return
	}
	fileID, ok := "", false
	if res.TrackFile.Valid {
		fileID, ok = fileIDOfURL(res.TrackFile.Value)
	}
	if !ok {
		fail(http.StatusNotFound, "This Resource has no measured track.")
		return
	}
	content, err := h.svc.OpenTrack(r.Context(), fileID)
	if err == nil && content.File.Account != s.P.Account {
		// A Resource may name another account's file address; its track
		// is not this account's to show.
		content.Body.Close()
		err = &cms.Error{Code: cms.CodeNotFound, Message: "Not found"}
	}
	if err != nil {
		status, text := errorText(err)
		if status == http.StatusNotFound {
			text = "This Resource has no measured track."
		} else if status >= 500 {
			h.log.Error("admin: track of a Map's Resource", "file", fileID, "err", err)
		}
		fail(status, text)
		return
	}
	defer content.Body.Close()
	w.Header().Set("Content-Type", content.Type)
	// The Resource may name another file tomorrow: asked again each time.
	w.Header().Set("Cache-Control", "private, no-cache")
	if _, err := io.Copy(w, content.Body); err != nil && !errors.Is(err, context.Canceled) {
		h.log.Warn("admin: track of a Map's Resource", "file", fileID, "err", err)
	}
}

// mapEditorView is what the Map form's map starts with (the "mapeditor"
// partial): the places of the Resources the form lists and the TRACK
// Resources to choose from.
type mapEditorView struct {
	// Data is mapEditorData as JSON, for the section's data-initial (an
	// attribute rather than a script block: pages hold no inline script).
	Data      string
	PlacesURL string
	TrackURL  string // + id
}

type mapEditorData struct {
	// Places are the form's Resources by id, null for an id without one.
	Places map[string]*place `json:"places"`
	// Tracks are the account's TRACK Resources, by title; TracksMore is
	// set when there are others.
	Tracks     []trackChoice `json:"tracks"`
	TracksMore bool          `json:"tracksMore,omitempty"`
}

type trackChoice struct {
	ID    string `json:"id"`
	Title string `json:"title"`
}

// mapEditorOf is the map editor of a Map's form, nil for other kinds or
// a user who may not read Resources. Failures leave the map without what
// failed (logged): the form still works without it.
func (h *Handler) mapEditorOf(ctx context.Context, fc *formCtx) *mapEditorView {
	if fc.kind != cms.KindMap || !fc.s.P.Can(cms.KindResource, cms.ActionRead) {
		return nil
	}
	data := h.mapEditorData(ctx, fc)
	raw, err := json.Marshal(data)
	if err != nil {
		h.log.Warn("admin: a Map's form map", "err", err)
		return nil
	}
	return &mapEditorView{PlacesURL: h.url("/mapeditor/places"), TrackURL: h.url("/mapeditor/track/"), Data: string(raw)}
}

// mapEditorData reads what the map of a Map's form starts with.
func (h *Handler) mapEditorData(ctx context.Context, fc *formCtx) mapEditorData {
	v := mapEditorData{Places: map[string]*place{}, Tracks: []trackChoice{}}
	ids := refIDs(fc.ks, fc.st)[string(cms.KindResource)]
	if len(ids) > maxFormPlaces {
		ids = ids[:maxFormPlaces]
	}
	for chunk := range slices.Chunk(ids, 1000) {
		places, _, err := h.readPlaces(ctx, fc.s.P.Langs, cms.ReadParams{IDs: chunk}, 0)
		if err != nil {
			h.log.Warn("admin: places of a Map's form", "err", err)
			break
		}
		for _, id := range chunk {
			v.Places[id] = nil
		}
		for _, p := range places {
			v.Places[p.ID] = &p
		}
	}
	page, err := h.svc.Browse(ctx, cms.KindResource, cms.BrowseParams{Sort: cms.BrowseTitle, Limit: maxTrackChoices,
		Published: cms.PublishedAny, Type: cms.ResourceTypeTrack})
	if err != nil {
		h.log.Warn("admin: TRACK Resources of a Map's form", "err", err)
		return v
	}
	for _, row := range page.Rows {
		title, _, _ := displayTitle(fc.s.P.Langs, row.Titles)
		v.Tracks = append(v.Tracks, trackChoice{ID: row.ID, Title: title})
	}
	v.TracksMore = page.Next != ""
	return v
}
