package track

import (
	"errors"
	"fmt"
	"strings"
	"testing"
	"time"
)

// gpxDoc wraps track content in a GPX 1.1 root.
func gpxDoc(body string) string {
	return `<?xml version="1.0" encoding="UTF-8"?>
<gpx version="1.1" creator="test" xmlns="http://www.topografix.com/GPX/1/1">` + body + "</gpx>\n"
}

func parseGPXString(s string) (*Track, error) { return ParseGPX(strings.NewReader(s), Limits{}) }

func TestParseGPXHike(t *testing.T) {
	t.Parallel()
	tr := readSample(t, "hike.gpx")
	want := sampleOf(t, "hike.gpx")
	if len(tr.Segments) != 1 || tr.Points() != want.points {
		t.Fatalf("segments %d, points %d; want 1 and %d (the waypoint is not a track point)", len(tr.Segments), tr.Points(), want.points)
	}
	if tr.Name != "Round of the Alpe & lakes" {
		t.Errorf("Name = %q", tr.Name)
	}
	if tr.Description != "A loop past three lakes." {
		t.Errorf("Description = %q, want the markup removed", tr.Description)
	}
	seg := tr.Segments[0]
	first := seg[0]
	if first.Lat != 46.000004 || first.Lon != 7.500001 || !first.HasEle || first.Ele != 1200 {
		t.Errorf("first point = %+v", first)
	}
	if !first.Time.Equal(time.Date(2024, 6, 1, 7, 30, 0, 0, time.UTC)) {
		t.Errorf("first time = %v", first.Time)
	}
	for i, p := range seg {
		if !p.HasEle || p.Time.IsZero() {
			t.Fatalf("point %d lacks elevation or time: %+v", i+1, p)
		}
		if p.Ele > 2000 {
			t.Fatalf("point %d took the elevation of an extension: %v", i+1, p.Ele)
		}
	}
}

func TestParseGPX10Ride(t *testing.T) {
	t.Parallel()
	tr := readSample(t, "ride.gpx")
	if tr.Name != "Morning ride" || tr.Description != "Along the river" {
		t.Errorf("texts = %q, %q (GPX 1.0 keeps them on the root)", tr.Name, tr.Description)
	}
	var lens []int
	for _, s := range tr.Segments {
		lens = append(lens, len(s))
	}
	if fmt.Sprint(lens) != "[600 400 500]" {
		t.Errorf("segments = %v, want [600 400 500]: two trkseg of the first trk, then the second trk", lens)
	}
}

func TestParseGPXSegmentsInOrder(t *testing.T) {
	t.Parallel()
	tr, err := parseGPXString(gpxDoc(`
<wpt lat="1" lon="1"/>
<trk><name>A</name><trkseg><trkpt lat="1" lon="1"/><trkpt lat="1.1" lon="1"/></trkseg>
<trkseg></trkseg>
<trkseg><trkpt lat="2" lon="2"/><trkpt lat="2.1" lon="2"/><trkpt lat="2.2" lon="2"/></trkseg></trk>
<rte><rtept lat="9" lon="9"/><rtept lat="9.1" lon="9"/></rte>
<trk><name>B</name><desc>second</desc><trkseg><trkpt lat="3" lon="3"/><trkpt lat="3.1" lon="3"/></trkseg></trk>`))
	if err != nil {
		t.Fatal(err)
	}
	got := ""
	for _, s := range tr.Segments {
		got += fmt.Sprintf("[%v..%v]", s[0].Lat, s[len(s)-1].Lat)
	}
	if got != "[1..1.1][2..2.2][3..3.1]" {
		t.Errorf("segments = %s: want the three non-empty trksegs in order, no route, no waypoint", got)
	}
	if tr.Name != "A" || tr.Description != "second" {
		t.Errorf("texts = %q, %q: want the first of each", tr.Name, tr.Description)
	}
}

func TestParseGPXRoutesWhenNoTrack(t *testing.T) {
	t.Parallel()
	tr, err := parseGPXString(gpxDoc(`
<rte><name>Planned</name><rtept lat="45" lon="7"><ele>100</ele></rtept><rtept lat="45.01" lon="7"><ele>110</ele></rtept></rte>
<rte><rtept lat="46" lon="8"/><rtept lat="46.01" lon="8"/><rtept lat="46.02" lon="8"/></rte>`))
	if err != nil {
		t.Fatal(err)
	}
	if len(tr.Segments) != 2 || len(tr.Segments[0]) != 2 || len(tr.Segments[1]) != 3 {
		t.Fatalf("segments = %v, want the two routes", tr.Segments)
	}
	if tr.Name != "Planned" || !tr.Segments[0][1].HasEle || tr.Segments[0][1].Ele != 110 {
		t.Errorf("route read wrong: %+v", tr)
	}
}

func TestParseGPXValues(t *testing.T) {
	t.Parallel()
	tr, err := parseGPXString(gpxDoc(`<trk><trkseg>
<trkpt lat=" 45.5 " lon="-7.25"><ele> 12.5 </ele><time>2024-03-01T10:00:00.5+01:00</time></trkpt>
<trkpt lat="-90" lon="180"><ele></ele><time>2024-03-01T10:00:00</time></trkpt>
<trkpt lat="90" lon="-180"><time/></trkpt>
</trkseg></trk>`))
	if err != nil {
		t.Fatal(err)
	}
	p := tr.Segments[0]
	if p[0].Lat != 45.5 || p[0].Lon != -7.25 || !p[0].HasEle || p[0].Ele != 12.5 {
		t.Errorf("point 1 = %+v", p[0])
	}
	if want := time.Date(2024, 3, 1, 9, 0, 0, 5e8, time.UTC); !p[0].Time.Equal(want) || p[0].Time.Location() != time.UTC {
		t.Errorf("point 1 time = %v, want %v in UTC", p[0].Time, want)
	}
	if p[1].HasEle || !p[1].Time.Equal(time.Date(2024, 3, 1, 10, 0, 0, 0, time.UTC)) {
		t.Errorf("point 2 = %+v: an empty ele is no elevation; a time without zone is UTC", p[1])
	}
	if !p[2].Time.IsZero() {
		t.Errorf("point 3 time = %v, want none", p[2].Time)
	}
}

func TestParseGPXLatin1(t *testing.T) {
	t.Parallel()
	doc := "<?xml version=\"1.0\" encoding=\"ISO-8859-1\"?><gpx version=\"1.0\"><name>Caf\xe9 \x80</name>" +
		"<trk><trkseg><trkpt lat=\"1\" lon=\"1\"/><trkpt lat=\"1.1\" lon=\"1\"/></trkseg></trk></gpx>"
	tr, err := parseGPXString(doc)
	if err != nil {
		t.Fatal(err)
	}
	if tr.Name != "Café \u0080" {
		t.Errorf("Name = %q", tr.Name)
	}
	doc = strings.Replace(doc, "ISO-8859-1", "windows-1252", 1)
	if tr, err = parseGPXString(doc); err != nil || tr.Name != "Café €" {
		t.Errorf("windows-1252: %q, %v", tr.Name, err)
	}
	bom := "\xEF\xBB\xBF" + gpxDoc(`<trk><trkseg><trkpt lat="1" lon="1"/><trkpt lat="1.1" lon="1"/></trkseg></trk>`)
	if _, err := parseGPXString(bom); err != nil {
		t.Errorf("a UTF-8 byte order mark: %v", err)
	}
}

func TestParseGPXRefusals(t *testing.T) {
	t.Parallel()
	seg := `<trk><trkseg><trkpt lat="1" lon="1"/><trkpt lat="1.1" lon="1"/></trkseg></trk>`
	points := func(n int, pt string) string {
		return gpxDoc(`<trk><trkseg>` + strings.Repeat(`<trkpt lat="1" lon="1"/>`, n-1) + pt + `</trkseg></trk>`)
	}
	tests := []struct {
		name, doc, want string
	}{
		{"empty", "", "not a GPX file: it holds no XML element"},
		{"white space", " \n ", "not a GPX file: it holds no XML element"},
		{"plain text", "hello, world", "not a GPX file: it is not XML"},
		{"JPEG bytes", "\xFF\xD8\xFF\xE0\x00\x10JFIF", "not a GPX file: it is not XML"},
		{"JSON", `{"type":"FeatureCollection"}`, "not a GPX file: it is not XML"},
		{"HTML", "<html><head><title>x</title></head><body><p>hi<br></body></html>", "not a GPX file: the root element is <html>"},
		{"HTML5", "<!DOCTYPE html>\n<html><body></body></html>", "not a GPX file: it is an HTML page"},
		{"KML", `<kml xmlns="http://www.opengis.net/kml/2.2"></kml>`, "not a GPX file: the root element is <kml>"},
		{"DOCTYPE", `<?xml version="1.0"?><!DOCTYPE gpx SYSTEM "gpx.dtd">` + gpxDoc(seg)[21:], "the GPX file declares a document type or entities (<!DOCTYPE> or <!ENTITY>), which are not accepted"},
		{"external entity", `<?xml version="1.0"?><!DOCTYPE gpx [<!ENTITY xxe SYSTEM "file:///etc/passwd">]><gpx><name>&xxe;</name>` + seg + `</gpx>`, "the GPX file declares a document type or entities (<!DOCTYPE> or <!ENTITY>), which are not accepted"},
		{"unknown entity", gpxDoc(`<metadata><name>&nbsp;</name></metadata>` + seg), "the GPX file is not well-formed XML: invalid character entity &nbsp; at line 2"},
		{"unclosed", gpxDoc(seg)[:len(gpxDoc(seg))-8], "the GPX file is not well-formed XML: unexpected EOF at line 2"},
		{"mismatched", gpxDoc(`<trk><trkseg><trkpt lat="1" lon="1"></trkseg></trk>`), "the GPX file is not well-formed XML: <trkpt> is closed by </trkseg> at line 2"},
		{"two roots", gpxDoc(seg) + "<gpx></gpx>", "the GPX file is not well-formed XML: a second root element <gpx> at line 3"},
		{"text after root", gpxDoc(seg) + "trailing", "the GPX file is not well-formed XML: text after the root element at line 3"},
		{"XML 1.1", `<?xml version="1.1"?>` + gpxDoc(seg)[21:], `the GPX file is not well-formed XML: unsupported version "1.1"; only version 1.0 is supported`},
		{"Shift_JIS", `<?xml version="1.0" encoding="Shift_JIS"?><gpx>` + seg + `</gpx>`, `the GPX file is in the character encoding "Shift_JIS"; only UTF-8, US-ASCII, ISO-8859-1 and Windows-1252 are read`},
		{"UTF-16", "\xFF\xFE<\x00g\x00", "the GPX file is in UTF-16; save it as UTF-8"},
		{"no points", gpxDoc(`<metadata><name>x</name></metadata><wpt lat="1" lon="1"/><trk><trkseg></trkseg></trk>`), "the GPX file has no track points"},
		{"one point", gpxDoc(`<trk><trkseg><trkpt lat="1" lon="1"/></trkseg><trkseg><trkpt lat="2" lon="1"/></trkseg></trk>`), "the GPX file has no line of two points or more"},
		{"latitude range", points(17, `<trkpt lat="123.4" lon="1"/>`), "latitude 123.4 is out of range at point 17"},
		{"longitude range", points(3, `<trkpt lat="1" lon="-180.5"/>`), "longitude -180.5 is out of range at point 3"},
		{"latitude not a number", points(2, `<trkpt lat="north" lon="1"/>`), `latitude "north" is not a number at point 2`},
		{"latitude NaN", points(2, `<trkpt lat="NaN" lon="1"/>`), `latitude "NaN" is not a number at point 2`},
		{"longitude Inf", points(2, `<trkpt lat="1" lon="+Inf"/>`), `longitude "+Inf" is not a number at point 2`},
		{"no lon", points(4, `<trkpt lat="1"/>`), "point 4 has no lat or lon attribute"},
		{"elevation", points(5, `<trkpt lat="1" lon="1"><ele>high</ele></trkpt>`), `elevation "high" is not a number at point 5`},
		{"elevation range", points(5, `<trkpt lat="1" lon="1"><ele>1e9</ele></trkpt>`), `elevation 1e9 is out of range at point 5`},
		{"time", points(6, `<trkpt lat="1" lon="1"><time>yesterday</time></trkpt>`), `time "yesterday" is not a date and time at point 6`},
		{"route point range", gpxDoc(`<rte><rtept lat="1" lon="1"/><rtept lat="95" lon="1"/></rte>`), "latitude 95 is out of range at point 2"},
		{"deep", gpxDoc(strings.Repeat("<extensions>", 120) + strings.Repeat("</extensions>", 120)), "the GPX file nests elements more than 100 deep"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			tr, err := parseGPXString(tt.doc)
			if tr != nil {
				t.Errorf("a track was returned with the error: %+v", tr)
			}
			wantFormatError(t, err, tt.want)
		})
	}
}

func TestParseGPXTooLarge(t *testing.T) {
	t.Parallel()
	doc := gpxDoc(`<trk><trkseg>` + strings.Repeat(`<trkpt lat="45.123456" lon="7.123456"><ele>1000</ele></trkpt>`, 2000) + `</trkseg></trk>`)
	size := int64(len(doc))

	tr, err := ParseGPX(strings.NewReader(doc), Limits{MaxBytes: size})
	if err != nil || tr.Points() != 2000 {
		t.Fatalf("a file of exactly MaxBytes: %v", err)
	}
	tr, err = ParseGPX(strings.NewReader(doc), Limits{MaxBytes: size - 1})
	if !errors.Is(err, ErrTooLarge) || tr != nil {
		t.Fatalf("one byte over: %v, want ErrTooLarge", err)
	}
	if want := fmt.Sprintf("the GPX file is larger than %d bytes", size-1); err.Error() != want {
		t.Errorf("error = %q, want %q", err, want)
	}
	var fe *FormatError
	if errors.As(err, &fe) {
		t.Errorf("ErrTooLarge is also a FormatError")
	}
	// Far over the limit, inside a text: still ErrTooLarge, not a syntax error.
	_, err = ParseGPX(strings.NewReader(gpxDoc("<metadata><desc>"+strings.Repeat("x", 5000))), Limits{MaxBytes: 1000})
	if !errors.Is(err, ErrTooLarge) {
		t.Errorf("over the limit in a text: %v", err)
	}

	_, err = ParseGPX(strings.NewReader(doc), Limits{MaxPoints: 1999})
	if !errors.Is(err, ErrTooLarge) || err.Error() != "the GPX file has more than 1999 points" {
		t.Errorf("over MaxPoints: %v", err)
	}
	if _, err = ParseGPX(strings.NewReader(doc), Limits{MaxPoints: 2000}); err != nil {
		t.Errorf("at MaxPoints: %v", err)
	}
}

// errReader fails after its content, as a broken connection would.
type errReader struct {
	r   *strings.Reader
	err error
}

func (e *errReader) Read(p []byte) (int, error) {
	n, _ := e.r.Read(p)
	if n == 0 {
		return 0, e.err
	}
	return n, nil
}

func TestParseGPXReadError(t *testing.T) {
	t.Parallel()
	broken := errors.New("connection reset")
	_, err := ParseGPX(&errReader{r: strings.NewReader(`<gpx version="1.1"><trk><trkseg>`), err: broken}, Limits{})
	if !errors.Is(err, broken) {
		t.Errorf("error = %v, want the reader's", err)
	}
	var fe *FormatError
	if errors.As(err, &fe) || errors.Is(err, ErrTooLarge) {
		t.Errorf("a read error passed as the file's fault: %v", err)
	}
}
