package cms

import (
	"context"
	"math"
	"reflect"
	"strconv"
	"strings"
)

// maxLayerSize is the largest file mapLayerFile may name.
const maxLayerSize = 2 << 20

// namedFiles are the files a write names, read once in its transaction.
type namedFiles map[string]*File

// checkFiles judges the file fields patch sets: a URL of one of the
// service's files (by the request's own url prefixes, or by the shape of
// a file url naming a file the account holds) must name a file of the
// caller's account of the field's type. It returns the files it read
// (for deriveTrack), with those of trackFiles (the Resource's trackFile
// before and after the merge) added.
func (s *Service) checkFiles(ctx context.Context, tx upsertStore, p Principal, patch Record, trackFiles ...string) (namedFiles, []fieldProblem, error) {
	oc := s.doc.kinds[patch.Kind()]
	uses := fileUses(oc.spec, reflect.ValueOf(patch).Elem(), "", "", false, nil)
	own := ownFileURLs(ctx)
	var ids []string
	var problems []fieldProblem
	for _, u := range uses {
		id, ok := fileIDOf(u.url)
		switch {
		case ok:
			ids = append(ids, id)
		case own.holds(u.url):
			problems = append(problems, fieldProblem{u.path, "must name one of this service's files: this address names none"})
		}
	}
	for _, u := range trackFiles {
		if id, ok := fileIDOf(u); ok {
			ids = append(ids, id)
		}
	}
	if len(ids) == 0 {
		return nil, problems, nil
	}
	found, err := tx.GetFiles(ctx, p.Account, Dedupe(ids))
	if err != nil {
		return nil, nil, err
	}
	files := make(namedFiles, len(found))
	for i := range found {
		files[found[i].ID] = &found[i]
	}
	for _, u := range uses {
		id, ok := fileIDOf(u.url)
		if !ok {
			continue
		}
		f := files[id]
		if f == nil {
			if own.holds(u.url) {
				problems = append(problems, fieldProblem{u.path, "must name a file of this account: file " + id + " does not exist"})
			}
			continue // a URL elsewhere of the same shape
		}
		if text := fileFits(u.rule, f); text != "" {
			problems = append(problems, fieldProblem{u.path, text})
		}
	}
	return files, problems, nil
}

// fileFits returns why f cannot be named by a field of rule ("" when it
// can).
func fileFits(rule string, f *File) string {
	switch rule {
	case "image":
		if f.Width == 0 {
			return "must be a JPEG, PNG or WebP image: file " + f.ID + " is " + fileDescription(f)
		}
	case "layer":
		if ext := FileExt(f.Type); ext != "kml" && ext != "kmz" {
			return "must be a KML or KMZ file: file " + f.ID + " is " + fileDescription(f)
		}
		if f.Size > maxLayerSize {
			return "must be a KML or KMZ file of at most 2 MB: file " + f.ID + " is " + fileDescription(f)
		}
	case "trackfile":
		if f.Track == nil {
			return "must be a GPX or KML file holding a track: file " + f.ID + " is " + fileDescription(f)
		}
	}
	return ""
}

// fileDescription says what f is, for problem texts: "a PNG image", "a
// KML file of 3.1 MB without a track".
func fileDescription(f *File) string {
	ext := strings.ToUpper(FileExt(f.Type))
	var b strings.Builder
	switch {
	case f.Width > 0:
		b.WriteString("a " + ext + " image")
	case f.Track != nil:
		b.WriteString("a " + ext + " track")
	default:
		b.WriteString("a " + ext + " file")
	}
	if f.Size > maxLayerSize {
		b.WriteString(" of " + strconv.FormatFloat(float64(f.Size)/(1<<20), 'f', 2, 64) + " MB")
	}
	if f.Track == nil && (ext == "GPX" || ext == "KML") {
		b.WriteString(" without a track")
	}
	return b.String()
}

// trackFileOf returns the trackFile of a Resource ("" for other kinds or
// none).
func trackFileOf(rec Record) string {
	if r, ok := rec.(*Resource); ok && r.TrackFile.Valid {
		return r.TrackFile.Value
	}
	return ""
}

// deriveTrack fills a TRACK Resource's measured fields from the track
// file it names: each of the figures the body leaves out that is still
// derived (on create: always; on update: it equals what the file named
// before measured, or nothing was measured before), and, when the file is
// newly named, the location from the start when both coordinates are
// unset. An explicit value or null in the body wins.
func deriveTrack(merged, patch Record, files namedFiles, before string, created bool) {
	r, ok := merged.(*Resource)
	if !ok || r.ResourceType.Value != ResourceTypeTrack {
		return
	}
	pr := patch.(*Resource)
	now := fileNamed(files, r.TrackFile)
	if now == nil || now.Track == nil {
		return
	}
	var was *File
	if id, ok := fileIDOf(before); ok {
		was = files[id]
	}
	is := trackFigures(now)
	var old trackFigureSet
	if was != nil && was.Track != nil {
		old = trackFigures(was)
	}
	derive := func(body, field *Null[int64], measured, before Null[int64]) {
		if body.Set {
			return
		}
		if created || (was == nil || was.Track == nil) && !field.Valid || sameNull(*field, before) {
			*field = measured
		}
	}
	derive(&pr.TrackTravelDistance, &r.TrackTravelDistance, is.distance, old.distance)
	derive(&pr.TrackSlopeUp, &r.TrackSlopeUp, is.ascent, old.ascent)
	derive(&pr.TrackSlopeDown, &r.TrackSlopeDown, is.descent, old.descent)
	derive(&pr.TrackDuration, &r.TrackDuration, is.duration, old.duration)
	if !pr.TrackCircular.Set && (created || (was == nil || was.Track == nil) && !r.TrackCircular.Valid || sameNull(r.TrackCircular, old.circular)) {
		r.TrackCircular = is.circular
	}
	// The location is filled when the file is named (on create, or
	// another file than before), not on every write: one cleared by an
	// explicit null stays cleared.
	named := created || was == nil || was.ID != now.ID
	if named && !pr.LocationLat.Set && !pr.LocationLon.Set && !r.LocationLat.Valid && !r.LocationLon.Valid {
		lon, lat := now.Track.Start.Lon, now.Track.Start.Lat
		r.LocationLat, r.LocationLon = Null[float64]{Value: lat, Valid: true, Set: true}, Null[float64]{Value: lon, Valid: true, Set: true}
	}
}

// sameNull reports whether a and b hold the same value (or are both
// null), whatever their Set.
func sameNull[T comparable](a, b Null[T]) bool {
	return a.Valid == b.Valid && (!a.Valid || a.Value == b.Value)
}

func fileNamed(files namedFiles, u Null[string]) *File {
	if !u.Valid {
		return nil
	}
	id, ok := fileIDOf(u.Value)
	if !ok {
		return nil
	}
	return files[id]
}

// trackFigureSet is what a track file gives the Resource's fields, as
// stored: whole meters and minutes; a figure below its field's minimum
// (a 0 m track, a 0-minute duration) is null.
type trackFigureSet struct {
	distance, ascent, descent, duration Null[int64]
	circular                            Null[bool]
}

func trackFigures(f *File) trackFigureSet {
	t := f.Track
	whole := func(v float64, min int64) Null[int64] {
		n := int64(math.Round(v))
		if math.IsNaN(v) || n < min {
			return Null[int64]{Set: true}
		}
		return Null[int64]{Value: n, Valid: true, Set: true}
	}
	set := trackFigureSet{
		distance: whole(t.Distance, 1),
		circular: Null[bool]{Value: t.Circular, Valid: true, Set: true},
		duration: Null[int64]{Set: true},
	}
	if t.HasElevation {
		set.ascent, set.descent = whole(t.Ascent, 0), whole(t.Descent, 0)
	} else {
		set.ascent, set.descent = Null[int64]{Set: true}, Null[int64]{Set: true}
	}
	if t.Duration != nil {
		set.duration = whole(*t.Duration, 1)
	}
	return set
}
