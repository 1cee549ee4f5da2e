// Package media tells what an uploaded file is, from its content alone, and
// makes thumbnails of images.
//
// [Detect] accepts six types and refuses everything else with a
// [*FormatError] whose message can be shown to the uploader, or with
// [ErrTooLarge] when the file is over its type's limit (see [Limits]):
//
//   - JPEG, PNG and WebP images, judged from their headers: the size in
//     pixels is read before anything is decoded, so a small file declaring
//     a huge image costs nothing. Animated WebP images are refused (they
//     cannot be decoded to make a thumbnail); an animated PNG is accepted
//     as its first frame, which is what PNG readers without animation show.
//     A JPEG's EXIF orientation is honoured: the dimensions reported and
//     the thumbnails are those of the picture turned upright.
//   - KML and GPX documents (GPX 1.0 and 1.1), read with encoding/xml: a
//     DTD or entity declaration is refused before anything is expanded, the
//     whole document must be well-formed UTF-8 XML, with bounded nesting
//     and token count.
//   - KMZ archives: a zip holding exactly one .kml document, in any folder,
//     and otherwise only images (.jpg, .jpeg, .png, .webp, .gif) and
//     folders. Entries are unpacked to count their real size, whatever the
//     archive declares, so a zip bomb is refused after at most the unpacked
//     limit; encrypted entries, compression other than deflate, and names
//     that would leave a folder are refused. The .kml document is checked
//     like a KML file and returned in [Info.KML].
//
// A file's name is never consulted, nor a type declared with it.
//
// [Thumbnail] scales an image to a width, never enlarging it, in two steps:
// whole blocks of pixels averaged, then the Catmull-Rom kernel of
// golang.org/x/image/draw. [Verify] decodes a whole image, for callers that
// want to refuse a file whose header is sound but whose pixels are not.
//
// The package keeps no state; everything is safe for concurrent use.
// Decoding an image holds it whole in memory (about 4 bytes a pixel), so
// callers bound how many thumbnails or verifications run at once.
//
//	f, _ := os.Open(path)
//	st, _ := f.Stat()
//	info, err := media.Detect(f, st.Size(), media.Limits{})
//	var fe *media.FormatError
//	switch {
//	case errors.Is(err, media.ErrTooLarge):
//		// 413
//	case errors.As(err, &fe):
//		// 409 with fe.Msg
//	}
package media
