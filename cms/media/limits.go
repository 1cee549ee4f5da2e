package media

// Limits bounds what [Detect] accepts. A zero or negative field takes its
// default, so the zero Limits is the default set.
type Limits struct {
	// ImageBytes is the largest JPEG, PNG or WebP file, in bytes.
	// Default 20 MB (20 << 20).
	ImageBytes int64
	// ImagePixels is the largest image, width times height, read from the
	// header before any pixel is decoded. Default 40,000,000.
	ImagePixels int64
	// XMLBytes is the largest KML or GPX document, in bytes; it also bounds
	// the .kml document inside a KMZ. Default 10 MB (10 << 20).
	XMLBytes int64
	// KMZBytes is the largest KMZ file as uploaded (compressed), in bytes.
	// Default 2 MB (2 << 20).
	KMZBytes int64
	// KMZUnpacked bounds the bytes of all entries of a KMZ together once
	// unpacked, counted while reading (sizes the archive declares are not
	// trusted). Default 10 MB (10 << 20).
	KMZUnpacked int64
	// KMZEntries is the most entries (files and folders) a KMZ may hold.
	// Default 1,000.
	KMZEntries int
}

// Default limits, as documented on each field of [Limits].
const (
	DefaultImageBytes  = 20 << 20
	DefaultImagePixels = 40_000_000
	DefaultXMLBytes    = 10 << 20
	DefaultKMZBytes    = 2 << 20
	DefaultKMZUnpacked = 10 << 20
	DefaultKMZEntries  = 1000
)

// Bounds of the XML well-formedness pass. They are far above what real KML
// and GPX files need (a deep KML nests about 15 elements) and keep a hostile
// document from costing more than a few passes over its bytes.
const (
	maxXMLDepth  = 256
	maxXMLTokens = 4_000_000
)

func (l Limits) withDefaults() Limits {
	if l.ImageBytes <= 0 {
		l.ImageBytes = DefaultImageBytes
	}
	if l.ImagePixels <= 0 {
		l.ImagePixels = DefaultImagePixels
	}
	if l.XMLBytes <= 0 {
		l.XMLBytes = DefaultXMLBytes
	}
	if l.KMZBytes <= 0 {
		l.KMZBytes = DefaultKMZBytes
	}
	if l.KMZUnpacked <= 0 {
		l.KMZUnpacked = DefaultKMZUnpacked
	}
	if l.KMZEntries <= 0 {
		l.KMZEntries = DefaultKMZEntries
	}
	return l
}
