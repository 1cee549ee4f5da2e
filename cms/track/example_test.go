package track_test

import (
	"errors"
	"fmt"
	"os"
	"strings"

	"github.com/bwcms/cms/cms/track"
)

const walkGPX = `<?xml version="1.0" encoding="UTF-8"?>
<gpx version="1.1" creator="example" xmlns="http://www.topografix.com/GPX/1/1">
  <trk><name>To the chapel</name><trkseg>
    <trkpt lat="46.0000" lon="7.0000"><ele>1000</ele><time>2024-06-01T08:00:00Z</time></trkpt>
    <trkpt lat="46.0050" lon="7.0000"><ele>1040</ele><time>2024-06-01T08:10:00Z</time></trkpt>
    <trkpt lat="46.0100" lon="7.0000"><ele>1102</ele><time>2024-06-01T08:25:00Z</time></trkpt>
    <trkpt lat="46.0100" lon="7.0050"><ele>1099</ele><time>2024-06-01T08:31:00Z</time></trkpt>
  </trkseg></trk>
</gpx>`

func ExampleMeasure() {
	t, err := track.ParseGPX(strings.NewReader(walkGPX), track.Limits{})
	if err != nil {
		fmt.Println(err)
		return
	}
	s := track.Measure(t)
	fmt.Printf("%s: %.0f m, %.0f m up, %.0f m down, %.0f minutes, circular %v\n",
		t.Name, s.Distance, s.Ascent, s.Descent, *s.Duration, s.Circular)
	// Output: To the chapel: 1498 m, 102 m up, 0 m down, 31 minutes, circular false
}

func ExampleParseGPX_refused() {
	_, err := track.ParseGPX(strings.NewReader("<html><body>Not found</body></html>"), track.Limits{})
	var fe *track.FormatError
	if errors.As(err, &fe) {
		fmt.Println(fe.Msg)
	}
	_, err = track.ParseGPX(strings.NewReader(walkGPX), track.Limits{MaxBytes: 100})
	fmt.Println(errors.Is(err, track.ErrTooLarge), err)
	// Output:
	// not a GPX file: the root element is <html>
	// true the GPX file is larger than 100 bytes
}

func ExampleGeoJSON() {
	t, err := track.ParseKML(strings.NewReader(`<kml xmlns="http://www.opengis.net/kml/2.2">
<Placemark><name>Pier</name><LineString><coordinates>9.1,45.8 9.1,45.801 9.101,45.801</coordinates></LineString></Placemark>
</kml>`), track.Limits{})
	if err != nil {
		fmt.Println(err)
		return
	}
	if err := track.GeoJSON(os.Stdout, t, track.Measure(t)); err != nil {
		fmt.Println(err)
	}
	// Output:
	// {"type":"Feature","bbox":[9.1,45.8,9.101,45.801],"geometry":{"type":"LineString","coordinates":[[9.1,45.8],[9.1,45.801],[9.101,45.801]]},"properties":{"name":"Pier","distance":188.7,"ascent":0,"descent":0,"hasElevation":false,"duration":null,"circular":false,"bbox":[9.1,45.8,9.101,45.801],"start":{"lon":9.1,"lat":45.8},"end":{"lon":9.101,"lat":45.801},"points":3,"simplifiedPoints":3}}
}
