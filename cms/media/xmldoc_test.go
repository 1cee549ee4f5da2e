package media

import (
	"bytes"
	"fmt"
	"strings"
	"testing"
)

const kmlNS = `xmlns="http://www.opengis.net/kml/2.2"`

// kmlDoc is a KML document with n placemarks, each a short line.
func kmlDoc(n int) []byte {
	var b bytes.Buffer
	b.WriteString(`<?xml version="1.0" encoding="UTF-8"?>` + "\n<kml " + kmlNS + "><Document><name>Route</name>\n")
	for i := range n {
		fmt.Fprintf(&b, "<Placemark><name>Point %d</name><description><![CDATA[<p>Stop & look</p>]]></description>"+
			"<LineString><coordinates>7.%06d,46.%06d,1200 7.%06d,46.%06d,1210</coordinates></LineString></Placemark>\n", i, i, i, i+1, i+1)
	}
	b.WriteString("</Document></kml>\n")
	return b.Bytes()
}

func gpxDoc(version string, points int) []byte {
	var b bytes.Buffer
	fmt.Fprintf(&b, `<?xml version="1.0"?>`+"\n"+`<gpx version="%s" creator="test" xmlns="http://www.topografix.com/GPX/1/1"><trk><name>Run</name><trkseg>`, version)
	for i := range points {
		fmt.Fprintf(&b, `<trkpt lat="46.%06d" lon="7.%06d"><ele>%d</ele><time>2024-05-01T10:%02d:00Z</time></trkpt>`, i, i, 1000+i, i%60)
	}
	b.WriteString("</trkseg></trk></gpx>")
	return b.Bytes()
}

func TestDetectXML(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name string
		data []byte
		want string
	}{
		{"kml", kmlDoc(50), KML},
		{"kml without declaration", []byte("<kml " + kmlNS + "><Document/></kml>"), KML},
		{"kml without namespace", []byte("<kml><Placemark/></kml>"), KML},
		{"kml 2.1 namespace", []byte(`<kml xmlns="http://earth.google.com/kml/2.1"><Document/></kml>`), KML},
		{"kml with a prefix", []byte(`<k:kml xmlns:k="http://www.opengis.net/kml/2.2"><k:Document/></k:kml>`), KML},
		{"kml with BOM, spaces, comments and a processing instruction", append([]byte(bomUTF8),
			[]byte("\n\n  <?xml version=\"1.0\" encoding=\"utf-8\"?>\n<!-- made by hand -->\n<?app x?>\n<kml "+kmlNS+">\n<Document/>\n</kml>\n<!-- end -->\n")...), KML},
		{"kml declaring us-ascii", []byte(`<?xml version="1.0" encoding="US-ASCII"?><kml/>`), KML},
		{"kml declaring UTF8", []byte(`<?xml version="1.0" encoding="UTF8"?><kml/>`), KML},
		{"gpx 1.1", gpxDoc("1.1", 100), GPX},
		{"gpx 1.0", gpxDoc("1.0", 10), GPX},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			got, err := detectBytes(tt.data, Limits{})
			if err != nil {
				t.Fatal(err)
			}
			if got.Type != tt.want || got.Ext != Ext(tt.want) || got.Width != 0 || got.KML != nil {
				t.Errorf("Detect = %+v, want type %s", got, tt.want)
			}
		})
	}
}

func TestDetectRefusesXMLAndText(t *testing.T) {
	t.Parallel()
	deep := "<kml>" + strings.Repeat("<Folder>", 300) + strings.Repeat("</Folder>", 300) + "</kml>"
	tests := []struct {
		name string
		data string
		want string
	}{
		{"empty", "", "the file is empty"},
		{"text", "Hello, this is a plain text file.\nNothing more.\n", msgNotAccepted},
		{"spaces only", "   \n\t ", msgNotAccepted},
		{"html", "<!DOCTYPE html>\n<html><head><meta charset=utf-8><title>x</title></head><body><p>Hi</body></html>", msgNotAccepted},
		{"xhtml", `<?xml version="1.0"?><html xmlns="http://www.w3.org/1999/xhtml"><body/></html>`, msgNotAccepted},
		{"svg", `<svg xmlns="http://www.w3.org/2000/svg" width="10" height="10"><script>alert(1)</script></svg>`, msgNotAccepted},
		{"json", `{"type":"FeatureCollection","features":[]}`, msgNotAccepted},
		{"gif", "GIF89a\x01\x00\x01\x00\x00\x00\x00;", msgNotAccepted},
		{"pdf", "%PDF-1.7\n", msgNotAccepted},
		{"text after a less-than", "<3 you", msgNotAccepted},
		{"Kml in another case", "<KML></KML>", msgNotAccepted},
		{"xml 1.1", `<?xml version="1.1"?><kml/>`, msgNotAccepted},
		{"utf-16", "\xff\xfe<\x00k\x00m\x00l\x00/\x00>\x00", "UTF-16"},
		{"gpx 1.2", string(gpxDoc("1.2", 3)), `the GPX file is version "1.2"; only GPX 1.0 and 1.1 are accepted`},
		{"gpx 2", `<gpx version="2.0"/>`, `version "2.0"`},
		{"gpx without version", `<gpx creator="x"><trk/></gpx>`, "the GPX file does not say its version"},
		{"gpx version in a namespace", `<gpx xmlns:o="urn:o" o:version="1.1"/>`, "does not say its version"},
		{"kml in shift_jis", `<?xml version="1.0" encoding="Shift_JIS"?><kml><name>caf` + "\xe9" + `</name></kml>`, `the KML file declares the encoding "Shift_JIS"; only UTF-8, ISO-8859-1 and Windows-1252 are accepted`},
		{"kml not closed", "<kml><Document><name>x</name></Document>", "the KML file is not well-formed XML (line 1:"},
		{"kml crossed tags", "<kml>\n<Document>\n<Folder></Document></Folder></kml>", "the KML file is not well-formed XML (line 3: found </Document> where </Folder> was expected)"},
		{"kml with an unknown entity", "<kml><name>&nbsp;</name></kml>", "the KML file is not well-formed XML"},
		{"kml with invalid utf-8", "<kml><name>\xff\xfe</name></kml>", "the KML file is not well-formed XML"},
		{"kml with two roots", "<kml></kml><kml></kml>", "the KML file is not well-formed XML: it has more than one root element"},
		{"kml with text after its root", "<kml></kml>trailing", "it has text after its root element"},
		{"kml nested 300 deep", deep, "the KML file nests elements more than 256 levels deep"},
		{"gpx not closed", `<gpx version="1.1"><trk>`, "the GPX file is not well-formed XML"},
		{"kml with a doctype", `<!DOCTYPE kml><kml/>`, "the KML file declares a DTD, which is not accepted"},
		{"kml with a directive after the root", `<kml/><!DOCTYPE kml>`, "the KML file declares a DTD, which is not accepted"},
		{"gpx with a doctype", `<?xml version="1.0"?><!DOCTYPE gpx SYSTEM "http://example.com/gpx.dtd"><gpx version="1.1"/>`, "the GPX file declares a DTD, which is not accepted"},
		{"external entity", `<?xml version="1.0"?>
<!DOCTYPE kml [<!ENTITY xxe SYSTEM "file:///etc/passwd">]>
<kml ` + kmlNS + `><Document><name>&xxe;</name></Document></kml>`, "the KML file declares a DTD, which is not accepted"},
		{"parameter entity", `<!DOCTYPE kml [<!ENTITY % remote SYSTEM "http://example.com/x.dtd"> %remote;]><kml/>`, "declares a DTD"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			got, err := detectBytes([]byte(tt.data), Limits{})
			wantFormatError(t, err, tt.want)
			if got.Type != "" || got.Ext != "" || got.KML != nil {
				t.Errorf("a refusal returned %+v, want the zero Info", got)
			}
		})
	}
}

// billionLaughs is the classic entity bomb: ten levels of ten references,
// a billion "lol"s (3 GB) if expanded, under 1 KB as written.
func billionLaughs(root string) []byte {
	var b strings.Builder
	b.WriteString("<?xml version=\"1.0\"?>\n<!DOCTYPE " + root + " [\n<!ENTITY lol \"lol\">\n")
	prev := "lol"
	for i := 1; i <= 9; i++ {
		fmt.Fprintf(&b, "<!ENTITY lol%d \"%s\">\n", i, strings.Repeat("&"+prev+";", 10))
		prev = fmt.Sprintf("lol%d", i)
	}
	b.WriteString("]>\n<" + root + " version=\"1.1\"><name>&lol9;</name></" + root + ">\n")
	return []byte(b.String())
}

// The entity bomb is refused from its DTD, before anything is expanded, in
// bounded memory. Not parallel: the allocation count is this test's own.
func TestDetectRefusesEntityBomb(t *testing.T) {
	for _, root := range []string{"kml", "gpx"} {
		bomb := billionLaughs(root)
		if len(bomb) > 1024 {
			t.Fatalf("bomb of %d bytes, want under 1 KB", len(bomb))
		}
		var err error
		n := allocated(func() { _, err = detectBytes(bomb, Limits{}) })
		wantFormatError(t, err, "declares a DTD, which is not accepted")
		if n > 1<<20 {
			t.Errorf("%s: refusing the bomb allocated %d bytes, want under 1 MB", root, n)
		}
	}
}

// An 11 MB KML is over the 10 MB limit: ErrTooLarge, found from its root
// element without reading the rest.
func TestDetectXMLSizeLimit(t *testing.T) {
	t.Parallel()
	big := kmlDoc(60000)
	if len(big) < 11<<20 {
		big = kmlDoc(60000 * (11 << 20) / len(big))
	}
	if len(big) < 11<<20 {
		t.Fatalf("test KML of %d bytes, want at least 11 MB", len(big))
	}
	_, err := detectBytes(big, Limits{})
	wantTooLarge(t, err)

	// A GPX too; a text file of that size is simply not accepted.
	_, err = detectBytes(gpxDoc("1.1", 200), Limits{XMLBytes: 1000})
	wantTooLarge(t, err)
	_, err = detectBytes(bytes.Repeat([]byte("text "), 3<<20), Limits{})
	wantFormatError(t, err, msgNotAccepted)
	// But a GPX of the wrong version says so, whatever its size.
	_, err = detectBytes(gpxDoc("1.2", 200), Limits{XMLBytes: 1000})
	wantFormatError(t, err, `version "1.2"`)

	// Just under the limit: read whole and accepted.
	doc := kmlDoc(10000) // 2 MB
	info, err := detectBytes(doc, Limits{XMLBytes: int64(len(doc))})
	if err != nil || info.Type != KML {
		t.Fatalf("KML of %d bytes at a limit of as many: %+v, %v", len(doc), info, err)
	}
	// The limit counts every byte of the file, a BOM too.
	withBOM := append([]byte(bomUTF8), doc...)
	_, err = detectBytes(withBOM, Limits{XMLBytes: int64(len(doc))})
	wantTooLarge(t, err)
	// A broken end is found however long the document.
	_, err = detectBytes(doc[:len(doc)-10], Limits{})
	wantFormatError(t, err, "the KML file is not well-formed XML")
}

func TestDetectXMLTokenLimit(t *testing.T) {
	t.Parallel()
	// 4,000,001 empty elements is over the token bound, in 20 MB.
	doc := []byte("<kml>" + strings.Repeat("<a/>", maxXMLTokens/2+1) + "</kml>")
	_, err := detectBytes(doc, Limits{XMLBytes: int64(len(doc))})
	wantFormatError(t, err, "the KML file has more than 4000000 XML elements, texts and comments")
}

func TestDetectXMLNesting(t *testing.T) {
	t.Parallel()
	tests := []struct{ doc, want string }{
		{"<kml><a></b></kml>", "found </b> where </a> was expected"},
		{"<k:kml xmlns:k=\"u\"><k:a></a></k:kml>", "found </a> where </k:a> was expected"},
		{"<kml><a>", "<a> is not closed"},
		{"<kml>\n\n<a/>", "line 3: unexpected end of file: <kml> is not closed"},
		{"<gpx version=\"1.1\"></gpx></trk>", "found </trk> where nothing was expected"},
	}
	for _, tt := range tests {
		_, err := detectBytes([]byte(tt.doc), Limits{})
		wantFormatError(t, err, tt.want)
	}
	// Same names in other prefixes are different elements.
	if _, err := detectBytes([]byte(`<kml xmlns:a="u" xmlns:b="u"><a:x></a:x><b:x/></kml>`), Limits{}); err != nil {
		t.Error(err)
	}
}
