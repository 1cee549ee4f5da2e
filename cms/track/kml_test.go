package track

import (
	"errors"
	"fmt"
	"strings"
	"testing"
	"time"
)

// kmlDoc wraps content in a KML 2.2 root with the gx namespace.
func kmlDoc(body string) string {
	return `<?xml version="1.0" encoding="UTF-8"?>
<kml xmlns="http://www.opengis.net/kml/2.2" xmlns:gx="http://www.google.com/kml/ext/2.2">` + body + "</kml>\n"
}

func parseKMLString(s string) (*Track, error) { return ParseKML(strings.NewReader(s), Limits{}) }

func TestParseKMLLineString(t *testing.T) {
	t.Parallel()
	tr := readSample(t, "line.kml")
	if len(tr.Segments) != 1 || tr.Points() != sampleOf(t, "line.kml").points {
		t.Fatalf("segments %d, points %d: want one line of 2000 (the Point placemark is not track)", len(tr.Segments), tr.Points())
	}
	if tr.Name != "Coast path" {
		t.Errorf("Name = %q, want the Document's", tr.Name)
	}
	if tr.Description != "From the harbour to the lighthouse & back." {
		t.Errorf("Description = %q, want plain text without the script", tr.Description)
	}
	for i, p := range tr.Segments[0] {
		if !p.HasEle || !p.Time.IsZero() {
			t.Fatalf("point %d = %+v: want an elevation and no time", i+1, p)
		}
	}
}

func TestParseKMLMultiGeometry(t *testing.T) {
	t.Parallel()
	tr := readSample(t, "multi.kml")
	if len(tr.Segments) != 3 {
		t.Fatalf("segments = %d, want the three LineStrings of the MultiGeometry", len(tr.Segments))
	}
	for i, s := range tr.Segments {
		if len(s) != 300 {
			t.Errorf("segment %d has %d points, want 300", i+1, len(s))
		}
		for _, p := range s {
			if p.HasEle {
				t.Fatalf("segment %d: altitudes all 0 kept as elevations", i+1)
			}
		}
	}
	if tr.Name != "Three stages" || tr.Description != "Stage one, two & three." {
		t.Errorf("texts = %q, %q: want the Placemark's (no Document name)", tr.Name, tr.Description)
	}
}

func TestParseKMLGxTrack(t *testing.T) {
	t.Parallel()
	tr := readSample(t, "gxtrack.kml")
	if len(tr.Segments) != 2 || len(tr.Segments[0]) != 700 || len(tr.Segments[1]) != 700 {
		t.Fatalf("segments = %d, want the MultiTrack's two gx:Tracks of 700", len(tr.Segments))
	}
	p := tr.Segments[0][0]
	if !p.HasEle || p.Time.IsZero() || !p.Time.Equal(time.Date(2024, 6, 1, 7, 30, 0, 0, time.UTC)) {
		t.Errorf("first point = %+v", p)
	}
	last := tr.Segments[1][699]
	if want := time.Date(2024, 6, 1, 7, 30, 0, 0, time.UTC).Add(1399*5*time.Second + 20*time.Minute); !last.Time.Equal(want) {
		t.Errorf("last time = %v, want %v", last.Time, want)
	}
	if tr.Name != "Recorded walk" {
		t.Errorf("Name = %q", tr.Name)
	}
}

func TestParseKMLDocumentOrder(t *testing.T) {
	t.Parallel()
	// Lines at every depth, between geometry that is not track, in the
	// order of the document; KML 2.3's Track without the gx prefix too.
	tr, err := parseKMLString(kmlDoc(`<Document>
<Placemark><LineString><coordinates>1,1 1,1.1</coordinates></LineString></Placemark>
<Folder><name>F</name>
  <Placemark><Polygon><outerBoundaryIs><LinearRing><coordinates>5,5 5,6 6,6 5,5</coordinates></LinearRing></outerBoundaryIs></Polygon></Placemark>
  <Placemark><Point><coordinates>7,7</coordinates></Point></Placemark>
  <Document><Placemark><MultiGeometry>
    <LineString><coordinates>2,2,10
      2,2.1,20</coordinates></LineString>
    <MultiGeometry><LineString><coordinates>3 , 3 , 0   3,3.1,5</coordinates></LineString></MultiGeometry>
  </MultiGeometry></Placemark></Document>
</Folder>
<Placemark><gx:MultiTrack><gx:Track><gx:coord>4 4 1</gx:coord><gx:coord>4 4.1 2</gx:coord></gx:Track></gx:MultiTrack></Placemark>
<Placemark><Track><when>2024-01-01T00:00:00Z</when><when>2024-01-01T00:01:00Z</when><coord>8 8</coord><coord>8 8.1</coord></Track></Placemark>
</Document>`))
	if err != nil {
		t.Fatal(err)
	}
	got := ""
	for _, s := range tr.Segments {
		got += fmt.Sprintf("[%v,%v..%v ele %v]", s[0].Lon, s[0].Lat, s[len(s)-1].Lat, s[0].HasEle)
	}
	want := "[1,1..1.1 ele false][2,2..2.1 ele true][3,3..3.1 ele true][4,4..4.1 ele true][8,8..8.1 ele false]"
	if got != want {
		t.Errorf("segments\n got %s\nwant %s", got, want)
	}
	if tr.Name != "F" {
		t.Errorf("Name = %q, want the Folder's", tr.Name)
	}
	if s := tr.Segments[4]; s[1].Time.Sub(s[0].Time) != time.Minute {
		t.Errorf("Track times = %v, %v", s[0].Time, s[1].Time)
	}
}

func TestParseKMLRefusals(t *testing.T) {
	t.Parallel()
	line := func(coords string) string {
		return kmlDoc(`<Placemark><LineString><coordinates>` + coords + `</coordinates></LineString></Placemark>`)
	}
	tests := []struct {
		name, doc, want string
	}{
		{"GPX", gpxDoc(""), "not a KML file: the root element is <gpx>"},
		{"HTML", "<html><body>x</body></html>", "not a KML file: the root element is <html>"},
		{"not XML", "PK\x03\x04", "not a KML file: it is not XML"},
		{"DOCTYPE", `<!DOCTYPE kml>` + kmlDoc("")[39:], "the KML file declares a document type or entities (<!DOCTYPE> or <!ENTITY>), which are not accepted"},
		{"points only", kmlDoc(`<Placemark><Point><coordinates>1,1</coordinates></Point></Placemark>`), "the KML file has no LineString or gx:Track"},
		{"polygon only", kmlDoc(`<Placemark><Polygon><outerBoundaryIs><LinearRing><coordinates>5,5 5,6 6,6 5,5</coordinates></LinearRing></outerBoundaryIs></Polygon></Placemark>`), "the KML file has no LineString or gx:Track"},
		{"one point", line("1,1"), "the KML file has no line of two points or more"},
		{"latitude", line("1,1 1,1 7,95.5"), "latitude 95.5 is out of range at point 3"},
		{"longitude", line("1,1\n-200,1"), "longitude -200 is out of range at point 2"},
		{"one number", line("1,1 7"), "the coordinates at point 2 are not lon,lat[,alt]"},
		{"four numbers", line("1,1,1,1"), "the coordinates at point 1 are not lon,lat[,alt]"},
		{"empty part", line("1,,1"), "the coordinates at point 1 are not lon,lat[,alt]"},
		{"trailing comma", line("1,1,"), "the coordinates at point 1 are not lon,lat[,alt]"},
		{"word", line("1,1 east,north"), `latitude "north" is not a number at point 2`},
		{"altitude", line("1,1,x"), `elevation "x" is not a number at point 1`},
		{"gx:coord", kmlDoc(`<gx:Track><gx:coord>1 1 1</gx:coord><gx:coord>1</gx:coord></gx:Track>`), `the gx:coord at point 2 is not "lon lat alt"`},
		{"gx:coord range", kmlDoc(`<gx:Track><gx:coord>1 91 1</gx:coord></gx:Track>`), `latitude 91 is out of range at point 1`},
		{"when", kmlDoc(`<gx:Track><when>soon</when><gx:coord>1 1 1</gx:coord></gx:Track>`), `time "soon" is not a date and time at point 1`},
		{"when count", kmlDoc(`<Placemark><LineString><coordinates>0,0 0,1</coordinates></LineString></Placemark><gx:Track><when>2024-01-01T00:00:00Z</when><gx:coord>1 1 1</gx:coord><gx:coord>1 1.1 1</gx:coord></gx:Track>`), "a gx:Track has 1 <when> and 2 <gx:coord> (from point 3): they must pair up"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			tr, err := parseKMLString(tt.doc)
			if tr != nil {
				t.Errorf("a track was returned with the error")
			}
			wantFormatError(t, err, tt.want)
		})
	}
}

func TestParseKMLTooLarge(t *testing.T) {
	t.Parallel()
	doc := kmlDoc(`<Placemark><LineString><coordinates>` + strings.Repeat("7.1,45.1,100 ", 5000) + `</coordinates></LineString></Placemark>`)
	if _, err := ParseKML(strings.NewReader(doc), Limits{MaxBytes: int64(len(doc))}); err != nil {
		t.Fatalf("at the limit: %v", err)
	}
	_, err := ParseKML(strings.NewReader(doc), Limits{MaxBytes: int64(len(doc)) - 1})
	if !errors.Is(err, ErrTooLarge) || err.Error() != fmt.Sprintf("the KML file is larger than %d bytes", len(doc)-1) {
		t.Errorf("over the limit: %v", err)
	}
	_, err = ParseKML(strings.NewReader(doc), Limits{MaxPoints: 4999})
	if !errors.Is(err, ErrTooLarge) || err.Error() != "the KML file has more than 4999 points" {
		t.Errorf("over MaxPoints: %v", err)
	}
	gx := kmlDoc(`<gx:Track>` + strings.Repeat(`<gx:coord>1 1 1</gx:coord>`, 11) + `</gx:Track>`)
	if _, err = ParseKML(strings.NewReader(gx), Limits{MaxPoints: 10}); !errors.Is(err, ErrTooLarge) {
		t.Errorf("gx:Track over MaxPoints: %v", err)
	}
}
