package track

import (
	"runtime"
	"strings"
	"testing"
)

// billionLaughs is the classic entity bomb: ten levels of ten references,
// 10^9 copies of "lol" (3 GB) once expanded, in under 1 KB.
func billionLaughs(root string) string {
	var b strings.Builder
	b.WriteString(`<?xml version="1.0"?>` + "\n<!DOCTYPE " + root + " [\n <!ENTITY lol \"lol\">\n")
	prev := "lol"
	for i := 1; i <= 9; i++ {
		name := "lol" + string(rune('0'+i))
		b.WriteString(" <!ENTITY " + name + " \"" + strings.Repeat("&"+prev+";", 10) + "\">\n")
		prev = name
	}
	b.WriteString("]>\n<" + root + "><name>&" + prev + ";</name></" + root + ">\n")
	return b.String()
}

// Not parallel: it measures the memory the parser allocates.
func TestEntityBombRefused(t *testing.T) {
	for _, tc := range []struct {
		root, kind string
		parse      func(string) (*Track, error)
	}{{"gpx", "GPX", parseGPXString}, {"kml", "KML", parseKMLString}} {
		bomb := billionLaughs(tc.root)
		if len(bomb) > 1024 {
			t.Fatalf("bomb of %d bytes", len(bomb))
		}
		var before, after runtime.MemStats
		runtime.ReadMemStats(&before)
		tr, err := tc.parse(bomb)
		runtime.ReadMemStats(&after)
		wantFormatError(t, err, "the "+tc.kind+" file declares a document type or entities (<!DOCTYPE> or <!ENTITY>), which are not accepted")
		if tr != nil {
			t.Error("a track came back")
		}
		if alloc := after.TotalAlloc - before.TotalAlloc; alloc > 1<<20 {
			t.Errorf("%s: refusing the bomb allocated %d bytes; want under 1 MB", tc.kind, alloc)
		}
	}
}

func TestEntityOutsideDoctypeRefused(t *testing.T) {
	t.Parallel()
	_, err := parseGPXString(`<!ENTITY x "y"><gpx/>`)
	wantFormatError(t, err, "the GPX file declares a document type or entities (<!DOCTYPE> or <!ENTITY>), which are not accepted")
	// A directive after the root element is refused just the same.
	_, err = parseGPXString(gpxDoc(`<trk><trkseg><trkpt lat="1" lon="1"/><trkpt lat="2" lon="1"/></trkseg></trk>`) + `<!DOCTYPE gpx>`)
	wantFormatError(t, err, "the GPX file declares a document type or entities (<!DOCTYPE> or <!ENTITY>), which are not accepted")
}

func TestDepthBound(t *testing.T) {
	t.Parallel()
	line := `<Placemark><LineString><coordinates>1,1 1,2</coordinates></LineString></Placemark>`
	// kml, the Folders, Placemark, LineString and coordinates: 96 Folders
	// make 100 levels, 97 one too many.
	nested := func(n int) string {
		return kmlDoc(strings.Repeat("<Folder>", n) + line + strings.Repeat("</Folder>", n))
	}
	if _, err := parseKMLString(nested(96)); err != nil {
		t.Errorf("100 levels: %v", err)
	}
	_, err := parseKMLString(nested(97))
	wantFormatError(t, err, "the KML file nests elements more than 100 deep")
	_, err = parseKMLString(kmlDoc(strings.Repeat("<Folder>", 1_000_000)))
	wantFormatError(t, err, "the KML file nests elements more than 100 deep")
}

func TestCommentsAndInstructionsAllowed(t *testing.T) {
	t.Parallel()
	doc := `<?xml version="1.0" encoding="us-ascii"?>
<!-- exported by a device -->
<?xml-stylesheet href="x.xsl"?>
<gpx version="1.1"><!-- a comment --><trk><trkseg><trkpt lat="1" lon="1"/><![CDATA[ ]]><trkpt lat="1.1" lon="1"/></trkseg></trk></gpx>
<!-- the end -->
`
	if _, err := parseGPXString(doc); err != nil {
		t.Fatal(err)
	}
}

func TestPlainText(t *testing.T) {
	t.Parallel()
	tests := []struct{ in, want string }{
		{"Lake walk", "Lake walk"},
		{"  two\n\tlines  ", "two lines"},
		{"<p>One</p><p>Two <b>bold</b>.</p>", "One Two bold."},
		{"a<br/>b<br>c", "a b c"},
		{"x < y &amp; y > z", "x < y & y > z"},
		{"&lt;b&gt;literal&lt;/b&gt;", "<b>literal</b>"},
		{"<script>alert(1)</script>ok<style>p{}</style>", "ok"},
		{"<a href=\"x\">link</a> &eacute;t&#233;", "link été"},
		{"bad \xff utf-8", "bad \uFFFD utf-8"},
		{"<!-- note -->after", "after"},
	}
	for _, tt := range tests {
		if got := plainText(tt.in, 1000); got != tt.want {
			t.Errorf("plainText(%q) = %q, want %q", tt.in, got, tt.want)
		}
	}
	if got := plainText(strings.Repeat("é", 10), 5); got != "éé" {
		t.Errorf("cut = %q, want two whole runes", got)
	}
}

func TestLongTextsCut(t *testing.T) {
	t.Parallel()
	doc := gpxDoc(`<metadata><name>` + strings.Repeat("N", 2000) + `</name><desc>` + strings.Repeat("word ", 10_000) + `</desc></metadata>` +
		`<trk><trkseg><trkpt lat="1" lon="1"/><trkpt lat="1.1" lon="1"/></trkseg></trk>`)
	tr, err := parseGPXString(doc)
	if err != nil {
		t.Fatal(err)
	}
	if len(tr.Name) != 500 || len(tr.Description) > 10_000 || len(tr.Description) < 9_990 {
		t.Errorf("name %d bytes, description %d: want 500 and at most 10,000", len(tr.Name), len(tr.Description))
	}
}
