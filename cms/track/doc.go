// Package track reads GPS tracks from GPX and KML files and measures them:
// distance, ascent and descent, duration, whether the track is circular,
// its bounding box, start and end, and a simplified line served as
// GeoJSON. It uses only the standard library.
//
//	t, err := track.ParseGPX(file, track.Limits{})
//	var fe *track.FormatError
//	switch {
//	case errors.Is(err, track.ErrTooLarge): // over the size or point limit
//	case errors.As(err, &fe): // fe.Msg says what was wrong, for the user
//	case err != nil: // reading failed
//	}
//	s := track.Measure(t)
//	err = track.GeoJSON(w, t, s)
//
// # Reading files safely
//
// [ParseGPX] and [ParseKML] read XML without a DTD: a file with any
// <!DOCTYPE> or <!ENTITY> directive is refused before anything is expanded,
// so an entity bomb costs no more than its own bytes. The bytes read are
// bounded by [Limits].MaxBytes (10 MB by default), the points by
// [Limits].MaxPoints (2,000,000), element nesting by 100 levels; passing a
// limit is an error for which errors.Is(err, [ErrTooLarge]) holds. Memory
// stays within a small multiple of MaxBytes. Files are read in UTF-8; a
// declared US-ASCII, ISO-8859-1 or Windows-1252 is converted, and any other
// encoding is refused. Every refusal of the content is a [*FormatError]
// whose text says what was wrong ("not a GPX file: the root element is
// <html>", "latitude 123.4 is out of range at point 17"). A file must hold
// at least one line of two points.
//
// # Measuring
//
// [Measure] sums great circle distances on a sphere of the mean Earth
// radius, 6,371,008.8 m, between consecutive points of each segment; a gap
// between two segments (a GPS that lost its fix, two tracks in one file)
// is not walked.
//
// Ascent and descent use a 5 m hysteresis, so that the noise of a GPS or a
// barometer does not add up: along each segment a reference elevation is
// kept, starting at the segment's first elevation. When a point's elevation
// is at least 5 m above the reference, the difference is added to the
// ascent and the point's elevation becomes the reference; at least 5 m below,
// the difference is added to the descent likewise; anything in between
// changes nothing. Points without an elevation are skipped. Jitter of less
// than 5 m from peak to peak thus counts nothing, and a real climb or drop
// counts in full but for less than 5 m at each turn of the profile: a 503 m
// climb and the way back down count 500 m up and 500 m down.
//
// A track has an elevation when at least 90% of its points carry one, the
// duration is from the first point's time to the last's when every point
// has one, and a track is circular when its start and end are within 100 m.
//
// # Simplifying
//
// [Simplify] reduces the line by Douglas-Peucker with distances in meters
// on a local projection: the tolerance is 2 m (less than a GPS can tell),
// raised just enough to leave at most 5,000 points. [GeoJSON] writes that
// line and the summary as one GeoJSON Feature; its documentation gives the
// shape.
package track
